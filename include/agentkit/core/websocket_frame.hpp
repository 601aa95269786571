// agentkit/core/websocket_frame.hpp — RFC 6455 §5 frame encoding and decoding, for both ends:
// the CDP client (cdp/websocket_transport.hpp) and the server side (net/websocket.hpp). Pure
// functions over byte strings, so they can be tested against hand-built frames.
#pragma once

#include <agentkit/core/result.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

/// The WebSocket frame codec (RFC 6455 §5), shared by the CDP client and the server side.
namespace agentkit::ws {

/// A frame's opcode (RFC 6455 §5.2).
enum class opcode : std::uint8_t {
    continuation = 0x0,  ///< the next fragment of a message
    text = 0x1,          ///< a text message (UTF-8)
    binary = 0x2,        ///< a binary message
    close = 0x8,         ///< the close handshake
    ping = 0x9,          ///< a ping (answered by a pong)
    pong = 0xA,          ///< a pong
};

/// True for close, ping and pong.
[[nodiscard]] constexpr bool is_control(opcode op) noexcept { return (static_cast<std::uint8_t>(op) & 0x8U) != 0; }

/// Close status codes we use (RFC 6455 §7.4.1).
namespace close_code {
inline constexpr std::uint16_t normal = 1000;          ///< normal closure
inline constexpr std::uint16_t going_away = 1001;      ///< the endpoint goes away
inline constexpr std::uint16_t protocol_error = 1002;  ///< a protocol violation
inline constexpr std::uint16_t policy = 1008;          ///< a policy violation
inline constexpr std::uint16_t too_big = 1009;         ///< a message too large
}  // namespace close_code

/// The 4-byte masking key of a client frame.
using mask_key = std::array<std::uint8_t, 4>;

/// XOR `data` in place with the 4-byte mask, starting at mask offset `offset`.
inline void apply_mask(char* data, std::size_t n, const mask_key& key, std::size_t offset = 0) noexcept {
    // Word-at-a-time for large payloads (screenshots are megabytes), bytes at the edges.
    std::size_t i = 0;
    while (i < n && ((offset + i) & 3U) != 0) {
        data[i] = static_cast<char>(static_cast<std::uint8_t>(data[i]) ^ key[(offset + i) & 3U]);
        ++i;
    }
    if (n - i >= 8) {
        std::uint64_t k8 = 0;
        std::uint8_t pattern[8];
        for (std::size_t j = 0; j < 8; ++j) pattern[j] = key[j & 3U];
        std::memcpy(&k8, pattern, 8);
        for (; i + 8 <= n; i += 8) {
            std::uint64_t w = 0;
            std::memcpy(&w, data + i, 8);
            w ^= k8;
            std::memcpy(data + i, &w, 8);
        }
    }
    for (; i < n; ++i)
        data[i] = static_cast<char>(static_cast<std::uint8_t>(data[i]) ^ key[(offset + i) & 3U]);
}

/// Encode one frame. Clients must pass a mask; servers must not.
[[nodiscard]] inline std::string encode_frame(opcode op, std::string_view payload, bool fin = true,
                                              std::optional<mask_key> mask = std::nullopt) {
    std::string out;
    out.reserve(payload.size() + 14);
    out += static_cast<char>((fin ? 0x80U : 0x00U) | static_cast<std::uint8_t>(op));
    const std::uint8_t mask_bit = mask ? 0x80U : 0x00U;
    const std::uint64_t len = payload.size();
    if (len <= 125) {
        out += static_cast<char>(mask_bit | static_cast<std::uint8_t>(len));
    } else if (len <= 0xFFFF) {
        out += static_cast<char>(mask_bit | 126U);
        out += static_cast<char>((len >> 8) & 0xFFU);
        out += static_cast<char>(len & 0xFFU);
    } else {
        out += static_cast<char>(mask_bit | 127U);
        for (int i = 7; i >= 0; --i) out += static_cast<char>((len >> (8 * i)) & 0xFFU);
    }
    if (mask) {
        for (auto b : *mask) out += static_cast<char>(b);
        const std::size_t at = out.size();
        out.append(payload);
        apply_mask(out.data() + at, payload.size(), *mask);
    } else {
        out.append(payload);
    }
    return out;
}

/// A decoded frame header; the payload is bytes [payload_offset, payload_offset+payload_size).
struct frame_header {
    bool fin = true;               ///< the last fragment of its message
    opcode op = opcode::text;      ///< the opcode
    bool masked = false;           ///< the payload is masked (client frames)
    mask_key mask{};               ///< the masking key, when masked
    std::size_t payload_offset = 0;  ///< where the payload starts in the buffer
    std::uint64_t payload_size = 0;  ///< the payload's length

    /// Header plus payload bytes.
    [[nodiscard]] std::size_t frame_size() const noexcept {
        return payload_offset + static_cast<std::size_t>(payload_size);
    }
};

/// Parse a frame header at the start of `buf`. Returns nullopt when more bytes are needed
/// (the header itself is incomplete), an error for protocol violations, including a
/// payload larger than `max_payload`. The payload may still be incomplete: check
/// `buf.size() >= frame_size()`.
[[nodiscard]] inline result<std::optional<frame_header>> decode_header(std::string_view buf,
                                                                       std::uint64_t max_payload) {
    if (buf.size() < 2) return std::optional<frame_header>{};
    const auto b0 = static_cast<std::uint8_t>(buf[0]);
    const auto b1 = static_cast<std::uint8_t>(buf[1]);
    frame_header h;
    h.fin = (b0 & 0x80U) != 0;
    if ((b0 & 0x70U) != 0)
        return fail(errc::protocol_error, "WebSocket frame has reserved bits set (no extension was negotiated)");
    const std::uint8_t op = b0 & 0x0FU;
    if (op != 0x0 && op != 0x1 && op != 0x2 && op != 0x8 && op != 0x9 && op != 0xA)
        return fail(errc::protocol_error, "WebSocket frame has unknown opcode " + std::to_string(op));
    h.op = static_cast<opcode>(op);
    h.masked = (b1 & 0x80U) != 0;
    std::uint64_t len = b1 & 0x7FU;
    std::size_t pos = 2;
    if (len == 126) {
        if (buf.size() < 4) return std::optional<frame_header>{};
        len = (std::uint64_t{static_cast<std::uint8_t>(buf[2])} << 8) | static_cast<std::uint8_t>(buf[3]);
        pos = 4;
    } else if (len == 127) {
        if (buf.size() < 10) return std::optional<frame_header>{};
        len = 0;
        for (std::size_t i = 2; i < 10; ++i) len = (len << 8) | static_cast<std::uint8_t>(buf[i]);
        if ((len >> 63) != 0) return fail(errc::protocol_error, "WebSocket frame length has its top bit set");
        pos = 10;
    }
    if (is_control(h.op)) {
        if (!h.fin) return fail(errc::protocol_error, "fragmented WebSocket control frame");
        if (len > 125) return fail(errc::protocol_error, "WebSocket control frame payload longer than 125 bytes");
    }
    if (len > max_payload)
        return fail(errc::protocol_error,
                    "WebSocket frame of " + std::to_string(len) + " bytes exceeds the limit of " +
                        std::to_string(max_payload) + " bytes",
                    "Raise websocket_options::max_message_size if such large messages are expected.",
                    json{{"size", len}, {"limit", max_payload}});
    if (h.masked) {
        if (buf.size() < pos + 4) return std::optional<frame_header>{};
        for (std::size_t i = 0; i < 4; ++i) h.mask[i] = static_cast<std::uint8_t>(buf[pos + i]);
        pos += 4;
    }
    h.payload_offset = pos;
    h.payload_size = len;
    return std::optional<frame_header>{h};
}

/// Close frame payload: 2-byte code (big endian) + UTF-8 reason.
[[nodiscard]] inline std::string close_payload(std::uint16_t code, std::string_view reason = {}) {
    std::string p;
    p += static_cast<char>(code >> 8);
    p += static_cast<char>(code & 0xFFU);
    p.append(reason.substr(0, 123));
    return p;
}

/// Parse a close payload into (code, reason); an empty payload is 1005 (no status).
[[nodiscard]] inline std::pair<std::uint16_t, std::string> parse_close_payload(std::string_view p) {
    if (p.size() < 2) return {std::uint16_t{1005}, std::string{}};
    const auto code = static_cast<std::uint16_t>((static_cast<std::uint8_t>(p[0]) << 8) | static_cast<std::uint8_t>(p[1]));
    return {code, std::string(p.substr(2))};
}

}  // namespace agentkit::ws
