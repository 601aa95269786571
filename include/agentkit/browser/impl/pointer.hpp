// agentkit/browser/impl/pointer.hpp — browser: coordinate actions (click, move, drag, button,
// wheel at viewport points) and what is at a point.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
//
// Points are viewport CSS pixels of the current tab, as Input.dispatchMouseEvent takes them: the
// device scale factor never enters (a screenshot at scale 2 has two image pixels per CSS
// pixel; the screenshot tool says its scale). Each is an action like the others (act()): the
// same policy (the browser-wide request interception refuses what a click would load), settle
// and change report; the result's `hit` names the element at the point, by its ref when the
// snapshot gave it one.
#pragma once

#include <agentkit/browser/browser.hpp>

#include <cmath>
#include <cstdio>

namespace agentkit::browser {

namespace detail {

/// "(12, 340)" (CSS px, at most one decimal).
inline std::string point_text(double x, double y) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "(%g, %g)", std::round(x * 10) / 10, std::round(y * 10) / 10);
    return buf;
}

/// The CDP button name and its bit in `buttons`, or nothing for an unknown name.
inline std::optional<std::pair<const char*, int>> mouse_button_of(std::string_view b) {
    if (b == "left") return std::pair{"left", 1};
    if (b == "right") return std::pair{"right", 2};
    if (b == "middle") return std::pair{"middle", 4};
    return std::nullopt;
}

}  // namespace detail

AGENTKIT_DECL auto browser::check_point(const tab_ptr& t, double x, double y, std::string_view what) -> result<void> {
    if (!std::isfinite(x) || !std::isfinite(y))
        return fail(errc::args_invalid, std::string(what) + " is not a finite point", "Give x and y in viewport CSS pixels.");
    auto m = call(t->session, "Page.getLayoutMetrics");
    if (!m) return fail(m.error());
    const json& vv = detail::jobj(*m, "cssVisualViewport");
    const double w = detail::jnum(vv, "clientWidth"), h = detail::jnum(vv, "clientHeight");
    if (x < 0 || y < 0 || x >= w || y >= h) {
        const std::string size = std::to_string(static_cast<int>(w)) + "x" + std::to_string(static_cast<int>(h));
        return fail(errc::args_invalid, std::string(what) + " " + detail::point_text(x, y) + " is outside the viewport (" + size + " CSS pixels)",
                    "Use viewport CSS pixels, 0 <= x < " + std::to_string(static_cast<int>(w)) + " and 0 <= y < " +
                        std::to_string(static_cast<int>(h)) +
                        " (a screenshot's scale says how many image pixels make one CSS pixel); scroll to reach the rest.",
                    json{{"x", x}, {"y", y}, {"viewport_width", w}, {"viewport_height", h}});
    }
    return {};
}

AGENTKIT_DECL auto browser::node_at(const std::string& session, double x, double y) -> result<json> {
    // DOM.getNodeForLocation takes document coordinates (it maps them to the frame itself):
    // the viewport point plus how far that renderer's frame is scrolled.
    auto m = call(session, "Page.getLayoutMetrics");
    if (!m) return fail(m.error());
    const json& vv = detail::jobj(*m, "cssVisualViewport");
    return call(session, "DOM.getNodeForLocation",
                json{{"x", static_cast<std::int64_t>(std::floor(x + detail::jnum(vv, "pageX")))},
                     {"y", static_cast<std::int64_t>(std::floor(y + detail::jnum(vv, "pageY")))},
                     {"includeUserAgentShadowDOM", false}, {"ignorePointerEventsNone", false}});
}

AGENTKIT_DECL auto browser::hit_at(const tab_ptr& t, double x, double y) -> result<std::string> {
    std::string session = t->session;
    double lx = x, ly = y;
    for (int depth = 0; depth < 8; ++depth) {
        auto hit = node_at(session, lx, ly);
        if (!hit) {
            if (hit.error().is(errc::browser_crashed)) return fail(hit.error());
            return std::string("nothing");
        }
        const std::int64_t backend = detail::jint(*hit, "backendNodeId");
        std::string frame = detail::jstr(*hit, "frameId");
        // An out-of-process frame's <iframe>: what is under the point is in its own renderer.
        auto d = call(session, "DOM.describeNode", json{{"backendNodeId", backend}});
        if (!d) return std::string("nothing");
        const std::string content_frame = detail::jstr(detail::jobj(*d, "node"), "frameId");
        std::string child;
        {
            std::lock_guard lock(eng_->mu);
            if (!content_frame.empty())
                for (const auto& [sid, c] : t->children)
                    if (c.frame_id == content_frame) child = sid;
            if (frame.empty()) frame = t->main_frame;
        }
        if (!child.empty()) {
            auto off = frame_offset(t, child);
            if (!off) return fail(off.error());
            lx = x - off->first;
            ly = y - off->second;
            session = child;
            continue;
        }
        std::string loader;
        {
            std::lock_guard lock(eng_->mu);
            if (auto f = t->frames.find(frame); f != t->frames.end()) loader = f->second.loader;
        }
        // The element hit and its ancestors (across shadow roots), nearest first: the first one
        // with a ref names the hit. One object group, released at the end.
        static constexpr const char* group = "agentkit-hit";
        std::string out;
        auto obj = call(session, "DOM.resolveNode", json{{"backendNodeId", backend}, {"objectGroup", group}});
        const std::string oid = obj ? detail::jstr(detail::jobj(*obj, "object"), "objectId") : std::string();
        if (!oid.empty()) {
            auto arr = call(session, "Runtime.callFunctionOn",
                            json{{"functionDeclaration", detail::kAncestorsScript}, {"objectId", oid}, {"objectGroup", group}});
            const std::string aid = arr ? detail::jstr(detail::jobj(*arr, "result"), "objectId") : std::string();
            auto props = aid.empty() ? result<json>(json::object())
                                     : call(session, "Runtime.getProperties", json{{"objectId", aid}, {"ownProperties", true}});
            if (props && props->contains("result") && (*props)["result"].is_array()) {
                for (const auto& p : (*props)["result"]) {
                    const std::string name = detail::jstr(p, "name");
                    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
                    const std::string eid = detail::jstr(detail::jobj(p, "value"), "objectId");
                    if (eid.empty()) continue;
                    auto n = call(session, "DOM.describeNode", json{{"objectId", eid}});
                    if (!n) continue;
                    const std::int64_t b = detail::jint(detail::jobj(*n, "node"), "backendNodeId");
                    if (auto ref = refs_.find(session, loader, b)) {
                        auto target = refs_.resolve(*ref);
                        out = *ref;
                        if (target) {
                            out += " (" + target->role;
                            if (!target->name.empty()) out += " " + detail::page_quote(target->name);
                            out += ")";
                        }
                        break;
                    }
                }
            }
            if (out.empty()) {
                node_handle h;
                h.session = session;
                h.object_id = oid;
                auto desc = call_on(h, detail::kDescribeScript, json::array());
                out = (desc && desc->is_string() ? desc->get<std::string>() : std::string("an element")) + " (no ref)";
            }
        }
        (void)call(session, "Runtime.releaseObjectGroup", json{{"objectGroup", group}});
        return out.empty() ? std::string("nothing") : out;
    }
    return std::string("nothing (frames nested too deeply)");
}

AGENTKIT_DECL auto browser::click_at(double x, double y, click_options o, std::chrono::milliseconds hold) -> result<action_result> {
    const auto button = detail::mouse_button_of(o.button);
    if (!button) return fail(errc::args_invalid, "unknown mouse button \"" + o.button + "\"", "Use left, right or middle.");
    if (o.click_count < 1 || o.click_count > 3)
        return fail(errc::args_invalid, "clickCount must be 1, 2 or 3", "Use 2 for a double click.");
    if (hold.count() < 0 || hold > std::chrono::milliseconds(10000))
        return fail(errc::args_invalid, "delay must be between 0 and 10000 ms");
    auto mods = parse_modifiers(o.modifiers);
    if (!mods) return fail(mods.error());
    std::string hit;
    auto r = act("click at " + detail::point_text(x, y), [&](const tab_ptr& t) -> result<void> {
        if (auto c = check_point(t, x, y, "the click point"); !c) return c;
        auto h = hit_at(t, x, y);
        if (!h) return fail(h.error());
        hit = std::move(*h);
        if (auto m = mouse(t, "mouseMoved", x, y, "none", 0, t->mouse_buttons, *mods); !m) return m;
        for (int i = 1; i <= o.click_count; ++i) {
            if (auto m = mouse(t, "mousePressed", x, y, button->first, i, t->mouse_buttons | button->second, *mods); !m) return m;
            if (hold.count() > 0) std::this_thread::sleep_for(hold);  // the caller's press duration, not a wait for the page
            if (auto m = mouse(t, "mouseReleased", x, y, button->first, i, t->mouse_buttons & ~button->second, *mods); !m) return m;
        }
        return {};
    });
    if (r) r->hit = redact_result(hit);
    return r;
}

AGENTKIT_DECL auto browser::move_to(double x, double y) -> result<action_result> {
    std::string hit;
    auto r = act("move the mouse to " + detail::point_text(x, y), [&](const tab_ptr& t) -> result<void> {
        if (auto c = check_point(t, x, y, "the point"); !c) return c;
        auto h = hit_at(t, x, y);
        if (!h) return fail(h.error());
        hit = std::move(*h);
        const int held = t->mouse_buttons;
        const char* b = (held & 1) != 0 ? "left" : (held & 2) != 0 ? "right" : (held & 4) != 0 ? "middle" : "none";
        return mouse(t, "mouseMoved", x, y, b, 0, held);
    });
    if (r) r->hit = redact_result(hit);
    return r;
}

AGENTKIT_DECL auto browser::drag_points(double x0, double y0, double x1, double y1) -> result<action_result> {
    std::string hit;
    auto r = act("drag from " + detail::point_text(x0, y0) + " to " + detail::point_text(x1, y1), [&](const tab_ptr& t) -> result<void> {
        if (auto c = check_point(t, x0, y0, "the start point"); !c) return c;
        if (auto c = check_point(t, x1, y1, "the end point"); !c) return c;
        auto from = hit_at(t, x0, y0);
        if (!from) return fail(from.error());
        auto to = hit_at(t, x1, y1);
        if (!to) return fail(to.error());
        hit = *from + " → " + *to;
        return mouse_drag(t, {x0, y0}, [&]() -> result<std::pair<double, double>> { return std::pair{x1, y1}; });
    });
    if (r) r->hit = redact_result(hit);
    return r;
}

AGENTKIT_DECL auto browser::mouse_button(bool down, std::string_view button) -> result<action_result> {
    const auto b = detail::mouse_button_of(button);
    if (!b) return fail(errc::args_invalid, "unknown mouse button \"" + std::string(button) + "\"", "Use left, right or middle.");
    std::string hit;
    auto r = act(std::string(down ? "press" : "release") + " the " + b->first + " mouse button",
                 [&](const tab_ptr& t) -> result<void> {
                     auto h = hit_at(t, t->mouse_x, t->mouse_y);
                     if (!h) return fail(h.error());
                     hit = std::move(*h);
                     const int buttons = down ? (t->mouse_buttons | b->second) : (t->mouse_buttons & ~b->second);
                     return mouse(t, down ? "mousePressed" : "mouseReleased", t->mouse_x, t->mouse_y, b->first, 1, buttons);
                 });
    if (r) r->hit = redact_result(hit);
    return r;
}

AGENTKIT_DECL auto browser::wheel(double dx, double dy) -> result<action_result> {
    if (!std::isfinite(dx) || !std::isfinite(dy) || std::abs(dx) > 100000 || std::abs(dy) > 100000)
        return fail(errc::args_invalid, "wheel deltas must be finite and at most 100000 CSS pixels");
    return act("turn the mouse wheel by " + detail::point_text(dx, dy), [&](const tab_ptr& t) -> result<void> {
        to_front(t);
        json p = mouse_params("mouseWheel", t->mouse_x, t->mouse_y, "none", 0, t->mouse_buttons, 0);
        p["deltaX"] = dx;
        p["deltaY"] = dy;
        auto r = call(t->session, "Input.dispatchMouseEvent", std::move(p));
        if (!r) return fail(r.error());
        return {};
    });
}

}  // namespace agentkit::browser
