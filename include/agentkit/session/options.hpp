// agentkit/session/options.hpp — what an agent_session is told (session_options, the masker
// hooks it detects, the default system prompt, the built-in complete tool) and what a run comes
// to (turn_outcome, stop_reason, run_result). session/session.hpp holds the session itself.
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/observer.hpp>
#include <agentkit/core/tokens.hpp>
#include <agentkit/session/context.hpp>
#include <agentkit/session/metrics.hpp>
#include <agentkit/session/provider.hpp>
#include <agentkit/session/stream.hpp>
#include <agentkit/tools/export.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/visibility/strategy.hpp>

#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace agentkit {

/// A masker that prefers an exposure: `exposure()`, used unless session_options::exposure is set.
template <class M>
concept masker_with_exposure = requires(const M& m) {
    { m.exposure() } -> std::convertible_to<agentkit::exposure>;
};
/// A masker with `on_prose_answer()`: a nudge, appended as a user message, when the model answers with prose.
template <class M>
concept masker_with_prose_hook = requires(M& m) {
    { m.on_prose_answer() } -> std::convertible_to<std::optional<std::string>>;
};
/// The menu's spelling of the same hook.
template <class M>
concept masker_with_dead_end_nudge = requires(M& m) {
    { m.dead_end_nudge() } -> std::convertible_to<std::optional<std::string>>;
};
/// A masker with `on_tool_error(name, error)`: extra retry guidance added to a failed call's result.
template <class M>
concept masker_with_error_hook = requires(M& m, std::string_view name, const error& e) {
    { m.on_tool_error(name, e) } -> std::convertible_to<std::optional<std::string>>;
};

/// The stable part of the system prompt agentkit uses when the host gives none.
inline constexpr std::string_view default_system_prompt =
    "You complete the user's task with the tools provided.\n"
    "- Call tools directly; do not narrate before a call.\n"
    "- When calls are independent, make them in the same response: they run in parallel.\n"
    "- Prefer compound tools (several steps in one call) to many single-step calls.\n"
    "- When a tool fails, read its error and hint, then change the arguments or the approach; never repeat a "
    "failing call unchanged.";

namespace detail {
/// The built-in tool that ends a run with the final answer (session_options::complete_tool).
[[nodiscard]] inline tool_info complete_tool_info(const std::string& name) {
    tool_info t;
    t.name = name;
    t.description = "Finish the task. `result` is the final answer for the user; `summary` is up to 8 short "
                    "bullets on what was done (optional).";
    t.input_schema = json{
        {"type", "object"},
        {"properties",
         {{"result", {{"type", "string"}, {"description", "The final answer"}}},
          {"summary", {{"type", "array"}, {"items", {{"type", "string"}}}, {"maxItems", 8}, {"description", "Short bullets"}}}}},
        {"required", json::array({"result"})},
        {"additionalProperties", false}};
    return t;
}

/// A fresh session id ("s-" and 8 hex digits) when the host gives none.
[[nodiscard]] inline std::string make_session_id() {
    static std::atomic<unsigned> counter{0};
    const auto now = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
    const unsigned long long v = (now ^ (now >> 17) ^ (static_cast<unsigned long long>(++counter) << 40)) & 0xffffffffULL;
    char buf[24];
    std::snprintf(buf, sizeof buf, "s-%08llx", v);
    return buf;
}
}  // namespace detail

/// How an agent_session builds its requests, runs tools and manages its context.
struct session_options {
    agentkit::provider provider = agentkit::provider::anthropic;  ///< when the model does not say
    std::string model = "claude-sonnet-4-5";  ///< the model name sent in every request
    std::size_t max_tokens = 4096;           ///< per response
    std::string system_prompt = std::string(default_system_prompt);  ///< the host's part (the complete tool's line and the masker's section follow)
    /// Overrides the masker's preference; unset and without one: the cache-stable exposure.
    std::optional<agentkit::exposure> exposure;
    bool cache = true;                       ///< Anthropic breakpoints
    std::string cache_key;                   ///< OpenAI prompt_cache_key; "" = the session id
    bool openai_compat = false;              ///< an OpenAI-compatible server (see request_spec)
    bool parallel_tool_calls = true;         ///< let the model make several calls per response (false: asks for one)
    std::size_t max_parallel = 4;            ///< threads for parallel-safe calls of one response
    bool speculative = true;                 ///< run read-only calls as soon as their block is complete
    bool builtin_complete = true;            ///< add the `complete` tool unless the host or masker has one
    std::string complete_tool = "complete";  ///< the name of the tool that ends the run with the final answer
    /// The host's tool that reads artifacts back, named in cut notes and the report. Empty: the
    /// toolbox's `read_artifact` (format/artifact_reader.hpp) or `browser_artifact` when it has
    /// one; with neither, artifacts are named by URI.
    std::string artifact_tool;
    std::size_t max_nudges = 2;              ///< prose answers the masker may turn into nudges
    context_options context{};               ///< how the history is shortened before each request
    export_options export_opts{};            ///< how tools are exported (OpenAI strict mode)
    json extra = json::object();             ///< merged into every request
    token_counter tokens{};                  ///< counts tokens for context trimming and result metrics
    std::string session_id;                  ///< "" = generated
    std::chrono::milliseconds tool_timeout{0};  ///< per call deadline handed to tools; 0 = none
    /// Called after every turn (logging). Exceptions are swallowed.
    std::function<void(const turn_metrics&)> on_turn;
    /// Called with every piece of a response as the model streams it (its words as they come:
    /// `d.what == stream_delta::kind::text`), when run() drives a delta_streaming_model
    /// (model_client with streaming on). A failed attempt's pieces are followed by a `discard`
    /// before the retry. Runs on run()'s thread; exceptions are swallowed.
    stream_delta_fn on_delta;
    /// Told of what the session does (core/observer.hpp): the run, each model request and its
    /// answer (tokens, latency), retries, tool calls (duration, error code, result tokens), the
    /// masker's changes of what is callable, artifacts stored. Called on the thread doing the
    /// work (parallel tool calls: several at once); exceptions are swallowed.
    observer on_event;
};

/// What one accepted response amounted to.
struct turn_outcome {
    bool done = false;              ///< the model finished (complete tool or final answer)
    bool completed = false;         ///< finished through the complete tool
    bool nudged = false;            ///< a prose answer was turned into a nudge
    bool truncated = false;         ///< the response hit the output token limit
    std::string final_text;         ///< the final answer, once done ("" otherwise)
    std::size_t calls = 0;          ///< tool calls in the response
    std::size_t errors = 0;         ///< of them, calls whose result is an error
};

/// Why agent_session::run stopped: completed (the complete tool), answered (a response without calls), a limit, a model error, or cancel().
enum class stop_reason { completed, answered, step_limit, token_limit, time_limit, model_error, cancelled };

/// "completed", "answered", "step limit", "token limit", "time limit", "model error", "cancelled".
[[nodiscard]] constexpr std::string_view to_string(stop_reason r) noexcept {
    switch (r) {
        case stop_reason::completed: return "completed";
        case stop_reason::answered: return "answered";
        case stop_reason::step_limit: return "step limit";
        case stop_reason::token_limit: return "token limit";
        case stop_reason::time_limit: return "time limit";
        case stop_reason::model_error: return "model error";
        case stop_reason::cancelled: return "cancelled";
    }
    return "unknown";
}

/// The stop reason named `name` (to_string's names); nothing for another name.
[[nodiscard]] constexpr std::optional<stop_reason> stop_reason_named(std::string_view name) noexcept {
    for (stop_reason r : {stop_reason::completed, stop_reason::answered, stop_reason::step_limit, stop_reason::token_limit,
                          stop_reason::time_limit, stop_reason::model_error, stop_reason::cancelled})
        if (to_string(r) == name) return r;
    return std::nullopt;
}

/// What agent_session::run came to.
struct run_result {
    stop_reason reason = stop_reason::answered;  ///< why the run stopped
    std::string final_text;                      ///< the final answer ("" unless completed or answered)
    std::size_t steps = 0;                       ///< model responses accepted
    std::optional<agentkit::error> error;        ///< the model's error that ended the run, when one did
    /// True when the model finished (completed or answered), not stopped by a limit, an error or cancel().
    [[nodiscard]] bool ok() const noexcept { return reason == stop_reason::completed || reason == stop_reason::answered; }
};

}  // namespace agentkit
