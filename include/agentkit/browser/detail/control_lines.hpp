// agentkit/browser/detail/control_lines.hpp — how a control's line is made shorter without
// losing what it says: a name the page doubled shown once, the interactive-only view's leading
// ref, and a picture link beside its headline pointing at the headline's ref.
#pragma once

#include <agentkit/browser/snapshot_types.hpp>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::browser::detail {

/// A name the page assembled from the same words twice (an image's alt text and its caption in
/// one link: "Bridge opens Bridge opens") is shown once. Only halves of 20 characters or more:
/// a short name may repeat a word on purpose ("Bye Bye").
inline std::string_view undoubled(std::string_view name) {
    if (name.size() < 41 || name.size() % 2 == 0) return name;
    const std::size_t half = name.size() / 2;
    if (name[half] != ' ' || name.substr(0, half) != name.substr(half + 1)) return name;
    return name.substr(0, half);
}

/// A control's line as the interactive-only view writes it: its ref first (`e5 button "Send"`,
/// 3 o200k tokens fewer than ` [ref=e5]` at its end). The view has no page text: its lines are
/// controls, headings (`h2 "…"`; no ref has the prefix h), dialogs, iframes and notes in
/// parentheses, none of which starts like a ref, so a ref can lead without a marker.
inline void lead_with_ref(snapshot_line& l) {
    if (l.ref.empty()) return;
    const std::string mark = " [ref=" + l.ref + "]";
    if (const std::size_t at = l.text.rfind(mark); at != std::string::npos)
        l.text = l.ref + " " + l.text.erase(at, mark.size());
}

/// Interactive-only: of two links in a row to the same page (a picture and its headline), the one
/// the page gave no name to says so instead of its derived label and URL, its states kept:
/// `c17 link (same URL as c18)`. Links within the page (`#…`, `javascript:`) are not paired: they
/// are buttons in all but name. `add` is called with each link line as it is pushed; `unpair`
/// puts a line back as it was when its partner is not shown (cut by a budget or a subtree).
struct link_pairs {
    void add(std::vector<snapshot_line>& lines, std::size_t me, const std::string& url, const std::string& page, bool named,
             std::string states) {
        auto doc = [](std::string_view u) { return u.substr(0, u.find('#')); };
        const bool elsewhere = !url.empty() && url.rfind("javascript:", 0) != 0 && doc(url) != doc(page);
        if (elsewhere && last_line_ != npos && last_line_ + 1 == me && url == last_url_ && named != last_named_) {
            const std::size_t unnamed = named ? last_line_ : me;
            const std::string& partner = lines[named ? me : last_line_].ref;
            paired_[lines[unnamed].ref] = {partner, lines[unnamed].text};
            lines[unnamed].text = "link (same URL as " + partner + ")" + (named ? last_states_ : states) + " [ref=" +
                                  lines[unnamed].ref + "]";
        }
        last_line_ = me;
        last_url_ = elsewhere ? url : std::string();
        last_named_ = named;
        last_states_ = std::move(states);
    }

    /// The line of a paired link whose partner is not among `shown` refs, as it was (its own
    /// label and URL, its ref leading it).
    void unpair(snapshot_line& l, const std::set<std::string>& shown) const {
        auto it = paired_.find(l.ref);
        if (it == paired_.end() || shown.count(it->second.first) != 0) return;
        l.text = it->second.second;
        lead_with_ref(l);
    }

private:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    std::size_t last_line_ = npos;
    std::string last_url_;
    bool last_named_ = false;
    std::string last_states_;
    std::map<std::string, std::pair<std::string, std::string>> paired_;  ///< ref → partner's ref, own text
};

}  // namespace agentkit::browser::detail
