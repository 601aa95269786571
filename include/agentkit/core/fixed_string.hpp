// agentkit/core/fixed_string.hpp — a string usable as a template argument.
#pragma once

#include <cstddef>
#include <string_view>

namespace agentkit {

/// A compile-time string literal usable as a non-type template parameter:
/// `agentkit::tool<"get_weather">(...)`.
template <std::size_t N>
struct fixed_string {
    char data[N]{};  ///< the characters and the terminating NUL

    /// From a string literal (implicit, so a literal can be a template argument).
    constexpr fixed_string(const char (&s)[N]) noexcept {  // NOLINT(google-explicit-constructor)
        for (std::size_t i = 0; i < N; ++i) data[i] = s[i];
    }
    /// The length, without the terminating NUL.
    [[nodiscard]] constexpr std::size_t size() const noexcept { return N - 1; }
    /// The characters as a string_view, without the NUL.
    [[nodiscard]] constexpr std::string_view view() const noexcept { return {data, N - 1}; }
    /// Converts to view().
    constexpr operator std::string_view() const noexcept { return view(); }  // NOLINT
};

template <std::size_t N>
fixed_string(const char (&)[N]) -> fixed_string<N>;

/// True when `name` is a valid tool name: 1–64 characters from [A-Za-z0-9_.-].
[[nodiscard]] constexpr bool is_valid_tool_name(std::string_view name) noexcept {
    if (name.empty() || name.size() > 64) return false;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '.' || c == '-';
        if (!ok) return false;
    }
    return true;
}

}  // namespace agentkit
