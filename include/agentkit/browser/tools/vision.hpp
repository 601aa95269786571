// agentkit/browser/tools/vision.hpp — browser tools: coordinate actions, Playwright MCP's vision
// capability (browser_mouse_click_xy, _move_xy, _drag_xy, _down, _up, _wheel) with its names
// and arguments. Points are viewport CSS pixels; each result names what was hit (its ref when
// it has one). agentkit-browser-mcp lists them under `--caps vision` only.
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

#include <agentkit/browser/tools/playwright.hpp>
#include <agentkit/browser/tools/support.hpp>

#include <array>
#include <chrono>
#include <string_view>

namespace agentkit::browser {

/// Arguments of browser_mouse_click_xy.
struct click_xy_args {
    double x = 0;                          ///< viewport CSS pixels
    double y = 0;                          ///< viewport CSS pixels
    std::optional<std::string> button;     ///< left (default), right or middle
    std::optional<int> clickCount;         ///< 1 (default), 2 for a double click
    std::optional<int> delay;              ///< ms between press and release (default 0)
    std::optional<std::string> element;    ///< description of what is clicked (accepted, ignored)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(click_xy_args, x, "Viewport CSS px"), AGENTKIT_FIELD(click_xy_args, y, "Viewport CSS px"),
                      AGENTKIT_FIELD(click_xy_args, button, "", one_of("left", "right", "middle")),
                      AGENTKIT_FIELD(click_xy_args, clickCount, "", range(1, 3)),
                      AGENTKIT_FIELD(click_xy_args, delay, "ms between press and release", range(0, 10000)),
                      AGENTKIT_FIELD(click_xy_args, element, "", hidden()));
    }
};

/// Arguments of browser_mouse_move_xy.
struct move_xy_args {
    double x = 0;                        ///< viewport CSS pixels
    double y = 0;                        ///< viewport CSS pixels
    std::optional<std::string> element;  ///< description (accepted, ignored)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(move_xy_args, x, "Viewport CSS px"), AGENTKIT_FIELD(move_xy_args, y, "Viewport CSS px"),
                      AGENTKIT_FIELD(move_xy_args, element, "", hidden()));
    }
};

/// Arguments of browser_mouse_drag_xy.
struct drag_xy_args {
    double startX = 0;                   ///< where the left button is pressed (viewport CSS px)
    double startY = 0;                   ///< where the left button is pressed (viewport CSS px)
    double endX = 0;                     ///< where it is released (viewport CSS px)
    double endY = 0;                     ///< where it is released (viewport CSS px)
    std::optional<std::string> element;  ///< description (accepted, ignored)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(drag_xy_args, startX, ""), AGENTKIT_FIELD(drag_xy_args, startY, ""),
                      AGENTKIT_FIELD(drag_xy_args, endX, ""), AGENTKIT_FIELD(drag_xy_args, endY, ""),
                      AGENTKIT_FIELD(drag_xy_args, element, "", hidden()));
    }
};

/// Arguments of browser_mouse_down and browser_mouse_up.
struct mouse_button_args {
    std::optional<std::string> button;  ///< left (default), right or middle
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(mouse_button_args, button, "", one_of("left", "right", "middle")));
    }
};

/// Arguments of browser_mouse_wheel.
struct wheel_args {
    double deltaX = 0;  ///< CSS px to the right (negative: left)
    double deltaY = 0;  ///< CSS px down (negative: up)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(wheel_args, deltaX, "", range(-100000, 100000)),
                      AGENTKIT_FIELD(wheel_args, deltaY, "", range(-100000, 100000)));
    }
};

/// Make the browser_mouse_click_xy tool: click at a viewport point; names the element hit.
template <class State>
auto click_xy_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_mouse_click_xy">(
        st, "Click at viewport CSS pixels (x, y); names the element hit and reports what changed.",
        [s](const click_xy_args& a) -> result<tool_output> {
            click_options o;
            o.button = a.button.value_or("left");
            o.click_count = a.clickCount.value_or(1);
            auto r = s->b.click_at(a.x, a.y, o, std::chrono::milliseconds(a.delay.value_or(0)));
            if (!detail::pw_mode(*s)) return detail::text_of(std::move(r));
            std::vector<std::string> keys;  // Playwright's options, sorted
            if (a.button && *a.button != "left") keys.push_back("  button: " + pw::js_quote(*a.button));
            if (a.clickCount && *a.clickCount != 1) keys.push_back("  clickCount: " + std::to_string(*a.clickCount));
            if (a.delay && *a.delay > 0) keys.push_back("  delay: " + std::to_string(*a.delay));
            std::string opts;
            for (std::size_t i = 0; i < keys.size(); ++i) opts += keys[i] + (i + 1 < keys.size() ? ",\n" : "\n");
            const std::string xy = detail::pw_number(a.x) + ", " + detail::pw_number(a.y);
            return detail::pw_action(*s, std::move(r),
                                     {"// Click mouse at coordinates (" + xy + ")",
                                      "await page.mouse.click(" + xy + (opts.empty() ? std::string() : ", {\n" + opts + "}") + ");"},
                                     true);
        },
        action_traits);
}

/// Make the browser_mouse_move_xy tool: move the mouse to a viewport point.
template <class State>
auto move_xy_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_mouse_move_xy">(
        st, "Move the mouse to viewport CSS pixels (x, y).",
        [s](const move_xy_args& a) -> result<tool_output> {
            if (!detail::pw_mode(*s)) return detail::text_of(s->b.move_to(a.x, a.y));
            const std::string xy = detail::pw_number(a.x) + ", " + detail::pw_number(a.y);
            return detail::pw_action(*s, s->b.move_to(a.x, a.y), {"// Move mouse to (" + xy + ")", "await page.mouse.move(" + xy + ");"}, false);
        },
        action_traits);
}

/// Make the browser_mouse_drag_xy tool: drag with the left button between two viewport points.
template <class State>
auto drag_xy_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_mouse_drag_xy">(
        st, "Drag with the left button from (startX, startY) to (endX, endY), viewport CSS pixels.",
        [s](const drag_xy_args& a) -> result<tool_output> {
            if (!detail::pw_mode(*s)) return detail::text_of(s->b.drag_points(a.startX, a.startY, a.endX, a.endY));
            const std::string from = detail::pw_number(a.startX) + ", " + detail::pw_number(a.startY);
            const std::string to = detail::pw_number(a.endX) + ", " + detail::pw_number(a.endY);
            return detail::pw_action(*s, s->b.drag_points(a.startX, a.startY, a.endX, a.endY),
                                     {"// Drag mouse from (" + from + ") to (" + to + ")", "await page.mouse.move(" + from + ");",
                                      "await page.mouse.down();", "await page.mouse.move(" + to + ");", "await page.mouse.up();"},
                                     true);
        },
        action_traits);
}

/// Make the browser_mouse_down tool: press a mouse button where the mouse is.
template <class State>
auto mouse_down_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_mouse_down">(
        st, "Press a mouse button where the mouse is.",
        [s](const mouse_button_args& a) { return detail::text_of(s->b.mouse_button(true, a.button.value_or("left"))); },
        action_traits);
}

/// Make the browser_mouse_up tool: release a mouse button where the mouse is.
template <class State>
auto mouse_up_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_mouse_up">(
        st, "Release a mouse button where the mouse is.",
        [s](const mouse_button_args& a) { return detail::text_of(s->b.mouse_button(false, a.button.value_or("left"))); },
        action_traits);
}

/// Make the browser_mouse_wheel tool: turn the mouse wheel where the mouse is.
template <class State>
auto wheel_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_mouse_wheel">(
        st, "Turn the mouse wheel by (deltaX, deltaY) CSS pixels where the mouse is.",
        [s](const wheel_args& a) { return detail::text_of(s->b.wheel(a.deltaX, a.deltaY)); }, action_traits);
}

}  // namespace agentkit::browser
