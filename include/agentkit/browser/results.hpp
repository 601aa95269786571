// agentkit/browser/results.hpp — what the browser's read operations return: page snapshots,
// console and network entries, screenshots, recordings and batch-read pages.
#pragma once

#include <agentkit/browser/action_result.hpp>
#include <agentkit/browser/detail/page_data.hpp>
#include <agentkit/browser/policy.hpp>
#include <agentkit/browser/snapshot.hpp>
#include <agentkit/core/result.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace agentkit::browser {

/// One console message (or uncaught exception) of a tab.
struct console_message {
    std::string level;  ///< log, info, warning, error, debug, exception
    std::string text;   ///< the message text
    std::string url;    ///< the script it came from, when known
    int line = 0;       ///< its line in that script (1-based; 0: unknown)
};

/// One network request of a tab.
struct network_entry {
    std::string method;         ///< GET, POST, ...
    std::string url;            ///< the request URL
    std::string resource_type;  ///< Document, Script, XHR, Fetch, Image, ... (CDP's resource type)
    int status = 0;             ///< the HTTP status (0: no response yet)
    std::string mime_type;      ///< the response's MIME type
    std::string error;          ///< why it failed ("" when it did not)
    bool finished = false;      ///< the request ended (loaded, failed or redirected)
    double duration_ms = 0;     ///< from the request to its end, when finished
    std::string status_text;    ///< the response's status text ("OK"; "" when none came)
    /// The headers as sent, names in lower case; the values of cookie, set-cookie,
    /// authorization and proxy-authorization are hidden (only their length is said).
    std::vector<std::pair<std::string, std::string>> request_headers;
    std::vector<std::pair<std::string, std::string>> response_headers;  ///< as received, the same way
    std::optional<std::string> post_data;  ///< the request body (its first 64 KiB; nullopt: none)
};

/// A snapshot of the current tab.
struct page_snapshot {
    std::string tab;  ///< the tab's id
    std::string url;  ///< the page URL
    std::string title;  ///< the page title
    snapshot snap;  ///< the snapshot itself
    bool article_like = false;  ///< readable() would give the main text more compactly
    std::vector<std::string> notes;  ///< what the model should know first (a restarted browser, ...)
    std::string boundary;  ///< nonce of the untrusted-content marks (empty: unmarked)
    /// A large page read in part (snap.partial()): the first DOM node (backend id) it did not
    /// read, and a digest of the nodes from there on (both 0: read whole).
    std::int64_t part_boundary = 0;
    std::uint64_t part_tail_digest = 0;  ///< digest of the nodes from part_boundary on
    /// The snapshot as the model reads it: notes, URL, then title and snapshot inside the untrusted-content marks.
    [[nodiscard]] std::string to_text() const {
        std::string s;
        for (const auto& n : notes) s += "note: " + n + "\n";
        s += "url: " + url + "\n";
        if (article_like) s += "(article-like: readable mode shows its text)\n";
        return s + detail::page_data("title: " + title + "\n" + snap.text, boundary);
    }
};

/// What evaluate() gives back: the value as JSON where it has a JSON form, and how a model
/// reads it in every case (a function, a symbol or undefined is said, never shown as {}).
struct evaluated {
    json value;        ///< the result as JSON; null when it has no JSON form (see kind)
    /// "json" (value holds it); "undefined", "function", "symbol", "bigint", "number" (NaN,
    /// Infinity, -Infinity, -0), or "object" (an object JSON cannot hold: a DOM node, a cycle)
    std::string kind = "json";
    std::string text;  ///< as the model reads it: the JSON text, or undefined, a function's source head, Symbol(x), 12n, NaN
};

/// A screenshot: base64 image data and its size in CSS px.
/// One mark of a marked screenshot: a ref and the box drawn for it.
struct screenshot_mark {
    std::string ref;  ///< the ref, as the snapshot shows it (the label drawn)
    ///@{
    /// The box drawn (the element's box clipped to its frames and the image), CSS px in the
    /// image: viewport coordinates for a viewport screenshot (what browser::click_at takes),
    /// page coordinates for a full page one.
    double x = 0, y = 0, width = 0, height = 0;
    ///@}
    ///@{
    /// Where its label was drawn (CSS px, the same coordinates): beside or inside the box, at the
    /// first place that overlaps no label drawn before it (the least overlapping one when the
    /// page leaves none free).
    double label_x = 0, label_y = 0, label_width = 0, label_height = 0;
    ///@}
};

/// A screenshot: the image, its size, and with marks the boxes drawn and the snapshot they match.
struct screenshot_result {
    std::string mime_type;  ///< image/png or image/jpeg
    std::string base64;     ///< the image, base64-encoded
    double width = 0;       ///< CSS px
    double height = 0;      ///< CSS px
    double scale = 1;       ///< image pixels per CSS pixel (the device scale factor)
    std::vector<screenshot_mark> marks;  ///< with marks: the refs drawn, in snapshot order
    /// With marks: the snapshot's refs not drawn (off-screen, scrolled away in their frame,
    /// hidden or without a box).
    std::vector<std::string> unmarked;
    std::optional<page_snapshot> snapshot;  ///< with marks: the snapshot whose refs are drawn
};

/// A screencast recording: frames between start_recording and stop_recording.
struct recording_frame {
    double timestamp = 0;  ///< seconds (browser clock)
    std::string base64;    ///< JPEG
};
/// A finished recording: its frames and what was dropped.
struct recording {
    std::string mime_type = "image/jpeg";  ///< the frames' MIME type
    std::vector<recording_frame> frames;  ///< the frames, oldest first
    std::size_t dropped = 0;  ///< frames beyond browser_options::recording_max_frames (oldest dropped)
    double seconds = 0;       ///< wall time between start and stop
    std::vector<std::string> notes;  ///< what the model should know (e.g. the screen did not change)
};

/// A screencast frame for a live view (browser::set_screencast_sink): the receiver acknowledges
/// it with browser::ack_screencast_frame when it wants the next one, which sets the pace.
struct screencast_frame {
    std::string data;        ///< base64 JPEG
    std::string session;     ///< the page session it came from
    int ack_id = 0;          ///< Page.screencastFrame's sessionId (what the ack names)
    std::uint64_t engine = 0;  ///< the browser start it belongs to (an ack to an older one is ignored)
    double timestamp = 0;    ///< the browser's timestamp (seconds since the epoch)
    double css_width = 0;    ///< the viewport's CSS width (metadata.deviceWidth)
    double css_height = 0;   ///< the viewport's CSS height (metadata.deviceHeight)
    double page_scale = 1;   ///< metadata.pageScaleFactor
    double offset_top = 0;   ///< metadata.offsetTop (CSS px above the viewport)
    bool needs_ack = true;   ///< false when a recording on the same tab already acknowledged it
};

/// What a live view shows of a browser, as its events left it (browser::peek()): read without
/// waiting for a call in flight and without a round trip to the browser, so it may trail the
/// page by the events still on their way. Text is redacted as everywhere.
struct live_peek {
    bool running = false;                 ///< a browser is connected
    std::vector<tab_info> tabs;           ///< the open tabs (URL and title as last reported)
    std::vector<console_message> console;  ///< the current tab's newest console messages (when asked for)
    std::vector<network_entry> network;    ///< the current tab's newest requests (when asked for)
};

/// A point in a tab's history (browser::page_mark()): browser::changes_since() reports what
/// happened after it.
struct page_mark {
    std::string tab;      ///< the current tab then
    std::string loader;   ///< its main document then
    std::uint64_t seq = 0;  ///< the engine's event counter then
};

/// One page of a batch read.
struct batch_page {
    std::string url;  ///< as asked
    std::string final_url;  ///< where the page ended up (after redirects)
    std::string title;  ///< the page title
    int http_status = 0;  ///< the main document's HTTP status (0: unknown)
    std::string text;       ///< compact snapshot text within its share of the budget
    std::string full_text;  ///< every line (for an artifact when `text` was cut)
    std::size_t tokens = 0;  ///< estimated tokens of `text`
    bool truncated = false;  ///< `text` was cut to fit the page's share of the budget
    std::optional<error> error_;  ///< why this page could not be read
    std::vector<blocked_request> blocked;  ///< requests the policy refused while loading the page
};

}  // namespace agentkit::browser
