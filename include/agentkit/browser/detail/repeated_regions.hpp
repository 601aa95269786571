// agentkit/browser/detail/repeated_regions.hpp — a site's chrome shown once: the header, the
// menus, the side bar and the footer that every page of a site repeats.
//
// A model that follows links within one site reads the same banner, navigation, side bar and
// footer in every new page's snapshot (on a small shop page they are two thirds of it). So the
// page an action led to (a click, a submit: not a navigate to a URL, which may start a new task
// and is shown whole) shows such a region as one line when its text is exactly what the last
// page shown in that tab had, on the same origin:
//
//   banner: as on the previous page (15 refs)
//
// and a note outside the page's data says that browser_snapshot shows them. The refs inside are
// new (the document is new) and work as soon as a snapshot shows them; the previous page's refs
// stay stale. What is compared is the region's text with its refs left out, so a menu whose
// current item, counter or any word changed is shown whole. Only top-level landmark regions
// (banner, navigation, complementary, contentinfo, search) of 3 lines or more are collapsed;
// the page's main content never is. The regions are collapsed in the snapshot's lines, before its
// token budget is applied: on a page the budget cuts, what the regions no longer take goes to the
// rest of the page. No browser here (browser/impl applies it and keeps the memory in the tab's state).
#pragma once

#include <agentkit/browser/snapshot_types.hpp>

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::browser::detail {

/// What the model was last shown of a tab's page: its origin and its regions' texts (refs left out).
struct region_memory {
    std::string origin;
    std::set<std::string> regions;
};

/// A top-level region of a snapshot: lines [first, last), its first line, its lines with the
/// refs left out (what is compared), and how many refs it has.
struct snapshot_region {
    std::size_t first = 0, last = 0;
    std::string head;  ///< its first line ("banner", "navigation \"Main\" [ref=k2]")
    std::string key;   ///< its lines, indented and each ending in a newline, with every " [ref=…]" left out
    std::size_t refs = 0;
    [[nodiscard]] std::size_t lines() const noexcept { return last - first; }
};

/// The role a snapshot line starts with ("banner" of `banner`, "navigation" of `navigation "Main"`).
inline std::string_view line_role(std::string_view line) {
    std::size_t i = 0;
    while (i < line.size() && ((line[i] >= 'a' && line[i] <= 'z') || (line[i] >= 'A' && line[i] <= 'Z'))) ++i;
    return line.substr(0, i);
}

/// Whether a top-level line opens a region a site repeats on its pages.
inline bool repeatable_region(std::string_view line) {
    const auto r = line_role(line);
    if (r.size() == line.size() || line[r.size()] == ' ' || line[r.size()] == ':')
        return r == "banner" || r == "navigation" || r == "complementary" || r == "contentinfo" || r == "search";
    return false;
}

/// `line` with every " [ref=…]" left out (a mark made of refs' letters and digits only; a page's
/// text that spells one is defanged, "[ref\=…]", and stays).
inline std::string without_refs(std::string_view line, std::size_t& refs) {
    std::string out;
    out.reserve(line.size());
    std::size_t i = 0;
    while (i < line.size()) {
        if (line.compare(i, 6, " [ref=") == 0) {
            std::size_t j = i + 6;
            while (j < line.size() && ((line[j] >= 'a' && line[j] <= 'z') || (line[j] >= '0' && line[j] <= '9'))) ++j;
            if (j > i + 6 && j < line.size() && line[j] == ']') {
                ++refs;
                i = j + 1;
                continue;
            }
        }
        out += line[i++];
    }
    return out;
}

/// The top-level repeatable regions of a snapshot's lines as the model reads them (indented, no
/// newline): a region is its first line at no indent and the indented lines after it.
inline std::vector<snapshot_region> repeatable_regions(const std::vector<std::string>& lines) {
    std::vector<snapshot_region> out;
    bool open = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        if (!line.empty() && line[0] != ' ') {  // a top-level line ends the region before it
            open = repeatable_region(line);
            if (open) out.push_back(snapshot_region{i, i, line, {}, 0});
        }
        if (!open) continue;
        auto& r = out.back();
        r.last = i + 1;
        r.key += without_refs(line, r.refs);
        r.key += '\n';
    }
    return out;
}

/// A snapshot's text as its lines.
inline std::vector<std::string> text_lines(std::string_view text) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto nl = text.find('\n', pos);
        const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
        out.emplace_back(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return out;
}

/// Regions of at least this many lines are worth a line of their own.
inline constexpr std::size_t min_collapsed_lines = 3;

/// Remember what the model is shown of a page at `origin`: the regions `text` shows (a region cut
/// short is remembered cut and matches nothing whole), and the `collapsed` ones (their keys: the
/// model knows them from the page before).
inline void remember_regions(region_memory& m, std::string_view origin, std::string_view text,
                             const std::vector<std::string>& collapsed = {}) {
    m.origin = std::string(origin);
    m.regions.clear();
    for (const auto& r : repeatable_regions(text_lines(text)))
        if (r.lines() >= min_collapsed_lines) m.regions.insert(r.key);
    m.regions.insert(collapsed.begin(), collapsed.end());
}

/// A new page's lines with the regions the model already knows as one line each, and the keys
/// of those regions (both empty when none is collapsed).
struct collapsed_page {
    std::vector<snapshot_line> lines;
    std::vector<std::string> keys;
};

/// A new page's snapshot lines (at `origin`) with each region the last page shown at the same
/// origin had exactly as one line, "banner: as on the previous page (15 refs)"; the lines'
/// parents follow. The lines are copied only when a region is collapsed. The memory is not
/// changed: once the page is shown (within its budget), remember_regions() records it.
inline collapsed_page collapse_repeated_regions(const std::vector<snapshot_line>& lines, std::string_view origin,
                                                const region_memory& m) {
    collapsed_page page;
    if (origin.empty() || origin != m.origin) return page;
    std::vector<std::string> shown;
    shown.reserve(lines.size());
    for (const auto& l : lines) shown.push_back(std::string(l.depth, ' ') + l.text);
    constexpr auto none = static_cast<std::size_t>(-1);
    auto& out = page.lines;
    std::vector<std::size_t> remap(lines.size(), none);
    std::size_t next = 0;
    for (const auto& r : repeatable_regions(shown)) {
        if (r.lines() < min_collapsed_lines || m.regions.count(r.key) == 0) continue;
        for (; next < r.first; ++next) {
            remap[next] = out.size();
            out.push_back(lines[next]);
        }
        std::size_t ignored = 0;
        snapshot_line one;
        one.text = without_refs(r.head, ignored) + ": as on the previous page (" + std::to_string(r.refs) +
                   (r.refs == 1 ? " ref)" : " refs)");
        one.summary = true;  // a budget keeps it first: the region is there
        out.push_back(std::move(one));
        page.keys.push_back(r.key);
        next = r.last;
    }
    if (page.keys.empty()) return page;
    for (; next < lines.size(); ++next) {
        remap[next] = out.size();
        out.push_back(lines[next]);
    }
    for (auto& l : out)  // a region is a whole subtree: no line outside it has a parent inside it
        if (l.parent != none) l.parent = remap[l.parent];
    return page;
}

/// The note beside a page with `n` collapsed regions.
inline std::string collapsed_note(std::size_t n) {
    return std::to_string(n) + (n == 1 ? " region is" : " regions are") +
           " as on the previous page (one line each): browser_snapshot shows the whole page with their refs";
}

}  // namespace agentkit::browser::detail
