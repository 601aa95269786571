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
// Refs are identities (see ref_registry): one ref stands for one DOM node of one document.
// Rendering is a pure function of its inputs, so it is unit-tested on recorded CDP output.
#pragma once

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

// ---------------------------------------------------------------------------------------------
// DOM facts from DOMSnapshot.captureSnapshot
// ---------------------------------------------------------------------------------------------

/// What the layout/DOM snapshot says about one node.
struct dom_node_facts {
    bool clickable = false;  ///< Chromium's isClickable: a click listener, a link, a form control
    bool pointer = false;    ///< computed cursor: pointer
    bool has_box = false;    ///< has a layout box
    bool hidden = false;     ///< visibility:hidden/collapse or display:none
    double x = 0, y = 0, w = 0, h = 0;  ///< absolute bounds (CSS px, document coordinates)
    std::string tag;                    ///< lower-case element name
    std::vector<std::pair<std::string, std::string>> attributes;
    /// Text below a clickable element (its nearest clickable ancestor's, capped): the name of a
    /// control that the accessibility tree leaves unnamed because it is aria-hidden.
    std::string text;
    std::int64_t parent = 0;  ///< the parent node's backend id (0: none)

    [[nodiscard]] std::string_view attr(std::string_view name) const noexcept {
        for (const auto& [k, v] : attributes)
            if (k == name) return v;
        return {};
    }
    [[nodiscard]] bool visible() const noexcept { return has_box && !hidden && w > 0 && h > 0; }
};

/// DOM facts of every document in one renderer session, keyed by backend node id.
struct dom_index {
    std::unordered_map<std::int64_t, dom_node_facts> nodes;
    /// <iframe> element backend id → the frame id of its content document (same-process frames).
    std::unordered_map<std::int64_t, std::string> frame_owners;
    /// Element backend id → its child elements' backend ids, in document order.
    std::unordered_map<std::int64_t, std::vector<std::int64_t>> children;
    double scroll_x = 0, scroll_y = 0;
    double viewport_w = 0, viewport_h = 0;  ///< set by the caller (Page.getLayoutMetrics)

    [[nodiscard]] const dom_node_facts* find(std::int64_t backend) const {
        auto it = nodes.find(backend);
        return it == nodes.end() ? nullptr : &it->second;
    }
    [[nodiscard]] bool in_viewport(const dom_node_facts& f) const noexcept {
        if (viewport_w <= 0 || viewport_h <= 0) return true;
        return f.x + f.w > scroll_x && f.x < scroll_x + viewport_w && f.y + f.h > scroll_y && f.y < scroll_y + viewport_h;
    }
};

namespace detail {
inline std::string snap_string(const json& strings, const json& idx) {
    if (!idx.is_number_integer()) return {};
    const auto i = idx.get<std::int64_t>();
    if (i < 0 || static_cast<std::size_t>(i) >= strings.size() || !strings[static_cast<std::size_t>(i)].is_string())
        return {};
    return strings[static_cast<std::size_t>(i)].get<std::string>();
}
inline std::string ascii_lower_copy(std::string s) {
    for (auto& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}
}  // namespace detail

namespace detail {
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
        const json& nodes = doc.value("nodes", json::object());
        const json backend = nodes.value("backendNodeId", json::array());
        const json names = nodes.value("nodeName", json::array());
        const json attrs = nodes.value("attributes", json::array());
        const std::size_t n = backend.size();
        std::vector<std::int64_t> ids(n, 0);
        for (std::size_t i = 0; i < n; ++i) {
            ids[i] = backend[i].is_number_integer() ? backend[i].get<std::int64_t>() : 0;
            dom_node_facts f;
            if (i < names.size()) f.tag = detail::ascii_lower_copy(detail::snap_string(strings, names[i]));
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
                if (type == 1 && (*pp)[i].is_number_integer()) {  // an element
                    const auto par = (*pp)[i].get<std::int64_t>();
                    if (par >= 0 && static_cast<std::size_t>(par) < n) {
                        out.children[ids[static_cast<std::size_t>(par)]].push_back(ids[i]);
                        out.nodes[ids[i]].parent = ids[static_cast<std::size_t>(par)];
                    }
                }
                if (type != 3 || !values || i >= pv->size()) continue;  // text nodes from here
                std::string t = detail::snap_string(strings, (*pv)[i]);
                if (t.find_first_not_of(" \t\r\n") == std::string::npos) continue;
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
        if (auto it = nodes.find("contentDocumentIndex"); it != nodes.end() && it->contains("index")) {
            const json& idx = (*it)["index"];
            const json& val = (*it)["value"];
            for (std::size_t k = 0; k < idx.size() && k < val.size(); ++k) {
                const auto node = idx[k].get<std::size_t>();
                const auto dj = val[k].get<std::size_t>();
                if (node < n && dj < docs.size())
                    out.frame_owners[ids[node]] = detail::snap_string(strings, docs[dj].value("frameId", json()));
            }
        }
        const json& layout = doc.value("layout", json::object());
        const json li = layout.value("nodeIndex", json::array());
        const json styles = layout.value("styles", json::array());
        const json bounds = layout.value("bounds", json::array());
        for (std::size_t k = 0; k < li.size(); ++k) {
            const auto ni = li[k].get<std::size_t>();
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
                if (s.size() > 1 && detail::snap_string(strings, s[1]) == "none") f.hidden = true;
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

// ---------------------------------------------------------------------------------------------
// Refs
// ---------------------------------------------------------------------------------------------

/// What a ref stands for: one node of one document.
struct ref_target {
    std::string session_id;  ///< the CDP session of the node's renderer (empty: the page session)
    std::string frame_id;
    std::string loader_id;   ///< the document (a navigation makes a new loader)
    std::int64_t backend_node_id = 0;
    std::string role;
    std::string name;
};

/// Issues refs and resolves them. A ref is never rebound: the same node of the same document
/// keeps its ref across snapshots; a node of a new document gets a new ref; refs of a
/// navigated frame are retired and resolve to `ref.stale`. Thread-safe.
class ref_registry {
public:
    /// The ref for a node, issuing a new one when this node of this document has none.
    std::string ref_for(const std::string& session_id, const std::string& frame_id, const std::string& loader_id,
                        std::int64_t backend, std::string_view role, std::string_view name) {
        std::lock_guard lock(mu_);
        key k{session_id, loader_id, backend};
        if (auto it = by_node_.find(k); it != by_node_.end()) {
            auto& t = targets_[it->second];
            t.role = std::string(role);
            t.name = std::string(name);
            return "e" + std::to_string(it->second);
        }
        const std::uint64_t id = next_++;
        by_node_.emplace(std::move(k), id);
        targets_.emplace(id, ref_target{session_id, frame_id, loader_id, backend, std::string(role), std::string(name)});
        return "e" + std::to_string(id);
    }

    /// The live ref of a node, when it has one (never issues a new ref).
    [[nodiscard]] std::optional<std::string> find(const std::string& session_id, const std::string& loader_id,
                                                  std::int64_t backend) const {
        std::lock_guard lock(mu_);
        auto it = by_node_.find(key{session_id, loader_id, backend});
        if (it == by_node_.end()) return std::nullopt;
        return "e" + std::to_string(it->second);
    }

    /// Retire every ref of a frame whose document is no longer `current_loader`.
    void frame_navigated(const std::string& frame_id, const std::string& current_loader) {
        std::lock_guard lock(mu_);
        for (auto it = targets_.begin(); it != targets_.end();) {
            if (it->second.frame_id == frame_id && it->second.loader_id != current_loader) it = retire_locked(it);
            else ++it;
        }
    }

    /// Retire every ref of these frames (their tab was closed).
    void retire_frames(const std::set<std::string>& frame_ids) {
        std::lock_guard lock(mu_);
        for (auto it = targets_.begin(); it != targets_.end();) {
            if (frame_ids.count(it->second.frame_id) != 0) it = retire_locked(it);
            else ++it;
        }
    }

    /// Retire every ref (the browser was closed or replaced: none of its nodes is reachable).
    void retire_all() {
        std::lock_guard lock(mu_);
        for (auto it = targets_.begin(); it != targets_.end();) it = retire_locked(it);
    }

    /// Retire one ref (its node is gone from the document).
    void retire(std::string_view ref) {
        std::lock_guard lock(mu_);
        auto id = parse(ref);
        if (!id) return;
        if (auto it = targets_.find(*id); it != targets_.end()) retire_locked(it);
    }

    /// Resolve a ref: `ref.unknown` when never issued (or malformed), `ref.stale` when retired.
    [[nodiscard]] result<ref_target> resolve(std::string_view ref) const {
        std::lock_guard lock(mu_);
        auto id = parse(ref);
        if (!id || *id == 0 || *id >= next_)
            return fail(errc::ref_unknown, "no element has ref \"" + std::string(ref) + "\"",
                        "Use a ref exactly as it appears in the latest snapshot, e.g. e12; take a snapshot if you "
                        "have none.",
                        json{{"ref", ref}});
        if (auto it = targets_.find(*id); it != targets_.end()) return it->second;
        std::string what = "the element";
        if (auto s = stale_.find(*id); s != stale_.end()) what = s->second;
        return fail(errc::ref_stale,
                    "ref " + std::string(ref) + " (" + what + ") is stale: its element is gone or the page navigated",
                    "Take a new snapshot and use the refs it shows.", json{{"ref", ref}});
    }

    /// Number of live refs.
    [[nodiscard]] std::size_t size() const {
        std::lock_guard lock(mu_);
        return targets_.size();
    }

    /// Number of retired refs whose description is remembered (bounded by kMaxRemembered).
    [[nodiscard]] std::size_t remembered_stale() const {
        std::lock_guard lock(mu_);
        return stale_.size();
    }

    /// Descriptions of retired refs kept for their `ref.stale` message (the newest; older
    /// retired refs still resolve to `ref.stale`, described as "the element"). Bounds the
    /// registry's memory in a long session: it held every ref ever retired.
    static constexpr std::size_t kMaxRemembered = 4096;

    /// Parse "e12" (also "[ref=e12]" and "ref=e12") to 12.
    [[nodiscard]] static std::optional<std::uint64_t> parse(std::string_view ref) noexcept {
        if (ref.size() > 2 && ref.front() == '[' && ref.back() == ']') ref = ref.substr(1, ref.size() - 2);
        if (ref.rfind("ref=", 0) == 0) ref.remove_prefix(4);
        if (ref.size() < 2 || ref[0] != 'e' || ref.size() > 20) return std::nullopt;
        std::uint64_t v = 0;
        for (std::size_t i = 1; i < ref.size(); ++i) {
            if (ref[i] < '0' || ref[i] > '9') return std::nullopt;
            v = v * 10 + static_cast<std::uint64_t>(ref[i] - '0');
        }
        return v;
    }

private:
    struct key {
        std::string session;
        std::string loader;
        std::int64_t backend;
        bool operator<(const key& o) const {
            return std::tie(session, loader, backend) < std::tie(o.session, o.loader, o.backend);
        }
    };
    // Under mu_: retire one live ref, remember its description (bounded); the next target.
    std::map<std::uint64_t, ref_target>::iterator retire_locked(std::map<std::uint64_t, ref_target>::iterator it) {
        stale_.emplace(it->first, it->second.role + " \"" + it->second.name + "\"");
        while (stale_.size() > kMaxRemembered) stale_.erase(stale_.begin());  // the oldest ids first
        by_node_.erase(key{it->second.session_id, it->second.loader_id, it->second.backend_node_id});
        return targets_.erase(it);
    }

    mutable std::mutex mu_;
    std::map<key, std::uint64_t> by_node_;
    std::map<std::uint64_t, ref_target> targets_;
    std::map<std::uint64_t, std::string> stale_;
    std::uint64_t next_ = 1;
};

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

/// One frame's accessibility tree, as Accessibility.getFullAXTree returned it.
struct ax_frame {
    std::string session_id;  ///< CDP session of the frame's renderer (empty: the page session)
    std::string frame_id;
    std::string loader_id;
    std::string url;
    json nodes;  ///< the `nodes` array
    /// For an out-of-process frame: its <iframe> element in the parent (session, backend id).
    std::string owner_session_id;
    std::int64_t owner_backend_id = 0;
};

struct snapshot_options {
    /// Token budget for the snapshot text (0: unlimited).
    std::size_t token_budget = 6000;
    /// Render only the subtree of this ref.
    std::string root_ref;
    /// Only elements whose box intersects the viewport (and their structure).
    bool viewport_only = false;
    /// Only elements a model can act on (and the structure around them).
    bool interactive_only = false;
    /// Longest accessible name or text run kept on one line (characters).
    std::size_t max_text = 160;
    /// Options of a select listed inline up to this many.
    std::size_t max_inline_options = 12;
    /// Longest line of plain page text (characters); longer runs are shortened with "…" and
    /// the snapshot says how to read them whole (readable mode). 0: no limit.
    std::size_t max_text_line = 200;
    /// Cross-origin link URLs longer than this lose their query string and fragment.
    std::size_t max_url = 80;
};

/// One rendered line.
struct snapshot_line {
    std::size_t depth = 0;
    std::string text;  ///< without indentation
    std::string ref;   ///< empty for structure and text
    bool interactive = false;
    bool structural = false;  ///< a container line (kept when any descendant is kept)
    std::size_t parent = static_cast<std::size_t>(-1);  ///< index of the enclosing structural line
    bool text_run = false;    ///< plain page text (adjacent runs merge into one line)
};

struct snapshot {
    std::vector<snapshot_line> lines;  ///< every line, before the budget
    std::string text;                  ///< what the model sees (within budget, with the cut note)
    std::size_t tokens = 0;            ///< tokens of `text`
    std::size_t total_tokens = 0;      ///< tokens of all lines, had nothing been cut
    std::size_t shown_lines = 0;
    std::size_t cut_text_lines = 0;
    std::size_t cut_controls = 0;
    std::size_t shortened_lines = 0;  ///< text lines shortened to max_text_line
    std::string full_text;  ///< every line (what a budget cut can be read back from)
    [[nodiscard]] bool truncated() const noexcept { return cut_text_lines + cut_controls > 0; }
};

namespace detail {

inline bool role_in(std::string_view role, std::initializer_list<std::string_view> set) {
    for (auto r : set)
        if (r == role) return true;
    return false;
}

inline bool is_interactive_role(std::string_view r) {
    return role_in(r, {"button", "link", "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio", "switch",
                       "slider", "spinbutton", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "treeitem",
                       "option", "DisclosureTriangle", "scrollbar", "ComboBoxMenuButton", "ComboBoxSelect",
                       "PopUpButton", "ToggleButton", "MenuListOption", "colorwell", "ColorWell", "InputTime", "Date",
                       "DateTime", "textbox", "columnheader", "gridcell"}) &&
           r != "columnheader" && r != "gridcell";
}

/// Roles whose line adds nothing: their children are rendered in their place.
inline bool is_transparent_role(std::string_view r) {
    return role_in(r, {"generic", "none", "presentation", "GenericContainer", "Section", "paragraph", "LabelText",
                       "Div", "group", "list", "Pre", "Abbr", "Ruby", "Mark", "emphasis", "strong", "subscript",
                       "superscript", "time", "code", "Canvas", "Legend", "Caption", "Figcaption", "blockquote",
                       "DescriptionList", "term", "definition", "insertion", "deletion", "Unknown", "RootWebArea",
                       "WebArea", "article", "figure", "Details", "SectionFooter", "SectionHeader", "sectionheader",
                       "sectionfooter", "MenuListPopup", "log", "status", "timer", "marquee", "note", "math",
                       "LayoutTable", "LayoutTableRow", "LayoutTableCell", "Iframe", "IframePresentational",
                       "Audio", "Video", "EmbeddedObject", "PluginObject", "ListMarker", "listitem", "Label"});
}

/// Landmarks and containers that get a one-word line of their own.
inline bool is_structural_role(std::string_view r) {
    return role_in(r, {"navigation", "main", "banner", "contentinfo", "complementary", "form", "search", "region",
                       "dialog", "alertdialog", "alert", "menu", "menubar", "tablist", "tabpanel", "toolbar", "tree",
                       "grid", "table", "radiogroup", "listbox", "feed"});
}

inline std::string clip(std::string s, std::size_t max) {
    for (auto& c : s)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    // collapse runs of spaces
    std::string out;
    out.reserve(s.size());
    bool sp = false;
    for (char c : s) {
        if (c == ' ') {
            if (!sp && !out.empty()) out += ' ';
            sp = true;
        } else {
            out += c;
            sp = false;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    if (out.size() > max) {
        out.resize(utf8_safe_prefix(out, max));
        out += "…";
    }
    return out;
}

inline std::string quote_text(std::string_view s) {
    // `"` and `\` are escaped, so a name cannot end its quotes early (`"a\"` would read as open)
    std::string o = "\"";
    for (char c : s) {
        if (c == '"') o += "\\\"";
        else if (c == '\\') o += "\\\\";
        else o += c;
    }
    o += '"';
    return o;
}

inline std::string prop_value(const json& node, std::string_view name) {
    auto it = node.find("properties");
    if (it == node.end()) return {};
    for (const auto& p : *it) {
        if (p.value("name", "") != name) continue;
        const json& v = p.contains("value") ? p["value"] : json();
        if (!v.contains("value")) return "";
        const json& vv = v["value"];
        if (vv.is_string()) return vv.get<std::string>();
        if (vv.is_boolean()) return vv.get<bool>() ? "true" : "false";
        if (vv.is_number_integer()) return std::to_string(vv.get<std::int64_t>());
        if (vv.is_number()) return json(vv).dump();
        return "";
    }
    return {};
}

inline std::string str_field(const json& node, const char* field) {
    auto it = node.find(field);
    if (it == node.end() || !it->is_object()) return {};
    auto v = it->find("value");
    if (v == it->end()) return {};
    if (v->is_string()) return v->get<std::string>();
    if (v->is_number()) return v->dump();
    return {};
}

/// Shorten a URL relative to the page: same origin → path; same page → #fragment.
inline std::string short_url(std::string_view url, std::string_view page) {
    auto origin_of = [](std::string_view u) -> std::string_view {
        auto s = u.find("://");
        if (s == std::string_view::npos) return {};
        auto e = u.find('/', s + 3);
        return u.substr(0, e == std::string_view::npos ? u.size() : e);
    };
    auto o = origin_of(page);
    if (!o.empty() && url.size() >= o.size() && url.substr(0, o.size()) == o) {
        std::string_view rest = url.substr(o.size());
        if (rest.empty()) return "/";
        auto page_rest = page.substr(o.size());
        auto hash = rest.find('#');
        if (hash != std::string_view::npos) {
            auto ph = page_rest.find('#');
            if (rest.substr(0, hash) == page_rest.substr(0, ph)) return std::string(rest.substr(hash));
        }
        return std::string(rest);
    }
    if (url.rfind("javascript:", 0) == 0) return {};
    return std::string(url);
}

/// short_url, and a long cross-origin URL loses its query and fragment ("…" marks the cut).
inline std::string compact_url(std::string_view url, std::string_view page, std::size_t max) {
    std::string u = short_url(url, page);
    if (u.rfind("https://", 0) == 0) u.erase(0, 8);  // https is the default; other schemes stay explicit
    if (max == 0 || u.size() <= max || u.empty() || u[0] == '/' || u[0] == '#') return u;
    const auto q = u.find_first_of("?#");
    if (q != std::string::npos) u = u.substr(0, q) + "…";
    if (u.size() > max + 40) u = u.substr(0, utf8_safe_prefix(u, max)) + "…";
    return u;
}

/// A label for a control the page left unnamed: DOM hints first, then a positional one.
inline std::string fallback_label(const dom_node_facts* f) {
    if (f == nullptr) return {};
    for (auto a : {"title", "aria-describedby", "data-testid", "data-test", "name", "id", "alt", "placeholder"}) {
        auto v = f->attr(a);
        if (!v.empty() && v.size() < 60) return std::string(v);
    }
    auto cls = f->attr("class");
    // class tokens that say what an icon is: icon-close, fa-search, btn-menu ...
    std::string best;
    std::size_t i = 0;
    while (i < cls.size()) {
        auto j = cls.find(' ', i);
        auto tok = cls.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i);
        for (auto pre : {"icon-", "fa-", "bi-", "glyph-", "btn-", "ico-", "mdi-"})
            if (tok.rfind(pre, 0) == 0 && tok.size() > std::string_view(pre).size()) best = std::string(tok.substr(std::string_view(pre).size()));
        if (j == std::string_view::npos) break;
        i = j + 1;
    }
    return best;
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
    std::size_t hidden_climb = 0;  ///< steps taken up the DOM looking for aria-hidden elements
};

/// How deeply nested a node may be and still be rendered (real pages stay far below it).
inline constexpr std::size_t max_render_nesting = 256;

struct frame_view {
    const ax_frame* frame;
    const dom_index* dom;
    std::unordered_map<std::string, const json*> by_id;
};

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
        auto f = fv.by_id.find(cid.get<std::string>());
        if (f == fv.by_id.end() || !c.rendered.insert(f->second).second) continue;  // once per node (no cycles)
        render_node(c, fv, *f->second, depth, parent, inside_interactive, pending_prefix);
    }
    --c.nesting;
}

/// Concatenated static text below a node (for rows and names of clickable containers). At
/// most `visits` nodes are looked at and `depth` levels deep (a page's tree may be cyclic).
inline void collect_text(const frame_view& fv, const json& node, std::string& out, std::size_t limit, int depth,
                         int& visits) {
    if (out.size() > limit || depth > 64 || --visits < 0) return;
    const std::string role = str_field(node, "role");
    if (role == "StaticText") {
        auto t = str_field(node, "name");
        if (!t.empty()) {
            if (!out.empty() && out.back() != ' ') out += ' ';
            out += t;
        }
        return;
    }
    auto it = node.find("childIds");
    if (it == node.end()) return;
    for (const auto& cid : *it) {
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get<std::string>());
        if (f != fv.by_id.end()) collect_text(fv, *f->second, out, limit, depth + 1, visits);
    }
}

inline void collect_text(const frame_view& fv, const json& node, std::string& out, std::size_t limit) {
    int visits = 2000;
    collect_text(fv, node, out, limit, 0, visits);
}

/// Whether an interactive node is below `node`, looking at no more than `budget` nodes in all
/// (true when the budget runs out: assume so).
inline bool has_interactive_descendant(const frame_view& fv, const json& node, int& budget) {
    auto it = node.find("childIds");
    if (it == node.end() || !it->is_array()) return false;
    for (const auto& cid : *it) {
        if (--budget < 0) return true;
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get<std::string>());
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

/// The text of the sibling right after (else right before) a node, when that sibling holds
/// only text; marks its text nodes as consumed so they are not rendered again.
inline std::string nearby_text(render_ctx& c, const frame_view& fv, const json& node, std::size_t max) {
    auto pid = node.find("parentId");
    if (pid == node.end() || !pid->is_string()) return {};
    auto p = fv.by_id.find(pid->get<std::string>());
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
        auto f = fv.by_id.find((*kids)[i].get<std::string>());
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
            c.consumed.insert(n->value("nodeId", std::string()));
            if (auto ch = n->find("childIds"); ch != n->end() && ch->is_array())
                for (const auto& id : *ch)
                    if (id.is_string())
                        if (auto g = fv.by_id.find(id.get<std::string>()); g != fv.by_id.end()) stack.push_back(g->second);
        }
        return t;
    };
    for (std::size_t i = idx + 1; i < kids->size() && i <= idx + 2; ++i) {
        // skip whitespace-only text between the control and its label
        auto f = fv.by_id.find((*kids)[i].is_string() ? (*kids)[i].get<std::string>() : std::string());
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
    snapshot_line l;
    l.depth = depth;
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
        const std::string t = detail::ascii_lower_copy(std::string(f.attr("type")));
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
            if (!label.empty()) {
                text += " " + quote_text(label);
            } else {
                std::string hint = fallback_label(df);
                if (hint.empty()) hint = "unlabeled #" + std::to_string(++c.unnamed_counter);
                text += " [" + clip(hint, 40) + "]";
            }
            if (shown_role == "link") {
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

inline void render_node(render_ctx& c, const frame_view& fv, const json& node, std::size_t depth, std::size_t parent,
                        bool inside_interactive, std::string& pending_prefix) {
    const snapshot_options& opt = *c.opt;
    const std::string role = str_field(node, "role");
    const bool ignored = node.value("ignored", false);
    std::int64_t backend = 0;
    if (auto b = node.find("backendDOMNodeId"); b != node.end() && b->is_number_integer()) backend = b->get<std::int64_t>();
    const dom_node_facts* df = (backend != 0 && fv.dom != nullptr) ? fv.dom->find(backend) : nullptr;

    if (role == "InlineTextBox") return;
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
            render_aria_hidden(c, fv, top, depth, parent, pending_prefix);
            return;
        }
        render_children(c, fv, node, depth, parent, inside_interactive, pending_prefix);
        return;
    }
    if (opt.viewport_only && df != nullptr && df->has_box && fv.dom != nullptr && !fv.dom->in_viewport(*df) &&
        role != "RootWebArea")
        return;

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

    if (role == "StaticText") {
        if (inside_interactive || opt.interactive_only || c.suppress_text > 0) return;
        if (c.consumed.count(node.value("nodeId", std::string())) != 0) return;
        std::string t = clip(str_field(node, "name"), 1U << 20U);
        if (t.empty()) return;
        // Separators ("·", "|", "»") between links carry nothing a model needs.
        if (t.size() <= 3 && std::none_of(t.begin(), t.end(), [](char ch) {
                return std::isalnum(static_cast<unsigned char>(ch)) || (static_cast<unsigned char>(ch) & 0x80U) != 0;
            }) && t != "·")
            return;
        if (t == "·" || t == "|" || t == "•" || t == "»" || t == "/") return;
        // Merge with a preceding text line of the same parent (inline runs).
        auto& L = *c.lines;
        if (!L.empty() && pending_prefix.empty() && L.back().text_run && L.back().depth == depth &&
            L.back().parent == parent && (opt.max_text_line == 0 || L.back().text.size() < opt.max_text_line)) {
            L.back().text += ' ';
            L.back().text += t;
            return;
        }
        push_line(c, depth, std::move(t), "", false, false, parent, pending_prefix);
        c.lines->back().text_run = true;
        return;
    }

    std::string name = clip(str_field(node, "name"), opt.max_text);
    const bool dom_clickable = df != nullptr && ((df->clickable && df->tag != "label" && df->tag != "body" &&
                                                  df->tag != "html") ||
                                                 (df->pointer && !inside_interactive) || df->attr("draggable") == "true");
    const bool interactive_role = is_interactive_role(role) && !(role == "option" && inside_interactive);
    const bool interactive = !inside_interactive && (interactive_role || (dom_clickable && !is_structural_role(role)));

    if (role == "heading") {
        std::string lvl = prop_value(node, "level");
        std::string text = "h" + (lvl.empty() ? std::string("") : lvl) + " " + quote_text(name);
        if (interactive) {
            text += " [ref=" + c.refs->ref_for(fv.frame->session_id, fv.frame->frame_id, fv.frame->loader_id, backend,
                                                role, name) + "]";
        }
        if (!opt.interactive_only || interactive) push_line(c, depth, std::move(text), "", interactive, false, parent, pending_prefix);
        // links inside headings still need refs
        if (has_interactive_descendant(fv, node)) {
            std::string none;
            render_children(c, fv, node, depth + 1, parent, false, none);
        }
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
                    auto f = fv.by_id.find(cid.get<std::string>());
                    if (f == fv.by_id.end()) continue;
                    std::string cell;
                    collect_text(fv, *f->second, cell, opt.max_text);
                    if (!cells.empty()) cells += " | ";
                    cells += clip(cell, opt.max_text);
                }
            }
            if (!cells.empty()) push_line(c, depth, "row: " + cells, "", false, false, parent, pending_prefix);
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

    if (role == "listitem") {
        std::string prefix = "- ";
        std::string& pp = pending_prefix.empty() ? prefix : pending_prefix;
        render_children(c, fv, node, depth, parent, inside_interactive, pp);
        if (&pp == &prefix) prefix.clear();
        return;
    }

    if (interactive) {
        std::string shown_role = role;
        if (!interactive_role) shown_role = "clickable";
        if (role == "DisclosureTriangle") shown_role = "summary";
        if (role == "ComboBoxSelect" || role == "ComboBoxMenuButton" || role == "PopUpButton") shown_role = "combobox";
        if (role == "ToggleButton") shown_role = "button";
        if (name.empty() && !interactive_role) {
            std::string t;
            collect_text(fv, node, t, opt.max_text);
            name = clip(t, opt.max_text);
        }
        std::string text = shown_role;
        if (name.empty() && (role == "checkbox" || role == "radio" || role == "switch" || role == "textbox" ||
                             role == "combobox" || role == "button" || role == "link")) {
            // The page left it unnamed: the text right next to it is the best label (a list of
            // "[ ] Task 1" rows). That text is then not repeated as a line of its own.
            name = nearby_text(c, fv, node, opt.max_text);
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
            std::string hint = fallback_label(df);
            if (hint.empty()) hint = "unlabeled #" + std::to_string(++c.unnamed_counter);
            text += " [" + clip(hint, 40) + "]";
        }
    labelled:
        // state
        const std::string checked = prop_value(node, "checked");
        if (checked == "true") text += " checked";
        else if (checked == "mixed") text += " mixed";
        else if (checked == "false" && (role == "checkbox" || role == "radio" || role == "switch" ||
                                        role == "menuitemcheckbox" || role == "menuitemradio"))
            text += " unchecked";
        const std::string pressed = prop_value(node, "pressed");
        if (pressed == "true") text += " pressed";
        const std::string expanded = prop_value(node, "expanded");
        if (expanded == "true") text += " expanded";
        else if (expanded == "false" && role != "combobox") text += " collapsed";
        if (prop_value(node, "selected") == "true") text += " selected";
        if (prop_value(node, "disabled") == "true") text += " disabled";
        if (prop_value(node, "required") == "true") text += " required";
        if (prop_value(node, "readonly") == "true" && role != "link" && role != "button") text += " readonly";
        if (prop_value(node, "focused") == "true") text += " focused";
        if (prop_value(node, "invalid") == "true") text += " invalid";
        if (role == "textbox" && prop_value(node, "multiline") == "true") text += " multiline";
        std::string value = str_field(node, "value");
        if (role == "link") {
            std::string url = compact_url(prop_value(node, "url"), fv.frame->url, opt.max_url);
            if (!url.empty()) text += " " + clip(url, 120);
        } else if (!value.empty() || role == "textbox" || role == "searchbox") {
            if (role == "textbox" || role == "searchbox" || role == "combobox" || role == "spinbutton" ||
                role == "slider" || role == "ComboBoxSelect") {
                if (!value.empty()) text += " = " + quote_text(clip(value, opt.max_text));
                else if (df != nullptr) {
                    auto ph = df->attr("placeholder");
                    if (!ph.empty() && ph != name) text += " placeholder=" + quote_text(clip(std::string(ph), 60));
                }
            }
        }
        if (role == "combobox" || role == "listbox" || role == "ComboBoxSelect") {
            // list the options inline
            std::vector<std::string> opts;
            std::size_t total = 0;
            std::vector<const json*> stack{&node};
            while (!stack.empty()) {
                const json* n = stack.back();
                stack.pop_back();
                auto it = n->find("childIds");
                if (it == n->end()) continue;
                for (auto ci = it->rbegin(); ci != it->rend(); ++ci) {
                    auto f = fv.by_id.find(ci->get<std::string>());
                    if (f == fv.by_id.end()) continue;
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
        const std::size_t me = push_line(c, depth, std::move(text), ref, true, false, parent, pending_prefix);
        // Controls inside a clickable/link/button (rare): render them below it.
        if (role != "combobox" && role != "listbox" && role != "ComboBoxSelect" && has_interactive_descendant(fv, node)) {
            std::string none;
            render_children(c, fv, node, depth + 1, me, false, none);
        }
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
    for (const auto& n : fr.nodes)
        if (n.contains("nodeId") && n["nodeId"].is_string()) fv.by_id.emplace(n["nodeId"].get<std::string>(), &n);
    // the root: the node without a parent
    const json* root = &fr.nodes[0];
    for (const auto& n : fr.nodes)
        if (!n.contains("parentId")) {
            root = &n;
            break;
        }
    render_node(c, fv, *root, depth, parent, false, pending_prefix);
}

}  // namespace detail

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

inline snapshot render_snapshot_unchecked(const std::vector<ax_frame>& frames, const std::map<std::string, dom_index>& dom,
                                          ref_registry& refs, const snapshot_options& opt, const token_counter& tokens) {
    snapshot out;
    if (frames.empty()) return out;
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
    if (c.too_deep > 0)
        detail::push_line(c, 0,
                          "(" + std::to_string(c.too_deep) + " parts of the page nested more than " +
                              std::to_string(detail::max_render_nesting) + " levels deep are not shown)",
                          "", false, false, static_cast<std::size_t>(-1), prefix);

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

    auto render_line = [](const snapshot_line& l) {
        std::string s(l.depth, ' ');
        s += l.text;
        s += '\n';
        return s;
    };
    for (const auto& l : out.lines) out.full_text += render_line(l);
    // Long runs of page text are shortened (the full text stays in full_text and readable mode).
    std::size_t shortened = 0;
    if (opt.max_text_line > 0) {
        for (auto& l : out.lines) {
            if (!l.text_run || l.text.size() <= opt.max_text_line + 20) continue;
            std::size_t cut = utf8_safe_prefix(l.text, opt.max_text_line);
            const std::size_t sp = l.text.rfind(' ', cut);
            if (sp != std::string::npos && sp > opt.max_text_line / 2) cut = sp;
            l.text.resize(cut);
            l.text += "…";
            ++shortened;
        }
    }
    std::vector<std::size_t> cost(out.lines.size());
    for (std::size_t i = 0; i < out.lines.size(); ++i) {
        cost[i] = tokens.count(render_line(out.lines[i]));
        out.total_tokens += cost[i];
    }

    std::vector<bool> keep(out.lines.size(), true);
    if (opt.token_budget > 0 && out.total_tokens > opt.token_budget) {
        // Interactive lines (and the structure above them) first, in document order; then text.
        std::fill(keep.begin(), keep.end(), false);
        std::size_t used = 0;
        const std::size_t reserve = std::min<std::size_t>(60, opt.token_budget / 3);  // room for the cut note
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
                if (l.interactive || l.structural || keep[i]) continue;
                const bool heading = l.text.size() > 1 && l.text[0] == 'h' && l.text[1] >= '1' && l.text[1] <= '6';
                if ((pass == 0) != heading) continue;
                if (!take(i)) ++out.cut_text_lines;
            }
    }
    for (std::size_t i = 0; i < out.lines.size(); ++i) {
        if (!keep[i]) continue;
        out.text += render_line(out.lines[i]);
        ++out.shown_lines;
    }
    if (shortened > 0) {
        out.shortened_lines = shortened;
        out.text += "[" + std::to_string(shortened) + " long text lines shortened (…); the readable mode shows the text whole]\n";
    }
    if (out.truncated()) {
        std::string note = "[snapshot cut to ~" + std::to_string(opt.token_budget) + " tokens: " +
                           std::to_string(out.cut_text_lines) + " text lines";
        if (out.cut_controls > 0) note += " and " + std::to_string(out.cut_controls) + " controls";
        note += " hidden of " + std::to_string(out.lines.size()) +
                ". To see them: snapshot a subtree by ref, use viewport_only, or search the page text]\n";
        out.text += note;
    }
    out.tokens = tokens.count(out.text);
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

// ---------------------------------------------------------------------------------------------
// Deltas
// ---------------------------------------------------------------------------------------------

/// What format_delta says when nothing changed (our text, not the page's).
inline constexpr std::string_view no_visible_change = "no visible change";

struct snapshot_delta {
    std::vector<std::string> added;
    std::vector<std::string> removed;
    std::vector<std::pair<std::string, std::string>> changed;  ///< same ref, new text (old, new)
    [[nodiscard]] bool empty() const noexcept { return added.empty() && removed.empty() && changed.empty(); }
};

namespace detail {
/// The units of a snapshot line as [begin, end) offsets: space-separated words, where a quoted
/// run ("Full name *", placeholder="a b") stays inside its word.
inline std::vector<std::pair<std::size_t, std::size_t>> line_units(std::string_view s) {
    std::vector<std::pair<std::size_t, std::size_t>> u;
    std::size_t i = 0;
    while (i < s.size()) {
        if (s[i] == ' ') {
            ++i;
            continue;
        }
        const std::size_t b = i;
        bool quoted = false;
        for (; i < s.size(); ++i) {
            const char c = s[i];
            if (quoted) {
                if (c == '\\' && i + 1 < s.size()) ++i;
                else if (c == '"') quoted = false;
            } else if (c == '"') {
                quoted = true;
            } else if (c == '[' && i == b) {  // a bracketed label ([nearby text]) is one unit
                const auto close = s.find(']', i);
                if (close == std::string_view::npos) continue;
                i = close;
            } else if (c == ' ') {
                break;
            }
        }
        u.emplace_back(b, i);
    }
    return u;
}

inline std::vector<std::string_view> line_words(std::string_view s) {
    std::vector<std::string_view> w;
    for (const auto& [b, e] : line_units(s)) w.push_back(s.substr(b, e - b));
    return w;
}

/// True when `after` is `before` less its focus. Focus leaving the element the model acted on
/// before is not news when the snapshot shows where it went (diff_snapshots checks that).
inline bool only_lost_focus(std::string_view before, std::string_view after) {
    auto a = line_words(before);
    const auto n = a.size();
    a.erase(std::remove(a.begin(), a.end(), std::string_view("focused")), a.end());
    return a.size() < n && a == line_words(after);
}

/// A changed line as "~ NEW (was OLD-PART)": the element as it is now, and only the words of the
/// old line that differ (the role, name and ref are not repeated).
inline std::string describe_change(std::string_view before, std::string_view after) {
    const auto ua = line_units(before);
    const auto ub = line_units(after);
    auto word = [](std::string_view s, const std::pair<std::size_t, std::size_t>& p) { return s.substr(p.first, p.second - p.first); };
    std::size_t p = 0;
    while (p < ua.size() && p < ub.size() && word(before, ua[p]) == word(after, ub[p])) ++p;
    std::size_t q = 0;
    while (q < ua.size() - p && q < ub.size() - p && word(before, ua[ua.size() - 1 - q]) == word(after, ub[ub.size() - 1 - q])) ++q;
    std::string out = "~ " + std::string(after);
    if (p + q < ua.size()) {
        const std::size_t from = ua[p].first;
        const std::size_t to = ua[ua.size() - 1 - q].second;
        out += " (was " + std::string(before.substr(from, to - from)) + ")";
    }
    return out;
}
}  // namespace detail

/// What changed between two snapshots of the same page: lines matched by ref where they have
/// one, by text otherwise (a multiset difference, so repeated lines are counted). A line that
/// only lost its focus is not a change.
[[nodiscard]] inline snapshot_delta diff_snapshots(const std::vector<snapshot_line>& before,
                                                   const std::vector<snapshot_line>& after) {
    snapshot_delta d;
    std::map<std::string, const snapshot_line*> before_ref;
    std::map<std::string, int> before_text;
    for (const auto& l : before) {
        if (!l.ref.empty()) before_ref[l.ref] = &l;
        else if (!l.structural) ++before_text[l.text];
    }
    // Focus that left a line is news only when the snapshot does not show where it went; that
    // is looked up once, and only when some line did lose only its focus.
    std::optional<bool> focus_shown;
    auto shows_focus = [&] {
        if (!focus_shown) {
            focus_shown = std::any_of(after.begin(), after.end(), [](const snapshot_line& l) {
                if (l.ref.empty() || l.text.find("focused") == std::string::npos) return false;
                const auto w = detail::line_words(l.text);
                return std::find(w.begin(), w.end(), std::string_view("focused")) != w.end();
            });
        }
        return *focus_shown;
    };
    std::set<std::string> seen_refs;
    for (const auto& l : after) {
        if (!l.ref.empty()) {
            seen_refs.insert(l.ref);
            auto it = before_ref.find(l.ref);
            if (it == before_ref.end()) d.added.push_back(l.text);
            else if (it->second->text != l.text && !(detail::only_lost_focus(it->second->text, l.text) && shows_focus()))
                d.changed.emplace_back(it->second->text, l.text);
        } else if (!l.structural) {
            auto it = before_text.find(l.text);
            if (it != before_text.end() && it->second > 0) --it->second;
            else d.added.push_back(l.text);
        }
    }
    for (const auto& l : before) {
        if (!l.ref.empty()) {
            if (seen_refs.count(l.ref) == 0) d.removed.push_back(l.text);
        }
    }
    for (const auto& [text, n] : before_text)
        for (int i = 0; i < n; ++i) d.removed.push_back(text);
    return d;
}

/// The delta as compact text within a token budget: "+ line", "- line", and "~ line (was …)"
/// with the line as it is now and the words of the old one that differ.
[[nodiscard]] inline std::string format_delta(const snapshot_delta& d, std::size_t token_budget = 800,
                                              const token_counter& tokens = {}) {
    if (d.empty()) return std::string(no_visible_change);
    std::string out;
    std::size_t used = 0;
    std::size_t dropped = 0;
    auto add = [&](std::string line) {
        const std::size_t t = tokens.count(line);
        if (token_budget > 0 && used + t > token_budget) {
            ++dropped;
            return;
        }
        used += t;
        out += line;
    };
    for (const auto& [a, b] : d.changed) add(detail::describe_change(a, b) + "\n");
    for (const auto& a : d.added) add("+ " + a + "\n");
    for (const auto& r : d.removed) add("- " + r + "\n");
    if (dropped > 0) out += "(" + std::to_string(dropped) + " more changes; take a snapshot to see the page)\n";
    return out;
}

}  // namespace agentkit::browser
