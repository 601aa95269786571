// agentkit/browser/snapshot_types.hpp — the inputs and outputs of snapshot rendering: one frame's
// accessibility tree, the rendering options, a rendered line and a whole snapshot.
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

/// One frame's accessibility tree, as Accessibility.getFullAXTree returned it.
struct ax_frame {
    std::string session_id;  ///< CDP session of the frame's renderer (empty: the page session)
    std::string frame_id;  ///< the frame's id
    std::string loader_id;  ///< its document (a navigation makes a new loader)
    std::string url;  ///< its URL
    json nodes;  ///< the `nodes` array
    /// For an out-of-process frame: its `<iframe>` element in the parent (session, backend id).
    std::string owner_session_id;
    /// The `<iframe>` element's backend node id in the parent (0: not out-of-process).
    std::int64_t owner_backend_id = 0;
    /// A large page's main frame read in part (detail/page_part.hpp): the DOM nodes of its
    /// document and those the part covers (both 0: read whole).
    std::size_t dom_nodes = 0;
    std::size_t dom_nodes_read = 0;  ///< of dom_nodes, those the part covers
};

/// What a snapshot shows and how long its lines may be.
struct snapshot_options {
    /// Token budget for the snapshot text (0: unlimited).
    std::size_t token_budget = 6000;
    /// Render only the subtree of this ref.
    std::string root_ref;
    /// Only elements whose box intersects the viewport (and their structure).
    bool viewport_only = false;
    /// Only elements a model can act on, with the headings they stand under as context (a heading
    /// is left out when no control follows it within its section: up to the next heading of its
    /// level or above, inside the element that holds the heading), written tersely: no landmarks
    /// but dialogs and alerts, a link without its URL (but one nothing names: no name, none
    /// derived from an icon, title or alt, no text beside it; an id is no name), a picture link
    /// beside its headline as `link (same URL as e12)`, a checkbox or radio without "unchecked"
    /// (only "checked" is said), no list markers, and each control's ref first on its line
    /// (`e5 button "Send"`) instead of a ` [ref=e5]` mark at its end.
    bool interactive_only = false;
    /// Longest accessible name or text run kept on one line (characters).
    std::size_t max_text = 160;
    /// Options of a select listed inline up to this many.
    std::size_t max_inline_options = 12;
    /// Longest line of plain page text (characters); longer runs are shortened with "…" and
    /// the snapshot says how to read them whole (readable mode). 0: no limit.
    std::size_t max_text_line = 200;
    /// Link URLs longer than this lose their query string and fragment, and a longer path is cut
    /// here (characters; 0: whole URLs).
    std::size_t max_url = 60;
};

/// What browser::aria_snapshot() (Playwright MCP's snapshot) shows.
struct aria_snapshot_options {
    std::string root_ref;  ///< only this aria ref's subtree (empty: the page)
    int depth = 0;         ///< levels shown (0: all)
    bool boxes = false;    ///< each element's box ([box=x,y,w,h], viewport CSS px)
    std::string test_id_attribute = "data-testid";  ///< the attribute getByTestId() locators read
};

/// What browser::find_element() looks for, as Playwright's getByRole and getByText find it.
struct element_query {
    std::string role;  ///< an element of this role (explicit or implicit; hidden ones not)...
    std::string name;  ///< ...whose accessible name holds this (case-insensitive; empty: any name)
    std::string text;  ///< with no role: the smallest visible element whose text holds this (case-insensitive)
    std::string test_id_attribute = "data-testid";  ///< the attribute getByTestId() locators read
};

/// One rendered line.
struct snapshot_line {
    std::size_t depth = 0;  ///< nesting level (indentation)
    std::string text;  ///< without indentation
    std::string ref;   ///< empty for structure and text
    bool interactive = false;  ///< a model can act on it (it has a ref)
    bool structural = false;  ///< a container line (kept when any descendant is kept)
    std::size_t parent = static_cast<std::size_t>(-1);  ///< index of the enclosing structural line
    bool text_run = false;    ///< plain page text (adjacent runs merge into one line)
    int heading = 0;          ///< a heading's level (1-6; 7: a heading without one); 0: not a heading
    /// A heading's section ends before this line (interactive-only; npos: where the next heading starts).
    std::size_t scope_end = static_cast<std::size_t>(-1);
    /// The block a text line's runs are laid out in (dom_index::block_of; 0: unknown): only
    /// runs of the same block merge. closed_block: a <br> ended the line.
    std::int64_t block = 0;
    /// The `block` of a text line a `<br>` ended: nothing merges into it.
    static constexpr std::int64_t closed_block = -1;
    /// Readable mode: the line goes on the block of the line before it (the next line of a
    /// paragraph after a `<br>`): a budget that leaves out one line of a block leaves out the rest.
    bool continues = false;
    /// Its page text was cut at max_text_line ("…"): the snapshot's note counts the ones shown.
    bool shortened = false;
    /// It stands for lines not shown (a site's region as on the previous page): a budget keeps it
    /// before anything else, so the model always learns the region is there.
    bool summary = false;
};

/// A rendered snapshot: its lines, the text the model sees, and what the budget cut.
struct snapshot {
    std::vector<snapshot_line> lines;  ///< every line, before the budget
    std::string text;                  ///< what the model sees (within budget, with the cut note)
    std::size_t tokens = 0;            ///< tokens of `text`
    std::size_t total_tokens = 0;      ///< tokens of all lines, had nothing been cut
    std::size_t shown_lines = 0;  ///< lines in `text`
    std::vector<std::string> refs;  ///< the refs `text` shows, in its order (snapshots and readable mode)
    std::size_t cut_text_lines = 0;  ///< lines of page text the budget left out
    std::size_t cut_controls = 0;  ///< lines with refs the budget left out
    std::size_t shortened_lines = 0;  ///< lines of `text` shortened to max_text_line
    std::string full_text;  ///< every line (what a budget cut can be read back from)
    /// A large page read in part: its main document's DOM nodes and those read (both 0: the
    /// page was read whole). `lines` and `full_text` hold the part.
    std::size_t page_nodes = 0;
    std::size_t page_nodes_read = 0;  ///< of page_nodes, those read
    std::size_t ax_nodes = 0;  ///< accessibility nodes the snapshot was rendered from (every frame)
    /// True when the page was read in part.
    [[nodiscard]] bool partial() const noexcept { return page_nodes_read < page_nodes; }
    /// How much of the page was read, in percent of its DOM nodes (at least 1; 100 when whole).
    [[nodiscard]] std::size_t percent_read() const noexcept {
        return partial() ? std::max<std::size_t>(1, page_nodes_read * 100 / page_nodes) : 100;
    }
    /// True when the budget left lines out.
    [[nodiscard]] bool truncated() const noexcept { return cut_text_lines + cut_controls > 0; }
};

/// The refs of the lines of `s` that show an element of role `role` ("button", "link",
/// "textbox", "clickable", ...) whose name holds `name` (case-insensitive; empty: any name), in
/// page order: what a host driving the browser from C++ clicks or fills. Lines in every view are
/// read (a list item's `- clickable "Large"`, the interactive-only view's `e5 button "Send"`).
///
///   auto page = browser.snapshot();
///   if (auto send = agentkit::browser::find_ref(page->snap, "button", "Send")) browser.click(*send);
[[nodiscard]] inline std::vector<std::string> find_refs(const snapshot& s, std::string_view role, std::string_view name = {}) {
    std::vector<std::string> out;
    const std::string want = ascii_lower(name);
    for (const auto& l : s.lines) {
        if (l.ref.empty()) continue;
        std::string_view t = l.text;
        if (t.substr(0, l.ref.size() + 1) == l.ref + " ") t.remove_prefix(l.ref.size() + 1);  // interactive-only: `e5 button "Send"`
        if (t.substr(0, 2) == "- ") t.remove_prefix(2);  // an item of a list: `- clickable "Large"`
        if (t.substr(0, role.size()) != role || (t.size() > role.size() && t[role.size()] != ' ')) continue;
        if (!want.empty()) {
            // the name is the quoted part after the role: `button "Send" [disabled]`
            const std::size_t open = t.find('"', role.size());
            const std::size_t close = open == std::string_view::npos ? open : t.find('"', open + 1);
            if (close == std::string_view::npos || ascii_lower(t.substr(open + 1, close - open - 1)).find(want) == std::string::npos) continue;
        }
        out.push_back(l.ref);
    }
    return out;
}

/// The first of find_refs(): the ref of the first element of role `role` whose name holds `name`;
/// nothing when the snapshot shows none.
[[nodiscard]] inline std::optional<std::string> find_ref(const snapshot& s, std::string_view role, std::string_view name = {}) {
    auto all = find_refs(s, role, name);
    if (all.empty()) return std::nullopt;
    return std::move(all.front());
}

}  // namespace agentkit::browser
