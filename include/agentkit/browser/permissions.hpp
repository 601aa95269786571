// agentkit/browser/permissions.hpp — browser permissions by the names pages and Playwright use
// ("clipboard-read", "geolocation", ...) and the Chromium permission types (CDP
// Browser.PermissionType) they stand for: what browser_options::permissions grants to every page
// of the browser's context (agentkit-browser-mcp --grant-permissions).
//
//   agentkit::browser::permission_type("clipboard-read");  // "clipboardReadWrite"
//   agentkit::browser::permission_type("telepathy");       // nullopt
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/result.hpp>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// The permission names browser_options::permissions takes, each with its CDP permission type.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kPermissionNames{{
    {"geolocation", "geolocation"},
    {"midi", "midi"},
    {"midi-sysex", "midiSysex"},
    {"notifications", "notifications"},
    {"camera", "videoCapture"},
    {"microphone", "audioCapture"},
    {"background-sync", "backgroundSync"},
    {"ambient-light-sensor", "sensors"},
    {"accelerometer", "sensors"},
    {"gyroscope", "sensors"},
    {"magnetometer", "sensors"},
    {"clipboard-read", "clipboardReadWrite"},
    {"clipboard-write", "clipboardSanitizedWrite"},
    {"payment-handler", "paymentHandler"},
    {"storage-access", "storageAccess"},
    {"local-fonts", "localFonts"},
    {"idle-detection", "idleDetection"},
}};

/// The CDP permission type of a permission name; nullopt for a name not in kPermissionNames.
[[nodiscard]] constexpr std::optional<std::string_view> permission_type(std::string_view name) noexcept {
    for (const auto& [n, t] : kPermissionNames)
        if (n == name) return t;
    return std::nullopt;
}

/// The CDP permission types of `names` (each once, in order), or args_invalid naming the first
/// unknown name and the known ones.
[[nodiscard]] inline result<std::vector<std::string>> permission_types(const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (const auto& n : names) {
        auto t = permission_type(n);
        if (!t) {
            std::string known;
            for (const auto& [k, v] : kPermissionNames) known += (known.empty() ? "" : ", ") + std::string(k);
            return fail(errc::args_invalid, "unknown permission \"" + n + "\"", "Known permissions: " + known + ".");
        }
        bool seen = false;
        for (const auto& o : out) seen = seen || o == *t;
        if (!seen) out.emplace_back(*t);
    }
    return out;
}

}  // namespace agentkit::browser
