// agentkit/browser/detail/tree_widgets.hpp — what the accessibility tree of one frame, read
// with its DOM facts, says of widgets: whether a control is below a node, a combobox's popup,
// an editable region a rich-text editor built without a role, and a grid whose one listener
// serves its cells. The renderer (render.hpp) reads them; DOM-only facts are in widget_facts.hpp.
#pragma once

#include <agentkit/browser/detail/line_text.hpp>
#include <agentkit/browser/dom_index.hpp>
#include <agentkit/browser/snapshot_types.hpp>
#include <agentkit/core/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace agentkit::browser::detail {

/// One frame's accessibility nodes by id, with its DOM facts (null when the DOM was not read).
struct frame_view {
    const ax_frame* frame;
    const dom_index* dom;
    std::unordered_map<std::string_view, const json*> by_id;  // keys view the frame's node ids
};

/// Whether an interactive node is below `node`, looking at no more than `budget` nodes in all
/// (true when the budget runs out: assume so).
inline bool has_interactive_descendant(const frame_view& fv, const json& node, int& budget) {
    auto it = node.find("childIds");
    if (it == node.end() || !it->is_array()) return false;
    for (const auto& cid : *it) {
        if (--budget < 0) return true;
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get_ref<const std::string&>());
        if (f == fv.by_id.end()) continue;
        const json& ch = *f->second;
        if (is_interactive_role(str_field(ch, "role"))) return true;
        if (ch.contains("backendDOMNodeId") && ch["backendDOMNodeId"].is_number_integer() && fv.dom != nullptr) {
            if (auto* df = fv.dom->find(ch["backendDOMNodeId"].get<std::int64_t>()); df != nullptr && df->clickable &&
                                                                                    df->tag != "label")
                return true;
        }
        if (has_interactive_descendant(fv, ch, budget)) return true;
    }
    return false;
}

inline bool has_interactive_descendant(const frame_view& fv, const json& node) {
    int budget = 400;
    return has_interactive_descendant(fv, node, budget);
}

/// The first node of `role` among a node's children, looking through ignored ones (a few levels):
/// a combobox's popup it owns. nullptr when there is none.
inline const json* child_of_role(const frame_view& fv, const json& node, std::string_view role, int levels = 4) {
    auto it = node.find("childIds");
    if (it == node.end() || !it->is_array()) return nullptr;
    for (const auto& cid : *it) {
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get_ref<const std::string&>());
        if (f == fv.by_id.end()) continue;
        if (f->second->value("ignored", false)) {
            if (levels > 0)
                if (const json* in = child_of_role(fv, *f->second, role, levels - 1)) return in;
            continue;
        }
        if (str_field(*f->second, "role") == role) return f->second;
    }
    return nullptr;
}

/// Whether `node` is the root of an editable region the page gave no role of its own (a
/// rich-text editor's contenteditable <div>): Chromium calls it a generic container, editable.
inline bool editable_root(const frame_view& fv, const json& node, std::string_view role) {
    if (!role_in(role, {"generic", "none", "paragraph", "Section", "GenericContainer", "Div", "article", "group", "region"}) ||
        prop_value(node, "editable").empty())
        return false;
    const json* at = &node;
    for (int up = 0; up < 4; ++up) {  // the nearest parent that is not ignored decides
        auto pid = at->find("parentId");
        if (pid == at->end() || !pid->is_string()) return true;
        auto p = fv.by_id.find(pid->get_ref<const std::string&>());
        if (p == fv.by_id.end()) return true;
        at = p->second;
        if (!at->value("ignored", false)) return prop_value(*at, "editable").empty();
    }
    return true;
}

/// What an editable region holds (its editable text, `value`) and what it shows while empty
/// (text the page generates there, a placeholder drawn by CSS: `generated`), at most `limit`.
inline void editable_text(const frame_view& fv, const json& node, std::string& value, std::string& generated, std::size_t limit,
                          int depth = 0) {
    if (depth > 32 || value.size() > limit) return;
    auto it = node.find("childIds");
    if (it == node.end() || !it->is_array()) return;
    for (const auto& cid : *it) {
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get_ref<const std::string&>());
        if (f == fv.by_id.end()) continue;
        const json& ch = *f->second;
        const std::string r = str_field(ch, "role");
        if (r == "StaticText") {
            std::string& out = prop_value(ch, "editable").empty() ? generated : value;
            if (!out.empty() && out.back() != ' ') out += ' ';
            append_run(out, text_run(str_field(ch, "name"), limit));
        } else if (r != "InlineTextBox") {
            editable_text(fv, ch, value, generated, limit, depth + 1);
        }
    }
}

/// The rows below a node the page listens on, looking `levels` deep (through containers), and
/// whether a cell of one is a grid's (role gridcell: a grid's cells are its controls).
struct rows_seen {
    std::size_t rows = 0;
    bool gridcells = false;
};

inline void rows_below(const frame_view& fv, const json& node, int levels, int& budget, rows_seen& out) {
    auto it = node.find("childIds");
    if (it == node.end() || !it->is_array() || levels < 0) return;
    for (const auto& cid : *it) {
        if (--budget < 0) return;
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get_ref<const std::string&>());
        if (f == fv.by_id.end()) continue;
        const std::string role = str_field(*f->second, "role");
        if (role == "row" || role == "LayoutTableRow") {
            ++out.rows;
            if (auto cells = f->second->find("childIds"); !out.gridcells && cells != f->second->end() && cells->is_array())
                for (const auto& k : *cells)
                    if (auto g = k.is_string() ? fv.by_id.find(k.get_ref<const std::string&>()) : fv.by_id.end();
                        g != fv.by_id.end() && str_field(*g->second, "role") == "gridcell")
                        out.gridcells = true;
        } else {
            rows_below(fv, *f->second, levels - 1, budget, out);
        }
    }
}

/// Whose cells an element only the DOM calls clickable serves (a calendar's month, a seat map:
/// one listener for the grid): two or more rows within three levels, no control of their own,
/// not the page's body or root. `grid` when they are a grid's (role gridcell), `table` otherwise.
/// Its cells are then controls, the element is not; a table's rows served by a listener on their
/// parent (an inbox) are delegates_to_items' first.
enum class served_cells { none, table, grid };

inline served_cells cells_served(const frame_view& fv, const json& node, const dom_node_facts& df) {
    if (df.tag == "body" || df.tag == "html" || df.attr("id") == "root" || df.attr("id") == "app") return served_cells::none;
    int budget = 400;
    rows_seen seen;
    rows_below(fv, node, 3, budget, seen);
    if (seen.rows < 2 || has_interactive_descendant(fv, node)) return served_cells::none;
    return seen.gridcells ? served_cells::grid : served_cells::table;
}

}  // namespace agentkit::browser::detail
