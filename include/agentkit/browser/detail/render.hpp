// agentkit/browser/detail/render.hpp — how one accessibility node becomes snapshot lines: roles
// that are interactive, transparent or structural, names and values, link URLs, clickables found
// by the DOM (listeners, cursor), aria-hidden subtrees, frames placed at their owners. The words
// of a line (role classes, clipping, quoting, URLs) are in line_text.hpp.
#pragma once

#include <agentkit/browser/refs.hpp>
#include <agentkit/browser/detail/control_lines.hpp>
#include <agentkit/browser/detail/page_data.hpp>
#include <agentkit/browser/detail/icon_hint.hpp>
#include <agentkit/browser/detail/line_text.hpp>
#include <agentkit/browser/detail/tree_widgets.hpp>
#include <agentkit/browser/detail/widget_facts.hpp>
#include <agentkit/browser/dom_index.hpp>
#include <agentkit/browser/snapshot_types.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/core/tokens.hpp>

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

namespace agentkit::browser::detail {

/// A label for a control the page left unnamed and that says nothing of itself (see
/// derive_name): an identifying attribute ("" when none).
inline std::string fallback_label(const dom_node_facts* f) {
    if (f == nullptr) return {};
    for (auto a : {"aria-describedby", "data-testid", "data-test", "name", "id", "placeholder"}) {
        auto v = f->attr(a);
        if (!v.empty() && v.size() < 60) return std::string(v);
    }
    return {};
}

struct render_ctx {
    const std::vector<ax_frame>* frames;
    const std::map<std::string, dom_index>* dom;
    ref_registry* refs;
    const snapshot_options* opt;
    std::vector<snapshot_line>* lines;
    std::unordered_map<std::string, std::size_t> frame_by_id;
    std::set<std::string> visited_frames;
    std::size_t unnamed_counter = 0;
    int suppress_text = 0;
    std::set<std::string> consumed;  ///< text nodes already used as a control's label
    std::size_t shortened = 0;       ///< text lines shortened by max_text_line
    // A page controls its tree's shape: nesting is bounded (deep recursion would overflow the
    // host's stack) and every node is rendered once, whatever the tree claims.
    std::size_t nesting = 0;
    std::size_t too_deep = 0;                    ///< subtrees not shown: nested too deeply
    std::unordered_set<const json*> rendered;   ///< AX nodes already rendered
    std::set<std::pair<std::string, std::int64_t>> hidden_seen;  ///< DOM nodes of aria-hidden subtrees seen
    std::set<std::pair<std::string, std::int64_t>> structure;     ///< DOM-only clickables rendered as structure
    std::set<std::pair<std::string, std::int64_t>> pointer_items; ///< pointer elements outside the tree, listed once
    std::set<std::pair<std::string, std::int64_t>> delegates;     ///< lists whose listener serves their items (delegates_to_items)
    int delegated_cells = 0;  ///< inside a grid whose listener serves its cells (cells_served): cells are controls
    std::size_t hidden_climb = 0;  ///< steps taken up the DOM looking for aria-hidden elements
    /// aria-current of an element without a line of its own (a wizard's <li> step), for the first
    /// line below it: a control's state, a text line's "(current step) " (see aria_current)
    std::string pending_current;
    /// Punctuation that opened a line before an inline element ('"' of `"<b>Quoted</b>"`): it
    /// leads the next text line of its block (pending_punct_block), else is dropped.
    std::string pending_punct;
    std::int64_t pending_punct_block = 0;
    /// Headings waiting for the end of their section: the AX node that holds a heading and what
    /// follows it (see heading_scope), and the heading lines whose scope_end it sets once rendered.
    std::unordered_map<const json*, std::vector<std::size_t>> open_scopes;
    link_pairs links;  ///< interactive-only: pictures beside their headlines (control_lines.hpp)
};

/// How deeply nested a node may be and still be rendered (real pages stay far below it).
inline constexpr std::size_t max_render_nesting = 256;

/// How a control without an accessible name is shown after its role: what a person would read
/// from it, marked as derived (` (icon: search)`, ` (title: "Delete")`), else an identifying
/// attribute (` [save-btn]`), else a number that tells it from its neighbours (` [unlabeled #2]`).
inline std::string unnamed_label(render_ctx& c, const frame_view& fv, std::int64_t backend, const dom_node_facts* f,
                                 bool* anonymous = nullptr) {
    if (anonymous != nullptr) *anonymous = false;
    if (fv.dom != nullptr && backend != 0) {
        const derived_name d = derive_name(*fv.dom, backend);
        if (!d.empty()) return " (" + d.kind + ": " + (d.kind == "icon" || d.kind == "action" ? clip(d.text, 40) : quote_text(clip(d.text, 60))) + ")";
    }
    if (anonymous != nullptr) *anonymous = true;  // an id or a number does not say where a link goes; its URL does
    std::string hint = fallback_label(f);
    if (hint.empty()) hint = "unlabeled #" + std::to_string(++c.unnamed_counter);
    return " [" + clip(hint, 40) + "]";
}

inline void render_node(render_ctx& c, const frame_view& fv, const json& node, std::size_t depth, std::size_t parent,
                        bool inside_interactive, std::string& pending_prefix);

inline void render_children(render_ctx& c, const frame_view& fv, const json& node, std::size_t depth,
                            std::size_t parent, bool inside_interactive, std::string& pending_prefix) {
    auto it = node.find("childIds");
    if (it == node.end() || !it->is_array()) return;
    if (c.nesting >= max_render_nesting) {
        ++c.too_deep;
        return;
    }
    ++c.nesting;
    for (const auto& cid : *it) {
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get_ref<const std::string&>());
        if (f == fv.by_id.end() || !c.rendered.insert(f->second).second) continue;  // once per node (no cycles)
        render_node(c, fv, *f->second, depth, parent, inside_interactive, pending_prefix);
    }
    --c.nesting;
}

/// The block (dom_index::block_of) a text node's text is laid out in; 0 when unknown.
inline std::int64_t text_block(const frame_view& fv, const json& node) {
    auto b = node.find("backendDOMNodeId");
    if (fv.dom == nullptr || b == node.end() || !b->is_number_integer()) return 0;
    return fv.dom->block_of(b->get<std::int64_t>());
}

/// Concatenated static text below a node (for rows and names of clickable containers), as it
/// renders: runs of one block joined as they are, runs of different blocks (or of unknown
/// ones) with a space between; with `skip_controls`, not the text of controls below it (a
/// card's name is not its buttons'). At most `visits` nodes are looked at and `depth` levels
/// deep (a page's tree may be cyclic). The caller clip()s the result.
inline void collect_text(const frame_view& fv, const json& node, std::string& out, std::size_t limit, int depth,
                         int& visits, std::int64_t& block, bool skip_controls = false) {
    if (out.size() > limit || depth > 64 || --visits < 0) return;
    const std::string role = str_field(node, "role");
    if (role == "StaticText") {
        const std::string t = text_run(str_field(node, "name"), limit);
        if (t.empty()) return;
        const std::int64_t b = text_block(fv, node);
        if (!out.empty() && out.back() != ' ' && t.front() != ' ' && (b == 0 || b != block)) out += ' ';
        append_run(out, t);
        block = b;
        return;
    }
    if (skip_controls && depth > 0) {
        if (is_interactive_role(role)) return;
        if (auto b = node.find("backendDOMNodeId"); fv.dom != nullptr && b != node.end() && b->is_number_integer())
            if (const auto* df = fv.dom->find(b->get<std::int64_t>()); df != nullptr && df->clickable && df->tag != "label") return;
    }
    auto it = node.find("childIds");
    if (it == node.end()) return;
    for (const auto& cid : *it) {
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get_ref<const std::string&>());
        if (f != fv.by_id.end()) collect_text(fv, *f->second, out, limit, depth + 1, visits, block, skip_controls);
    }
}

inline void collect_text(const frame_view& fv, const json& node, std::string& out, std::size_t limit, bool skip_controls = false) {
    int visits = 2000;
    std::int64_t block = 0;
    collect_text(fv, node, out, limit, 0, visits, block, skip_controls);
}

/// What is below an element that only the DOM calls clickable (a click listener, a pointer
/// cursor), to tell a control from structure: other controls (how many), a heading, how much
/// text in all and outside those controls. Looks at no more than `budget` nodes (a subtree
/// larger than that is structure) and not inside the controls it finds.
struct subtree_facts {
    std::size_t controls = 0;
    bool heading = false;
    bool too_big = false;
    std::size_t text = 0;        ///< characters of text outside the controls
    std::size_t letters = 0;     ///< of which letters and digits (word_chars)
    std::size_t control_letters = 0;  ///< letters and digits of the controls' own text
};

inline void scan_subtree(const frame_view& fv, const json& node, subtree_facts& out, int& budget, int depth) {
    auto it = node.find("childIds");
    if (it == node.end() || !it->is_array() || depth > 64) return;
    for (const auto& cid : *it) {
        if (out.too_big) return;
        if (--budget < 0) {
            out.too_big = true;
            return;
        }
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get_ref<const std::string&>());
        if (f == fv.by_id.end()) continue;
        const json& ch = *f->second;
        const std::string role = str_field(ch, "role");
        bool control = is_interactive_role(role);
        if (role == "heading") out.heading = true;
        if (role == "StaticText") {
            const std::string t = str_field(ch, "name");
            out.text += t.size();
            out.letters += word_chars(t);
        }
        if (!control && fv.dom != nullptr && ch.contains("backendDOMNodeId") && ch["backendDOMNodeId"].is_number_integer()) {
            if (const auto* df = fv.dom->find(ch["backendDOMNodeId"].get<std::int64_t>());
                df != nullptr && ((df->clickable && df->tag != "label") || fv.dom->own_pointer(*df)))
                control = true;
        }
        if (control) {
            ++out.controls;
            std::string t;
            int visits = 64;
            std::int64_t block = 0;
            collect_text(fv, ch, t, 200, 0, visits, block);
            out.control_letters += word_chars(t);
            budget -= 64 - std::max(visits, 0);
            continue;
        }
        scan_subtree(fv, ch, out, budget, depth + 1);
    }
}

/// Whether an element the DOM alone calls clickable is structure rather than a control: the
/// page's body, document or app root (event delegation: React and most frameworks listen on
/// their root), a container of headings, of more than a sentence or two of text, or of other
/// controls and nothing else to read. Such an element gets no `clickable` line and no ref; its
/// content renders as if it had no listener. A small element with a listener (a card's caption,
/// a span that acts as a link) stays a control, and so does a row or a card with its own text
/// beside a few controls of its own (an inbox row with its star and trash icons) when it looks
/// like one: a pointer cursor of its own, or alike siblings.
inline bool clickable_is_structure(const frame_view& fv, std::int64_t backend, const json& node, const dom_node_facts& df) {
    if (df.tag == "body" || df.tag == "html") return true;
    const std::string_view id = df.attr("id");
    if (id == "root" || id == "app" || id == "__next" || id == "__nuxt" || id == "___gatsby" || !df.attr("data-reactroot").empty())
        return true;
    if (fv.dom != nullptr && fv.dom->viewport_w > 0 && fv.dom->viewport_h > 0 && df.w >= 0.9 * fv.dom->viewport_w &&
        df.h >= 0.6 * fv.dom->viewport_h)
        return true;  // covers the page: a root, not a button
    subtree_facts facts;
    int budget = 400;
    scan_subtree(fv, node, facts, budget, 0);
    constexpr std::size_t sentence_or_two = 200;
    constexpr std::size_t a_rows_controls = 6;
    if (facts.heading || facts.too_big || facts.text > sentence_or_two) return true;
    if (facts.controls == 0) return false;
    constexpr std::size_t a_word = 3;
    // its own text says more than its controls do (not a bullet beside a headline's link)
    const bool row_like = facts.letters >= a_word && facts.letters > facts.control_letters &&
                          facts.controls <= a_rows_controls && fv.dom != nullptr &&
                          (fv.dom->own_pointer(df) || repeated_item(*fv.dom, backend, df));
    return !row_like;
}

/// The text of the sibling right after (else right before) a node, when that sibling holds
/// only text; marks its text nodes as consumed so they are not rendered again.
inline std::string nearby_text(render_ctx& c, const frame_view& fv, const json& node, std::size_t max) {
    auto pid = node.find("parentId");
    if (pid == node.end() || !pid->is_string()) return {};
    auto p = fv.by_id.find(pid->get_ref<const std::string&>());
    if (p == fv.by_id.end()) return {};
    auto kids = p->second->find("childIds");
    if (kids == p->second->end() || !kids->is_array()) return {};
    const std::string me = node.value("nodeId", std::string());
    std::size_t idx = kids->size();
    for (std::size_t i = 0; i < kids->size(); ++i)
        if ((*kids)[i].is_string() && (*kids)[i].get<std::string>() == me) idx = i;
    if (idx == kids->size()) return {};
    auto try_sibling = [&](std::size_t i) -> std::string {
        if (i >= kids->size() || !(*kids)[i].is_string()) return {};
        auto f = fv.by_id.find((*kids)[i].get_ref<const std::string&>());
        if (f == fv.by_id.end()) return {};
        const std::string r = str_field(*f->second, "role");
        if (!role_in(r, {"StaticText", "generic", "none", "paragraph", "LabelText", "Label"}) ||
            has_interactive_descendant(fv, *f->second))
            return {};
        if (fv.dom != nullptr && f->second->contains("backendDOMNodeId") && (*f->second)["backendDOMNodeId"].is_number_integer())
            if (auto* df = fv.dom->find((*f->second)["backendDOMNodeId"].get<std::int64_t>()); df != nullptr && (df->clickable || df->pointer))
                return {};
        std::string t;
        collect_text(fv, *f->second, t, max);
        t = clip(t, max);
        if (t.empty()) return {};
        // consume the text nodes of that sibling
        std::vector<const json*> stack{f->second};
        while (!stack.empty()) {
            const json* n = stack.back();
            stack.pop_back();
            if (!c.consumed.insert(n->value("nodeId", std::string())).second) continue;  // once (a broken tree can loop)
            if (auto ch = n->find("childIds"); ch != n->end() && ch->is_array())
                for (const auto& id : *ch)
                    if (id.is_string())
                        if (auto g = fv.by_id.find(id.get_ref<const std::string&>()); g != fv.by_id.end()) stack.push_back(g->second);
        }
        return t;
    };
    for (std::size_t i = idx + 1; i < kids->size() && i <= idx + 2; ++i) {
        // skip whitespace-only text between the control and its label
        auto f = fv.by_id.find((*kids)[i].is_string() ? std::string_view((*kids)[i].get_ref<const std::string&>()) : std::string_view());
        if (f != fv.by_id.end() && str_field(*f->second, "role") == "StaticText" &&
            str_field(*f->second, "name").find_first_not_of(" \t\n") == std::string::npos)
            continue;
        auto t = try_sibling(i);
        if (!t.empty()) return t;
        break;
    }
    if (idx > 0) return try_sibling(idx - 1);
    return {};
}

inline std::size_t push_line(render_ctx& c, std::size_t depth, std::string text, std::string ref, bool interactive,
                             bool structural, std::size_t parent, std::string& pending_prefix) {
    c.pending_punct.clear();
    snapshot_line l;
    l.depth = depth;
    if (!c.pending_current.empty() && !interactive && !structural) {  // see render_ctx::pending_current
        text = (c.pending_current == "true" ? "(current) " : "(current " + c.pending_current + ") ") + text;
        c.pending_current.clear();
    }
    l.text = pending_prefix.empty() ? std::move(text) : pending_prefix + text;
    pending_prefix.clear();
    l.ref = std::move(ref);
    l.interactive = interactive;
    l.structural = structural;
    l.parent = parent;
    c.lines->push_back(std::move(l));
    return c.lines->size() - 1;
}

inline void render_frame(render_ctx& c, std::size_t frame_index, std::size_t depth, std::size_t parent,
                         std::string& pending_prefix);

/// aria-current (the page, step, ... the user is on), as ARIA reads it: "" when absent or
/// "false"; "page", "step", "location", "date" or "time"; "true" for any other value (never the
/// page's own word). Tokens ignore case.
inline std::string aria_current(const dom_node_facts& df) {
    const std::string cur = ascii_lower(df.attr("aria-current"));
    if (cur.empty() || cur == "false") return {};
    if (cur == "page" || cur == "step" || cur == "location" || cur == "date" || cur == "time") return cur;
    return "true";
}

/// Whether an ignored AX node is ignored because of aria-hidden (on it or an ancestor), not
/// because it is not rendered, inert or uninteresting.
inline bool hidden_by_aria(const json& node) {
    auto it = node.find("ignoredReasons");
    if (it == node.end() || !it->is_array()) return false;
    bool aria_hidden = false;
    for (const auto& r : *it) {
        auto ni = r.is_object() ? r.find("name") : r.end();
        if (ni == r.end() || !ni->is_string()) continue;
        const auto& n = ni->get_ref<const std::string&>();
        if (n == "inertElement" || n == "inertSubtree" || n == "notRendered" || n == "notVisible") return false;
        aria_hidden = aria_hidden || n == "ariaHiddenElement" || n == "ariaHiddenSubtree";
    }
    return aria_hidden;
}

/// The role shown for a clickable element the accessibility tree hides: from its tag.
inline std::string aria_hidden_role(const dom_node_facts& f) {
    if (f.tag == "a" && !f.attr("href").empty()) return "link";
    if (f.tag == "button" || f.tag == "summary") return "button";
    if (f.tag == "select") return "combobox";
    if (f.tag == "textarea") return "textbox";
    if (f.tag == "input") {
        const std::string t = ascii_lower((f.attr("type")));
        if (t == "checkbox" || t == "radio") return t;
        if (t == "button" || t == "submit" || t == "reset" || t == "image") return "button";
        return "textbox";
    }
    if (auto r = f.attr("role"); !r.empty() && is_interactive_role(r)) return std::string(r);
    return "clickable";
}

/// The visible clickable elements of the DOM subtree at `root` (an aria-hidden element), each a
/// line with a ref; a clickable's own descendants are not listed again. Each element is listed
/// once however many ignored AX nodes lead to it.
inline void render_aria_hidden(render_ctx& c, const frame_view& fv, std::int64_t root, std::size_t depth,
                               std::size_t parent, std::string& pending_prefix) {
    const snapshot_options& opt = *c.opt;
    std::vector<std::int64_t> stack{root};
    std::size_t visits = 0;
    while (!stack.empty() && ++visits < 20000) {
        const std::int64_t id = stack.back();
        stack.pop_back();
        if (!c.hidden_seen.insert(std::make_pair(fv.frame->session_id, id)).second) continue;
        const dom_node_facts* df = fv.dom->find(id);
        if (df == nullptr) continue;
        if (df->has_box && df->hidden) continue;  // display:none / visibility:hidden
        if (!df->attr("inert").empty()) continue;  // inert: not clickable, nor anything below it
        const bool clickable = (df->clickable || df->pointer) && df->tag != "label" && df->tag != "body" && df->tag != "html";
        if (clickable && df->visible() && !(opt.viewport_only && !fv.dom->in_viewport(*df))) {
            const std::string shown_role = aria_hidden_role(*df);
            std::string label = clip(df->text, opt.max_text);
            if (label.empty()) label = clip(std::string(df->attr("aria-label")), opt.max_text);
            std::string text = shown_role;
            bool anonymous = false;
            if (!label.empty()) {
                text += " " + quote_text(label);
            } else {
                text += unnamed_label(c, fv, id, df, &anonymous);
            }
            if (shown_role == "link" && !(opt.interactive_only && !anonymous)) {  // interactive-only: a link's name, derived or not, says enough
                std::string url = compact_url(std::string(df->attr("href")), fv.frame->url, opt.max_url);
                if (!url.empty()) text += " " + clip(url, 120);
            }
            std::string ref =
                c.refs->ref_for(fv.frame->session_id, fv.frame->frame_id, fv.frame->loader_id, id, shown_role, label);
            text += " [ref=" + ref + "]";
            push_line(c, depth, std::move(text), ref, true, false, parent, pending_prefix);
            continue;
        }
        if (auto ch = fv.dom->children.find(id); ch != fv.dom->children.end())
            for (auto it = ch->second.rbegin(); it != ch->second.rend(); ++it) stack.push_back(*it);
    }
}

/// The section a heading stands for: its parent, or above it while the parent holds nothing but
/// the heading (a wrapper <div> around an <h2>); null when the tree does not say.
inline const json* heading_scope(const frame_view& fv, const json& heading) {
    const json* at = &heading;
    for (int steps = 0; steps < 16; ++steps) {
        auto pid = at->find("parentId");
        if (pid == at->end() || !pid->is_string()) return nullptr;
        auto p = fv.by_id.find(pid->get_ref<const std::string&>());
        if (p == fv.by_id.end()) return nullptr;
        auto kids = p->second->find("childIds");
        if (kids == p->second->end() || !kids->is_array() || kids->size() > 1) return p->second;
        at = p->second;
    }
    return nullptr;
}

inline void render_node_lines(render_ctx& c, const frame_view& fv, const json& node, std::size_t depth, std::size_t parent,
                              bool inside_interactive, std::string& pending_prefix);

/// The items of a listbox a script built, each a line of its own below it (`me`): its options,
/// and a child without a role that holds only text, which is an option Chromium did not take as
/// one (jQuery UI puts role=option on a <div> inside each <li>: the tree has a generic <div> in
/// an ignored <li>) and is clicked like one: `option "Medium" [ref=e7]`. An ignored node's
/// children are the listbox's items in its place; anything else is rendered as it is.
inline void render_listbox_items(render_ctx& c, const frame_view& fv, const json& listbox, std::size_t depth, std::size_t me,
                                 int levels = 4) {
    auto it = listbox.find("childIds");
    if (it == listbox.end() || !it->is_array()) return;
    for (const auto& cid : *it) {
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get_ref<const std::string&>());
        if (f == fv.by_id.end() || !c.rendered.insert(f->second).second) continue;  // once per node
        const json& item = *f->second;
        std::string none;
        if (item.value("ignored", false)) {
            if (levels > 0 && !hidden_by_aria(item)) render_listbox_items(c, fv, item, depth, me, levels - 1);
            continue;
        }
        auto b = item.find("backendDOMNodeId");
        if (role_in(str_field(item, "role"), {"generic", "none", "listitem"}) && b != item.end() && b->is_number_integer() &&
            !has_interactive_descendant(fv, item)) {
            std::string text;
            collect_text(fv, item, text, c.opt->max_text);
            text = clip(text, c.opt->max_text);
            if (text.empty()) continue;
            const std::string ref = c.refs->ref_for(fv.frame->session_id, fv.frame->frame_id, fv.frame->loader_id,
                                                    b->get<std::int64_t>(), "option", text);
            push_line(c, depth, "option " + quote_text(text) + " [ref=" + ref + "]", ref, true, false, me, none);
            continue;
        }
        render_node(c, fv, item, depth, me, false, none);
    }
}

inline void render_node(render_ctx& c, const frame_view& fv, const json& node, std::size_t depth, std::size_t parent,
                        bool inside_interactive, std::string& pending_prefix) {
    const bool none_pending = c.pending_current.empty();
    render_node_lines(c, fv, node, depth, parent, inside_interactive, pending_prefix);
    if (none_pending) c.pending_current.clear();  // an aria-current of this subtree that no line took ends here
    if (c.open_scopes.empty()) return;
    if (auto it = c.open_scopes.find(&node); it != c.open_scopes.end()) {  // the section ends here
        for (auto h : it->second) (*c.lines)[h].scope_end = c.lines->size();
        c.open_scopes.erase(it);
    }
}

inline void render_node_lines(render_ctx& c, const frame_view& fv, const json& node, std::size_t depth, std::size_t parent,
                              bool inside_interactive, std::string& pending_prefix) {
    const snapshot_options& opt = *c.opt;
    std::string role = str_field(node, "role");
    const bool ignored = node.value("ignored", false);
    std::int64_t backend = 0;
    if (auto b = node.find("backendDOMNodeId"); b != node.end() && b->is_number_integer()) backend = b->get<std::int64_t>();
    const dom_node_facts* df = (backend != 0 && fv.dom != nullptr) ? fv.dom->find(backend) : nullptr;

    if (role == "InlineTextBox") return;
    // A contenteditable region without a role of its own (a rich-text editor) is a text field.
    const bool editable = !ignored && !inside_interactive && editable_root(fv, node, role);
    if (editable) role = "textbox";
    if (ignored) {
        // aria-hidden hides a subtree from assistive technology, not from the screen, and
        // Chromium's tree keeps only scraps of it: the visible controls of that DOM subtree still
        // get refs, named from the DOM's text.
        if (!inside_interactive && backend != 0 && fv.dom != nullptr && hidden_by_aria(node)) {
            // from the element that carries aria-hidden (the tree may hold only some of its nodes)
            if (c.hidden_seen.count(std::make_pair(fv.frame->session_id, backend)) != 0) return;  // listed already
            std::int64_t top = backend;
            for (std::int64_t at = backend; at != 0;) {
                const dom_node_facts* f = fv.dom->find(at);
                if (f == nullptr) break;
                if (f->attr("aria-hidden") == "true") top = at;
                if (++c.hidden_climb > 64 * 1024) break;  // bounded on hostile trees
                at = f->parent;
            }
            if (const dom_node_facts* tf = fv.dom->find(top); tf != nullptr && behind_modal_layer(*fv.dom, top, *tf)) {
                c.hidden_seen.insert(std::make_pair(fv.frame->session_id, top));  // the page behind a modal layer
                return;
            }
            render_aria_hidden(c, fv, top, depth, parent, pending_prefix);
            return;
        }
        render_children(c, fv, node, depth, parent, inside_interactive, pending_prefix);
        return;
    }
    if (opt.viewport_only && df != nullptr && df->has_box && fv.dom != nullptr && !fv.dom->in_viewport(*df) &&
        role != "RootWebArea")
        return;
    if (df != nullptr && backs_a_widget(*df)) return;  // the widget built in its place is the control

    // Frames: render the child document in place.
    if ((role == "Iframe" || role == "IframePresentational") && fv.dom != nullptr) {
        if (auto fo = fv.dom->frame_owners.find(backend); fo != fv.dom->frame_owners.end()) {
            if (auto fi = c.frame_by_id.find(fo->second); fi != c.frame_by_id.end()) {
                const std::size_t l = push_line(c, depth, "iframe", "", false, true, parent, pending_prefix);
                render_frame(c, fi->second, depth + 1, l, pending_prefix);
                return;
            }
        }
    }
    if (role == "Iframe" || role == "IframePresentational") {
        // an out-of-process frame: matched by its owner element
        for (std::size_t i = 1; i < c.frames->size(); ++i) {
            const auto& fr = (*c.frames)[i];
            if (fr.owner_backend_id == backend && fr.owner_session_id == fv.frame->session_id) {
                const std::size_t l = push_line(c, depth, "iframe", "", false, true, parent, pending_prefix);
                render_frame(c, i, depth + 1, l, pending_prefix);
                return;
            }
        }
        return;
    }

    if (role == "LineBreak") {  // <br>: the text after it starts a line of its own
        if (!c.lines->empty() && c.lines->back().text_run) c.lines->back().block = snapshot_line::closed_block;
        return;
    }
    if (role == "StaticText") {
        if (inside_interactive || c.suppress_text > 0) return;
        if (c.consumed.count(node.value("nodeId", std::string())) != 0) return;
        std::string t = text_run(str_field(node, "name"), 1U << 20U);
        if (t.empty()) return;
        // Chromium leaves a plain element out of the tree even when it sets a pointer cursor of
        // its own (a delegated list's <span> items: the listener is on an ancestor), or when it
        // is an item of a list whose listener serves its items (delegates_to_items). Its text is
        // all that is left of it: that text becomes the element's clickable line.
        if (df != nullptr && df->parent != 0) {
            const dom_node_facts* pe = fv.dom->find(df->parent);
            if (pe != nullptr && pe->tag != "body" && pe->tag != "html" && pe->tag != "label" &&
                (fv.dom->own_pointer(*pe) || c.delegates.count(std::make_pair(fv.frame->session_id, pe->parent)) != 0) &&
                pe->visible() && c.structure.count(std::make_pair(fv.frame->session_id, df->parent)) == 0 &&
                (fv.dom->viewport_w <= 0 || pe->w * pe->h <= 0.25 * fv.dom->viewport_w * fv.dom->viewport_h) &&
                c.pointer_items.insert(std::make_pair(fv.frame->session_id, df->parent)).second) {
                std::string item = clip(t, opt.max_text);
                const std::string ref = c.refs->ref_for(fv.frame->session_id, fv.frame->frame_id, fv.frame->loader_id, df->parent,
                                                        "clickable", item);
                push_line(c, depth, "clickable " + quote_text(item) + " [ref=" + ref + "]", ref, true, false, parent, pending_prefix);
                return;
            }
        }
        if (opt.interactive_only) return;
        // Runs of one block share its line as the page renders them (a space only where the
        // page has one); a run of another block, or one after a <br>, starts a line. (Without
        // DOM facts, block 0: runs of one parent join with a space, as they always did.)
        const std::int64_t block = text_block(fv, node);
        auto& L = *c.lines;
        const bool joins = !L.empty() && pending_prefix.empty() && c.pending_current.empty() && L.back().text_run &&
                           L.back().depth == depth && L.back().parent == parent && L.back().block == block &&
                           (opt.max_text_line == 0 || L.back().text.size() < opt.max_text_line);
        // Separators ("·", "|", "»", "›") between links carry nothing a model needs; blank runs only
        // separate the runs around them. Short punctuation after text of its block ('".', ")",
        // "+", " / ") belongs to the sentence it continues (`"<b>lic</b>".`,
        // `<kbd>Ctrl</kbd>+<kbd>S</kbd>`, code in highlighted spans): it joins that text, and is
        // dropped only where no text run precedes it (after a link).
        const auto first = t.find_first_not_of(' ');
        const std::string core = first == std::string::npos ? std::string() : t.substr(first, t.find_last_not_of(' ') - first + 1);
        const bool named_separator = core == "·" || core == "|" || core == "•" || core == "»" || core == "›" || core == "/";
        const bool separator = core.empty() ||
                               (!joins && (named_separator || (core.size() <= 3 && std::none_of(core.begin(), core.end(), [](char ch) {
                                               return std::isalnum(static_cast<unsigned char>(ch)) ||
                                                      (static_cast<unsigned char>(ch) & 0x80U) != 0;
                                           }))));
        if (separator) {
            if (joins && L.back().text.back() != ' ') L.back().text += ' ';
            // punctuation that opens a line (`"<b>Quoted</b>," she said`) leads the text of its block
            // that comes next; anything else coming next drops it (push_line)
            if (!joins && !core.empty() && !named_separator) {
                c.pending_punct = core;
                c.pending_punct_block = block;
            }
            return;
        }
        if (joins) {
            c.pending_punct.clear();
            if (block == 0 && L.back().text.back() != ' ' && t.front() != ' ') L.back().text += ' ';
            append_run(L.back().text, t);
            return;
        }
        std::string lead = c.pending_punct_block == block ? c.pending_punct : std::string();
        if (!lead.empty() && t.front() == ' ') lead += ' ';
        push_line(c, depth, lead + t.substr(t.find_first_not_of(' ')), "", false, false, parent, pending_prefix);
        c.lines->back().text_run = true;
        c.lines->back().block = block;
        return;
    }

    std::string name = clip(std::string(undoubled(clip(str_field(node, "name"), std::string::npos))), opt.max_text);
    // An item of a list whose listener serves its items is a control of its own (delegates_to_items).
    const bool delegated_item = df != nullptr && df->parent != 0 && !inside_interactive &&
                                c.delegates.count(std::make_pair(fv.frame->session_id, df->parent)) != 0;
    // A pointer cursor counts where it is set, not where it is inherited (every descendant of a
    // pointer element computes pointer too).
    const bool dom_clickable = df != nullptr && ((df->clickable && df->tag != "label" && df->tag != "body" &&
                                                  df->tag != "html") ||
                                                 (fv.dom->own_pointer(*df) && !inside_interactive) || df->attr("draggable") == "true" ||
                                                 delegated_item);
    // A column's header that says how it is sorted (aria-sort, "none" included) sorts it when clicked.
    const std::string_view sort = df != nullptr && role_in(role, {"columnheader", "rowheader"}) ? df->attr("aria-sort") : "";
    // A cell of a grid whose one listener serves its cells (cells_served), named by its
    // words when it has no name (a layout table's cell): a control when it says something.
    std::string cell_name;
    if (c.delegated_cells > 0 && !inside_interactive && role_in(role, {"gridcell", "cell", "LayoutTableCell"})) {
        cell_name = clip(std::string(undoubled(clip(str_field(node, "name"), std::string::npos))), opt.max_text);
        if (cell_name.empty()) collect_text(fv, node, cell_name, opt.max_text);
        cell_name = clip(cell_name, opt.max_text);
    }
    const bool delegated_cell = !cell_name.empty();
    const bool interactive_role = (is_interactive_role(role) && !(role == "option" && inside_interactive)) ||
                                  (!sort.empty() && !inside_interactive) || delegated_cell;
    bool structure = false;  // a DOM-only clickable that is structure (recorded: its text is not an item of its own)
    const served_cells served = dom_clickable && !interactive_role && !inside_interactive ? cells_served(fv, node, *df)
                                                                                           : served_cells::none;
    if (dom_clickable && !interactive_role && !inside_interactive && served != served_cells::grid &&
        delegates_to_items(*fv.dom, backend, *df)) {
        structure = true;
        c.delegates.insert(std::make_pair(fv.frame->session_id, backend));
    }
    struct scope_count {  // while this node's subtree renders: its cells are controls
        int& n;
        bool on;
        ~scope_count() {
            if (on) --n;
        }
    } cell_scope{c.delegated_cells, served == served_cells::grid || (served == served_cells::table && !structure)};
    if (cell_scope.on) {
        structure = true;
        ++c.delegated_cells;
    }
    const bool interactive = !inside_interactive && !structure &&
                             (interactive_role || (dom_clickable && !is_structural_role(role) && role != "heading" &&
                                                   !(structure = clickable_is_structure(fv, backend, node, *df))));
    if (structure) c.structure.insert(std::make_pair(fv.frame->session_id, backend));
    const bool heading_clickable = !inside_interactive && role == "heading" && (interactive_role || dom_clickable);
    // aria-current on an element without a line of its own (a wizard's <li> step, a breadcrumb's
    // <span>, a pagination's <li> around its link) goes to the first line below it (render_node
    // drops it when none takes it)
    if (!interactive && !heading_clickable && !inside_interactive && df != nullptr && c.pending_current.empty())
        c.pending_current = aria_current(*df);

    if (role == "heading") {
        std::string lvl = prop_value(node, "level");
        std::string text = "h" + (lvl.empty() ? std::string("") : lvl) + " " + quote_text(name);
        std::string ref;
        if (heading_clickable) {
            ref = c.refs->ref_for(fv.frame->session_id, fv.frame->frame_id, fv.frame->loader_id, backend, role, name);
            text += " [ref=" + ref + "]";
        }
        // (interactive-only: headings are the context of the controls after them; the ones no
        // control follows are dropped once the page is rendered)
        push_line(c, depth, std::move(text), std::move(ref), heading_clickable, false, parent, pending_prefix);
        c.lines->back().heading = lvl.size() == 1 && lvl[0] >= '1' && lvl[0] <= '6' ? lvl[0] - '0' : 7;
        if (opt.interactive_only)
            if (const json* scope = heading_scope(fv, node)) c.open_scopes[scope].push_back(c.lines->size() - 1);
        // links inside headings still need refs
        if (has_interactive_descendant(fv, node)) {
            std::string none;
            render_children(c, fv, node, depth + 1, parent, false, none);
        }
        return;
    }

    if (c.delegated_cells > 0 && !inside_interactive && role_in(role, {"row", "rowgroup", "LayoutTableRow"})) {
        render_children(c, fv, node, depth, parent, inside_interactive, pending_prefix);
        return;
    }
    if (role == "row" || role == "LayoutTableRow") {
        if (!has_interactive_descendant(fv, node)) {
            if (opt.interactive_only) return;
            std::string cells;
            auto it = node.find("childIds");
            if (it != node.end()) {
                for (const auto& cid : *it) {
                    if (!cid.is_string()) continue;
                    auto f = fv.by_id.find(cid.get_ref<const std::string&>());
                    if (f == fv.by_id.end()) continue;
                    std::string cell;
                    collect_text(fv, *f->second, cell, opt.max_text);
                    if (!cells.empty()) cells += " | ";
                    cells += clip(cell, opt.max_text);
                }
            }
            if (cells.empty()) return;
            std::string ref;  // a row the page listens on (its own listener, or its list's: delegates_to_items) is a control
            if (interactive) {
                ref = c.refs->ref_for(fv.frame->session_id, fv.frame->frame_id, fv.frame->loader_id, backend, "row", clip(cells, opt.max_text));
                cells += " [ref=" + ref + "]";
            }
            push_line(c, depth, "row: " + cells, ref, !ref.empty(), false, parent, pending_prefix);
            return;
        }
    }

    if (role == "LabelText" || role == "Label") {
        // A label's text is the accessible name of its control: render only the controls.
        ++c.suppress_text;
        render_children(c, fv, node, depth, parent, inside_interactive, pending_prefix);
        --c.suppress_text;
        return;
    }

    if (role == "listitem" && !interactive) {
        std::string prefix = opt.interactive_only ? "" : "- ";  // interactive-only lists no page structure
        std::string& pp = pending_prefix.empty() ? prefix : pending_prefix;
        render_children(c, fv, node, depth, parent, inside_interactive, pp);
        if (&pp == &prefix) prefix.clear();
        return;
    }

    if (interactive) {
        std::string shown_role = role;
        if (!interactive_role) shown_role = "clickable";
        if (delegated_cell) {
            shown_role = role == "LayoutTableCell" ? "cell" : role;
            name = cell_name;
        }
        std::string editable_value, editable_generated;  // an editable region's words, and what it shows while empty
        if (editable) editable_text(fv, node, editable_value, editable_generated, opt.max_text);
        if (role == "DisclosureTriangle") shown_role = "summary";
        if (role == "ComboBoxSelect" || role == "ComboBoxMenuButton" || role == "PopUpButton") shown_role = "combobox";
        if (role == "ToggleButton") shown_role = "button";
        if (name.empty() && !interactive_role) {
            std::string t;
            collect_text(fv, node, t, opt.max_text, true);
            name = clip(t, opt.max_text);
        }
        std::string text = shown_role;
        bool anonymous = false;  // no name, none derived, no text beside it
        // (an editable region that shows a placeholder says what it is for, as a field's
        // placeholder does; one with words says it by them)
        const bool placeholder_says = editable && df != nullptr &&
                                      (!editable_value.empty() || !editable_generated.empty() || !df->attr("placeholder").empty() ||
                                       !df->attr("aria-placeholder").empty());
        if (name.empty() && !placeholder_says &&
            (role == "checkbox" || role == "radio" || role == "switch" || role == "textbox" || role == "combobox" ||
             role == "button" || role == "link")) {
            // The page left it unnamed: the text right next to it is the best label (a list of
            // "[ ] Task 1" rows). That text is then not repeated as a line of its own.
            name = nearby_text(c, fv, node, opt.max_text);
            if (name.empty() && df != nullptr && fv.dom != nullptr && role_in(role, {"checkbox", "radio", "switch"}))
                name = wrapper_text(*fv.dom, *df, opt.max_text);
            if (!name.empty()) {
                text += " [" + name + "]";
                name.clear();
                goto labelled;
            }
        }
        if (!name.empty()) {
            text += ' ';
            text += quote_text(name);
        } else if (role != "textbox" && role != "combobox" && role != "searchbox" && role != "ComboBoxSelect") {
            text += unnamed_label(c, fv, backend, df, &anonymous);
        }
    labelled:
        const std::size_t label_end = text.size();
        // state
        const std::string checked = prop_value(node, "checked");
        if (checked == "true") text += " checked";
        else if (checked == "mixed") text += " mixed";
        else if (checked == "false" && !opt.interactive_only &&  // interactive-only: no state means unchecked
                 (role == "checkbox" || role == "radio" || role == "switch" || role == "menuitemcheckbox" ||
                  role == "menuitemradio"))
            text += " unchecked";
        const std::string pressed = prop_value(node, "pressed");
        if (pressed == "true") text += " pressed";
        const std::string expanded = prop_value(node, "expanded");
        if (expanded == "true") text += " expanded";
        else if (expanded == "false" && role != "combobox") text += " collapsed";
        else if (expanded.empty() && df != nullptr && name.size() <= 60 &&
                 ((shown_role == "clickable" && df->tag != "input") ||
                  (role == "button" && df->tag != "input" &&  // a submit button opens nothing
                   (df->tag != "button" || ascii_lower(df->attr("type")) == "button"))))
            if (const auto state = disclosure_state(*fv.dom, backend, *df); !state.empty()) text += " " + std::string(state);
        if (prop_value(node, "selected") == "true") text += " selected";
        if (!sort.empty() && sort != "none") text += " sorted " + ascii_lower(sort);
        {  // a menu's current item: "current"; a wizard's step: "current=step" (set here or on an element around it)
            std::string cur = df != nullptr ? aria_current(*df) : std::string();
            if (cur.empty()) cur = c.pending_current;
            c.pending_current.clear();
            if (cur == "true" || cur == "page") text += " current";
            else if (!cur.empty()) text += " current=" + cur;
        }
        if (prop_value(node, "disabled") == "true") text += " disabled";
        if (prop_value(node, "required") == "true") text += " required";
        if (prop_value(node, "readonly") == "true" && role != "link" && role != "button") text += " readonly";
        if (prop_value(node, "focused") == "true") text += " focused";
        if (prop_value(node, "invalid") == "true") text += " invalid";
        if (role == "textbox" && prop_value(node, "multiline") == "true") text += " multiline";
        std::string value = editable ? clip(editable_value, opt.max_text) : str_field(node, "value");
        std::string states = opt.interactive_only && role == "link" ? text.substr(label_end) : std::string();  // for link_pairs
        if (role == "link" && !(opt.interactive_only && !anonymous)) {  // interactive-only: a link's name, derived or not, says enough
            std::string url = compact_url(prop_value(node, "url"), fv.frame->url, opt.max_url);
            if (!url.empty()) text += " " + clip(url, 120);
        } else if (!value.empty() || role == "textbox" || role == "searchbox" ||
                   (role == "combobox" && df != nullptr && df->tag == "input")) {
            if (role == "textbox" || role == "searchbox" || role == "combobox" || role == "spinbutton" ||
                role == "slider" || role == "ComboBoxSelect") {
                if (!value.empty()) text += " = " + quote_value(value, opt.max_text);
                else if (df != nullptr) {
                    std::string ph(df->attr("placeholder"));
                    if (ph.empty() && editable) ph = df->attr("aria-placeholder");
                    if (ph.empty() && editable) ph = clip(editable_generated, 60);  // drawn by CSS (a data-placeholder)
                    if (!ph.empty() && ph != name) text += " placeholder=" + quote_value(ph, 60);
                }
            }
        }
        // A native <select>'s (or a datalist's) options are listed inline: select_option picks
        // them. A listbox a script built (role=listbox on a <div> or <ul>: a custom dropdown's
        // popup) has options that are clicked: each is a line of its own, with its ref, below it.
        // A combobox a script built that holds its popup (aria-owns) shows that listbox below it;
        // its own text is its value, not an option.
        const bool own_options = role == "listbox" && df != nullptr && df->tag != "select" && df->tag != "input";
        const bool custom_combobox = role == "combobox" && df != nullptr && df->tag != "select" && df->tag != "input";
        const json* popup = custom_combobox ? child_of_role(fv, node, "listbox") : nullptr;
        if ((role == "combobox" || role == "listbox" || role == "ComboBoxSelect") && !own_options && popup == nullptr) {
            // list the options inline (each node once: a broken tree can name a node as its own child)
            std::vector<std::string> opts;
            std::size_t total = 0;
            std::vector<const json*> stack{&node};
            std::unordered_set<const json*> seen{&node};
            while (!stack.empty()) {
                const json* n = stack.back();
                stack.pop_back();
                auto it = n->find("childIds");
                if (it == n->end() || !it->is_array()) continue;
                for (auto ci = it->rbegin(); ci != it->rend(); ++ci) {
                    if (!ci->is_string()) continue;
                    auto f = fv.by_id.find(ci->get_ref<const std::string&>());
                    if (f == fv.by_id.end() || !seen.insert(f->second).second) continue;
                    if (str_field(*f->second, "role") == "option") {
                        ++total;
                        opts.push_back(clip(str_field(*f->second, "name"), 40));
                    } else {
                        stack.push_back(f->second);
                    }
                }
            }
            if (!opts.empty()) {
                std::reverse(opts.begin(), opts.end());
                if (opts.size() <= opt.max_inline_options) {
                    // Bare where that is unambiguous; quoted when an option is empty, has a
                    // separator, a quote, a backslash or a bracket (a page could fake "[ref=…]").
                    // (clip() has already collapsed the spaces at the edges.)
                    for (auto& o : opts)
                        if (o.empty() || o.find_first_of("|\"[]\\") != std::string::npos)
                            o = quote_text(o);
                    text += " options: " + join(opts, "|");
                } else {
                    text += " (" + std::to_string(total) + " options)";
                }
            }
        }
        std::string ref = c.refs->ref_for(fv.frame->session_id, fv.frame->frame_id, fv.frame->loader_id, backend,
                                          shown_role, name);
        text += " [ref=" + ref + "]";
        if (role == "listitem" && pending_prefix.empty() && !opt.interactive_only) pending_prefix = "- ";
        const std::size_t me = push_line(c, depth, std::move(text), ref, true, false, parent, pending_prefix);
        if (opt.interactive_only && role == "link")
            c.links.add(*c.lines, me, prop_value(node, "url"), fv.frame->url, !name.empty(), std::move(states));
        // Controls inside a clickable/link/button (a row's icons): render them below it, without
        // the text its own line has said.
        if (own_options) {  // its options (and what else it holds), as lines of their own
            render_listbox_items(c, fv, node, depth + 1, me);
        } else if (popup != nullptr) {
            std::string none;
            if (c.rendered.insert(popup).second) render_node(c, fv, *popup, depth + 1, me, false, none);
        } else if ((role != "combobox" || custom_combobox) && role != "listbox" && role != "ComboBoxSelect" &&
                   has_interactive_descendant(fv, node)) {  // (a tag input's search field inside its combobox)
            std::string none;
            ++c.suppress_text;
            render_children(c, fv, node, depth + 1, me, false, none);
            --c.suppress_text;
        }
        return;
    }

    if (is_structural_role(role) && opt.interactive_only && !role_in(role, {"dialog", "alertdialog", "alert"})) {
        // interactive-only: headings give the context, landmarks and containers are left out
        render_children(c, fv, node, depth, parent, inside_interactive, pending_prefix);
        return;
    }
    if (is_structural_role(role)) {
        std::string text = role;
        if (!name.empty() && role != "form") text += " " + quote_text(name);
        // Named landmarks, tables, forms and dialogs carry a ref: the handle for a snapshot of
        // their subtree, an extraction within them, or a drop target.
        std::string ref;
        if (backend != 0 && !inside_interactive &&
            (!name.empty() || role_in(role, {"table", "grid", "main", "form", "dialog", "alertdialog"}))) {
            ref = c.refs->ref_for(fv.frame->session_id, fv.frame->frame_id, fv.frame->loader_id, backend, role, name);
            text += " [ref=" + ref + "]";
        }
        const std::size_t me = push_line(c, depth, std::move(text), ref, false, true, parent, pending_prefix);
        render_children(c, fv, node, depth + 1, me, inside_interactive, pending_prefix);
        return;
    }

    if (role == "img" || role == "image" || role == "graphics-document" || role == "graphics-symbol" || role == "svg") {
        if (opt.interactive_only || inside_interactive) return;
        if (!name.empty()) push_line(c, depth, "img " + quote_text(name), "", false, false, parent, pending_prefix);
        return;
    }

    if (!is_transparent_role(role) && !name.empty() && !opt.interactive_only && !inside_interactive) {
        // other named semantic nodes (e.g. cell, term, tooltip): role "name", then children
        push_line(c, depth, role + " " + quote_text(name), "", false, false, parent, pending_prefix);
        if (has_interactive_descendant(fv, node)) render_children(c, fv, node, depth + 1, parent, false, pending_prefix);
        return;
    }
    render_children(c, fv, node, depth, parent, inside_interactive, pending_prefix);
}

inline void render_frame(render_ctx& c, std::size_t frame_index, std::size_t depth, std::size_t parent,
                         std::string& pending_prefix) {
    const ax_frame& fr = (*c.frames)[frame_index];
    if (!c.visited_frames.insert(fr.frame_id + "|" + fr.session_id).second) return;
    frame_view fv;
    fv.frame = &fr;
    auto d = c.dom->find(fr.session_id);
    fv.dom = d == c.dom->end() ? nullptr : &d->second;
    if (!fr.nodes.is_array() || fr.nodes.empty()) return;
    fv.by_id.reserve(fr.nodes.size());
    for (const auto& n : fr.nodes)
        if (auto id = n.find("nodeId"); id != n.end() && id->is_string()) fv.by_id.emplace(id->get_ref<const std::string&>(), &n);
    // the root: the node without a parent
    const json* root = &fr.nodes[0];
    for (const auto& n : fr.nodes)
        if (!n.contains("parentId")) {
            root = &n;
            break;
        }
    render_node(c, fv, *root, depth, parent, false, pending_prefix);
}


}  // namespace agentkit::browser::detail
