// agentkit/browser/impl/marks.hpp — browser: Set-of-Marks screenshots: a box and a label (the
// ref) on every element of the current snapshot, drawn on the captured image.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
//
// Why on the image and not on the page: an overlay injected into the page (even in a closed
// shadow root with pointer-events:none) is a DOM mutation the page's MutationObservers see, can
// be styled or hidden by the page's CSS, and must be removed after. Instead the page is captured
// as it is, each ref's box is measured over CDP (DOM.getContentQuads, in its renderer; offsets of
// out-of-process frames; clipped to every frame it is in and to the image) and the boxes and
// labels are drawn onto the image in an isolated world of the page (its own globals, which the
// page's scripts cannot reach) with an OffscreenCanvas, which is in no document: nothing is ever
// drawn on the page, nothing there changes, and no image library is needed here.
#pragma once

#include <agentkit/browser/browser.hpp>

#include <cmath>

namespace agentkit::browser {

namespace detail {

/// The refs a snapshot shows, in order, each once.
inline std::vector<std::string> refs_in(const snapshot& snap) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& r : snap.refs)
        if (seen.insert(r).second) out.push_back(r);
    return out;
}

// Draws the marks onto the image, in an isolated world (its own atob, Blob, canvas): boxes first,
// then each label at the first place around its box where it overlaps no label placed before
// (above-left, inside top-left, below-left, above-right, inside bottom-right, right, left; the
// least overlapping one when none is free), kept inside the image. Returns {image: the new
// image (base64), labels: [x, y, w, h] of each box's label in CSS px}.
inline constexpr const char* kDrawMarksScript = R"JS(async function(b64, mime, quality, cssW, boxes) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const bmp = await createImageBitmap(new Blob([bytes], {type: mime}));
  const k = cssW > 0 ? bmp.width / cssW : 1;
  const c = new OffscreenCanvas(bmp.width, bmp.height);
  const g = c.getContext('2d');
  g.drawImage(bmp, 0, 0);
  const colors = ['#d7263d', '#1b998b', '#2e5eaa', '#f46036', '#7b2cbf', '#00798c', '#8c5e00', '#c2185b'];
  const lw = Math.max(1, Math.round(2 * k));
  boxes.forEach((b, i) => {
    g.lineWidth = lw;
    g.strokeStyle = colors[i % colors.length];
    g.strokeRect(b.x * k + lw / 2, b.y * k + lw / 2, Math.max(1, b.w * k - lw), Math.max(1, b.h * k - lw));
  });
  const fs = Math.round(11 * k);
  g.font = 'bold ' + fs + 'px sans-serif';
  g.textBaseline = 'top';
  const placed = [], labels = [];
  const overlap = (a) => placed.reduce((n, p) =>
      n + Math.max(0, Math.min(a.x + a.w, p.x + p.w) - Math.max(a.x, p.x)) *
          Math.max(0, Math.min(a.y + a.h, p.y + p.h) - Math.max(a.y, p.y)), 0);
  const fit = (r) => ({x: Math.min(Math.max(0, r.x), c.width - r.w), y: Math.min(Math.max(0, r.y), c.height - r.h), w: r.w, h: r.h});
  boxes.forEach((b, i) => {
    const x = b.x * k, y = b.y * k, w = b.w * k, h = b.h * k;
    const tw = Math.ceil(g.measureText(b.ref).width + 4 * k), th = fs + Math.round(3 * k);
    const spots = [[x, y - th], [x, y], [x, y + h], [x + w - tw, y - th], [x + w - tw, y + h - th], [x + w, y], [x - tw, y]];
    let best = null, bestN = Infinity;
    for (const [sx, sy] of spots) {
      const r = fit({x: sx, y: sy, w: tw, h: th});
      const n = overlap(r);
      if (n < bestN) { best = r; bestN = n; }
      if (n === 0) break;
    }
    placed.push(best);
    labels.push([best.x / k, best.y / k, best.w / k, best.h / k]);
    g.fillStyle = colors[i % colors.length];
    g.fillRect(best.x, best.y, best.w, best.h);
    g.fillStyle = '#fff';
    g.fillText(b.ref, best.x + 2 * k, best.y + 1.5 * k);
  });
  const blob = await c.convertToBlob(mime === 'image/jpeg' ? {type: mime, quality: quality / 100} : {type: mime});
  const out = new Uint8Array(await blob.arrayBuffer());
  let s = '';
  for (let i = 0; i < out.length; i += 0x8000) s += String.fromCharCode.apply(null, out.subarray(i, i + 0x8000));
  return {image: btoa(s), labels};
})JS";

}  // namespace detail

AGENTKIT_DECL auto browser::isolated_call(const tab_ptr& t, const char* fn, json args, bool by_value) -> result<json> {
    std::string frame, loader;
    std::int64_t ctx = 0;
    {
        std::lock_guard lock(eng_->mu);
        frame = t->main_frame;
        loader = main_loader(t);
        if (t->world_loader == loader) ctx = t->world_context;
    }
    result<json> r = fail(errc::tool_failed, "no isolated world");
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (ctx == 0) {
            auto w = call(t->session, "Page.createIsolatedWorld", json{{"frameId", frame}, {"worldName", "agentkit"}});
            if (!w) return fail(w.error());
            ctx = detail::jint(*w, "executionContextId");
            std::lock_guard lock(eng_->mu);
            t->world_loader = loader;
            t->world_context = ctx;
        }
        r = call(t->session, "Runtime.callFunctionOn",
                 json{{"functionDeclaration", fn}, {"executionContextId", ctx}, {"arguments", args}, {"awaitPromise", true},
                      {"returnByValue", by_value}},
                 opt_.navigation_timeout);
        if (r || r.error().is(errc::browser_crashed) || r.error().is(errc::timeout)) break;
        ctx = 0;  // the world went with its document: make a new one, once
    }
    if (!r) return fail(r.error());
    if (r->contains("exceptionDetails")) {
        const json& ex = detail::jobj(*r, "exceptionDetails");
        const std::string what = detail::jstr(detail::jobj(ex, "exception"), "description");
        return fail(errc::tool_failed, detail::quoting_page("script failed", "exception: " + detail::page_quote(what.empty() ? detail::jstr(ex, "text") : what, 300),
                                                            nonce_));
    }
    if (!by_value) return detail::jobj(*r, "result");
    return detail::jobj(*r, "result").value("value", json());
}

AGENTKIT_DECL auto browser::isolated_eval(const tab_ptr& t, const std::string& expression) -> result<json> {
    return isolated_call(t, ("function() { return " + expression + "; }").c_str(), json::array());
}

AGENTKIT_DECL auto browser::frame_clip(const tab_ptr& t, const std::string& session, const std::string& frame,
                                std::map<std::string, detail::css_rect>& cache, int depth) -> detail::css_rect {
    static constexpr detail::css_rect everything{-1e18, -1e18, 1e18, 1e18};
    if (frame.empty() || depth > 8) return everything;
    if (auto it = cache.find(frame); it != cache.end()) return it->second;
    std::string parent_session = session, parent_frame;
    bool main = false;
    {
        std::lock_guard lock(eng_->mu);
        main = frame == t->main_frame;
        if (auto c = t->children.find(session); c != t->children.end() && c->second.frame_id == frame)
            parent_session = c->second.parent_session;  // the root frame of an out-of-process iframe
        if (auto f = t->frames.find(frame); f != t->frames.end()) parent_frame = f->second.parent;
    }
    detail::css_rect clip = everything;
    if (!main) {
        clip = {};  // a frame whose <iframe> cannot be measured shows nothing
        auto owner = call(parent_session, "DOM.getFrameOwner", json{{"frameId", frame}});
        auto box = owner ? call(parent_session, "DOM.getBoxModel", json{{"backendNodeId", detail::jint(*owner, "backendNodeId")}})
                         : result<json>(fail(errc::not_found, "no frame owner"));
        if (box) {
            const json& content = detail::jobj(*box, "model").value("content", json::array());
            auto r = detail::quads_bounds(json::array({content}));
            auto off = frame_offset(t, parent_session);
            if (off && !r.empty()) {
                r = {r.x0 + off->first, r.y0 + off->second, r.x1 + off->first, r.y1 + off->second};
                clip = r.intersect(frame_clip(t, parent_session, parent_frame, cache, depth + 1));
            }
        }
    }
    cache[frame] = clip;
    return clip;
}

AGENTKIT_DECL auto browser::mark_screenshot(const tab_ptr& t, screenshot_result& shot, const screenshot_options& o,
                                     double page_x, double page_y) -> result<void> {
    auto snap = take_snapshot(t, o.snapshot);
    if (!snap) return fail(snap.error());
    // The image in CSS px: the viewport, or the whole page (its coordinates: the viewport's plus the scroll).
    const detail::css_rect image{0, 0, shot.width, shot.height};
    const double dx = o.full_page ? page_x : 0, dy = o.full_page ? page_y : 0;
    std::map<std::string, detail::css_rect> clips;
    std::map<std::string, std::pair<double, double>> offsets;
    json boxes = json::array();
    // Every ref's quads asked for at once (one round trip's wait for all, not one per ref: a
    // page has hundreds), then read in snapshot order.
    struct pending {
        std::string ref;
        std::optional<ref_target> target;
        std::future<result<json>> quads;
    };
    std::vector<pending> asked;
    for (const auto& ref : detail::refs_in(snap->snap)) {
        pending p{ref, std::nullopt, {}};
        if (auto target = refs_.resolve(ref)) {
            p.target = *target;
            p.quads = eng_->conn.call_async("DOM.getContentQuads", json{{"backendNodeId", target->backend_node_id}},
                                            target->session_id);
        }
        asked.push_back(std::move(p));
    }
    for (auto& p : asked) {
        const std::string& ref = p.ref;
        if (!p.target || !p.quads.valid()) {
            shot.unmarked.push_back(ref);
            continue;
        }
        const ref_target* target = &*p.target;
        auto q = p.quads.get();
        if (!q) {
            if (!eng_->conn.is_open()) return fail(crashed_error(q.error()));
            shot.unmarked.push_back(ref);  // no box: hidden, collapsed, gone
            continue;
        }
        auto r = detail::quads_bounds(q->value("quads", json::array()));
        auto off = offsets.find(target->session_id);
        if (off == offsets.end()) {
            auto fo = frame_offset(t, target->session_id);
            off = offsets.emplace(target->session_id, fo ? *fo : std::pair{1e18, 1e18}).first;  // an unplaceable frame: off-screen
        }
        r = {r.x0 + off->second.first, r.y0 + off->second.second, r.x1 + off->second.first, r.y1 + off->second.second};
        r = r.intersect(frame_clip(t, target->session_id, target->frame_id, clips));
        r = {r.x0 + dx, r.y0 + dy, r.x1 + dx, r.y1 + dy};
        r = r.intersect(image);
        if (r.empty()) {
            shot.unmarked.push_back(ref);
            continue;
        }
        shot.marks.push_back(screenshot_mark{ref, r.x0, r.y0, r.x1 - r.x0, r.y1 - r.y0});
        boxes.push_back(json{{"ref", ref}, {"x", r.x0}, {"y", r.y0}, {"w", r.x1 - r.x0}, {"h", r.y1 - r.y0}});
    }
    shot.snapshot = std::move(*snap);
    const json args = json::array({json{{"value", shot.base64}}, json{{"value", shot.mime_type}}, json{{"value", o.quality}},
                                   json{{"value", shot.width}}, json{{"value", boxes}}});
    auto drawn = isolated_call(t, detail::kDrawMarksScript, args);
    if (!drawn) {
        error e = drawn.error();
        e.message = "drawing the marks failed: " + e.message;
        return fail(std::move(e));
    }
    const std::string drawn_image = drawn->is_object() ? detail::jstr(*drawn, "image") : std::string();
    const json labels = drawn->is_object() && drawn->contains("labels") ? drawn->at("labels") : json();
    if (drawn_image.empty() || !labels.is_array() || labels.size() != shot.marks.size())
        return fail(errc::tool_failed, "drawing the marks returned no image");
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const json& l = labels[i];
        if (!l.is_array() || l.size() != 4 || !l[0].is_number() || !l[1].is_number() || !l[2].is_number() ||
            !l[3].is_number())
            return fail(errc::tool_failed, "drawing the marks returned a malformed label box");
        auto& m = shot.marks[i];
        m.label_x = l[0].get<double>();
        m.label_y = l[1].get<double>();
        m.label_width = l[2].get<double>();
        m.label_height = l[3].get<double>();
    }
    shot.base64 = drawn_image;
    return {};
}

}  // namespace agentkit::browser
