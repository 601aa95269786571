// agentkit/tools/traits.hpp — what a tool promises about its effects.
//
// Say only what the tool promises: a trait not given is not promised. MCP clients read the
// absence of a promise by the specification's defaults (a tool may write, may destroy, is not
// idempotent, reaches an open world), and tools/list says only what the traits say.
#pragma once

#include <cstdint>

namespace agentkit {

/// A set of tool traits, combined with `|`: `agentkit::read_only | agentkit::parallel_safe`.
struct traits {
    /// One bit per trait (read_only 1, destructive 2, idempotent 4, open_world 8, parallel_safe 16,
    /// non_destructive 32, closed_world 64, long_running 128).
    std::uint8_t bits = 0;

    /// True when every trait of `t` is in this set (false for an empty `t`).
    [[nodiscard]] constexpr bool has(traits t) const noexcept { return (bits & t.bits) == t.bits && t.bits != 0; }
    /// Declared read-only.
    [[nodiscard]] constexpr bool is_read_only() const noexcept { return (bits & 1U) != 0; }
    /// Declared destructive and not read-only.
    [[nodiscard]] constexpr bool is_destructive() const noexcept { return (bits & 2U) != 0 && !is_read_only(); }
    /// Read-only tools are idempotent by nature.
    [[nodiscard]] constexpr bool is_idempotent() const noexcept { return (bits & 4U) != 0 || is_read_only(); }
    /// Declared to reach an open world (the web, other systems).
    [[nodiscard]] constexpr bool is_open_world() const noexcept { return (bits & 8U) != 0; }
    /// Declared safe to run in parallel with other calls.
    [[nodiscard]] constexpr bool is_parallel_safe() const noexcept { return (bits & 16U) != 0; }
    /// Declared not destructive (only additive changes); says nothing for read-only tools.
    [[nodiscard]] constexpr bool is_non_destructive() const noexcept { return (bits & 32U) != 0 && !is_destructive(); }
    /// Declared to reach nothing beyond the host (a closed world).
    [[nodiscard]] constexpr bool is_closed_world() const noexcept { return (bits & 64U) != 0 && !is_open_world(); }
    /// Declared to run long at times (an MCP server may answer its calls with a task).
    [[nodiscard]] constexpr bool is_long_running() const noexcept { return (bits & 128U) != 0; }

    friend constexpr traits operator|(traits a, traits b) noexcept {
        return traits{static_cast<std::uint8_t>(a.bits | b.bits)};
    }
    friend constexpr bool operator==(traits a, traits b) noexcept = default;
};

/// The tool only reads: it changes nothing in its environment.
inline constexpr traits read_only{1};
/// The tool may destroy or overwrite data (ignored together with read_only).
inline constexpr traits destructive{2};
/// Calling the tool twice with the same arguments has no further effect.
inline constexpr traits idempotent{4};
/// The tool reaches an open world (the web, other systems) beyond the host.
inline constexpr traits open_world{8};
/// The tool may run concurrently with other parallel-safe tools of the same turn.
inline constexpr traits parallel_safe{16};
/// The tool changes its environment only additively (it deletes and overwrites nothing).
inline constexpr traits non_destructive{32};
/// The tool reaches nothing beyond the host (its own data, a local store).
inline constexpr traits closed_world{64};
/// The tool may run long (a wait, a download, a recorded flow): an MCP server answers a call
/// that outlasts server_options::tasks.promote_after with a task when the client takes tasks
/// (mcp/server/tasks.hpp). Says nothing about effects.
inline constexpr traits long_running{128};
/// No traits.
inline constexpr traits no_traits{0};

}  // namespace agentkit
