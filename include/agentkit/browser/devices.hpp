// agentkit/browser/devices.hpp — devices a browser can emulate by name (--device "iPhone 15";
// --mobile is "Pixel 10"): viewport, device scale, mobile layout, touch and user agent, as
// Playwright names and measures them (the portrait form of each; a landscape one turns the
// viewport with browser_resize).
//
//   if (auto d = agentkit::browser::find_device("Pixel 7")) options.viewport = d->viewport();
#pragma once

#include <agentkit/browser/options.hpp>

#include <array>
#include <string>
#include <string_view>

namespace agentkit::browser {

/// One emulated device.
struct device_descriptor {
    std::string_view name;        ///< as --device names it
    int width;                    ///< the viewport, CSS pixels
    int height;                   ///< the viewport, CSS pixels
    double device_scale_factor;   ///< device pixels per CSS pixel
    bool mobile;                  ///< mobile layout (the meta viewport honoured)
    bool touch;                   ///< touch events
    std::string_view user_agent;  ///< its browser's user agent

    /// The viewport options that emulate it.
    [[nodiscard]] viewport_size viewport() const {
        viewport_size v;
        v.width = width;
        v.height = height;
        v.device_scale_factor = device_scale_factor;
        v.mobile = mobile;
        v.touch = touch;
        v.user_agent = std::string(user_agent);
        return v;
    }
};

/// The devices known by name.
inline constexpr std::array<device_descriptor, 61> devices{{
    {"Galaxy Z Fold 6", 928, 1004, 2, true, true, "Mozilla/5.0 (Linux; Android 10; SM-F956U) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Galaxy Z Fold 6 Cover", 484, 1112, 2, true, true, "Mozilla/5.0 (Linux; Android 10; SM-F956U) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Galaxy Z Fold 7", 984, 1016, 2, true, true, "Mozilla/5.0 (Linux; Android 10; SM-F966U) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Galaxy Z Fold 7 Cover", 360, 764, 3, true, true, "Mozilla/5.0 (Linux; Android 10; SM-F966U) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Galaxy Z Flip 6", 360, 804, 3, true, true, "Mozilla/5.0 (Linux; Android 10; SM-F741U) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Galaxy Z Flip 6 Cover", 360, 298, 2, true, true, "Mozilla/5.0 (Linux; Android 10; SM-F741U) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Galaxy Z Flip 7", 360, 764, 3, true, true, "Mozilla/5.0 (Linux; Android 10; SM-F761U) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Galaxy Z Flip 7 Cover", 474, 448, 2, true, true, "Mozilla/5.0 (Linux; Android 10; SM-F761U) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"iPhone 11", 414, 715, 2, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 12_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 11 Pro", 375, 635, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 12_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 11 Pro Max", 414, 715, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 12_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 12", 390, 664, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 14_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 12 Pro", 390, 664, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 14_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 12 Pro Max", 428, 746, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 14_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 12 Mini", 375, 629, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 14_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 13", 390, 664, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 13 Pro", 390, 664, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 13 Pro Max", 428, 746, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 13 Mini", 375, 629, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 14", 390, 664, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 14 Plus", 428, 746, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 14 Pro", 393, 660, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 14 Pro Max", 430, 740, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 15", 393, 659, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 15 Plus", 430, 739, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 15 Pro", 393, 659, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 15 Pro Max", 430, 739, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 16", 393, 659, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 16 Plus", 430, 739, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 16 Pro", 402, 681, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 16 Pro Max", 440, 763, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 16e", 390, 651, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 17", 402, 681, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone Air", 420, 719, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 17 Pro", 402, 681, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 17 Pro Max", 440, 763, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"iPhone 17e", 390, 651, 3, true, true, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"},
    {"Pixel 4a (5G)", 412, 765, 2.63, true, true, "Mozilla/5.0 (Linux; Android 11; Pixel 4a (5G)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 5", 393, 727, 2.75, true, true, "Mozilla/5.0 (Linux; Android 11; Pixel 5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 6", 412, 839, 2.625, true, true, "Mozilla/5.0 (Linux; Android 12; Pixel 6) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 6 Pro", 412, 816, 3.5, true, true, "Mozilla/5.0 (Linux; Android 12; Pixel 6 Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 6a", 412, 839, 2.625, true, true, "Mozilla/5.0 (Linux; Android 12; Pixel 6a) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 7", 412, 839, 2.625, true, true, "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 7 Pro", 412, 816, 3.5, true, true, "Mozilla/5.0 (Linux; Android 13; Pixel 7 Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 7a", 412, 839, 2.625, true, true, "Mozilla/5.0 (Linux; Android 13; Pixel 7a) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 8", 412, 839, 2.625, true, true, "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 8 Pro", 448, 921, 3, true, true, "Mozilla/5.0 (Linux; Android 14; Pixel 8 Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 8a", 412, 839, 2.625, true, true, "Mozilla/5.0 (Linux; Android 14; Pixel 8a) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 9", 360, 732, 3, true, true, "Mozilla/5.0 (Linux; Android 14; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 9 Pro", 427, 876, 3, true, true, "Mozilla/5.0 (Linux; Android 14; Pixel 9 Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 9 Pro XL", 448, 921, 3, true, true, "Mozilla/5.0 (Linux; Android 14; Pixel 9 Pro XL) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 10", 360, 732, 3, true, true, "Mozilla/5.0 (Linux; Android 16; Pixel 10) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 10 Pro", 427, 876, 3, true, true, "Mozilla/5.0 (Linux; Android 16; Pixel 10 Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Pixel 10 Pro XL", 448, 921, 3, true, true, "Mozilla/5.0 (Linux; Android 16; Pixel 10 Pro XL) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Mobile Safari/537.36"},
    {"Desktop Chrome HiDPI", 1280, 720, 2, false, false, "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Safari/537.36"},
    {"Desktop Edge HiDPI", 1280, 720, 2, false, false, "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Safari/537.36 Edg/155.0.8059.12"},
    {"Desktop Firefox HiDPI", 1280, 720, 2, false, false, "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:156.0) Gecko/20100101 Firefox/156.0"},
    {"Desktop Safari", 1280, 720, 2, false, false, "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Safari/605.1.15"},
    {"Desktop Chrome", 1280, 720, 1, false, false, "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Safari/537.36"},
    {"Desktop Edge", 1280, 720, 1, false, false, "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.8059.12 Safari/537.36 Edg/155.0.8059.12"},
    {"Desktop Firefox", 1280, 720, 1, false, false, "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:156.0) Gecko/20100101 Firefox/156.0"},
}};

/// The device called `name` (case as written; nullptr: none).
[[nodiscard]] inline const device_descriptor* find_device(std::string_view name) {
    for (const auto& d : devices)
        if (d.name == name) return &d;
    return nullptr;
}

/// The device --mobile emulates.
inline constexpr std::string_view default_mobile_device = "Pixel 10";

}  // namespace agentkit::browser
