// agentkit/browser/snapshot.hpp — compact accessibility snapshots with element refs.
//
// Input: what the browser reports per frame — Accessibility.getFullAXTree (roles, accessible
// names, states, computed by Chromium itself) fused with DOMSnapshot.captureSnapshot (layout
// boxes, computed cursor, and Chromium's own `isClickable`, which covers JS click listeners).
// Output: one element per line, indentation for structure, the state that matters, and a
// short ref `[ref=e12]` on everything a model may act on:
//
//   h1 "Sign up"
//   navigation
//    link "Home" /home [ref=e1]
//   form
//    textbox "Name" = "Ann" [ref=e3]
//    checkbox "Subscribe" checked [ref=e5]
//    combobox = "Two" options: One|Two [ref=e6]
//    button "Send" [ref=e8]
//   clickable "Click me" [ref=e11]
//   Some paragraph text that is plain.
//
// The interactive-only view lists controls and the headings they stand under, each control's
// ref first: `e8 button "Send"`.
//
// Refs are identities (see ref_registry): one ref stands for one DOM node of one document.
// Rendering is a pure function of its inputs, so it is unit-tested on recorded CDP output.

//
// Layout: dom_index.hpp (DOM facts), refs.hpp (the ref registry), snapshot_types.hpp (inputs and
// outputs), detail/render.hpp (node → lines), snapshot_diff.hpp (deltas); this header renders.
#pragma once

#include <agentkit/browser/snapshot_diff.hpp>
#include <agentkit/browser/detail/render.hpp>
#include <agentkit/browser/dom_index.hpp>
#include <agentkit/browser/refs.hpp>
#include <agentkit/browser/snapshot_types.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/core/tokens.hpp>
#include <agentkit/format/budget.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// Render frames (index 0 is the main frame; child frames are placed where their owner
/// <iframe> appears, found through `dom[session].frame_owners` for same-process frames and
/// `ax_frame::owner_*` for out-of-process ones).
namespace detail {
/// The one-line snapshot for a tree whose data had the wrong shape.
inline snapshot unreadable_tree(const json::exception& e, const token_counter& tokens) {
    snapshot out;
    out.text = std::string("(the page's accessibility tree could not be read: ") + e.what() + ")\n";
    out.tokens = out.total_tokens = tokens.count(out.text);
    return out;
}

/// A line as the model reads it: its indentation, its text, a newline.
inline std::string rendered_line(const snapshot_line& l) {
    std::string s(l.depth, ' ');
    s += l.text;
    s += '\n';
    return s;
}

/// A snapshot's cut note, in format/budget.hpp's wording: how many of its lines are shown, which
/// were hidden, and the page's part that was read when it was read in part (`percent_read` < 100).
///   "[cut: showing 212 of 1,304 lines of snapshot (~6,000 tokens; hidden: 1,060 text lines, 32 controls); more: a ref's
///   subtree, viewport_only or a page search]"
[[nodiscard]] inline std::string snapshot_cut_note(std::size_t shown, std::size_t lines, std::size_t cut_text, std::size_t cut_controls,
                                                   std::size_t token_budget, std::size_t percent_read) {
    std::string what = "snapshot (~" + group_digits(token_budget) + " tokens; hidden: ";
    if (cut_text > 0) what += group_digits(cut_text) + (cut_text == 1 ? " text line" : " text lines");
    if (cut_text > 0 && cut_controls > 0) what += ", ";
    if (cut_controls > 0) what += group_digits(cut_controls) + (cut_controls == 1 ? " control" : " controls");
    if (percent_read < 100) what += "; the first " + std::to_string(percent_read) + "% of a large page read";
    what += ")";
    return cut_note(shown, lines, "lines", what, "more: a ref's subtree, viewport_only or a page search");
}

/// Compose what the model sees of `out.lines` within `opt.token_budget`: `text`, `tokens`, the
/// refs shown, and what the budget cut (counts and a note saying how to see the rest). Over
/// budget, summary lines come first, then controls (and the structure above them) as a prefix in
/// document order, then headings, then text in document order. `links`: an interactive-only
/// view's picture links, put back as they were when their partner is not shown (it rewrites
/// those lines; nullptr for other views). Without `links` it may be called again after `lines`
/// changed (a page's repeated regions collapsed).
inline void fit_to_budget(snapshot& out, const snapshot_options& opt, const token_counter& tokens,
                          const link_pairs* links = nullptr) {
    out.text.clear();
    out.refs.clear();
    out.total_tokens = out.shown_lines = out.cut_text_lines = out.cut_controls = out.shortened_lines = 0;
    std::vector<std::size_t> cost(out.lines.size());
    for (std::size_t i = 0; i < out.lines.size(); ++i) {
        cost[i] = tokens.count(rendered_line(out.lines[i]));
        out.total_tokens += cost[i];
    }

    std::vector<bool> keep(out.lines.size(), true);
    if (opt.token_budget > 0 && out.total_tokens > opt.token_budget) {
        std::fill(keep.begin(), keep.end(), false);
        std::size_t used = 0;
        // room for the cut note at its longest (the same for a page read whole or in part: both
        // show the same lines)
        constexpr std::size_t n = 999999;
        const std::size_t reserve = std::min(tokens.count(snapshot_cut_note(n, n, n, n, opt.token_budget, 99)) + 1, opt.token_budget / 2);
        const std::size_t budget = opt.token_budget - reserve;
        auto take = [&](std::size_t i) -> bool {
            std::vector<std::size_t> chain;
            for (std::size_t p = out.lines[i].parent; p != static_cast<std::size_t>(-1) && !keep[p]; p = out.lines[p].parent)
                chain.push_back(p);
            std::size_t need = cost[i];
            for (auto p : chain) need += cost[p];
            if (used + need > budget) return false;
            used += need;
            keep[i] = true;
            for (auto p : chain) keep[p] = true;
            return true;
        };
        // A line standing for a region the model knows (one line each, a few at most) first.
        for (std::size_t i = 0; i < out.lines.size(); ++i)
            if (out.lines[i].summary && !take(i)) ++out.cut_text_lines;
        // Controls: the first ones in document order, up to the first that does not fit (a
        // contiguous prefix is predictable: "everything after X was cut").
        bool full = false;
        for (std::size_t i = 0; i < out.lines.size(); ++i)
            if (out.lines[i].interactive && (full || !take(i))) {
                full = true;
                ++out.cut_controls;
            }
        // headings next, then text in document order
        for (int pass = 0; pass < 2; ++pass)
            for (std::size_t i = 0; i < out.lines.size(); ++i) {
                const auto& l = out.lines[i];
                if (l.interactive || l.structural || l.summary || keep[i]) continue;
                if ((pass == 0) != (l.heading != 0)) continue;
                if (!take(i)) ++out.cut_text_lines;
            }
    }
    if (links != nullptr) {  // a picture link whose headline is cut or outside the subtree: as it was
        std::set<std::string> shown;
        for (std::size_t i = 0; i < out.lines.size(); ++i)
            if (keep[i] && !out.lines[i].ref.empty()) shown.insert(out.lines[i].ref);
        for (std::size_t i = 0; i < out.lines.size(); ++i)
            if (keep[i]) links->unpair(out.lines[i], shown);
    }
    for (std::size_t i = 0; i < out.lines.size(); ++i) {
        if (!keep[i]) continue;
        out.text += rendered_line(out.lines[i]);
        if (!out.lines[i].ref.empty()) out.refs.push_back(out.lines[i].ref);
        if (out.lines[i].shortened) ++out.shortened_lines;
        ++out.shown_lines;
    }
    if (out.shortened_lines > 0)
        out.text += "[" + std::to_string(out.shortened_lines) + " lines shortened (…): readable mode shows them whole]\n";
    if (out.truncated())
        out.text += snapshot_cut_note(out.shown_lines, out.lines.size(), out.cut_text_lines, out.cut_controls, opt.token_budget,
                                      out.percent_read()) +
                    "\n";
    out.tokens = tokens.count(out.text);
}

inline snapshot render_snapshot_unchecked(const std::vector<ax_frame>& frames, const std::map<std::string, dom_index>& dom,
                                          ref_registry& refs, const snapshot_options& opt, const token_counter& tokens) {
    snapshot out;
    if (frames.empty()) return out;
    out.page_nodes = frames[0].dom_nodes;
    out.page_nodes_read = frames[0].dom_nodes_read;
    for (const auto& f : frames) out.ax_nodes += f.nodes.size();
    detail::render_ctx c;
    c.frames = &frames;
    c.dom = &dom;
    c.refs = &refs;
    c.opt = &opt;
    c.lines = &out.lines;
    for (std::size_t i = 0; i < frames.size(); ++i) c.frame_by_id.emplace(frames[i].frame_id, i);
    std::string prefix;
    detail::render_frame(c, 0, 0, static_cast<std::size_t>(-1), prefix);
    // Frames nobody placed (out-of-process frames whose owner was not matched): append them.
    for (std::size_t i = 1; i < frames.size(); ++i) {
        if (c.visited_frames.count(frames[i].frame_id + "|" + frames[i].session_id) != 0) continue;
        const std::size_t l = detail::push_line(c, 0, "iframe " + detail::quote_text(detail::short_url(frames[i].url, frames[0].url)),
                                                "", false, true, static_cast<std::size_t>(-1), prefix);
        detail::render_frame(c, i, 1, l, prefix);
    }
    // A text line keeps its runs' spaces while runs join it; the last one's trailing space goes.
    // Its page text may spell a ref mark, also across runs: shown defanged (defang_ref_marks).
    for (auto& l : out.lines) {
        if (!l.text_run) continue;
        while (!l.text.empty() && l.text.back() == ' ') l.text.pop_back();
        detail::defang_ref_marks(l.text);
    }
    if (c.too_deep > 0)
        detail::push_line(c, 0,
                          "(" + std::to_string(c.too_deep) + " parts of the page nested more than " +
                              std::to_string(detail::max_render_nesting) + " levels deep are not shown)",
                          "", false, false, static_cast<std::size_t>(-1), prefix);

    // Interactive-only: a heading stays as the context of the controls of its section: up to the
    // next heading of its level or above, within the element that holds it (scope_end). A
    // heading no control follows says nothing about what can be done.
    if (opt.interactive_only) {
        std::vector<snapshot_line> kept;
        std::vector<std::size_t> remap(out.lines.size(), static_cast<std::size_t>(-1));
        for (std::size_t i = 0; i < out.lines.size(); ++i) {
            if (out.lines[i].heading != 0 && !out.lines[i].interactive) {
                bool control = false;
                const std::size_t end = std::min(out.lines.size(), out.lines[i].scope_end);
                for (std::size_t j = i + 1; j < end && !(out.lines[j].heading != 0 && out.lines[j].heading <= out.lines[i].heading &&
                                                         !out.lines[j].interactive);
                     ++j)
                    if (out.lines[j].interactive) {
                        control = true;
                        break;
                    }
                if (!control) continue;
            }
            remap[i] = kept.size();
            kept.push_back(out.lines[i]);
        }
        for (auto& l : kept) {
            if (l.parent != static_cast<std::size_t>(-1)) l.parent = remap[l.parent];
            detail::lead_with_ref(l);
        }
        out.lines = std::move(kept);
    }

    // Structural lines with nothing under them are noise.
    {
        std::vector<bool> used(out.lines.size(), false);
        for (std::size_t i = 0; i < out.lines.size(); ++i) {
            if (out.lines[i].structural) continue;
            for (std::size_t p = out.lines[i].parent; p != static_cast<std::size_t>(-1) && !used[p]; p = out.lines[p].parent)
                used[p] = true;
        }
        std::vector<snapshot_line> kept;
        std::vector<std::size_t> remap(out.lines.size(), static_cast<std::size_t>(-1));
        for (std::size_t i = 0; i < out.lines.size(); ++i) {
            if (out.lines[i].structural && !used[i]) continue;
            remap[i] = kept.size();
            kept.push_back(out.lines[i]);
        }
        for (auto& l : kept)
            if (l.parent != static_cast<std::size_t>(-1)) l.parent = remap[l.parent];
        out.lines = std::move(kept);
    }

    // Root subtree: keep only the lines below the ref's line.
    if (!opt.root_ref.empty()) {
        std::vector<snapshot_line> sub;
        for (std::size_t i = 0; i < out.lines.size(); ++i) {
            if (out.lines[i].ref != opt.root_ref) continue;
            const std::size_t base = out.lines[i].depth;
            sub.push_back(out.lines[i]);
            sub.back().depth = 0;
            for (std::size_t j = i + 1; j < out.lines.size() && out.lines[j].depth > base; ++j) {
                sub.push_back(out.lines[j]);
                sub.back().depth -= base;
            }
            break;
        }
        for (auto& l : sub) l.parent = static_cast<std::size_t>(-1);
        out.lines = std::move(sub);
    }

    for (const auto& l : out.lines) out.full_text += rendered_line(l);
    // Long runs of page text are shortened (the full text stays in full_text and readable mode).
    if (opt.max_text_line > 0) {
        for (auto& l : out.lines) {
            if (!l.text_run || l.text.size() <= opt.max_text_line + 20) continue;
            std::size_t cut = utf8_safe_prefix(l.text, opt.max_text_line);
            const std::size_t sp = l.text.rfind(' ', cut);
            if (sp != std::string::npos && sp > opt.max_text_line / 2) cut = sp;
            l.text.resize(cut);
            l.text += "…";
            l.shortened = true;
        }
    }
    fit_to_budget(out, opt, tokens, opt.interactive_only ? &c.links : nullptr);
    return out;
}
}  // namespace detail

/// Render the accessibility tree of a page's frames as the compact snapshot text. Data of the
/// wrong shape (a broken or hostile CDP endpoint) gives a one-line snapshot saying so, never an
/// exception; cycles and absurd nesting are cut.
[[nodiscard]] inline snapshot render_snapshot(const std::vector<ax_frame>& frames, const std::map<std::string, dom_index>& dom,
                                              ref_registry& refs, const snapshot_options& opt,
                                              const token_counter& tokens = {}) {
    try {
        return detail::render_snapshot_unchecked(frames, dom, refs, opt, tokens);
    } catch (const json::exception& e) {
        return detail::unreadable_tree(e, tokens);
    }
}

}  // namespace agentkit::browser
