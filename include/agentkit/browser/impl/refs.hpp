// agentkit/browser/impl/refs.hpp — browser: element refs to live nodes: resolving, frame offsets, a visible point to click.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::resolve(std::string_view ref) -> result<node_handle> {
    if (opt_.aria_refs) return resolve_aria(ref);  // an aria ref, or a CSS selector
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
                    detail::quoting_page("ref " + std::string(ref) + " is stale: " + why,
                                         "ref " + std::string(ref) + ": " + target->role + " " + detail::page_quote(target->name), nonce_),
                    "Take a new snapshot and use the refs it shows.",
                    json{{"ref", ref}, {"page_data", {{"role", target->role}, {"name", detail::escape_marks(target->name)}}}});
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

AGENTKIT_DECL auto browser::frame_offset(const tab_ptr& t, const std::string& session, int depth) -> result<std::pair<double, double>> {
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

AGENTKIT_DECL auto browser::visible_point(const node_handle& h, bool hit_test) -> result<std::pair<double, double>> {
    (void)call(h.session, "DOM.scrollIntoViewIfNeeded", json{{"backendNodeId", h.backend}});
    auto q = call(h.session, "DOM.getContentQuads", json{{"backendNodeId", h.backend}});
    const std::string what = "ref " + h.ref;
    const std::string element = "ref " + h.ref + ": " + h.target.role + " " + detail::page_quote(h.target.name);
    const json element_data = {{"role", h.target.role}, {"name", detail::escape_marks(h.target.name)}};
    if (!q) {
        if (q.error().is(errc::browser_crashed)) return fail(q.error());
        return fail(errc::element_not_visible, detail::quoting_page(what + " is not visible (it has no layout box)", element, nonce_),
                    "It may be hidden or collapsed; open its container first, then take a new snapshot.",
                    json{{"ref", h.ref}, {"page_data", element_data}});
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
        return fail(errc::element_not_visible,
                    detail::quoting_page(what + " is not visible in the viewport (zero size or clipped)", element, nonce_),
                    "It may be hidden, empty or inside a collapsed container.", json{{"ref", h.ref}, {"page_data", element_data}});
    if (hit_test) {
        auto hit = node_at(h.session, pt->first, pt->second);
        if (hit) {
            const std::int64_t hb = detail::jint(*hit, "backendNodeId");
            if (hb != 0 && hb != h.backend) {
                bool inside = false;
                std::string cover;      // the covering element as the page describes it (page data)
                std::string cover_ref;  // its ref, when it has one (ours)
                auto ho = call(h.session, "DOM.resolveNode", json{{"backendNodeId", hb}});
                if (ho) {
                    const std::string oid = detail::jstr(detail::jobj(*ho, "object"), "objectId");
                    auto c = call(h.session, "Runtime.callFunctionOn",
                                  json{{"functionDeclaration", detail::kContainsScript}, {"objectId", h.object_id},
                                       {"arguments", json::array({json{{"objectId", oid}}, json{{"value", pt->first}}, json{{"value", pt->second}}})},
                                       {"returnByValue", true}});
                    inside = c && detail::jobj(*c, "result").value("value", json(false)) == json(true);
                    if (!inside) {
                        node_handle hh = h;
                        hh.object_id = oid;
                        auto d = call_on(hh, detail::kDescribeScript, json::array());
                        if (d && d->is_string()) cover = d->get<std::string>();
                        if (auto cref = refs_.find(h.session, h.target.loader_id, hb)) cover_ref = *cref;
                    }
                }
                if (!inside) {
                    std::string own = what + " is covered by another element" + (cover_ref.empty() ? "" : " (ref " + cover_ref + ")") +
                                      " at its click point";
                    std::string quoted = element + "\n";
                    if (!cover.empty()) quoted += "covered by: " + detail::page_quote(cover) + "\n";
                    json data = element_data;
                    if (!cover.empty()) data["covered_by"] = detail::escape_marks(cover);
                    json details{{"ref", h.ref}, {"x", pt->first}, {"y", pt->second}, {"page_data", std::move(data)}};
                    if (!cover_ref.empty()) details["covered_by_ref"] = cover_ref;
                    return fail(errc::element_covered, detail::quoting_page(std::move(own), std::move(quoted), nonce_),
                                "Close or move the covering element first (dismiss the dialog or banner), or scroll; "
                                "take a new snapshot to see the page.",
                                std::move(details));
                }
            }
        }
    }
    auto off = frame_offset(h.tab, h.session);
    if (!off) return fail(off.error());
    return std::pair{pt->first + off->first, pt->second + off->second};
}
}  // namespace agentkit::browser
