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
// the page's main content never is. Text in, text out: no browser here (browser/impl applies it
// and keeps the memory in the tab's state).
#pragma once

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

/// A top-level region of a snapshot's text: its first line, where it starts and ends, its text
/// with the refs left out, and how many refs it has.
struct snapshot_region {
    std::size_t begin = 0, end = 0;  ///< byte offsets in the text: [begin, end)
    std::string head;                ///< its first line ("banner", "navigation \"Main\" [ref=k2]")
    std::string key;                 ///< its lines with every " [ref=…]" left out
    std::size_t refs = 0, lines = 0;
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

/// The top-level repeatable regions of a snapshot's text (a region: its first line at no indent,
/// and the indented lines after it).
inline std::vector<snapshot_region> repeatable_regions(std::string_view text) {
    std::vector<snapshot_region> out;
    std::size_t pos = 0;
    snapshot_region* cur = nullptr;
    while (pos < text.size()) {
        auto nl = text.find('\n', pos);
        const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
        const auto line = text.substr(pos, (nl == std::string_view::npos ? text.size() : nl) - pos);
        const bool top = !line.empty() && line[0] != ' ';
        if (top) {
            cur = nullptr;
            if (repeatable_region(line)) {
                out.push_back(snapshot_region{pos, end, std::string(line), {}, 0, 0});
                cur = &out.back();
            }
        }
        if (cur) {
            cur->end = end;
            cur->key += without_refs(line, cur->refs);
            cur->key += '\n';
            ++cur->lines;
        }
        pos = end;
    }
    return out;
}

/// Regions of at least this many lines are worth a line of their own.
inline constexpr std::size_t min_collapsed_lines = 3;

/// The memory of a page at `origin` whose regions are `regions`.
inline void remember(region_memory& m, std::string_view origin, const std::vector<snapshot_region>& regions) {
    m.origin = std::string(origin);
    m.regions.clear();
    for (const auto& r : regions)
        if (r.lines >= min_collapsed_lines) m.regions.insert(r.key);
}

/// Remember what the model is shown of a page at `origin` (the page's whole text, or as much of
/// it as was shown: a region cut short is remembered cut and matches nothing whole).
inline void remember_regions(region_memory& m, std::string_view origin, std::string_view text) {
    remember(m, origin, repeatable_regions(text));
}

/// `text` (a new page's snapshot, at `origin`) with each region the last page shown at the same
/// origin had exactly as one line; the memory then holds the new page. `collapsed` counts the
/// regions shown as one line (the caller's note says how to see them: collapsed_note()).
inline std::string collapse_repeated_regions(std::string_view text, std::string_view origin, region_memory& m,
                                             std::size_t* collapsed = nullptr) {
    const auto regions = repeatable_regions(text);
    const bool same_site = !origin.empty() && origin == m.origin;
    std::string out;
    std::size_t pos = 0, n = 0;
    for (const auto& r : regions) {
        if (!same_site || r.lines < min_collapsed_lines || m.regions.count(r.key) == 0) continue;
        out.append(text.substr(pos, r.begin - pos));
        std::size_t ignored = 0;
        out += without_refs(r.head, ignored) + ": as on the previous page (" + std::to_string(r.refs) +
               (r.refs == 1 ? " ref)\n" : " refs)\n");
        pos = r.end;
        ++n;
    }
    out.append(text.substr(pos));
    remember(m, origin, regions);
    if (collapsed) *collapsed = n;
    return out;
}

/// The note beside a page with `n` collapsed regions.
inline std::string collapsed_note(std::size_t n) {
    return std::to_string(n) + (n == 1 ? " region is" : " regions are") +
           " as on the previous page (one line each): browser_snapshot shows the whole page with their refs";
}

}  // namespace agentkit::browser::detail
