// agentkit/browser/browser.hpp — the browser engine: tabs, frames (including out-of-process
// iframes) and shadow roots in one ref space; snapshots; actions that settle on events and
// report what changed.
//
//   agentkit::browser::browser b;                 // nothing starts until first use
//   auto nav = b.navigate("http://127.0.0.1:8080/");
//   nav->to_text();        // "<<page-data N>>\ntitle: ...\n<snapshot>\n<<end N>>"
//   auto snap = b.snapshot();
//   auto r = b.click("e12");                      // real mouse events at a visible point
//   if (!r && r.error().is(agentkit::errc::element_covered)) { /* names the covering element */ }
//   r->to_text();          // "navigated to /next" / "~ line (was …)" / "+ added line" / "no visible change"
//
// Threading: one operation at a time (calls are serialised by a mutex); CDP events are handled
// on the connection's dispatcher thread and only record state, answer dialogs and attach new
// frames/tabs. Every wait is bounded and woken by events; none is a fixed sleep.
//
// A browser that dies: everything in flight fails at once with errc::browser_crashed; the next
// call starts a new browser (lazily) and says so in its result's notes.
#pragma once

#include <agentkit/browser/keys.hpp>
#include <agentkit/browser/policy.hpp>
#include <agentkit/browser/readable.hpp>
#include <agentkit/browser/snapshot.hpp>
#include <agentkit/browser/socket_gate.hpp>
#include <agentkit/cdp/connection.hpp>
#include <agentkit/cdp/launch.hpp>
#include <agentkit/cdp/pipe_transport.hpp>
#include <agentkit/cdp/websocket_transport.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/tokens.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <signal.h>  // kill
#include <unistd.h>  // getpid

namespace agentkit::browser {

using namespace std::chrono_literals;

// ---------------------------------------------------------------------------------------------
// Options and results
// ---------------------------------------------------------------------------------------------

enum class dialog_action { accept, dismiss };

/// How JavaScript dialogs are answered (they are never left open).
struct dialog_policy {
    dialog_action alert = dialog_action::accept;
    dialog_action confirm = dialog_action::accept;
    dialog_action prompt = dialog_action::accept;
    dialog_action beforeunload = dialog_action::accept;
    std::string prompt_text;  ///< typed into prompts that are accepted (empty: the prompt's default)
};

/// Viewport and device emulation.
struct viewport_size {
    int width = 1280;
    int height = 720;
    double device_scale_factor = 1;
    bool mobile = false;
    bool touch = false;
    std::string user_agent;  ///< empty: unchanged
};

/// Where the origin policy is enforced on WebSockets (only when it has origin lists).
enum class websocket_enforcement {
    /// `proxy` when agentkit launches the browser (unless launch.extra_args set a proxy:
    /// --proxy-server, --proxy-pac-url, --proxy-auto-detect) or cdp_endpoint is on a loopback
    /// address; `script_only` otherwise (a browser on another machine, or reached through
    /// transport_factory, cannot be assumed to reach this process's 127.0.0.1).
    automatic,
    /// Route agentkit's browser context's WebSockets through the in-process SOCKS5 gate on
    /// 127.0.0.1 (socket_gate.hpp), which applies the policy in the network stack: pages,
    /// iframes, workers and service workers alike. The context's http(s) goes direct, so a
    /// proxy the browser would otherwise use (flags, environment, system) does not apply to
    /// it. The browser must reach this process's 127.0.0.1. Plus the page-script guard.
    proxy,
    /// Only the page-script guard: it wraps window.WebSocket in pages and iframes; workers,
    /// service workers and the native constructor (WebSocket.prototype.constructor) escape it.
    script_only,
};

struct browser_options {
    /// How to launch a local browser (ignored when cdp_endpoint is set).
    cdp::launch_options launch;
    /// Connect to an existing browser instead of launching one: ws://... or http://host:port.
    std::string cdp_endpoint;
    /// Launch locally but speak CDP over a WebSocket (--remote-debugging-port) instead of the pipe.
    bool launch_over_websocket = false;
    /// Supply the CDP transport yourself: a custom transport, a browser reached some other way,
    /// a transport wrapped to record a transcript (any_transport::record_to), or a replayed
    /// transcript in tests (cdp::replay_transport). When set, `launch`, `cdp_endpoint` and
    /// `launch_over_websocket` are ignored. Called on every (re)start, i.e. again after the
    /// browser behind the previous transport died; an error fails that start. The browser
    /// creates its own browser context on the transport and disposes of it on close.
    /// Example (a replayed transcript):
    ///   o.transport_factory = [] () -> agentkit::result<agentkit::cdp::any_transport> {
    ///       auto t = agentkit::cdp::replay_transport::from_file("nav.jsonl");
    ///       if (!t) return agentkit::fail(t.error());
    ///       return agentkit::cdp::any_transport{std::move(*t)};
    ///   };
    std::function<result<cdp::any_transport>()> transport_factory;
    /// Allow evaluate(); off by default (errc::policy_blocked). policy.allow_evaluate also allows it.
    bool allow_evaluate = false;
    /// Origins, file://, downloads, secrets, content boundaries (enforced in the browser).
    browser_policy policy;
    /// How the origin policy reaches WebSockets (request interception never sees them).
    websocket_enforcement websockets = websocket_enforcement::automatic;
    /// Screencast frames kept by one recording (oldest dropped beyond).
    std::size_t recording_max_frames = 300;
    dialog_policy dialogs;
    viewport_size viewport;
    std::chrono::milliseconds call_timeout{15000};        ///< one CDP call
    std::chrono::milliseconds navigation_timeout{30000};  ///< a navigation to commit and load
    std::chrono::milliseconds network_idle_timeout{3000}; ///< requests an action started
    std::chrono::milliseconds dom_quiet{30};              ///< DOM quiet window after an action (about two frames)
    std::chrono::milliseconds dom_quiet_timeout{1500};    ///< bound for the DOM to become quiet
    std::size_t snapshot_budget = 6000;  ///< tokens of a snapshot
    /// A navigate, or an action that loads a new document, shows the new page's snapshot in its
    /// result (false: its title only; snapshot() shows the page). Playwright MCP's
    /// --snapshot-mode none.
    bool snapshot_after_navigation = true;
    std::size_t delta_budget = 600;      ///< tokens of an action's change report
    std::size_t console_capacity = 200;
    std::size_t network_capacity = 300;
    token_counter tokens;
    /// Told of every CDP call the engine sends (method, session id), on the sending thread. For
    /// tracing and fault tests; it must not call back into the browser.
    std::function<void(std::string_view method, std::string_view session_id)> on_cdp_call;
};

struct dialog_record {
    std::string type;  ///< alert, confirm, prompt, beforeunload
    std::string message;
    std::string default_prompt;
    std::string url;
    bool accepted = false;
    std::string prompt_text;
};

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

struct tab_info {
    std::string id;
    std::string url;
    std::string title;
    bool active = false;
};

namespace detail {
/// Wrap page-derived text in boundary lines naming it untrusted data (empty nonce: no marks).
inline std::string page_data(const std::string& text, const std::string& nonce) {
    if (nonce.empty() || text.empty()) return text;
    // Short marks: what they mean is said once, in the server's instructions and the tools'
    // descriptions, not in every result (tokens are the budget). A page cannot forge a mark:
    // "<<" inside its text becomes "< <", so no line of page text can open or close one (the
    // nonce, which the page never sees, is a second guard).
    std::string s = "<<page-data " + nonce + ">>\n";
    s.reserve(text.size() + 40);
    for (std::size_t i = 0; i < text.size(); ++i) {
        s += text[i];
        if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '<') s += ' ';
    }
    if (s.back() != '\n') s += '\n';
    return s + "<<end " + nonce + ">>\n";
}
}  // namespace detail

/// A finished (or refused) download.
struct download_record {
    std::string url;
    std::string suggested_name;
    std::string path;   ///< where it was saved (empty when refused or failed)
    std::string state;  ///< completed, refused, canceled
    std::string rule;   ///< the rule that refused it
};

namespace detail {
/// "scheme://host[:port]" of an absolute http(s)/ws(s) URL; "" for anything else.
inline std::string_view url_origin(std::string_view url) {
    const auto scheme = url.find("://");
    if (scheme == std::string_view::npos || scheme == 0) return {};
    const auto name = url.substr(0, scheme);
    if (name != "http" && name != "https" && name != "ws" && name != "wss") return {};
    const auto end = url.find_first_of("/?#", scheme + 3);
    return url.substr(0, end == std::string_view::npos ? url.size() : end);
}

/// Whether `url` is where `base` asked to go: the same, or a bare origin with the root path the
/// browser adds ("http://h" → "http://h/"; "/docs" → "/docs/" is a move and not the same).
inline bool same_place(const std::string& url, const std::string& base) {
    if (url == base) return true;
    return url.size() == base.size() + 1 && url.back() == '/' && url.compare(0, base.size(), base) == 0 &&
           !url_origin(base).empty() && url_origin(base).size() == base.size();
}

/// `url` as the model needs to read it after being at `base`: path, query and fragment when the
/// origin is the same (the origin costs ~8 tokens and says nothing new), else the whole URL.
inline std::string url_relative_to(const std::string& url, std::string_view base) {
    const auto o = url_origin(url);
    if (o.empty() || o != url_origin(base)) return url;
    std::string rest = url.substr(o.size());
    if (rest.rfind("//", 0) == 0) return url;  // "//host/x" would read as another host
    return rest.empty() || rest[0] != '/' ? "/" + rest : rest;
}
}  // namespace detail

/// What an action did and what changed.
struct action_result {
    std::string action;
    std::string url;
    std::string title;
    std::string from_url;       ///< the tab's URL as last reported before the action (URLs are shown against it)
    std::string requested_url;  ///< what a navigate asked for (the result names the URL only when it differs)
    std::string form_get_url;   ///< the URL a GET form submitted to during the action (its query is the form's fields)
    bool navigated = false;  ///< a new document was loaded in the main frame
    int http_status = 0;     ///< of the main document, when navigated (0: unknown)
    std::vector<dialog_record> dialogs;
    std::vector<tab_info> opened_tabs;
    std::string changes;   ///< snapshot delta ("+ line" / "- line" / "~ line (was …)") or "no visible change"
    std::string snapshot;  ///< the new page's snapshot, when the action loaded a new document
    std::vector<std::string> notes;  ///< waits that ran out, a restarted browser, ...
    std::vector<blocked_request> blocked;    ///< requests the policy refused during the action
    std::vector<download_record> downloads;  ///< downloads during the action
    std::size_t dialogs_dropped = 0;          ///< dialogs beyond the per-action limit (answered, not listed)
    std::string boundary;  ///< nonce of the untrusted-content marks (empty: unmarked)
    std::chrono::milliseconds elapsed{0};

    [[nodiscard]] std::string to_text() const {
        std::string s;
        for (const auto& n : notes) s += "note: " + n + "\n";
        // Documents (navigations, popups, form posts) are always listed; subresources beyond a few
        // are counted by type and origin (a page of third-party assets would cost thousands of tokens).
        constexpr std::size_t listed_subresources = 3;
        std::size_t subresources = 0;
        for (const auto& b : blocked)
            if (b.resource_type.rfind("Document", 0) != 0) ++subresources;
        std::map<std::string, std::size_t> by_type;
        std::vector<std::string> origins;
        for (const auto& b : blocked) {
            const bool doc = b.resource_type.rfind("Document", 0) == 0;
            if (doc || subresources <= listed_subresources) {
                s += "blocked " + (b.resource_type.empty() ? std::string("request") : b.resource_type) + " " + b.url + " (policy " + b.rule + ")\n";
                continue;
            }
            ++by_type[b.resource_type.empty() ? std::string("other") : b.resource_type];
            const auto scheme = b.url.find("://");
            if (b.url.empty()) continue;
            std::string origin = scheme == std::string::npos ? b.url : b.url.substr(0, b.url.find('/', scheme + 3));
            if (std::find(origins.begin(), origins.end(), origin) == origins.end()) origins.push_back(std::move(origin));
        }
        if (subresources > listed_subresources) {
            s += "blocked " + std::to_string(subresources) + " requests (";
            bool first = true;
            for (const auto& [type, n] : by_type) {
                s += (first ? "" : ", ") + std::to_string(n) + " " + type;
                first = false;
            }
            s += ")";
            if (!origins.empty()) {
                s += " to " + std::to_string(origins.size()) + (origins.size() == 1 ? " origin: " : " origins: ");
                for (std::size_t i = 0; i < origins.size() && i < 3; ++i) s += (i ? ", " : "") + origins[i];
                if (origins.size() > 3) s += ", …";
            }
            std::vector<std::string> rules;
            for (const auto& b : blocked)
                if (b.resource_type.rfind("Document", 0) != 0 && std::find(rules.begin(), rules.end(), b.rule) == rules.end())
                    rules.push_back(b.rule);
            for (std::size_t i = 0; i < rules.size() && i < 3; ++i) s += (i ? "; policy " : " (policy ") + rules[i];
            if (rules.size() > 3) s += "; …";
            if (!rules.empty()) s += ")";
            if (by_type.size() > by_type.count("Popup")) s += "; browser_network_requests {\"static\": true} lists them";
            s += "\n";
        }
        for (const auto& d : downloads)
            s += "download " + d.suggested_name + ": " + d.state + (d.path.empty() ? std::string() : " → " + d.path) +
                 (d.rule.empty() ? std::string() : " (policy " + d.rule + ")") + "\n";
        if (dialogs_dropped > 0) s += std::to_string(dialogs_dropped) + " more dialogs were answered (not listed)\n";
        if (navigated) {
            // The URL only when it is news (a redirect, or where a click led), against what a
            // navigate asked for or the URL the model last saw (a reload stays put); the status
            // only when it is not a success. The title is the page's text: inside the marks. A
            // navigate that landed where it was asked, with a success, says nothing: the page
            // following is the news.
            std::string line = "navigated";
            const std::string& base = requested_url.empty() ? from_url : requested_url;
            if (!url.empty() && !detail::same_place(url, base)) {
                // A GET form's query repeats the fields the model just filled in: "?…" stands for it
                // (unless a redirect moved the page elsewhere).
                const auto q = url.find('?');
                if (url == form_get_url && q != std::string::npos && q + 1 < url.size() && url.find('#') == std::string::npos)
                    line += " to " + detail::url_relative_to(url.substr(0, q), base) + "?…";
                else
                    line += " to " + detail::url_relative_to(url, base);
            }
            if (http_status != 0 && (http_status < 200 || http_status > 299)) line += " (HTTP " + std::to_string(http_status) + ")";
            if (requested_url.empty() || line != "navigated") s += line + "\n";
        } else if (!url.empty() && !from_url.empty() && url != from_url) {
            // the same document at another URL (history.pushState, a fragment) or a tab that moved
            // since its last result: where it is now
            s += "url: " + detail::url_relative_to(url, from_url) + "\n";
        }
        for (const auto& t : opened_tabs) s += "new tab " + t.id + ": " + t.url + "\n";
        // The page's own words inside the marks: its title, what its dialogs said, the snapshot
        // or the change report ("no visible change" is ours, so it stays outside).
        std::string page;
        if (navigated) page += "title: " + title + "\n";
        for (const auto& d : dialogs) {
            page += d.type + " dialog \"" + d.message + "\" " + (d.accepted ? "accepted" : "dismissed");
            if (d.type == "prompt" && d.accepted) page += " with \"" + d.prompt_text + "\"";
            page += "\n";
        }
        // (a navigation is a change even when its page is not shown: snapshot mode none)
        const bool no_change = !navigated && snapshot.empty() && (changes.empty() || changes == no_visible_change);
        if (!snapshot.empty()) page += snapshot;
        else if (!no_change) page += changes;
        if (!page.empty()) s += detail::page_data(page, boundary);
        if (no_change) (s += no_visible_change) += '\n';
        if (!s.empty() && s.back() != '\n') s += '\n';
        return s;
    }

    [[nodiscard]] json to_json() const {
        json j = {{"action", action}, {"url", url}, {"title", title}, {"navigated", navigated}, {"changes", changes}};
        if (!from_url.empty()) j["from_url"] = from_url;
        if (http_status != 0) j["http_status"] = http_status;
        if (!snapshot.empty()) j["snapshot"] = snapshot;
        if (!notes.empty()) j["notes"] = notes;
        json ds = json::array();
        for (const auto& d : dialogs)
            ds.push_back({{"type", d.type}, {"message", d.message}, {"accepted", d.accepted}, {"prompt_text", d.prompt_text}});
        if (!ds.empty()) j["dialogs"] = ds;
        json ts = json::array();
        for (const auto& t : opened_tabs) ts.push_back({{"id", t.id}, {"url", t.url}});
        if (!ts.empty()) j["opened_tabs"] = ts;
        json bs = json::array();
        for (const auto& b : blocked) bs.push_back({{"url", b.url}, {"type", b.resource_type}, {"rule", b.rule}});
        if (!bs.empty()) j["blocked"] = bs;
        json dl = json::array();
        for (const auto& d : downloads)
            dl.push_back({{"url", d.url}, {"name", d.suggested_name}, {"path", d.path}, {"state", d.state}, {"rule", d.rule}});
        if (!dl.empty()) j["downloads"] = dl;
        j["elapsed_ms"] = elapsed.count();
        return j;
    }
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

struct click_options {
    std::string button = "left";  ///< left, right, middle
    int click_count = 1;
    std::string modifiers;  ///< e.g. "Shift" or "Control+Shift"
};

struct type_options {
    bool submit = false;   ///< press Enter afterwards
    bool replace = true;   ///< replace the current value (false: insert at the caret)
};

/// One form field for browser::fill().
struct fill_field {
    std::string ref;
    std::string kind;   ///< textbox (or any text field), checkbox, radio, combobox, slider
    std::string value;  ///< text; "true"/"false" for checkbox and radio; an option for combobox
    std::string name;   ///< for messages (empty: the ref)
};

struct screenshot_options {
    std::string format = "png";  ///< png or jpeg
    int quality = 80;            ///< jpeg only
    std::string ref;             ///< an element (empty: the viewport)
    bool full_page = false;
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
struct recording_options {
    int max_width = 800;
    int max_height = 600;
    int quality = 60;  ///< JPEG quality
};

/// What to extract (no model-written code): "table", "list", "fields" (by a small JSON schema:
/// {"price": "number"} or {"properties": {"price": {"type": "number", "label": "Cost"}}}), or
/// "auto" (a table, else a list); within `ref`'s subtree (empty: the page).
struct extract_options {
    std::string kind = "auto";
    std::string ref;
    json schema = json::object();
    std::size_t max_items = 200;
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

struct wait_options {
    std::string text;       ///< wait until this text is on the page
    std::string text_gone;  ///< wait until this text is no longer on the page
    std::string ref;        ///< wait until this element is in `state`
    std::string state = "visible";  ///< visible, hidden, enabled, disabled, checked, unchecked, gone
    std::chrono::milliseconds timeout{10000};
};

// ---------------------------------------------------------------------------------------------
// Internals
// ---------------------------------------------------------------------------------------------

namespace detail {

inline std::string jstr(const json& j, std::string_view key) {
    if (!j.is_object()) return {};
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
inline double jnum(const json& j, std::string_view key, double dflt = 0) {
    if (!j.is_object()) return dflt;
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : dflt;
}
inline std::int64_t jint(const json& j, std::string_view key, std::int64_t dflt = 0) {
    if (!j.is_object()) return dflt;
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? static_cast<std::int64_t>(it->get<double>()) : dflt;
}
inline const json& jobj(const json& j, std::string_view key) {
    static const json empty = json::object();
    if (!j.is_object()) return empty;
    auto it = j.find(key);
    return it != j.end() && it->is_object() ? *it : empty;
}
inline bool jbool(const json& j, std::string_view key, bool dflt = false) {
    if (!j.is_object()) return dflt;
    auto it = j.find(key);
    return it != j.end() && it->is_boolean() ? it->get<bool>() : dflt;
}

struct frame_rec {
    std::string parent;
    std::string loader;
    std::string url;
    std::string session;
};

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
    std::map<std::string, int> doc_status;                     // loader → HTTP status
    bool main_loading = false;
    std::uint64_t nav_requested = 0, nav_started = 0, nav_committed = 0, nav_stopped = 0, same_doc = 0;
    std::uint64_t main_loaded = 0;  // seq of the main frame's last load event
    bool looping = false;           // settle saw the page navigate itself in every round
    std::map<std::string, std::uint64_t> inflight;  // session|requestId → seq when started
    std::deque<console_message> console;
    std::deque<std::pair<std::string, network_entry>> network;  // (session|requestId, entry)
    std::size_t console_dropped = 0, network_dropped = 0;        // oldest entries dropped beyond capacity
    std::map<std::string, double> request_start;                 // session|requestId → timestamp
    std::vector<dialog_record> dialogs;  // not reported yet
    std::size_t dialogs_dropped = 0;     // beyond the per-action limit
    std::vector<std::string> opened;     // tab ids opened by this tab, not reported yet
    bool crashed = false;
    bool closed = false;
    std::vector<snapshot_line> last_lines;
    bool has_last = false;
};

// A JavaScript function: resolves when the DOM had no mutation for `quiet` ms (or `max` ms passed).
inline constexpr const char* kQuietScript = R"JS((quiet, max) => new Promise(resolve => {
  const t0 = performance.now(); let last = t0;
  const mo = new MutationObserver(() => { last = performance.now(); });
  try { mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true}); } catch (e) {}
  const tick = () => {
    const now = performance.now();
    if (now - last >= quiet || now - t0 >= max) { mo.disconnect(); resolve(now - last >= quiet ? 'quiet' : 'busy'); }
    else setTimeout(tick, Math.max(5, quiet - (now - last)));
  };
  setTimeout(tick, quiet);
}))JS";

// Deep page text (document + open shadow roots) and a MutationObserver-driven wait on it.
inline constexpr const char* kWaitTextScript = R"JS((needle, gone, timeout) => new Promise(resolve => {
  const deep = (root) => {
    let t = root === document ? (document.body ? document.body.innerText : '') : (root.textContent || '');
    const walk = (r) => { for (const el of r.querySelectorAll('*')) if (el.shadowRoot) { t += '\n' + el.shadowRoot.textContent; walk(el.shadowRoot); } };
    walk(root);
    return t;
  };
  const ok = () => { const has = deep(document).includes(needle); return gone ? !has : has; };
  if (ok()) { resolve(true); return; }
  let done = false, scheduled = false;
  const finish = (v) => { if (done) return; done = true; mo.disconnect(); clearInterval(iv); clearTimeout(to); resolve(v); };
  const check = () => { scheduled = false; if (ok()) finish(true); };
  const mo = new MutationObserver(() => { if (!scheduled) { scheduled = true; setTimeout(check, 0); } });
  mo.observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
  const iv = setInterval(check, 100);
  const to = setTimeout(() => finish(ok()), timeout);
}))JS";

// Element state wait (called on the element).
inline constexpr const char* kWaitStateScript = R"JS(function(state, timeout) {
  const el = this;
  const visible = () => { if (!el.isConnected) return false; const s = getComputedStyle(el); if (s.visibility === 'hidden' || s.display === 'none') return false; const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const checked = () => el.checked === true || el.getAttribute('aria-checked') === 'true';
  const disabled = () => el.disabled === true || el.getAttribute('aria-disabled') === 'true';
  const ok = () => {
    switch (state) {
      case 'visible': return visible();
      case 'hidden': return !visible();
      case 'enabled': return !disabled();
      case 'disabled': return disabled();
      case 'checked': return checked();
      case 'unchecked': return !checked();
      case 'gone': return !el.isConnected;
    }
    return false;
  };
  return new Promise(resolve => {
    if (ok()) { resolve(true); return; }
    let done = false;
    const finish = (v) => { if (done) return; done = true; mo.disconnect(); clearInterval(iv); clearTimeout(to); resolve(v); };
    const mo = new MutationObserver(() => { if (ok()) finish(true); });
    mo.observe(el.ownerDocument, {subtree: true, childList: true, attributes: true, characterData: true});
    const iv = setInterval(() => { if (ok()) finish(true); }, 100);
    const to = setTimeout(() => finish(ok()), timeout);
  });
})JS";

inline constexpr const char* kDescribeScript = R"JS(function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return '#' + this.nodeName;
  let s = '<' + el.tagName.toLowerCase();
  if (el.id) s += ' id="' + el.id + '"';
  if (typeof el.className === 'string' && el.className.trim()) s += ' class="' + el.className.trim().slice(0, 60) + '"';
  s += '>';
  const t = (el.innerText || el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60);
  if (t) s += ' "' + t + '"';
  return s;
})JS";

inline constexpr const char* kContainsScript = R"JS(function(n) {
  const up = (x) => x.parentNode || (x instanceof ShadowRoot ? x.host : null);
  for (let x = n; x; x = up(x)) if (x === this) return true;
  if (this.labels) for (const l of this.labels) for (let x = n; x; x = up(x)) if (x === l) return true;
  return false;
})JS";

inline constexpr const char* kInfoScript = R"JS(function() {
  return {connected: this.isConnected, tag: (this.tagName || '').toLowerCase(), type: (this.type || '').toLowerCase(),
          checked: this.checked === true || this.getAttribute && this.getAttribute('aria-checked') === 'true',
          checkable: this.type === 'checkbox' || this.type === 'radio' || !!(this.getAttribute && this.getAttribute('aria-checked') !== null),
          multiple: !!this.multiple, disabled: !!this.disabled, editable: !!this.isContentEditable};
})JS";

inline constexpr const char* kSelectAllScript = R"JS(function() {
  if ((this.tagName === 'INPUT' || this.tagName === 'TEXTAREA') && this.select) { this.select(); return 'input'; }
  if (this.isContentEditable) { const r = document.createRange(); r.selectNodeContents(this); const s = getSelection(); s.removeAllRanges(); s.addRange(r); return 'editable'; }
  return 'other';
})JS";

inline constexpr const char* kSetValueScript = R"JS(function(v) {
  const proto = this.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value').set.call(this, v);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return this.value;
})JS";

inline constexpr const char* kSelectScript = R"JS(function(wanted) {
  if (this.tagName !== 'SELECT') return {error: 'not_select', tag: this.tagName.toLowerCase()};
  const opts = [...this.options];
  const label = (o) => (o.label || o.text || '').trim();
  const picked = [], missing = [];
  for (const w of wanted) {
    const o = opts.find(o => o.value === w) || opts.find(o => label(o) === w) ||
              opts.find(o => label(o).toLowerCase() === String(w).toLowerCase());
    if (!o) missing.push(w); else if (!picked.includes(o)) picked.push(o);
  }
  const available = opts.map(o => label(o) + (o.value !== label(o) ? ' (value ' + o.value + ')' : ''));
  if (missing.length) return {error: 'missing', missing, available};
  if (!this.multiple && picked.length > 1) return {error: 'single', available};
  const dis = picked.filter(o => o.disabled).map(label);
  if (dis.length || this.disabled) return {error: 'disabled', disabled: dis};
  for (const o of opts) o.selected = picked.includes(o);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: picked.map(label)};
})JS";

// Structured extraction, called on an element (or the document): a table as rows, a list, or the
// fields of a small schema found by their labels. No model-written code runs.
inline constexpr const char* kExtractScript = R"JS(function(kind, schema, maxItems) {
  const root = this.nodeType === 9 ? (this.body || this.documentElement) : this;
  const txt = (el) => (el ? (el.innerText !== undefined && el.innerText !== null ? el.innerText : (el.textContent || '')) : '').replace(/\s+/g, ' ').trim();
  const clip = (s) => s.length > 500 ? s.slice(0, 500) + '…' : s;
  const within = (sel) => (root.matches && root.matches(sel)) ? [root] : [...root.querySelectorAll(sel)];
  const table = () => {
    const t = within('table')[0];
    if (t) {
      const rows = [...t.rows];
      const thead = t.tHead && t.tHead.rows.length ? t.tHead.rows[t.tHead.rows.length - 1] : null;
      let headers = [], start = 0;
      if (thead) { headers = [...thead.cells].map(txt); start = 0; }
      else if (rows.length && [...rows[0].cells].every(c => c.tagName === 'TH')) { headers = [...rows[0].cells].map(txt); start = 1; }
      const out = [];
      let total = 0;
      for (let i = start; i < rows.length; i++) {
        const r = rows[i];
        if (t.tHead && t.tHead.contains(r)) continue;
        const cells = [...r.cells].map(txt);
        if (!cells.length || cells.every(c => !c)) continue;
        total++;
        if (out.length >= maxItems) continue;
        if (headers.length) { const o = {}; cells.forEach((c, j) => { o[headers[j] || ('column ' + (j + 1))] = clip(c); }); out.push(o); }
        else out.push(cells.map(clip));
      }
      return {kind: 'table', headers, rows: out, total_rows: total, caption: t.caption ? txt(t.caption) : undefined};
    }
    const g = within('[role=table],[role=grid],[role=treegrid]')[0];
    if (!g) return {kind: 'table', error: 'no table here'};
    const rows = [...g.querySelectorAll('[role=row]')];
    let headers = [];
    const out = [];
    let total = 0;
    for (const r of rows) {
      const hs = [...r.querySelectorAll('[role=columnheader]')];
      if (hs.length && !headers.length) { headers = hs.map(txt); continue; }
      const cells = [...r.querySelectorAll('[role=cell],[role=gridcell],[role=rowheader]')].map(txt);
      if (!cells.length) continue;
      total++;
      if (out.length >= maxItems) continue;
      if (headers.length) { const o = {}; cells.forEach((c, j) => { o[headers[j] || ('column ' + (j + 1))] = clip(c); }); out.push(o); }
      else out.push(cells.map(clip));
    }
    return {kind: 'table', headers, rows: out, total_rows: total};
  };
  const list = () => {
    let items = [];
    const l = within('ul,ol')[0];
    if (l) items = [...l.children].filter(c => c.tagName === 'LI');
    else { const al = within('[role=list]')[0]; if (al) items = [...al.querySelectorAll('[role=listitem]')]; }
    if (!items.length) {
      const kids = [...root.children];
      const tags = {};
      for (const k of kids) { const key = k.tagName + '.' + (typeof k.className === 'string' ? k.className : ''); tags[key] = (tags[key] || 0) + 1; }
      const best = Object.entries(tags).sort((a, b) => b[1] - a[1])[0];
      if (best && best[1] >= 2) items = kids.filter(k => k.tagName + '.' + (typeof k.className === 'string' ? k.className : '') === best[0]);
    }
    if (!items.length) return {kind: 'list', error: 'no list here'};
    const out = items.slice(0, maxItems).map(it => {
      const o = {text: clip(txt(it))};
      const a = it.matches('a[href]') ? it : it.querySelector('a[href]');
      if (a) o.link = a.href;
      return o;
    });
    return {kind: 'list', items: out, total_items: items.length};
  };
  const norm = (s) => String(s || '').toLowerCase().replace(/[^a-z0-9]+/g, '');
  const fields = () => {
    const pairs = [];
    const add = (label, value, el) => { label = txt({innerText: String(label || '')}); if (label && value !== undefined && value !== null) pairs.push([label, String(value).replace(/\s+/g, ' ').trim(), el]); };
    for (const dt of root.querySelectorAll('dt')) { let dd = dt.nextElementSibling; while (dd && dd.tagName !== 'DD' && dd.tagName !== 'DT') dd = dd.nextElementSibling; if (dd && dd.tagName === 'DD') add(txt(dt), txt(dd), dd); }
    for (const tr of root.querySelectorAll('tr')) { const c = [...tr.cells]; if (c.length === 2) add(txt(c[0]), txt(c[1]), c[1]); }
    for (const el of within('[itemprop]')) add(el.getAttribute('itemprop'), el.getAttribute('content') || el.getAttribute('datetime') || (el.value !== undefined && el.tagName !== 'LI' ? el.value : null) || txt(el), el);
    for (const el of within('[data-field]')) add(el.getAttribute('data-field'), txt(el), el);
    for (const el of within('input,select,textarea')) {
      const lab = (el.labels && el.labels[0]) ? txt(el.labels[0]) : (el.getAttribute('aria-label') || el.name || el.id);
      const v = el.type === 'checkbox' || el.type === 'radio' ? (el.checked ? 'true' : 'false') : el.type === 'password' ? '' : el.value;
      add(lab, v, el);
      if (el.name) add(el.name, v, el);
    }
    for (const el of within('[aria-label]')) if (!/^(INPUT|SELECT|TEXTAREA|BUTTON|A)$/.test(el.tagName)) add(el.getAttribute('aria-label'), txt(el), el);
    for (const el of root.querySelectorAll('p,li,span,div,td,label,strong,b')) {
      if (el.children.length > 3) continue;
      const t = txt(el);
      const m = t.length < 200 && t.match(/^([^:]{1,60}):\s*(.+)$/);
      if (m) add(m[1], m[2], el);
    }
    const h = within('h1')[0];
    if (h) { add('title', txt(h), h); add('heading', txt(h), h); add('name', txt(h), h); }
    const props = schema && schema.properties && typeof schema.properties === 'object' ? schema.properties : (schema || {});
    const out = {}, missing = [], sources = {};
    for (const [name, spec0] of Object.entries(props)) {
      const spec = typeof spec0 === 'string' ? {type: spec0} : (spec0 || {});
      const keys = [norm(name)];
      if (spec.label) keys.push(norm(spec.label));
      if (spec.description) keys.push(norm(spec.description));
      let hit = pairs.find(p => keys.includes(norm(p[0])));
      if (!hit) hit = pairs.find(p => keys.some(k => k.length >= 3 && (norm(p[0]).includes(k) || (norm(p[0]).length >= 3 && k.includes(norm(p[0]))))));
      if (!hit) { out[name] = null; missing.push(name); continue; }
      let v = hit[1];
      const type = spec.type || 'string';
      if (type === 'number' || type === 'integer') {
        const m = v.replace(/(\d),(?=\d{3}\b)/g, '$1').match(/-?\d+(\.\d+)?/);
        v = m ? (type === 'integer' ? parseInt(m[0], 10) : parseFloat(m[0])) : null;
        if (v === null) missing.push(name);
      } else if (type === 'boolean') {
        v = /^(true|yes|on|checked|1|in stock|available)$/i.test(v.trim());
      } else if (type === 'array') {
        v = v.split(/\s*[,;]\s*/).filter(Boolean);
      } else v = clip(v);
      out[name] = v;
      sources[name] = hit[0];
    }
    return {kind: 'fields', fields: out, missing, labels: sources};
  };
  if (kind === 'table') return table();
  if (kind === 'list') return list();
  if (kind === 'fields') return fields();
  const t = table();
  if (!t.error) return t;
  return list();
})JS";

// WebSocket connections are not seen by request interception. The WebSocket gate (a SOCKS5 proxy
// for agentkit's browser context, socket_gate.hpp) enforces the policy on them in the network
// stack when it is in use; this guard in every page and iframe refuses them first, with a clear
// error in the page, by the same origin rules (patterns parsed in C++), and reports through a
// binding. Alone it is partial: workers and the native constructor escape it.
inline constexpr const char* kSocketGuardScript = R"JS((() => {
  const rules = __AGENTKIT_RULES__;
  const Native = window.WebSocket;
  if (!Native || Native.__agentkitGuarded) return;
  const report = window.__agentkitBlocked;
  const dport = (s) => (s === 'https:' || s === 'wss:') ? 443 : 80;
  const matches = (p, u) => {
    const sch = u.protocol.slice(0, -1);
    if (p.scheme) {
      const same = p.scheme === sch || (p.scheme === 'http' && sch === 'ws') || (p.scheme === 'https' && sch === 'wss') ||
                   (p.scheme === 'ws' && sch === 'http') || (p.scheme === 'wss' && sch === 'https');
      if (!same) return false;
    }
    const port = u.port ? Number(u.port) : dport(u.protocol);
    if (p.port >= 0 && p.port !== port) return false;
    const h = u.hostname.toLowerCase().replace(/\.$/, '');
    if (p.host === '*') return true;
    if (p.host.startsWith('*.')) { const d = p.host.slice(2); return h === d || h.endsWith('.' + d); }
    return h === p.host;
  };
  const verdict = (url) => {
    let u;
    try { u = new URL(url, location.href); } catch (e) { return null; }
    for (const p of rules.blocked) if (matches(p, u)) return 'blocked_origins: ' + p.text;
    if (rules.allowed.length && !rules.allowed.some(p => matches(p, u))) return 'allowed_origins: not in the allowed list';
    return null;
  };
  const Guarded = function(url, protocols) {
    const why = verdict(String(url));
    if (why) {
      try { if (report) report(JSON.stringify({url: String(new URL(String(url), location.href)), rule: why, type: 'WebSocket'})); } catch (e) {}
      throw new DOMException('WebSocket to ' + url + ' blocked by the browser policy (' + why + ')', 'SecurityError');
    }
    return protocols === undefined ? new Native(url) : new Native(url, protocols);
  };
  Guarded.prototype = Native.prototype;
  for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Guarded[k] = Native[k];
  Guarded.__agentkitGuarded = true;
  Object.defineProperty(window, 'WebSocket', {value: Guarded, writable: false, configurable: false});
})())JS";

inline std::string args_text(const json& args) {
    std::string s;
    if (!args.is_array()) return s;
    for (const auto& a : args) {
        if (!s.empty()) s += ' ';
        if (a.contains("value")) {
            const json& v = a["value"];
            s += v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, json::error_handler_t::replace);
        } else if (a.contains("description")) {
            s += jstr(a, "description");
        } else if (a.contains("unserializableValue")) {
            s += jstr(a, "unserializableValue");
        } else {
            s += jstr(a, "type");
        }
    }
    return s;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// The browser
// ---------------------------------------------------------------------------------------------

class browser {
public:
    explicit browser(browser_options options = {}) : opt_(std::move(options)) {
        if (opt_.policy.content_boundaries) {
            // 6 lower-case letters (24^6, ~27 bits; no l or o): as unguessable for a page that never
            // sees it as 8 hex digits, and ~4 tokens fewer per result.
            std::random_device rd;
            static constexpr std::string_view letters = "abcdefghijkmnpqrstuvwxyz";
            for (int i = 0; i < 6; ++i) nonce_ += letters[rd() % letters.size()];
        }
    }
    browser(const browser&) = delete;
    browser& operator=(const browser&) = delete;
    ~browser() {
        close();
        if (!download_staging_.empty()) {
            std::error_code ec;
            std::filesystem::remove_all(download_staging_, ec);  // unfinished downloads
        }
    }

    /// Start now (otherwise the first call starts the browser).
    result<void> start() {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        return {};
    }

    /// Close the browser context and the browser (when launched by us).
    void close() {
        std::lock_guard op(op_mu_);
        shutdown();
    }

    /// True while a browser is connected.
    [[nodiscard]] bool running() const {
        std::lock_guard op(op_mu_);
        return eng_ && eng_->conn.is_open();
    }

    /// The pid of the launched browser (-1 when not launched by us or not started).
    [[nodiscard]] int browser_pid() {
        std::lock_guard op(op_mu_);
        if (!eng_) return -1;
        if (auto* p = eng_->conn.transport_as<cdp::pipe_transport>()) return p->pid();
        if (auto* w = eng_->conn.transport_as<cdp::websocket_transport>()) return w->pid();
        return -1;
    }

    [[nodiscard]] ref_registry& refs() noexcept { return refs_; }
    /// The policy in force (set through browser_options::policy).
    [[nodiscard]] const browser_policy& policy() const noexcept { return opt_.policy; }
    /// The nonce of the untrusted-content marks ("" when content boundaries are off).
    [[nodiscard]] const std::string& boundary() const noexcept { return nonce_; }
    /// Replace secret values in any text leaving the browser.
    [[nodiscard]] std::string redact(std::string s) const { return opt_.policy.redact(std::move(s)); }

    /// Every request the policy refused in this browser session (most recent last, bounded).
    [[nodiscard]] std::vector<blocked_request> blocked_requests() {
        std::lock_guard op(op_mu_);
        std::vector<blocked_request> out;
        if (!eng_) return out;
        std::lock_guard lock(eng_->mu);
        for (const auto& [seq, b] : eng_->blocked) out.push_back(b);
        return out;
    }

    /// The WebSocket gate's counts while this session routes WebSockets through it (see
    /// browser_options::websockets); nothing when it does not (no origin lists, script_only,
    /// not started).
    [[nodiscard]] std::optional<socket_gate_stats> websocket_gate_stats() {
        std::lock_guard op(op_mu_);
        if (!eng_ || !eng_->gate) return std::nullopt;
        return eng_->gate->stats();
    }

    /// Every download of this browser session.
    [[nodiscard]] std::vector<download_record> downloads() {
        std::lock_guard op(op_mu_);
        std::vector<download_record> out;
        if (!eng_) return out;
        std::lock_guard lock(eng_->mu);
        for (const auto& [seq, d] : eng_->downloads) out.push_back(d);
        return out;
    }
    /// Wait until at least `count` downloads of this session have ended (completed, canceled,
    /// refused or failed; the newest 100 are kept), or `timeout` passed, or the browser is gone;
    /// then downloads(). Other calls on this browser wait meanwhile (it holds the operation lock).
    [[nodiscard]] std::vector<download_record> wait_downloads(std::size_t count, std::chrono::milliseconds timeout) {
        {
            std::lock_guard op(op_mu_);
            if (!eng_) return {};
            std::unique_lock lock(eng_->mu);
            eng_->cv.wait_for(lock, timeout, [&] { return eng_->downloads.size() >= count || !eng_->conn.is_open(); });
        }
        return downloads();
    }
    [[nodiscard]] const browser_options& options() const noexcept { return opt_; }

    /// Running totals for per-call metrics (take the difference around a call). Under concurrent
    /// calls on one browser the differences overlap.
    struct counters {
        std::uint64_t cdp_commands = 0;  ///< CDP commands sent (round trips), every connection so far
        std::int64_t wait_ms = 0;        ///< time spent waiting for settle, loads and wait_for
    };
    [[nodiscard]] counters totals() const {
        return counters{sent_->load(std::memory_order_relaxed), wait_us_.load(std::memory_order_relaxed) / 1000};
    }

    void set_dialog_policy(dialog_policy p) {
        std::lock_guard op(op_mu_);
        std::lock_guard lock(policy_mu_);
        opt_.dialogs = std::move(p);
    }

    /// Raw CDP access to the current tab's page session (for extensions and tests).
    result<json> cdp_call(std::string_view method, json params = json::object()) {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        auto t = current_tab();
        if (!t) return fail(t.error());
        return call((*t)->session, method, std::move(params));
    }
    /// CDP on the browser session.
    result<json> cdp_browser_call(std::string_view method, json params = json::object()) {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        return call("", method, std::move(params));
    }

    // ---- tabs -------------------------------------------------------------------------------

    result<std::vector<tab_info>> tabs() {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        return list_tabs();
    }

    result<action_result> new_tab(std::string url = {}) {
        std::lock_guard op(op_mu_);
        // a refused URL opens no tab (and leaves the current one selected)
        if (!url.empty())
            if (auto v = opt_.policy.check_navigation(url, opt_.allow_evaluate))
                return fail(opt_.policy.redact(policy_error(*v, "navigation")));
        auto e = ensure();
        if (!e) return fail(e.error());
        auto t = create_tab();
        if (!t) return fail(t.error());
        {
            std::lock_guard lock(eng_->mu);
            eng_->current = (*t)->id;
        }
        to_front(*t);
        if (url.empty()) {
            action_result r;
            r.action = "new tab";
            r.url = "about:blank";
            r.changes = "opened " + (*t)->id + " (about:blank)";
            take_notes(r);
            return r;
        }
        return finish_action(navigate_locked(url));
    }

    result<action_result> select_tab(std::string_view id) {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        auto t = find_tab(id);
        if (!t) return fail(t.error());
        {
            std::lock_guard lock(eng_->mu);
            eng_->current = (*t)->id;
        }
        to_front(*t);
        action_result r;
        r.action = "select tab " + (*t)->id;
        auto s = take_snapshot(*t, snapshot_options{opt_.snapshot_budget, "", false, false, 160, 12});
        if (!s) return fail(s.error());
        r.url = s->url;
        r.title = s->title;
        r.snapshot = s->snap.text;
        take_notes(r);
        return finish_action(std::move(r));
    }

    result<action_result> close_tab(std::string_view id = {}) {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        std::shared_ptr<detail::tab_state> t;
        if (id.empty()) {
            auto c = current_tab();
            if (!c) return fail(c.error());
            t = *c;
        } else {
            auto f = find_tab(id);
            if (!f) return fail(f.error());
            t = *f;
        }
        auto r0 = call("", "Target.closeTarget", json{{"targetId", t->target_id}});
        if (!r0) return fail(r0.error());
        wait_until([&] { return t->closed; }, 5000ms);
        forget_tab(t);
        action_result r;
        r.action = "close tab " + t->id;
        std::string cur;
        {
            std::lock_guard lock(eng_->mu);
            cur = eng_->current;
        }
        r.changes = "closed " + t->id + (cur.empty() ? std::string("; no tab is open") : "; current tab: " + cur);
        take_notes(r);
        return finish_action(std::move(r));
    }

    // ---- navigation ---------------------------------------------------------------------------

    result<action_result> navigate(std::string url) {
        std::lock_guard op(op_mu_);
        if (auto v = opt_.policy.check_navigation(url, opt_.allow_evaluate))
            return fail(opt_.policy.redact(policy_error(*v, "navigation")));
        auto e = ensure();
        if (!e) return fail(e.error());
        return finish_action(navigate_locked(url));
    }

    result<action_result> back() { return history(-1); }
    result<action_result> forward() { return history(+1); }

    result<action_result> reload() {
        return act("reload", [&](const tab_ptr& t) -> result<void> {
            auto r = call(t->session, "Page.reload", json{{"ignoreCache", false}});
            if (!r) return fail(r.error());
            return {};
        }, /*expect_navigation=*/true);
    }

    // ---- snapshots ----------------------------------------------------------------------------

    result<page_snapshot> snapshot(std::optional<snapshot_options> o = std::nullopt) {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        auto t = current_tab();
        if (!t) return fail(t.error());
        snapshot_options so = o.value_or(snapshot_options{});
        if (!o) so.token_budget = opt_.snapshot_budget;
        auto s = take_snapshot(*t, so);
        if (!s) return fail(s.error());
        s->notes = take_restart_notes();
        set_reported_url(*t, s->url);
        return finish_snapshot(std::move(s));
    }

    /// The main content of an article-like page as readable text (links/controls with refs).
    result<page_snapshot> readable(readable_options o = {}) {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        auto t = current_tab();
        if (!t) return fail(t.error());
        auto cap = capture(*t, false);
        if (!cap && cap.error().is(errc::timeout) && stop_scripts(*t, {}, opt_.navigation_timeout)) cap = capture(*t, false);
        if (!cap) return fail(cap.error());
        page_snapshot ps;
        ps.tab = (*t)->id;
        ps.snap = render_readable(cap->frames, cap->dom, refs_, o, opt_.tokens);
        ps.article_like = classify_page(cap->frames).article_like();
        fill_url_title(*t, ps.url, ps.title);
        ps.notes = take_restart_notes();
        set_reported_url(*t, ps.url);
        return finish_snapshot(std::move(ps));
    }

    // ---- actions --------------------------------------------------------------------------------

    result<action_result> click(std::string_view ref, click_options o = {}) {
        return act("click " + std::string(ref), [&](const tab_ptr&) -> result<void> { return click_ref(ref, o); });
    }

    result<action_result> double_click(std::string_view ref) {
        click_options o;
        o.click_count = 2;
        return act("double click " + std::string(ref), [&](const tab_ptr&) -> result<void> { return click_ref(ref, o); });
    }

    result<action_result> hover(std::string_view ref) {
        return act("hover " + std::string(ref), [&](const tab_ptr&) -> result<void> {
            auto h = resolve(ref);
            if (!h) return fail(h.error());
            auto p = visible_point(*h, true);
            if (!p) return fail(p.error());
            return mouse(h->tab, "mouseMoved", p->first, p->second, "none", 0, 0);
        });
    }

    result<action_result> drag(std::string_view from_ref, std::string_view to_ref) {
        return act("drag " + std::string(from_ref) + " to " + std::string(to_ref), [&](const tab_ptr&) -> result<void> {
            auto a = resolve(from_ref);
            if (!a) return fail(a.error());
            auto pa = visible_point(*a, true);
            if (!pa) return fail(pa.error());
            auto b = resolve(to_ref);
            if (!b) return fail(b.error());
            const auto& t = a->tab;
            // HTML5 drag and drop is intercepted and replayed as drag events; plain mouse drags work as is.
            json intercepted;
            std::mutex imu;
            auto sub = eng_->conn.on("Input.dragIntercepted", [&](const cdp::event& ev) {
                std::lock_guard l(imu);
                intercepted = detail::jobj(ev.params, "data");
            }, t->session);
            (void)call(t->session, "Input.setInterceptDrags", json{{"enabled", true}});
            if (auto r = mouse(t, "mouseMoved", pa->first, pa->second, "none", 0, 0); !r) return r;
            if (auto r = mouse(t, "mousePressed", pa->first, pa->second, "left", 1, 1); !r) return r;
            auto pb = visible_point(*b, false);
            if (!pb) {
                (void)mouse(t, "mouseReleased", pa->first, pa->second, "left", 1, 0);
                (void)call(t->session, "Input.setInterceptDrags", json{{"enabled", false}});
                return fail(pb.error());
            }
            for (int i = 1; i <= 5; ++i) {
                const double x = pa->first + (pb->first - pa->first) * i / 5.0;
                const double y = pa->second + (pb->second - pa->second) * i / 5.0;
                if (auto r = mouse(t, "mouseMoved", x, y, "left", 0, 1); !r) return r;
            }
            json data;
            {
                std::lock_guard l(imu);
                data = intercepted;
            }
            if (!data.is_null() && !data.empty()) {
                for (const char* type : {"dragEnter", "dragOver", "drop"}) {
                    auto r = call(t->session, "Input.dispatchDragEvent",
                                  json{{"type", type}, {"x", pb->first}, {"y", pb->second}, {"data", data}});
                    if (!r) break;
                }
            }
            auto r = mouse(t, "mouseReleased", pb->first, pb->second, "left", 1, 0);
            (void)call(t->session, "Input.setInterceptDrags", json{{"enabled", false}});
            return r;
        });
    }

    result<action_result> type(std::string_view ref, std::string_view typed, type_options o = {}) {
        auto sub = opt_.policy.substitute(typed);
        if (!sub) return fail(sub.error());
        const std::string& text = *sub;
        return act("type into " + std::string(ref), [&](const tab_ptr&) -> result<void> { return type_ref(ref, text, o); });
    }

    /// Fill several fields, then optionally click `submit_ref`, as ONE action: one settle and one
    /// change report at the end instead of one per field. Stops at the first field that fails; the
    /// error names the fields already filled.
    result<action_result> fill(const std::vector<fill_field>& fields, std::string_view submit_ref = {}) {
        std::vector<std::string> texts;
        texts.reserve(fields.size());
        for (const auto& f : fields) {
            if (f.kind == "checkbox" || f.kind == "radio" || f.kind == "combobox") {
                texts.push_back(f.value);
                continue;
            }
            auto sub = opt_.policy.substitute(f.value);
            if (!sub) return fail(sub.error());
            texts.push_back(std::move(*sub));
        }
        std::string what = "fill " + std::to_string(fields.size()) + " fields";
        if (!submit_ref.empty()) what += " and click " + std::string(submit_ref);
        return act(std::move(what), [&](const tab_ptr& t) -> result<void> {
            std::string done;
            for (std::size_t i = 0; i < fields.size(); ++i) {
                const auto& f = fields[i];
                auto one = [&]() -> result<void> {
                    if (f.kind == "checkbox" || f.kind == "radio") {
                        const std::string& v = f.value;
                        const bool on = v == "true" || v == "on" || v == "yes" || v == "1" || v == "checked";
                        if (!on && v != "false" && v != "off" && v != "no" && v != "0" && v != "unchecked")
                            return fail(errc::args_invalid, "value \"" + v + "\" is not a checked state", "Use \"true\" or \"false\".");
                        return check_ref(f.ref, on);
                    }
                    if (f.kind == "combobox") return select_ref(f.ref, {f.value});
                    return type_ref(f.ref, texts[i], {});
                };
                auto r = one();
                // a field the page enables in reaction to the previous one: let the DOM settle once, retry
                if (!r && i > 0 && r.error().details.is_object() && r.error().details.value("disabled", false)) {
                    (void)dom_quiet(t);
                    r = one();
                }
                if (!r) {
                    error e = r.error();
                    e.message = (f.name.empty() ? f.ref : f.name) + ": " + e.message;
                    if (!done.empty()) e.message = "filled " + done + "; then " + e.message;
                    return fail(std::move(e));
                }
                done += (done.empty() ? "" : ", ") + (f.name.empty() ? f.ref : f.name);
            }
            if (submit_ref.empty()) return {};
            if (auto c = click_ref(submit_ref, {}); !c) {
                error e = c.error();
                e.message = "filled " + done + "; then the submit click: " + e.message;
                return fail(std::move(e));
            }
            return {};
        });
    }

    /// Press a key chord ("Enter", "Control+a"), optionally focusing `ref` first.
    result<action_result> press(std::string_view chord, std::string_view ref = {}) {
        return act("press " + std::string(chord), [&](const tab_ptr& t) -> result<void> {
            auto parsed = parse_key_chord(chord);
            if (!parsed) return fail(parsed.error());
            tab_ptr target = t;
            if (!ref.empty()) {
                auto h = resolve(ref);
                if (!h) return fail(h.error());
                (void)call(h->session, "DOM.focus", json{{"backendNodeId", h->backend}});
                target = h->tab;
            }
            return press_keys(target, chord);
        });
    }

    /// Select options of a <select> by value or label (several for a multiple select).
    result<action_result> select(std::string_view ref, std::vector<std::string> values) {
        return act("select in " + std::string(ref), [&](const tab_ptr&) -> result<void> { return select_ref(ref, values); });
    }

    /// Check (true) or uncheck (false) a checkbox, radio or aria-checked element.
    result<action_result> set_checked(std::string_view ref, bool checked) {
        return act(std::string(checked ? "check " : "uncheck ") + std::string(ref),
                   [&](const tab_ptr&) -> result<void> { return check_ref(ref, checked); });
    }

    /// Set the files of an <input type=file>.
    result<action_result> upload(std::string_view ref, std::vector<std::string> files) {
        return act("upload to " + std::string(ref), [&](const tab_ptr&) -> result<void> {
            auto h = resolve(ref);
            if (!h) return fail(h.error());
            auto info = element_info(*h);
            if (!info) return fail(info.error());
            if (detail::jstr(*info, "tag") != "input" || detail::jstr(*info, "type") != "file")
                return fail(errc::args_invalid, "ref " + std::string(ref) + " is not a file input",
                            "Use the ref of an <input type=file> (a button that opens a chooser usually wraps one).");
            if (files.size() > 1 && !detail::jbool(*info, "multiple"))
                return fail(errc::args_invalid, "this file input takes one file", "Pass a single path.");
            const browser_policy& pol = opt_.policy;
            if (!pol.allow_file_access && pol.uploads_dir.empty())
                return fail(errc::policy_blocked, "uploads are off (policy rule uploads_dir: no uploads directory is configured)",
                            "The host must configure an uploads directory (policy uploadsDir, --uploads-dir) and put "
                            "the files there, or enable file access.",
                            json{{"rule", "uploads_dir"}});
            std::error_code dir_ec;
            const auto dir = pol.allow_file_access ? std::filesystem::path() : std::filesystem::canonical(pol.uploads_dir, dir_ec);
            json paths = json::array();
            for (const auto& f : files) {
                std::error_code ec;
                // the real file: symlinks and ".." resolved, so the directory rule cannot be escaped
                auto real = std::filesystem::canonical(f, ec);
                if (ec || !std::filesystem::is_regular_file(real, ec))
                    return fail(errc::not_found, "no such file: " + f, "Pass paths of existing files.", json{{"path", f}});
                if (!pol.allow_file_access) {
                    auto [d, r] = std::mismatch(dir.begin(), dir.end(), real.begin(), real.end());
                    if (dir_ec || d != dir.end())
                        return fail(errc::policy_blocked,
                                    "upload of " + f + " refused (policy rule uploads_dir: only files inside the uploads directory)",
                                    "Use a file inside " + pol.uploads_dir + ".", json{{"rule", "uploads_dir"}, {"path", f}});
                }
                paths.push_back(real.string());
            }
            auto r = call(h->session, "DOM.setFileInputFiles", json{{"files", paths}, {"backendNodeId", h->backend}});
            if (!r) return fail(r.error());
            return {};
        });
    }

    /// Resize the viewport and optionally emulate a mobile device (touch, mobile layout).
    /// (An empty user_agent keeps the one set before, e.g. by browser_options.)
    result<action_result> resize(viewport_size v) {
        return act("resize", [&](const tab_ptr& t) -> result<void> {
            {
                std::lock_guard pl(policy_mu_);
                if (v.user_agent.empty()) v.user_agent = opt_.viewport.user_agent;
                opt_.viewport = v;
            }
            return apply_viewport(t->session);
        });
    }

    result<screenshot_result> screenshot(screenshot_options o = {}) {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        auto t = current_tab();
        if (!t) return fail(t.error());
        if (o.format != "png" && o.format != "jpeg")
            return fail(errc::args_invalid, "screenshot format must be png or jpeg");
        json p = {{"format", o.format}};
        if (o.format == "jpeg") p["quality"] = std::clamp(o.quality, 1, 100);
        screenshot_result out;
        out.mime_type = "image/" + o.format;
        auto m = call((*t)->session, "Page.getLayoutMetrics");
        if (!m) return fail(m.error());
        const json& vv = detail::jobj(*m, "cssVisualViewport");
        out.width = detail::jnum(vv, "clientWidth");
        out.height = detail::jnum(vv, "clientHeight");
        if (!o.ref.empty()) {
            auto h = resolve(o.ref);
            if (!h) return fail(h.error());
            (void)call(h->session, "DOM.scrollIntoViewIfNeeded", json{{"backendNodeId", h->backend}});
            auto box = call(h->session, "DOM.getBoxModel", json{{"backendNodeId", h->backend}});
            if (!box) return fail(errc::element_not_visible, "ref " + o.ref + " has no box to capture", "It may be hidden.");
            const json& q = detail::jobj(*box, "model");
            auto border = q.find("border");
            if (border == q.end() || !border->is_array() || border->size() < 8)
                return fail(errc::element_not_visible, "ref " + o.ref + " has no box to capture");
            double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
            for (std::size_t i = 0; i + 1 < border->size(); i += 2) {
                const double x = (*border)[i].get<double>(), y = (*border)[i + 1].get<double>();
                x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
            }
            auto off = frame_offset(h->tab, h->session);
            if (!off) return fail(off.error());
            auto m2 = call((*t)->session, "Page.getLayoutMetrics");
            if (!m2) return fail(m2.error());
            const json& v2 = detail::jobj(*m2, "cssVisualViewport");
            p["clip"] = {{"x", x0 + off->first + detail::jnum(v2, "pageX")}, {"y", y0 + off->second + detail::jnum(v2, "pageY")},
                         {"width", std::max(1.0, x1 - x0)}, {"height", std::max(1.0, y1 - y0)}, {"scale", 1}};
            out.width = x1 - x0;
            out.height = y1 - y0;
        } else if (o.full_page) {
            const json& cs = detail::jobj(*m, "cssContentSize");
            out.width = detail::jnum(cs, "width");
            out.height = detail::jnum(cs, "height");
            p["clip"] = {{"x", 0}, {"y", 0}, {"width", out.width}, {"height", out.height}, {"scale", 1}};
            p["captureBeyondViewport"] = true;
        }
        auto r = call((*t)->session, "Page.captureScreenshot", std::move(p), opt_.navigation_timeout);
        if (!r) return fail(r.error());
        out.base64 = detail::jstr(*r, "data");
        if (out.base64.empty()) return fail(errc::protocol_error, "Page.captureScreenshot returned no data");
        return out;
    }

    /// Evaluate JavaScript in the main frame (or, with a ref, a function `(el) => ...` on that
    /// element). Off unless browser_options::allow_evaluate.
    result<json> evaluate(std::string_view expression, std::string_view ref = {}) {
        std::lock_guard op(op_mu_);
        if (!opt_.allow_evaluate && !opt_.policy.allow_evaluate)
            return fail(errc::policy_blocked, "JavaScript evaluation is disabled (policy rule allow_evaluate)",
                        "The host must enable browser_options::allow_evaluate (or policy allowEvaluate) to allow it.",
                        json{{"rule", "allow_evaluate"}});
        auto e = ensure();
        if (!e) return fail(e.error());
        auto t = current_tab();
        if (!t) return fail(t.error());
        result<json> r = json();
        if (!ref.empty()) {
            auto h = resolve(ref);
            if (!h) return fail(h.error());
            r = call(h->session, "Runtime.callFunctionOn",
                     json{{"functionDeclaration", "function(){ return (" + std::string(expression) + ")(this); }"},
                          {"objectId", h->object_id}, {"returnByValue", true}, {"awaitPromise", true}, {"userGesture", true}});
        } else {
            // REPL mode (statements, top-level await, let redeclared) awaits the script, but an
            // expression whose value is a promise completes with the promise itself: the value
            // comes back by reference and a promise is awaited in a second step.
            r = call((*t)->session, "Runtime.evaluate",
                     json{{"expression", std::string(expression)}, {"returnByValue", false}, {"awaitPromise", true},
                          {"userGesture", true}, {"replMode", true}});
            if (r && !r->contains("exceptionDetails")) {
                const json& res = detail::jobj(*r, "result");
                const std::string object_id = detail::jstr(res, "objectId");
                if (!object_id.empty()) {
                    if (detail::jstr(res, "subtype") == "promise")
                        r = call((*t)->session, "Runtime.awaitPromise",
                                 json{{"promiseObjectId", object_id}, {"returnByValue", true}});
                    else
                        r = call((*t)->session, "Runtime.callFunctionOn",
                                 json{{"functionDeclaration", "function(){ return this; }"}, {"objectId", object_id},
                                      {"returnByValue", true}});
                    eng_->conn.call_async("Runtime.releaseObject", json{{"objectId", object_id}}, (*t)->session,
                                          [](result<json>) {});
                }
            }
        }
        if (!r && r.error().is(errc::timeout) && stop_scripts(*t, {}, opt_.call_timeout))
            return fail(errc::timeout, "the script did not finish within " + std::to_string(opt_.call_timeout.count()) + " ms; it was stopped",
                        "Avoid long-running scripts; the page is usable again.");
        if (!r) return fail(opt_.policy.redact(r.error()));
        if (r->contains("exceptionDetails")) {
            const json& ex = detail::jobj(*r, "exceptionDetails");
            std::string what = detail::jstr(detail::jobj(ex, "exception"), "description");
            if (what.empty()) what = detail::jstr(ex, "text");
            return fail(opt_.policy.redact(error(errc::tool_failed, "the script threw: " + what, "Fix the expression.", ex)));
        }
        const json& res = detail::jobj(*r, "result");
        if (res.contains("value")) return opt_.policy.redact(res["value"]);
        if (res.contains("unserializableValue")) return res["unserializableValue"];
        if (detail::jstr(res, "type") == "undefined") return json();
        return json(opt_.policy.redact(detail::jstr(res, "description")));
    }

    /// Console messages of the current tab (oldest first); `clear` empties the buffer. The buffer
    /// keeps the newest browser_options::console_capacity; `dropped` (if given) receives how many
    /// older ones were dropped since the tab opened or was last cleared.
    result<std::vector<console_message>> console_messages(bool clear = false, std::size_t* dropped = nullptr) {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        auto t = current_tab();
        if (!t) return fail(t.error());
        std::lock_guard lock(eng_->mu);
        std::vector<console_message> out((*t)->console.begin(), (*t)->console.end());
        if (dropped) *dropped = (*t)->console_dropped;
        if (clear) {
            (*t)->console.clear();
            (*t)->console_dropped = 0;
        }
        for (auto& m : out) {
            m.text = opt_.policy.redact(std::move(m.text));
            m.url = opt_.policy.redact(std::move(m.url));
        }
        return out;
    }

    /// Network requests of the current tab (oldest first); `clear` empties the buffer. The buffer
    /// keeps the newest browser_options::network_capacity; `dropped` as for console_messages.
    result<std::vector<network_entry>> network_requests(bool clear = false, std::size_t* dropped = nullptr) {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        auto t = current_tab();
        if (!t) return fail(t.error());
        std::lock_guard lock(eng_->mu);
        std::vector<network_entry> out;
        for (const auto& [k, v] : (*t)->network) out.push_back(v);
        if (dropped) *dropped = (*t)->network_dropped;
        if (clear) {
            (*t)->network.clear();
            (*t)->network_dropped = 0;
        }
        for (auto& n : out) n.url = opt_.policy.redact(std::move(n.url));
        return out;
    }

    // ---- recordings (screencast) ------------------------------------------------------------------

    /// Start recording the current tab's screen (Page.startScreencast); frames until stop_recording.
    result<void> start_recording(recording_options o = {}) {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        auto t = current_tab();
        if (!t) return fail(t.error());
        {
            std::lock_guard lock(eng_->mu);
            if (eng_->recording) return fail(errc::args_invalid, "a recording is already running", "Stop it first.");
            eng_->recording = true;
            eng_->recording_session = (*t)->session;
            eng_->frames.clear();
            eng_->frames_dropped = 0;
        }
        recording_started_ = clock::now();
        auto r = call((*t)->session, "Page.startScreencast",
                      json{{"format", "jpeg"}, {"quality", std::clamp(o.quality, 1, 100)}, {"maxWidth", std::max(16, o.max_width)},
                           {"maxHeight", std::max(16, o.max_height)}, {"everyNthFrame", 1}});
        if (!r) {
            std::lock_guard lock(eng_->mu);
            eng_->recording = false;
            return fail(r.error());
        }
        return {};
    }

    /// Stop the recording and hand back its frames (at least one: the screen at stop time).
    result<recording> stop_recording() {
        std::lock_guard op(op_mu_);
        if (!eng_) return fail(errc::not_found, "no recording is running", "Start one with start_recording.");
        std::string session;
        {
            std::lock_guard lock(eng_->mu);
            if (!eng_->recording) return fail(errc::not_found, "no recording is running", "Start one with start_recording.");
            session = eng_->recording_session;
        }
        (void)call(session, "Page.stopScreencast");
        recording out;
        {
            std::lock_guard lock(eng_->mu);
            eng_->recording = false;
            for (auto& [ts, data] : eng_->frames) out.frames.push_back(recording_frame{ts, std::move(data)});
            eng_->frames.clear();
            out.dropped = std::exchange(eng_->frames_dropped, 0);
        }
        out.seconds = std::chrono::duration<double>(clock::now() - recording_started_).count();
        if (out.frames.empty()) {  // nothing changed on screen: one frame of the final state
            auto shot = call(session, "Page.captureScreenshot", json{{"format", "jpeg"}, {"quality", 60}});
            if (shot && !detail::jstr(*shot, "data").empty()) {
                out.frames.push_back(recording_frame{0, detail::jstr(*shot, "data")});
                out.notes.push_back("the screen did not change during the recording; one frame of its final state");
            }
        }
        return out;
    }

    // ---- extraction and batch reading -----------------------------------------------------------------

    /// Extract structured data from the page (or a ref's subtree): a table as rows, a list, or
    /// the fields of a small schema. Returns JSON ({kind, headers, rows} / {kind, items} /
    /// {kind, fields, missing}); page text in it is redacted.
    result<json> extract(extract_options o = {}) {
        std::lock_guard op(op_mu_);
        if (o.kind != "auto" && o.kind != "table" && o.kind != "list" && o.kind != "fields")
            return fail(errc::args_invalid, "extract kind must be auto, table, list or fields");
        if (o.kind == "fields" && (!o.schema.is_object() || o.schema.empty()))
            return fail(errc::args_invalid, "fields extraction needs a schema", "e.g. {\"price\": \"number\", \"title\": \"string\"}");
        auto e = ensure();
        if (!e) return fail(e.error());
        auto t = current_tab();
        if (!t) return fail(t.error());
        const json args = json::array({json{{"value", o.kind}}, json{{"value", o.schema}},
                                        json{{"value", static_cast<std::int64_t>(std::max<std::size_t>(1, o.max_items))}}});
        result<json> r = json();
        if (!o.ref.empty()) {
            auto h = resolve(o.ref);
            if (!h) return fail(h.error());
            r = call_on(*h, detail::kExtractScript, args, false, opt_.call_timeout);
        } else {
            auto doc = call((*t)->session, "Runtime.evaluate", json{{"expression", "document"}});
            if (!doc) return fail(doc.error());
            node_handle h;
            h.tab = *t;
            h.session = (*t)->session;
            h.object_id = detail::jstr(detail::jobj(*doc, "result"), "objectId");
            r = call_on(h, detail::kExtractScript, args, false, opt_.call_timeout);
        }
        if (!r && r.error().is(errc::timeout) && stop_scripts(*t, {}, opt_.call_timeout))
            return fail(errc::timeout, "the page was busy; its script was stopped", "Try again.");
        if (!r) return fail(opt_.policy.redact(r.error()));
        if (r->contains("error"))
            return fail(errc::not_found, detail::jstr(*r, "error") + (o.ref.empty() ? std::string() : " (in ref " + o.ref + ")"),
                        "Pick the ref of the table or list (take a snapshot), or another kind.");
        return opt_.policy.redact(std::move(*r));
    }

    /// Read several URLs concurrently, each in its own temporary tab, and return each page's
    /// compact text within one shared token budget (short pages leave their share to long ones).
    result<std::vector<batch_page>> batch_read(const std::vector<std::string>& urls, std::size_t budget = 8000) {
        std::lock_guard op(op_mu_);
        if (urls.empty()) return fail(errc::args_invalid, "no URLs to read");
        if (urls.size() > 20) return fail(errc::args_invalid, "at most 20 URLs per batch");
        auto e = ensure();
        if (!e) return fail(e.error());
        std::vector<batch_page> out(urls.size());
        std::vector<tab_ptr> tabs(urls.size());
        std::vector<std::string> loaders(urls.size());
        std::uint64_t mark = 0;
        {
            std::lock_guard lock(eng_->mu);
            mark = eng_->seq;
        }
        // a browser that dies mid-batch: one clear error (every page and temporary tab is gone)
        auto died = [&]() -> std::optional<error> {
            if (eng_->conn.is_open()) return std::nullopt;
            return crashed_error(eng_->conn.failure().value_or(error(errc::browser_crashed, "the connection ended")));
        };
        std::vector<std::future<result<json>>> navs(urls.size());
        for (std::size_t i = 0; i < urls.size(); ++i) {
            out[i].url = urls[i];
            if (auto v = opt_.policy.check_navigation(urls[i], opt_.allow_evaluate)) {
                out[i].error_ = policy_error(*v, "navigation");
                continue;
            }
            auto t = create_tab();
            if (!t) {
                if (t.error().is(errc::browser_crashed)) return fail(t.error());
                out[i].error_ = t.error();
                continue;
            }
            tabs[i] = *t;
            navs[i] = eng_->conn.call_async("Page.navigate", json{{"url", urls[i]}}, (*t)->session, opt_.navigation_timeout);
        }
        for (std::size_t i = 0; i < urls.size(); ++i) {
            if (!tabs[i]) continue;
            auto n = navs[i].get();
            if (!n) {
                out[i].error_ = n.error();
                continue;
            }
            const std::string err = detail::jstr(*n, "errorText");
            if (!err.empty()) {
                out[i].error_ = error(errc::navigation_failed, "navigation to " + urls[i] + " failed: " + err);
                continue;
            }
            loaders[i] = detail::jstr(*n, "loaderId");
        }
        if (auto d = died()) return fail(opt_.policy.redact(*d));
        const auto deadline = clock::now() + opt_.navigation_timeout;
        for (std::size_t i = 0; i < urls.size(); ++i) {
            if (!tabs[i] || loaders[i].empty()) continue;
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
            const auto& t = tabs[i];
            const auto& ld = loaders[i];
            if (!wait_until([&] { return t->lifecycle[ld].count("load") != 0 || t->closed || t->crashed; },
                            std::max(left, std::chrono::milliseconds(1))))
                out[i].error_ = error(errc::timeout, urls[i] + " did not finish loading within " +
                                                         std::to_string(opt_.navigation_timeout.count()) + " ms");
        }
        // capture every page, concurrently (each is its own tab: its own sessions and state; the
        // connection, the ref registry and the engine state are thread-safe), then share the
        // budget: pages that need less than an equal share give the rest away
        std::vector<std::future<result<capture_result>>> captures(urls.size());
        for (std::size_t i = 0; i < urls.size(); ++i) {
            if (!tabs[i] || out[i].error_) continue;
            captures[i] = std::async(std::launch::async, [this, t = tabs[i]] { return capture(t, false); });
        }
        std::vector<std::optional<capture_result>> caps(urls.size());
        std::vector<std::size_t> need(urls.size(), 0);
        for (std::size_t i = 0; i < urls.size(); ++i) {
            if (!captures[i].valid()) continue;
            auto cap = captures[i].get();
            if (!cap) {
                out[i].error_ = cap.error();
                continue;
            }
            snapshot_options so;
            so.token_budget = 0;
            auto full = render_snapshot(cap->frames, cap->dom, refs_, so, opt_.tokens);
            need[i] = std::max<std::size_t>(1, full.total_tokens);
            caps[i] = std::move(*cap);
            fill_url_title(tabs[i], out[i].final_url, out[i].title);
            std::lock_guard lock(eng_->mu);
            if (auto s = tabs[i]->doc_status.find(loaders[i]); s != tabs[i]->doc_status.end()) out[i].http_status = s->second;
        }
        if (auto d = died()) return fail(opt_.policy.redact(*d));
        std::vector<std::size_t> share(urls.size(), 0);
        {
            std::size_t left = budget, open = 0;
            for (std::size_t i = 0; i < urls.size(); ++i) open += caps[i] ? 1U : 0U;
            std::vector<bool> done(urls.size(), false);
            bool changed = true;
            while (open > 0 && changed) {
                changed = false;
                const std::size_t fair = left / open;
                for (std::size_t i = 0; i < urls.size(); ++i)
                    if (caps[i] && !done[i] && need[i] <= fair) {
                        share[i] = need[i];
                        left -= need[i];
                        done[i] = true;
                        --open;
                        changed = true;
                    }
            }
            for (std::size_t i = 0; i < urls.size(); ++i)
                if (caps[i] && !done[i]) share[i] = std::max<std::size_t>(100, open ? left / open : 100);
        }
        for (std::size_t i = 0; i < urls.size(); ++i) {
            if (!caps[i]) continue;
            snapshot_options so;
            so.token_budget = share[i];
            auto snap = render_snapshot(caps[i]->frames, caps[i]->dom, refs_, so, opt_.tokens);
            out[i].text = opt_.policy.redact(snap.text);
            out[i].full_text = opt_.policy.redact(snap.full_text);
            out[i].tokens = snap.tokens;
            out[i].truncated = snap.truncated();
        }
        {
            std::lock_guard lock(eng_->mu);
            for (std::size_t i = 0; i < urls.size(); ++i) {
                if (!tabs[i]) continue;
                for (const auto& [seq, b] : eng_->blocked)
                    if (seq > mark && b.tab == tabs[i]->id) out[i].blocked.push_back(b);
            }
        }
        for (std::size_t i = 0; i < urls.size(); ++i) {
            if (!tabs[i]) continue;
            (void)call("", "Target.closeTarget", json{{"targetId", tabs[i]->target_id}}, 3000ms);
            forget_tab(tabs[i]);
        }
        for (auto& p : out) {
            p.url = opt_.policy.redact(std::move(p.url));  // as asked: shown in the header, compared with final_url
            p.final_url = opt_.policy.redact(std::move(p.final_url));
            p.title = opt_.policy.redact(std::move(p.title));
            if (p.error_) p.error_ = opt_.policy.redact(*p.error_);
        }
        return out;
    }

    /// Wait for text to appear or disappear, or for an element state; bounded by `o.timeout`.
    result<action_result> wait_for(wait_options o) {
        std::string what = !o.text.empty() ? "wait for \"" + o.text + "\""
                          : !o.text_gone.empty() ? "wait for \"" + o.text_gone + "\" to disappear"
                                                 : "wait for " + o.ref + " " + o.state;
        return act(what, [&](const tab_ptr& t) -> result<void> { return wait_condition(t, o); });
    }

private:
    using tab_ptr = std::shared_ptr<detail::tab_state>;
    using clock = std::chrono::steady_clock;

    struct engine {
        cdp::connection conn;
        std::string context_id;
        bool own_context = false;
        std::mutex mu;  // everything below
        std::condition_variable cv;
        std::uint64_t seq = 0;
        std::map<std::string, tab_ptr> tabs;        // by tab id
        std::map<std::string, tab_ptr> by_session;  // page and OOPIF sessions
        std::map<std::string, tab_ptr> by_target;
        std::set<std::string> adopting;
        // Targets of other browser contexts (other sessions sharing this browser through
        // cdp_endpoint, or the user's own): their requests are theirs to judge and report.
        std::set<std::string> foreign_targets;
        std::string current;
        int next_tab = 1;
        std::deque<std::pair<std::uint64_t, blocked_request>> blocked;   // (seq, record), bounded
        std::deque<std::pair<std::uint64_t, download_record>> downloads;  // (seq, record), bounded
        std::map<std::string, download_record> pending_downloads;         // guid → record
        bool recording = false;
        std::string recording_session;
        std::deque<std::pair<double, std::string>> frames;  // (timestamp, base64 jpeg)
        std::size_t frames_dropped = 0;
        // Popups are adopted off the dispatcher thread: adopting makes blocking CDP calls, and
        // the dispatcher must stay free to answer Fetch.requestPaused (a paused popup request
        // waiting on a busy dispatcher stalled every later request). Joined before the
        // connection goes away.
        struct worker {
            std::thread thread;
            std::shared_ptr<std::atomic<bool>> finished;
        };
        std::vector<worker> workers;  // finished ones are joined when the next one starts
        std::string front_tab;        // the tab last brought to the front ("" after a popup came up)
        // The WebSocket gate of this context (null: script guard only). Its thread records
        // refusals under mu: declared after what it touches, so it is stopped before they go.
        std::unique_ptr<socket_gate> gate;
        cdp::subscription sub;  // declared last: unsubscribed first

        explicit engine(cdp::any_transport t, cdp::connection_options o) : conn(std::move(t), std::move(o)) {}
        engine(const engine&) = delete;
        engine& operator=(const engine&) = delete;
        ~engine() {
            sub.unsubscribe();
            conn.close();  // pending and later calls of the workers fail at once
            join_workers();
        }
        void join_workers() {
            std::vector<worker> ws;
            {
                std::lock_guard lock(mu);
                ws = std::move(workers);
                workers.clear();
            }
            for (auto& w : ws)
                if (w.thread.joinable()) w.thread.join();
        }
        // Under mu. Runs f on a new worker thread; joins the workers that have finished.
        template <class F>
        void spawn_worker(F&& f) {
            for (auto it = workers.begin(); it != workers.end();) {
                if (!it->finished->load()) {
                    ++it;
                    continue;
                }
                if (it->thread.joinable()) it->thread.join();  // its last statement has run
                it = workers.erase(it);
            }
            auto finished = std::make_shared<std::atomic<bool>>(false);
            workers.push_back(worker{std::thread([f = std::forward<F>(f), finished]() mutable {
                                         f();
                                         finished->store(true);
                                     }),
                                     finished});
        }
    };

    struct node_handle {
        tab_ptr tab;
        std::string session;
        std::string frame;
        std::int64_t backend = 0;
        std::string object_id;
        ref_target target;
        std::string ref;
    };

    struct capture_result {
        std::vector<ax_frame> frames;
        std::map<std::string, dom_index> dom;
    };

    // ---- lifecycle ----------------------------------------------------------------------------

    void shutdown() {
        refs_.retire_all();  // a closed browser's nodes are gone (refs would be kept for the session's life)
        if (!eng_) return;
        if (eng_->conn.is_open() && eng_->own_context && !eng_->context_id.empty())
            (void)eng_->conn.call("Target.disposeBrowserContext", json{{"browserContextId", eng_->context_id}}, {}, 3000ms);
        eng_->sub.unsubscribe();
        eng_->conn.close();
        eng_.reset();
    }

    result<void> ensure() {
        if (eng_ && eng_->conn.is_open()) return {};
        if (eng_) {
            auto why = eng_->conn.failure();
            restart_notes_.push_back("the previous browser stopped (" + (why ? why->message : std::string("unknown reason")) +
                                     "); a new browser was started — earlier tabs and refs are gone, take a new snapshot");
            refs_.retire_all();
            eng_->sub.unsubscribe();
            eng_->conn.close();
            eng_.reset();
        }
        cdp::any_transport transport;
        cdp::launch_options lo = opt_.launch;
        lo.extra_args.insert(lo.extra_args.begin(), "--disable-features=Translate,MediaRouter,OptimizationHints");
        if (opt_.transport_factory) {
            auto t = opt_.transport_factory();
            if (!t) return fail(t.error());
            if (!*t) return fail(errc::browser_launch, "the transport factory returned an empty transport");
            transport = std::move(*t);
        } else if (!opt_.cdp_endpoint.empty()) {
            auto url = cdp::discover_websocket_url(opt_.cdp_endpoint);
            if (!url) return fail(url.error());
            auto t = cdp::websocket_transport::connect(*url);
            if (!t) return fail(t.error());
            transport = std::move(*t);
        } else if (opt_.launch_over_websocket) {
            auto t = cdp::websocket_transport::launch(lo);
            if (!t) return fail(t.error());
            transport = std::move(*t);
        } else {
            auto t = cdp::pipe_transport::launch(lo);
            if (!t) return fail(t.error());
            transport = std::move(*t);
        }
        cdp::connection_options co;
        co.default_timeout = opt_.call_timeout;
        co.sent_counter = sent_;
        co.on_call_sent = opt_.on_cdp_call;
        auto e = std::make_unique<engine>(std::move(transport), std::move(co));
        auto* raw = e.get();
        e->sub = e->conn.on("*", [this, raw](const cdp::event& ev) { on_event(*raw, ev); });
        eng_ = std::move(e);
        json ctx_params{{"disposeOnDetach", true}};
        if (use_socket_gate()) {
            // WebSockets of this context go through the gate (the policy in the network stack);
            // http(s) goes direct, under request interception. See socket_gate.hpp.
            auto g = socket_gate::start([this, raw](const std::string& host, std::uint16_t port) { return judge_socket(*raw, host, port); });
            if (!g) {
                auto err = g.error();
                shutdown();
                return fail(errc::browser_launch, err.message, "Set browser_options::websockets to script_only to run without the gate.");
            }
            eng_->gate = std::move(*g);
            ctx_params["proxyServer"] = eng_->gate->proxy_server();
            ctx_params["proxyBypassList"] = socket_gate::kBypassList;
        }
        auto ctx = call("", "Target.createBrowserContext", ctx_params);
        if (!ctx) {
            auto err = ctx.error();
            if (ctx_params.contains("proxyServer") && err.hint.empty())
                err.hint = "The browser context was created with the WebSocket gate's proxy settings; "
                           "set browser_options::websockets to script_only for a browser that refuses them.";
            shutdown();
            return fail(err);
        }
        eng_->context_id = detail::jstr(*ctx, "browserContextId");
        eng_->own_context = true;
        if (auto d = call("", "Target.setDiscoverTargets", json{{"discover", true}}); !d) {
            auto err = d.error();
            shutdown();
            return fail(err);
        }
        if (auto pe = apply_policy(); !pe) {
            auto err = pe.error();
            shutdown();
            return fail(err);
        }
        auto t = create_tab();
        if (!t) {
            auto err = t.error();
            shutdown();
            return fail(err);
        }
        std::lock_guard lock(eng_->mu);
        eng_->current = (*t)->id;
        return {};
    }

    std::vector<std::string> take_restart_notes() { return std::exchange(restart_notes_, {}); }

    // Whether this start routes WebSockets through the gate (browser_options::websockets).
    [[nodiscard]] bool use_socket_gate() const {
        if (!opt_.policy.intercepts()) return false;  // nothing to enforce: the CDP conversation stays as it was
        switch (opt_.websockets) {
            case websocket_enforcement::proxy: return true;
            case websocket_enforcement::script_only: return false;
            case websocket_enforcement::automatic: break;
        }
        if (opt_.transport_factory) return false;
        if (!opt_.cdp_endpoint.empty()) {
            auto u = cdp::detail::parse_url(opt_.cdp_endpoint);
            if (!u) return false;
            const std::string h = cdp::detail::ascii_lower(u->host);
            return h == "localhost" || h == "::1" || h.rfind("127.", 0) == 0;
        }
        for (const auto& a : opt_.launch.extra_args)
            for (const char* flag : {"--proxy-server", "--proxy-pac-url", "--proxy-auto-detect"})
                if (a.rfind(flag, 0) == 0) return false;  // the host's own proxy stays in charge
        return true;
    }

    // The gate's decision (its thread): the policy on (host, port); refusals are recorded.
    std::optional<std::string> judge_socket(engine& e, const std::string& host, std::uint16_t port) {
        auto v = opt_.policy.check_socket(host, port);
        if (!v) return std::nullopt;
        {
            std::lock_guard lock(e.mu);
            blocked_request b;
            b.url = v->url;
            b.resource_type = "WebSocket";
            b.rule = v->rule;
            record_blocked(e, std::move(b));
        }
        e.cv.notify_all();
        return v->rule;
    }

    // Browser-wide enforcement: request interception at the browser target (every page, popup,
    // iframe, worker and service worker of every context, before any attach) and downloads.
    result<void> apply_policy() {
        const auto& P = opt_.policy;
        if (auto v = P.validate(); !v) return fail(v.error());
        if (P.intercepts()) {
            auto f = call("", "Fetch.enable", json{{"patterns", json::array({json{{"urlPattern", "*"}, {"requestStage", "Request"}}})}});
            if (!f) return fail(errc::browser_launch, "request interception could not be enabled: " + f.error().message,
                                "The policy cannot be enforced with this browser.");
        }
        json dl = {{"behavior", "deny"}, {"browserContextId", eng_->context_id}, {"eventsEnabled", true}};
        if (!P.downloads_dir.empty()) {
            std::error_code ec;
            std::filesystem::create_directories(P.downloads_dir, ec);
            auto abs = std::filesystem::absolute(P.downloads_dir, ec);
            if (ec) return fail(errc::args_invalid, "downloads directory " + P.downloads_dir + " is not usable: " + ec.message());
            // Chromium writes into a private directory: an unfinished download is no one else's
            // to read, and a finished one appears in downloads_dir whole, as the owner's only.
            if (download_staging_.empty()) {
                // staging directories left by a process that died (a crash, SIGKILL)
                constexpr std::string_view prefix = ".agentkit-partial-";
                for (const auto& entry : std::filesystem::directory_iterator(abs, ec)) {
                    const std::string name = entry.path().filename().string();
                    if (name.rfind(prefix, 0) != 0) continue;
                    const auto pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
                    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
                        std::error_code rec;
                        std::filesystem::remove_all(entry.path(), rec);
                    }
                }
                ec.clear();
                static std::atomic<unsigned> counter{0};
                for (int i = 0; i < 100 && download_staging_.empty(); ++i) {
                    const auto p = abs / (std::string(prefix) + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)));
                    if (std::filesystem::create_directory(p, ec)) {
                        std::filesystem::permissions(p, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
                        if (ec) return fail(errc::args_invalid, "cannot make " + p.string() + " private: " + ec.message());
                        download_staging_ = p.string();
                    }
                }
                if (download_staging_.empty())
                    return fail(errc::args_invalid, "cannot create a private staging directory in " + abs.string());
            }
            dl["behavior"] = "allowAndName";
            dl["downloadPath"] = download_staging_;
        }
        if (auto d = call("", "Browser.setDownloadBehavior", dl); !d)
            return fail(errc::browser_launch, "download behaviour could not be set: " + d.error().message,
                        "Downloads cannot be controlled with this browser.");
        return {};
    }

    std::string socket_guard_source() const {
        json rules = {{"allowed", json::array()}, {"blocked", json::array()}};
        auto add = [&](const std::vector<std::string>& list, const char* key) {
            for (const auto& s : list)
                if (auto p = policy_detail::parse_pattern(s))
                    rules[key].push_back({{"text", p->text}, {"scheme", p->scheme}, {"host", p->host}, {"port", p->port}});
        };
        add(opt_.policy.allowed_origins, "allowed");
        add(opt_.policy.blocked_origins, "blocked");
        std::string src = detail::kSocketGuardScript;
        const std::string key = "__AGENTKIT_RULES__";
        src.replace(src.find(key), key.size(), rules.dump());
        return src;
    }

    // Per-session layers of the policy (pages and out-of-process frames): the WebSocket guard.
    void install_session_policy(engine& e, const std::string& sid, std::vector<std::future<result<json>>>* wait) {
        if (!opt_.policy.intercepts()) return;
        auto b = e.conn.call_async("Runtime.addBinding", json{{"name", "__agentkitBlocked"}}, sid);
        auto g = e.conn.call_async("Page.addScriptToEvaluateOnNewDocument", json{{"source", socket_guard_source()}, {"runImmediately", true}}, sid);
        if (wait) {
            wait->push_back(std::move(b));
            wait->push_back(std::move(g));
        }
    }

    void record_blocked(engine& e, blocked_request b) {  // engine mutex held
        e.blocked.emplace_back(++e.seq, std::move(b));
        while (e.blocked.size() > 200) e.blocked.pop_front();
    }

    std::string tab_of_frame(engine& e, const std::string& frame) {  // engine mutex held
        for (const auto& [id, t] : e.tabs)
            if (t->frames.count(frame) != 0 || t->target_id == frame) return id;
        return {};
    }

    static std::string sanitize_filename(std::string n) {
        std::string o;
        for (char c : n) {
            const auto u = static_cast<unsigned char>(c);
            o += (std::isalnum(u) || c == '.' || c == '-' || c == '_' || c == ' ' || u >= 0x80) ? c : '_';
        }
        while (!o.empty() && (o.front() == '.' || o.front() == ' ')) o.erase(o.begin());
        while (!o.empty() && (o.back() == '.' || o.back() == ' ')) o.pop_back();
        if (o.size() > 120) o = o.substr(o.size() - 120);
        return o.empty() ? std::string("download") : o;
    }

    // Browser-session events: interception, downloads. True when handled.
    bool on_browser_event(engine& e, const cdp::event& ev) {
        const std::string& m = ev.method;
        const json& p = ev.params;
        if (m == "Fetch.requestPaused") {
            const json& req = detail::jobj(p, "request");
            const std::string url = detail::jstr(req, "url");
            const std::string rid = detail::jstr(p, "requestId");
            // A request of another context's page (a main frame's id is its target's id) is
            // not ours: the session owning that context judges and reports it. Without this,
            // every session sharing the browser listed the others' refused URLs as its own
            // and applied its policy to their pages. Unknown frames are judged as before.
            bool foreign = false;
            if (const std::string frame = detail::jstr(p, "frameId"); !frame.empty()) {
                std::lock_guard lock(e.mu);
                foreign = e.foreign_targets.count(frame) != 0;
            }
            if (foreign) {
                e.conn.call_async("Fetch.continueRequest", json{{"requestId", rid}}, ev.session_id, [](result<json>) {});
                return true;
            }
            auto v = opt_.policy.check(url);
            if (!v) {
                e.conn.call_async("Fetch.continueRequest", json{{"requestId", rid}}, ev.session_id, [](result<json>) {});
                return true;
            }
            {
                std::lock_guard lock(e.mu);
                blocked_request b;
                b.url = url;
                b.resource_type = detail::jstr(p, "resourceType");
                if (detail::jstr(req, "method") == "POST" && b.resource_type == "Document") b.resource_type = "Document (form post)";
                b.rule = v->rule;
                b.tab = tab_of_frame(e, detail::jstr(p, "frameId"));
                record_blocked(e, std::move(b));
            }
            e.conn.call_async("Fetch.failRequest", json{{"requestId", rid}, {"errorReason", "BlockedByClient"}}, ev.session_id,
                              [](result<json>) {});
            e.cv.notify_all();
            return true;
        }
        if (m == "Browser.downloadWillBegin") {
            download_record d;
            d.url = detail::jstr(p, "url");
            d.suggested_name = sanitize_filename(detail::jstr(p, "suggestedFilename"));
            std::lock_guard lock(e.mu);
            const std::string guid = detail::jstr(p, "guid");
            if (opt_.policy.downloads_dir.empty()) {
                d.state = "refused";
                d.rule = "downloads: no downloads directory is configured";
                e.downloads.emplace_back(++e.seq, std::move(d));
            } else if (opt_.policy.max_downloads != 0 && downloads_started_ >= opt_.policy.max_downloads) {
                // over the count: canceled at once; it stays pending with its rule until its end
                // (canceled, or completed first and then deleted), which records it as refused
                cancel_download(e, guid);
                d.state = "refused";  // never started, as far as the model is concerned
                d.rule = "max_downloads: " + std::to_string(opt_.policy.max_downloads) + " per browser";
                e.pending_downloads[guid] = std::move(d);
            } else {
                ++downloads_started_;
                e.pending_downloads[guid] = std::move(d);
            }
            while (e.downloads.size() > 100) e.downloads.pop_front();
            e.cv.notify_all();
            return true;
        }
        if (m == "Browser.downloadProgress") {
            const std::string state = detail::jstr(p, "state");
            std::lock_guard lock(e.mu);
            auto it = e.pending_downloads.find(detail::jstr(p, "guid"));
            if (it == e.pending_downloads.end()) return true;
            if (state == "inProgress") {
                // over the size bound (announced or received so far): cancel it once; the
                // "canceled" progress that follows reports it with the rule
                const auto max = opt_.policy.max_download_bytes;
                const double total = p.value("totalBytes", 0.0), received = p.value("receivedBytes", 0.0);
                if (max != 0 && it->second.rule.empty() && (total > static_cast<double>(max) || received > static_cast<double>(max))) {
                    it->second.rule = "max_download_bytes: " + std::to_string(max);
                    cancel_download(e, it->first);
                }
                return true;
            }
            if (state != "completed" && state != "canceled") return true;
            download_record d = std::move(it->second);
            const std::string guid = it->first;
            e.pending_downloads.erase(it);
            if (d.state.empty()) d.state = state;  // (one refused by the count stays refused)
            namespace fs = std::filesystem;
            const fs::path staged = fs::path(download_staging_) / guid;
            if (state == "completed") {
                // A download can finish before its cancel arrives (a fast server): one over the
                // bound is deleted here instead of kept.
                std::error_code sec;
                const auto size = fs::file_size(staged, sec);
                const auto max = opt_.policy.max_download_bytes;
                if (!d.rule.empty() || (max != 0 && !sec && size > max)) {
                    fs::remove(staged, sec);
                    if (d.state == "completed") d.state = "canceled";
                    if (d.rule.empty()) d.rule = "max_download_bytes: " + std::to_string(max);
                }
            }
            if (d.state == "completed") {
                std::error_code ec;
                const fs::path dir = fs::absolute(opt_.policy.downloads_dir, ec);
                fs::path target = dir / d.suggested_name;
                const std::string stem = fs::path(d.suggested_name).stem().string(), ext = fs::path(d.suggested_name).extension().string();
                for (int i = 2; fs::exists(target, ec) && i < 1000; ++i) target = dir / (stem + " (" + std::to_string(i) + ")" + ext);
                // the owner's only before it leaves the private directory
                fs::permissions(staged, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace, ec);
                if (!ec) fs::rename(staged, target, ec);
                if (ec) {
                    d.state = "failed: " + ec.message();
                    std::error_code rec;
                    fs::remove(staged, rec);
                } else {
                    d.path = target.string();
                }
            }
            e.downloads.emplace_back(++e.seq, std::move(d));
            e.cv.notify_all();
            return true;
        }
        return false;
    }

    void cancel_download(engine& e, const std::string& guid) {  // from the dispatcher: no wait
        e.conn.call_async("Browser.cancelDownload", json{{"guid", guid}, {"browserContextId", e.context_id}}, {}, [](result<json>) {});
    }

    void take_notes(action_result& r) {
        auto n = take_restart_notes();
        r.notes.insert(r.notes.begin(), n.begin(), n.end());
    }

    // ---- CDP helpers ----------------------------------------------------------------------------

    error crashed_error(const error& cause) const {
        return error(errc::browser_crashed, "the browser is gone: " + cause.message,
                     "The next browser call starts a new browser; then take a new snapshot.", cause.details);
    }

    result<json> call(std::string_view session, std::string_view method, json params = json::object(),
                      std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
        if (!eng_) return fail(errc::browser_crashed, "no browser is running", "Call again: the browser starts lazily.");
        auto r = eng_->conn.call(method, std::move(params), session, timeout);
        if (!r && !eng_->conn.is_open()) return fail(crashed_error(r.error()));
        return r;
    }

    result<json> call_on(const node_handle& h, const char* fn, json args, bool await_promise = false,
                         std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
        auto r = call(h.session, "Runtime.callFunctionOn",
                      json{{"functionDeclaration", fn}, {"objectId", h.object_id}, {"arguments", std::move(args)},
                           {"returnByValue", true}, {"awaitPromise", await_promise}},
                      timeout);
        if (!r) return fail(r.error());
        if (r->contains("exceptionDetails")) {
            const json& ex = detail::jobj(*r, "exceptionDetails");
            std::string what = detail::jstr(detail::jobj(ex, "exception"), "description");
            if (what.empty()) what = detail::jstr(ex, "text");
            return fail(errc::tool_failed, "page script failed: " + what);
        }
        const json& res = detail::jobj(*r, "result");
        return res.contains("value") ? res["value"] : json();
    }

    /// Wait (bounded) until `pred` (run under the engine mutex) holds. Woken by events; checks
    /// for a dead connection every 20 ms. Returns false on timeout or a dead browser.
    template <class Pred>
    bool wait_until(Pred pred, std::chrono::milliseconds timeout) {
        const auto deadline = clock::now() + timeout;
        std::unique_lock lock(eng_->mu);
        for (;;) {
            if (pred()) return true;
            const auto now = clock::now();
            if (now >= deadline) return false;
            if (!eng_->conn.is_open()) return false;
            eng_->cv.wait_for(lock, std::min<clock::duration>(deadline - now, 20ms));
        }
    }

    // ---- events (dispatcher thread) -------------------------------------------------------------

    void on_event(engine& e, const cdp::event& ev) {
        const std::string& m = ev.method;
        if (m.rfind("Target.", 0) == 0) {
            on_target_event(e, ev);
            return;
        }
        if (m == "Fetch.requestPaused" || m.rfind("Browser.download", 0) == 0) {
            (void)on_browser_event(e, ev);
            return;
        }
        if (m == "Page.screencastFrame") {
            e.conn.call_async("Page.screencastFrameAck", json{{"sessionId", detail::jint(ev.params, "sessionId")}}, ev.session_id,
                              [](result<json>) {});
            std::lock_guard lock(e.mu);
            if (!e.recording || ev.session_id != e.recording_session) return;
            e.frames.emplace_back(detail::jnum(detail::jobj(ev.params, "metadata"), "timestamp"), detail::jstr(ev.params, "data"));
            while (e.frames.size() > std::max<std::size_t>(1, opt_.recording_max_frames)) {
                e.frames.pop_front();
                ++e.frames_dropped;
            }
            e.cv.notify_all();
            return;
        }
        tab_ptr t;
        std::string answer_session;
        json answer;
        {
            std::lock_guard lock(e.mu);
            auto it = e.by_session.find(ev.session_id);
            if (it == e.by_session.end()) return;
            t = it->second;
            const json& p = ev.params;
            const bool page_session = ev.session_id == t->session;
            if (m == "Page.frameNavigated") {
                const json& f = detail::jobj(p, "frame");
                const std::string id = detail::jstr(f, "id");
                auto& rec = t->frames[id];
                rec.loader = detail::jstr(f, "loaderId");
                rec.url = detail::jstr(f, "url") + detail::jstr(f, "urlFragment");
                rec.parent = detail::jstr(f, "parentId");
                rec.session = ev.session_id;
                if (rec.parent.empty() && page_session) {
                    t->main_frame = id;
                    t->url = rec.url;
                    t->nav_committed = ++e.seq;
                    if (detail::jstr(p, "type") == "BackForwardCacheRestore") t->lifecycle[rec.loader].insert("load");
                }
                refs_.frame_navigated(id, rec.loader);
            } else if (m == "Page.navigatedWithinDocument") {
                const std::string id = detail::jstr(p, "frameId");
                if (id == t->main_frame) {
                    t->url = detail::jstr(p, "url");
                    t->same_doc = ++e.seq;
                }
                if (auto fr = t->frames.find(id); fr != t->frames.end()) fr->second.url = detail::jstr(p, "url");
            } else if (m == "Page.frameAttached") {
                auto& rec = t->frames[detail::jstr(p, "frameId")];
                rec.parent = detail::jstr(p, "parentFrameId");
                rec.session = ev.session_id;
            } else if (m == "Page.frameDetached") {
                if (detail::jstr(p, "reason") != "swap") t->frames.erase(detail::jstr(p, "frameId"));
            } else if (m == "Page.frameRequestedNavigation") {
                if (detail::jstr(p, "frameId") == t->main_frame) {
                    t->nav_requested = ++e.seq;
                    t->form_get_url = detail::jstr(p, "reason") == "formSubmissionGet" ? detail::jstr(p, "url") : std::string();
                }
            } else if (m == "Page.frameStartedLoading") {
                if (detail::jstr(p, "frameId") == t->main_frame) {
                    t->main_loading = true;
                    t->nav_started = ++e.seq;
                }
            } else if (m == "Page.frameStoppedLoading") {
                if (detail::jstr(p, "frameId") == t->main_frame) {
                    t->main_loading = false;
                    t->nav_stopped = ++e.seq;
                }
            } else if (m == "Page.lifecycleEvent") {
                t->lifecycle[detail::jstr(p, "loaderId")].insert(detail::jstr(p, "name"));
            } else if (m == "Page.loadEventFired") {
                if (page_session) {
                    t->main_loaded = ++e.seq;
                    if (auto fr = t->frames.find(t->main_frame); fr != t->frames.end()) t->lifecycle[fr->second.loader].insert("load");
                }
            } else if (m == "Page.javascriptDialogOpening") {
                dialog_record d;
                d.type = detail::jstr(p, "type");
                d.message = detail::jstr(p, "message");
                d.default_prompt = detail::jstr(p, "defaultPrompt");
                d.url = detail::jstr(p, "url");
                dialog_action a = dialog_action::accept;
                {
                    std::lock_guard pl(policy_mu_);
                    const auto& pol = opt_.dialogs;
                    a = d.type == "alert" ? pol.alert : d.type == "confirm" ? pol.confirm : d.type == "prompt" ? pol.prompt : pol.beforeunload;
                    d.prompt_text = pol.prompt_text.empty() ? d.default_prompt : pol.prompt_text;
                }
                d.accepted = a == dialog_action::accept;
                answer = {{"accept", d.accepted}};
                if (d.type == "prompt" && d.accepted) answer["promptText"] = d.prompt_text;
                answer_session = ev.session_id;
                if (t->dialogs.size() < std::max<std::size_t>(1, opt_.policy.max_dialogs_per_action)) t->dialogs.push_back(std::move(d));
                else ++t->dialogs_dropped;
            } else if (m == "Network.requestWillBeSent") {
                const std::string key = ev.session_id + "|" + detail::jstr(p, "requestId");
                const std::string type = detail::jstr(p, "type");
                if (!p.contains("redirectResponse") && type != "EventSource" && type != "WebSocket")
                    t->inflight[key] = ++e.seq;
                const json& req = detail::jobj(p, "request");
                network_entry n;
                n.method = detail::jstr(req, "method");
                n.url = detail::jstr(req, "url");
                n.resource_type = type;
                t->request_start[key] = detail::jnum(p, "timestamp");
                if (auto r = detail::jobj(p, "redirectResponse"); !r.empty()) {
                    for (auto it2 = t->network.rbegin(); it2 != t->network.rend(); ++it2)
                        if (it2->first == key) {
                            it2->second.status = static_cast<int>(detail::jint(r, "status"));
                            it2->second.finished = true;
                            break;
                        }
                }
                t->network.emplace_back(key, std::move(n));
                while (t->network.size() > opt_.network_capacity) {
                    t->network.pop_front();
                    ++t->network_dropped;
                }
            } else if (m == "Network.responseReceived") {
                const std::string key = ev.session_id + "|" + detail::jstr(p, "requestId");
                const json& r = detail::jobj(p, "response");
                if (detail::jstr(p, "type") == "Document" && !detail::jstr(p, "loaderId").empty())
                    t->doc_status[detail::jstr(p, "loaderId")] = static_cast<int>(detail::jint(r, "status"));
                for (auto it2 = t->network.rbegin(); it2 != t->network.rend(); ++it2)
                    if (it2->first == key) {
                        it2->second.status = static_cast<int>(detail::jint(r, "status"));
                        it2->second.mime_type = detail::jstr(r, "mimeType");
                        break;
                    }
            } else if (m == "Network.loadingFinished" || m == "Network.loadingFailed") {
                const std::string key = ev.session_id + "|" + detail::jstr(p, "requestId");
                t->inflight.erase(key);
                const double start = t->request_start.count(key) != 0 ? t->request_start[key] : 0;
                t->request_start.erase(key);
                for (auto it2 = t->network.rbegin(); it2 != t->network.rend(); ++it2)
                    if (it2->first == key) {
                        it2->second.finished = true;
                        it2->second.error = detail::jstr(p, "errorText");
                        if (start > 0) it2->second.duration_ms = (detail::jnum(p, "timestamp") - start) * 1000.0;
                        break;
                    }
            } else if (m == "Runtime.consoleAPICalled") {
                console_message c;
                c.level = detail::jstr(p, "type");
                c.text = detail::clip(detail::args_text(p.contains("args") ? p["args"] : json::array()), 2000);
                const json& st = detail::jobj(p, "stackTrace");
                if (st.contains("callFrames") && st["callFrames"].is_array() && !st["callFrames"].empty()) {
                    c.url = detail::jstr(st["callFrames"][0], "url");
                    c.line = static_cast<int>(detail::jint(st["callFrames"][0], "lineNumber")) + 1;
                }
                t->console.push_back(std::move(c));
                while (t->console.size() > opt_.console_capacity) {
                    t->console.pop_front();
                    ++t->console_dropped;
                }
            } else if (m == "Runtime.exceptionThrown") {
                const json& ex = detail::jobj(p, "exceptionDetails");
                console_message c;
                c.level = "exception";
                c.text = detail::jstr(detail::jobj(ex, "exception"), "description");
                if (c.text.empty()) c.text = detail::jstr(ex, "text");
                c.text = detail::clip(c.text, 2000);
                c.url = detail::jstr(ex, "url");
                c.line = static_cast<int>(detail::jint(ex, "lineNumber")) + 1;
                t->console.push_back(std::move(c));
                while (t->console.size() > opt_.console_capacity) {
                    t->console.pop_front();
                    ++t->console_dropped;
                }
            } else if (m == "Runtime.bindingCalled" && detail::jstr(p, "name") == "__agentkitBlocked") {
                const json rep = json::parse(detail::jstr(p, "payload"), nullptr, false);
                blocked_request b;
                b.url = detail::jstr(rep, "url");
                b.rule = detail::jstr(rep, "rule");
                b.resource_type = "WebSocket";
                b.tab = t->id;
                if (!b.url.empty() && opt_.policy.check(b.url)) record_blocked(e, std::move(b));  // only real refusals
            } else if (m == "Inspector.targetCrashed") {
                if (page_session) t->crashed = true;
            } else {
                return;
            }
        }
        e.cv.notify_all();
        if (!answer_session.empty())
            e.conn.call_async("Page.handleJavaScriptDialog", answer, answer_session, [](result<json>) {});
    }

    void on_target_event(engine& e, const cdp::event& ev) {
        const std::string& m = ev.method;
        const json& p = ev.params;
        if (m == "Target.attachedToTarget" && !ev.session_id.empty()) {
            const json& info = detail::jobj(p, "targetInfo");
            const std::string sid = detail::jstr(p, "sessionId");
            const std::string type = detail::jstr(info, "type");
            if (type == "iframe") {
                {
                    std::lock_guard lock(e.mu);
                    auto it = e.by_session.find(ev.session_id);
                    if (it == e.by_session.end()) return;
                    auto t = it->second;
                    t->children[sid] = detail::child_rec{detail::jstr(info, "targetId"), ev.session_id, detail::jstr(info, "url")};
                    e.by_session[sid] = t;
                }
                for (const char* method : {"Page.enable", "Runtime.enable", "Network.enable", "DOM.enable"})
                    e.conn.call_async(method, json::object(), sid, [](result<json>) {});
                install_session_policy(e, sid, nullptr);
                e.conn.call_async("Page.setLifecycleEventsEnabled", json{{"enabled", true}}, sid, [](result<json>) {});
                e.conn.call_async("Target.setAutoAttach",
                                  json{{"autoAttach", true}, {"waitForDebuggerOnStart", true}, {"flatten", true}}, sid,
                                  [](result<json>) {});
            }
            e.conn.call_async("Runtime.runIfWaitingForDebugger", json::object(), sid, [](result<json>) {});
            e.cv.notify_all();
            return;
        }
        if (m == "Target.detachedFromTarget") {
            const std::string sid = detail::jstr(p, "sessionId");
            std::lock_guard lock(e.mu);
            auto it = e.by_session.find(sid);
            if (it == e.by_session.end()) return;
            auto t = it->second;
            if (sid == t->session) t->closed = true;
            else t->children.erase(sid);
            e.by_session.erase(it);
            e.cv.notify_all();
            return;
        }
        if (m == "Target.targetDestroyed") {
            std::lock_guard lock(e.mu);
            e.foreign_targets.erase(detail::jstr(p, "targetId"));
            if (auto it = e.by_target.find(detail::jstr(p, "targetId")); it != e.by_target.end()) it->second->closed = true;
            e.cv.notify_all();
            return;
        }
        if (m == "Target.targetCrashed") {
            std::lock_guard lock(e.mu);
            if (auto it = e.by_target.find(detail::jstr(p, "targetId")); it != e.by_target.end()) it->second->crashed = true;
            e.cv.notify_all();
            return;
        }
        if (m == "Target.targetInfoChanged" || m == "Target.targetCreated") {
            const json& info = detail::jobj(p, "targetInfo");
            if (const std::string ctx = detail::jstr(info, "browserContextId"); !ctx.empty() && ctx != e.context_id) {
                std::lock_guard lock(e.mu);
                e.foreign_targets.insert(detail::jstr(info, "targetId"));
                return;
            }
            if (detail::jstr(info, "type") != "page" || detail::jstr(info, "browserContextId") != e.context_id) return;
            const std::string id = detail::jstr(info, "targetId");
            std::string opener = detail::jstr(info, "openerId");
            {
                std::lock_guard lock(e.mu);
                if (auto it = e.by_target.find(id); it != e.by_target.end()) {
                    it->second->title = detail::jstr(info, "title");
                    return;
                }
                if (m != "Target.targetCreated" || opener.empty() || e.adopting.count(id) != 0) return;
            }
            // A popup (window.open, target=_blank): adopt it as a new tab, unless there are too many.
            // Tabs still being adopted count: a burst of popups from one script arrives before
            // the first of them is attached.
            {
                std::lock_guard lock(e.mu);
                if (e.adopting.count(id) != 0) return;
                std::size_t open_tabs = e.adopting.size();
                for (const auto& [k, t] : e.tabs) open_tabs += t->closed ? 0U : 1U;
                if (open_tabs < std::max<std::size_t>(1, opt_.policy.max_tabs)) {
                    e.adopting.insert(id);  // marked here, so an action finishing now waits for it
                    e.front_tab.clear();    // the popup is in front now
                    e.spawn_worker([this, &e, id, opener] { (void)adopt(e, id, opener, true); });
                    return;
                }
                blocked_request b;
                b.url = detail::jstr(info, "url");
                b.resource_type = "Popup";
                b.rule = "max_tabs: " + std::to_string(opt_.policy.max_tabs) + " tabs are open";
                if (auto o = e.by_target.find(opener); o != e.by_target.end()) b.tab = o->second->id;
                record_blocked(e, std::move(b));
            }
            e.conn.call_async("Target.closeTarget", json{{"targetId", id}}, "", [](result<json>) {});
        }
    }

    // ---- tabs -----------------------------------------------------------------------------------

    result<tab_ptr> create_tab() {
        auto r = call("", "Target.createTarget", json{{"url", "about:blank"}, {"browserContextId", eng_->context_id}});
        if (!r) return fail(r.error());
        const std::string id = detail::jstr(*r, "targetId");
        auto t = adopt(*eng_, id, {});
        // a target that could not be attached (e.g. its renderer died meanwhile) is not left behind
        if (!t && eng_->conn.is_open()) (void)call("", "Target.closeTarget", json{{"targetId", id}}, 3000ms);
        return t;
    }

    result<void> apply_viewport(const std::string& session) {
        viewport_size v;
        {
            std::lock_guard pl(policy_mu_);
            v = opt_.viewport;
        }
        auto r = call(session, "Emulation.setDeviceMetricsOverride",
                      json{{"width", v.width}, {"height", v.height}, {"deviceScaleFactor", v.device_scale_factor},
                           {"mobile", v.mobile}});
        if (!r) return fail(r.error());
        auto t = call(session, "Emulation.setTouchEmulationEnabled",
                      json{{"enabled", v.touch || v.mobile}, {"maxTouchPoints", (v.touch || v.mobile) ? 5 : 1}});
        if (!t) return fail(t.error());
        if (!v.user_agent.empty()) {
            auto u = call(session, "Emulation.setUserAgentOverride", json{{"userAgent", v.user_agent}});
            if (!u) return fail(u.error());
        }
        return {};
    }

    // Attach to a page target and make it a tab. Runs on the caller's thread or the dispatcher.
    result<tab_ptr> adopt(engine& e, const std::string& target_id, const std::string& opener, bool premarked = false) {
        if (!premarked) {
            std::unique_lock lock(e.mu);
            if (auto it = e.by_target.find(target_id); it != e.by_target.end()) return it->second;
            if (e.adopting.count(target_id) != 0) {
                e.cv.wait_for(lock, opt_.call_timeout, [&] { return e.by_target.count(target_id) != 0 || e.adopting.count(target_id) == 0; });
                if (auto it = e.by_target.find(target_id); it != e.by_target.end()) return it->second;
                return fail(errc::timeout, "the tab " + target_id + " could not be attached");
            }
            e.adopting.insert(target_id);
        }
        auto done = [&](const tab_ptr& t) {
            std::lock_guard lock(e.mu);
            e.adopting.erase(target_id);
            if (t) {
                e.tabs[t->id] = t;
                e.by_target[target_id] = t;
                if (!opener.empty())
                    if (auto o = e.by_target.find(opener); o != e.by_target.end()) o->second->opened.push_back(t->id);
            }
            e.cv.notify_all();
        };
        auto sid = e.conn.attach_to_target(target_id);
        if (!sid) {
            done(nullptr);
            if (!e.conn.is_open()) return fail(crashed_error(sid.error()));
            return fail(sid.error());
        }
        auto t = std::make_shared<detail::tab_state>();
        t->target_id = target_id;
        t->session = *sid;
        {
            std::lock_guard lock(e.mu);
            t->id = "tab" + std::to_string(e.next_tab++);
            e.by_session[*sid] = t;
        }
        std::vector<std::future<result<json>>> fs;
        for (const char* method : {"Page.enable", "Runtime.enable", "Network.enable", "DOM.enable", "Inspector.enable"})
            fs.push_back(e.conn.call_async(method, json::object(), *sid));
        fs.push_back(e.conn.call_async("Page.setLifecycleEventsEnabled", json{{"enabled", true}}, *sid));
        install_session_policy(e, *sid, &fs);
        fs.push_back(e.conn.call_async("Target.setAutoAttach",
                                       json{{"autoAttach", true}, {"waitForDebuggerOnStart", true}, {"flatten", true}}, *sid));
        viewport_size v;
        {
            std::lock_guard pl(policy_mu_);
            v = opt_.viewport;
        }
        fs.push_back(e.conn.call_async("Emulation.setDeviceMetricsOverride",
                                       json{{"width", v.width}, {"height", v.height}, {"deviceScaleFactor", v.device_scale_factor},
                                            {"mobile", v.mobile}},
                                       *sid));
        // the rest of the emulation (what resize() applies), only where it differs from the default
        if (v.touch || v.mobile)
            fs.push_back(e.conn.call_async("Emulation.setTouchEmulationEnabled", json{{"enabled", true}, {"maxTouchPoints", 5}}, *sid));
        if (!v.user_agent.empty())
            fs.push_back(e.conn.call_async("Emulation.setUserAgentOverride", json{{"userAgent", v.user_agent}}, *sid));
        auto tree_f = e.conn.call_async("Page.getFrameTree", json::object(), *sid);
        std::optional<error> err;
        for (auto& f : fs) {
            auto r = f.get();
            if (!r && !err) err = r.error();
        }
        auto tree = tree_f.get();
        if (!tree && !err) err = tree.error();
        if (err) {
            {
                std::lock_guard lock(e.mu);
                e.by_session.erase(*sid);
            }
            done(nullptr);
            if (!e.conn.is_open()) return fail(crashed_error(*err));
            return fail(*err);
        }
        e.conn.call_async("Runtime.runIfWaitingForDebugger", json::object(), *sid, [](result<json>) {});
        {
            std::lock_guard lock(e.mu);
            const json& fr = detail::jobj(detail::jobj(*tree, "frameTree"), "frame");
            if (t->main_frame.empty()) {
                t->main_frame = detail::jstr(fr, "id");
                auto& rec = t->frames[t->main_frame];
                if (rec.loader.empty()) rec.loader = detail::jstr(fr, "loaderId");
                if (rec.url.empty()) rec.url = detail::jstr(fr, "url");
                rec.session = *sid;
                t->url = rec.url;
            }
        }
        done(t);
        return t;
    }

    // The current tab. A tab whose renderer crashed is replaced by a new blank tab: the call
    // fails with a clear error (or, with `proceed`, goes on in the new tab with a note).
    result<tab_ptr> current_tab(bool proceed = false) {
        tab_ptr dead;
        {
            std::lock_guard lock(eng_->mu);
            auto it = eng_->tabs.find(eng_->current);
            if (it == eng_->tabs.end() || it->second->closed)
                return fail(errc::not_found, "no tab is open", "Open one with new_tab or navigate.");
            if (!it->second->crashed) return it->second;
            dead = it->second;
        }
        auto nt = replace_tab(dead);
        if (!nt) return fail(nt.error());
        const std::string what = "the page in " + dead->id + " crashed (its renderer died); it was replaced by a new blank tab " + (*nt)->id;
        if (proceed) {
            restart_notes_.push_back(what);
            return *nt;
        }
        return fail(errc::browser_crashed, what, "Navigate again; refs of the crashed page are gone.", json{{"new_tab", (*nt)->id}});
    }

    // Close a dead or wedged tab and make a new blank tab the current one. The new tab's renderer
    // may be gone too (a spare renderer killed with the crashed one): it is tried twice, and
    // when both fail the dead tab stays current, so the next call tries again (it used to be
    // forgotten first, leaving no current tab: every later call failed with "no tab is open").
    result<tab_ptr> replace_tab(const tab_ptr& dead) {
        auto nt = create_tab();
        if (!nt && eng_->conn.is_open()) nt = create_tab();
        if (!nt) return fail(nt.error());
        (void)call("", "Target.closeTarget", json{{"targetId", dead->target_id}}, 3000ms);
        forget_tab(dead);
        std::lock_guard lock(eng_->mu);
        eng_->current = (*nt)->id;
        return *nt;
    }

    // A script that keeps the renderer busy (an endless loop): stop it. True when stopped.
    bool stop_scripts(const tab_ptr& t, const std::string& session, std::chrono::milliseconds waited) {
        if (!eng_ || !eng_->conn.is_open()) return false;
        auto r = call(session.empty() ? t->session : session, "Runtime.terminateExecution", json::object(), 3000ms);
        if (!r) return false;
        restart_notes_.push_back("a script kept the page busy for more than " + std::to_string(waited.count()) +
                                 " ms; it was stopped (the page's scripts may be in a broken state)");
        return true;
    }

    result<tab_ptr> find_tab(std::string_view id) {
        std::lock_guard lock(eng_->mu);
        auto it = eng_->tabs.find(std::string(id));
        if (it == eng_->tabs.end() || it->second->closed) {
            std::string known;
            for (const auto& [k, t] : eng_->tabs)
                if (!t->closed) known += (known.empty() ? "" : ", ") + k;
            return fail(errc::not_found, "no tab " + std::string(id), "Open tabs: " + (known.empty() ? std::string("none") : known));
        }
        return it->second;
    }

    void forget_tab(const tab_ptr& t) {
        std::lock_guard lock(eng_->mu);
        // its refs can never resolve again: retire them (they were kept for the session's life)
        std::set<std::string> frames = {t->main_frame, t->target_id};
        for (const auto& [id, f] : t->frames) frames.insert(id);
        for (const auto& [sid, c] : t->children) frames.insert(c.frame_id);
        refs_.retire_frames(frames);
        eng_->tabs.erase(t->id);
        eng_->by_target.erase(t->target_id);
        for (auto it = eng_->by_session.begin(); it != eng_->by_session.end();)
            it = it->second == t ? eng_->by_session.erase(it) : std::next(it);
        if (eng_->current == t->id) eng_->current = eng_->tabs.empty() ? std::string() : eng_->tabs.rbegin()->first;
    }

    std::vector<tab_info> list_tabs() {
        std::vector<tab_ptr> ts;
        std::string cur;
        {
            std::lock_guard lock(eng_->mu);
            for (const auto& [k, t] : eng_->tabs)
                if (!t->closed) ts.push_back(t);
            cur = eng_->current;
        }
        std::vector<tab_info> out;
        for (const auto& t : ts) {
            tab_info i;
            i.id = t->id;
            i.active = t->id == cur;
            fill_url_title(t, i.url, i.title);
            i.url = opt_.policy.redact(std::move(i.url));
            i.title = opt_.policy.redact(std::move(i.title));
            out.push_back(std::move(i));
        }
        return out;
    }

    void fill_url_title(const tab_ptr& t, std::string& url, std::string& title) {
        auto r = call("", "Target.getTargetInfo", json{{"targetId", t->target_id}}, 5000ms);
        if (r) {
            const json& info = detail::jobj(*r, "targetInfo");
            url = detail::jstr(info, "url");
            title = detail::jstr(info, "title");
            return;
        }
        std::lock_guard lock(eng_->mu);
        url = t->url;
        title = t->title;
    }

    // ---- snapshot capture -----------------------------------------------------------------------

    result<capture_result> capture(const tab_ptr& t, bool want_viewport) {
        // sessions of this tab: the page and its OOPIFs
        std::vector<std::string> sessions{t->session};
        std::map<std::string, detail::child_rec> children;
        {
            std::lock_guard lock(eng_->mu);
            children = t->children;
        }
        for (const auto& [sid, c] : children) sessions.push_back(sid);
        std::set<std::string> oopif_frames;
        for (const auto& [sid, c] : children) oopif_frames.insert(c.frame_id);

        // round 1, concurrently: frame trees and DOM snapshots of every session, layout metrics
        std::vector<std::future<result<json>>> trees, doms;
        const json ds_params = {{"computedStyles", json::array({"cursor", "display", "visibility"})}};
        for (const auto& s : sessions) {
            trees.push_back(eng_->conn.call_async("Page.getFrameTree", json::object(), s));
            doms.push_back(eng_->conn.call_async("DOMSnapshot.captureSnapshot", ds_params, s, opt_.navigation_timeout));
        }
        auto metrics_f = eng_->conn.call_async("Page.getLayoutMetrics", json::object(), t->session);
        std::vector<std::future<result<json>>> owners;
        for (const auto& [sid, c] : children)
            owners.push_back(eng_->conn.call_async("DOM.getFrameOwner", json{{"frameId", c.frame_id}}, c.parent_session));

        capture_result out;
        struct pending_ax {
            ax_frame frame;
            std::future<result<json>> f;
        };
        std::vector<pending_ax> axs;
        // The accessibility trees are asked for as soon as the frame trees are known, before the
        // DOM snapshots are read: the renderer computes them while this thread reads the DOM.
        // A failed read is the capture's failure when the browser died or the session is the
        // page's own; an OOPIF that went away meanwhile is left out with its frames (nullopt).
        auto failure = [&](std::size_t i, const error& err) -> std::optional<error> {
            if (!eng_->conn.is_open()) return crashed_error(err);
            if (i != 0) return std::nullopt;
            if (auto c = crashed_during(t)) return c;
            return err;
        };
        std::vector<bool> session_ok(sessions.size(), true);
        for (std::size_t i = 0; i < sessions.size(); ++i) {
            auto tree = trees[i].get();
            if (!tree) {
                if (auto f = failure(i, tree.error())) return fail(*f);
                session_ok[i] = false;
                continue;
            }
            // walk the frame tree
            std::vector<const json*> stack{&detail::jobj(*tree, "frameTree")};
            bool root = true;
            while (!stack.empty()) {
                const json* node = stack.back();
                stack.pop_back();
                const json& fr = detail::jobj(*node, "frame");
                const std::string id = detail::jstr(fr, "id");
                const bool skip = !root && oopif_frames.count(id) != 0;  // rendered from its own session
                if (!id.empty() && !skip) {
                    ax_frame a;
                    a.session_id = sessions[i];
                    a.frame_id = id;
                    a.loader_id = detail::jstr(fr, "loaderId");
                    a.url = detail::jstr(fr, "url");
                    refs_.frame_navigated(id, a.loader_id);
                    {
                        std::lock_guard lock(eng_->mu);
                        auto& rec = t->frames[id];
                        rec.loader = a.loader_id;
                        rec.url = a.url;
                        rec.session = sessions[i];
                    }
                    auto f = eng_->conn.call_async("Accessibility.getFullAXTree", json{{"frameId", id}}, sessions[i],
                                                   opt_.navigation_timeout);
                    axs.push_back(pending_ax{std::move(a), std::move(f)});
                }
                root = false;
                if (auto ch = node->find("childFrames"); ch != node->end() && ch->is_array())
                    for (auto it = ch->rbegin(); it != ch->rend(); ++it) stack.push_back(&*it);
            }
        }
        for (std::size_t i = 0; i < sessions.size(); ++i) {
            auto dom = doms[i].get();
            if (!session_ok[i]) continue;
            if (!dom) {
                if (auto f = failure(i, dom.error())) return fail(*f);
                continue;  // not in out.dom: its accessibility trees are skipped below
            }
            out.dom.emplace(sessions[i], parse_dom_snapshot(*dom));
        }
        // owners of OOPIFs
        std::map<std::string, std::pair<std::string, std::int64_t>> owner_of;  // frame id → (parent session, backend)
        {
            std::size_t k = 0;
            for (const auto& [sid, c] : children) {
                auto r = owners[k++].get();
                if (r) owner_of[c.frame_id] = {c.parent_session, detail::jint(*r, "backendNodeId")};
            }
        }
        auto metrics = metrics_f.get();
        if (metrics && want_viewport) {
            const json& vv = detail::jobj(*metrics, "cssVisualViewport");
            auto& d = out.dom[t->session];
            d.viewport_w = detail::jnum(vv, "clientWidth");
            d.viewport_h = detail::jnum(vv, "clientHeight");
            d.scroll_x = detail::jnum(vv, "pageX", d.scroll_x);
            d.scroll_y = detail::jnum(vv, "pageY", d.scroll_y);
        }
        for (auto& p : axs) {
            auto r = p.f.get();
            if (out.dom.count(p.frame.session_id) == 0) continue;  // its session's DOM snapshot failed
            if (!r) {
                if (!eng_->conn.is_open()) return fail(crashed_error(r.error()));
                if (p.frame.session_id == t->session)
                    if (auto c = crashed_during(t, false)) return fail(*c);
                if (r.error().is(errc::timeout) && p.frame.session_id == t->session && out.frames.empty()) {
                    std::size_t nodes = 0;
                    if (auto d = out.dom.find(t->session); d != out.dom.end()) nodes = d->second.nodes.size();
                    return fail(errc::timeout,
                                "the page is too large to snapshot within " + std::to_string(opt_.navigation_timeout.count()) +
                                    " ms (" + std::to_string(nodes) + " DOM nodes)",
                                "Read part of it: browser_extract, a snapshot of one ref's subtree, or the readable mode.",
                                json{{"dom_nodes", nodes}});
                }
                continue;
            }
            p.frame.nodes = r->contains("nodes") ? std::move((*r)["nodes"]) : json::array();
            if (auto o = owner_of.find(p.frame.frame_id); o != owner_of.end()) {
                p.frame.owner_session_id = o->second.first;
                p.frame.owner_backend_id = o->second.second;
            }
            out.frames.push_back(std::move(p.frame));
        }
        if (out.frames.empty() || out.frames[0].session_id != t->session) {
            if (auto c = crashed_during(t)) return fail(*c);
            return fail(errc::tool_failed, "the page has no accessibility tree yet", "Retry once the page has loaded.");
        }
        return out;
    }

    // After a failed call to a tab's page: did its renderer crash meanwhile? The crash event may
    // trail the failed answer (events go through the dispatcher), so where the capture fails
    // anyway it is waited for (`wait`, bounded); elsewhere only checked.
    std::optional<error> crashed_during(const tab_ptr& t, bool wait = true) {
        const auto bound = wait ? std::min<std::chrono::milliseconds>(opt_.call_timeout, 2000ms) : std::chrono::milliseconds(0);
        if (!wait_until([&] { return t->crashed; }, bound)) return std::nullopt;
        return error(errc::browser_crashed, "the page in " + t->id + " crashed (its renderer died) while it was being read",
                     "The next call replaces it with a new blank tab; navigate again.");
    }

    // A quick probe of the page's main thread: an endless script is stopped before a capture
    // would wait for it.
    void unstick(const tab_ptr& t) {
        auto r = call(t->session, "Runtime.evaluate", json{{"expression", "1"}, {"returnByValue", true}}, opt_.call_timeout);
        if (!r && r.error().is(errc::timeout)) {
            bool crashed = false;
            {
                std::lock_guard lock(eng_->mu);
                crashed = t->crashed;
            }
            if (!crashed) (void)stop_scripts(t, {}, opt_.call_timeout);
        }
    }

    result<page_snapshot> take_snapshot(const tab_ptr& t, const snapshot_options& so) {
        unstick(t);
        {
            std::lock_guard lock(eng_->mu);
            if (t->crashed)
                return fail(errc::browser_crashed, "the page in " + t->id + " crashed (its renderer died)",
                            "The next call replaces it with a new blank tab; navigate again.");
        }
        auto cap = capture(t, true);
        if (!cap && cap.error().is(errc::timeout) && stop_scripts(t, {}, opt_.navigation_timeout)) cap = capture(t, true);
        if (!cap) return fail(cap.error());
        page_snapshot ps;
        ps.tab = t->id;
        if (!so.root_ref.empty()) {
            auto rr = refs_.resolve(so.root_ref);
            if (!rr) return fail(rr.error());
        }
        ps.snap = render_snapshot(cap->frames, cap->dom, refs_, so, opt_.tokens);
        if (!so.root_ref.empty() && ps.snap.lines.empty())
            return fail(errc::ref_stale, "ref " + so.root_ref + " is not on the page any more", "Take a new snapshot.");
        ps.article_like = classify_page(cap->frames).article_like();
        fill_url_title(t, ps.url, ps.title);
        if (so.root_ref.empty() && !so.viewport_only && !so.interactive_only) {
            std::lock_guard lock(eng_->mu);
            t->last_lines = ps.snap.lines;
            t->has_last = true;
        }
        return ps;
    }

    // ---- refs -----------------------------------------------------------------------------------

    result<node_handle> resolve(std::string_view ref) {
        auto target = refs_.resolve(ref);
        if (!target) return fail(target.error());
        node_handle h;
        h.target = *target;
        h.ref = std::string(ref);
        h.session = target->session_id;
        h.frame = target->frame_id;
        h.backend = target->backend_node_id;
        auto stale = [&](const std::string& why) {
            refs_.retire(ref);
            return fail(errc::ref_stale,
                        "ref " + std::string(ref) + " (" + target->role + " \"" + target->name + "\") is stale: " + why,
                        "Take a new snapshot and use the refs it shows.", json{{"ref", ref}});
        };
        {
            std::lock_guard lock(eng_->mu);
            auto it = eng_->by_session.find(h.session);
            if (it == eng_->by_session.end() || it->second->closed) return stale("its tab or frame is gone");
            h.tab = it->second;
            if (auto f = h.tab->frames.find(h.frame); f != h.tab->frames.end() && !f->second.loader.empty() &&
                                                      f->second.loader != target->loader_id) {
                refs_.frame_navigated(h.frame, f->second.loader);
                return stale("its page navigated");
            }
        }
        auto r = call(h.session, "DOM.resolveNode", json{{"backendNodeId", h.backend}});
        if (!r) {
            if (r.error().is(errc::browser_crashed)) return fail(r.error());
            return stale("its element was removed from the page");
        }
        h.object_id = detail::jstr(detail::jobj(*r, "object"), "objectId");
        if (h.object_id.empty()) return stale("its element was removed from the page");
        auto connected = call_on(h, "function(){ return this.isConnected; }", json::array());
        if (!connected) return fail(connected.error());
        if (!connected->is_boolean() || !connected->get<bool>()) return stale("its element was removed from the page");
        return h;
    }

    result<json> element_info(const node_handle& h) { return call_on(h, detail::kInfoScript, json::array()); }

    // Offset of an OOPIF session's viewport inside the page's viewport.
    result<std::pair<double, double>> frame_offset(const tab_ptr& t, const std::string& session, int depth = 0) {
        if (session == t->session || depth > 8) return std::pair{0.0, 0.0};
        detail::child_rec c;
        {
            std::lock_guard lock(eng_->mu);
            auto it = t->children.find(session);
            if (it == t->children.end()) return fail(errc::ref_stale, "the frame of this element is gone", "Take a new snapshot.");
            c = it->second;
        }
        auto owner = call(c.parent_session, "DOM.getFrameOwner", json{{"frameId", c.frame_id}});
        if (!owner) return fail(owner.error());
        auto box = call(c.parent_session, "DOM.getBoxModel", json{{"backendNodeId", detail::jint(*owner, "backendNodeId")}});
        if (!box) return fail(errc::element_not_visible, "the frame of this element is not visible", "Scroll it into view.");
        const json& content = detail::jobj(*box, "model").value("content", json::array());
        if (!content.is_array() || content.size() < 2) return fail(errc::element_not_visible, "the frame has no box");
        auto up = frame_offset(t, c.parent_session, depth + 1);
        if (!up) return fail(up.error());
        return std::pair{content[0].get<double>() + up->first, content[1].get<double>() + up->second};
    }

    // A point inside the element, in page-viewport coordinates, after scrolling it into view;
    // with `hit_test`, fails with element_covered when another element would take the click.
    result<std::pair<double, double>> visible_point(const node_handle& h, bool hit_test) {
        (void)call(h.session, "DOM.scrollIntoViewIfNeeded", json{{"backendNodeId", h.backend}});
        auto q = call(h.session, "DOM.getContentQuads", json{{"backendNodeId", h.backend}});
        const std::string what = "ref " + h.ref + " (" + h.target.role + " \"" + h.target.name + "\")";
        if (!q) {
            if (q.error().is(errc::browser_crashed)) return fail(q.error());
            return fail(errc::element_not_visible, what + " is not visible (it has no layout box)",
                        "It may be hidden or collapsed; open its container first, then take a new snapshot.");
        }
        auto m = call(h.session, "Page.getLayoutMetrics");
        if (!m) return fail(m.error());
        const json& lv = detail::jobj(*m, "cssLayoutViewport");
        const double vw = detail::jnum(lv, "clientWidth", 1e9), vh = detail::jnum(lv, "clientHeight", 1e9);
        std::optional<std::pair<double, double>> pt;
        const json& quads = q->contains("quads") ? (*q)["quads"] : json::array();
        for (const auto& quad : quads) {
            if (!quad.is_array() || quad.size() < 8) continue;
            double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
            for (std::size_t i = 0; i + 1 < 8; i += 2) {
                const double x = quad[i].get<double>(), y = quad[i + 1].get<double>();
                x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
            }
            x0 = std::max(x0, 0.0), y0 = std::max(y0, 0.0), x1 = std::min(x1, vw), y1 = std::min(y1, vh);
            if (x1 - x0 < 1 || y1 - y0 < 1) continue;
            pt = std::pair{(x0 + x1) / 2, (y0 + y1) / 2};
            break;
        }
        if (!pt)
            return fail(errc::element_not_visible, what + " is not visible in the viewport (zero size or clipped)",
                        "It may be hidden, empty or inside a collapsed container.");
        if (hit_test) {
            auto hit = call(h.session, "DOM.getNodeForLocation",
                            json{{"x", static_cast<std::int64_t>(pt->first)}, {"y", static_cast<std::int64_t>(pt->second)},
                                 {"includeUserAgentShadowDOM", false}, {"ignorePointerEventsNone", false}});
            if (hit) {
                const std::int64_t hb = detail::jint(*hit, "backendNodeId");
                if (hb != 0 && hb != h.backend) {
                    bool inside = false;
                    std::string cover = "another element";
                    auto ho = call(h.session, "DOM.resolveNode", json{{"backendNodeId", hb}});
                    if (ho) {
                        const std::string oid = detail::jstr(detail::jobj(*ho, "object"), "objectId");
                        auto c = call(h.session, "Runtime.callFunctionOn",
                                      json{{"functionDeclaration", detail::kContainsScript}, {"objectId", h.object_id},
                                           {"arguments", json::array({json{{"objectId", oid}}})}, {"returnByValue", true}});
                        inside = c && detail::jobj(*c, "result").value("value", json(false)) == json(true);
                        if (!inside) {
                            node_handle hh = h;
                            hh.object_id = oid;
                            auto d = call_on(hh, detail::kDescribeScript, json::array());
                            if (d && d->is_string()) cover = d->get<std::string>();
                            if (auto cref = refs_.find(h.session, h.target.loader_id, hb)) cover += " [ref=" + *cref + "]";
                        }
                    }
                    if (!inside)
                        return fail(errc::element_covered, what + " is covered by " + cover + " at its click point",
                                    "Close or move the covering element first (dismiss the dialog or banner), or scroll; "
                                    "take a new snapshot to see the page.",
                                    json{{"ref", h.ref}, {"covered_by", cover}, {"x", pt->first}, {"y", pt->second}});
                }
            }
        }
        auto off = frame_offset(h.tab, h.session);
        if (!off) return fail(off.error());
        return std::pair{pt->first + off->first, pt->second + off->second};
    }

    // Input reaches only the tab in front: bring `t` there unless it is known to be.
    void to_front(const tab_ptr& t) {
        {
            std::lock_guard lock(eng_->mu);
            if (eng_->front_tab == t->id) return;
        }
        if (call(t->session, "Page.bringToFront", json::object(), 3000ms)) {
            std::lock_guard lock(eng_->mu);
            eng_->front_tab = t->id;
        }
    }

    static json mouse_params(const char* type, double x, double y, const char* button, int count, int buttons, int modifiers) {
        return json{{"type", type}, {"x", x}, {"y", y}, {"button", button}, {"clickCount", count},
                    {"buttons", buttons}, {"modifiers", modifiers}};
    }

    result<void> mouse(const tab_ptr& t, const char* type, double x, double y, const char* button, int count, int buttons,
                       int modifiers = 0) {
        to_front(t);
        auto r = call(t->session, "Input.dispatchMouseEvent", mouse_params(type, x, y, button, count, buttons, modifiers));
        if (!r) return fail(r.error());
        return {};
    }

    // The element operations behind type/select/set_checked and fill() (no settle, no report).
    result<void> type_ref(std::string_view ref, const std::string& text, const type_options& o) {
        auto h = resolve(ref);
        if (!h) return fail(h.error());
        auto info = element_info(*h);
        if (!info) return fail(info.error());
        const std::string tag = detail::jstr(*info, "tag"), kind = detail::jstr(*info, "type");
        if (detail::jbool(*info, "disabled"))
            return fail(errc::tool_failed, "ref " + std::string(ref) + " is disabled", "Enable it first or pick another field.",
                        json{{"disabled", true}});
        const bool value_kind = tag == "input" && (kind == "date" || kind == "time" || kind == "datetime-local" ||
                                                   kind == "month" || kind == "week" || kind == "color" || kind == "range");
        (void)call(h->session, "DOM.scrollIntoViewIfNeeded", json{{"backendNodeId", h->backend}});
        if (value_kind) {
            auto r = call_on(*h, detail::kSetValueScript, json::array({json{{"value", std::string(text)}}}));
            if (!r) return fail(r.error());
        } else {
            if (tag != "input" && tag != "textarea" && !detail::jbool(*info, "editable"))
                return fail(errc::args_invalid, "ref " + std::string(ref) + " (<" + tag + ">) is not a text field",
                            "Type into a textbox, searchbox or editable element; use select for a combobox.");
            if (auto f = call(h->session, "DOM.focus", json{{"backendNodeId", h->backend}}); !f) {
                if (auto c = click_ref(ref, {}); !c) return c;
            }
            if (o.replace) (void)call_on(*h, detail::kSelectAllScript, json::array());
            if (text.empty() && o.replace) {
                if (auto k = press_keys(h->tab, "Delete"); !k) return k;
            } else {
                to_front(h->tab);
                auto r = call(h->tab->session, "Input.insertText", json{{"text", std::string(text)}});
                if (!r) return fail(r.error());
            }
        }
        if (o.submit) return press_keys(h->tab, "Enter");
        return {};
    }

    result<void> select_ref(std::string_view ref, const std::vector<std::string>& values) {
        auto h = resolve(ref);
        if (!h) return fail(h.error());
        json wanted = json::array();
        for (const auto& v : values) wanted.push_back(v);
        auto r = call_on(*h, detail::kSelectScript, json::array({json{{"value", wanted}}}));
        if (!r) return fail(r.error());
        const std::string err = detail::jstr(*r, "error");
        if (err == "not_select")
            return fail(errc::args_invalid, "ref " + std::string(ref) + " is not a <select> (it is <" + detail::jstr(*r, "tag") + ">)",
                        "For a custom dropdown, click it and then click the option's ref.");
        if (err == "missing")
            return fail(errc::args_invalid, "no option " + (*r)["missing"].dump() + " in ref " + std::string(ref),
                        "Available options: " + (*r)["available"].dump(), *r);
        if (err == "single")
            return fail(errc::args_invalid, "ref " + std::string(ref) + " accepts only one option", "Pass one value.", *r);
        if (err == "disabled")
            return fail(errc::tool_failed, "the select or an option is disabled", "Pick an enabled option.",
                        json{{"disabled", true}, {"options", (*r)["disabled"]}});
        return {};
    }

    result<void> check_ref(std::string_view ref, bool checked) {
        auto h = resolve(ref);
        if (!h) return fail(h.error());
        auto info = element_info(*h);
        if (!info) return fail(info.error());
        if (!detail::jbool(*info, "checkable"))
            return fail(errc::args_invalid, "ref " + std::string(ref) + " is not a checkbox or radio button",
                        "Use click for other elements.");
        if (detail::jbool(*info, "checked") == checked) return {};
        if (!checked && detail::jstr(*info, "type") == "radio")
            return fail(errc::args_invalid, "a radio button cannot be unchecked directly",
                        "Check another radio button of the same group.");
        if (auto c = click_ref(ref, {}); !c) return c;
        auto after = element_info(*h);
        if (!after) return fail(after.error());
        if (detail::jbool(*after, "checked") != checked)
            return fail(errc::tool_failed, "clicking ref " + std::string(ref) + " did not change its checked state",
                        "The page may prevent it; take a snapshot to see why.");
        return {};
    }

    result<void> click_ref(std::string_view ref, const click_options& o) {
        auto h = resolve(ref);
        if (!h) return fail(h.error());
        int modifiers = 0;
        if (!o.modifiers.empty()) {
            auto chord = parse_key_chord(o.modifiers + "+Shift");  // a trailing key to parse modifiers only
            if (!chord) return fail(chord.error());
            modifiers = chord->modifiers | (o.modifiers.find("Shift") != std::string::npos ? 8 : 0);
            if (o.modifiers.find("Shift") == std::string::npos) modifiers &= ~8;
        }
        auto p = visible_point(*h, true);
        if (!p) return fail(p.error());
        const char* button = o.button == "right" ? "right" : o.button == "middle" ? "middle" : "left";
        const int mask = o.button == "right" ? 2 : o.button == "middle" ? 4 : 1;
        // The move, presses and releases go out together and are awaited together: Chromium keeps
        // their order (a press flushes the frame-aligned move before it is dispatched), and the
        // move's answer alone would wait for the next frame.
        to_front(h->tab);
        std::vector<std::future<result<json>>> sent;
        auto send = [&](const char* type, const char* b, int count, int buttons) {
            sent.push_back(eng_->conn.call_async("Input.dispatchMouseEvent",
                                                 mouse_params(type, p->first, p->second, b, count, buttons, modifiers),
                                                 h->tab->session));
        };
        send("mouseMoved", "none", 0, 0);
        for (int i = 1; i <= std::max(1, o.click_count); ++i) {
            send("mousePressed", button, i, mask);
            send("mouseReleased", button, i, 0);
        }
        result<void> out;
        for (auto& f : sent) {
            auto r = f.get();
            if (!r && out) out = fail(eng_->conn.is_open() ? r.error() : crashed_error(r.error()));
        }
        return out;
    }

    result<void> press_keys(const tab_ptr& t, std::string_view chord_text) {
        auto chord = parse_key_chord(chord_text);
        if (!chord) return fail(chord.error());
        to_front(t);
        int mods = 0;
        auto key_event = [&](const char* type, const key_def& k, int m) -> result<void> {
            json p = {{"type", type}, {"key", k.key}, {"code", k.code}, {"windowsVirtualKeyCode", k.key_code},
                      {"nativeVirtualKeyCode", k.key_code}, {"modifiers", m}};
            if (std::string_view(type) == "keyDown" && !k.text.empty()) {
                p["text"] = k.text;
                p["unmodifiedText"] = k.text;
            }
            auto r = call(t->session, "Input.dispatchKeyEvent", std::move(p));
            if (!r) return fail(r.error());
            return {};
        };
        static constexpr int bits[] = {1, 2, 4, 8};
        std::size_t bi = 0;
        for (const auto& mk : chord->modifier_keys) {
            while (bi < 4 && (chord->modifiers & bits[bi]) == 0) ++bi;
            if (bi < 4) mods |= bits[bi++];
            if (auto r = key_event("rawKeyDown", mk, mods); !r) return r;
        }
        if (auto r = key_event(chord->key.text.empty() ? "rawKeyDown" : "keyDown", chord->key, chord->modifiers); !r) return r;
        if (auto r = key_event("keyUp", chord->key, chord->modifiers); !r) return r;
        for (auto it = chord->modifier_keys.rbegin(); it != chord->modifier_keys.rend(); ++it)
            if (auto r = key_event("keyUp", *it, 0); !r) return r;
        return {};
    }

    // ---- settling -------------------------------------------------------------------------------

    enum class quiet_result { quiet, busy, navigated, failed };

    quiet_result dom_quiet(const tab_ptr& t) {
        const auto q = opt_.dom_quiet.count();
        const auto mx = opt_.dom_quiet_timeout.count();
        auto r = call(t->session, "Runtime.evaluate",
                      json{{"expression", "(" + std::string(detail::kQuietScript) + ")(" + std::to_string(q) + "," +
                                              std::to_string(mx) + ")"},
                           {"awaitPromise", true}, {"returnByValue", true}},
                      opt_.dom_quiet_timeout + 2000ms);
        if (!r) {
            if (!eng_->conn.is_open()) return quiet_result::failed;
            return quiet_result::navigated;  // context destroyed by a navigation, most likely
        }
        if (r->contains("exceptionDetails")) return quiet_result::navigated;
        return detail::jstr(detail::jobj(*r, "result"), "value") == "busy" ? quiet_result::busy : quiet_result::quiet;
    }

    std::string main_loader(const tab_ptr& t) {  // engine mutex held
        auto f = t->frames.find(t->main_frame);
        return f == t->frames.end() ? std::string() : f->second.loader;
    }

    // Settle after an action that started at event sequence `mark`: a navigation it triggered has
    // committed and loaded, the requests it started are done, and the DOM has been quiet.
    void settle(const tab_ptr& t, std::uint64_t mark, std::vector<std::string>& notes) {
        wait_timer timer(wait_us_);
        constexpr int rounds = 4;
        int nav_rounds = 0;
        for (int round = 0; round < rounds; ++round) {
            auto q = dom_quiet(t);
            if (q == quiet_result::failed) return;
            // the events Chromium sent before the answer (a navigation starting or finishing,
            // requests) may not have been dispatched yet: judge the state only once they have
            (void)eng_->conn.sync_events();
            bool nav_pending = false;
            {
                std::lock_guard lock(eng_->mu);
                nav_pending = t->main_loading || (t->nav_requested > mark && t->nav_requested > t->nav_stopped) ||
                              (t->nav_committed > mark && t->lifecycle[main_loader(t)].count("load") == 0);
            }
            if (nav_pending || q == quiet_result::navigated) {
                std::uint64_t wait_mark = 0;
                {
                    std::lock_guard lock(eng_->mu);
                    wait_mark = eng_->seq;
                }
                const bool loaded = wait_until(
                    [&] {
                        if (t->closed || t->crashed) return true;
                        // a document finished loading meanwhile: progress (the next round looks again), so a
                        // page that navigates in a loop uses up the rounds instead of the timeout
                        if (t->main_loaded > wait_mark) return true;
                        const bool req_open = t->nav_requested > mark && t->nav_requested > t->nav_stopped &&
                                              t->nav_requested > t->nav_started;
                        if (req_open) return false;
                        if (t->main_loading) return false;
                        return t->nav_committed <= mark || t->lifecycle[main_loader(t)].count("load") != 0 ||
                               t->nav_stopped > t->nav_committed;
                    },
                    opt_.navigation_timeout);
                if (!loaded && eng_->conn.is_open())
                    notes.push_back("the page was still loading after " + std::to_string(opt_.navigation_timeout.count()) + " ms");
                if (!eng_->conn.is_open()) return;
                if (++nav_rounds == rounds) {  // every round saw another navigation: a page that navigates in a loop
                    notes.push_back("the page kept navigating (a new document in each of " + std::to_string(rounds) +
                                    " settle rounds); stopped waiting for it");
                    std::lock_guard lock(eng_->mu);
                    t->looping = true;
                }
                continue;  // check the new document is quiet
            }
            bool busy_net = false;
            {
                std::lock_guard lock(eng_->mu);
                for (const auto& [k, s] : t->inflight) busy_net = busy_net || s > mark;
            }
            if (busy_net) {
                const bool idle = wait_until(
                    [&] {
                        for (const auto& [k, s] : t->inflight)
                            if (s > mark) return false;
                        return true;
                    },
                    opt_.network_idle_timeout);
                if (!idle) {
                    if (eng_->conn.is_open())
                        notes.push_back("some requests the action started were still running after " +
                                        std::to_string(opt_.network_idle_timeout.count()) + " ms");
                    return;
                }
                continue;  // responses may change the DOM: check it is quiet again
            }
            if (q == quiet_result::busy)
                notes.push_back("the page kept changing for " + std::to_string(opt_.dom_quiet_timeout.count()) + " ms");
            return;
        }
    }

    // Run an action on the current tab and report what changed.
    template <class F>
    result<action_result> act(std::string what, F&& f, bool expect_navigation = false) {
        std::lock_guard op(op_mu_);
        auto e = ensure();
        if (!e) return fail(e.error());
        auto ct = current_tab();
        if (!ct) return fail(ct.error());
        return finish_action(act_locked(std::move(what), *ct, std::forward<F>(f), expect_navigation));
    }

    error policy_error(const policy_violation& v, std::string_view what) const {
        return error(errc::policy_blocked, std::string(what) + " to " + v.url + " blocked by policy rule " + v.rule,
                     "The browser's policy does not allow this URL; pick another page or ask the host to change the policy.",
                     json{{"rule", v.rule}, {"url", v.url}});
    }

    /// The URL the model was last shown for a tab: the next action's URLs are named against it.
    void set_reported_url(const tab_ptr& t, const std::string& url) {
        std::lock_guard lock(eng_->mu);
        t->reported_url = url;
    }

    result<action_result> finish_action(result<action_result> r) const {
        const auto& P = opt_.policy;
        if (!r) return fail(P.redact(r.error()));
        auto& a = *r;
        a.url = P.redact(std::move(a.url));
        a.from_url = P.redact(std::move(a.from_url));
        a.requested_url = P.redact(std::move(a.requested_url));
        a.form_get_url = P.redact(std::move(a.form_get_url));
        a.title = P.redact(std::move(a.title));
        a.changes = P.redact(std::move(a.changes));
        a.snapshot = P.redact(std::move(a.snapshot));
        for (auto& n : a.notes) n = P.redact(std::move(n));
        for (auto& d : a.dialogs) {
            d.message = P.redact(std::move(d.message));
            d.prompt_text = P.redact(std::move(d.prompt_text));
            d.default_prompt = P.redact(std::move(d.default_prompt));
            d.url = P.redact(std::move(d.url));
        }
        for (auto& t : a.opened_tabs) {
            t.url = P.redact(std::move(t.url));
            t.title = P.redact(std::move(t.title));
        }
        for (auto& b : a.blocked) b.url = P.redact(std::move(b.url));
        for (auto& d : a.downloads) d.url = P.redact(std::move(d.url));
        a.boundary = nonce_;
        return r;
    }

    result<page_snapshot> finish_snapshot(result<page_snapshot> r) const {
        const auto& P = opt_.policy;
        if (!r) return fail(P.redact(r.error()));
        r->url = P.redact(std::move(r->url));
        r->title = P.redact(std::move(r->title));
        r->snap.text = P.redact(std::move(r->snap.text));
        r->snap.full_text = P.redact(std::move(r->snap.full_text));
        for (auto& n : r->notes) n = P.redact(std::move(n));
        r->boundary = nonce_;
        return r;
    }

    template <class F>
    result<action_result> act_locked(std::string what, tab_ptr t, F&& f, bool expect_navigation) {
        const auto t0 = clock::now();
        if (!t->has_last && !expect_navigation) {
            auto base = take_snapshot(t, snapshot_options{opt_.snapshot_budget, "", false, false, 160, 12});
            if (!base && base.error().is(errc::browser_crashed)) return fail(base.error());
        }
        std::uint64_t mark = 0;
        std::string loader_before;
        std::set<std::string> tabs_before;
        std::string out_from;
        {
            std::lock_guard lock(eng_->mu);
            mark = eng_->seq;
            loader_before = main_loader(t);
            out_from = t->reported_url.empty() ? t->url : t->reported_url;
            t->dialogs.clear();
            t->opened.clear();
        }
        action_result out;
        out.action = std::move(what);
        out.from_url = std::move(out_from);
        take_notes(out);
        auto r = f(t);
        if (!r) {
            if (!eng_->conn.is_open() && !r.error().is(errc::browser_crashed)) return fail(crashed_error(r.error()));
            return fail(r.error());
        }
        settle(t, mark, out.notes);
        if (!eng_->conn.is_open()) {
            auto why = eng_->conn.failure();
            return fail(crashed_error(why.value_or(error(errc::browser_crashed, "the connection ended"))));
        }
        std::vector<std::string> opened;
        {
            std::unique_lock lock(eng_->mu);
            // popups the action opened are adopted off the dispatcher: report them once attached
            eng_->cv.wait_for(lock, opt_.call_timeout, [&] { return eng_->adopting.empty(); });
            out.dialogs = std::exchange(t->dialogs, {});
            out.dialogs_dropped = std::exchange(t->dialogs_dropped, 0);
            opened = std::exchange(t->opened, {});
            for (const auto& [seq, b] : eng_->blocked)
                if (seq > mark) out.blocked.push_back(b);
            for (const auto& [seq, d] : eng_->downloads)
                if (seq > mark) out.downloads.push_back(d);
            const std::string now_loader = main_loader(t);
            out.navigated = t->nav_committed > mark && now_loader != loader_before;
            if (out.navigated)
                if (auto s = t->doc_status.find(now_loader); s != t->doc_status.end()) out.http_status = s->second;
            if (out.navigated && t->nav_requested > mark) out.form_get_url = t->form_get_url;
        }
        // A popup comes to the front; the current tab stays the opener, and input to a tab in
        // the background is not processed: bring the current tab back.
        if (!opened.empty()) to_front(t);
        for (const auto& id : opened) {
            tab_info ti;
            ti.id = id;
            auto nt = find_tab(id);
            if (nt) fill_url_title(*nt, ti.url, ti.title);
            // A popup whose URL the policy refuses is closed (its requests were blocked already).
            if (nt) {
                std::string pending;
                {
                    std::lock_guard lock(eng_->mu);
                    for (const auto& b : out.blocked)
                        if (b.tab == id && b.resource_type.rfind("Document", 0) == 0) pending = b.url;
                }
                auto v = opt_.policy.check(ti.url);
                if (v || !pending.empty()) {
                    (void)call("", "Target.closeTarget", json{{"targetId", (*nt)->target_id}});
                    forget_tab(*nt);
                    {
                        std::lock_guard lock(eng_->mu);
                        if (eng_->current.empty() || eng_->tabs.count(eng_->current) == 0) eng_->current = t->id;
                    }
                    out.notes.push_back("a popup to " + (v ? ti.url : pending) + " was blocked by policy" +
                                        (v ? " rule " + v->rule : std::string()) + " and closed");
                    continue;
                }
            }
            out.opened_tabs.push_back(std::move(ti));
        }
        if (t->closed) {
            out.changes = "the tab closed";
            out.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0);
            return out;
        }
        std::vector<snapshot_line> before;
        {
            std::lock_guard lock(eng_->mu);
            before = t->last_lines;
        }
        auto snap = take_snapshot(t, snapshot_options{opt_.snapshot_budget, "", false, false, 160, 12});
        if (!snap) {
            if (snap.error().is(errc::browser_crashed)) return fail(snap.error());
            out.notes.push_back("no snapshot after the action: " + snap.error().message);
            fill_url_title(t, out.url, out.title);
        } else {
            out.url = snap->url;
            out.title = snap->title;
            if (out.navigated) {
                if (opt_.snapshot_after_navigation) out.snapshot = snap->snap.text;
            } else {
                out.changes = format_delta(diff_snapshots(before, snap->snap.lines), opt_.delta_budget, opt_.tokens);
            }
        }
        set_reported_url(t, out.url);  // the result names it (or it is where the model already was)
        out.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0);
        return out;
    }

    result<action_result> navigate_locked(const std::string& url) {
        auto ct = current_tab(/*proceed=*/true);
        if (!ct) return fail(ct.error());
        std::string loader;
        auto go = [&](const tab_ptr& t) -> result<void> {
            bool looping = false;
            {
                std::lock_guard lock(eng_->mu);
                looping = std::exchange(t->looping, false);
            }
            // A page navigating itself in a loop would cancel this navigation with its next one:
            // stop it on about:blank first (it commits at once and runs no script).
            if (looping) (void)call(t->session, "Page.navigate", json{{"url", "about:blank"}}, opt_.navigation_timeout);
            auto n = call(t->session, "Page.navigate", json{{"url", url}}, opt_.navigation_timeout);
            if (!n) return fail(n.error());
            const std::string err = detail::jstr(*n, "errorText");
            if (err.find("BLOCKED_BY_CLIENT") != std::string::npos) {
                std::optional<blocked_request> b;
                {
                    std::lock_guard lock(eng_->mu);
                    for (auto it = eng_->blocked.rbegin(); it != eng_->blocked.rend(); ++it)
                        if (it->second.resource_type.rfind("Document", 0) == 0) {
                            b = it->second;
                            break;
                        }
                }
                if (b)
                    return fail(policy_error(policy_violation{b->rule, b->url},
                                             b->url == url ? std::string("navigation") : "navigation to " + url + " redirected; the request"));
            }
            if (!err.empty())
                return fail(errc::navigation_failed, "navigation to " + url + " failed: " + err,
                            "Check the URL and that the server is reachable.", json{{"url", url}, {"error", err}});
            loader = detail::jstr(*n, "loaderId");
            if (!loader.empty()) {
                wait_timer timer(wait_us_);
                const bool loaded = wait_until([&] { return t->lifecycle[loader].count("load") != 0 || t->closed || t->crashed; },
                                               opt_.navigation_timeout);
                if (!loaded && !eng_->conn.is_open()) return fail(crashed_error(error(errc::browser_crashed, "the browser died")));
            }
            return {};
        };
        auto r = act_locked("navigate to " + url, *ct, go, true);
        if (r && !loader.empty()) {
            std::lock_guard lock(eng_->mu);
            if (auto s = (*ct)->doc_status.find(loader); s != (*ct)->doc_status.end()) r->http_status = s->second;
            r->navigated = true;
        }
        if (r) r->requested_url = url;
        if (r && r->snapshot.empty() && r->navigated && opt_.snapshot_after_navigation) {
            auto s = take_snapshot(*ct, snapshot_options{opt_.snapshot_budget, "", false, false, 160, 12});
            if (s) r->snapshot = s->snap.text;
        }
        return r;
    }

    result<action_result> history(int delta) {
        return act(delta < 0 ? "back" : "forward", [&](const tab_ptr& t) -> result<void> {
            auto h = call(t->session, "Page.getNavigationHistory");
            if (!h) return fail(h.error());
            const auto idx = detail::jint(*h, "currentIndex") + delta;
            const json& entries = h->contains("entries") ? (*h)["entries"] : json::array();
            if (idx < 0 || static_cast<std::size_t>(idx) >= entries.size())
                return fail(errc::navigation_failed, std::string("there is no page to go ") + (delta < 0 ? "back" : "forward") + " to",
                            "Navigate to a URL instead.");
            std::uint64_t m = 0;
            {
                std::lock_guard lock(eng_->mu);
                m = eng_->seq;
            }
            auto r = call(t->session, "Page.navigateToHistoryEntry",
                          json{{"entryId", detail::jint(entries[static_cast<std::size_t>(idx)], "id")}});
            if (!r) return fail(r.error());
            // The answer comes when the navigation is asked for, not when it commits: on a busy
            // machine settle could find the old document quiet and return before the commit, and
            // the result then did not report the navigation while its changes showed the new
            // page (1 back in 564 under bench/soak). Wait for the commit (or the end) first.
            (void)wait_until([&] { return t->closed || t->crashed || t->nav_committed > m || t->same_doc > m || t->nav_stopped > m; },
                             opt_.navigation_timeout);
            return {};
        }, true);
    }

    result<void> wait_condition(const tab_ptr& t, const wait_options& o) {
        wait_timer timer(wait_us_);
        const auto deadline = clock::now() + o.timeout;
        auto remaining = [&] {
            return std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count());
        };
        if (!o.text.empty() || !o.text_gone.empty()) {
            const bool gone = o.text.empty();
            const std::string needle = gone ? o.text_gone : o.text;
            for (int attempt = 0; attempt < 50; ++attempt) {
                const auto ms = remaining();
                auto r = call(t->session, "Runtime.evaluate",
                              json{{"expression", "(" + std::string(detail::kWaitTextScript) + ")(" + json(needle).dump() + "," +
                                                      (gone ? "true" : "false") + "," + std::to_string(ms) + ")"},
                                   {"awaitPromise", true}, {"returnByValue", true}},
                              std::chrono::milliseconds(ms + 2000));
                if (r && !r->contains("exceptionDetails")) {
                    if (detail::jobj(*r, "result").value("value", json(false)) == json(true)) return {};
                    break;  // timed out in the page
                }
                if (r && r->contains("exceptionDetails") && eng_->conn.is_open()) {
                    // the document was replaced during the wait: wait for the next one to load
                }
                if (!r && r.error().is(errc::browser_crashed)) return fail(r.error());
                if (remaining() <= 0) break;
                std::uint64_t mark = 0;
                {
                    std::lock_guard lock(eng_->mu);
                    mark = t->nav_committed;
                }
                wait_until([&] { return !t->main_loading || t->nav_committed > mark || t->closed; },
                           std::chrono::milliseconds(remaining()));
                if (!eng_->conn.is_open()) return fail(crashed_error(error(errc::browser_crashed, "the browser died")));
            }
            return fail(errc::timeout,
                        gone ? "\"" + needle + "\" was still on the page after " + std::to_string(o.timeout.count()) + " ms"
                             : "\"" + needle + "\" did not appear within " + std::to_string(o.timeout.count()) + " ms",
                        "Take a snapshot to see the page; the action may have failed.");
        }
        if (!o.ref.empty()) {
            static const std::set<std::string> states{"visible", "hidden", "enabled", "disabled", "checked", "unchecked", "gone"};
            if (states.count(o.state) == 0)
                return fail(errc::args_invalid, "unknown state \"" + o.state + "\"",
                            "Use visible, hidden, enabled, disabled, checked, unchecked or gone.");
            auto h = resolve(o.ref);
            if (!h) {
                if (h.error().is(errc::ref_stale) && (o.state == "gone" || o.state == "hidden")) return {};
                return fail(h.error());
            }
            const auto ms = remaining();
            auto r = call_on(*h, detail::kWaitStateScript, json::array({json{{"value", o.state}}, json{{"value", ms}}}), true,
                             std::chrono::milliseconds(ms + 2000));
            if (!r) {
                if (r.error().is(errc::browser_crashed)) return fail(r.error());
                if ((o.state == "gone" || o.state == "hidden") && !eng_->conn.is_open()) return fail(r.error());
                if (o.state == "gone" || o.state == "hidden") return {};  // its document went away
                return fail(r.error());
            }
            if (*r == json(true)) {
                if (o.state == "gone") refs_.retire(o.ref);
                return {};
            }
            return fail(errc::timeout, "ref " + o.ref + " was not " + o.state + " within " + std::to_string(o.timeout.count()) + " ms",
                        "Take a snapshot to see its state.");
        }
        return fail(errc::args_invalid, "wait_for needs text, text_gone or ref", "Pass what to wait for.");
    }

    // Counters for per-call metrics: every CDP command sent (over every connection, relaunches
    // included) and the time spent waiting for the page to settle, load or meet a wait_for.
    std::shared_ptr<std::atomic<std::uint64_t>> sent_ = std::make_shared<std::atomic<std::uint64_t>>(0);
    std::atomic<std::int64_t> wait_us_{0};

    struct wait_timer {  // adds its lifetime to wait_us_
        std::atomic<std::int64_t>& total;
        clock::time_point t0 = clock::now();
        explicit wait_timer(std::atomic<std::int64_t>& t) : total(t) {}
        wait_timer(const wait_timer&) = delete;
        wait_timer& operator=(const wait_timer&) = delete;
        ~wait_timer() {
            total.fetch_add(std::chrono::duration_cast<std::chrono::microseconds>(clock::now() - t0).count(),
                            std::memory_order_relaxed);
        }
    };

    browser_options opt_;
    mutable std::mutex op_mu_;  // one operation at a time
    std::mutex policy_mu_;      // opt_.dialogs (read by the dispatcher)
    ref_registry refs_;
    std::unique_ptr<engine> eng_;
    std::vector<std::string> restart_notes_;
    std::string nonce_;
    /// Private directory (0700) inside downloads_dir that Chromium writes downloads into; a
    /// finished download is moved out of it, as a 0600 file. Set on the first start, removed
    /// with the browser object.
    std::string download_staging_;
    /// Downloads started by this browser object (across restarts), against max_downloads;
    /// written by the event dispatcher under the engine mutex.
    std::size_t downloads_started_ = 0;
    clock::time_point recording_started_{};
};

}  // namespace agentkit::browser
