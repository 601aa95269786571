// agentkit/browser/readable.hpp — readable mode: the main content of an article-like page as
// compact text, with links and controls still carrying refs.
//
//   # Title of the article
//   First paragraph with an inline [link](ref=e4) kept where it was.
//   - a list item
//   button "Subscribe" [ref=e9]
//
// The main content is found on the accessibility tree: an <article> or <main> when the page
// has a substantial one, otherwise the container that collects the most paragraph text (a
// readability-style score: a paragraph counts fully for its parent, half for its grandparent).
#pragma once

#include <agentkit/browser/snapshot.hpp>

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace agentkit::browser {

/// How browser::readable() renders the main content.
struct readable_options {
    std::size_t token_budget = 4000;  ///< 0: unlimited
    std::size_t min_paragraph_chars = 25;  ///< shorter text blocks do not count as paragraphs
};

/// How article-like the main frame is: total paragraph characters and their share of all text.
struct page_kind {
    std::size_t paragraph_chars = 0;  ///< characters in paragraphs
    std::size_t text_chars = 0;       ///< characters of all text
    std::size_t paragraphs = 0;       ///< how many paragraphs
    /// True for an article: at least 3 paragraphs, 800 paragraph characters, and half of all text.
    [[nodiscard]] bool article_like() const noexcept {
        return paragraphs >= 3 && paragraph_chars >= 800 && paragraph_chars * 2 >= text_chars;
    }
};

namespace detail {

// The page decides the tree's shape, so the view makes it a tree: a node is the child of the
// first node that lists it, never of itself, and once (walks stay linear, whatever is claimed).
struct ax_view {
    // Keys view the node ids inside `nodes`, which outlives the view.
    std::unordered_map<std::string_view, const json*> by_id;
    std::unordered_map<const json*, const json*> parent;  // a node → the node that claimed it
    std::unordered_map<const json*, std::vector<const json*>> kids;
    const json* root = nullptr;

    explicit ax_view(const json& nodes) {
        if (!nodes.is_array()) return;
        by_id.reserve(nodes.size());
        for (const auto& n : nodes) {
            auto id = n.is_object() ? n.find("nodeId") : n.end();
            if (id == n.end() || !id->is_string()) continue;
            if (!by_id.emplace(id->get_ref<const std::string&>(), &n).second) continue;  // a repeated id: the first node keeps it
            if (root == nullptr && !n.contains("parentId")) root = &n;
        }
        if (root == nullptr && !nodes.empty() && nodes[0].is_object()) root = &nodes[0];
        // Claims in the array's order: the first node that lists a child is its parent.
        parent.reserve(by_id.size());
        for (const auto& n : nodes) {
            auto id = n.is_object() ? n.find("nodeId") : n.end();
            if (id == n.end() || !id->is_string() || get(id->get_ref<const std::string&>()) != &n) continue;
            auto c = n.find("childIds");
            if (c == n.end() || !c->is_array()) continue;
            std::vector<const json*> list;
            for (const auto& cid : *c) {
                if (!cid.is_string()) continue;
                const json* child = get(cid.get_ref<const std::string&>());
                if (child == nullptr || child == &n) continue;
                if (parent.emplace(child, &n).second) list.push_back(child);  // claimed once
            }
            if (!list.empty()) kids.emplace(&n, std::move(list));
        }
    }
    [[nodiscard]] const json* get(std::string_view id) const {
        auto it = by_id.find(id);
        return it == by_id.end() ? nullptr : it->second;
    }
    /// The node that lists `n` as a child (nullptr for the root).
    [[nodiscard]] const json* parent_of(const json& n) const {
        auto p = parent.find(&n);
        return p == parent.end() ? nullptr : p->second;
    }
    template <class F>
    void children(const json& n, F&& f) const {
        auto it = kids.find(&n);
        if (it == kids.end()) return;
        for (const json* c : it->second) f(*c);
    }
};

inline std::size_t subtree_text(const ax_view& v, const json& n, int depth = 0) {
    if (depth > 200) return 0;
    if (str_field(n, "role") == "StaticText") return str_field(n, "name").size();
    std::size_t s = 0;
    v.children(n, [&](const json& c) { s += subtree_text(v, c, depth + 1); });
    return s;
}

struct readable_ctx {
    const ax_view* v = nullptr;
    const ax_frame* frame = nullptr;
    const dom_index* dom = nullptr;
    ref_registry* refs = nullptr;
    std::vector<snapshot_line>* lines = nullptr;
    std::string pending;
};

inline std::string ref_of(readable_ctx& c, const json& n, std::string_view role, std::string_view name) {
    std::int64_t backend = 0;
    if (auto b = n.find("backendDOMNodeId"); b != n.end() && b->is_number_integer()) backend = b->get<std::int64_t>();
    if (backend == 0) return {};
    return c.refs->ref_for(c.frame->session_id, c.frame->frame_id, c.frame->loader_id, backend, role, name);
}

inline bool readable_interactive(readable_ctx& c, const json& n, const std::string& role) {
    if (is_interactive_role(role)) return true;
    std::int64_t backend = 0;
    if (auto b = n.find("backendDOMNodeId"); b != n.end() && b->is_number_integer()) backend = b->get<std::int64_t>();
    if (c.dom == nullptr || backend == 0) return false;
    const auto* f = c.dom->find(backend);
    return f != nullptr && f->clickable && f->tag != "label" && f->tag != "body" && f->tag != "html" &&
           f->tag != "p" && f->tag != "div" && f->tag != "article" && f->tag != "main" && f->tag != "section";
}

inline void inline_text(readable_ctx& c, const json& n, std::string& out, int depth = 0) {
    if (depth > 200 || n.value("ignored", false)) {
        if (depth <= 200) c.v->children(n, [&](const json& ch) { inline_text(c, ch, out, depth + 1); });
        return;
    }
    const std::string role = str_field(n, "role");
    if (role == "InlineTextBox") return;
    if (role == "LineBreak") {  // <br>: what follows starts a line of its own (an address, a verse)
        while (!out.empty() && out.back() == ' ') out.pop_back();
        if (!out.empty() && out.back() != '\n') out += '\n';
        return;
    }
    if (role == "StaticText") {
        std::string t = clip(str_field(n, "name"), 100000);
        if (!out.empty() && out.back() == '\n')
            while (!t.empty() && t.front() == ' ') t.erase(0, 1);
        if (t.empty()) return;
        if (!out.empty() && out.back() != ' ' && out.back() != '\n' && out.back() != '(' && t.front() != ' ' && t.front() != ',' &&
            t.front() != '.' && t.front() != ';' && t.front() != ':' && t.front() != ')')
            out += ' ';
        out += t;
        return;
    }
    if (role == "link" || (readable_interactive(c, n, role) && role != "paragraph")) {
        std::string name = clip(str_field(n, "name"), 120);
        if (name.empty()) {
            std::string t;
            c.v->children(n, [&](const json& ch) { inline_text(c, ch, t, depth + 1); });
            name = clip(t, 120);  // clip() makes one line of it
        }
        const std::string ref = ref_of(c, n, role == "link" ? "link" : role, name);
        if (!out.empty() && out.back() != ' ' && out.back() != '\n') out += ' ';
        if (role == "link") out += "[" + name + "](ref=" + ref + ")";
        else out += "[" + role + (name.empty() ? std::string() : " " + quote_text(name)) + "](ref=" + ref + ")";
        return;
    }
    c.v->children(n, [&](const json& ch) { inline_text(c, ch, out, depth + 1); });
}

// One output line per line of `text` (its <br> breaks): the first led by `lead`, the others by
// `more` ("- " and "  " for a list item, "> " for each line of a quotation).
inline void push_lines(readable_ctx& c, std::string_view text, std::string_view lead, std::string_view more) {
    bool first = true;
    std::size_t i = 0;
    while (i <= text.size()) {
        const std::size_t e = std::min(text.find('\n', i), text.size());
        const std::string part = clip(std::string(text.substr(i, e - i)), 100000);  // trimmed, one line
        if (!part.empty()) {
            snapshot_line l;
            l.text = std::string(first ? lead : more) + part;
            l.interactive = l.text.find("](ref=") != std::string::npos;
            l.continues = !first;
            c.lines->push_back(std::move(l));
            first = false;
        }
        i = e + 1;
    }
}

inline void flush_pending(readable_ctx& c) {
    std::string t;
    t.swap(c.pending);
    push_lines(c, t, "", "");  // each of its lines clipped on its own (clip() would join them)
}

inline void push_readable(readable_ctx& c, std::string text, std::string ref = {}) {
    flush_pending(c);
    snapshot_line l;
    l.text = std::move(text);  // callers pass clipped (one-line) text
    l.ref = std::move(ref);
    l.interactive = !l.ref.empty() || l.text.find("](ref=") != std::string::npos;
    c.lines->push_back(std::move(l));
}

inline void readable_block(readable_ctx& c, const json& n, int depth = 0) {
    if (depth > 200) return;
    const std::string role = str_field(n, "role");
    if (role == "InlineTextBox") return;
    if (n.value("ignored", false) || role == "none" || role == "presentation") {
        c.v->children(n, [&](const json& ch) { readable_block(c, ch, depth + 1); });
        return;
    }
    if (role == "heading") {
        std::string lvl = prop_value(n, "level");
        std::size_t level = lvl.size() == 1 && lvl[0] >= '1' && lvl[0] <= '6' ? static_cast<std::size_t>(lvl[0] - '0') : 2;
        std::string t;
        inline_text(c, n, t);
        if (t.empty()) t = str_field(n, "name");
        push_readable(c, std::string(level, '#') + " " + clip(t, 300));
        return;
    }
    if (role == "paragraph" || role == "blockquote" || role == "code" || role == "figcaption" || role == "caption" ||
        role == "term" || role == "definition") {
        flush_pending(c);
        std::string t;
        inline_text(c, n, t);
        if (role == "blockquote") push_lines(c, t, "> ", "> ");
        else push_lines(c, t, "", "");
        return;
    }
    if (role == "listitem") {
        flush_pending(c);
        std::string t;
        bool nested = false;
        c.v->children(n, [&](const json& ch) {
            const std::string r = str_field(ch, "role");
            if (r == "list") nested = true;
        });
        if (!nested) {
            inline_text(c, n, t);
            push_lines(c, t, "- ", "  ");
            return;
        }
        c.v->children(n, [&](const json& ch) {
            if (str_field(ch, "role") == "list") {
                flush_pending(c);
                push_lines(c, t, "- ", "  ");
                t.clear();
                readable_block(c, ch, depth + 1);
            } else {
                inline_text(c, ch, t);
            }
        });
        push_lines(c, t, "- ", "  ");
        return;
    }
    if (role == "row") {
        flush_pending(c);
        std::string cells;
        c.v->children(n, [&](const json& cell) {
            std::string t;
            inline_text(c, cell, t);
            if (!cells.empty()) cells += " | ";
            cells += clip(t, 200);
        });
        if (!cells.empty()) push_readable(c, "| " + cells + " |");
        return;
    }
    if (role == "img" || role == "image") {
        const std::string name = str_field(n, "name");
        if (!name.empty()) push_readable(c, "[image: " + clip(name, 120) + "]");
        return;
    }
    if (role == "StaticText" || role == "link" || role == "strong" || role == "emphasis" || role == "mark" ||
        role == "superscript" || role == "subscript" || role == "time" || role == "abbr") {
        inline_text(c, n, c.pending);
        return;
    }
    if (readable_interactive(c, n, role)) {
        std::string name = clip(str_field(n, "name"), 120);
        std::string shown = is_interactive_role(role) ? role : std::string("clickable");
        if (name.empty()) {
            std::string t;
            inline_text(c, n, t);
            name = clip(t, 120);
        }
        const std::string ref = ref_of(c, n, shown, name);
        std::string text = shown + (name.empty() ? std::string() : " " + quote_text(name));
        const std::string value = str_field(n, "value");
        if (!value.empty()) text += " = " + quote_value(value, 80);
        push_readable(c, text + " [ref=" + ref + "]", ref);
        return;
    }
    // containers: a block boundary around their content
    flush_pending(c);
    c.v->children(n, [&](const json& ch) { readable_block(c, ch, depth + 1); });
    flush_pending(c);
}

// Each paragraph (min_chars or more) scores its parent with its length and its grandparent with
// half of it, and adds its length to `under` of every ancestor (the paragraph text a subtree holds).
inline void score_paragraphs(const ax_view& v, const json& n, std::map<const json*, double>& score, std::size_t min_chars,
                             page_kind& kind, std::map<const json*, std::size_t>* under = nullptr, int depth = 0) {
    if (depth > 400) return;
    const std::string role = str_field(n, "role");
    if (role == "paragraph") {
        const std::size_t len = subtree_text(v, n);
        if (len >= min_chars) {
            ++kind.paragraphs;
            kind.paragraph_chars += len;
            int up = 0;
            for (const json* p = v.parent_of(n); p != nullptr && up < 400; p = v.parent_of(*p), ++up) {
                if (up < 2) score[p] += static_cast<double>(len) / (up == 0 ? 1.0 : 2.0);
                if (under != nullptr) (*under)[p] += len;
                else if (up == 1) break;
            }
        }
        return;
    }
    v.children(n, [&](const json& c) { score_paragraphs(v, c, score, min_chars, kind, under, depth + 1); });
}

inline void find_roles(const ax_view& v, const json& n, std::string_view role, std::vector<const json*>& out, int depth = 0) {
    if (depth > 400) return;
    if (str_field(n, "role") == role) out.push_back(&n);
    v.children(n, [&](const json& c) { find_roles(v, c, role, out, depth + 1); });
}

}  // namespace detail

/// Classify the main frame (frames[0]). Data of the wrong shape classifies as nothing.
[[nodiscard]] inline page_kind classify_page(const std::vector<ax_frame>& frames, std::size_t min_paragraph_chars = 25) {
    page_kind k;
    if (frames.empty()) return k;
    try {
        detail::ax_view v(frames[0].nodes);
        if (v.root == nullptr) return k;
        std::map<const json*, double> score;
        detail::score_paragraphs(v, *v.root, score, min_paragraph_chars, k);
        k.text_chars = detail::subtree_text(v, *v.root);
    } catch (const json::exception&) {
        return page_kind{};
    }
    return k;
}

namespace detail {
inline snapshot render_readable_unchecked(const std::vector<ax_frame>& frames, const std::map<std::string, dom_index>& dom,
                                          ref_registry& refs, const readable_options& opt, const token_counter& tokens) {
    snapshot out;
    if (frames.empty()) return out;
    detail::ax_view v(frames[0].nodes);
    if (v.root == nullptr) return out;
    page_kind kind;
    std::map<const json*, double> score;
    std::map<const json*, std::size_t> under;
    detail::score_paragraphs(v, *v.root, score, opt.min_paragraph_chars, kind, &under);
    const std::size_t total = detail::subtree_text(v, *v.root);

    // choose the main content
    const json* main = nullptr;
    for (std::string_view role : {"article", "main"}) {
        std::vector<const json*> found;
        detail::find_roles(v, *v.root, role, found);
        const json* best = nullptr;
        std::size_t best_len = 0;
        for (const json* f : found) {
            const std::size_t len = detail::subtree_text(v, *f);
            if (len > best_len) {
                best_len = len;
                best = f;
            }
        }
        if (best != nullptr && best_len * 3 >= kind.paragraph_chars && best_len >= 200) {
            main = best;
            break;
        }
    }
    // No landmark holds it: the container its paragraphs score best, widened to the ancestor that
    // holds 3/5 of all paragraph text (an article split over sibling blocks). A page whose text
    // is mostly not in paragraphs (a list, a forum, an index) is read whole.
    if (main == nullptr && kind.paragraph_chars * 3 >= total) {
        double best = 0;
        for (const auto& [n, s] : score)
            if (s > best) {
                best = s;
                main = n;
            }
        while (main != nullptr && under[main] * 5 < kind.paragraph_chars * 3) main = v.parent_of(*main);
    }
    if (main == nullptr) main = v.root;

    detail::readable_ctx c;
    c.v = &v;
    c.frame = &frames[0];
    auto d = dom.find(frames[0].session_id);
    c.dom = d == dom.end() ? nullptr : &d->second;
    c.refs = &refs;
    c.lines = &out.lines;
    // headings above the main content (the article title is often outside it)
    if (main != v.root) {
        std::vector<const json*> h1;
        detail::find_roles(v, *v.root, "heading", h1);
        for (const json* h : h1) {
            if (detail::prop_value(*h, "level") != "1") continue;
            std::vector<const json*> inside;
            detail::find_roles(v, *main, "heading", inside);
            bool within = false;
            for (const json* i : inside) within = within || i == h;
            if (!within) detail::push_readable(c, "# " + detail::clip(detail::str_field(*h, "name"), 300));
            break;
        }
    }
    detail::readable_block(c, *main);
    detail::flush_pending(c);

    std::vector<std::size_t> cost(out.lines.size());
    for (std::size_t i = 0; i < out.lines.size(); ++i) {
        const std::string s = out.lines[i].text + "\n";
        cost[i] = tokens.count(s);
        out.total_tokens += cost[i];
        out.full_text += s;
    }
    std::size_t used = 0;
    const std::size_t budget = opt.token_budget == 0 ? static_cast<std::size_t>(-1) : opt.token_budget;
    const std::size_t reserve = opt.token_budget == 0 ? 0 : std::min<std::size_t>(60, opt.token_budget / 3);
    bool cut_before = false;  // the line before was left out
    for (std::size_t i = 0; i < out.lines.size(); ++i) {
        // a block is shown from its start or not at all: never an address without its middle line
        if (used + cost[i] + reserve > budget || (cut_before && out.lines[i].continues)) {
            if (out.lines[i].interactive) ++out.cut_controls;
            else ++out.cut_text_lines;
            cut_before = true;
            continue;
        }
        cut_before = false;
        used += cost[i];
        out.text += out.lines[i].text + "\n";
        if (!out.lines[i].ref.empty()) out.refs.push_back(out.lines[i].ref);
        ++out.shown_lines;
    }
    const std::size_t main_chars = detail::subtree_text(v, *main);
    out.text += "[readable view: main content, " + std::to_string(main_chars) + " of " + std::to_string(total) +
                " text characters of the page. A normal snapshot shows the whole page]\n";
    if (out.truncated())  // format/budget.hpp's wording of a cut, in lines
        out.text += cut_note(out.shown_lines, out.lines.size(), "lines", "readable view (~" + group_digits(opt.token_budget) + " tokens)",
                             "to see them: a normal snapshot, or search the page text") +
                    "\n";
    out.tokens = tokens.count(out.text);
    return out;
}
}  // namespace detail

/// Render the main content of the main frame (frames[0]) as readable text. Links and
/// controls inside it carry refs from `refs` (the same identities as snapshots). Data of the
/// wrong shape gives a one-line text saying so, never an exception.
[[nodiscard]] inline snapshot render_readable(const std::vector<ax_frame>& frames, const std::map<std::string, dom_index>& dom,
                                              ref_registry& refs, const readable_options& opt = {},
                                              const token_counter& tokens = {}) {
    try {
        return detail::render_readable_unchecked(frames, dom, refs, opt, tokens);
    } catch (const json::exception& e) {
        return detail::unreadable_tree(e, tokens);
    }
}

}  // namespace agentkit::browser
