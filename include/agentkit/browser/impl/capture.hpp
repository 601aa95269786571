// agentkit/browser/impl/capture.hpp — browser: snapshots: capturing DOM and accessibility trees of every frame and rendering them.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

namespace detail {
// From this many accessibility nodes on, a capture is worth a worker thread: to classify it
// beside the render, to free it after the call has its answer.
inline constexpr std::size_t large_capture_nodes = 2000;
inline std::size_t ax_node_count(const std::vector<ax_frame>& frames) {
    std::size_t n = 0;
    for (const auto& f : frames) n += f.nodes.size();
    return n;
}
}  // namespace detail

AGENTKIT_DECL auto browser::snapshot(std::optional<snapshot_options> o) -> result<page_snapshot> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = current_tab();
    if (!t) return fail(t.error());
    begin_call(*t);
    snapshot_options so = o.value_or(snapshot_options{});
    if (!o) so.token_budget = opt_.snapshot_budget;
    auto s = take_snapshot(*t, so, page_read::part);
    if (!s) return fail(s.error());
    s->notes = take_restart_notes();
    set_reported_url(*t, s->url);
    if (so.root_ref.empty()) {  // what the model sees of the page: the next page's repeats are collapsed against it
        std::lock_guard lock(eng_->mu);
        detail::remember_regions((*t)->shown, detail::url_origin(s->url), s->snap.text);
    }
    return finish_snapshot(std::move(s));
}

AGENTKIT_DECL std::string browser::show_new_page(const tab_ptr& t, const page_snapshot& s, std::vector<std::string>& notes, bool collapse) {
    const auto origin = detail::url_origin(s.url);
    detail::region_memory shown;
    {
        std::lock_guard lock(eng_->mu);
        if (!collapse || !opt_.collapse_repeated_regions || pages_whole_ > 0) {
            detail::remember_regions(t->shown, origin, s.snap.text);
            return s.snap.text;
        }
        shown = t->shown;
    }
    auto collapsed = detail::collapse_repeated_regions(s.snap.lines, origin, shown);
    if (collapsed.keys.empty()) {
        std::lock_guard lock(eng_->mu);
        detail::remember_regions(t->shown, origin, s.snap.text);
        return s.snap.text;
    }
    agentkit::browser::snapshot view;
    view.lines = std::move(collapsed.lines);
    view.page_nodes = s.snap.page_nodes;
    view.page_nodes_read = s.snap.page_nodes_read;
    view.ax_nodes = s.snap.ax_nodes;
    detail::fit_to_budget(view, page_view_options(), opt_.tokens);  // the budget they took goes to the rest
    notes.push_back(detail::collapsed_note(collapsed.keys.size()));
    std::lock_guard lock(eng_->mu);
    detail::remember_regions(t->shown, origin, view.text, collapsed.keys);
    return view.text;
}

AGENTKIT_DECL auto browser::readable(readable_options o) -> result<page_snapshot> {
    std::lock_guard op(op_mu_);
    auto t = begin_page_call();
    if (!t) return fail(t.error());
    auto cap = capture(*t, false);
    if (!cap && cap.error().is(errc::timeout) && stop_scripts(*t, {}, opt_.navigation_timeout)) cap = capture(*t, false);
    if (!cap) return fail(cap.error());
    page_snapshot ps;
    ps.tab = (*t)->id;
    ps.snap = render_readable(cap->frames, cap->dom, refs_, o, opt_.tokens);
    ps.article_like = classify_page(cap->frames).article_like();
    fill_url_title(*t, ps.url, ps.title);
    ps.notes = take_restart_notes();
    set_reported_url(*t, ps.url);
    release(std::move(*cap));
    return finish_snapshot(std::move(ps));
}

AGENTKIT_DECL auto browser::capture(const tab_ptr& t, bool want_viewport, const part_request& part) -> result<capture_result> {
    // sessions of this tab: the page and its OOPIFs
    std::vector<std::string> sessions{t->session};
    std::map<std::string, detail::child_rec> children;
    {
        std::lock_guard lock(eng_->mu);
        children = t->children;
    }
    for (const auto& [sid, c] : children) sessions.push_back(sid);
    std::set<std::string> oopif_frames;
    for (const auto& [sid, c] : children) oopif_frames.insert(c.frame_id);

    // round 1, concurrently: frame trees and DOM snapshots of every session, layout metrics
    std::vector<std::future<result<json>>> trees, doms;
    const json ds_params = {{"computedStyles", json::array({"cursor", "display", "visibility"})}};
    for (const auto& s : sessions) {
        trees.push_back(eng_->conn.call_async("Page.getFrameTree", json::object(), s));
        doms.push_back(eng_->conn.call_async("DOMSnapshot.captureSnapshot", ds_params, s, opt_.navigation_timeout));
    }
    auto metrics_f = eng_->conn.call_async("Page.getLayoutMetrics", json::object(), t->session);
    std::vector<std::future<result<json>>> owners;
    for (const auto& [sid, c] : children)
        owners.push_back(eng_->conn.call_async("DOM.getFrameOwner", json{{"frameId", c.frame_id}}, c.parent_session));

    capture_result out;
    struct pending_ax {
        ax_frame frame;
        std::future<result<json>> f;
        std::string parent_frame;  // the frame whose document holds this frame's <iframe> (same session)
    };
    std::vector<pending_ax> axs;
    // A large page may be read in part: then no tree is asked for before its DOM is known.
    const bool maybe_part = part.how != part_request::mode::whole && opt_.large_page_elements > 0;
    auto ask_whole = [&](pending_ax& p) {
        p.f = eng_->conn.call_async("Accessibility.getFullAXTree", json{{"frameId", p.frame.frame_id}}, p.frame.session_id,
                                    opt_.navigation_timeout);
    };
    // The accessibility trees are asked for as soon as the frame trees are known, before the
    // DOM snapshots are read: the renderer computes them while this thread reads the DOM.
    // A failed read is the capture's failure when the browser died or the session is the
    // page's own; an OOPIF that went away meanwhile is left out with its frames (nullopt).
    auto failure = [&](std::size_t i, const error& err) -> std::optional<error> {
        if (!eng_->conn.is_open()) return crashed_error(err);
        if (i != 0) return std::nullopt;
        if (auto c = crashed_during(t)) return c;
        return err;
    };
    std::vector<bool> session_ok(sessions.size(), true);
    for (std::size_t i = 0; i < sessions.size(); ++i) {
        auto tree = trees[i].get();
        if (!tree) {
            if (auto f = failure(i, tree.error())) return fail(*f);
            session_ok[i] = false;
            continue;
        }
        // walk the frame tree
        std::vector<const json*> stack{&detail::jobj(*tree, "frameTree")};
        std::vector<std::string> parent_ids{std::string()};  // beside `stack`: each node's parent frame
        bool root = true;
        while (!stack.empty()) {
            const json* node = stack.back();
            stack.pop_back();
            const std::string parent_frame = std::move(parent_ids.back());
            parent_ids.pop_back();
            const json& fr = detail::jobj(*node, "frame");
            const std::string id = detail::jstr(fr, "id");
            const bool skip = !root && oopif_frames.count(id) != 0;  // rendered from its own session
            if (!id.empty() && !skip) {
                ax_frame a;
                a.session_id = sessions[i];
                a.frame_id = id;
                a.loader_id = detail::jstr(fr, "loaderId");
                a.url = detail::jstr(fr, "url");
                refs_.frame_navigated(id, a.loader_id);
                {
                    std::lock_guard lock(eng_->mu);
                    auto& rec = t->frames[id];
                    rec.loader = a.loader_id;
                    rec.url = a.url;
                    rec.session = sessions[i];
                }
                axs.push_back(pending_ax{std::move(a), {}, parent_frame});
                if (!maybe_part) ask_whole(axs.back());
            }
            root = false;
            if (auto ch = node->find("childFrames"); ch != node->end() && ch->is_array())
                for (auto it = ch->rbegin(); it != ch->rend(); ++it) {
                    stack.push_back(&*it);
                    parent_ids.push_back(id);
                }
        }
    }
    for (std::size_t i = 0; i < sessions.size(); ++i) {
        auto dom = doms[i].get();
        if (!session_ok[i]) continue;
        if (!dom) {
            if (auto f = failure(i, dom.error())) return fail(*f);
            continue;  // not in out.dom: its accessibility trees are skipped below
        }
        out.dom.emplace(sessions[i], parse_dom_snapshot(*dom));
    }
    // owners of OOPIFs
    std::map<std::string, std::pair<std::string, std::int64_t>> owner_of;  // frame id → (parent session, backend)
    {
        std::size_t k = 0;
        for (const auto& [sid, c] : children) {
            auto r = owners[k++].get();
            if (r) owner_of[c.frame_id] = {c.parent_session, detail::jint(*r, "backendNodeId")};
        }
    }
    auto metrics = metrics_f.get();
    if (metrics && want_viewport) {
        const json& vv = detail::jobj(*metrics, "cssVisualViewport");
        auto& d = out.dom[t->session];
        d.viewport_w = detail::jnum(vv, "clientWidth");
        d.viewport_h = detail::jnum(vv, "clientHeight");
        d.scroll_x = detail::jnum(vv, "pageX", d.scroll_x);
        d.scroll_y = detail::jnum(vv, "pageY", d.scroll_y);
    }
    // A large page's first part (detail/page_part.hpp), grown until it is enough; the frames
    // whose <iframe> lies in it are read whole. Whole instead when the page is small, when the
    // part would be most of it, or when its nodes do not join into one tree.
    auto read_in_part = [&]() -> result<bool> {
        auto d = out.dom.find(t->session);
        if (d == out.dom.end()) return false;
        const dom_order& order = d->second.order;
        if (part.how == part_request::mode::automatic &&
            static_cast<std::size_t>(std::count(order.type.begin(), order.type.end(), std::uint8_t{1})) < opt_.large_page_elements)
            return false;
        std::unordered_map<std::int64_t, std::size_t> pos;  // main document: backend id → position (pages with frames)
        if (axs.size() > 1) {
            pos.reserve(order.size());
            for (std::size_t i = 0; i < order.size(); ++i) pos.emplace(order.id[i], i);
        }
        std::unordered_map<std::string, std::int64_t> owner_in_session;  // same-session frame id → its <iframe>
        for (const auto& [el, fid] : d->second.frame_owners) owner_in_session.emplace(fid, el);
        std::unordered_map<std::string, std::size_t> index_of;  // "session|frame" → index in axs
        for (std::size_t k = 0; k < axs.size(); ++k) index_of.emplace(axs[k].frame.session_id + "|" + axs[k].frame.frame_id, k);
        // Whether frame k is placed within the part ending at `end` (a position in `order`).
        auto covered = [&](std::size_t k, std::size_t end) {
            for (int hops = 0; hops < 64; ++hops) {
                const auto& p = axs[k];
                if (p.frame.session_id == t->session && p.frame.frame_id == axs[0].frame.frame_id) return true;
                if (!p.parent_frame.empty()) {  // a frame inside another frame of its session
                    if (p.frame.session_id == t->session && p.parent_frame == axs[0].frame.frame_id) {
                        auto o = owner_in_session.find(p.frame.frame_id);
                        auto at = o == owner_in_session.end() ? pos.end() : pos.find(o->second);
                        return at != pos.end() && at->second < end;
                    }
                    auto up = index_of.find(p.frame.session_id + "|" + p.parent_frame);
                    if (up == index_of.end()) return false;
                    k = up->second;
                    continue;
                }
                // the root frame of an out-of-process frame's session: its <iframe> in the parent session
                auto o = owner_of.find(p.frame.frame_id);
                if (o == owner_of.end()) return false;
                if (o->second.first == t->session) {
                    auto at = pos.find(o->second.second);
                    return at != pos.end() && at->second < end;
                }
                auto c = children.find(o->second.first);  // the parent session's own frame
                if (c == children.end()) return false;
                auto up = index_of.find(o->second.first + "|" + c->second.frame_id);
                if (up == index_of.end()) return false;
                k = up->second;
            }
            return false;
        };
        std::vector<std::optional<json>> frame_nodes(axs.size());
        // The first part ends where the page's clickable elements (DOMSnapshot's isClickable:
        // links, buttons, form controls, click listeners) are enough to fill twice the budget at
        // about 8 tokens a control line; a page without that many in its first half is read
        // whole (a long text, a page of plain spans), and so is a part that would take more
        // subtree reads than a whole read is worth. Each further round doubles the part.
        const std::size_t controls_wanted = std::max<std::size_t>(1, opt_.snapshot_budget / 4);
        std::size_t want = order.size();
        for (std::size_t i = 0, seen = 0; i < order.size(); ++i) {
            const dom_node_facts* f = d->second.find(order.id[i]);
            if (f != nullptr && f->clickable && ++seen >= controls_wanted) {
                want = std::max<std::size_t>(i + 1, opt_.large_page_elements);
                break;
            }
        }
        constexpr std::size_t max_units = 4000;
        for (int round = 0; round < 3; ++round) {
            const auto plan = detail::plan_page_part(order, want, 256, part.how == part_request::mode::until ? part.boundary : 0);
            if (plan.whole() ||
                (part.how == part_request::mode::automatic && (2 * plan.nodes >= plan.total || plan.units.size() > max_units)))
                return false;
            auto nodes = read_part(t, plan);
            if (!nodes) return fail(nodes.error());
            if (nodes->empty()) return false;
            std::vector<std::size_t> placed;
            for (std::size_t k = 1; k < axs.size(); ++k)
                if (out.dom.count(axs[k].frame.session_id) != 0 && covered(k, plan.boundary_pos)) placed.push_back(k);
            std::vector<std::pair<std::size_t, std::future<result<json>>>> asked;
            for (auto k : placed)
                if (!frame_nodes[k])
                    asked.emplace_back(k, eng_->conn.call_async("Accessibility.getFullAXTree", json{{"frameId", axs[k].frame.frame_id}},
                                                                axs[k].frame.session_id, opt_.navigation_timeout));
            for (auto& [k, f] : asked) {
                auto r = f.get();
                if (!r && !eng_->conn.is_open()) return fail(crashed_error(r.error()));
                frame_nodes[k] = r && r->contains("nodes") ? std::move((*r)["nodes"]) : json::array();  // a frame gone meanwhile: left out
            }
            out.frames.clear();
            ax_frame main = axs[0].frame;
            main.nodes = std::move(*nodes);
            main.dom_nodes = plan.total;
            main.dom_nodes_read = plan.nodes;
            out.frames.push_back(std::move(main));
            for (auto k : placed) {
                ax_frame f = axs[k].frame;
                f.nodes = *frame_nodes[k];
                if (auto o = owner_of.find(f.frame_id); o != owner_of.end()) {
                    f.owner_session_id = o->second.first;
                    f.owner_backend_id = o->second.second;
                }
                out.frames.push_back(std::move(f));
            }
            out.part = plan;
            if (part.how == part_request::mode::until || !part.enough || part.enough(out)) return true;
            want = plan.nodes * 2;
        }
        return false;
    };
    if (maybe_part && !axs.empty() && axs[0].frame.session_id == t->session) {
        auto done = read_in_part();
        if (!done) return fail(done.error());
        if (*done) return out;
        out.frames.clear();
        out.part.reset();
    }
    for (auto& p : axs)
        if (!p.f.valid()) ask_whole(p);
    for (auto& p : axs) {
        auto r = p.f.get();
        if (out.dom.count(p.frame.session_id) == 0) continue;  // its session's DOM snapshot failed
        if (!r) {
            if (!eng_->conn.is_open()) return fail(crashed_error(r.error()));
            if (p.frame.session_id == t->session)
                if (auto c = crashed_during(t, false)) return fail(*c);
            if (r.error().is(errc::timeout) && p.frame.session_id == t->session && out.frames.empty()) {
                std::size_t nodes = 0;
                if (auto d = out.dom.find(t->session); d != out.dom.end()) nodes = d->second.nodes.size();
                return fail(errc::timeout,
                            "the page is too large to snapshot within " + std::to_string(opt_.navigation_timeout.count()) +
                                " ms (" + std::to_string(nodes) + " DOM nodes)",
                            "Read part of it: browser_extract, a snapshot of one ref's subtree, or the readable mode.",
                            json{{"dom_nodes", nodes}});
            }
            continue;
        }
        p.frame.nodes = r->contains("nodes") ? std::move((*r)["nodes"]) : json::array();
        if (auto o = owner_of.find(p.frame.frame_id); o != owner_of.end()) {
            p.frame.owner_session_id = o->second.first;
            p.frame.owner_backend_id = o->second.second;
        }
        out.frames.push_back(std::move(p.frame));
    }
    if (out.frames.empty() || out.frames[0].session_id != t->session) {
        if (auto c = crashed_during(t)) return fail(*c);
        return fail(errc::tool_failed, "the page has no accessibility tree yet", "Retry once the page has loaded.");
    }
    return out;
}

AGENTKIT_DECL auto browser::read_part(const tab_ptr& t, const detail::page_part& plan) -> result<json> {
    std::vector<std::future<result<json>>> ancestors, units;
    ancestors.reserve(plan.ancestors.size());
    units.reserve(plan.units.size());
    for (auto id : plan.ancestors)
        ancestors.push_back(eng_->conn.call_async("Accessibility.getPartialAXTree", json{{"backendNodeId", id}, {"fetchRelatives", false}},
                                                  t->session, opt_.navigation_timeout));
    for (auto id : plan.units)
        units.push_back(eng_->conn.call_async("Accessibility.queryAXTree", json{{"backendNodeId", id}}, t->session, opt_.navigation_timeout));
    json nodes = json::array();
    std::unordered_set<std::string> ids;
    std::optional<error> failed;
    bool joined = true;
    auto take = [&](std::future<result<json>>& f, bool required) {
        auto r = f.get();
        if (failed) return;
        if (!r) {
            // the browser or the page went away, or the page did not answer: the capture fails;
            // a node that is not in the accessibility tree (display:none, a <head>) has nothing to add
            if (!eng_->conn.is_open() || r.error().is(errc::timeout) || r.error().is(errc::browser_crashed)) failed = r.error();
            else if (required) joined = false;
            return;
        }
        auto it = r->find("nodes");
        if (it == r->end() || !it->is_array()) return;
        for (auto& n : *it) {
            const std::string id = n.is_object() ? n.value("nodeId", std::string()) : std::string();
            if (id.empty() || !ids.insert(id).second) continue;
            nodes.push_back(std::move(n));
        }
    };
    for (auto& f : ancestors) take(f, true);
    for (auto& f : units) take(f, false);
    if (failed) {
        if (!eng_->conn.is_open()) return fail(crashed_error(*failed));
        return fail(*failed);
    }
    // One tree: the root (no parent) first, every other node's parent read too.
    if (!joined || nodes.empty() || nodes[0].contains("parentId")) return json::array();
    for (const auto& n : nodes)
        if (auto p = n.find("parentId"); p != n.end() && (!p->is_string() || ids.count(p->get<std::string>()) == 0)) return json::array();
    return nodes;
}

AGENTKIT_DECL auto browser::crashed_during(const tab_ptr& t, bool wait) -> std::optional<error> {
    const auto bound = wait ? std::min<std::chrono::milliseconds>(opt_.call_timeout, 2000ms) : std::chrono::milliseconds(0);
    if (!wait_until([&] { return t->crashed; }, bound)) return std::nullopt;
    return error(errc::browser_crashed, "the page in " + t->id + " crashed (its renderer died) while it was being read",
                 "The next call replaces it with a new blank tab; navigate again.");
}

AGENTKIT_DECL auto browser::unstick(const tab_ptr& t) -> result<void> {
    auto stuck_error = [&] {
        return error(errc::timeout,
                     "the page did not answer within " + std::to_string(opt_.call_timeout.count()) +
                         " ms: it keeps raising dialogs and its scripts could not be stopped",
                     "Navigate elsewhere or close the tab; the next call tries the page again.");
    };
    {
        std::lock_guard lock(eng_->mu);
        if (t->stuck) return fail(stuck_error());  // found in this call already: each probe would wait again
    }
    auto r = call(t->session, "Runtime.evaluate", json{{"expression", "1"}, {"returnByValue", true}}, opt_.call_timeout);
    if (!r && r.error().is(errc::timeout)) {
        {
            std::lock_guard lock(eng_->mu);
            if (t->crashed) return {};  // the capture reports the crash
        }
        // A page flooding dialogs whose stop was lost answers nothing until the flood ends, which
        // can be minutes; a long script that merely did not take the interrupt finishes, and the
        // capture waits for it.
        if (!stop_scripts(t, {}, opt_.call_timeout)) {
            std::lock_guard lock(eng_->mu);
            t->stuck = t->scripts_stopped.count(t->session) != 0;
        }
    }
    std::lock_guard lock(eng_->mu);
    if (!t->stuck) return {};
    return fail(stuck_error());
}

AGENTKIT_DECL auto browser::begin_call(const tab_ptr& t) -> void {
    std::lock_guard lock(eng_->mu);
    t->stuck = false;
}

AGENTKIT_DECL auto browser::begin_page_call() -> result<tab_ptr> {
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = current_tab();
    if (!t) return fail(t.error());
    begin_call(*t);
    if (auto u = unstick(*t); !u) return fail(u.error());
    return *t;
}

AGENTKIT_DECL auto browser::take_snapshot(const tab_ptr& t, const snapshot_options& so, page_read how) -> result<page_snapshot> {
    if (auto u = unstick(t); !u) return fail(u.error());
    {
        std::lock_guard lock(eng_->mu);
        if (t->crashed)
            return fail(errc::browser_crashed, "the page in " + t->id + " crashed (its renderer died)",
                        "The next call replaces it with a new blank tab; navigate again.");
    }
    part_request pr;
    if (how == page_read::part && so.root_ref.empty() && !so.viewport_only) {
        // The first part is enough when the budget cut a control in it (every later control is
        // cut too: the refs shown are those of a whole read) and the part holds at least twice
        // the budget (a navigation's view collapses repeated regions and so shows more).
        pr.how = part_request::mode::automatic;
        pr.enough = [&](const capture_result& c) {
            const auto probe = render_snapshot(c.frames, c.dom, refs_, so, opt_.tokens);
            return probe.cut_controls > 0 && (so.token_budget == 0 || probe.total_tokens >= 2 * so.token_budget);
        };
    } else if (how == page_read::same_part) {
        std::lock_guard lock(eng_->mu);
        if (t->last_boundary != 0) {
            pr.how = part_request::mode::until;
            pr.boundary = t->last_boundary;
        }
    }
    auto cap = capture(t, true, pr);
    if (!cap && cap.error().is(errc::timeout) && stop_scripts(t, {}, opt_.navigation_timeout)) cap = capture(t, true, pr);
    if (!cap) return fail(cap.error());
    page_snapshot ps;
    ps.tab = t->id;
    if (cap->part) {
        ps.part_boundary = cap->part->boundary;
        ps.part_tail_digest = cap->part->tail_digest;
    }
    if (!so.root_ref.empty()) {
        auto rr = refs_.resolve(so.root_ref);
        if (!rr) return fail(rr.error());
    }
    // A hint about text (readable mode would read it better); a large page's is found beside
    // the render (both only read the trees).
    std::future<bool> article;
    if (!so.interactive_only && detail::ax_node_count(cap->frames) >= detail::large_capture_nodes) {
        try {
            article = std::async(std::launch::async, [&frames = cap->frames] { return classify_page(frames).article_like(); });
        } catch (const std::system_error&) {
            // no thread to spare: classified below, after the render
        }
    }
    ps.snap = render_snapshot(cap->frames, cap->dom, refs_, so, opt_.tokens);
    if (!so.root_ref.empty() && ps.snap.lines.empty())
        return fail(errc::ref_stale, "ref " + so.root_ref + " is not on the page any more", "Take a new snapshot.");
    ps.article_like = !so.interactive_only && (article.valid() ? article.get() : classify_page(cap->frames).article_like());
    fill_url_title(t, ps.url, ps.title);
    if (so.root_ref.empty() && !so.viewport_only && !so.interactive_only) {
        std::lock_guard lock(eng_->mu);
        t->last_lines = ps.snap.lines;
        t->has_last = true;
        t->last_boundary = ps.part_boundary;
        t->last_tail = ps.part_tail_digest;
    }
    release(std::move(*cap));
    return ps;
}

AGENTKIT_DECL void browser::release(capture_result&& c) {
    if (detail::ax_node_count(c.frames) < detail::large_capture_nodes) return;  // `c` is freed with the caller's result
    auto held = std::make_shared<capture_result>(std::move(c));
    std::lock_guard lock(eng_->mu);
    try {
        eng_->spawn_worker([held = std::move(held)]() mutable { held.reset(); });
    } catch (const std::system_error&) {
        // no thread to spare: freed here, as the closure goes
    }
}
}  // namespace agentkit::browser
