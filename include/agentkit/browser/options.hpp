// agentkit/browser/options.hpp — how a browser is launched and behaves (browser_options) and the
// options of its single operations (clicks, typing, screenshots, recordings, extraction, waits).
#pragma once

#include <agentkit/cdp/webdriver.hpp>
#include <agentkit/browser/storage.hpp>
#include <agentkit/browser/permissions.hpp>
#include <agentkit/browser/policy.hpp>
#include <agentkit/browser/snapshot_types.hpp>
#include <agentkit/cdp/launch.hpp>
#include <agentkit/cdp/transport.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/observer.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/tokens.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// How a JavaScript dialog is answered: accepted (OK) or dismissed (Cancel).
enum class dialog_action { accept, dismiss };

/// How JavaScript dialogs are answered (left open only with `hold`).
struct dialog_policy {
    dialog_action alert = dialog_action::accept;  ///< window.alert()
    dialog_action confirm = dialog_action::accept;  ///< window.confirm()
    dialog_action prompt = dialog_action::accept;  ///< window.prompt()
    dialog_action beforeunload = dialog_action::accept;  ///< the "leave this page?" dialog
    std::string prompt_text;  ///< typed into prompts that are accepted (empty: the prompt's default)
    /// Leave each dialog open until browser::answer_dialog() (Playwright MCP's modal state)
    /// instead of answering it as above. The page's scripts wait meanwhile: a CDP call that would
    /// wait for them answers at once with errc::tool_failed (details.dialog_open), an action
    /// ends at the dialog and its result lists it as open.
    bool hold = false;
};

/// Viewport and device emulation.
struct viewport_size {
    int width = 1280;        ///< CSS px
    int height = 720;        ///< CSS px
    double device_scale_factor = 1;  ///< device pixels per CSS px
    bool mobile = false;     ///< emulate a mobile device (mobile layout, meta viewport)
    bool touch = false;      ///< emulate a touch screen
    std::string user_agent;  ///< empty: unchanged
};

/// CSS media features a page sees (empty: the browser's own); Playwright's emulateMedia.
struct media_emulation {
    std::string color_scheme;    ///< prefers-color-scheme: light, dark
    std::string reduced_motion;  ///< prefers-reduced-motion: reduce, no-preference
    std::string forced_colors;   ///< forced-colors: active, none
    std::string contrast;        ///< prefers-contrast: more, no-preference
    std::string media;           ///< the CSS media type: screen, print
    /// Whether no feature is set.
    [[nodiscard]] bool empty() const noexcept {
        return color_scheme.empty() && reduced_motion.empty() && forced_colors.empty() && contrast.empty() && media.empty();
    }
};

/// What every page of the browser is told about its user beyond the viewport (Playwright's
/// context options): language, time zone, media features; and whether the page's own script
/// and Content-Security-Policy hold.
struct page_emulation {
    std::string locale;       ///< "fr-FR": navigator.language, Intl, Accept-Language ("": the browser's)
    std::string timezone_id;  ///< "Europe/Paris" ("": the machine's)
    media_emulation media;    ///< CSS media features
    bool javascript_enabled = true;  ///< false: the pages' scripts do not run
    bool bypass_csp = false;          ///< the pages' Content-Security-Policy is not enforced
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

/// How a browser is launched or reached, what it enforces, and its bounds.
struct browser_options {
    /// How to launch a local browser (ignored when cdp_endpoint is set; with webdriver, its
    /// headless setting, extra args and executable go to the WebDriver session).
    cdp::launch_options launch;
    /// Connect to an existing browser instead of launching one: ws://... or http://host:port.
    std::string cdp_endpoint;
    /// A browser from a W3C WebDriver endpoint (Selenium Grid 4, Selenoid, chromedriver): when
    /// webdriver.url is set, each (re)start creates a session there (`launch`'s headless setting
    /// and extra args become goog:chromeOptions), connects to its CDP endpoint (se:cdp, else
    /// debuggerAddress), and the session is deleted when the browser closes or restarts. The
    /// browser gets a browser context of its own there, as with cdp_endpoint.
    cdp::webdriver_options webdriver;
    /// HTTP headers (name, value) sent with cdp_endpoint's discovery request (/json/version)
    /// and its WebSocket handshake: e.g. the token of a hosted browser ("Authorization",
    /// "Bearer ..."). Never written to logs or errors. Names are HTTP tokens and values have no
    /// line breaks (cdp::valid_header() checks both; the start fails otherwise).
    std::vector<std::pair<std::string, std::string>> cdp_headers;
    /// With cdp_endpoint: drive the browser's default context (its cookies, logins and open
    /// tabs; the first open tab becomes the current one, and no tab is closed when this object
    /// closes) instead of a browser context of its own. Requests there still pass the origin
    /// policy (interception) and the page guard, but the WebSocket gate needs a context of its
    /// own: WebSockets are then guarded by the page script alone, and websockets = proxy is
    /// refused at start.
    bool use_default_context = false;
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
    /// Permissions granted to every page of the browser's context at each start, by the names
    /// of browser/permissions.hpp ("clipboard-read", "geolocation", ...); none by default (pages
    /// then get the browser's own answer: a prompt nobody sees, i.e. denied). An unknown name
    /// fails the start (args_invalid).
    std::vector<std::string> permissions;
    /// Allow evaluate(); off by default (errc::policy_blocked). policy.allow_evaluate also allows it.
    bool allow_evaluate = false;
    /// Origins, file://, downloads, secrets, content boundaries (enforced in the browser).
    browser_policy policy;
    /// How the origin policy reaches WebSockets (request interception never sees them).
    websocket_enforcement websockets = websocket_enforcement::automatic;
    /// Screencast frames kept by one recording (oldest dropped beyond).
    std::size_t recording_max_frames = 300;
    dialog_policy dialogs;  ///< how JavaScript dialogs are answered
    viewport_size viewport;  ///< the viewport of every tab
    page_emulation emulation;  ///< language, time zone, media features, script and CSP of every page
    /// Cookies and localStorage restored into every browser this object starts (browser::
    /// restore_storage; --storage-state). What the policy refuses is left out, said in a note.
    std::optional<storage_state> initial_storage;
    /// A storage state file read and restored at every browser start, before initial_storage
    /// is considered (--storage-state): a file written later is used by the next start; one
    /// that cannot be read makes the start fail, saying why.
    std::string initial_storage_file;
    /// Scripts run in every page's main world before its own (Page.addScriptToEvaluateOnNewDocument;
    /// --init-script): the host's, not a model's, so allow_evaluate does not govern them.
    std::vector<std::string> init_scripts;
    std::chrono::milliseconds call_timeout{15000};        ///< one CDP call
    /// How long an action waits for its element to be ready (a read-only field to take text);
    /// 0: call_timeout. (agentkit-browser-mcp's Playwright layout: 5 s unless --timeout-action.)
    std::chrono::milliseconds element_wait{0};
    std::chrono::milliseconds navigation_timeout{30000};  ///< a navigation to commit and load
    /// After a new document's DOM is ready (DOMContentLoaded), how long an action still waits
    /// for its load event; an image, a frame or a request that never ends holds that event back,
    /// and the page is then shown as it is, with a note. 0: up to navigation_timeout.
    std::chrono::milliseconds load_event_timeout{5000};
    std::chrono::milliseconds network_idle_timeout{3000}; ///< requests an action started
    std::chrono::milliseconds dom_quiet{30};              ///< DOM quiet window after an action (about two frames)
    std::chrono::milliseconds dom_quiet_timeout{1500};    ///< bound for the DOM to become quiet
    /// An action is reported no sooner than this after its input (Playwright MCP's
    /// --timeout-settle; its layout waits 500 ms): a timer the action set off (an alert 100 ms
    /// later) is seen in its result. A dialog held open (dialog_policy::hold) ends the wait.
    /// 0: only the events above.
    std::chrono::milliseconds min_settle{0};
    std::size_t snapshot_budget = 6000;  ///< tokens of a snapshot
    /// A page with at least this many elements is read in part for a snapshot, a navigation's
    /// or a tab's view and an action's change report: its first part in document order, grown
    /// until the budget cuts a control in it, so the refs shown are those of a whole read
    /// (browser/detail/page_part.hpp). A snapshot of a subtree or of the viewport reads the
    /// page whole. 0: every page whole.
    std::size_t large_page_elements = 3000;
    /// A navigate, or an action that loads a new document, shows the new page's snapshot in its
    /// result (false: its title only; snapshot() shows the page). Playwright MCP's
    /// --snapshot-mode none.
    bool snapshot_after_navigation = true;
    /// A new page an action led to (a click, a submit; not a navigate to a URL, which is shown
    /// whole) shows a banner, menu, side bar or footer exactly as the last page shown in the tab
    /// had it (same origin) as one line, "banner: as on the previous page (15 refs)"
    /// (browser/detail/repeated_regions.hpp); browser_snapshot shows the whole page. False: each
    /// new page whole.
    bool collapse_repeated_regions = true;
    /// Element refs are Playwright MCP's aria refs (e1, f1e2) of the last aria_snapshot(), as
    /// Playwright MCP's own tools take them (its compatible output mode); agentkit's own refs
    /// are not taken then.
    bool aria_refs = false;
    std::size_t delta_budget = 600;      ///< tokens of an action's change report
    std::size_t console_capacity = 200;  ///< console messages kept per tab (newest)
    /// Console messages over 256 KB (cdp::connection_options::max_log_event_bytes) a tab may log
    /// in one action; beyond it the tab's console events are paused until the next action (the
    /// browser stops serialising megabytes per message), and the result says so.
    std::size_t max_oversized_console = 8;
    std::size_t network_capacity = 300;  ///< network requests kept per tab (newest)
    token_counter tokens;                ///< counts snapshot and change-report tokens
    /// Told of every CDP call the engine sends (method, session id), on the sending thread. For
    /// tracing and fault tests; it must not call back into the browser.
    std::function<void(std::string_view method, std::string_view session_id)> on_cdp_call;
    /// Told of what the browser does (core/observer.hpp): each CDP command answered
    /// (cdp_command: the method, its CDP session in `detail`, ms, the failure) and each request
    /// the origin policy blocked (request_blocked: the URL, the rule in `detail`, data.type and
    /// data.tab), and the connection ending by itself (browser_disconnected: the browser exited
    /// or its endpoint dropped the connection; the next call starts or reconnects it), each
    /// start that succeeded (browser_started) and each close() of a started browser
    /// (browser_closed): detail "launched" when this object launched the browser's process,
    /// "connected" when it reached one (cdp_endpoint, webdriver, transport_factory) and made
    /// or adopted a context there. Called on the browser's own threads, some with its locks held: it must be quick
    /// and must not call into the browser. Its events have no parent (the browser does not know
    /// which tool call a command serves).
    observer on_event;
};

/// How browser::click() clicks.
struct click_options {
    std::string button = "left";  ///< left, right, middle
    int click_count = 1;  ///< 2 for a double click
    std::string modifiers;  ///< e.g. "Shift" or "Control+Shift"
};

/// How browser::type() types.
struct type_options {
    bool submit = false;   ///< press Enter afterwards
    bool replace = true;   ///< replace the current value (false: insert at the caret)
    /// Press a key per character (keydown, keypress, input, keyup each), as a person types,
    /// for pages that act on key events; else the text is inserted at once.
    bool slowly = false;
};

/// One form field for browser::fill().
/// What kind of form field browser::fill() sets, and so how: typed text, a checked state, an
/// option chosen.
enum class field_kind { textbox, checkbox, radio, combobox, slider };

/// The field kind named `name` ("textbox", "checkbox", "radio", "combobox", "slider"); nothing
/// for another name.
[[nodiscard]] constexpr std::optional<field_kind> field_kind_named(std::string_view name) noexcept {
    constexpr std::pair<std::string_view, field_kind> names[] = {{"textbox", field_kind::textbox},   {"checkbox", field_kind::checkbox},
                                                                 {"radio", field_kind::radio},       {"combobox", field_kind::combobox},
                                                                 {"slider", field_kind::slider}};
    for (const auto& [n, k] : names)
        if (n == name) return k;
    return std::nullopt;
}

/// fill_field::kind: a field_kind. A string naming one is still taken (deprecated: removed in 0.2;
/// a name that is none is a text field, as before).
struct field_kind_value {
    field_kind kind = field_kind::textbox;  ///< the kind
    /// The kind `k` (a textbox unless told).
    constexpr field_kind_value(field_kind k = field_kind::textbox) noexcept : kind(k) {}  // NOLINT(google-explicit-constructor)
    /// The kind named `name`; another name is a textbox (deprecated: pass a field_kind).
    [[deprecated("fill_field::kind is a browser::field_kind")]] field_kind_value(const char* name) noexcept  // NOLINT
        : kind(field_kind_named(name != nullptr ? name : "").value_or(field_kind::textbox)) {}
    /// The kind named `name`; another name is a textbox (deprecated: pass a field_kind).
    [[deprecated("fill_field::kind is a browser::field_kind")]] field_kind_value(const std::string& name) noexcept  // NOLINT
        : kind(field_kind_named(name).value_or(field_kind::textbox)) {}
    /// The kind.
    constexpr operator field_kind() const noexcept { return kind; }  // NOLINT(google-explicit-constructor)
    /// True when the kind is the one named `name` (deprecated with the strings: compare with a field_kind).
    [[deprecated("compare fill_field::kind with a browser::field_kind")]] friend bool operator==(field_kind_value v, std::string_view name) noexcept {
        return field_kind_named(name) == v.kind;
    }
    /// The kinds are equal.
    friend constexpr bool operator==(field_kind_value a, field_kind b) noexcept { return a.kind == b; }
};

/// One field of browser::fill().
struct fill_field {
    std::string ref;          ///< the field's ref
    field_kind_value kind;    ///< textbox (or any text field), checkbox, radio, combobox, slider
    std::string value;        ///< text; "true"/"false" for checkbox and radio; an option for combobox
    std::string name;         ///< for messages (empty: the ref)
};

/// What browser::screenshot() captures, and how.
struct screenshot_options {
    std::string format = "png";  ///< png, jpeg or webp
    int quality = 80;            ///< jpeg and webp only
    std::string ref;             ///< an element (empty: the viewport)
    bool full_page = false;      ///< the whole page, not only the viewport
    /// Set-of-Marks: a box and a label on every element with a ref in a snapshot taken now (the
    /// label is the ref), drawn on the captured image, never on the page (see impl/marks.hpp).
    /// The viewport or the full page, not with `ref`.
    bool marks = false;
    /// With marks: the snapshot the marks belong to (its budget, filters), taken first.
    snapshot_options snapshot{};
    /// One image pixel per CSS pixel whatever the device scale factor (false: device pixels).
    bool css_pixels = false;
    /// Shrink the image to at most this many pixels on its longer side (0: no bound)...
    int max_side = 0;
    /// ...and this many pixels in all (0: no bound), keeping its proportions: what a model's
    /// image input takes whole (1568 and 1.15 MP for Claude; larger is resized by the model).
    double max_pixels = 0;
};

/// How browser::start_recording() records (Page.startScreencast).
struct recording_options {
    int max_width = 800;  ///< the largest frame width (px)
    int max_height = 600;  ///< the largest frame height (px)
    int quality = 60;  ///< JPEG quality
};

/// How a live view's screencast looks (browser::start_screencast).
struct screencast_options {
    /// The largest frame width (px). Chromium captures every frame it draws while a screencast
    /// runs, and that capture's cost grows with the frame's pixels: smaller spares the agent.
    int max_width = 800;
    int max_height = 600;  ///< the largest frame height (px)
    int quality = 60;      ///< JPEG quality
    /// Frames the browser sends before it needs an acknowledgement (Chromium's maxFramesInFlight;
    /// it encodes no frame beyond them). 1: it encodes only the frames the viewers take.
    int max_frames_in_flight = 1;
    /// The browser keeps the newest frame produced while it waits for an acknowledgement and
    /// sends it at once when the acknowledgement comes (Chromium's sendLastFrame), so a viewer
    /// always gets the screen as it settled. Without it, a change made while a frame was
    /// unacknowledged shows only with the page's next change.
    bool send_last_frame = true;
    int every_nth_frame = 1;  ///< the browser offers every n-th frame it produces
};

/// What to extract (no model-written code): "table", "list", "fields" (by a small JSON schema:
/// {"price": "number"} or {"properties": {"price": {"type": "number", "label": "Cost"}}}), or
/// "auto" (a table, else a list); within `ref`'s subtree (empty: the page).
struct extract_options {
    std::string kind = "auto";     ///< "table", "list", "fields" or "auto"
    std::string ref;               ///< the subtree to extract from (empty: the page)
    json schema = json::object();  ///< for "fields": the fields to find
    std::size_t max_items = 200;   ///< the most rows or items returned
};

/// What browser::wait_for() waits for (one of text, text_gone, ref).
struct wait_options {
    std::string text;       ///< wait until this text is on the page
    std::string text_gone;  ///< wait until this text is no longer on the page
    std::string ref;        ///< wait until this element is in `state`
    std::string state = "visible";  ///< visible, hidden, enabled, disabled, checked, unchecked, gone
    /// How long to wait at most (0: browser_options::call_timeout, agentkit-browser-mcp's
    /// --timeout-action).
    std::chrono::milliseconds timeout{0};
};

/// The launch options a browser with options `o` launches its process with (the browser's own
/// flags and profile preferences added to o.launch): one place for browser::start and
/// shared_process (shared_process.hpp).
[[nodiscard]] inline cdp::launch_options process_launch_options(const browser_options& o) {
    cdp::launch_options lo = o.launch;
    lo.extra_args.insert(lo.extra_args.begin(), "--disable-features=Translate,MediaRouter,OptimizationHints");
    if (o.policy.intercepts() && !lo.preferences.is_null()) {
        // WebRTC never passes interception: no UDP except through a proxy (and the page guard
        // removes RTCPeerConnection, for TURN over TCP)
        lo.extra_args.insert(lo.extra_args.begin(), "--webrtc-ip-handling-policy=disable_non_proxied_udp");
        lo.preferences.merge_patch(json{{"webrtc", {{"ip_handling_policy", "disable_non_proxied_udp"}}}});
    }
    return lo;
}

}  // namespace agentkit::browser
