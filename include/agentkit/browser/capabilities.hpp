// agentkit/browser/capabilities.hpp — the optional capabilities a server turns on with `--caps`
// (Playwright MCP's grouping): which tools each offers, and the one rule that every exposure
// (all, core, menu, router) leaves them out unless turned on, a call to one saying how.
//
//   agentkit::browser::capability_of("browser_cookie_list")->name;   // "storage"
//   agentkit::browser::capability_tools_off({"vision"});              // testing, storage, network tools
#pragma once

#include <algorithm>
#include <array>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit::browser {

/// The vision capability's tools (coordinate actions), as Playwright MCP names them.
inline constexpr std::array<std::string_view, 6> vision_tools{"browser_mouse_click_xy", "browser_mouse_move_xy", "browser_mouse_drag_xy",
                                                              "browser_mouse_down",     "browser_mouse_up",      "browser_mouse_wheel"};

/// The testing capability's tools: assertions and locators for test code.
inline constexpr std::array<std::string_view, 5> testing_tools{"browser_verify_element_visible", "browser_verify_text_visible",
                                                               "browser_verify_list_visible", "browser_verify_value",
                                                               "browser_generate_locator"};

/// The storage capability's tools: cookies, web storage, storage state.
inline constexpr std::array<std::string_view, 17> storage_tools{
    "browser_cookie_list",         "browser_cookie_get",          "browser_cookie_set",            "browser_cookie_delete",
    "browser_cookie_clear",        "browser_localstorage_list",   "browser_localstorage_get",      "browser_localstorage_set",
    "browser_localstorage_delete", "browser_localstorage_clear",  "browser_sessionstorage_list",   "browser_sessionstorage_get",
    "browser_sessionstorage_set",  "browser_sessionstorage_delete", "browser_sessionstorage_clear", "browser_storage_state",
    "browser_set_storage_state"};

/// The network capability's tools: routes and the network state.
inline constexpr std::array<std::string_view, 4> network_tools{"browser_route", "browser_route_list", "browser_unroute",
                                                               "browser_network_state_set"};

/// The pdf capability's tool: the page saved as a PDF.
inline constexpr std::array<std::string_view, 1> pdf_tools{"browser_pdf_save"};

/// The devtools capability's tools: what a page is told about its user, changed mid-session.
inline constexpr std::array<std::string_view, 1> devtools_tools{"browser_emulate_media"};

/// The tracing capability's tools: a trace in Playwright's format (browser/trace_file.hpp).
inline constexpr std::array<std::string_view, 2> tracing_tools{"browser_start_tracing", "browser_stop_tracing"};

/// The config capability's tool: the server's resolved configuration.
inline constexpr std::array<std::string_view, 1> config_tools{"browser_get_config"};

/// A capability a server turns on with `--caps` (Playwright MCP's grouping): the tools only it
/// offers, and the words a call to one of them answers with while it is off.
struct optional_capability {
    std::string_view name;                    ///< as --caps names it
    std::span<const std::string_view> tools;  ///< the tools it offers
    std::string_view what;                    ///< "coordinate (vision) tools"
    std::string_view instead;                 ///< what to do without it
    std::string_view mode = {};               ///< the menu mode of its tools ("": the capability's name)

    /// The menu mode that offers its tools (make_browser_menu).
    [[nodiscard]] constexpr std::string_view menu_mode() const noexcept { return mode.empty() ? name : mode; }
};

/// The optional capabilities: every exposure (all, core, menu, router) leaves their tools out
/// unless --caps turns them on, and a call to one says how to turn it on.
inline constexpr std::array<optional_capability, 8> optional_capabilities{{
    {"vision", vision_tools, "coordinate (vision) tools", "or act by ref (browser_click)"},
    {"testing", testing_tools, "assertion (testing) tools", "or read the page (browser_snapshot, browser_find)"},
    {"storage", storage_tools, "cookie and storage tools", "or read them with browser_evaluate"},
    {"network", network_tools, "route and network state tools", "or watch requests with browser_network_requests"},
    {"pdf", pdf_tools, "the PDF tool", "or take a full-page screenshot (browser_take_screenshot fullPage)"},
    {"config", config_tools, "the configuration tool", "or read agentkit-browser-mcp --help"},
    {"tracing", tracing_tools, "the tracing tools", "or record the screen (browser_recording_start)"},
    {"devtools", devtools_tools, "media emulation (devtools) tools", "or start the server with the configuration file's colorScheme and the like",
     "emulation"},
}};

/// Whether `name` is an optional capability (--caps takes it).
[[nodiscard]] inline bool is_optional_capability(std::string_view name) {
    return std::any_of(optional_capabilities.begin(), optional_capabilities.end(), [&](const auto& c) { return c.name == name; });
}

/// The optional capability that offers `tool` (nullptr: always offered).
[[nodiscard]] inline const optional_capability* capability_of(std::string_view tool) {
    for (const auto& c : optional_capabilities)
        if (std::find(c.tools.begin(), c.tools.end(), tool) != c.tools.end()) return &c;
    return nullptr;
}

/// Why a tool of `c` answers capability.unsupported while it is off.
[[nodiscard]] inline std::string capability_off_reason(const optional_capability& c) {
    return std::string(c.what) + " are offered with --caps " + std::string(c.name) + " only";
}

/// What to do about it.
[[nodiscard]] inline std::string capability_off_alternative(const optional_capability& c) {
    return "restart agentkit-browser-mcp with --caps " + std::string(c.name) + ", " + std::string(c.instead);
}

/// The tools of the capabilities `on` leaves off.
[[nodiscard]] inline std::vector<std::string> capability_tools_off(const std::set<std::string>& on) {
    std::vector<std::string> off;
    for (const auto& c : optional_capabilities)
        if (!on.count(std::string(c.name))) off.insert(off.end(), c.tools.begin(), c.tools.end());
    return off;
}

/// One line saying which capabilities are off and how to turn them on (empty: none is off).
[[nodiscard]] inline std::string capability_off_hint(const std::set<std::string>& on) {
    std::string hint;
    for (const auto& c : optional_capabilities)
        if (!on.count(std::string(c.name))) hint += (hint.empty() ? "" : " ") + capability_off_reason(c) + ": " + capability_off_alternative(c) + ".";
    return hint;
}

}  // namespace agentkit::browser
