#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace ak = agentkit;
using ak::json;
using ak::provider;

namespace {
json J(const char* s) { return json::parse(s); }
}  // namespace

TEST(ProviderParse, AnthropicToolUseAndCacheUsage) {
    auto t = ak::parse_response(provider::anthropic, J(fixtures::anthropic_tool_use));
    ASSERT_TRUE(t) << t.error().to_text();
    EXPECT_EQ(t->text, "I'll look both up.");
    ASSERT_EQ(t->calls.size(), 2u);
    EXPECT_EQ(t->calls[0].id, "toolu_01A09q90qw90lq917835lq9");
    EXPECT_EQ(t->calls[1].arguments, (json{{"key", "beta"}}));
    EXPECT_EQ(t->stop_reason, "tool_use");
    EXPECT_EQ(t->usage.input_tokens, 512u + 4608u);
    EXPECT_EQ(t->usage.cache_read_tokens, 4608u);
    EXPECT_EQ(t->usage.fresh_input(), 512u);
    EXPECT_NEAR(t->usage.hit_rate(), 4608.0 / 5120.0, 1e-9);
    EXPECT_TRUE(t->raw.is_array());
}

TEST(ProviderParse, AnthropicFinalKeepsThinkingForEcho) {
    auto t = ak::parse_response(provider::anthropic, J(fixtures::anthropic_final));
    ASSERT_TRUE(t);
    EXPECT_TRUE(t->calls.empty());
    EXPECT_EQ(t->text, "alpha is 1 and beta is 2.");
    EXPECT_EQ(t->raw[0]["type"], "thinking");
    EXPECT_EQ(t->usage.cache_write_tokens, 1200u);
    EXPECT_EQ(t->usage.input_tokens, 40u + 1200u + 4608u);
}

TEST(ProviderParse, AnthropicErrorsAndTruncation) {
    auto rl = ak::parse_response(provider::anthropic, J(fixtures::anthropic_rate_limit));
    ASSERT_FALSE(rl);
    EXPECT_EQ(rl.error().code, ak::errc::provider_rate_limited);
    EXPECT_TRUE(ak::is_retryable(rl.error()));
    auto ov = ak::parse_response(provider::anthropic, J(fixtures::anthropic_overloaded));
    ASSERT_FALSE(ov);
    EXPECT_EQ(ov.error().code, ak::errc::provider_overloaded);
    EXPECT_EQ(ak::parse_error(provider::anthropic, 529, fixtures::anthropic_overloaded).code, ak::errc::provider_overloaded);
    auto mt = ak::parse_response(provider::anthropic, J(fixtures::anthropic_max_tokens));
    ASSERT_TRUE(mt);
    EXPECT_TRUE(mt->truncated);
}

TEST(ProviderParse, ChatParallelCallsWithOneMalformed) {
    auto t = ak::parse_response(provider::openai_chat, J(fixtures::chat_parallel));
    ASSERT_TRUE(t) << t.error().to_text();
    ASSERT_EQ(t->calls.size(), 2u);
    EXPECT_FALSE(t->calls[0].malformed);
    EXPECT_EQ(t->calls[0].arguments, (json{{"key", "alpha"}}));
    ASSERT_TRUE(t->calls[1].malformed.has_value());
    EXPECT_EQ(t->calls[1].malformed->code, ak::errc::args_malformed);
    EXPECT_EQ(t->calls[1].raw_arguments, "{\"key\": \"be");
    EXPECT_EQ(t->usage.input_tokens, 2006u);
    EXPECT_EQ(t->usage.cache_read_tokens, 1920u);
    EXPECT_EQ(t->usage.output_tokens, 300u);
    // The echo keeps the exact argument text.
    EXPECT_EQ(t->raw["tool_calls"][1]["function"]["arguments"], "{\"key\": \"be");
}

TEST(ProviderParse, ResponsesItems) {
    auto t = ak::parse_response(provider::openai_responses, J(fixtures::responses_calls));
    ASSERT_TRUE(t) << t.error().to_text();
    EXPECT_EQ(t->text, "Checking both.");
    ASSERT_EQ(t->calls.size(), 2u);
    EXPECT_EQ(t->calls[0].id, "call_12345xyz");
    EXPECT_EQ(t->calls[1].arguments, (json{{"key", "beta"}}));
    EXPECT_EQ(t->usage.cache_read_tokens, 2944u);
    EXPECT_EQ(t->usage.reasoning_tokens, 64u);
    ASSERT_EQ(t->raw.size(), 4u);  // the reasoning item is echoed back
    EXPECT_EQ(t->raw[0]["type"], "reasoning");

    auto inc = ak::parse_response(provider::openai_responses, J(fixtures::responses_incomplete));
    ASSERT_TRUE(inc);
    EXPECT_TRUE(inc->truncated);
    EXPECT_EQ(inc->stop_reason, "incomplete:max_output_tokens");
    auto failed = ak::parse_response(provider::openai_responses, J(fixtures::responses_failed));
    ASSERT_FALSE(failed);
    EXPECT_EQ(failed.error().code, ak::errc::provider_error);
}

TEST(ProviderParse, OpenAiHttp429) {
    auto e = ak::parse_error(provider::openai_chat, 429, fixtures::openai_rate_limit, 2.5);
    EXPECT_EQ(e.code, ak::errc::provider_rate_limited);
    EXPECT_EQ(e.details["retry_after_s"], 2.5);
    EXPECT_EQ(e.details["code"], "rate_limit_exceeded");
    EXPECT_NE(e.message.find("Rate limit reached"), std::string::npos);
    // In a 200 body, too.
    auto r = ak::parse_response(provider::openai_responses, J(fixtures::openai_rate_limit));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::provider_rate_limited);
}

TEST(ProviderParse, StatusCodesMapToStableCodes) {
    EXPECT_EQ(ak::parse_error(provider::openai_chat, 401, "").code, ak::errc::provider_auth);
    EXPECT_EQ(ak::parse_error(provider::openai_chat, 400, "{}").code, ak::errc::provider_invalid);
    EXPECT_EQ(ak::parse_error(provider::openai_chat, 503, "").code, ak::errc::provider_overloaded);
    EXPECT_EQ(ak::parse_error(provider::openai_chat, 500, "<html>").code, ak::errc::provider_error);
    EXPECT_EQ(ak::parse_error(provider::openai_chat, 500, "<html>").message, "openai_chat: <html>");
}

TEST(ProviderParse, MalformedBodiesNeverCrash) {
    for (auto p : {provider::anthropic, provider::openai_chat, provider::openai_responses}) {
        for (const char* body : {"", "not json", "[]", "{}", "{\"content\": 5}", "{\"choices\": []}", "{\"choices\": [1]}",
                                 "{\"output\": {}}", "null", "{\"choices\":[{\"message\":{\"tool_calls\":[{\"function\":7}]}}]}",
                                 "{\"content\":[{\"type\":\"tool_use\"}, 3, null]}", "{\"output\":[{\"type\":\"function_call\"}]}"}) {
            auto r = ak::parse_response_text(p, body);
            if (r) {
                for (const auto& c : r->calls) EXPECT_FALSE(c.name.empty());
            } else {
                EXPECT_FALSE(r.error().code.empty());
            }
        }
    }
    auto r = ak::parse_response_text(provider::anthropic, "not json");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::provider_malformed);
}

TEST(ProviderParse, ArgumentEdgeCases) {
    const json body = json::parse(R"({"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[
        {"id":"c1","type":"function","function":{"name":"a","arguments":""}},
        {"id":"c2","type":"function","function":{"name":"b","arguments":"[1,2]"}},
        {"id":"c3","type":"function","function":{"name":"c","arguments":{"x":1}}}]},"finish_reason":"tool_calls"}]})");
    auto t = ak::parse_response(provider::openai_chat, body);
    ASSERT_TRUE(t);
    ASSERT_EQ(t->calls.size(), 3u);
    EXPECT_FALSE(t->calls[0].malformed);
    EXPECT_EQ(t->calls[0].arguments, json::object());
    ASSERT_TRUE(t->calls[1].malformed);
    EXPECT_NE(t->calls[1].malformed->message.find("must be a JSON object"), std::string::npos);
    EXPECT_FALSE(t->calls[2].malformed);
    EXPECT_EQ(t->calls[2].arguments["x"], 1);
}

TEST(ProviderRequest, RequiredHeaders) {
    json req{{"tools", json::array({json{{"name", "a"}}, json{{"name", "b"}, {"defer_loading", true}}})}};
    auto h = ak::required_headers(provider::anthropic, req);
    ASSERT_EQ(h.size(), 2u);
    EXPECT_EQ(h[0].first, "anthropic-version");
    EXPECT_EQ(h[1].second, "advanced-tool-use-2025-11-20");
    EXPECT_TRUE(ak::required_headers(provider::openai_chat, req).empty());
}

TEST(CacheSim, AnthropicBreakpointsReadOnSecondRequest) {
    ak::prompt_cache_sim sim;
    json req{{"tools", json::array({json{{"name", "t"}, {"description", std::string(6000, 'x')}, {"cache_control", {{"type", "ephemeral"}}}}})},
             {"system", json::array({json{{"type", "text"}, {"text", "sys"}, {"cache_control", {{"type", "ephemeral"}}}}})},
             {"messages", json::array({json{{"role", "user"}, {"content", json::array({json{{"type", "text"}, {"text", "hi"}}})}}})}};
    auto first = sim.account(provider::anthropic, req);
    EXPECT_EQ(first.cache_read_tokens, 0u);
    EXPECT_GT(first.cache_write_tokens, 1000u);
    auto second = sim.account(provider::anthropic, req);
    EXPECT_EQ(second.cache_read_tokens, first.cache_write_tokens);
    EXPECT_EQ(second.cache_write_tokens, 0u);
    // Changing the system prompt invalidates everything after the tools.
    req["system"][0]["text"] = "other";
    auto third = sim.account(provider::anthropic, req);
    EXPECT_LT(third.cache_read_tokens, second.cache_read_tokens);
}

TEST(CacheSim, OpenAiPrefixIn128TokenSteps) {
    ak::prompt_cache_sim sim;
    json req{{"tools", json::array({json{{"name", "t"}, {"description", std::string(8000, 'y')}}})},
             {"messages", json::array({json{{"role", "user"}, {"content", "hello"}}})}};
    auto first = sim.account(provider::openai_chat, req);
    EXPECT_EQ(first.cache_read_tokens, 0u);
    req["messages"].push_back(json{{"role", "user"}, {"content", "more"}});
    auto second = sim.account(provider::openai_chat, req);
    EXPECT_GT(second.cache_read_tokens, 0u);
    EXPECT_EQ(second.cache_read_tokens % 128, 0u);
    EXPECT_LE(second.cache_read_tokens, second.input_tokens);
}
