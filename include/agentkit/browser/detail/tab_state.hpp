// agentkit/browser/detail/tab_state.hpp — what the engine knows about one tab: its frames and
// out-of-process iframes, navigation counters, in-flight requests, console and network logs,
// dialogs and the lines of its last snapshot. Written by the CDP event dispatcher under the
// engine mutex; read by operations under the same mutex.
#pragma once

#include <agentkit/browser/detail/repeated_regions.hpp>
#include <agentkit/browser/results.hpp>
#include <agentkit/browser/action_result.hpp>
#include <agentkit/browser/snapshot.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace agentkit::browser::detail {

struct frame_rec {
    std::string parent;
    std::string loader;
    std::string url;
    std::string session;
};

// A file chooser the page opened (Page.fileChooserOpened, the dialog intercepted): answered by
// browser::upload() without a ref, or cancelled; gone with the document.
struct file_chooser_rec {
    std::int64_t backend = 0;  // the <input type=file>'s backend node; 0: not an input's (showOpenFilePicker)
    bool multiple = false;     // it takes several files
    std::string session;       // the session (page or frame) that raised it
};

// What an action's result says of a file chooser it opened (not held as a modal state).
inline std::string file_chooser_note(const file_chooser_rec& c) {
    if (c.backend == 0)
        return "the page opened a file chooser no file input owns (showOpenFilePicker): it cannot be given files here";
    return std::string("a file chooser opened (") + (c.multiple ? "several files" : "one file") +
           "): browser_file_upload with the files' paths and no ref answers it (no paths: cancels it)";
}

struct child_rec {  // an out-of-process iframe target attached to a tab
    std::string frame_id;
    std::string parent_session;
    std::string url;
};

struct tab_state {
    std::string id;
    std::string target_id;
    std::string session;
    std::string main_frame;
    std::string url;
    std::string reported_url;  ///< the URL the last result for this tab named or implied
    std::string form_get_url;  ///< where the last navigation requested in the main frame went, when a GET form sent it
    std::string title;
    std::map<std::string, frame_rec> frames;
    std::map<std::string, child_rec> children;                 // OOPIF session → record
    std::map<std::string, std::set<std::string>> lifecycle;    // loader → lifecycle event names
    std::map<std::string, std::chrono::steady_clock::time_point> dom_ready_at;  // loader → its DOMContentLoaded
    std::map<std::string, int> doc_status;                     // loader → HTTP status
    bool main_loading = false;
    std::uint64_t nav_requested = 0, nav_started = 0, nav_committed = 0, nav_stopped = 0, same_doc = 0;
    std::uint64_t main_loaded = 0;  // seq of the main frame's last load event
    bool looping = false;           // settle saw the page navigate itself in every round
    std::map<std::string, std::uint64_t> inflight;  // session|requestId → seq when started
    std::deque<console_message> console;
    std::deque<std::pair<std::string, network_entry>> network;  // (session|requestId, entry)
    std::size_t console_dropped = 0, network_dropped = 0;        // oldest entries dropped beyond capacity
    std::size_t console_document = 0;  // console_dropped + console.size() when the current document began
    std::map<std::string, double> request_start;                 // session|requestId → timestamp
    std::vector<dialog_record> dialogs;  // not reported yet
    std::size_t dialogs_dropped = 0;     // beyond the per-action limit
    // dialogs left open (dialog_policy::hold), oldest first, with the session that raised each
    std::deque<std::pair<dialog_record, std::string>> held_dialogs;
    std::vector<std::string> opened;     // tab ids opened by this tab, not reported yet
    // Floods stopped until the next action (sessions of this tab): scripts disabled after a
    // dialog flood; console events off after a flood of oversized console messages.
    std::set<std::string> scripts_stopped, console_paused;
    std::size_t oversized_console = 0;  // oversized console events since the action began
    bool leaving = false;               // a navigation away was asked for and has not committed
    // This call found the page's main thread held by a dialog flood whose stop the renderer did
    // not take: it tries no other read of the page, each would wait out its timeout. Cleared
    // when the next call begins.
    bool stuck = false;
    std::vector<std::string> action_notes;  // said in the next result (floods stopped, a file chooser opened)
    std::optional<file_chooser_rec> chooser;  // the file chooser open on the page
    bool crashed = false;
    bool closed = false;
    // Where the mouse is (viewport CSS px) and its pressed buttons (the CDP bit mask): every
    // mouse event goes through browser::mouse(), which keeps them.
    double mouse_x = 0, mouse_y = 0;
    int mouse_buttons = 0;
    // agentkit's isolated world in the main frame (marks are drawn there; the device pixel ratio
    // is read there) and the document it belongs to.
    std::string world_loader;
    std::int64_t world_context = 0;
    // Playwright-style frame numbers of the aria snapshot (browser/impl/aria.hpp): the main
    // frame's (0 until a document replaces a non-blank one), the next to give, and the main
    // document they were counted for.
    int aria_main_seq = 0;
    int aria_next_seq = 1;
    std::string aria_loader;
    std::string aria_url;
    std::vector<snapshot_line> last_lines;
    bool has_last = false;
    // last_lines came from a large page's first part (detail/page_part.hpp): the first node it
    // did not read (0: read whole) and the digest of the nodes from there on.
    std::int64_t last_boundary = 0;
    std::uint64_t last_tail = 0;
    region_memory shown;  ///< the regions of the page last shown in a snapshot (repeated_regions.hpp)
};

}  // namespace agentkit::browser::detail
