// agentkit/core/sha1.hpp — SHA-1 (FIPS 180-4), just enough for the WebSocket opening handshake (RFC 6455 §4.2.2: Sec-WebSocket-Accept is
// base64(SHA-1(key + GUID))). SHA-1 is used here only as the protocol demands, never for
// security decisions.
#pragma once

#include <agentkit/core/base64.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace agentkit {

/// Incremental SHA-1 (only where a protocol demands it: the WebSocket handshake).
class sha1 {
public:
    /// The 20-byte digest.
    using digest_type = std::array<std::uint8_t, 20>;

    /// Add `n` bytes at `data`.
    void update(const void* data, std::size_t n) noexcept {
        const auto* p = static_cast<const std::uint8_t*>(data);
        total_bytes_ += n;
        while (n > 0) {
            const std::size_t take = (n < 64 - fill_) ? n : 64 - fill_;
            std::memcpy(block_.data() + fill_, p, take);
            fill_ += take;
            p += take;
            n -= take;
            if (fill_ == 64) {
                compress();
                fill_ = 0;
            }
        }
    }
    /// Add the bytes of `s`.
    void update(std::string_view s) noexcept { update(s.data(), s.size()); }

    /// Finish and return the digest; the object must not be used afterwards.
    [[nodiscard]] digest_type finish() noexcept {
        const std::uint64_t bits = total_bytes_ * 8U;
        block_[fill_++] = 0x80;
        if (fill_ > 56) {
            while (fill_ < 64) block_[fill_++] = 0;
            compress();
            fill_ = 0;
        }
        while (fill_ < 56) block_[fill_++] = 0;
        for (int i = 7; i >= 0; --i) block_[fill_++] = static_cast<std::uint8_t>(bits >> (8 * i));
        compress();
        digest_type out{};
        for (std::size_t i = 0; i < 5; ++i)
            for (std::size_t b = 0; b < 4; ++b)
                out[i * 4 + b] = static_cast<std::uint8_t>(h_[i] >> (24 - 8 * b));
        return out;
    }

private:
    static constexpr std::uint32_t rol(std::uint32_t x, int n) noexcept {
        return static_cast<std::uint32_t>((x << n) | (x >> (32 - n)));
    }

    void compress() noexcept {
        std::array<std::uint32_t, 80> w{};
        for (std::size_t i = 0; i < 16; ++i)
            w[i] = (std::uint32_t{block_[i * 4]} << 24) | (std::uint32_t{block_[i * 4 + 1]} << 16) |
                   (std::uint32_t{block_[i * 4 + 2]} << 8) | std::uint32_t{block_[i * 4 + 3]};
        for (std::size_t i = 16; i < 80; ++i) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
        std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
        for (std::size_t i = 0; i < 80; ++i) {
            std::uint32_t f = 0, k = 0;
            if (i < 20) {
                f = (b & c) | (~b & d);
                k = 0x5A827999U;
            } else if (i < 40) {
                f = b ^ c ^ d;
                k = 0x6ED9EBA1U;
            } else if (i < 60) {
                f = (b & c) | (b & d) | (c & d);
                k = 0x8F1BBCDCU;
            } else {
                f = b ^ c ^ d;
                k = 0xCA62C1D6U;
            }
            const std::uint32_t t = rol(a, 5) + f + e + k + w[i];
            e = d;
            d = c;
            c = rol(b, 30);
            b = a;
            a = t;
        }
        h_[0] += a;
        h_[1] += b;
        h_[2] += c;
        h_[3] += d;
        h_[4] += e;
    }

    std::array<std::uint32_t, 5> h_{0x67452301U, 0xEFCDAB89U, 0x98BADCFEU, 0x10325476U, 0xC3D2E1F0U};
    std::array<std::uint8_t, 64> block_{};
    std::size_t fill_ = 0;
    std::uint64_t total_bytes_ = 0;
};

/// SHA-1 of a byte string.
[[nodiscard]] inline sha1::digest_type sha1_digest(std::string_view s) noexcept {
    sha1 h;
    h.update(s);
    return h.finish();
}

/// Lower-case hex of bytes (tests and diagnostics).
[[nodiscard]] inline std::string to_hex(const std::uint8_t* p, std::size_t n) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    s.reserve(n * 2);
    for (std::size_t i = 0; i < n; ++i) {
        s += digits[p[i] >> 4];
        s += digits[p[i] & 0xF];
    }
    return s;
}

/// RFC 6455 §1.3: the Sec-WebSocket-Accept value for a Sec-WebSocket-Key.
[[nodiscard]] inline std::string websocket_accept(std::string_view key) {
    sha1 h;
    h.update(key);
    h.update(std::string_view("258EAFA5-E914-47DA-95CA-C5AB0DC85B11"));
    const auto d = h.finish();
    return base64_encode(d.data(), d.size());
}

}  // namespace agentkit
