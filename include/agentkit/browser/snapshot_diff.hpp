// agentkit/browser/snapshot_diff.hpp — what changed between two snapshots of one page: lines
// added, removed and changed (same ref, new text), worded within a token budget.
#pragma once

#include <agentkit/core/tokens.hpp>
#include <agentkit/browser/snapshot_types.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>

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

/// What format_delta says when nothing changed (our text, not the page's).
inline constexpr std::string_view no_visible_change = "no visible change";

/// What changed between two snapshots: lines added, removed, and lines of the same ref with new text.
struct snapshot_delta {
    std::vector<std::string> added;                            ///< lines only in the new snapshot
    std::vector<std::string> removed;                          ///< lines only in the old snapshot
    std::vector<std::pair<std::string, std::string>> changed;  ///< same ref, new text (old, new)
    /// True when nothing changed.
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

/// How many lines that are gone a delta lists; the rest are counted on one line. What appeared
/// is what the model acts on next; a page hidden behind a layer that opened is dozens of lines
/// gone, and listing each costs more than it tells.
inline constexpr std::size_t max_removed_lines = 8;

/// The delta as compact text within a token budget: "+ line", "- line" (at most
/// max_removed_lines, then "- (N more lines gone)"), and "~ line (was …)" with the line as it
/// is now and the words of the old one that differ.
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
    for (std::size_t i = 0; i < d.removed.size() && i < max_removed_lines; ++i) add("- " + d.removed[i] + "\n");
    if (d.removed.size() > max_removed_lines)
        add("- (" + std::to_string(d.removed.size() - max_removed_lines) + " more lines gone)\n");
    if (dropped > 0) out += "(" + std::to_string(dropped) + " more changes; take a snapshot to see the page)\n";
    return out;
}


}  // namespace agentkit::browser
