// agentkit/browser/detail/line_text.hpp — the words of a snapshot line: which roles are
// controls, transparent or structure; clipping, quoting and joining page text; reading an AX
// node's fields; link URLs shortened against the page's. Used by the renderer (render.hpp).
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/strings.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

namespace agentkit::browser::detail {

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

/// Page text that spells a ref mark ("[ref=e7]") is shown as `[ref\=e7]`: a line of page text
/// could otherwise read exactly like a control's line (`button "Cancel" [ref=e7]`, e7 being some
/// other control), and the snapshot's readers (a model, marks, tests) take `[ref=` for a ref.
/// Controls' names and values need no such care: they are quoted (quote_text), so a mark in
/// them reads as part of the name.
inline void defang_ref_marks(std::string& s) {
    for (std::size_t at = s.find("[ref="); at != std::string::npos; at = s.find("[ref=", at + 6)) s.insert(at + 4, 1, '\\');
}

/// One run of page text as it renders inside a line: newlines and tabs become spaces and runs
/// of spaces one space, but the spaces at its edges stay: whether two runs are separated is
/// the page's to say (`Enter "<span>Jerald</span>"` has no space around the name).
inline std::string text_run(std::string_view s, std::size_t max) {
    std::string out;
    out.reserve(std::min(s.size(), max + 4));
    bool sp = false;
    for (char ch : s) {
        if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
        if (ch == ' ') {
            if (!sp) out += ' ';
            sp = true;
        } else {
            out += ch;
            sp = false;
        }
        if (out.size() > max) break;
    }
    if (out.size() > max) {
        out.resize(utf8_safe_prefix(out, max));
        out += "…";
    }
    return out;
}

/// Append a run to a line of the same block: as rendered, one space where either side has one.
inline void append_run(std::string& line, std::string_view run) {
    if (!line.empty() && line.back() == ' ' && !run.empty() && run.front() == ' ') run.remove_prefix(1);
    line += run;
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

/// short_url, shortened to what tells where a link leads: a URL longer than `max` (same-origin
/// paths too) loses its query and fragment, and a path still longer than `path_max` (default:
/// `max`) is cut there; "…" marks a cut. A same-page "#fragment" stays whole. (The element
/// keeps its whole href.)
inline std::string compact_url(std::string_view url, std::string_view page, std::size_t max,
                               std::size_t path_max = 0) {
    if (path_max == 0) path_max = max;
    std::string u = short_url(url, page);
    if (u.rfind("https://", 0) == 0) u.erase(0, 8);  // https is the default; other schemes stay explicit
    defang_ref_marks(u);  // a URL is not quoted: "/a?x=[ref=e5]" would show a second ref
    if (max == 0 || u.size() <= max || u.empty() || u[0] == '#') return u;
    const auto q = u.find_first_of("?#");
    bool cut = q != std::string::npos;
    if (cut) u.resize(q);
    if (u.size() > path_max) {
        u.resize(utf8_safe_prefix(u, path_max));
        cut = true;
    }
    return cut ? u + "…" : u;
}

}  // namespace agentkit::browser::detail
