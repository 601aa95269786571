// agentkit/session/provider.hpp — provider adapters: requests out, responses and errors in.
//
// Three documented wire formats:
//   anthropic         Messages API: `system` blocks, `tools` (input_schema), content blocks
//                     text / tool_use / tool_result, `stop_reason`, usage with
//                     cache_creation_input_tokens / cache_read_input_tokens, errors
//                     {"type":"error","error":{"type":"rate_limit_error",...}}.
//   openai_chat       Chat Completions: `messages` with role system/user/assistant/tool,
//                     `choices[0].message.tool_calls[]` (arguments as a JSON string), usage with
//                     prompt_tokens_details.cached_tokens, errors {"error":{"type","code",...}}.
//   openai_responses  Responses: `instructions` + `input` items, `output` items of type message /
//                     function_call / reasoning, function_call_output items, usage with
//                     input_tokens_details.cached_tokens.
//
// Nothing here throws: malformed bodies become `provider.malformed` errors, malformed tool
// arguments become a call with `malformed` set (the session answers it with an error result).
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/session/message.hpp>
#include <agentkit/tools/output.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit {

/// True for errors worth retrying after a pause (rate limits, overload, transient 5xx).
[[nodiscard]] inline bool is_retryable(const error& e) noexcept {
    return e.is(errc::provider_rate_limited) || e.is(errc::provider_overloaded) || e.is(errc::provider_error);
}

/// Token usage of one response, normalised across providers.
struct usage {
    std::size_t input_tokens = 0;        ///< every prompt token, cached or not
    std::size_t output_tokens = 0;       ///< tokens the model produced
    std::size_t cache_read_tokens = 0;   ///< prompt tokens served from the cache
    std::size_t cache_write_tokens = 0;  ///< prompt tokens written to the cache (Anthropic)
    std::size_t reasoning_tokens = 0;    ///< part of output_tokens (OpenAI reasoning models)

    /// Prompt tokens neither read from nor written to the cache.
    [[nodiscard]] std::size_t fresh_input() const noexcept {
        const std::size_t c = cache_read_tokens + cache_write_tokens;
        return input_tokens > c ? input_tokens - c : 0;
    }
    /// cache_read / input, in [0, 1].
    [[nodiscard]] double hit_rate() const noexcept {
        return input_tokens == 0 ? 0.0 : static_cast<double>(cache_read_tokens) / static_cast<double>(input_tokens);
    }
    /// Input cost in "fresh token" units: cache reads at 10%, cache writes at 125% (Anthropic's
    /// published multipliers; OpenAI has no write premium and writes are 0 there).
    [[nodiscard]] double effective_input() const noexcept {
        return static_cast<double>(fresh_input()) + 0.1 * static_cast<double>(cache_read_tokens) +
               1.25 * static_cast<double>(cache_write_tokens);
    }
    /// Add another response's usage, field by field.
    usage& operator+=(const usage& o) noexcept {
        input_tokens += o.input_tokens;
        output_tokens += o.output_tokens;
        cache_read_tokens += o.cache_read_tokens;
        cache_write_tokens += o.cache_write_tokens;
        reasoning_tokens += o.reasoning_tokens;
        return *this;
    }
};

/// One model response, parsed.
struct model_turn {
    std::string id;  ///< the provider's response id
    std::string model;  ///< the model that answered, as the provider names it
    std::string text;                ///< all prose, joined
    std::vector<tool_call> calls;    ///< in the order the model made them
    std::string stop_reason;         ///< the provider's own value (end_turn, tool_use, stop, tool_calls, ...)
    bool truncated = false;          ///< the output hit the token limit
    bool refused = false;            ///< the model refused (refusal content / stop reason)
    agentkit::usage usage;  ///< the response's token usage
    json raw;                        ///< the assistant output to echo back verbatim to the same provider
    std::vector<std::string> warnings;  ///< blocks we skipped (no id, no name, ...)
};

namespace detail {
[[nodiscard]] inline const json* field(const json& j, std::string_view key) {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
}
[[nodiscard]] inline std::string str_field(const json& j, std::string_view key) {
    const json* f = field(j, key);
    return (f && f->is_string()) ? f->get<std::string>() : std::string();
}
[[nodiscard]] inline std::size_t size_field(const json& j, std::string_view key) {
    const json* f = field(j, key);
    if (!f) return 0;
    if (f->is_number_unsigned()) return f->get<std::size_t>();
    if (f->is_number_integer()) {
        const auto v = f->get<std::int64_t>();
        return v > 0 ? static_cast<std::size_t>(v) : 0;
    }
    if (f->is_number_float()) {
        const double v = f->get<double>();
        return v > 0 ? static_cast<std::size_t>(v) : 0;
    }
    return 0;
}
[[nodiscard]] inline const json& obj_field(const json& j, std::string_view key) {
    static const json empty = json::object();
    const json* f = field(j, key);
    return (f && f->is_object()) ? *f : empty;
}

/// Parse OpenAI-style argument text into a call (empty text means no arguments).
inline void parse_arguments(tool_call& c, const json* args) {
    if (!args || args->is_null()) {
        c.arguments = json::object();
        return;
    }
    if (args->is_object()) {  // some compatible servers send an object
        c.arguments = *args;
        c.raw_arguments = args->dump();
        return;
    }
    if (!args->is_string()) {
        c.malformed = error(errc::args_malformed, c.name + ": arguments are not a JSON string or object",
                            "Send the arguments of " + c.name + " as one JSON object.");
        c.arguments = json::object();
        return;
    }
    c.raw_arguments = args->get<std::string>();
    bool blank = true;
    for (char ch : c.raw_arguments)
        if (ch != ' ' && ch != '\n' && ch != '\t' && ch != '\r') blank = false;
    if (blank) {
        c.arguments = json::object();
        return;
    }
    json parsed = json::parse(c.raw_arguments, nullptr, false);
    if (parsed.is_discarded()) {
        std::string head = c.raw_arguments.substr(0, 120);
        c.malformed = error(errc::args_malformed, c.name + ": arguments are not valid JSON",
                            "Send the arguments of " + c.name + " as one complete JSON object.",
                            json{{"received", head}, {"length", c.raw_arguments.size()}});
        c.arguments = json::object();
    } else if (!parsed.is_object()) {
        c.malformed = error(errc::args_malformed, c.name + ": arguments must be a JSON object, got " +
                                                      std::string(parsed.type_name()),
                            "Send the arguments of " + c.name + " as one JSON object.");
        c.arguments = json::object();
    } else {
        c.arguments = std::move(parsed);
    }
}
}  // namespace detail

/// Normalise a provider's `usage` object.
[[nodiscard]] inline usage parse_usage(provider p, const json& u) {
    usage out;
    if (!u.is_object()) return out;
    switch (p) {
        case provider::anthropic:
            out.cache_read_tokens = detail::size_field(u, "cache_read_input_tokens");
            out.cache_write_tokens = detail::size_field(u, "cache_creation_input_tokens");
            // Anthropic's input_tokens counts only the tokens after the last cache breakpoint.
            out.input_tokens = detail::size_field(u, "input_tokens") + out.cache_read_tokens + out.cache_write_tokens;
            out.output_tokens = detail::size_field(u, "output_tokens");
            break;
        case provider::openai_chat:
            out.input_tokens = detail::size_field(u, "prompt_tokens");
            out.output_tokens = detail::size_field(u, "completion_tokens");
            out.cache_read_tokens = detail::size_field(detail::obj_field(u, "prompt_tokens_details"), "cached_tokens");
            out.reasoning_tokens =
                detail::size_field(detail::obj_field(u, "completion_tokens_details"), "reasoning_tokens");
            break;
        case provider::openai_responses:
            out.input_tokens = detail::size_field(u, "input_tokens");
            out.output_tokens = detail::size_field(u, "output_tokens");
            out.cache_read_tokens = detail::size_field(detail::obj_field(u, "input_tokens_details"), "cached_tokens");
            out.reasoning_tokens = detail::size_field(detail::obj_field(u, "output_tokens_details"), "reasoning_tokens");
            break;
    }
    return out;
}

/// A provider error from an HTTP status and body (either may be missing: status 0, empty body).
/// `retry_after_s` is the Retry-After header, when the host has it. details carries
/// {provider, status, type, retry_after_s}.
[[nodiscard]] inline error parse_error(provider p, int http_status, std::string_view body,
                                       std::optional<double> retry_after_s = std::nullopt) {
    json b = json::parse(body, nullptr, false);
    std::string type;
    std::string code;
    std::string message;
    if (!b.is_discarded() && b.is_object()) {
        const json& e = detail::obj_field(b, "error");
        type = detail::str_field(e, "type");
        code = detail::str_field(e, "code");
        message = detail::str_field(e, "message");
    }
    if (message.empty()) {
        std::string_view head = body.substr(0, body.size() < 200 ? body.size() : 200);
        message = head.empty() ? std::string("no response body") : std::string(head);
    }
    std::string_view c = errc::provider_error;
    std::string hint;
    auto any = [&](std::string_view v) { return type == v || code == v; };
    if (http_status == 429 || any("rate_limit_error") || any("rate_limit_exceeded") || any("requests") ||
        any("tokens") || any("insufficient_quota")) {
        c = any("insufficient_quota") ? errc::provider_auth : errc::provider_rate_limited;
        hint = c == errc::provider_auth ? "The account has no quota left; check billing."
                                        : "Wait and retry; lower the request rate or the tokens per request.";
    } else if (http_status == 529 || any("overloaded_error") || http_status == 503) {
        c = errc::provider_overloaded;
        hint = "The provider is overloaded; retry after a pause.";
    } else if (http_status == 401 || http_status == 403 || any("authentication_error") || any("permission_error") ||
               any("invalid_api_key")) {
        c = errc::provider_auth;
        hint = "Check the API key and its permissions.";
    } else if (http_status == 400 || http_status == 404 || http_status == 413 || http_status == 422 ||
               any("invalid_request_error") || any("not_found_error") || any("request_too_large")) {
        c = errc::provider_invalid;
        hint = "The request was rejected; this is a bug in the request or the model name.";
    } else if (http_status >= 500 || any("api_error") || any("server_error")) {
        c = errc::provider_error;
        hint = "A transient provider failure; retry.";
    } else if (http_status == 0 && type.empty() && code.empty()) {
        c = errc::provider_malformed;
        hint = "The provider's answer was not in its documented format.";
    }
    json details{{"provider", to_string(p)}, {"status", http_status}};
    if (!type.empty()) details["type"] = type;
    if (!code.empty()) details["code"] = code;
    if (retry_after_s) details["retry_after_s"] = *retry_after_s;
    return error(c, std::string(to_string(p)) + ": " + message, std::move(hint), std::move(details));
}

namespace detail {
[[nodiscard]] inline result<model_turn> parse_anthropic(const json& b) {
    model_turn t;
    const json* content = field(b, "content");
    if (!content || !content->is_array())
        return fail(errc::provider_malformed, "anthropic: response has no content array",
                    "Expected a Messages API response.");
    t.id = str_field(b, "id");
    t.model = str_field(b, "model");
    t.stop_reason = str_field(b, "stop_reason");
    t.truncated = t.stop_reason == "max_tokens";
    t.refused = t.stop_reason == "refusal";
    for (const auto& block : *content) {
        const std::string type = str_field(block, "type");
        if (type == "text") {
            if (!t.text.empty()) t.text += '\n';
            t.text += str_field(block, "text");
        } else if (type == "tool_use") {
            tool_call c;
            c.id = str_field(block, "id");
            c.name = str_field(block, "name");
            if (c.id.empty() || c.name.empty()) {
                t.warnings.push_back("tool_use block without id or name skipped");
                continue;
            }
            const json* input = field(block, "input");
            if (input && input->is_object()) {
                c.arguments = *input;
            } else if (input && input->is_string()) {
                parse_arguments(c, input);
            } else if (!input || input->is_null()) {
                c.arguments = json::object();
            } else {
                c.malformed = error(errc::args_malformed, c.name + ": input must be a JSON object",
                                    "Send the arguments of " + c.name + " as one JSON object.");
            }
            t.calls.push_back(std::move(c));
        }
        // thinking, redacted_thinking, server tool blocks: kept in raw, echoed back verbatim.
    }
    t.raw = *content;
    t.usage = parse_usage(provider::anthropic, obj_field(b, "usage"));
    return t;
}

[[nodiscard]] inline result<model_turn> parse_openai_chat(const json& b) {
    model_turn t;
    const json* choices = field(b, "choices");
    if (!choices || !choices->is_array() || choices->empty() || !(*choices)[0].is_object())
        return fail(errc::provider_malformed, "openai_chat: response has no choices", "Expected a Chat Completions response.");
    const json& choice = (*choices)[0];
    const json& msg = obj_field(choice, "message");
    if (msg.empty())
        return fail(errc::provider_malformed, "openai_chat: choices[0] has no message", "Expected a Chat Completions response.");
    t.id = str_field(b, "id");
    t.model = str_field(b, "model");
    t.stop_reason = str_field(choice, "finish_reason");
    t.truncated = t.stop_reason == "length";
    t.refused = t.stop_reason == "content_filter";
    if (const json* content = field(msg, "content")) {
        if (content->is_string()) {
            t.text = content->get<std::string>();
        } else if (content->is_array()) {
            for (const auto& part : *content)
                if (str_field(part, "type") == "text") t.text += str_field(part, "text");
        }
    }
    if (const std::string refusal = str_field(msg, "refusal"); !refusal.empty()) {
        t.refused = true;
        if (t.text.empty()) t.text = refusal;
    }
    json raw{{"role", "assistant"}, {"content", t.text.empty() ? json(nullptr) : json(t.text)}};
    if (const json* calls = field(msg, "tool_calls"); calls && calls->is_array() && !calls->empty()) {
        json echo = json::array();
        for (const auto& tc : *calls) {
            const json& fn = obj_field(tc, "function");
            tool_call c;
            c.id = str_field(tc, "id");
            c.name = str_field(fn, "name");
            if (c.id.empty() || c.name.empty()) {
                t.warnings.push_back("tool call without id or name skipped");
                continue;
            }
            parse_arguments(c, field(fn, "arguments"));
            echo.push_back(json{{"id", c.id},
                                {"type", "function"},
                                {"function", {{"name", c.name}, {"arguments", c.raw_arguments.empty() ? c.arguments.dump() : c.raw_arguments}}}});
            t.calls.push_back(std::move(c));
        }
        if (!echo.empty()) raw["tool_calls"] = std::move(echo);
    }
    t.raw = std::move(raw);
    t.usage = parse_usage(provider::openai_chat, obj_field(b, "usage"));
    return t;
}

[[nodiscard]] inline result<model_turn> parse_openai_responses(const json& b) {
    model_turn t;
    const json* output = field(b, "output");
    if (!output || !output->is_array())
        return fail(errc::provider_malformed, "openai_responses: response has no output array", "Expected a Responses API response.");
    t.id = str_field(b, "id");
    t.model = str_field(b, "model");
    t.stop_reason = str_field(b, "status");
    if (t.stop_reason == "incomplete") {
        t.truncated = true;
        const std::string why = str_field(obj_field(b, "incomplete_details"), "reason");
        if (!why.empty()) t.stop_reason += ":" + why;
    }
    json echo = json::array();
    for (const auto& item : *output) {
        const std::string type = str_field(item, "type");
        if (type == "message") {
            if (const json* content = field(item, "content"); content && content->is_array()) {
                for (const auto& part : *content) {
                    const std::string pt = str_field(part, "type");
                    if (pt == "output_text") {
                        if (!t.text.empty()) t.text += '\n';
                        t.text += str_field(part, "text");
                    } else if (pt == "refusal") {
                        t.refused = true;
                        if (!t.text.empty()) t.text += '\n';
                        t.text += str_field(part, "refusal");
                    }
                }
            }
        } else if (type == "function_call") {
            tool_call c;
            c.id = str_field(item, "call_id");
            if (c.id.empty()) c.id = str_field(item, "id");
            c.name = str_field(item, "name");
            if (c.id.empty() || c.name.empty()) {
                t.warnings.push_back("function_call item without call_id or name skipped");
                continue;
            }
            parse_arguments(c, field(item, "arguments"));
            t.calls.push_back(std::move(c));
        }
        echo.push_back(item);  // reasoning and every other item go back verbatim
    }
    t.raw = std::move(echo);
    t.usage = parse_usage(provider::openai_responses, obj_field(b, "usage"));
    return t;
}
}  // namespace detail

/// Parse a response body (already JSON) in the provider's documented format. An error envelope
/// in the body becomes the matching provider error.
[[nodiscard]] inline result<model_turn> parse_response(provider p, const json& body) {
    if (!body.is_object())
        return fail(errc::provider_malformed, std::string(to_string(p)) + ": response body is not a JSON object",
                    "The provider's answer was not in its documented format.");
    const bool anthropic_error = p == provider::anthropic && detail::str_field(body, "type") == "error";
    const json* e = detail::field(body, "error");
    const bool openai_error = p != provider::anthropic && e && e->is_object();
    if (anthropic_error || openai_error) return fail(parse_error(p, 0, body.dump()));
    if (p == provider::openai_responses && detail::str_field(body, "status") == "failed")
        return fail(errc::provider_error, "openai_responses: the response failed", "Retry.", body);
    switch (p) {
        case provider::anthropic: return detail::parse_anthropic(body);
        case provider::openai_chat: return detail::parse_openai_chat(body);
        case provider::openai_responses: return detail::parse_openai_responses(body);
    }
    return fail(errc::internal, "unknown provider");
}

/// Parse a response body given as text (a body that is not JSON is `provider.malformed`).
[[nodiscard]] inline result<model_turn> parse_response_text(provider p, std::string_view body) {
    json j = json::parse(body, nullptr, false);
    if (j.is_discarded())
        return fail(errc::provider_malformed, std::string(to_string(p)) + ": response body is not JSON",
                    "The provider's answer was not in its documented format.",
                    json{{"received", std::string(body.substr(0, body.size() < 200 ? body.size() : 200))}});
    return parse_response(p, j);
}

}  // namespace agentkit
