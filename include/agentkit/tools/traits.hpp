// agentkit/tools/traits.hpp — what a tool promises about its effects.
#pragma once

#include <cstdint>

namespace agentkit {

/// A set of tool traits, combined with `|`: `agentkit::read_only | agentkit::parallel_safe`.
struct traits {
    std::uint8_t bits = 0;

    [[nodiscard]] constexpr bool has(traits t) const noexcept { return (bits & t.bits) == t.bits && t.bits != 0; }
    [[nodiscard]] constexpr bool is_read_only() const noexcept { return (bits & 1U) != 0; }
    [[nodiscard]] constexpr bool is_destructive() const noexcept { return (bits & 2U) != 0 && !is_read_only(); }
    /// Read-only tools are idempotent by nature.
    [[nodiscard]] constexpr bool is_idempotent() const noexcept { return (bits & 4U) != 0 || is_read_only(); }
    [[nodiscard]] constexpr bool is_open_world() const noexcept { return (bits & 8U) != 0; }
    [[nodiscard]] constexpr bool is_parallel_safe() const noexcept { return (bits & 16U) != 0; }

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
/// No traits.
inline constexpr traits no_traits{0};

}  // namespace agentkit
