// agentkit/core/observer.hpp — what the parts report as they work: one event type, one observer.
//
//   agentkit::session_options o;
//   o.on_event = [](const agentkit::event& e) { std::fprintf(stderr, "%s\n", agentkit::event_line(e).c_str()); };
//
// The session (a run, each model request and its answer, retries, tool calls, the masker's
// changes, artifacts stored), the MCP client (each request it sends and its answer), the MCP
// server (each request it receives and its answer; the gateway is both) and the browser (each CDP
// command answered, each request its origin policy blocked) report to an `observer` set in their
// options (`on_event`). An event that ends something (model_response, tool_ended, ...) carries
// the `id` of the event that started it and its duration; `parent` is the id of the started event
// it happened inside (a run for a model request, a tool call for the MCP request the tool made),
// so that the events form a tree a trace can be built from (core/spans.hpp) or a log written
// (core/logging.hpp).
//
// An observer is called synchronously on the reporting thread, which may be any thread: it must
// be safe to call concurrently, quick, and must not call back into the part reporting. Whatever it
// throws is swallowed. A part without an observer builds no events.
#pragma once

#include <agentkit/core/json.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit {

/// What an event reports.
enum class event_kind : unsigned char {
    run_started,        ///< session: run() began (name: the model)
    run_ended,          ///< session: run() stopped (data.reason, data.steps; error when the model's)
    model_request,      ///< session: a request sent to the model (name: the model; attempt)
    model_response,     ///< session: its answer or failure (tokens, ms, error)
    retry,              ///< session: a failed model call will be tried again (data.pause_ms)
    tool_started,       ///< session: a tool call began (name: the tool; detail: the call id)
    tool_ended,         ///< session: it ended (ms, error, result_tokens)
    masker_changed,     ///< session: what is callable changed (data.added, data.removed, data.visible)
    artifact_stored,    ///< session: an artifact was stored (name: its URI; bytes; detail: MIME type)
    mcp_request_sent,   ///< MCP client: a request sent (name: the method; detail: tool, URI or prompt)
    mcp_response_received,  ///< MCP client: its answer (ms, error)
    mcp_request_received,   ///< MCP server: a request received (name: the method; detail: its target)
    mcp_response_sent,      ///< MCP server: its answer (ms, error: the JSON-RPC code as text)
    cdp_command,        ///< browser: a CDP command answered (name: the method; ms, error)
    request_blocked,    ///< browser: the origin policy blocked a request (name: the URL; detail: the rule)
    browser_disconnected,  ///< browser: the connection to the browser ended by itself (error: why; the next call reconnects)
    browser_started,    ///< browser: a start succeeded, its context is ready (detail: "launched" or "connected")
    browser_closed,     ///< browser: close() ended a started browser (detail: as browser_started's)
};

/// The event kind's name: "run_started", "tool_ended", ...
[[nodiscard]] constexpr std::string_view to_string(event_kind k) noexcept {
    switch (k) {
        case event_kind::run_started: return "run_started";
        case event_kind::run_ended: return "run_ended";
        case event_kind::model_request: return "model_request";
        case event_kind::model_response: return "model_response";
        case event_kind::retry: return "retry";
        case event_kind::tool_started: return "tool_started";
        case event_kind::tool_ended: return "tool_ended";
        case event_kind::masker_changed: return "masker_changed";
        case event_kind::artifact_stored: return "artifact_stored";
        case event_kind::mcp_request_sent: return "mcp_request_sent";
        case event_kind::mcp_response_received: return "mcp_response_received";
        case event_kind::mcp_request_received: return "mcp_request_received";
        case event_kind::mcp_response_sent: return "mcp_response_sent";
        case event_kind::cdp_command: return "cdp_command";
        case event_kind::request_blocked: return "request_blocked";
        case event_kind::browser_disconnected: return "browser_disconnected";
        case event_kind::browser_started: return "browser_started";
        case event_kind::browser_closed: return "browser_closed";
    }
    return "unknown";
}

/// True for the kinds that end what another event started (they carry its id and a duration):
/// run_ended, model_response, tool_ended, mcp_response_received, mcp_response_sent, and
/// cdp_command, which is reported once, when answered.
[[nodiscard]] constexpr bool ends_span(event_kind k) noexcept {
    return k == event_kind::run_ended || k == event_kind::model_response || k == event_kind::tool_ended ||
           k == event_kind::mcp_response_received || k == event_kind::mcp_response_sent || k == event_kind::cdp_command;
}

/// One thing a part did. Fields a kind does not use stay empty or zero.
struct event {
    event_kind kind{};         ///< what it reports
    std::string_view part;     ///< who reports: "session", "mcp.client", "mcp.server", "browser"
    std::string scope;         ///< which one: the session id, the server's name, the client's session
    std::uint64_t id = 0;      ///< shared by a started event and the one that ends it; unique in the process
    std::uint64_t parent = 0;  ///< the started event this one happened inside; 0 = none
    std::string name;          ///< the model, tool, MCP method, CDP method, URL or artifact URI
    std::string detail;        ///< a second name: the call id, a tools/call's tool, a blocking rule
    double ms = 0;             ///< ending kinds: how long it took
    std::string error_code;    ///< ending kinds: why it failed ("" = it went well), an errc or a JSON-RPC code
    std::string error_message; ///< ending kinds: the failure's message
    std::size_t attempt = 0;   ///< model_request, model_response, retry: which attempt (1, 2, ...)
    std::size_t input_tokens = 0;        ///< model_response: prompt tokens
    std::size_t output_tokens = 0;       ///< model_response: tokens produced
    std::size_t cache_read_tokens = 0;   ///< model_response: prompt tokens read from the cache
    std::size_t cache_write_tokens = 0;  ///< model_response: prompt tokens written to the cache
    std::size_t result_tokens = 0;       ///< tool_ended: tokens of the result the model reads
    std::size_t bytes = 0;               ///< artifact_stored: its size
    json data;                           ///< what else a kind tells (see event_kind); null when nothing
    std::chrono::system_clock::time_point at = std::chrono::system_clock::now();  ///< when it happened

    /// True for an ending event that reports a failure.
    [[nodiscard]] bool failed() const noexcept { return !error_code.empty(); }
};

/// Receives events (see the file comment for the rules it must keep).
using observer = std::function<void(const event&)>;

/// A fresh event id (never 0), unique in the process.
[[nodiscard]] inline std::uint64_t next_event_id() noexcept {
    static std::atomic<std::uint64_t> next{0};
    return next.fetch_add(1, std::memory_order_relaxed) + 1;
}

/// A new event of `kind` from `part` (a string literal: "browser", ...; the event keeps a view of
/// it) with a fresh id; the rest is the reporter's.
[[nodiscard]] inline event make_event(event_kind kind, std::string_view part) noexcept {
    event e;
    e.kind = kind;
    e.part = part;
    e.id = next_event_id();
    return e;
}

/// Call `o` with `e` when it is set, swallowing what it throws.
inline void notify(const observer& o, const event& e) noexcept {
    if (!o) return;
    try {
        o(e);
    } catch (...) {
    }
}

/// One observer that tells each of `all` in turn (an empty one is skipped), e.g. a log and a trace.
[[nodiscard]] inline observer fan_out(std::vector<observer> all) {
    std::erase_if(all, [](const observer& o) { return !o; });
    if (all.empty()) return {};
    if (all.size() == 1) return std::move(all.front());
    return [all = std::move(all)](const event& e) {
        for (const auto& o : all) notify(o, e);
    };
}

}  // namespace agentkit
