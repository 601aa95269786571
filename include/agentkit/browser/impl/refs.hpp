// agentkit/browser/impl/refs.hpp — browser: element refs to live nodes: resolving, frame offsets, a visible point to click.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

inline auto browser::resolve(std::string_view ref) -> result<node_handle> {
    auto target = refs_.resolve(ref);
    if (!target) return fail(target.error());
    node_handle h;
    h.target = *target;
    h.ref = std::string(ref);
    h.session = target->session_id;
    h.frame = target->frame_id;
    h.backend = target->backend_node_id;
    auto stale = [&](const std::string& why) {
        refs_.retire(ref);
        return fail(errc::ref_stale,
                    "ref " + std::string(ref) + " (" + target->role + " " + detail::page_quote(target->name) + ") is stale: " + why,
                    "Take a new snapshot and use the refs it shows.", json{{"ref", ref}});
    };
    {
        std::lock_guard lock(eng_->mu);
        auto it = eng_->by_session.find(h.session);
        if (it == eng_->by_session.end() || it->second->closed) return stale("its tab or frame is gone");
        h.tab = it->second;
        if (auto f = h.tab->frames.find(h.frame); f != h.tab->frames.end() && !f->second.loader.empty() &&
                                                  f->second.loader != target->loader_id) {
            refs_.frame_navigated(h.frame, f->second.loader);
            return stale("its page navigated");
        }
    }
    auto r = call(h.session, "DOM.resolveNode", json{{"backendNodeId", h.backend}});
    if (!r) {
        if (r.error().is(errc::browser_crashed)) return fail(r.error());
        return stale("its element was removed from the page");
    }
    h.object_id = detail::jstr(detail::jobj(*r, "object"), "objectId");
    if (h.object_id.empty()) return stale("its element was removed from the page");
    auto connected = call_on(h, "function(){ return this.isConnected; }", json::array());
    if (!connected) return fail(connected.error());
    if (!connected->is_boolean() || !connected->get<bool>()) return stale("its element was removed from the page");
    return h;
}

inline auto browser::frame_offset(const tab_ptr& t, const std::string& session, int depth) -> result<std::pair<double, double>> {
    if (session == t->session || depth > 8) return std::pair{0.0, 0.0};
    detail::child_rec c;
    {
        std::lock_guard lock(eng_->mu);
        auto it = t->children.find(session);
        if (it == t->children.end()) return fail(errc::ref_stale, "the frame of this element is gone", "Take a new snapshot.");
        c = it->second;
    }
    auto owner = call(c.parent_session, "DOM.getFrameOwner", json{{"frameId", c.frame_id}});
    if (!owner) return fail(owner.error());
    auto box = call(c.parent_session, "DOM.getBoxModel", json{{"backendNodeId", detail::jint(*owner, "backendNodeId")}});
    if (!box) return fail(errc::element_not_visible, "the frame of this element is not visible", "Scroll it into view.");
    const json& content = detail::jobj(*box, "model").value("content", json::array());
    if (!content.is_array() || content.size() < 2) return fail(errc::element_not_visible, "the frame has no box");
    auto up = frame_offset(t, c.parent_session, depth + 1);
    if (!up) return fail(up.error());
    return std::pair{content[0].get<double>() + up->first, content[1].get<double>() + up->second};
}

inline auto browser::visible_point(const node_handle& h, bool hit_test) -> result<std::pair<double, double>> {
    (void)call(h.session, "DOM.scrollIntoViewIfNeeded", json{{"backendNodeId", h.backend}});
    auto q = call(h.session, "DOM.getContentQuads", json{{"backendNodeId", h.backend}});
    const std::string what = "ref " + h.ref + " (" + h.target.role + " " + detail::page_quote(h.target.name) + ")";
    if (!q) {
        if (q.error().is(errc::browser_crashed)) return fail(q.error());
        return fail(errc::element_not_visible, what + " is not visible (it has no layout box)",
                    "It may be hidden or collapsed; open its container first, then take a new snapshot.");
    }
    auto m = call(h.session, "Page.getLayoutMetrics");
    if (!m) return fail(m.error());
    const json& lv = detail::jobj(*m, "cssLayoutViewport");
    const double vw = detail::jnum(lv, "clientWidth", 1e9), vh = detail::jnum(lv, "clientHeight", 1e9);
    std::optional<std::pair<double, double>> pt;
    const json& quads = q->contains("quads") ? (*q)["quads"] : json::array();
    for (const auto& quad : quads) {
        if (!quad.is_array() || quad.size() < 8) continue;
        double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
        for (std::size_t i = 0; i + 1 < 8; i += 2) {
            const double x = quad[i].get<double>(), y = quad[i + 1].get<double>();
            x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
        }
        x0 = std::max(x0, 0.0), y0 = std::max(y0, 0.0), x1 = std::min(x1, vw), y1 = std::min(y1, vh);
        if (x1 - x0 < 1 || y1 - y0 < 1) continue;
        pt = std::pair{(x0 + x1) / 2, (y0 + y1) / 2};
        break;
    }
    if (!pt)
        return fail(errc::element_not_visible, what + " is not visible in the viewport (zero size or clipped)",
                    "It may be hidden, empty or inside a collapsed container.");
    if (hit_test) {
        auto hit = node_at(h.session, pt->first, pt->second);
        if (hit) {
            const std::int64_t hb = detail::jint(*hit, "backendNodeId");
            if (hb != 0 && hb != h.backend) {
                bool inside = false;
                std::string cover = "another element";
                auto ho = call(h.session, "DOM.resolveNode", json{{"backendNodeId", hb}});
                if (ho) {
                    const std::string oid = detail::jstr(detail::jobj(*ho, "object"), "objectId");
                    auto c = call(h.session, "Runtime.callFunctionOn",
                                  json{{"functionDeclaration", detail::kContainsScript}, {"objectId", h.object_id},
                                       {"arguments", json::array({json{{"objectId", oid}}})}, {"returnByValue", true}});
                    inside = c && detail::jobj(*c, "result").value("value", json(false)) == json(true);
                    if (!inside) {
                        node_handle hh = h;
                        hh.object_id = oid;
                        auto d = call_on(hh, detail::kDescribeScript, json::array());
                        if (d && d->is_string()) cover = detail::page_quote(d->get<std::string>());
                        if (auto cref = refs_.find(h.session, h.target.loader_id, hb)) cover += " [ref=" + *cref + "]";
                    }
                }
                if (!inside)
                    return fail(errc::element_covered, what + " is covered by " + cover + " at its click point",
                                "Close or move the covering element first (dismiss the dialog or banner), or scroll; "
                                "take a new snapshot to see the page.",
                                json{{"ref", h.ref}, {"covered_by", cover}, {"x", pt->first}, {"y", pt->second}});
            }
        }
    }
    auto off = frame_offset(h.tab, h.session);
    if (!off) return fail(off.error());
    return std::pair{pt->first + off->first, pt->second + off->second};
}
}  // namespace agentkit::browser
