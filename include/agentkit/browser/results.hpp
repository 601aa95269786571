// agentkit/browser/results.hpp — what the browser's read operations return: page snapshots,
// console and network entries, screenshots, recordings and batch-read pages.
#pragma once

#include <agentkit/browser/detail/page_data.hpp>
#include <agentkit/browser/policy.hpp>
#include <agentkit/browser/snapshot.hpp>
#include <agentkit/core/result.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace agentkit::browser {

struct console_message {
    std::string level;  ///< log, info, warning, error, debug, exception
    std::string text;
    std::string url;
    int line = 0;
};

struct network_entry {
    std::string method;
    std::string url;
    std::string resource_type;
    int status = 0;
    std::string mime_type;
    std::string error;
    bool finished = false;
    double duration_ms = 0;
};

/// A snapshot of the current tab.
struct page_snapshot {
    std::string tab;
    std::string url;
    std::string title;
    snapshot snap;
    bool article_like = false;  ///< readable() would give the main text more compactly
    std::vector<std::string> notes;
    std::string boundary;  ///< nonce of the untrusted-content marks (empty: unmarked)
    [[nodiscard]] std::string to_text() const {
        std::string s;
        for (const auto& n : notes) s += "note: " + n + "\n";
        s += "url: " + url + "\n";
        if (article_like) s += "(article-like page: the readable mode shows its main text compactly)\n";
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

struct screenshot_result {
    std::string mime_type;
    std::string base64;
    double width = 0;
    double height = 0;
};

/// A screencast recording: frames between start_recording and stop_recording.
struct recording_frame {
    double timestamp = 0;  ///< seconds (browser clock)
    std::string base64;    ///< JPEG
};
struct recording {
    std::string mime_type = "image/jpeg";
    std::vector<recording_frame> frames;
    std::size_t dropped = 0;  ///< frames beyond browser_options::recording_max_frames (oldest dropped)
    double seconds = 0;       ///< wall time between start and stop
    std::vector<std::string> notes;
};

/// One page of a batch read.
struct batch_page {
    std::string url;  ///< as asked
    std::string final_url;
    std::string title;
    int http_status = 0;
    std::string text;       ///< compact snapshot text within its share of the budget
    std::string full_text;  ///< every line (for an artifact when `text` was cut)
    std::size_t tokens = 0;
    bool truncated = false;
    std::optional<error> error_;  ///< why this page could not be read
    std::vector<blocked_request> blocked;
};

}  // namespace agentkit::browser
