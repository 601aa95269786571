// agentkit/core/base64.hpp — standard base64 with padding (RFC 4648 §4), both ways.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentkit {

/// Encode bytes as base64 with padding.
[[nodiscard]] inline std::string base64_encode(const void* data, std::size_t n) {
    static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const auto* p = static_cast<const std::uint8_t*>(data);
    std::string out;
    out.reserve((n + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        const std::uint32_t v = (std::uint32_t{p[i]} << 16) | (std::uint32_t{p[i + 1]} << 8) | p[i + 2];
        out += alphabet[(v >> 18) & 63];
        out += alphabet[(v >> 12) & 63];
        out += alphabet[(v >> 6) & 63];
        out += alphabet[v & 63];
    }
    if (const std::size_t rest = n - i; rest > 0) {
        std::uint32_t v = std::uint32_t{p[i]} << 16;
        if (rest == 2) v |= std::uint32_t{p[i + 1]} << 8;
        out += alphabet[(v >> 18) & 63];
        out += alphabet[(v >> 12) & 63];
        out += rest == 2 ? alphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}
/// Encode the bytes of `s` as base64 (standard alphabet, with padding).
[[nodiscard]] inline std::string base64_encode(std::string_view s) { return base64_encode(s.data(), s.size()); }

/// The number of bytes base64 text decodes to (padding optional, line breaks ignored), without
/// decoding it.
[[nodiscard]] inline std::size_t base64_decoded_size(std::string_view in) noexcept {
    std::size_t symbols = 0;
    for (char c : in)
        if (c != '=' && c != '\n' && c != '\r') ++symbols;
    return symbols * 6 / 8;
}

/// Decode base64 (padding optional, line breaks ignored); nothing when a character is not base64.
[[nodiscard]] inline std::optional<std::string> base64_decode(std::string_view in) {
    auto val = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    std::string out;
    out.reserve(in.size() / 4 * 3);
    std::uint32_t acc = 0;
    int bits = 0;
    for (char c : in) {
        if (c == '=' || c == '\n' || c == '\r') continue;
        const int v = val(c);
        if (v < 0) return std::nullopt;
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xFFU);
        }
    }
    return out;
}

}  // namespace agentkit
