// agentkit/browser/dom_index.hpp — what DOMSnapshot.captureSnapshot says about each node of a
// frame (layout box, computed cursor, Chromium's own isClickable, attributes, text), indexed by
// backend node id. One of the two inputs of a snapshot (the other is the accessibility tree).
#pragma once

#include <agentkit/browser/detail/json_access.hpp>
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

namespace agentkit::browser {

/// What the layout/DOM snapshot says about one node.
struct dom_node_facts {
    bool clickable = false;  ///< Chromium's isClickable: a click listener, a link, a form control
    bool pointer = false;    ///< computed cursor: pointer
    bool has_box = false;    ///< has a layout box
    bool hidden = false;     ///< visibility:hidden/collapse or display:none
    /// Computed display is inline-level (inline, inline-block, inline-flex, ..., contents,
    /// ruby): its text flows on its parent's lines. Blocks, list items, table cells and
    /// flex/grid items (which the browser blockifies) start lines of their own.
    bool inline_level = false;
    ///@{
    /// Absolute bounds (CSS px, document coordinates).
    double x = 0, y = 0, w = 0, h = 0;
    ///@}
    std::string tag;                    ///< lower-case element name
    std::vector<std::pair<std::string, std::string>> attributes;  ///< (name, value) pairs, as in the DOM
    /// Text below a clickable element (its nearest clickable ancestor's, capped): the name of a
    /// control that the accessibility tree leaves unnamed because it is aria-hidden. For a
    /// `<title>` element (an SVG's), its own text: what an icon-only control says it is.
    std::string text;
    std::int64_t parent = 0;  ///< the parent node's backend id (0: none); text nodes have theirs too

    /// The value of attribute `name` ("" when absent).
    [[nodiscard]] std::string_view attr(std::string_view name) const noexcept {
        for (const auto& [k, v] : attributes)
            if (k == name) return v;
        return {};
    }
    /// True when the node has a box of non-zero size and is not hidden.
    [[nodiscard]] bool visible() const noexcept { return has_box && !hidden && w > 0 && h > 0; }
};

/// The first document of a DOM snapshot in document order, every node type (elements, text,
/// comments, shadow roots, pseudo-elements): what a snapshot of a large page reads a part of
/// (detail/page_part.hpp). Parallel arrays, one entry per node.
struct dom_order {
    /// The parent of a node whose parent is the document itself.
    static constexpr std::uint32_t no_parent = 0xffffffffu;
    std::vector<std::int64_t> id;       ///< backend node id
    std::vector<std::uint32_t> parent;  ///< the parent's position in this order (no_parent: the document)
    std::vector<std::uint8_t> type;     ///< DOM nodeType (1 element, 3 text, 8 comment, 9 document, 11 shadow root, ...)
    /// A text node of white space only (nothing to read in it).
    std::vector<bool> minor;
    /// A hash of the node's name, value and attributes (one process's std::hash: compared only
    /// between snapshots taken by this process).
    std::vector<std::uint64_t> hash;
    /// How many nodes the order holds.
    [[nodiscard]] std::size_t size() const noexcept { return id.size(); }
};

/// DOM facts of every document in one renderer session, keyed by backend node id.
struct dom_index {
    std::unordered_map<std::int64_t, dom_node_facts> nodes;  ///< backend node id → its facts
    /// `<iframe>` element backend id → the frame id of its content document (same-process frames).
    std::unordered_map<std::int64_t, std::string> frame_owners;
    /// Element backend id → its child elements' backend ids, in document order.
    std::unordered_map<std::int64_t, std::vector<std::int64_t>> children;
    dom_order order;  ///< the first document's nodes in document order
    ///@{
    /// The viewport's scroll offset and size (CSS px), set by the caller (Page.getLayoutMetrics).
    double scroll_x = 0, scroll_y = 0;
    double viewport_w = 0, viewport_h = 0;
    ///@}

    /// The facts of a backend node id, or null.
    [[nodiscard]] const dom_node_facts* find(std::int64_t backend) const {
        auto it = nodes.find(backend);
        return it == nodes.end() ? nullptr : &it->second;
    }
    /// The block a node's text is laid out in: the nearest element at or above it that has a
    /// box and is not inline-level (0 when unknown). Text of two different blocks never shares
    /// a rendered line; text of one block flows on its lines.
    [[nodiscard]] std::int64_t block_of(std::int64_t backend) const {
        std::int64_t at = backend;
        for (int steps = 0; steps < 64 && at != 0; ++steps) {
            const dom_node_facts* f = find(at);
            if (f == nullptr) return 0;
            if (f->has_box && !f->inline_level && f->tag != "#text") return at;
            at = f->parent;
        }
        return 0;
    }
    /// Whether an element sets cursor:pointer itself rather than inheriting it from its
    /// parent (every descendant of a pointer element computes pointer too).
    [[nodiscard]] bool own_pointer(const dom_node_facts& f) const {
        if (!f.pointer) return false;
        const dom_node_facts* p = f.parent != 0 ? find(f.parent) : nullptr;
        return p == nullptr || !p->pointer;
    }
    /// True when the node's box meets the viewport (always, when the viewport size is unknown).
    [[nodiscard]] bool in_viewport(const dom_node_facts& f) const noexcept {
        if (viewport_w <= 0 || viewport_h <= 0) return true;
        return f.x + f.w > scroll_x && f.x < scroll_x + viewport_w && f.y + f.h > scroll_y && f.y < scroll_y + viewport_h;
    }
};

namespace detail {
/// An index in a DOM snapshot's arrays; npos unless a non-negative integer (a float, even a huge
/// one, is no index: converting it would be undefined).
inline std::size_t snap_index(const json& j) {
    if (j.is_number_unsigned()) return j.get<std::size_t>();
    if (j.is_number_integer() && j.get<std::int64_t>() >= 0) return static_cast<std::size_t>(j.get<std::int64_t>());
    return static_cast<std::size_t>(-1);
}

inline std::string snap_string(const json& strings, const json& idx) {
    if (!idx.is_number_integer()) return {};
    const auto i = idx.get<std::int64_t>();
    if (i < 0 || static_cast<std::size_t>(i) >= strings.size() || !strings[static_cast<std::size_t>(i)].is_string())
        return {};
    return strings[static_cast<std::size_t>(i)].get<std::string>();
}
}  // namespace detail

namespace detail {
/// Fill `o` from one document of a DOM snapshot (`ids`: its nodes' backend ids).
inline void fill_dom_order(dom_order& o, const std::vector<std::int64_t>& ids, const json& strings, const json& nodes) {
    const std::size_t n = ids.size();
    const json& parents = jarr(nodes, "parentIndex");
    const json& types = jarr(nodes, "nodeType");
    const json& names = jarr(nodes, "nodeName");
    const json& values = jarr(nodes, "nodeValue");
    const json& attrs = jarr(nodes, "attributes");
    o.id = ids;
    o.parent.assign(n, dom_order::no_parent);
    o.type.assign(n, 0);
    o.minor.assign(n, false);
    o.hash.assign(n, 0);
    const std::hash<std::string_view> h;
    auto text_of = [&](const json& idx) -> std::string_view {
        if (!idx.is_number_integer()) return {};
        const auto i = idx.get<std::int64_t>();
        if (i < 0 || static_cast<std::size_t>(i) >= strings.size() || !strings[static_cast<std::size_t>(i)].is_string()) return {};
        return strings[static_cast<std::size_t>(i)].get_ref<const std::string&>();
    };
    for (std::size_t i = 0; i < n; ++i) {
        // Pre-order: a parent comes before its children; anything else is no parent.
        if (i < parents.size() && parents[i].is_number_integer()) {
            const auto p = parents[i].get<std::int64_t>();
            if (p >= 0 && static_cast<std::size_t>(p) < i) o.parent[i] = static_cast<std::uint32_t>(p);
        }
        if (i < types.size() && types[i].is_number_integer()) o.type[i] = static_cast<std::uint8_t>(types[i].get<int>() & 0xff);
        const std::string_view name = i < names.size() ? text_of(names[i]) : std::string_view();
        const std::string_view value = i < values.size() ? text_of(values[i]) : std::string_view();
        std::uint64_t x = h(name) * 0x9e3779b97f4a7c15ull ^ h(value);
        if (i < attrs.size() && attrs[i].is_array())
            for (const auto& a : attrs[i]) x = (x * 0x100000001b3ull) ^ h(text_of(a));
        o.hash[i] = x;
        o.minor[i] = o.type[i] == 3 && value.find_first_not_of(" \t\r\n") == std::string_view::npos;
    }
}

// computedStyles ["cursor", "display", "visibility"], in that order.
inline dom_index parse_dom_snapshot_unchecked(const json& capture) {
    dom_index out;
    if (!capture.is_object() || !capture.contains("documents") || !capture.contains("strings")) return out;
    if (!capture["documents"].is_array() || !capture["strings"].is_array()) return out;
    const json& strings = capture["strings"];
    const json& docs = capture["documents"];
    for (std::size_t d = 0; d < docs.size(); ++d) {
        const json& doc = docs[d];
        if (d == 0) {
            out.scroll_x = doc.value("scrollOffsetX", 0.0);
            out.scroll_y = doc.value("scrollOffsetY", 0.0);
        }
        // references into the answer (json::value would copy each array)
        const json& nodes = jobj(doc, "nodes");
        const json& backend = jarr(nodes, "backendNodeId");
        const json& names = jarr(nodes, "nodeName");
        const json& attrs = jarr(nodes, "attributes");
        const std::size_t n = backend.size();
        std::vector<std::int64_t> ids(n, 0);
        for (std::size_t i = 0; i < n; ++i) {
            ids[i] = backend[i].is_number_integer() ? backend[i].get<std::int64_t>() : 0;
            dom_node_facts f;
            if (i < names.size()) f.tag = ascii_lower(detail::snap_string(strings, names[i]));
            if (i < attrs.size() && attrs[i].is_array()) {
                const json& a = attrs[i];
                for (std::size_t k = 0; k + 1 < a.size(); k += 2)
                    f.attributes.emplace_back(detail::snap_string(strings, a[k]), detail::snap_string(strings, a[k + 1]));
            }
            out.nodes[ids[i]] = std::move(f);
        }
        if (auto it = nodes.find("isClickable"); it != nodes.end() && it->contains("index"))
            for (const auto& i : (*it)["index"])
                if (i.is_number_integer() && i.get<std::size_t>() < n) out.nodes[ids[i.get<std::size_t>()]].clickable = true;
        // The element tree (parents and children), and the text of each clickable element from
        // its text nodes (the nearest clickable ancestor within a few levels takes it).
        if (auto pp = nodes.find("parentIndex"), nt = nodes.find("nodeType"), pv = nodes.find("nodeValue");
            pp != nodes.end() && nt != nodes.end() && pp->is_array() && nt->is_array()) {
            const bool values = pv != nodes.end() && pv->is_array();
            constexpr std::size_t max_clickable_text = 120;
            for (std::size_t i = 0; i < n && i < pp->size() && i < nt->size(); ++i) {
                const int type = (*nt)[i].is_number_integer() ? (*nt)[i].get<int>() : 0;
                if ((type == 1 || type == 3) && (*pp)[i].is_number_integer()) {  // an element or a text node
                    const auto par = (*pp)[i].get<std::int64_t>();
                    if (par >= 0 && static_cast<std::size_t>(par) < n) {
                        if (type == 1) out.children[ids[static_cast<std::size_t>(par)]].push_back(ids[i]);
                        out.nodes[ids[i]].parent = ids[static_cast<std::size_t>(par)];
                    }
                }
                if (type != 3 || !values || i >= pv->size()) continue;  // text nodes from here
                std::string t = detail::snap_string(strings, (*pv)[i]);
                if (t.find_first_not_of(" \t\r\n") == std::string::npos) continue;
                if (const auto par = (*pp)[i].is_number_integer() ? (*pp)[i].get<std::int64_t>() : -1;
                    par >= 0 && static_cast<std::size_t>(par) < n) {
                    auto& tf = out.nodes[ids[static_cast<std::size_t>(par)]];
                    if (tf.tag == "title" && tf.text.size() < max_clickable_text) tf.text += t;
                }
                std::size_t at = i;
                for (int up = 0; up < 6; ++up) {
                    if (at >= pp->size() || !(*pp)[at].is_number_integer()) break;
                    const auto par = (*pp)[at].get<std::int64_t>();
                    if (par < 0 || static_cast<std::size_t>(par) >= n) break;
                    at = static_cast<std::size_t>(par);
                    auto& f = out.nodes[ids[at]];
                    if (!f.clickable) continue;
                    if (f.text.size() < max_clickable_text) {
                        if (!f.text.empty()) f.text += ' ';
                        f.text += t;
                    }
                    break;
                }
            }
        }
        if (d == 0) detail::fill_dom_order(out.order, ids, strings, nodes);
        if (auto it = nodes.find("contentDocumentIndex"); it != nodes.end() && it->contains("index")) {
            const json& idx = (*it)["index"];
            const json& val = (*it)["value"];
            for (std::size_t k = 0; k < idx.size() && k < val.size(); ++k) {
                const auto node = detail::snap_index(idx[k]);
                const auto dj = detail::snap_index(val[k]);
                if (node < n && dj < docs.size())
                    out.frame_owners[ids[node]] = detail::snap_string(strings, docs[dj].value("frameId", json()));
            }
        }
        const json& layout = jobj(doc, "layout");
        const json& li = jarr(layout, "nodeIndex");
        const json& styles = jarr(layout, "styles");
        const json& bounds = jarr(layout, "bounds");
        for (std::size_t k = 0; k < li.size(); ++k) {
            const auto ni = detail::snap_index(li[k]);
            if (ni >= n) continue;
            auto& f = out.nodes[ids[ni]];
            if (f.has_box) continue;  // first box wins (continuations repeat the node)
            f.has_box = true;
            if (k < bounds.size() && bounds[k].size() >= 4) {
                f.x = bounds[k][0].get<double>();
                f.y = bounds[k][1].get<double>();
                f.w = bounds[k][2].get<double>();
                f.h = bounds[k][3].get<double>();
            }
            if (k < styles.size() && styles[k].is_array()) {
                const json& s = styles[k];
                if (s.size() > 0) f.pointer = detail::snap_string(strings, s[0]) == "pointer";
                if (s.size() > 1) {
                    const auto display = detail::snap_string(strings, s[1]);
                    if (display == "none") f.hidden = true;
                    f.inline_level = display.rfind("inline", 0) == 0 || display == "contents" || display.rfind("ruby", 0) == 0;
                }
                if (s.size() > 2) {
                    const auto v = detail::snap_string(strings, s[2]);
                    if (v == "hidden" || v == "collapse") f.hidden = true;
                }
            }
        }
    }
    return out;
}
}  // namespace detail

/// Build the DOM index from a DOMSnapshot.captureSnapshot result requested with
/// computedStyles ["cursor", "display", "visibility"]. Data of the wrong shape (a broken or
/// hostile CDP endpoint) gives an empty or partial index, never an exception.
[[nodiscard]] inline dom_index parse_dom_snapshot(const json& capture) {
    try {
        return detail::parse_dom_snapshot_unchecked(capture);
    } catch (const json::exception&) {
        return dom_index{};
    }
}

}  // namespace agentkit::browser
