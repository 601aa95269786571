// agentkit/browser/detail/image_header.hpp — the pixel size of a PNG, JPEG or WebP from its first
// bytes (the PNG IHDR chunk; the JPEG start-of-frame segment; the WebP VP8, VP8L or VP8X chunk),
// without decoding the image.
#pragma once

#include <agentkit/core/base64.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace agentkit::browser::detail {

/// The size of an image in pixels.
struct image_size {
    std::uint32_t width = 0;   ///< pixels
    std::uint32_t height = 0;  ///< pixels
};

/// The size in pixels of a base64 PNG, JPEG or WebP (0x0 when it is none of them or is cut
/// short). A JPEG's start-of-frame segment may come after its metadata: up to the first 64 KiB
/// are read.
inline image_size image_size_of(std::string_view b64) {
    auto head = base64_decode(b64.substr(0, std::min<std::size_t>(b64.size(), 87384) / 4 * 4));
    if (!head) return {};
    const std::string& s = *head;
    auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])); };
    if (s.size() >= 24 && s.compare(1, 3, "PNG") == 0)  // signature, IHDR length and type, then the width
        return {byte(16) << 24U | byte(17) << 16U | byte(18) << 8U | byte(19),
                byte(20) << 24U | byte(21) << 16U | byte(22) << 8U | byte(23)};
    if (s.size() >= 30 && s.compare(0, 4, "RIFF") == 0 && s.compare(8, 4, "WEBP") == 0) {  // chunk data from byte 20
        if (s.compare(12, 4, "VP8 ") == 0)  // lossy: frame tag, start code, 14-bit width and height
            return {(byte(26) | byte(27) << 8U) & 0x3FFFU, (byte(28) | byte(29) << 8U) & 0x3FFFU};
        if (s.compare(12, 4, "VP8L") == 0) {  // lossless: signature, then width-1 and height-1 in 14 bits each
            const std::uint32_t b = byte(21) | byte(22) << 8U | byte(23) << 16U | byte(24) << 24U;
            return {(b & 0x3FFFU) + 1, ((b >> 14U) & 0x3FFFU) + 1};
        }
        if (s.compare(12, 4, "VP8X") == 0)  // extended: the canvas, width-1 and height-1 in 24 bits each
            return {(byte(24) | byte(25) << 8U | byte(26) << 16U) + 1, (byte(27) | byte(28) << 8U | byte(29) << 16U) + 1};
        return {};
    }
    if (s.size() < 4 || byte(0) != 0xFF || byte(1) != 0xD8) return {};
    for (std::size_t i = 2; i + 9 < s.size();) {  // segments: FF, marker, 2-byte length
        if (byte(i) != 0xFF) return {};
        const std::uint32_t marker = byte(i + 1);
        if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC)
            return {byte(i + 7) << 8U | byte(i + 8), byte(i + 5) << 8U | byte(i + 6)};  // SOFn: length, precision, height, width
        i += 2 + (byte(i + 2) << 8U | byte(i + 3));
    }
    return {};
}

}  // namespace agentkit::browser::detail
