// agentkit/browser/menu.hpp — how the browser tools are exposed to a model: the menu of three
// modes (page work in `browser`, finding and reading sources in `research`, internals in
// `devtools`), the fixed core set, and the router's
// pinned tools. agentkit-browser-mcp's --tools all|core|menu|router, agentkit-demo and hosts
// use the same definitions.
//
//   auto tools = agentkit::browser::browser_tools(state);
//   auto menu = agentkit::browser::make_browser_menu<decltype(tools)>();      // --tools menu
//   auto scope = agentkit::browser::core_scope(tools);                         // --tools core
#pragma once

#include <agentkit/visibility/router.hpp>
#include <agentkit/browser/tools/vision.hpp>
#include <agentkit/visibility/frozen_scope.hpp>
#include <agentkit/visibility/menu.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// `--tools core`: the most used tools (a page's whole life: open, read, act, wait, look, tabs;
/// browser_interact for several steps in one call, browser_artifact to read what is kept out of
/// band). Everything else is deferred.
inline constexpr std::array<std::string_view, 13> core_tools{
    "browser_navigate",    "browser_navigate_back", "browser_snapshot",     "browser_click",
    "browser_type",        "browser_fill_form",     "browser_select_option", "browser_press_key",
    "browser_wait_for",    "browser_take_screenshot", "browser_tabs",       "browser_interact",
    "browser_artifact"};

/// Playwright MCP's tool names (the reference of a deferred tool that has a counterpart there).
inline constexpr std::array<std::string_view, 20> playwright_tools{
    "browser_navigate",       "browser_navigate_back", "browser_snapshot",         "browser_click",
    "browser_type",           "browser_hover",         "browser_drag",             "browser_select_option",
    "browser_fill_form",      "browser_press_key",     "browser_file_upload",      "browser_handle_dialog",
    "browser_take_screenshot", "browser_evaluate",     "browser_wait_for",         "browser_console_messages",
    "browser_network_requests", "browser_tabs",        "browser_resize",           "browser_close"};

/// Why a coordinate (vision) tool answers capability.unsupported when `--caps vision` is off,
/// and what to do instead (every exposure: all, core, menu, router).
inline constexpr std::string_view vision_off_reason = "coordinate (vision) tools are offered with --caps vision only";
/// See vision_off_reason.
inline constexpr std::string_view vision_off_alternative =
    "restart agentkit-browser-mcp with --caps vision, or act by ref (browser_click)";

/// Tools the router always lists (--tools router): a page cannot be used without them.
inline const std::vector<std::string>& router_pinned_tools() {
    static const std::vector<std::string> pinned{"browser_navigate", "browser_snapshot"};
    return pinned;
}

/// The menu over the browser toolbox: page work in `browser`, web search and reading what it
/// found in `research` (web_search, browser_batch, browser_extract, browser_navigate,
/// browser_artifact), the rest in `devtools`.
template <class Box>
auto make_browser_menu(menu_options options = {}) {
    return menu_for<Box>(
        mode<"browser">(tool_ref<"browser_navigate">, tool_ref<"browser_navigate_back">, tool_ref<"browser_snapshot">,
                        tool_ref<"browser_click">, tool_ref<"browser_type">, tool_ref<"browser_fill_form">,
                        tool_ref<"browser_select_option">, tool_ref<"browser_press_key">, tool_ref<"browser_hover">,
                        tool_ref<"browser_wait_for">, tool_ref<"browser_interact">, tool_ref<"browser_extract">,
                        tool_ref<"browser_take_screenshot">, tool_ref<"browser_artifact">)
            .describe("A real browser: open pages, read them, fill forms, click")
            .when("Web browsing, forms, reading pages, UI checks"),
        mode<"research">(tool_ref<"web_search">, tool_ref<"browser_batch">, tool_ref<"browser_extract">,
                         tool_ref<"browser_navigate">, tool_ref<"browser_artifact">)
            .describe("Search the web and read what it finds: search, batch read, extract")
            .when("Looking things up, finding sources, comparing several pages"),
        mode<"devtools">(tool_ref<"browser_drag">, tool_ref<"browser_file_upload">, tool_ref<"browser_handle_dialog">,
                         tool_ref<"browser_evaluate">, tool_ref<"browser_console_messages">,
                         tool_ref<"browser_network_requests">, tool_ref<"browser_tabs">, tool_ref<"browser_resize">,
                         tool_ref<"browser_close">, tool_ref<"browser_metrics">, tool_ref<"browser_batch">,
                         tool_ref<"browser_recording_start">, tool_ref<"browser_recording_stop">)
            .describe("Browser internals: tabs, console, network, uploads, dialogs, recordings")
            .when("Debugging a page, tabs, uploads, recordings"),
        mode<"vision">(tool_ref<"browser_mouse_click_xy">, tool_ref<"browser_mouse_move_xy">,
                       tool_ref<"browser_mouse_drag_xy">, tool_ref<"browser_mouse_down">, tool_ref<"browser_mouse_up">,
                       tool_ref<"browser_mouse_wheel">)
            .describe("Mouse at screenshot coordinates: click, move, drag, buttons, wheel")
            .when("Canvas, icons or widgets the snapshot gives no ref for"),
        std::move(options));
}

/// `--tools core`: the core tools exposed, every other tool of the box deferred.
template <class Box>
frozen_scope core_scope(const Box& box, bool vision = false) {
    std::vector<std::string> exposed(core_tools.begin(), core_tools.end());
    if (vision) exposed.insert(exposed.end(), vision_tools.begin(), vision_tools.end());
    std::vector<deferred_tool> deferred;
    for (const auto& t : box.infos()) {
        if (std::find(exposed.begin(), exposed.end(), t.name) != exposed.end()) continue;
        deferred_tool d;
        d.name = t.name;
        d.reason = "this server was started with --tools core, which offers the most used browser tools only";
        d.alternative = "restart agentkit-browser-mcp with --tools all, --tools menu or --tools router to reach " + t.name;
        if (std::find(playwright_tools.begin(), playwright_tools.end(), t.name) != playwright_tools.end() ||
            std::find(vision_tools.begin(), vision_tools.end(), t.name) != vision_tools.end())
            d.reference = "playwright-mcp:" + t.name;
        d.description = t.description;
        deferred.push_back(std::move(d));
    }
    frozen_scope_options o;
    o.scope = "browser-core";
    return frozen_scope(std::move(exposed), std::move(deferred), std::move(o));
}

/// `--tools all` without `--caps vision`: every tool but the coordinate (vision) tools, which
/// answer with capability.unsupported saying how to turn them on (as Playwright MCP, which
/// lists them only under --caps vision).
template <class Box>
frozen_scope all_but_vision_scope(const Box& box) {
    std::vector<std::string> exposed;
    std::vector<deferred_tool> deferred;
    for (const auto& t : box.infos()) {
        if (std::find(vision_tools.begin(), vision_tools.end(), t.name) == vision_tools.end()) {
            exposed.push_back(t.name);
            continue;
        }
        deferred_tool d;
        d.name = t.name;
        d.reason = std::string(vision_off_reason);
        d.alternative = std::string(vision_off_alternative);
        d.reference = "playwright-mcp:" + t.name;
        d.description = t.description;
        deferred.push_back(std::move(d));
    }
    frozen_scope_options o;
    o.scope = "browser";
    return frozen_scope(std::move(exposed), std::move(deferred), std::move(o));
}

}  // namespace agentkit::browser
