// agentkit/tools/context.hpp — per-call context a handler may take as its second parameter.
#pragma once

#include <agentkit/core/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

namespace agentkit {

/// Passed to handlers that accept it: `[](const args& a, agentkit::tool_context& ctx) { ... }`.
struct tool_context {
    /// Requested when the call is cancelled (MCP notifications/cancelled, a session time limit).
    std::stop_token stop{};
    /// The provider's or client's id for this call, when it has one.
    std::string call_id{};
    /// When the call should give up; max() means no deadline.
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    /// What the caller declared it can do: over MCP, the client's capabilities (from this request's
    /// `_meta` in the 2026-07-28 revision, from initialize before it); null when unknown. A tool that
    /// needs one the client lacks fails with errc::client_capability_missing and details
    /// {"requiredCapabilities": {...}} (the MCP server answers -32021 with them).
    json client_capabilities{};
    /// The observer event of this call (core/observer.hpp: its tool_started's id, or the MCP
    /// server's request): what the tool reports to an observer of its own (an MCP client's request
    /// it makes) names it as `parent`, so traces nest. 0 when nothing observes the call.
    std::uint64_t parent_event = 0;
    /// Receives progress reports (MCP notifications/progress when the client asked for them).
    std::function<void(double progress, std::optional<double> total, std::string_view message)> on_progress{};

    /// True once the call has been cancelled (`stop` was requested).
    [[nodiscard]] bool cancelled() const noexcept { return stop.stop_requested(); }
    /// True once the deadline has passed.
    [[nodiscard]] bool expired() const noexcept { return std::chrono::steady_clock::now() >= deadline; }
    /// Report progress (`done` of `total`, with an optional message) to on_progress, if set.
    void progress(double done, std::optional<double> total = std::nullopt, std::string_view message = {}) const {
        if (on_progress) on_progress(done, total, message);
    }
};

}  // namespace agentkit
