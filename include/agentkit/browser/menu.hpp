// agentkit/browser/menu.hpp — how the browser tools are exposed to a model: the menu (page work
// in `browser`, finding and reading sources in `research`, internals in `devtools`; the
// optional capabilities' tools in `vision`, `testing`, `storage` and `network`), the fixed core set, the router's
// pinned tools, and the one rule of the optional capabilities (--caps): their tools are left out
// of every exposure unless turned on. agentkit-browser-mcp's --tools all|core|menu|router,
// agentkit-demo and hosts use the same definitions.
//
//   auto tools = agentkit::browser::browser_tools(state);
//   auto menu = agentkit::browser::make_browser_menu<decltype(tools)>();      // --tools menu
//   auto scope = agentkit::browser::core_scope(tools);                         // --tools core
//   auto all = agentkit::browser::capability_scope(tools, {"vision"});         // --tools all --caps vision
#pragma once

#include <agentkit/visibility/router.hpp>
#include <agentkit/browser/capabilities.hpp>
#include <agentkit/browser/tools/verify.hpp>
#include <agentkit/browser/tools/vision.hpp>
#include <agentkit/visibility/frozen_scope.hpp>
#include <agentkit/visibility/menu.hpp>

#include <algorithm>
#include <array>
#include <set>
#include <span>
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
                        tool_ref<"browser_take_screenshot">, tool_ref<"browser_artifact">, tool_ref<"browser_find">)
            .describe("A real browser: open pages, read them, fill forms, click")
            .when("Web browsing, forms, reading pages, UI checks"),
        mode<"research">(tool_ref<"web_search">, tool_ref<"browser_batch">, tool_ref<"browser_extract">,
                         tool_ref<"browser_navigate">, tool_ref<"browser_artifact">)
            .describe("Search the web and read what it finds: search, batch read, extract")
            .when("Looking things up, finding sources, comparing several pages"),
        mode<"devtools">(tool_ref<"browser_drag">, tool_ref<"browser_drop">, tool_ref<"browser_file_upload">, tool_ref<"browser_handle_dialog">,
                         tool_ref<"browser_evaluate">, tool_ref<"browser_console_messages">,
                         tool_ref<"browser_network_requests">, tool_ref<"browser_network_request">, tool_ref<"browser_tabs">,
                         tool_ref<"browser_resize">,
                         tool_ref<"browser_close">, tool_ref<"browser_metrics">, tool_ref<"browser_batch">,
                         tool_ref<"browser_recording_start">, tool_ref<"browser_recording_stop">)
            .describe("Browser internals: tabs, console, network, uploads, dialogs, recordings")
            .when("Debugging a page, tabs, uploads, recordings"),
        mode<"vision">(tool_ref<"browser_mouse_click_xy">, tool_ref<"browser_mouse_move_xy">,
                       tool_ref<"browser_mouse_drag_xy">, tool_ref<"browser_mouse_down">, tool_ref<"browser_mouse_up">,
                       tool_ref<"browser_mouse_wheel">)
            .describe("Mouse at screenshot coordinates: click, move, drag, buttons, wheel")
            .when("Canvas, icons or widgets the snapshot gives no ref for"),
        mode<"testing">(tool_ref<"browser_verify_element_visible">, tool_ref<"browser_verify_text_visible">,
                        tool_ref<"browser_verify_list_visible">, tool_ref<"browser_verify_value">,
                        tool_ref<"browser_generate_locator">)
            .describe("Assertions and locators for test code: verify elements, texts, lists, values")
            .when("Writing or checking a test of a page"),
        mode<"storage">(tool_ref<"browser_cookie_list">, tool_ref<"browser_cookie_get">, tool_ref<"browser_cookie_set">,
                        tool_ref<"browser_cookie_delete">, tool_ref<"browser_cookie_clear">, tool_ref<"browser_localstorage_list">,
                        tool_ref<"browser_localstorage_get">, tool_ref<"browser_localstorage_set">, tool_ref<"browser_localstorage_delete">,
                        tool_ref<"browser_localstorage_clear">, tool_ref<"browser_sessionstorage_list">,
                        tool_ref<"browser_sessionstorage_get">, tool_ref<"browser_sessionstorage_set">,
                        tool_ref<"browser_sessionstorage_delete">, tool_ref<"browser_sessionstorage_clear">,
                        tool_ref<"browser_storage_state">, tool_ref<"browser_set_storage_state">)
            .describe("Cookies, localStorage, sessionStorage; save and restore them")
            .when("Logging in once for several runs, inspecting or changing site data"),
        mode<"network">(tool_ref<"browser_route">, tool_ref<"browser_route_list">, tool_ref<"browser_unroute">,
                        tool_ref<"browser_network_state_set">)
            .describe("Mock or change requests by URL; go offline")
            .when("Testing a page against mocked APIs or without network"),
        mode<"emulation">(tool_ref<"browser_emulate_media">)
            .describe("Emulate CSS media: dark mode, reduced motion, print")
            .when("Checking how a page looks or behaves for other users' settings"),
        mode<"config">(tool_ref<"browser_get_config">)
            .describe("The server's resolved configuration")
            .when("Checking how the server was started"),
        mode<"pdf">(tool_ref<"browser_pdf_save">)
            .describe("Save the page as a PDF")
            .when("Keeping a printable copy of a page"),
        mode<"tracing">(tool_ref<"browser_start_tracing">, tool_ref<"browser_stop_tracing">)
            .describe("Record a trace for Playwright's trace viewer")
            .when("Keeping a replayable record of what was done"),
        std::move(options));
}

/// `--tools core`: the core tools exposed (with those of the capabilities `caps` turns on), every
/// other tool of the box deferred.
template <class Box>
frozen_scope core_scope(const Box& box, const std::set<std::string>& caps = {}) {
    std::vector<std::string> exposed(core_tools.begin(), core_tools.end());
    for (const auto& c : optional_capabilities)
        if (caps.count(std::string(c.name))) exposed.insert(exposed.end(), c.tools.begin(), c.tools.end());
    std::vector<deferred_tool> deferred;
    for (const auto& t : box.infos()) {
        if (std::find(exposed.begin(), exposed.end(), t.name) != exposed.end()) continue;
        deferred_tool d;
        d.name = t.name;
        if (const auto* c = capability_of(t.name); c != nullptr && !caps.count(std::string(c->name))) {
            d.reason = capability_off_reason(*c);
            d.alternative = capability_off_alternative(*c);
        } else {
            d.reason = "this server was started with --tools core, which offers the most used browser tools only";
            d.alternative = "restart agentkit-browser-mcp with --tools all, --tools menu or --tools router to reach " + t.name;
        }
        if (std::find(playwright_tools.begin(), playwright_tools.end(), t.name) != playwright_tools.end() || capability_of(t.name) != nullptr)
            d.reference = "playwright-mcp:" + t.name;
        d.description = t.description;
        deferred.push_back(std::move(d));
    }
    frozen_scope_options o;
    o.scope = "browser-core";
    return frozen_scope(std::move(exposed), std::move(deferred), std::move(o));
}

/// `--tools all`: every tool but those of the optional capabilities `caps` leaves off, which
/// answer with capability.unsupported saying how to turn them on (as Playwright MCP, which
/// lists them only under their --caps).
template <class Box>
frozen_scope capability_scope(const Box& box, const std::set<std::string>& caps) {
    std::vector<std::string> exposed;
    std::vector<deferred_tool> deferred;
    for (const auto& t : box.infos()) {
        const auto* c = capability_of(t.name);
        if (c == nullptr || caps.count(std::string(c->name))) {
            exposed.push_back(t.name);
            continue;
        }
        deferred_tool d;
        d.name = t.name;
        d.reason = capability_off_reason(*c);
        d.alternative = capability_off_alternative(*c);
        d.reference = "playwright-mcp:" + t.name;
        d.description = t.description;
        deferred.push_back(std::move(d));
    }
    frozen_scope_options o;
    o.scope = "browser";
    return frozen_scope(std::move(exposed), std::move(deferred), std::move(o));
}

}  // namespace agentkit::browser
