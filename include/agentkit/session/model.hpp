// agentkit/session/model.hpp — the model concept, run limits, and a scripted model for tests,
// demos and benchmarks.
//
// A model is anything with `complete(const json& request) -> result<json>` that answers with a
// response body in the provider's documented format (an HTTP client, a recorded fixture, a
// script). A model that also has `provider() -> agentkit::provider` tells the session which
// format to speak. A `streaming_model` also hands over each tool call as soon as it is complete
// (the session starts read-only calls early); a `cancellable_model` can be interrupted.
//
//   agentkit::scripted_model m(agentkit::provider::anthropic, {
//       agentkit::script::call({{"get_weather", {{"city", "Oslo"}}}}),
//       agentkit::script::say("It is sunny in Oslo."),
//   });
//
// The scripted model answers with realistic usage: input tokens are counted from the request,
// and a prompt-cache simulator reproduces each provider's documented caching (Anthropic:
// prefixes at cache_control breakpoints, 20-block lookback, 1,024-token minimum; OpenAI:
// automatic longest-prefix caching in 128-token steps from 1,024 tokens).
#pragma once

#include <agentkit/session/provider.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/tokens.hpp>
#include <agentkit/session/message.hpp>
#include <agentkit/session/stream.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace agentkit {

/// A model: `complete(request)` returns `result<json>`, the response body in the provider's documented format.
template <class M>
concept model = requires(M& m, const json& request) {
    { m.complete(request) } -> std::same_as<result<json>>;
};

/// A model that also says which wire format it speaks: `provider()` converts to agentkit::provider.
template <class M>
concept provider_aware_model = model<M> && requires(const M& m) {
    { m.provider() } -> std::convertible_to<agentkit::provider>;
};

/// A model that streams and hands over each tool call of the response as soon as that call is
/// complete, before the response ends: `complete(request, on_tool_call)` calls
/// `on_tool_call(block)` with the call in the provider's block format (an Anthropic tool_use
/// block, a Chat Completions tool_calls[] entry, a Responses function_call item) on the thread
/// that called complete(), and returns the whole response body as complete(request) does.
/// agent_session::run passes a callback that starts read-only calls at once (speculate).
template <class M>
concept streaming_model = model<M> && requires(M& m, const json& request, const std::function<void(const json&)>& on_tool_call) {
    { m.complete(request, on_tool_call) } -> std::same_as<result<json>>;
};

/// A streaming model that also hands over every piece of the response as it arrives:
/// `complete(request, on_tool_call, on_delta)` calls `on_delta(piece)` (stream_delta: the
/// answer's words, reasoning, tool calls and their arguments, usage; `discard` before a retried
/// attempt) on the thread that called complete(). model_client is one; agent_session::run
/// passes session_options::on_delta through it.
template <class M>
concept delta_streaming_model = streaming_model<M> && requires(M& m, const json& request, const std::function<void(const json&)>& on_tool_call,
                                                               const stream_delta_fn& on_delta) {
    { m.complete(request, on_tool_call, on_delta) } -> std::same_as<result<json>>;
};

/// A model whose request in flight can be cancelled from another thread: `cancel()` makes the
/// complete() running now return promptly (with an error). agent_session::cancel() calls it.
template <class M>
concept cancellable_model = requires(M& m) {
    { m.cancel() } noexcept;
};

/// Limits of one `agent_session::run`. Zero means unlimited.
struct run_limits {
    std::size_t max_steps = 25;                  ///< model round trips that produced an answer
    std::size_t max_tokens = 0;                  ///< input + output tokens over the run
    std::chrono::milliseconds max_time{0};       ///< wall time of the run
    std::size_t max_retries = 3;                 ///< per request, for retryable provider errors
    std::chrono::milliseconds retry_backoff{1000};  ///< first pause; doubles each retry, or Retry-After
    std::chrono::milliseconds max_backoff{30000};   ///< the longest pause between retries (caps Retry-After too)
};

/// The documented prompt caching of each provider, simulated over request bodies.
class prompt_cache_sim {
public:
    /// An empty cache, counting tokens with `tc`.
    explicit prompt_cache_sim(token_counter tc = {}) : tc_(std::move(tc)) {}

    /// Usage for `request` (output tokens left 0); remembers what this request cached.
    [[nodiscard]] usage account(provider p, const json& request) {
        std::vector<segment> segs = segments(p, request);
        std::vector<std::size_t> cum(segs.size() + 1, 0);
        std::vector<std::size_t> hashes(segs.size() + 1, 0);
        for (std::size_t i = 0; i < segs.size(); ++i) {
            cum[i + 1] = cum[i] + tc_.count(segs[i].text);
            hashes[i + 1] = std::hash<std::string>{}(std::to_string(hashes[i]) + "\x1f" + segs[i].text);
        }
        usage u;
        u.input_tokens = cum.back();
        if (p == provider::anthropic) {
            std::size_t read = 0;
            std::size_t last_bp = 0;
            for (std::size_t i = 0; i < segs.size(); ++i) {
                if (!segs[i].breakpoint) continue;
                const std::size_t pos = i + 1;
                last_bp = pos;
                const std::size_t lo = pos > 20 ? pos - 20 : 1;
                for (std::size_t q = pos; q >= lo; --q) {
                    if (cached_.count(hashes[q]) != 0) {
                        if (cum[q] > read) read = cum[q];
                        break;
                    }
                    if (q == 1) break;
                }
            }
            std::size_t write = 0;
            if (last_bp > 0 && cum[last_bp] >= 1024 && cum[last_bp] > read && cached_.count(hashes[last_bp]) == 0)
                write = cum[last_bp] - read;
            for (std::size_t i = 0; i < segs.size(); ++i)
                if (segs[i].breakpoint && cum[i + 1] >= 1024) cached_.insert(hashes[i + 1]);
            u.cache_read_tokens = read;
            u.cache_write_tokens = write;
        } else {
            std::size_t read = 0;
            for (std::size_t pos = segs.size(); pos > 0; --pos) {
                if (cached_.count(hashes[pos]) != 0) {
                    read = cum[pos];
                    break;
                }
            }
            read = read / 128 * 128;
            if (u.input_tokens < 1024 || read < 1024) read = 0;
            for (std::size_t pos = 1; pos <= segs.size(); ++pos) cached_.insert(hashes[pos]);
            u.cache_read_tokens = read;
        }
        return u;
    }

private:
    struct segment {
        std::string text;
        bool breakpoint = false;
    };
    static void add(std::vector<segment>& out, json j) {
        bool bp = false;
        if (j.is_object() && j.contains("cache_control")) {
            j.erase("cache_control");
            bp = true;
        }
        out.push_back({j.dump(), bp});
    }
    [[nodiscard]] static std::vector<segment> segments(provider p, const json& r) {
        std::vector<segment> out;
        if (!r.is_object()) return out;
        if (auto t = r.find("tools"); t != r.end() && t->is_array())
            for (const auto& x : *t) add(out, x);
        if (p == provider::anthropic) {
            if (auto s = r.find("system"); s != r.end()) {
                if (s->is_array()) for (const auto& b : *s) add(out, b);
                else add(out, *s);
            }
            if (auto m = r.find("messages"); m != r.end() && m->is_array()) {
                for (const auto& msg : *m) {
                    out.push_back({"<" + detail::str_field(msg, "role") + ">", false});
                    if (auto c = msg.find("content"); c != msg.end() && c->is_array())
                        for (const auto& b : *c) add(out, b);
                    else if (c != msg.end()) add(out, *c);
                }
            }
        } else if (p == provider::openai_chat) {
            if (auto m = r.find("messages"); m != r.end() && m->is_array())
                for (const auto& msg : *m) add(out, msg);
        } else {
            if (auto s = r.find("instructions"); s != r.end()) add(out, *s);
            if (auto m = r.find("input"); m != r.end() && m->is_array())
                for (const auto& item : *m) add(out, item);
        }
        return out;
    }

    token_counter tc_;
    std::unordered_set<std::size_t> cached_;
};

/// One scripted call.
struct scripted_call {
    std::string name;                          ///< the tool called
    json arguments = json::object();           ///< its arguments (unless raw_arguments is set)
    std::optional<std::string> raw_arguments;  ///< sent verbatim (OpenAI: may be malformed JSON)

    ///@{
    /// A call of tool `name_` with `args` (or `raw` text sent verbatim); default: no name, no arguments.
    scripted_call() = default;
    scripted_call(std::string name_, json args = json::object(), std::optional<std::string> raw = std::nullopt)
        : name(std::move(name_)), arguments(std::move(args)), raw_arguments(std::move(raw)) {}
    ///@}
};

/// One scripted answer: prose and/or tool calls, or a failure, or a verbatim body.
struct scripted_reply {
    std::string text;                      ///< the prose answered ("" = none)
    std::vector<scripted_call> calls;      ///< the tool calls answered, in order
    std::optional<error> failure;          ///< complete() returns this error
    std::optional<json> body;              ///< returned verbatim instead of a rendered response
    std::optional<usage> usage_override;   ///< instead of the simulated usage
};

/// Script helpers, in their own namespace (short names that would clash in a host's code):
/// `script::say("answer")`, `script::call({{"tool", {{"arg", 1}}}})`, `script::fail_with(error)`,
/// `script::respond_raw(body)`. `using namespace agentkit::script;` in a test file is fine.
namespace script {
/// A reply of prose only: the final answer `text`.
[[nodiscard]] inline scripted_reply say(std::string text) {
    scripted_reply r;
    r.text = std::move(text);
    return r;
}
/// A reply that calls these tools, in order, with the prose `text` alongside ("" = none).
[[nodiscard]] inline scripted_reply call(std::vector<scripted_call> calls, std::string text = {}) {
    scripted_reply r;
    r.calls = std::move(calls);
    r.text = std::move(text);
    return r;
}
/// A reply that fails: complete() returns error `e`.
[[nodiscard]] inline scripted_reply fail_with(error e) {
    scripted_reply r;
    r.failure = std::move(e);
    return r;
}
/// A reply whose response body is `body`, returned verbatim (no rendering, no usage).
[[nodiscard]] inline scripted_reply respond_raw(json body) {
    scripted_reply r;
    r.body = std::move(body);
    return r;
}
}  // namespace script

/// A model that answers from a script, one reply per request in order, in `provider`'s format with simulated usage.
class scripted_model {
public:
    /// A script step that chooses the reply from the request.
    using step_fn = std::function<scripted_reply(const json& request)>;

    /// A model speaking `p` that answers with these replies in order, counting tokens with `tc`.
    scripted_model(agentkit::provider p, std::vector<scripted_reply> script, token_counter tc = {})
        : provider_(p), tc_(tc), cache_(tc) {
        for (auto& r : script) steps_.push_back([r = std::move(r)](const json&) { return r; });
    }

    ///@{
    /// Append a reply, or a function that chooses the reply from the request.
    scripted_model& then(scripted_reply r) {
        steps_.push_back([r = std::move(r)](const json&) { return r; });
        return *this;
    }
    scripted_model& then(step_fn f) {
        steps_.push_back(std::move(f));
        return *this;
    }
    ///@}

    /// The wire format the replies are rendered in.
    [[nodiscard]] agentkit::provider provider() const noexcept { return provider_; }
    /// Every request complete() received, in order.
    [[nodiscard]] const std::vector<json>& requests() const noexcept { return requests_; }
    /// Script steps not used yet.
    [[nodiscard]] std::size_t remaining() const noexcept { return steps_.size() - next_; }

    /// The next reply as a response body (or its failure); provider_invalid once the script is used up.
    [[nodiscard]] result<json> complete(const json& request) {
        requests_.push_back(request);
        if (next_ >= steps_.size())
            return fail(errc::provider_invalid, "scripted model: the script has no more replies",
                        "Add replies to the script or lower the step limit.");
        scripted_reply r;
        try {
            r = steps_[next_++](request);
        } catch (...) {
            return fail(errc::internal, "scripted model: a script step threw");
        }
        if (r.failure) return fail(*r.failure);
        if (r.body) return *r.body;
        usage u = r.usage_override ? *r.usage_override : cache_.account(provider_, request);
        if (!r.usage_override) {
            std::size_t out = tc_.count(r.text);
            for (const auto& c : r.calls)
                out += 8 + tc_.count(c.name) + tc_.count(c.raw_arguments ? *c.raw_arguments : c.arguments.dump());
            u.output_tokens = out;
        }
        ++serial_;
        switch (provider_) {
            case agentkit::provider::anthropic: return render_anthropic(r, u);
            case agentkit::provider::openai_chat: return render_chat(r, u);
            case agentkit::provider::openai_responses: return render_responses(r, u);
        }
        return fail(errc::internal, "unknown provider");
    }

private:
    [[nodiscard]] std::string id(std::string_view prefix, std::size_t i) const {
        return std::string(prefix) + std::to_string(serial_) + "_" + std::to_string(i);
    }
    [[nodiscard]] json render_anthropic(const scripted_reply& r, const usage& u) const {
        json content = json::array();
        if (!r.text.empty()) content.push_back(json{{"type", "text"}, {"text", r.text}});
        for (std::size_t i = 0; i < r.calls.size(); ++i) {
            const auto& c = r.calls[i];
            json input = c.arguments;
            if (c.raw_arguments) {
                json parsed = json::parse(*c.raw_arguments, nullptr, false);
                input = parsed.is_discarded() ? json(*c.raw_arguments) : parsed;
            }
            content.push_back(json{{"type", "tool_use"}, {"id", id("toolu_", i)}, {"name", c.name}, {"input", input}});
        }
        return json{{"id", "msg_scripted_" + std::to_string(serial_)},
                    {"type", "message"},
                    {"role", "assistant"},
                    {"model", "scripted"},
                    {"content", std::move(content)},
                    {"stop_reason", r.calls.empty() ? "end_turn" : "tool_use"},
                    {"stop_sequence", nullptr},
                    {"usage",
                     {{"input_tokens", u.fresh_input()},
                      {"cache_creation_input_tokens", u.cache_write_tokens},
                      {"cache_read_input_tokens", u.cache_read_tokens},
                      {"output_tokens", u.output_tokens}}}};
    }
    [[nodiscard]] json render_chat(const scripted_reply& r, const usage& u) const {
        json msg{{"role", "assistant"}, {"content", r.text.empty() ? json(nullptr) : json(r.text)}, {"refusal", nullptr}};
        if (!r.calls.empty()) {
            json calls = json::array();
            for (std::size_t i = 0; i < r.calls.size(); ++i) {
                const auto& c = r.calls[i];
                calls.push_back(json{{"id", id("call_", i)}, {"type", "function"},
                                     {"function", {{"name", c.name}, {"arguments", c.raw_arguments ? *c.raw_arguments : c.arguments.dump()}}}});
            }
            msg["tool_calls"] = std::move(calls);
        }
        return json{{"id", "chatcmpl-scripted" + std::to_string(serial_)},
                    {"object", "chat.completion"},
                    {"model", "scripted"},
                    {"choices", json::array({json{{"index", 0}, {"message", std::move(msg)},
                                                  {"finish_reason", r.calls.empty() ? "stop" : "tool_calls"}}})},
                    {"usage",
                     {{"prompt_tokens", u.input_tokens},
                      {"completion_tokens", u.output_tokens},
                      {"total_tokens", u.input_tokens + u.output_tokens},
                      {"prompt_tokens_details", {{"cached_tokens", u.cache_read_tokens}}},
                      {"completion_tokens_details", {{"reasoning_tokens", u.reasoning_tokens}}}}}};
    }
    [[nodiscard]] json render_responses(const scripted_reply& r, const usage& u) const {
        json output = json::array();
        if (!r.text.empty())
            output.push_back(json{{"type", "message"}, {"id", id("msg_", 0)}, {"status", "completed"}, {"role", "assistant"},
                                  {"content", json::array({json{{"type", "output_text"}, {"text", r.text}, {"annotations", json::array()}}})}});
        for (std::size_t i = 0; i < r.calls.size(); ++i) {
            const auto& c = r.calls[i];
            output.push_back(json{{"type", "function_call"}, {"id", id("fc_", i)}, {"call_id", id("call_", i)}, {"name", c.name},
                                  {"arguments", c.raw_arguments ? *c.raw_arguments : c.arguments.dump()}, {"status", "completed"}});
        }
        return json{{"id", "resp_scripted" + std::to_string(serial_)},
                    {"object", "response"},
                    {"status", "completed"},
                    {"model", "scripted"},
                    {"output", std::move(output)},
                    {"usage",
                     {{"input_tokens", u.input_tokens},
                      {"input_tokens_details", {{"cached_tokens", u.cache_read_tokens}}},
                      {"output_tokens", u.output_tokens},
                      {"output_tokens_details", {{"reasoning_tokens", u.reasoning_tokens}}},
                      {"total_tokens", u.input_tokens + u.output_tokens}}}};
    }

    agentkit::provider provider_;
    token_counter tc_;
    prompt_cache_sim cache_;
    std::vector<step_fn> steps_;
    std::size_t next_ = 0;
    std::size_t serial_ = 0;
    std::vector<json> requests_;
};

static_assert(provider_aware_model<scripted_model>);

}  // namespace agentkit
