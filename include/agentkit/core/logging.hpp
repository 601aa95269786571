// agentkit/core/logging.hpp — the events of core/observer.hpp as log lines, into a host's sink.
//
//   // into spdlog, or anything that takes a level and a line:
//   o.on_event = agentkit::log_observer([](agentkit::log_level l, std::string_view line) {
//       spdlog::log(l >= agentkit::log_level::warn ? spdlog::level::warn : spdlog::level::info, line);
//   }, agentkit::log_level::info);
//
// Each event is one line (event_line()) at a level (level_of()): failures are warnings (a model
// error that ends a run, an error), ends of work and changes are info, starts and CDP commands are
// debug. agentkit writes no log of its own besides the MCP server's stderr lines
// (server_options::stderr_level).
#pragma once

#include <agentkit/core/observer.hpp>

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace agentkit {

/// How much a log line matters.
enum class log_level : unsigned char { trace, debug, info, warn, error };

/// "trace", "debug", "info", "warn", "error".
[[nodiscard]] constexpr std::string_view to_string(log_level l) noexcept {
    switch (l) {
        case log_level::trace: return "trace";
        case log_level::debug: return "debug";
        case log_level::info: return "info";
        case log_level::warn: return "warn";
        case log_level::error: return "error";
    }
    return "info";
}

/// The level an event is logged at: a run that ended on an error: error; any other failure, a retry
/// or a blocked request: warn; other ends, masker changes, artifacts, browser starts and closes:
/// info; starts and CDP commands that went well: debug.
[[nodiscard]] constexpr log_level level_of(const event& e) noexcept {
    if (e.kind == event_kind::run_ended && e.failed()) return log_level::error;
    if (e.failed() || e.kind == event_kind::retry || e.kind == event_kind::request_blocked || e.kind == event_kind::browser_disconnected)
        return log_level::warn;
    switch (e.kind) {
        case event_kind::run_ended:
        case event_kind::model_response:
        case event_kind::tool_ended:
        case event_kind::mcp_response_received:
        case event_kind::mcp_response_sent:
        case event_kind::masker_changed:
        case event_kind::browser_started:
        case event_kind::browser_closed:
        case event_kind::artifact_stored: return log_level::info;
        default: return log_level::debug;
    }
}

namespace detail {
inline void append_ms(std::string& s, double ms) {
    char buf[40];
    std::snprintf(buf, sizeof buf, " in %.1f ms", ms);
    s += buf;
}
}  // namespace detail

/// One line for a person: "[session s-1a2b] tool_ended read_file (call_1) in 3.2 ms, 41 result
/// tokens", "[mcp.client memory] mcp_response_received tools/call (create_entities) in 12.0 ms:
/// remote.error: ...".
[[nodiscard]] inline std::string event_line(const event& e) {
    std::string s = "[";
    s += e.part;
    if (!e.scope.empty()) {
        s += ' ';
        s += e.scope;
    }
    s += "] ";
    s += to_string(e.kind);
    if (!e.name.empty()) s += " " + e.name;
    if (!e.detail.empty()) s += " (" + e.detail + ")";
    if (e.attempt > 1) s += " attempt " + std::to_string(e.attempt);
    if (ends_span(e.kind)) detail::append_ms(s, e.ms);
    if (e.kind == event_kind::model_response && !e.failed())
        s += ", " + std::to_string(e.input_tokens) + " in (" + std::to_string(e.cache_read_tokens) + " from cache), " +
             std::to_string(e.output_tokens) + " out";
    if (e.kind == event_kind::tool_ended && !e.failed()) s += ", " + std::to_string(e.result_tokens) + " result tokens";
    if (e.kind == event_kind::artifact_stored) s += ", " + std::to_string(e.bytes) + " bytes";
    if (e.kind == event_kind::masker_changed && e.data.is_object()) {
        for (const char* key : {"added", "removed"}) {
            auto it = e.data.find(key);
            if (it == e.data.end() || !it->is_array() || it->empty()) continue;
            s += std::string(", ") + key + ":";
            for (const auto& n : *it)
                if (n.is_string()) s += " " + n.get<std::string>();
        }
    }
    if (e.kind == event_kind::run_ended && e.data.is_object() && e.data.contains("reason") && e.data["reason"].is_string())
        s += ", " + e.data["reason"].get<std::string>();
    if (e.kind == event_kind::retry && e.data.is_object() && e.data.contains("pause_ms") && e.data["pause_ms"].is_number())
        s += ", after " + std::to_string(e.data["pause_ms"].get<long long>()) + " ms";
    if (e.failed()) {
        s += ": " + e.error_code;
        if (!e.error_message.empty()) s += ": " + e.error_message;
    }
    return s;
}

/// Where log lines go: a host's logger.
using log_sink = std::function<void(log_level level, std::string_view line)>;

/// An observer that writes each event of level `min` or above to `sink` as one line (event_line()).
[[nodiscard]] inline observer log_observer(log_sink sink, log_level min = log_level::info) {
    if (!sink) return {};
    return [sink = std::move(sink), min](const event& e) {
        const log_level l = level_of(e);
        if (l < min) return;
        sink(l, event_line(e));
    };
}

/// A sink writing "agentkit <level>: <line>" to stderr (never stdout: an MCP stdio server's
/// stdout carries protocol messages only).
[[nodiscard]] inline log_sink stderr_log_sink() {
    return [](log_level l, std::string_view line) {
        std::fprintf(stderr, "agentkit %.*s: %.*s\n", static_cast<int>(to_string(l).size()), to_string(l).data(),
                     static_cast<int>(line.size()), line.data());
    };
}

}  // namespace agentkit
