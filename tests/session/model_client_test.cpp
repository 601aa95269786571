// The model client (agentkit/session/model_client.hpp) and what it is built on (net/http_client.hpp,
// net/sse.hpp, session/stream.hpp), against a fake provider on 127.0.0.1 (agentkit::net's HTTP
// server) that answers in each provider's documented wire format, streamed and not: text,
// several tool calls with their arguments split across many deltas, usage with cache counts,
// HTTP errors with the provider's error bodies and Retry-After, error events mid-stream, cut
// streams, slow servers, cancellation, and speculative execution through agent_session::run.
// The API key is checked to appear in no error. No sleeps: the server holds its answers on
// conditions the test (or the client's tool) raises.
#include <agentkit/agentkit.hpp>
#include <agentkit/net/http_server.hpp>
#include <agentkit/session/model_client.hpp>

#include <gtest/gtest.h>

#include "support/flag.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace ak = agentkit;
namespace net = agentkit::net;
using agentkit::json;
using namespace std::chrono_literals;

namespace {

constexpr const char* kKey = "sk-test-SECRET-5f0c2e9a71b84d3c";
constexpr const char* kModel = "fake-model-1";

using agentkit::test::flag;

void expect_no_key(const ak::error& e) {
    EXPECT_EQ(e.to_text().find(kKey), std::string::npos) << e.to_text();
    EXPECT_EQ(e.to_json().dump().find(kKey), std::string::npos) << e.to_json().dump();
}

// ---- answers in each provider's documented wire format ----------------------------------------

struct wire_call {
    std::string id;
    std::string name;
    json args;
};

/// What the fake model answers; encoded per provider, plain or streamed.
struct wire_answer {
    std::string text;
    std::vector<wire_call> calls;
    std::size_t input = 100;  ///< every prompt token
    std::size_t cache_read = 80;
    std::size_t cache_write = 6;  ///< Anthropic only
    std::size_t output = 17;
};

std::string call_id(ak::provider p, int n) { return (p == ak::provider::anthropic ? "toolu_fake_0" : "call_fake_0") + std::to_string(n); }

/// `s` in pieces of at most `n` bytes, the way providers split text and arguments across deltas.
std::vector<std::string> pieces(const std::string& s, std::size_t n = 3) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < s.size(); i += n) out.push_back(s.substr(i, n));
    return out;
}

json usage_of(ak::provider p, const wire_answer& a) {
    switch (p) {
        case ak::provider::anthropic:
            return json{{"input_tokens", a.input - a.cache_read - a.cache_write},
                        {"cache_creation_input_tokens", a.cache_write},
                        {"cache_read_input_tokens", a.cache_read},
                        {"output_tokens", a.output},
                        {"service_tier", "standard"}};
        case ak::provider::openai_chat:
            return json{{"prompt_tokens", a.input},
                        {"completion_tokens", a.output},
                        {"total_tokens", a.input + a.output},
                        {"prompt_tokens_details", {{"cached_tokens", a.cache_read}, {"audio_tokens", 0}}},
                        {"completion_tokens_details", {{"reasoning_tokens", 0}}}};
        case ak::provider::openai_responses:
            return json{{"input_tokens", a.input},
                        {"input_tokens_details", {{"cached_tokens", a.cache_read}}},
                        {"output_tokens", a.output},
                        {"output_tokens_details", {{"reasoning_tokens", 0}}},
                        {"total_tokens", a.input + a.output}};
    }
    return json::object();
}

json responses_text_item(const wire_answer& a) {
    return json{{"type", "message"}, {"id", "msg_fake_1"}, {"status", "completed"}, {"role", "assistant"},
                {"content", json::array({json{{"type", "output_text"}, {"text", a.text}, {"annotations", json::array()}}})}};
}
json responses_call_item(const wire_call& c, std::size_t k, bool done) {
    return json{{"type", "function_call"}, {"id", "fc_fake_" + std::to_string(k)}, {"call_id", c.id}, {"name", c.name},
                {"arguments", done ? c.args.dump() : std::string()}, {"status", done ? "completed" : "in_progress"}};
}

/// The non-streamed response body.
json plain_body(ak::provider p, const wire_answer& a) {
    switch (p) {
        case ak::provider::anthropic: {
            json content = json::array();
            if (!a.text.empty()) content.push_back(json{{"type", "text"}, {"text", a.text}});
            for (const auto& c : a.calls) content.push_back(json{{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", c.args}});
            return json{{"id", "msg_fake_1"}, {"type", "message"}, {"role", "assistant"}, {"model", kModel},
                        {"content", content}, {"stop_reason", a.calls.empty() ? "end_turn" : "tool_use"},
                        {"stop_sequence", nullptr}, {"usage", usage_of(p, a)}};
        }
        case ak::provider::openai_chat: {
            json msg{{"role", "assistant"}, {"content", a.text.empty() ? json(nullptr) : json(a.text)}, {"refusal", nullptr}};
            if (!a.calls.empty()) {
                json calls = json::array();
                for (const auto& c : a.calls)
                    calls.push_back(json{{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.args.dump()}}}});
                msg["tool_calls"] = calls;
            }
            return json{{"id", "chatcmpl-fake1"}, {"object", "chat.completion"}, {"created", 1741569952}, {"model", kModel},
                        {"choices", json::array({json{{"index", 0}, {"message", msg}, {"logprobs", nullptr},
                                                      {"finish_reason", a.calls.empty() ? "stop" : "tool_calls"}}})},
                        {"usage", usage_of(p, a)}};
        }
        case ak::provider::openai_responses: {
            json output = json::array();
            if (!a.text.empty()) output.push_back(responses_text_item(a));
            for (std::size_t k = 0; k < a.calls.size(); ++k) output.push_back(responses_call_item(a.calls[k], k, true));
            return json{{"id", "resp_fake_1"}, {"object", "response"}, {"created_at", 1741476542}, {"status", "completed"},
                        {"model", kModel}, {"output", output}, {"parallel_tool_calls", true}, {"usage", usage_of(p, a)}};
        }
    }
    return json::object();
}

std::string named_event(const std::string& name, const json& data) { return "event: " + name + "\ndata: " + data.dump() + "\n\n"; }
std::string data_event(const std::string& data) { return "data: " + data + "\n\n"; }

/// The streamed response: its events, and the index of the event after which the first tool
/// call is complete (as the provider's stream lets a reader know it).
struct wire_stream {
    std::vector<std::string> events;
    std::size_t first_call_done = static_cast<std::size_t>(-1);
};

wire_stream anthropic_stream(const wire_answer& a) {
    wire_stream s;
    json start_usage = usage_of(ak::provider::anthropic, a);
    start_usage["output_tokens"] = 1;
    s.events.push_back(named_event("message_start", {{"type", "message_start"},
                                                     {"message", {{"id", "msg_fake_1"}, {"type", "message"}, {"role", "assistant"},
                                                                  {"model", kModel}, {"content", json::array()}, {"stop_reason", nullptr},
                                                                  {"stop_sequence", nullptr}, {"usage", start_usage}}}}));
    int index = 0;
    if (!a.text.empty()) {
        s.events.push_back(named_event("content_block_start", {{"type", "content_block_start"}, {"index", index},
                                                               {"content_block", {{"type", "text"}, {"text", ""}}}}));
        s.events.push_back(named_event("ping", {{"type", "ping"}}));
        for (const auto& piece : pieces(a.text, 5))
            s.events.push_back(named_event("content_block_delta", {{"type", "content_block_delta"}, {"index", index},
                                                                   {"delta", {{"type", "text_delta"}, {"text", piece}}}}));
        s.events.push_back(named_event("content_block_stop", {{"type", "content_block_stop"}, {"index", index}}));
        ++index;
    }
    for (std::size_t k = 0; k < a.calls.size(); ++k, ++index) {
        const auto& c = a.calls[k];
        s.events.push_back(named_event("content_block_start", {{"type", "content_block_start"}, {"index", index},
                                                               {"content_block", {{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", json::object()}}}}));
        std::vector<std::string> parts = pieces(c.args.dump());
        parts.insert(parts.begin(), "");  // the API's first input_json_delta is often empty
        for (const auto& piece : parts)
            s.events.push_back(named_event("content_block_delta", {{"type", "content_block_delta"}, {"index", index},
                                                                   {"delta", {{"type", "input_json_delta"}, {"partial_json", piece}}}}));
        s.events.push_back(named_event("content_block_stop", {{"type", "content_block_stop"}, {"index", index}}));
        if (k == 0) s.first_call_done = s.events.size() - 1;
    }
    s.events.push_back(named_event("message_delta", {{"type", "message_delta"},
                                                     {"delta", {{"stop_reason", a.calls.empty() ? "end_turn" : "tool_use"}, {"stop_sequence", nullptr}}},
                                                     {"usage", {{"output_tokens", a.output}}}}));
    s.events.push_back(named_event("message_stop", {{"type", "message_stop"}}));
    return s;
}

wire_stream chat_stream(const wire_answer& a) {
    wire_stream s;
    auto chunk = [](json choices, json usage = nullptr) {
        return data_event(json{{"id", "chatcmpl-fake1"}, {"object", "chat.completion.chunk"}, {"created", 1741569952},
                               {"model", kModel}, {"system_fingerprint", "fp_fake"}, {"choices", std::move(choices)},
                               {"usage", std::move(usage)}}
                              .dump());
    };
    auto delta = [&](json d, json finish = nullptr) {
        return chunk(json::array({json{{"index", 0}, {"delta", std::move(d)}, {"logprobs", nullptr}, {"finish_reason", std::move(finish)}}}));
    };
    s.events.push_back(delta({{"role", "assistant"}, {"content", ""}, {"refusal", nullptr}}));
    for (const auto& piece : pieces(a.text, 5)) s.events.push_back(delta({{"content", piece}}));
    for (std::size_t k = 0; k < a.calls.size(); ++k) {
        const auto& c = a.calls[k];
        s.events.push_back(delta({{"tool_calls", json::array({json{{"index", k}, {"id", c.id}, {"type", "function"},
                                                                   {"function", {{"name", c.name}, {"arguments", ""}}}}})}}));
        if (k == 1) s.first_call_done = s.events.size() - 1;  // the next call starts: the first is complete
        for (const auto& piece : pieces(c.args.dump()))
            s.events.push_back(delta({{"tool_calls", json::array({json{{"index", k}, {"function", {{"arguments", piece}}}}})}}));
    }
    s.events.push_back(delta(json::object(), a.calls.empty() ? "stop" : "tool_calls"));
    if (a.calls.size() == 1) s.first_call_done = s.events.size() - 1;
    s.events.push_back(chunk(json::array(), usage_of(ak::provider::openai_chat, a)));
    s.events.push_back(data_event("[DONE]"));
    return s;
}

wire_stream responses_stream(const wire_answer& a) {
    wire_stream s;
    int seq = 0;
    auto ev = [&](const std::string& type, json data) {
        data["type"] = type;
        data["sequence_number"] = seq++;
        s.events.push_back(named_event(type, data));
    };
    json created = plain_body(ak::provider::openai_responses, a);
    created["status"] = "in_progress";
    created["output"] = json::array();
    created["usage"] = nullptr;
    ev("response.created", {{"response", created}});
    ev("response.in_progress", {{"response", created}});
    std::size_t oi = 0;
    if (!a.text.empty()) {
        json item = responses_text_item(a);
        json added = item;
        added["status"] = "in_progress";
        added["content"] = json::array();
        ev("response.output_item.added", {{"output_index", oi}, {"item", added}});
        ev("response.content_part.added", {{"item_id", "msg_fake_1"}, {"output_index", oi}, {"content_index", 0},
                                           {"part", {{"type", "output_text"}, {"text", ""}, {"annotations", json::array()}}}});
        for (const auto& piece : pieces(a.text, 5))
            ev("response.output_text.delta", {{"item_id", "msg_fake_1"}, {"output_index", oi}, {"content_index", 0}, {"delta", piece}});
        ev("response.output_text.done", {{"item_id", "msg_fake_1"}, {"output_index", oi}, {"content_index", 0}, {"text", a.text}});
        ev("response.content_part.done", {{"item_id", "msg_fake_1"}, {"output_index", oi}, {"content_index", 0}, {"part", item["content"][0]}});
        ev("response.output_item.done", {{"output_index", oi}, {"item", item}});
        ++oi;
    }
    for (std::size_t k = 0; k < a.calls.size(); ++k, ++oi) {
        const auto& c = a.calls[k];
        const std::string item_id = "fc_fake_" + std::to_string(k);
        ev("response.output_item.added", {{"output_index", oi}, {"item", responses_call_item(c, k, false)}});
        for (const auto& piece : pieces(c.args.dump()))
            ev("response.function_call_arguments.delta", {{"item_id", item_id}, {"output_index", oi}, {"delta", piece}});
        ev("response.function_call_arguments.done", {{"item_id", item_id}, {"output_index", oi}, {"arguments", c.args.dump()}});
        ev("response.output_item.done", {{"output_index", oi}, {"item", responses_call_item(c, k, true)}});
        if (k == 0) s.first_call_done = s.events.size() - 1;
    }
    ev("response.completed", {{"response", plain_body(ak::provider::openai_responses, a)}});
    return s;
}

wire_stream stream_of(ak::provider p, const wire_answer& a) {
    switch (p) {
        case ak::provider::anthropic: return anthropic_stream(a);
        case ak::provider::openai_chat: return chat_stream(a);
        case ak::provider::openai_responses: return responses_stream(a);
    }
    return {};
}

/// A provider's error body.
json error_body(ak::provider p, const std::string& type, const std::string& message) {
    if (p == ak::provider::anthropic)
        return json{{"type", "error"}, {"error", {{"type", type}, {"message", message}}}, {"request_id", "req_fake_err"}};
    return json{{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", type}}}};
}

// ---- the fake provider ---------------------------------------------------------------------------

/// A streamed response of `events`; before sending event i, `before(i, stream)` may hold the
/// stream or end it early (returning false: the stream is cut there).
net::http_response stream_response(std::vector<std::string> events,
                                   std::function<bool(std::size_t, net::http_stream&)> before = {}) {
    return net::http_response::streamed("text/event-stream", [events = std::move(events), before = std::move(before)](net::http_stream& s) {
        for (std::size_t i = 0; i < events.size(); ++i) {
            if (before && !before(i, s)) return;
            if (!s.write(events[i])) return;
        }
    });
}

net::http_response json_response(const json& body, int status = 200) { return net::http_response::json_text(body.dump(), status); }

class fake_provider {
public:
    using answer_fn = std::function<net::http_response(std::size_t index, const net::http_request&)>;

    explicit fake_provider(answer_fn f) : answer_(std::move(f)) {
        for (const char* path : {"/v1/messages", "/v1/chat/completions", "/v1/responses"})
            http_.route(path, [this](const net::http_request& r) {
                std::size_t index = 0;
                {
                    std::lock_guard lock(mu_);
                    index = seen_.size();
                    seen_.push_back(r);
                    at_.push_back(std::chrono::steady_clock::now());
                }
                return answer_(index, r);
            });
        started_ = http_.start();
    }
    ~fake_provider() {
        release.raise();
        http_.stop();
    }
    fake_provider(const fake_provider&) = delete;
    fake_provider& operator=(const fake_provider&) = delete;

    [[nodiscard]] bool ok() const { return static_cast<bool>(started_); }
    /// The base URL a model_client is given for provider `p`.
    [[nodiscard]] std::string base(ak::provider p) const {
        return p == ak::provider::anthropic ? http_.origin() : http_.origin() + "/v1";
    }
    [[nodiscard]] std::vector<net::http_request> requests() const {
        std::lock_guard lock(mu_);
        return seen_;
    }
    [[nodiscard]] std::vector<std::chrono::steady_clock::time_point> arrivals() const {
        std::lock_guard lock(mu_);
        return at_;
    }
    [[nodiscard]] std::size_t hits() const {
        std::lock_guard lock(mu_);
        return seen_.size();
    }

    /// Raised when the fake is torn down: held responses end.
    flag release;

private:
    answer_fn answer_;
    mutable std::mutex mu_;
    std::vector<net::http_request> seen_;
    std::vector<std::chrono::steady_clock::time_point> at_;
    net::http_server http_;
    ak::result<void> started_;
};

/// Hold a response until `until` is raised, the client is gone or the fake is torn down.
void hold(const flag& until, const flag& release, const std::function<bool()>& gone) {
    while (!until.is_set() && !release.is_set() && !gone()) (void)until.wait_for(20ms);
}

ak::model_api api_of(ak::provider p) {
    switch (p) {
        case ak::provider::anthropic: return ak::model_api::anthropic;
        case ak::provider::openai_chat: return ak::model_api::openai_chat;
        case ak::provider::openai_responses: return ak::model_api::openai_responses;
    }
    return ak::model_api::anthropic;
}

ak::model_client_options options_for(const fake_provider& fake, ak::provider p, bool stream = true) {
    ak::model_client_options o;
    o.api = api_of(p);
    o.base_url = fake.base(p);
    o.api_key = kKey;
    o.model = kModel;
    o.stream = stream;
    o.timeout = 30s;
    return o;
}

/// A request as the session would send it (without "model": the client fills it in).
json request_for(ak::provider p) {
    if (p == ak::provider::openai_responses)
        return json{{"instructions", "Be brief."}, {"input", json::array({json{{"role", "user"}, {"content", "hi"}}})}, {"max_output_tokens", 100}};
    return json{{"max_tokens", 100}, {"messages", json::array({json{{"role", "user"}, {"content", "hi"}}})}};
}

struct lookup_args {
    std::string key;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(lookup_args, key, "What to look up", ak::min_length(1))); }
};

/// A toolbox for runs whose model calls no tool.
auto plain_tools() {
    return ak::toolbox{ak::tool<"noop">("Does nothing.", [](const lookup_args&) { return std::string("ok"); }, ak::read_only)};
}

std::string provider_name(const testing::TestParamInfo<ak::provider>& info) { return std::string(ak::to_string(info.param)); }

const wire_answer& tool_answer(ak::provider p) {
    static std::map<ak::provider, wire_answer> answers;
    static std::mutex mu;
    std::lock_guard lock(mu);
    auto it = answers.find(p);
    if (it != answers.end()) return it->second;
    wire_answer a;
    a.text = "Let me look these up for you.";
    a.calls = {{call_id(p, 1), "get_weather", json{{"city", "Oslo"}, {"unit", "celsius"}, {"days", 3}}},
               {call_id(p, 2), "get_time", json{{"zone", "Europe/Oslo"}, {"format", "24h"}}},
               {call_id(p, 3), "search", json{{"query", "ferry \"Oslo\" \\ Kiel"}, {"filters", {{"max", 5}, {"sites", json::array({"a.example", "b.example"})}}}}}};
    return answers.emplace(p, std::move(a)).first->second;
}

void expect_same_turn(ak::provider p, const json& body, const wire_answer& a) {
    auto turn = ak::parse_response(p, body);
    ASSERT_TRUE(turn) << turn.error().to_text() << "\n" << body.dump(2);
    EXPECT_EQ(turn->text, a.text);
    ASSERT_EQ(turn->calls.size(), a.calls.size()) << body.dump(2);
    for (std::size_t k = 0; k < a.calls.size(); ++k) {
        EXPECT_EQ(turn->calls[k].id, a.calls[k].id);
        EXPECT_EQ(turn->calls[k].name, a.calls[k].name);
        EXPECT_EQ(turn->calls[k].arguments, a.calls[k].args);
        EXPECT_FALSE(turn->calls[k].malformed.has_value());
    }
    EXPECT_EQ(turn->usage.input_tokens, a.input);
    EXPECT_EQ(turn->usage.output_tokens, a.output);
    EXPECT_EQ(turn->usage.cache_read_tokens, a.cache_read);
    EXPECT_EQ(turn->usage.cache_write_tokens, p == ak::provider::anthropic ? a.cache_write : 0U);
}

// ---- units: the SSE reader, Retry-After, URLs in messages ----------------------------------------

TEST(Sse, EventsSplitAnywhereReadTheSame) {
    const std::string stream = "\xEF\xBB\xBF: a comment\r\nevent: first\r\ndata: one\r\ndata:two\r\nid: 7\r\n\r\n"
                               "data: {\"x\": 1}\r\rretry: 1500\ndata\n\nevent: empty\n\nevent:\ndata: last\n\n";
    auto read = [](const std::vector<std::string>& parts) {
        net::sse_reader r;
        std::vector<net::sse_event> out;
        for (const auto& p : parts)
            EXPECT_TRUE(r.feed(p, [&](const net::sse_event& e) {
                out.push_back(e);
                return true;
            }));
        EXPECT_FALSE(r.partial());
        return out;
    };
    const auto whole = read({stream});
    ASSERT_EQ(whole.size(), 4U);
    EXPECT_EQ(whole[0].event, "first");
    EXPECT_EQ(whole[0].data, "one\ntwo");
    EXPECT_EQ(whole[0].id, "7");
    EXPECT_EQ(whole[1].event, "message");
    EXPECT_EQ(whole[1].data, "{\"x\": 1}");
    EXPECT_EQ(whole[1].id, "7");  // the last id carries over
    EXPECT_EQ(whole[2].data, "");  // a bare "data" line is an empty data line
    EXPECT_EQ(whole[2].retry_ms, 1500);
    EXPECT_EQ(whole[3].event, "message");  // an empty event name means the default
    EXPECT_EQ(whole[3].data, "last");
    std::vector<std::string> bytes;
    for (char c : stream) bytes.emplace_back(1, c);
    const auto one_by_one = read(bytes);
    ASSERT_EQ(one_by_one.size(), whole.size());
    for (std::size_t i = 0; i < whole.size(); ++i) {
        EXPECT_EQ(one_by_one[i].event, whole[i].event);
        EXPECT_EQ(one_by_one[i].data, whole[i].data);
    }
}

TEST(Sse, AnEventPastTheBoundStopsTheReader) {
    net::sse_reader r(64);
    std::size_t events = 0;
    EXPECT_FALSE(r.feed("data: " + std::string(100, 'x') + "\n\n", [&](const net::sse_event&) { return ++events > 0; }));
    EXPECT_TRUE(r.overflowed());
    EXPECT_EQ(events, 0U);
    net::sse_reader cut;
    EXPECT_TRUE(cut.feed("data: {\"half\":", [](const net::sse_event&) { return true; }));
    EXPECT_TRUE(cut.partial());  // a stream that ends here was cut inside an event
}

TEST(RetryAfter, SecondsAndHttpDates) {
    using namespace std::chrono;
    EXPECT_EQ(net::parse_retry_after("120"), 120.0);
    EXPECT_EQ(net::parse_retry_after(" 1.5 "), 1.5);
    EXPECT_EQ(net::parse_retry_after("soon"), std::nullopt);
    EXPECT_EQ(net::parse_retry_after(""), std::nullopt);
    const sys_seconds now = sys_days{year{2025} / November / 6} + hours{8} + minutes{49} + seconds{30};
    EXPECT_EQ(net::parse_retry_after("Thu, 06 Nov 2025 08:49:37 GMT", now), 7.0);   // IMF-fixdate
    EXPECT_EQ(net::parse_retry_after("Thursday, 06-Nov-25 08:50:30 GMT", now), 60.0);  // RFC 850
    EXPECT_EQ(net::parse_retry_after("Thu Nov  6 08:49:40 2025", now), 10.0);        // asctime
    EXPECT_EQ(net::parse_retry_after("Thu, 06 Nov 2025 08:00:00 GMT", now), 0.0);    // past: now
    EXPECT_EQ(net::parse_retry_after("Thu, 31 Feb 2025 08:00:00 GMT", now), std::nullopt);
}

TEST(RedactUrl, NoCredentialsNoQuery) {
    EXPECT_EQ(net::redact_url("https://user:pw@api.example.com:8443/v1/models?key=SECRET#x"), "https://api.example.com:8443/v1/models?...");
    EXPECT_EQ(net::redact_url("http://127.0.0.1:9/v1/messages"), "http://127.0.0.1:9/v1/messages");
}

TEST(HttpClient, RefusesWhatMustNotBeSent) {
    net::http_client http;
    net::client_request rq;
    rq.url = "file:///etc/passwd";
    auto r = http.perform(rq);
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().is(ak::errc::request_invalid)) << r.error().to_text();
    rq.url = "http://127.0.0.1:9/";
    rq.headers = {{"authorization", std::string("Bearer ") + kKey + "\r\nx-injected: 1"}};
    r = http.perform(rq);
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().is(ak::errc::request_invalid));
    EXPECT_NE(r.error().message.find("authorization"), std::string::npos);
    expect_no_key(r.error());
}

// The head sink hears of the final response (after a followed redirect), once, before any of its
// body: the server holds the body until the test has seen the head.
TEST(HttpClient, HeadSinkHearsTheFinalHeadersBeforeTheBody) {
    flag release;
    net::http_server server;
    server.route("/moved", [](const net::http_request&) {
        auto r = net::http_response::text("moved", 302);
        r.headers.emplace_back("Location", "/held");
        return r;
    });
    server.route("/held", [&](const net::http_request&) {
        auto r = net::http_response::streamed("text/event-stream", [&](net::http_stream& st) {
            (void)release.wait_for(std::chrono::seconds(10));  // bounded: a failing test still ends
            st.write("data: after\n\n");
        });
        r.headers.emplace_back("X-Stream", "held");
        return r;
    });
    ASSERT_TRUE(server.start());
    net::http_client http;
    net::client_request rq;
    rq.url = server.origin() + "/moved";
    rq.max_redirects = 2;
    std::vector<int> heads;
    std::string stream_header, body;
    bool body_before_head = false;
    flag headed;
    const net::head_sink on_head = [&](const net::client_response& h) {
        heads.push_back(h.status);
        stream_header = h.header("x-stream");
        headed.raise();
    };
    const net::body_sink sink = [&](const net::client_response&, std::string_view piece) {
        if (!headed.is_set()) body_before_head = true;
        body.append(piece);
        return true;
    };
    auto done = std::async(std::launch::async, [&] { return http.perform(rq, sink, {}, on_head); });
    EXPECT_TRUE(headed.wait_for(std::chrono::seconds(10))) << "no head while the body was held";
    release.raise();
    auto r = done.get();
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(heads, std::vector<int>{200});  // the 302 is not reported
    EXPECT_EQ(stream_header, "held");
    EXPECT_FALSE(body_before_head);
    EXPECT_EQ(body, "data: after\n\n");
}

// ---- answers, streamed and not ------------------------------------------------------------------

class Answers : public testing::TestWithParam<std::tuple<ak::provider, bool>> {};

TEST_P(Answers, TextAndToolCallsWithUsageReadTheSameStreamedOrNot) {
    const ak::provider p = std::get<0>(GetParam());  // (clang 14 cannot capture structured bindings)
    const bool stream = std::get<1>(GetParam());
    const wire_answer& a = tool_answer(p);
    fake_provider fake([&](std::size_t, const net::http_request&) {
        return stream ? stream_response(stream_of(p, a).events) : json_response(plain_body(p, a));
    });
    ASSERT_TRUE(fake.ok());
    ak::model_client model{options_for(fake, p, stream)};
    std::vector<json> announced;
    auto body = model.complete(request_for(p), [&](const json& block) { announced.push_back(block); });
    ASSERT_TRUE(body) << body.error().to_text();
    expect_same_turn(p, *body, a);

    // as soon as each call was complete, the callback had it, in the provider's block format
    if (stream) {
        ASSERT_EQ(announced.size(), a.calls.size());
        for (std::size_t k = 0; k < a.calls.size(); ++k) {
            const json& b = announced[k];
            switch (p) {
                case ak::provider::anthropic:
                    EXPECT_EQ(b.value("type", ""), "tool_use");
                    EXPECT_EQ(b.value("id", ""), a.calls[k].id);
                    EXPECT_EQ(b.value("input", json()), a.calls[k].args);
                    break;
                case ak::provider::openai_chat:
                    EXPECT_EQ(b.value("id", ""), a.calls[k].id);
                    EXPECT_EQ(json::parse(b.at("function").value("arguments", "")), a.calls[k].args);
                    break;
                case ak::provider::openai_responses:
                    EXPECT_EQ(b.value("call_id", ""), a.calls[k].id);
                    EXPECT_EQ(json::parse(b.value("arguments", "")), a.calls[k].args);
                    break;
            }
        }
    } else {
        EXPECT_TRUE(announced.empty());
    }

    // what was sent: the endpoint, the key in its header only, the model filled in, streaming asked for
    const auto reqs = fake.requests();
    ASSERT_EQ(reqs.size(), 1U);
    const auto& rq = reqs[0];
    EXPECT_EQ(rq.method, "POST");
    EXPECT_EQ(rq.path, p == ak::provider::anthropic ? "/v1/messages" : p == ak::provider::openai_chat ? "/v1/chat/completions" : "/v1/responses");
    EXPECT_EQ(rq.header("content-type"), "application/json");
    if (p == ak::provider::anthropic) {
        EXPECT_EQ(rq.header("x-api-key"), kKey);
        EXPECT_EQ(rq.header("anthropic-version"), "2023-06-01");
        EXPECT_FALSE(rq.has_header("authorization"));
    } else {
        EXPECT_EQ(rq.header("authorization"), std::string("Bearer ") + kKey);
        EXPECT_FALSE(rq.has_header("x-api-key"));
    }
    const json sent = json::parse(rq.body);
    EXPECT_EQ(sent.value("model", ""), kModel);
    EXPECT_EQ(sent.contains("stream"), stream);
    if (stream) {
        EXPECT_EQ(sent["stream"], true);
    }
    EXPECT_EQ(sent.contains("stream_options"), stream && p == ak::provider::openai_chat);
    if (stream && p == ak::provider::openai_chat) {
        EXPECT_EQ(sent["stream_options"]["include_usage"], true);
    }
    EXPECT_EQ(rq.body.find("\"messages\"") != std::string::npos, p != ak::provider::openai_responses);
    EXPECT_EQ(model.round_trips(), 1U);
}

TEST_P(Answers, ATextAnswerAloneAndTheRequestsOwnModel) {
    const ak::provider p = std::get<0>(GetParam());  // (clang 14 cannot capture structured bindings)
    const bool stream = std::get<1>(GetParam());
    wire_answer a;
    a.text = "It is 18 degrees and clear in Oslo; take a light jacket for the evening.";
    a.cache_read = 0;
    a.cache_write = 0;
    fake_provider fake([&](std::size_t, const net::http_request&) {
        return stream ? stream_response(stream_of(p, a).events) : json_response(plain_body(p, a));
    });
    ASSERT_TRUE(fake.ok());
    ak::model_client model{options_for(fake, p, stream)};
    json rq = request_for(p);
    rq["model"] = "the-requests-own-model";
    auto body = model.complete(rq);
    ASSERT_TRUE(body) << body.error().to_text();
    expect_same_turn(p, *body, a);
    EXPECT_EQ(json::parse(fake.requests().at(0).body).value("model", ""), "the-requests-own-model");
}

struct trip_args {
    std::string to;
    std::optional<int> days;
    std::string from;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(trip_args, to, "Where to"), AGENTKIT_FIELD(trip_args, days, "How long"),
                          AGENTKIT_FIELD(trip_args, from, "Where from"));
    }
};

TEST_P(Answers, AToolsArgumentsAreSentInTheOrderTheyWereDeclared) {
    const ak::provider p = std::get<0>(GetParam());
    const bool stream = std::get<1>(GetParam());
    wire_answer a;
    a.text = "Booked.";
    fake_provider fake([&](std::size_t, const net::http_request&) {
        return stream ? stream_response(stream_of(p, a).events) : json_response(plain_body(p, a));
    });
    ASSERT_TRUE(fake.ok());
    ak::model_client model{options_for(fake, p, stream)};
    const auto trips = ak::toolbox{ak::tool<"plan_trip">("Plans a trip.", [](const trip_args& t) { return t.to; })};
    const ak::dialect d = p == ak::provider::anthropic     ? ak::dialect::anthropic
                          : p == ak::provider::openai_chat ? ak::dialect::openai_chat
                                                           : ak::dialect::openai_responses;
    json rq = request_for(p);
    rq["tools"] = ak::export_tools(trips.infos(), d);  // OpenAI's strict form too: every property required, optional ones nullable
    ASSERT_TRUE(model.complete(rq));
    const std::string body = fake.requests().at(0).body;
    const std::size_t to = body.find("\"to\":"), days = body.find("\"days\":"), from = body.find("\"from\":");
    ASSERT_NE(to, std::string::npos) << body;
    ASSERT_NE(days, std::string::npos) << body;
    ASSERT_NE(from, std::string::npos) << body;
    EXPECT_LT(to, days) << body;
    EXPECT_LT(days, from) << body;
    EXPECT_EQ(json::parse(body)["tools"], json(rq["tools"]));  // the same value
}

std::string answers_name(const testing::TestParamInfo<std::tuple<ak::provider, bool>>& info) {
    return std::string(ak::to_string(std::get<0>(info.param))) + (std::get<1>(info.param) ? "_streamed" : "_plain");
}
INSTANTIATE_TEST_SUITE_P(Providers, Answers,
                         testing::Combine(testing::Values(ak::provider::anthropic, ak::provider::openai_chat, ak::provider::openai_responses),
                                          testing::Bool()),
                         answers_name);

// ---- errors ---------------------------------------------------------------------------------------

class Errors : public testing::TestWithParam<ak::provider> {};

TEST_P(Errors, AuthFailureSaysWhatTheProviderSaidButNeverTheKey) {
    const ak::provider p = GetParam();
    fake_provider fake([&](std::size_t, const net::http_request&) {
        auto r = json_response(error_body(p, p == ak::provider::anthropic ? "authentication_error" : "invalid_api_key",
                                          std::string("Incorrect API key provided: ") + kKey + "."),
                               401);
        r.headers.emplace_back(p == ak::provider::anthropic ? "request-id" : "x-request-id", "req_fake_401");
        return r;
    });
    ASSERT_TRUE(fake.ok());
    auto o = options_for(fake, p);
    o.max_retries = 3;  // an auth failure is not retried
    ak::model_client model{o};
    auto body = model.complete(request_for(p));
    ASSERT_FALSE(body);
    const ak::error& e = body.error();
    EXPECT_TRUE(e.is(ak::errc::provider_auth)) << e.to_text();
    EXPECT_NE(e.message.find("Incorrect API key provided: [redacted]."), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("(HTTP 401 from " + fake.base(p)), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("request id req_fake_401)"), std::string::npos) << e.message;
    EXPECT_EQ(e.details.value("request_id", ""), "req_fake_401");
    EXPECT_EQ(e.details.value("status", 0), 401);
    EXPECT_FALSE(e.hint.empty());
    expect_no_key(e);
    EXPECT_EQ(fake.hits(), 1U);
}

TEST_P(Errors, ServerErrorsAreRetryableAndTheClientRetriesWhenAsked) {
    const ak::provider p = GetParam();
    fake_provider fake([&](std::size_t i, const net::http_request&) {
        if (i == 0) return json_response(error_body(p, "server_error", "The server had an error"), 500);
        if (i == 1) return json_response(error_body(p, "overloaded_error", "Overloaded"), 503);
        if (i == 2 && p == ak::provider::anthropic) return json_response(error_body(p, "overloaded_error", "Overloaded"), 529);
        return json_response(plain_body(p, tool_answer(p)));
    });
    ASSERT_TRUE(fake.ok());
    auto o = options_for(fake, p, false);
    ak::model_client model{o};
    auto first = model.complete(request_for(p));
    ASSERT_FALSE(first);
    EXPECT_TRUE(first.error().is(ak::errc::provider_error)) << first.error().to_text();
    EXPECT_TRUE(ak::is_retryable(first.error()));
    EXPECT_NE(first.error().message.find("The server had an error (HTTP 500 from"), std::string::npos) << first.error().message;
    auto second = model.complete(request_for(p));
    ASSERT_FALSE(second);
    EXPECT_TRUE(second.error().is(ak::errc::provider_overloaded)) << second.error().to_text();
    expect_no_key(first.error());
    expect_no_key(second.error());
    if (p == ak::provider::anthropic) {
        auto third = model.complete(request_for(p));
        ASSERT_FALSE(third);
        EXPECT_TRUE(third.error().is(ak::errc::provider_overloaded)) << third.error().to_text();
    }
    // now with the client's own retries: 500, 503 (and 529) are ridden out
    fake_provider again([&](std::size_t i, const net::http_request&) {
        if (i == 0) return json_response(error_body(p, "server_error", "The server had an error"), 500);
        if (i == 1) return json_response(error_body(p, "overloaded_error", "Overloaded"), 529);
        return json_response(plain_body(p, tool_answer(p)));
    });
    ASSERT_TRUE(again.ok());
    auto ro = options_for(again, p, false);
    ro.max_retries = 2;
    ro.retry_backoff = 1ms;
    ak::model_client retrying{ro};
    auto body = retrying.complete(request_for(p));
    ASSERT_TRUE(body) << body.error().to_text();
    expect_same_turn(p, *body, tool_answer(p));
    EXPECT_EQ(again.hits(), 3U);
    EXPECT_EQ(retrying.round_trips(), 3U);
    const auto reqs = again.requests();
    EXPECT_EQ(reqs[0].body, reqs[2].body);  // the same request each time
}

TEST_P(Errors, RateLimitedThenAnsweredThroughTheSessionAfterRetryAfter) {
    const ak::provider p = GetParam();
    wire_answer a;
    a.text = "Done after the rate limit.";
    fake_provider fake([&](std::size_t i, const net::http_request&) {
        if (i < 2) {
            auto r = json_response(error_body(p, p == ak::provider::anthropic ? "rate_limit_error" : "rate_limit_exceeded",
                                              "Number of request tokens has exceeded your per-minute rate limit"),
                                   429);
            r.headers.emplace_back("retry-after", "1");
            return r;
        }
        return stream_response(stream_of(p, a).events);
    });
    ASSERT_TRUE(fake.ok());
    auto o = options_for(fake, p);
    ak::model_client model{o};
    // a direct call: the error carries Retry-After
    auto direct = model.complete(request_for(p));
    ASSERT_FALSE(direct);
    EXPECT_TRUE(direct.error().is(ak::errc::provider_rate_limited)) << direct.error().to_text();
    EXPECT_EQ(direct.error().details.value("retry_after_s", 0.0), 1.0);
    expect_no_key(direct.error());

    // through the session: its own backoff (1 ms) gives way to Retry-After (1 s)
    ak::session_options so;
    so.model = kModel;
    ak::agent_session session{plain_tools(), ak::all_visible{}, ak::compact_formatter{}, so};
    ak::run_limits limits;
    limits.max_retries = 2;
    limits.retry_backoff = 1ms;
    limits.max_backoff = 10s;
    const auto r = session.run(model, "Say something.", limits);
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->to_text() : std::string(ak::to_string(r.reason)));
    EXPECT_EQ(r.final_text, a.text);
    const auto at = fake.arrivals();
    ASSERT_EQ(at.size(), 3U);
    EXPECT_GE(at[2] - at[1], 900ms) << "the retry did not wait for Retry-After";
    const auto reqs = fake.requests();
    EXPECT_EQ(reqs[1].body, reqs[2].body);
    EXPECT_EQ(session.metrics().round_trips, 2U);
    EXPECT_EQ(session.metrics().usage.cache_read_tokens, a.cache_read);
}

TEST_P(Errors, AnErrorEventInTheStreamIsAStructuredError) {
    const ak::provider p = GetParam();
    const wire_answer& a = tool_answer(p);
    auto events = stream_of(p, a).events;
    events.resize(4);
    switch (p) {
        case ak::provider::anthropic:
            events.push_back(named_event("error", {{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}}));
            break;
        case ak::provider::openai_chat:
            events.push_back(data_event(json{{"error", {{"message", "Rate limit reached for requests"}, {"type", "requests"}, {"code", "rate_limit_exceeded"}}}}.dump()));
            break;
        case ak::provider::openai_responses:
            events.push_back(named_event("error", {{"type", "error"}, {"code", "server_error"}, {"message", "The server had an error"},
                                                   {"param", nullptr}, {"sequence_number", 4}}));
            break;
    }
    events.push_back(data_event("{\"never\": \"read\"}"));
    fake_provider fake([&](std::size_t, const net::http_request&) {
        auto r = stream_response(events);
        r.headers.emplace_back(p == ak::provider::anthropic ? "request-id" : "x-request-id", "req_fake_stream");
        return r;
    });
    ASSERT_TRUE(fake.ok());
    ak::model_client model{options_for(fake, p)};
    auto body = model.complete(request_for(p));
    ASSERT_FALSE(body);
    const ak::error& e = body.error();
    const std::string_view want = p == ak::provider::anthropic     ? ak::errc::provider_overloaded
                                  : p == ak::provider::openai_chat ? ak::errc::provider_rate_limited
                                                                   : ak::errc::provider_error;
    EXPECT_TRUE(e.is(want)) << e.to_text();
    EXPECT_TRUE(ak::is_retryable(e));
    EXPECT_EQ(e.details.value("in_stream", false), true);
    EXPECT_EQ(e.details.value("request_id", ""), "req_fake_stream");
    EXPECT_NE(e.message.find("in the response stream from " + fake.base(p)), std::string::npos) << e.message;
    expect_no_key(e);
}

TEST(ModelClient, AFailedResponsesStreamIsAnError) {
    const ak::provider p = ak::provider::openai_responses;
    auto events = stream_of(p, tool_answer(p)).events;
    events.resize(3);
    json failed = plain_body(p, tool_answer(p));
    failed["status"] = "failed";
    failed["error"] = {{"code", "server_error"}, {"message", "The model failed to generate a response."}};
    events.push_back(named_event("response.failed", {{"type", "response.failed"}, {"sequence_number", 3}, {"response", failed}}));
    fake_provider fake([&](std::size_t, const net::http_request&) { return stream_response(events); });
    ASSERT_TRUE(fake.ok());
    ak::model_client model{options_for(fake, p)};
    auto body = model.complete(request_for(p));
    ASSERT_FALSE(body);
    EXPECT_TRUE(body.error().is(ak::errc::provider_error)) << body.error().to_text();
    EXPECT_NE(body.error().message.find("The model failed to generate a response."), std::string::npos);
}

TEST_P(Errors, AStreamCutMidwayIsARetryableErrorNotAShortAnswer) {
    const ak::provider p = GetParam();
    const auto s = stream_of(p, tool_answer(p));
    const std::size_t cut_at = s.first_call_done + 3;  // inside the second call's arguments
    ASSERT_LT(cut_at, s.events.size());
    fake_provider fake([&](std::size_t, const net::http_request&) {
        return stream_response(s.events, [&](std::size_t i, net::http_stream&) { return i < cut_at; });
    });
    ASSERT_TRUE(fake.ok());
    ak::model_client model{options_for(fake, p)};
    std::size_t announced = 0;
    auto body = model.complete(request_for(p), [&](const json&) { ++announced; });
    ASSERT_FALSE(body) << body->dump();
    EXPECT_TRUE(body.error().is(ak::errc::provider_error)) << body.error().to_text();
    EXPECT_TRUE(ak::is_retryable(body.error()));
    EXPECT_EQ(body.error().details.value("cut", false), true);
    EXPECT_EQ(announced, 1U);  // the first call was complete before the cut; nothing else was
    expect_no_key(body.error());

    // through the session: no retries allowed, the run stops with the error and records nothing
    ak::session_options so;
    so.model = kModel;
    ak::agent_session session{plain_tools(), ak::all_visible{}, ak::compact_formatter{}, so};
    ak::run_limits limits;
    limits.max_retries = 0;
    const auto r = session.run(model, "Look things up.", limits);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.reason, ak::stop_reason::model_error);
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->details.value("cut", false), true);
    EXPECT_EQ(session.history().size(), 1U);  // the task only: no half answer was accepted
}

TEST_P(Errors, ASlowServerTimesOut) {
    const ak::provider p = GetParam();
    flag never;
    fake_provider fake([&](std::size_t, const net::http_request& r) {
        hold(never, fake.release, r.client_gone);
        return json_response(plain_body(p, tool_answer(p)));
    });
    ASSERT_TRUE(fake.ok());
    auto o = options_for(fake, p, false);
    o.timeout = 300ms;
    ak::model_client model{o};
    auto body = model.complete(request_for(p));
    ASSERT_FALSE(body);
    EXPECT_TRUE(body.error().is(ak::errc::timeout)) << body.error().to_text();
    EXPECT_EQ(body.error().details.value("phase", ""), "transfer");
    expect_no_key(body.error());
}

TEST_P(Errors, NoKeyNoRequest) {
    const ak::provider p = GetParam();
    fake_provider fake([&](std::size_t, const net::http_request&) { return json_response(plain_body(p, tool_answer(p))); });
    ASSERT_TRUE(fake.ok());
    auto o = options_for(fake, p);
    o.api_key.reset();
    o.api_key_env = "AGENTKIT_TEST_NO_SUCH_KEY_VARIABLE";
    ::unsetenv("AGENTKIT_TEST_NO_SUCH_KEY_VARIABLE");
    ak::model_client model{o};
    EXPECT_FALSE(model.has_key());
    auto body = model.complete(request_for(p));
    ASSERT_FALSE(body);
    EXPECT_TRUE(body.error().is(ak::errc::provider_auth)) << body.error().to_text();
    EXPECT_NE(body.error().hint.find("AGENTKIT_TEST_NO_SUCH_KEY_VARIABLE"), std::string::npos);
    EXPECT_EQ(fake.hits(), 0U);
    // read from the environment
    ::setenv("AGENTKIT_TEST_NO_SUCH_KEY_VARIABLE", kKey, 1);
    ak::model_client from_env{o};
    ::unsetenv("AGENTKIT_TEST_NO_SUCH_KEY_VARIABLE");
    EXPECT_TRUE(from_env.has_key());
    auto ok = from_env.complete(request_for(p));
    ASSERT_TRUE(ok) << ok.error().to_text();
    EXPECT_EQ(fake.requests().at(0).header(p == ak::provider::anthropic ? "x-api-key" : "authorization"),
              p == ak::provider::anthropic ? std::string(kKey) : std::string("Bearer ") + kKey);
}

TEST_P(Errors, AServerThatIgnoresStreamAnswersJson) {
    const ak::provider p = GetParam();
    fake_provider fake([&](std::size_t, const net::http_request&) { return json_response(plain_body(p, tool_answer(p))); });
    ASSERT_TRUE(fake.ok());
    ak::model_client model{options_for(fake, p, true)};
    auto body = model.complete(request_for(p));
    ASSERT_TRUE(body) << body.error().to_text();
    expect_same_turn(p, *body, tool_answer(p));
}

INSTANTIATE_TEST_SUITE_P(Providers, Errors,
                         testing::Values(ak::provider::anthropic, ak::provider::openai_chat, ak::provider::openai_responses),
                         provider_name);

TEST(ModelClient, AnOpenAICompatibleServerWithoutAKey) {
    wire_answer a;
    a.text = "Hello from a local server.";
    fake_provider fake([&](std::size_t, const net::http_request&) { return stream_response(chat_stream(a).events); });
    ASSERT_TRUE(fake.ok());
    ::setenv("OPENAI_API_KEY", kKey, 1);  // a real key in the environment must not go to a local server unasked
    ak::model_client_options o;
    o.api = ak::model_api::openai_compatible;
    o.base_url = fake.base(ak::provider::openai_chat) + "/";
    o.model = "local";
    ak::model_client model{o};
    ::unsetenv("OPENAI_API_KEY");
    EXPECT_EQ(model.provider(), ak::provider::openai_chat);
    EXPECT_TRUE(model.openai_compat());
    auto body = model.complete(request_for(ak::provider::openai_chat));
    ASSERT_TRUE(body) << body.error().to_text();
    expect_same_turn(ak::provider::openai_chat, *body, a);
    const auto reqs = fake.requests();
    ASSERT_EQ(reqs.size(), 1U);
    EXPECT_EQ(reqs[0].path, "/v1/chat/completions");
    EXPECT_FALSE(reqs[0].has_header("authorization"));
    EXPECT_EQ(json::parse(reqs[0].body).value("model", ""), "local");
}

TEST(ModelClient, NoServerIsARetryableProviderError) {
    std::string base;
    {
        // started and stopped at once (http_server::stop() right after start() must not hang)
        fake_provider gone([](std::size_t, const net::http_request&) { return json_response(json::object()); });
        ASSERT_TRUE(gone.ok());
        base = gone.base(ak::provider::anthropic);
    }  // the port is closed now
    ak::model_client_options o;
    o.base_url = base;
    o.api_key = kKey;
    ak::model_client model{o};
    auto body = model.complete(request_for(ak::provider::anthropic));
    ASSERT_FALSE(body);
    EXPECT_TRUE(body.error().is(ak::errc::provider_error)) << body.error().to_text();
    EXPECT_EQ(body.error().details.value("cause", ""), ak::errc::transport_io);
    expect_no_key(body.error());
}

// ---- cancellation -------------------------------------------------------------------------------

class Cancel : public testing::TestWithParam<ak::provider> {};

/// A fake that sends the first events of a tool-call stream, raises `sent`, then holds the rest
/// until the client goes away (or the fake is torn down); `saw_gone` once it saw the client go.
struct held_stream {
    flag sent;
    flag saw_gone;
    flag never;
    std::unique_ptr<fake_provider> fake;

    explicit held_stream(ak::provider p) {
        auto events = stream_of(p, tool_answer(p)).events;
        fake = std::make_unique<fake_provider>([this, events](std::size_t, const net::http_request&) {
            return stream_response(events, [this](std::size_t i, net::http_stream& s) {
                if (i == 3) {
                    sent.raise();
                    hold(never, fake->release, [&] { return s.gone(); });
                    if (s.gone()) saw_gone.raise();
                }
                return true;
            });
        });
    }
};

TEST_P(Cancel, CancelAbortsAStreamInFlight) {
    const ak::provider p = GetParam();
    held_stream server(p);
    ASSERT_TRUE(server.fake->ok());
    ak::model_client model{options_for(*server.fake, p)};
    auto pending = std::async(std::launch::async, [&] { return model.complete(request_for(p)); });
    ASSERT_TRUE(server.sent.wait_for(10s));
    model.cancel();
    ASSERT_EQ(pending.wait_for(10s), std::future_status::ready) << "cancel() did not end the request";
    auto body = pending.get();
    ASSERT_FALSE(body);
    EXPECT_TRUE(body.error().is(ak::errc::cancelled)) << body.error().to_text();
    EXPECT_TRUE(server.saw_gone.wait_for(10s)) << "the connection stayed open";
    expect_no_key(body.error());
    // the client works on after a cancel
    EXPECT_EQ(model.round_trips(), 1U);
}

TEST_P(Cancel, AStopTokenAbortsTooAndStaysStopped) {
    const ak::provider p = GetParam();
    held_stream server(p);
    ASSERT_TRUE(server.fake->ok());
    std::stop_source stop;
    auto o = options_for(*server.fake, p);
    o.stop = stop.get_token();
    ak::model_client model{o};
    auto pending = std::async(std::launch::async, [&] { return model.complete(request_for(p)); });
    ASSERT_TRUE(server.sent.wait_for(10s));
    stop.request_stop();
    ASSERT_EQ(pending.wait_for(10s), std::future_status::ready);
    auto body = pending.get();
    ASSERT_FALSE(body);
    EXPECT_TRUE(body.error().is(ak::errc::cancelled)) << body.error().to_text();
    EXPECT_EQ(body.error().details.value("by", ""), "stop_token");
    auto later = model.complete(request_for(p));
    ASSERT_FALSE(later);
    EXPECT_TRUE(later.error().is(ak::errc::cancelled));
    EXPECT_EQ(server.fake->hits(), 1U);
}

TEST_P(Cancel, SessionCancelEndsTheModelCall) {
    const ak::provider p = GetParam();
    held_stream server(p);
    ASSERT_TRUE(server.fake->ok());
    ak::model_client model{options_for(*server.fake, p)};
    ak::session_options so;
    so.model = kModel;
    ak::agent_session session{plain_tools(), ak::all_visible{}, ak::compact_formatter{}, so};
    auto pending = std::async(std::launch::async, [&] { return session.run(model, "Look things up."); });
    ASSERT_TRUE(server.sent.wait_for(10s));
    session.cancel();
    ASSERT_EQ(pending.wait_for(10s), std::future_status::ready) << "session.cancel() did not end the model call";
    const auto r = pending.get();
    EXPECT_EQ(r.reason, ak::stop_reason::cancelled);
}

INSTANTIATE_TEST_SUITE_P(Providers, Cancel,
                         testing::Values(ak::provider::anthropic, ak::provider::openai_chat, ak::provider::openai_responses),
                         provider_name);

// ---- speculative execution ----------------------------------------------------------------------

/// What the lookup tool saw: whether each call started while the stream was still open.
struct lookup_log {
    std::mutex mu;
    std::map<std::string, bool> started_while_streaming;
    std::atomic<bool> stream_over{false};
    flag first_ran;
};

class Speculative : public testing::TestWithParam<ak::provider> {};

TEST_P(Speculative, AReadOnlyCallStartsBeforeTheStreamEnds) {
    const ak::provider p = GetParam();
    wire_answer a;
    a.calls = {{call_id(p, 1), "lookup", json{{"key", "alpha"}}}, {call_id(p, 2), "lookup", json{{"key", "beta"}}}};
    const wire_stream s = stream_of(p, a);
    ASSERT_NE(s.first_call_done, static_cast<std::size_t>(-1));
    wire_answer final_answer;
    final_answer.text = "alpha and beta looked up.";

    auto log = std::make_shared<lookup_log>();
    std::atomic<bool> held_until_tool_ran{false};
    fake_provider fake([&](std::size_t i, const net::http_request&) {
        if (i > 0) return stream_response(stream_of(p, final_answer).events);
        return stream_response(s.events, [&, log](std::size_t k, net::http_stream&) {
            // the rest of the stream waits until the first call has run (bounded: a client that
            // does not speculate gets the rest after 20 s, and the test fails)
            if (k == s.first_call_done + 1) held_until_tool_ran = log->first_ran.wait_for(20s);
            if (k + 1 == s.events.size()) log->stream_over = true;
            return true;
        });
    });
    ASSERT_TRUE(fake.ok());

    ak::toolbox tools{ak::tool<"lookup">(
        "Look up a key.",
        [log](const lookup_args& args) {
            {
                std::lock_guard lock(log->mu);
                log->started_while_streaming[args.key] = !log->stream_over.load();
            }
            if (args.key == "alpha") log->first_ran.raise();
            return "the value of " + args.key;
        },
        ak::read_only | ak::parallel_safe)};
    ak::session_options so;
    so.model = kModel;
    ak::agent_session session{tools, ak::all_visible{}, ak::compact_formatter{}, so};
    ak::model_client model{options_for(fake, p)};
    const auto r = session.run(model, "Look up alpha and beta.");
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->to_text() : std::string(ak::to_string(r.reason)));
    EXPECT_EQ(r.final_text, final_answer.text);
    EXPECT_TRUE(held_until_tool_ran.load()) << "the first call did not run while the stream was held";
    {
        std::lock_guard lock(log->mu);
        EXPECT_TRUE(log->started_while_streaming["alpha"]);
        EXPECT_EQ(log->started_while_streaming.size(), 2U);
    }
    const auto& turns = session.metrics().turns;
    ASSERT_FALSE(turns.empty());
    EXPECT_EQ(turns[0].speculative_used, 2U);  // both were read-only and complete before the end
    EXPECT_EQ(turns[0].speculative_discarded, 0U);
    // both results went back to the model under their call ids
    const auto reqs = fake.requests();
    ASSERT_EQ(reqs.size(), 2U);
    EXPECT_NE(reqs[1].body.find("the value of alpha"), std::string::npos);
    EXPECT_NE(reqs[1].body.find("the value of beta"), std::string::npos);
    EXPECT_NE(reqs[1].body.find(a.calls[0].id), std::string::npos);
}

TEST_P(Speculative, OffWhenTheSessionSaysSo) {
    const ak::provider p = GetParam();
    wire_answer a;
    a.calls = {{call_id(p, 1), "lookup", json{{"key", "alpha"}}}};
    wire_answer final_answer;
    final_answer.text = "done";
    auto log = std::make_shared<lookup_log>();
    fake_provider fake([&](std::size_t i, const net::http_request&) {
        return stream_response(stream_of(p, i == 0 ? a : final_answer).events, [&, log, i](std::size_t k, net::http_stream&) {
            if (i == 0 && k + 1 == stream_of(p, a).events.size()) log->stream_over = true;
            return true;
        });
    });
    ASSERT_TRUE(fake.ok());
    ak::toolbox tools{ak::tool<"lookup">(
        "Look up a key.",
        [log](const lookup_args& args) {
            std::lock_guard lock(log->mu);
            log->started_while_streaming[args.key] = !log->stream_over.load();
            return "the value of " + args.key;
        },
        ak::read_only | ak::parallel_safe)};
    ak::session_options so;
    so.model = kModel;
    so.speculative = false;
    ak::agent_session session{tools, ak::all_visible{}, ak::compact_formatter{}, so};
    ak::model_client model{options_for(fake, p)};
    const auto r = session.run(model, "Look up alpha.");
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->to_text() : std::string(ak::to_string(r.reason)));
    std::lock_guard lock(log->mu);
    EXPECT_FALSE(log->started_while_streaming["alpha"]);
    EXPECT_EQ(session.metrics().turns[0].speculative_used, 0U);
}

INSTANTIATE_TEST_SUITE_P(Providers, Speculative,
                         testing::Values(ak::provider::anthropic, ak::provider::openai_chat, ak::provider::openai_responses),
                         provider_name);

// ---- the pieces of a streamed answer, as they arrive ------------------------------------------

/// What a host was told, piece by piece.
struct told_pieces {
    std::mutex mu;
    std::vector<ak::stream_delta> all;
    flag first_text;
    ak::stream_delta_fn fn() {
        return [this](const ak::stream_delta& d) {
            {
                std::lock_guard lock(mu);
                all.push_back(d);
            }
            if (d.what == ak::stream_delta::kind::text) first_text.raise();
        };
    }
    /// The text told after the last discard.
    std::string text() {
        std::lock_guard lock(mu);
        std::string t;
        for (const auto& d : all) {
            if (d.what == ak::stream_delta::kind::discard) t.clear();
            if (d.what == ak::stream_delta::kind::text) t += d.text;
        }
        return t;
    }
    std::size_t count(ak::stream_delta::kind k) {
        std::lock_guard lock(mu);
        return static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [k](const ak::stream_delta& d) { return d.what == k; }));
    }
};

/// The key a provider's usage object counts output tokens under.
const char* output_tokens_key(ak::provider p) { return p == ak::provider::openai_chat ? "completion_tokens" : "output_tokens"; }

class Pieces : public testing::TestWithParam<ak::provider> {};

TEST_P(Pieces, WordsToolCallsAndUsageAreToldBeforeTheStreamEnds) {
    const ak::provider p = GetParam();
    const wire_answer& a = tool_answer(p);
    const wire_stream s = stream_of(p, a);
    told_pieces told;
    std::atomic<bool> held{false};
    fake_provider fake([&](std::size_t, const net::http_request&) {
        return stream_response(s.events, [&](std::size_t k, net::http_stream&) {
            // the last event waits until the host was told the first words (bounded: a client
            // that tells nothing before the end gets it after 20 s, and the test fails)
            if (k + 1 == s.events.size()) held = told.first_text.wait_for(20s);
            return true;
        });
    });
    ASSERT_TRUE(fake.ok());
    ak::model_client model{options_for(fake, p)};
    auto body = model.complete(request_for(p), {}, told.fn());
    ASSERT_TRUE(body) << body.error().to_text();
    expect_same_turn(p, *body, a);
    EXPECT_TRUE(held.load()) << "no words were told while the stream was open";
    EXPECT_EQ(told.text(), a.text);
    EXPECT_GT(told.count(ak::stream_delta::kind::text), 1U);  // in pieces, as they came
    EXPECT_EQ(told.count(ak::stream_delta::kind::discard), 0U);

    // each call: announced once with its id and name, then its arguments in pieces that join into them
    std::vector<std::pair<std::string, std::string>> calls;
    std::map<std::size_t, std::string> args;
    json last_usage;
    for (const auto& d : told.all) {
        if (d.what == ak::stream_delta::kind::tool_call) calls.emplace_back(d.id, d.name);
        if (d.what == ak::stream_delta::kind::tool_arguments) args[d.index] += d.text;
        if (d.what == ak::stream_delta::kind::usage) last_usage = d.usage;
    }
    ASSERT_EQ(calls.size(), a.calls.size());
    ASSERT_EQ(args.size(), a.calls.size());
    std::size_t k = 0;
    for (const auto& [index, text] : args) {
        EXPECT_EQ(calls[k].first, a.calls[k].id);
        EXPECT_EQ(calls[k].second, a.calls[k].name);
        EXPECT_EQ(json::parse(text), a.calls[k].args) << "call " << k << " at index " << index;
        ++k;
    }
    ASSERT_TRUE(last_usage.is_object()) << "no usage was told";
    EXPECT_EQ(last_usage.value(output_tokens_key(p), std::size_t{0}), a.output);
}

TEST_P(Pieces, NothingIsToldWithoutStreaming) {
    const ak::provider p = GetParam();
    const wire_answer& a = tool_answer(p);
    fake_provider fake([&](std::size_t, const net::http_request&) { return json_response(plain_body(p, a)); });
    ASSERT_TRUE(fake.ok());
    ak::model_client model{options_for(fake, p, false)};
    told_pieces told;
    auto body = model.complete(request_for(p), {}, told.fn());
    ASSERT_TRUE(body) << body.error().to_text();
    expect_same_turn(p, *body, a);
    EXPECT_TRUE(told.all.empty());
}

TEST_P(Pieces, AnAttemptCutMidwayIsDiscardedBeforeTheRetryTellsItAgain) {
    const ak::provider p = GetParam();
    const wire_answer& a = tool_answer(p);
    const wire_stream s = stream_of(p, a);
    const std::size_t cut_at = s.first_call_done + 3;
    ASSERT_LT(cut_at, s.events.size());
    fake_provider fake([&](std::size_t i, const net::http_request&) {
        if (i > 0) return stream_response(s.events);
        return stream_response(s.events, [&](std::size_t k, net::http_stream&) { return k < cut_at; });
    });
    ASSERT_TRUE(fake.ok());
    auto o = options_for(fake, p);
    o.max_retries = 1;
    o.retry_backoff = std::chrono::milliseconds(1);
    ak::model_client model{o};
    told_pieces told;
    auto body = model.complete(request_for(p), {}, told.fn());
    ASSERT_TRUE(body) << body.error().to_text();
    EXPECT_EQ(model.round_trips(), 2U);
    EXPECT_EQ(told.count(ak::stream_delta::kind::discard), 1U);
    EXPECT_EQ(told.count(ak::stream_delta::kind::tool_call), a.calls.size() + 2);  // two began before the cut
    EXPECT_EQ(told.text(), a.text);  // the retry's words, told after the discard
}

TEST_P(Pieces, ASessionTellsItsHostAndAFailedAttemptEndsWithADiscard) {
    const ak::provider p = GetParam();
    wire_answer first;
    first.text = "Looking that up now.";
    first.calls = {{call_id(p, 1), "lookup", json{{"key", "alpha"}}}};
    wire_answer final_answer;
    final_answer.text = "The value of alpha is known.";
    const wire_stream cut = stream_of(p, final_answer);
    fake_provider fake([&](std::size_t i, const net::http_request&) {
        if (i == 0) return stream_response(stream_of(p, first).events);
        if (i == 1)  // cut after the first half of the answer: the session retries
            return stream_response(cut.events, [&](std::size_t k, net::http_stream&) { return k < cut.events.size() / 2 + 1; });
        return stream_response(cut.events);
    });
    ASSERT_TRUE(fake.ok());
    ak::toolbox tools{ak::tool<"lookup">("Look up a key.", [](const lookup_args& args) { return "the value of " + args.key; },
                                         ak::read_only | ak::parallel_safe)};
    told_pieces told;
    ak::session_options so;
    so.model = kModel;
    so.on_delta = told.fn();
    ak::agent_session session{tools, ak::all_visible{}, ak::compact_formatter{}, so};
    ak::model_client model{options_for(fake, p)};
    ak::run_limits limits;
    limits.max_retries = 1;
    limits.retry_backoff = std::chrono::milliseconds(1);
    const auto r = session.run(model, "Look up alpha.", limits);
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->to_text() : std::string(ak::to_string(r.reason)));
    EXPECT_EQ(r.final_text, final_answer.text);
    EXPECT_EQ(fake.requests().size(), 3U);
    // the first response's words, its call, the cut attempt's words, a discard, the answer
    std::lock_guard lock(told.mu);
    std::string before_discard, after_discard;
    bool discarded = false;
    std::size_t calls = 0;
    for (const auto& d : told.all) {
        if (d.what == ak::stream_delta::kind::discard) discarded = true;
        if (d.what == ak::stream_delta::kind::tool_call) ++calls;
        if (d.what == ak::stream_delta::kind::text) (discarded ? after_discard : before_discard) += d.text;
    }
    EXPECT_TRUE(discarded);
    EXPECT_EQ(calls, 1U);
    EXPECT_EQ(before_discard.rfind(first.text, 0), 0U) << before_discard;  // the first response, then part of the cut one
    EXPECT_GT(before_discard.size(), first.text.size()) << "the cut attempt told no words before it failed";
    EXPECT_EQ(after_discard, final_answer.text);
}

INSTANTIATE_TEST_SUITE_P(Providers, Pieces,
                         testing::Values(ak::provider::anthropic, ak::provider::openai_chat, ak::provider::openai_responses),
                         provider_name);

}  // namespace
