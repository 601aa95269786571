// agentkit/browser/detail/image_header.hpp — the pixel size of a PNG or JPEG from its first
// bytes (the PNG IHDR chunk; the JPEG start-of-frame segment), without decoding the image.
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

/// The size in pixels of a base64 PNG or JPEG (0x0 when it is neither or is cut short). A JPEG's
/// start-of-frame segment may come after its metadata: up to the first 64 KiB are read.
inline image_size image_size_of(std::string_view b64) {
    auto head = base64_decode(b64.substr(0, std::min<std::size_t>(b64.size(), 87384) / 4 * 4));
    if (!head) return {};
    const std::string& s = *head;
    auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])); };
    if (s.size() >= 24 && s.compare(1, 3, "PNG") == 0)  // signature, IHDR length and type, then the width
        return {byte(16) << 24U | byte(17) << 16U | byte(18) << 8U | byte(19),
                byte(20) << 24U | byte(21) << 16U | byte(22) << 8U | byte(23)};
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
