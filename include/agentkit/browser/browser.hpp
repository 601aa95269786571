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
// Threading: every member may be called from any thread; one operation runs at a time (calls
// are serialised by a mutex); CDP events are handled
// on the connection's dispatcher thread and only record state, answer dialogs and attach new
// frames/tabs. Every wait is bounded and woken by events; none is a fixed sleep.
//
// A browser that dies: everything in flight fails at once with errc::browser_crashed; the next
// call starts a new browser (lazily) and says so in its result's notes.
//
// Layout: this header declares the class and documents its API; the definitions are in
// browser/impl/*.hpp by concern (lifecycle, policy, events, tabs, navigation, capture, refs,
// actions, pointer, settle, waits, page, marks, downloads, batch, recording, storage, routes), included at its end. Option and
// result types are in options.hpp, action_result.hpp and results.hpp; the page scripts in
// detail/scripts.hpp.
#pragma once

#include <agentkit/cdp/connection.hpp>
#include <agentkit/browser/action_result.hpp>
#include <agentkit/browser/cancel.hpp>
#include <agentkit/browser/detail/geometry.hpp>
#include <agentkit/browser/detail/image_header.hpp>
#include <agentkit/browser/detail/json_access.hpp>
#include <agentkit/browser/detail/page_part.hpp>
#include <agentkit/browser/detail/page_data.hpp>
#include <agentkit/browser/detail/scripts.hpp>
#include <agentkit/browser/detail/network_log.hpp>
#include <agentkit/browser/detail/tab_state.hpp>
#include <agentkit/browser/keys.hpp>
#include <agentkit/browser/options.hpp>
#include <agentkit/browser/policy.hpp>
#include <agentkit/browser/readable.hpp>
#include <agentkit/browser/redaction.hpp>
#include <agentkit/browser/results.hpp>
#include <agentkit/browser/routes.hpp>
#include <agentkit/browser/storage.hpp>
#include <agentkit/browser/snapshot.hpp>
#include <agentkit/browser/socket_gate.hpp>
#include <agentkit/cdp/launch.hpp>
#include <agentkit/cdp/pipe_transport.hpp>
#include <agentkit/cdp/websocket_transport.hpp>
#include <agentkit/core/base64.hpp>
#include <agentkit/core/http.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/linkage.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/tokens.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
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
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

/// The browser: a Chromium engine driven over CDP, its snapshots and refs, its policy, and the browser tools.
namespace agentkit::browser {

using namespace std::chrono_literals;

/// A browser session: tabs, snapshots with refs, actions that settle and report what changed (see the file comment).
class browser {
public:
    /// A browser with these options; nothing starts until the first call (or start()).
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
    result<void> start();

    /// Close the browser context and the browser (when launched by us).
    void close();

    /// True while a browser is connected.
    [[nodiscard]] bool running() const {
        std::lock_guard op(op_mu_);
        return eng_ && eng_->conn.is_open();
    }

    /// The pid of the launched browser (-1 when not launched by us or not started).
    [[nodiscard]] int browser_pid();

    /// The registry of the refs issued so far.
    [[nodiscard]] ref_registry& refs() noexcept { return refs_; }
    /// The policy in force (set through browser_options::policy).
    [[nodiscard]] const browser_policy& policy() const noexcept { return opt_.policy; }
    /// The nonce of the untrusted-content marks ("" when content boundaries are off).
    [[nodiscard]] const std::string& boundary() const noexcept { return nonce_; }
    /// `v` (a string, a JSON value or an error) with the policy's secret values replaced by
    /// their marks, always: for text the caller composes and hands out itself (a tool's result,
    /// an artifact, a file). Counted in totals().redactions when there are secrets.
    template <class T>
    [[nodiscard]] T redact(T v) const {
        if (opt_.policy.secrets.empty()) return v;
        redactions_.fetch_add(1, std::memory_order_relaxed);
        return opt_.policy.redact(std::move(v));
    }

    /// Every request the policy refused in this browser session (most recent last, bounded).
    [[nodiscard]] std::vector<blocked_request> blocked_requests();

    /// The WebSocket gate's counts while this session routes WebSockets through it (see
    /// browser_options::websockets); nothing when it does not (no origin lists, script_only,
    /// not started).
    [[nodiscard]] std::optional<socket_gate_stats> websocket_gate_stats();

    /// Every download of this browser session that has ended (the newest 100); with
    /// `in_progress`, those still under way after them (state "in progress").
    [[nodiscard]] std::vector<download_record> downloads(bool in_progress = false);
    /// Wait until at least `count` downloads of this session have ended (completed, canceled,
    /// refused or failed; the newest 100 are kept), or `timeout` passed, or the browser is gone;
    /// then downloads(). Other calls on this browser wait meanwhile (it holds the operation lock).
    [[nodiscard]] std::vector<download_record> wait_downloads(std::size_t count, std::chrono::milliseconds timeout);
    /// The options it was made with (dialogs as set by set_dialog_policy()).
    [[nodiscard]] const browser_options& options() const noexcept { return opt_; }

    /// Running totals for per-call metrics (take the difference around a call). Under concurrent
    /// calls on one browser the differences overlap.
    struct counters {
        std::uint64_t cdp_commands = 0;  ///< CDP commands sent (round trips), every connection so far
        std::int64_t wait_ms = 0;        ///< time spent waiting for settle, loads and wait_for
        /// texts (a string, a JSON value, an error) this browser redacted of the policy's
        /// secrets, when it has any: a redaction_scope's holder redacts what it is handed
        std::uint64_t redactions = 0;
    };
    /// The running totals now.
    [[nodiscard]] counters totals() const {
        return counters{sent_->load(std::memory_order_relaxed), wait_us_.load(std::memory_order_relaxed) / 1000,
                        redactions_.load(std::memory_order_relaxed)};
    }

    /// Answer JavaScript dialogs this way from now on.
    void set_dialog_policy(dialog_policy p) {
        std::lock_guard op(op_mu_);
        std::lock_guard lock(policy_mu_);
        opt_.dialogs = std::move(p);
    }

    /// The dialogs the current tab holds open (dialog_policy::hold), oldest first; their texts
    /// redacted. Empty when none is open (or the browser has not started).
    [[nodiscard]] std::vector<dialog_record> open_dialogs();

    /// Answer the oldest dialog the current tab holds open: accept (OK; a prompt gets
    /// `prompt_text`, its default when not given) or dismiss (Cancel). The result is what the page
    /// did then, like an action's (another dialog it raised is listed open). errc::not_found when
    /// no dialog is open.
    result<action_result> answer_dialog(bool accept, std::optional<std::string> prompt_text = std::nullopt);

    /// Raw CDP access to the current tab's page session (for extensions and tests).
    result<json> cdp_call(std::string_view method, json params = json::object());
    /// CDP on the browser session.
    result<json> cdp_browser_call(std::string_view method, json params = json::object());

    // ---- tabs -------------------------------------------------------------------------------

    /// The open tabs (URLs and titles redacted).
    result<std::vector<tab_info>> tabs();

    /// Open a tab, select it, and navigate it to `url` (about:blank when empty); a URL the policy refuses opens none.
    result<action_result> new_tab(std::string url = {});

    /// Select the tab `id` and bring it to the front; the result carries its snapshot.
    result<action_result> select_tab(std::string_view id);

    /// Close the tab `id` (empty: the current one).
    result<action_result> close_tab(std::string_view id = {});

    // ---- navigation ---------------------------------------------------------------------------

    /// Load `url` in the current tab (checked against the policy first) and report the new page.
    result<action_result> navigate(std::string url);

    /// Go back one entry in the current tab's history.
    result<action_result> back() { return history(-1); }
    /// Go forward one entry in the current tab's history.
    result<action_result> forward() { return history(+1); }

    /// Reload the current page.
    result<action_result> reload();

    // ---- snapshots ----------------------------------------------------------------------------

    /// The current tab's accessibility snapshot with refs; without options, within
    /// browser_options::snapshot_budget tokens.
    result<page_snapshot> snapshot(std::optional<snapshot_options> o = std::nullopt);

    /// While on (calls nest: each true needs a false), a page an action leads to is shown whole,
    /// not with the regions it repeats of the last page as one line
    /// (browser_options::collapse_repeated_regions): for a caller that runs several actions and
    /// shows the model only the last result (browser_interact), so no page is "as before" a page
    /// the model did not see.
    void show_pages_whole(bool on) {
        std::lock_guard lock(eng_->mu);
        if (on) ++pages_whole_;
        else if (pages_whole_ > 0) --pages_whole_;
    }

    /// The current tab as Playwright MCP's aria snapshot (YAML, its "ai" mode) writes it, with
    /// its refs (e1, f1e2 in a frame): browser_options::aria_refs makes actions take those refs.
    /// Same-origin frames are nested under their `- iframe` line; a cross-origin frame's content
    /// is not read (the line stays a leaf). `root_ref`: only that element's subtree.
    result<std::string> aria_snapshot(const aria_snapshot_options& o = {});

    /// The current tab's document.title ("" for a page without a title; tabs() shows Chromium's
    /// stand-in for it, the URL or host, instead).
    result<std::string> document_title();

    /// How Playwright code names the element `ref` (an aria ref or CSS selector with
    /// browser_options::aria_refs, else one of agentkit's refs): JSON {frames: [...],
    /// target: {...}} (browser/playwright_output.hpp renders it).
    result<json> aria_locator(std::string_view ref);

    /// The first element `q` finds in the current tab and its same-origin frames (main document
    /// first), named by its locator as aria_locator() gives it; null when nothing matches. Works
    /// in both ref modes (the testing tools: browser_verify_element_visible, _text_visible).
    result<json> find_element(const element_query& q);

    /// What the element `ref` holds, for assertions: {value: its value (null unless an input,
    /// textarea or select), checked: true/false (null unless a checkbox, a radio or a role with
    /// aria-checked), tag, role}.
    result<json> element_value(std::string_view ref);

    /// For each of `items`, the text of the first element below `ref` (empty: in the page's main
    /// document) whose text holds it (as getByText matches): {texts: [...]}, or {missing: item}
    /// for the first item nothing holds.
    result<json> element_items(std::string_view ref, const std::vector<std::string>& items);

    /// browser_find's matching, done by the page's JavaScript engine (its case folding, its
    /// RegExp) in agentkit's isolated world: the indices of `lines` that hold `text`
    /// (case-insensitive), or, when `regex` is set, that match it ("/re/flags" or a bare
    /// pattern; case-sensitive unless flag i; g ignored). `query` (if given) receives the regex as
    /// JavaScript writes it (/re/flags). errc::args_invalid for a pattern JavaScript refuses.
    result<std::vector<std::size_t>> match_lines(const std::vector<std::string>& lines, std::string_view text,
                                                 const std::optional<std::string>& regex, std::string* query = nullptr);

    /// The main content of an article-like page as readable text (links/controls with refs).
    result<page_snapshot> readable(readable_options o = {});

    // ---- actions --------------------------------------------------------------------------------

    /// Click the element `ref` (real mouse events at a visible point; errc::element_covered names what covers it).
    result<action_result> click(std::string_view ref, click_options o = {});

    /// Double-click the element `ref`.
    result<action_result> double_click(std::string_view ref);

    /// Move the mouse over the element `ref`.
    result<action_result> hover(std::string_view ref);

    /// Drag the element `from_ref` onto `to_ref` with the mouse.
    result<action_result> drag(std::string_view from_ref, std::string_view to_ref);

    /// Drop files and data (MIME type → text) onto the element `ref`, as if dragged in from
    /// outside the page: dragenter, dragover and drop at its visible point. The files follow
    /// upload()'s rule (the policy's uploads_dir and upload_roots); errc::args_invalid when
    /// there is nothing to drop.
    result<action_result> drop(std::string_view ref, const std::vector<std::string>& files,
                               const std::map<std::string, std::string>& data);

    /// Type `typed` into the element `ref` (secret placeholders substituted, see browser_policy::substitute).
    result<action_result> type(std::string_view ref, std::string_view typed, type_options o = {});

    /// Fill several fields, then optionally click `submit_ref`, as ONE action: one settle and one
    /// change report at the end instead of one per field. Stops at the first field that fails; the
    /// error names the fields already filled.
    result<action_result> fill(const std::vector<fill_field>& fields, std::string_view submit_ref = {});

    /// Press a key chord ("Enter", "Control+a"), optionally focusing `ref` first.
    result<action_result> press(std::string_view chord, std::string_view ref = {});

    /// Select options of a `<select>` by value or label (several for a multiple select).
    result<action_result> select(std::string_view ref, std::vector<std::string> values);

    /// Check (true) or uncheck (false) a checkbox, radio or aria-checked element.
    result<action_result> set_checked(std::string_view ref, bool checked);

    /// Set the files of an `<input type=file>` by its ref. With an empty ref, answer the file
    /// chooser the page opened (file_chooser()): with `files`, or, when there are none, cancel it
    /// (errc::not_found when none is open). Files come from the policy's uploads_dir or
    /// upload_roots (anywhere with allow_file_access); uploads are off when it names none.
    result<action_result> upload(std::string_view ref, std::vector<std::string> files);

    /// The file chooser open on the current tab: the page opened it (a click on a file input, or
    /// its showPicker()) and waits for upload() without a ref. Gone when answered, cancelled or
    /// when the tab loads another document.
    [[nodiscard]] std::optional<file_chooser_info> file_chooser();

    /// Replace the policy's upload_roots (a workspace's roots, e.g. what an MCP client's
    /// roots/list names).
    void set_upload_roots(std::vector<std::string> roots) {
        std::lock_guard op(op_mu_);
        std::lock_guard lock(policy_mu_);
        opt_.policy.upload_roots = std::move(roots);
    }

    /// Resize the viewport and optionally emulate a mobile device (touch, mobile layout).
    /// (An empty user_agent keeps the one set before, e.g. by browser_options.)
    result<action_result> resize(viewport_size v);

    // ---- coordinate actions (Playwright MCP's vision capability; browser/impl/pointer.hpp) -------

    /// Click at (x, y) in the current tab's viewport, in CSS pixels whatever its device scale
    /// factor (a screenshot at scale 2 has two image pixels per CSS pixel). The result's `hit`
    /// names the element there (its ref when the snapshot gave it one). A point outside the
    /// viewport fails with errc::args_invalid; `hold` (at most 10 s) is the time between press
    /// and release.
    result<action_result> click_at(double x, double y, click_options o = {}, std::chrono::milliseconds hold = {});

    /// Move the mouse to (x, y) (viewport CSS pixels); `hit` names what is there.
    result<action_result> move_to(double x, double y);

    /// Press the left button at (x0, y0), move to (x1, y1) in steps and release there.
    result<action_result> drag_points(double x0, double y0, double x1, double y1);

    /// Press (`down`) or release a mouse button ("left", "right", "middle") where the mouse is.
    result<action_result> mouse_button(bool down, std::string_view button = "left");

    /// Turn the mouse wheel by (dx, dy) CSS pixels where the mouse is.
    result<action_result> wheel(double dx, double dy);

    /// A PNG or JPEG of the viewport, the full page or one element (`o.ref`).
    result<screenshot_result> screenshot(screenshot_options o = {});

    /// The current page printed as a PDF (its bytes; Page.printToPDF, backgrounds included).
    result<std::string> pdf();

    /// Evaluate JavaScript in the main frame, as Playwright MCP's browser_evaluate does: a
    /// function (`() => value`) is called, with the element as its argument when a ref is
    /// given (`(el) => value`); a plain expression is evaluated; a promise is awaited. Off
    /// unless browser_options::allow_evaluate.
    result<evaluated> evaluate(std::string_view expression, std::string_view ref = {});

    /// Console messages of the current tab (oldest first); `clear` empties the buffer. The buffer
    /// keeps the newest browser_options::console_capacity; `dropped` (if given) receives how many
    /// older ones were dropped since the tab opened or was last cleared. `this_document`: only
    /// those of the document the tab shows now (`dropped` then counts the earlier ones too).
    result<std::vector<console_message>> console_messages(bool clear = false, std::size_t* dropped = nullptr, bool this_document = false);

    /// Network requests of the current tab (oldest first); `clear` empties the buffer. The buffer
    /// keeps the newest browser_options::network_capacity; `dropped` as for console_messages.
    result<std::vector<network_entry>> network_requests(bool clear = false, std::size_t* dropped = nullptr);

    /// The response body of the request at `position` of network_requests() (0 is the oldest
    /// kept), as the browser still holds it: the bytes (decoded when it sent them as base64).
    /// errc::not_found when there is no such request, or its body is gone or was never read.
    result<std::string> response_body(std::size_t position);

    // ---- what the browser keeps for sites, routes, network state (impl/storage.hpp, impl/routes.hpp)

    /// The cookies of this browser's context (every site's; the page's httpOnly ones too).
    result<std::vector<cookie>> cookies();

    /// Set a cookie (an empty domain: the current page's host; an empty path: "/"); the cookie as
    /// set. A domain the origin policy refuses every request to is refused
    /// (browser_policy::check_host).
    result<cookie> set_cookie(cookie c);

    /// Delete the cookies named `name` (every cookie when empty); how many went.
    result<std::size_t> delete_cookies(std::string_view name = {});

    /// The items of the current page's localStorage or sessionStorage (its main frame's origin).
    /// errc::tool_failed for a page with an opaque origin (about:blank, data:), saying so.
    result<std::vector<storage_item>> storage_items(storage_area area);

    /// One item (nullopt: no such key).
    result<std::optional<std::string>> storage_value(storage_area area, std::string_view key);

    /// Set an item (errc::tool_failed when the page's quota is full).
    result<void> set_storage_item(storage_area area, std::string_view key, std::string_view value);

    /// Remove an item (`key`), or every item of the area (nullopt); how many went.
    result<std::size_t> remove_storage_items(storage_area area, std::optional<std::string_view> key);

    /// Everything a later session may reuse: the context's cookies and the localStorage of every
    /// origin this browser loaded a document from (read in a temporary tab when no tab shows it).
    result<storage_state> save_storage();

    /// Replace the context's cookies and localStorage with `s`'s (Playwright's setStorageState):
    /// cookies cleared and set, the origins' localStorage cleared and written (the open tabs'
    /// origins cleared too). Cookies and origins the origin policy refuses are left out and
    /// said in the report; an origin no tab shows is written in a temporary tab that the browser
    /// answers itself (nothing is fetched).
    result<storage_restore> restore_storage(const storage_state& s);

    /// Answer (or change) the requests matching `r.pattern`, in every tab, from now on; a later
    /// route for the same URL wins. The origin policy decides first.
    result<void> add_route(route_rule r);

    /// The routes in force, oldest first.
    [[nodiscard]] std::vector<route_rule> routes() const;

    /// Remove the routes with this pattern (every route when nullopt); how many went.
    std::size_t remove_routes(std::optional<std::string_view> pattern = std::nullopt);

    /// Emulate CSS media features in every page from now on (and its new tabs); an empty field
    /// leaves that feature as it is. errc::args_invalid for a value CSS does not have.
    result<void> emulate_media(const media_emulation& m);

    /// The media features in force.
    [[nodiscard]] media_emulation emulated_media() const {
        std::lock_guard lock(policy_mu_);
        return opt_.emulation.media;
    }

    /// Take the browser off the network (every request fails as net::ERR_INTERNET_DISCONNECTED,
    /// pages see navigator.onLine false) or back on.
    result<void> set_offline(bool offline);

    /// Whether set_offline(true) is in force.
    [[nodiscard]] bool offline() const noexcept { return offline_.load(); }

    // ---- recordings (screencast) ------------------------------------------------------------------

    /// Start recording the current tab's screen (Page.startScreencast); frames until stop_recording.
    result<void> start_recording(recording_options o = {});

    /// Stop the recording and hand back its frames (at least one: the screen at stop time).
    result<recording> stop_recording();

    // ---- live view (browser/live/dashboard.hpp) --------------------------------------------------------------

    /// Where the frames of start_screencast() go (called on the CDP event thread: return at
    /// once). Each frame with needs_ack must be acknowledged with ack_screencast_frame() before
    /// the browser sends more: the receiver sets the pace. Empty: none. When it returns, the
    /// previous sink is neither running nor called again (it waits for a call in progress to
    /// return; from inside the sink itself it does not wait), so what the sink uses may go.
    void set_screencast_sink(std::function<void(screencast_frame)> sink);
    /// Screencast the current tab to the sink (a running one moves to the current tab when it
    /// changed); returns the tab's id. The browser must have started (errc::not_found otherwise).
    result<std::string> start_screencast(screencast_options o = {});
    /// Stop the live view's screencast (idempotent).
    void stop_screencast();
    /// Turn the capture of the live view's screencast off or back on, on the tab it shows
    /// (browser/capture_rule.hpp decides when): Chromium captures the screen at every frame it
    /// draws while a screencast is on, acknowledged or not, so only stopping it spares the
    /// agent's page that work. Takes no operation lock and waits for no answer (safe while a
    /// call runs, from any thread); nothing when no screencast was started, when it is in that
    /// state already, or when a recording uses the same tab (it keeps its screencast on).
    /// start_screencast() on a new tab turns capture on.
    void set_screencast_capture(bool on);
    /// True while the live view's screencast captures (started and not turned off).
    [[nodiscard]] bool screencast_capturing();
    /// The tab the screencast shows ("" when none runs).
    [[nodiscard]] std::string screencast_tab();
    /// The tabs, and when asked the current tab's newest `max_events` console messages and
    /// requests, as the browser's events and the last call left them (a title is as the last
    /// snapshot or tab listing read it: Chromium announces no title change): never waits for a
    /// call in flight (no operation lock) and sends nothing to the browser. For a live view's
    /// dashboard, which must not slow the agent it shows.
    [[nodiscard]] live_peek peek(bool console = false, bool network = false, std::size_t max_events = 200);
    /// Acknowledge a frame of the sink so the browser sends the next; safe from any thread
    /// and at any time (an ack to a closed or restarted browser is dropped).
    void ack_screencast_frame(const screencast_frame& f);
    /// Send one CDP Input.* command (dispatchMouseEvent, dispatchKeyEvent, insertText) to the
    /// current tab, as a person's input in a live view; other methods fail with errc::args_invalid.
    result<void> dispatch_input(std::string_view method, json params);
    /// Where the current tab is now, for changes_since().
    [[nodiscard]] result<page_mark> mark_page();
    /// What changed in the current tab since `m` (someone else drove it): the new page's
    /// snapshot when another document loaded or another tab is current, else the change report
    /// against the snapshot the model last saw, as after an action.
    result<action_result> changes_since(const page_mark& m);

    // ---- extraction and batch reading -----------------------------------------------------------------

    /// Extract structured data from the page (or a ref's subtree): a table as rows, a list, or
    /// the fields of a small schema. Returns JSON ({kind, headers, rows} / {kind, items} /
    /// {kind, fields, missing}); page text in it is redacted.
    result<json> extract(extract_options o = {});

    /// Read several URLs concurrently, each in its own temporary tab, and return each page's
    /// compact text within one shared token budget (short pages leave their share to long ones).
    result<std::vector<batch_page>> batch_read(const std::vector<std::string>& urls, std::size_t budget = 8000);

    /// Wait for text to appear or disappear, or for an element state; bounded by `o.timeout`.
    result<action_result> wait_for(wait_options o);

private:
    using tab_ptr = std::shared_ptr<detail::tab_state>;
    using clock = std::chrono::steady_clock;

    struct engine {
        /// The WebDriver session the browser came from (browser_options::webdriver): deleted
        /// with the engine, after the connection (declared first: destroyed last).
        std::optional<cdp::webdriver_session> webdriver;
        cdp::connection conn;
        std::string context_id;
        bool own_context = false, announced = false;  // announced: browser_started was told (close() tells browser_closed)
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
        std::uint64_t downloads_begun = 0;  // every download the browser began (refused ones too)
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

    /// Run `f` on the current tab (started if need be) under the engine mutex.
    template <class F>
    auto on_current_tab(F&& f) -> result<std::invoke_result_t<F, detail::tab_state&>>;

    struct capture_result {
        std::vector<ax_frame> frames;
        std::map<std::string, dom_index> dom;
        /// Set when the main frame was read in part (detail/page_part.hpp): the part read.
        std::optional<detail::page_part> part;
    };
    // How much of a large page a capture reads.
    struct part_request {
        enum class mode {
            whole,      // every node (Accessibility.getFullAXTree)
            automatic,  // a large page's first part, grown until `enough` says it is
            until,      // the nodes before `boundary` (the part a previous read ended with)
        } how = mode::whole;
        std::int64_t boundary = 0;
        // Told each part read (automatic); true when it is enough for what the caller shows.
        std::function<bool(const capture_result&)> enough;
    };
    // How take_snapshot reads the page: whole, the first part a large page's snapshot needs, or
    // the same part as the tab's last snapshot (an action's change report compares like with like).
    enum class page_read { whole, part, same_part };

    // ---- lifecycle ----------------------------------------------------------------------------

    void shutdown();

    result<void> ensure();

    std::vector<std::string> take_restart_notes() { return std::exchange(restart_notes_, {}); }

    // Whether this start routes WebSockets through the gate (browser_options::websockets).
    [[nodiscard]] bool use_socket_gate() const;

    // The gate's decision (its thread): the policy on (host, port); refusals are recorded.
    std::optional<std::string> judge_socket(engine& e, const std::string& host, std::uint16_t port);

    // Browser-wide enforcement: request interception at the browser target (every page, popup,
    // iframe, worker and service worker of every context, before any attach) and downloads.
    result<void> apply_policy();

    std::string socket_guard_source() const;

    // Per-session layers (pages and out-of-process frames): the console clip always; with origin
    // lists the WebSocket and WebRTC guard.
    void install_session_policy(engine& e, const std::string& sid, std::vector<std::future<result<json>>>* wait);

    void record_blocked(engine& e, blocked_request b);  // engine mutex held

    std::string tab_of_frame(engine& e, const std::string& frame);  // engine mutex held

    static std::string sanitize_filename(std::string n);

    // Browser-session events: interception, downloads. True when handled.
    bool on_browser_event(engine& e, const cdp::event& ev);

    void cancel_download(engine& e, const std::string& guid);  // from the dispatcher: no wait

    void take_notes(action_result& r);
    // An action begins: scripts stopped and console events paused by a flood are restored.
    void release_flood_stops(const tab_ptr& t);

    // ---- CDP helpers ----------------------------------------------------------------------------

    error crashed_error(const error& cause) const;
    /// errc::tool_cancelled for a CDP call abandoned because its cancel_scope was stopped.
    static error cancelled_error(std::string_view method);

    result<json> call(std::string_view session, std::string_view method, json params = json::object(),
                      std::optional<std::chrono::milliseconds> timeout = std::nullopt);
    /// The answer of a call sent with call_async, awaited as call() awaits one: abandoned on a
    /// cancel_scope's stop, or when a dialog held open (dialog_policy::hold) holds its page.
    result<json> await_answer(std::string_view session, std::string_view method, std::future<result<json>> fut);
    /// Dialogs are held open (dialog_policy::hold).
    bool holding_dialogs() const;
    /// A dialog held open holds the page `session` belongs to (a call of `method` there would
    /// wait for its answer; never for the call that answers it).
    bool dialog_holds(std::string_view session, std::string_view method) const;
    static error dialog_open_error(std::string_view method);

    result<json> call_on(const node_handle& h, const char* fn, json args, bool await_promise = false,
                         std::optional<std::chrono::milliseconds> timeout = std::nullopt);

    /// Wait (bounded) until `pred` (run under the engine mutex) holds. Woken by events; checks
    /// for a dead connection every 20 ms. Returns false on timeout or a dead browser.
    template <class Pred>
    bool wait_until(Pred pred, std::chrono::milliseconds timeout);

    // ---- events (dispatcher thread) -------------------------------------------------------------

    void on_event(engine& e, const cdp::event& ev);

    void on_target_event(engine& e, const cdp::event& ev);

    // ---- tabs -----------------------------------------------------------------------------------

    result<tab_ptr> create_tab();
    // use_default_context: in force (a CDP endpoint only)? the default context's id; its open pages adopted as tabs (the first returned).
    [[nodiscard]] bool reuses_default_context() const;
    result<std::string> default_context_id();
    result<tab_ptr> adopt_open_tabs();

    result<void> apply_viewport(const std::string& session);

    // Attach to a page target and make it a tab. Runs on the caller's thread or the dispatcher.
    result<tab_ptr> adopt(engine& e, const std::string& target_id, const std::string& opener, bool premarked = false);

    // The current tab. A tab whose renderer crashed is replaced by a new blank tab: the call
    // fails with a clear error (or, with `proceed`, goes on in the new tab with a note).
    result<tab_ptr> current_tab(bool proceed = false);

    // Close a dead or wedged tab and make a new blank tab the current one. The new tab's renderer
    // may be gone too (a spare renderer killed with the crashed one): it is tried twice; when both
    // fail the dead tab stays current, so the next call tries again (never no current tab).
    result<tab_ptr> replace_tab(const tab_ptr& dead);

    // A script that keeps the renderer busy (an endless loop): stop it. True when stopped.
    bool stop_scripts(const tab_ptr& t, const std::string& session, std::chrono::milliseconds waited);
    // Before `t` is left: stop a page that does not answer, or replace it (impl/tabs.hpp says why).
    result<tab_ptr> ready_to_leave(const tab_ptr& t, bool replace);

    result<tab_ptr> find_tab(std::string_view id);
    void forget_tab(const tab_ptr& t);

    std::vector<tab_info> list_tabs();

    void fill_url_title(const tab_ptr& t, std::string& url, std::string& title);

    // ---- snapshot capture -----------------------------------------------------------------------

    result<capture_result> capture(const tab_ptr& t, bool want_viewport, const part_request& part);
    result<capture_result> capture(const tab_ptr& t, bool want_viewport) { return capture(t, want_viewport, part_request{}); }
    // The accessibility nodes of the main frame's part `plan` (queryAXTree per subtree, the
    // ancestors alone): an error when the browser failed; an empty array when the part's nodes
    // do not join into one tree (the caller reads the page whole).
    result<json> read_part(const tab_ptr& t, const detail::page_part& plan);
    // Free a capture: a large page's trees (megabytes of JSON, tens of milliseconds to free) on
    // a worker thread, so that the call answers first; a small capture here.
    void release(capture_result&& c);

    // After a failed call to a tab's page: did its renderer crash meanwhile? The crash event may
    // trail the failed answer (events go through the dispatcher), so where the capture fails
    // anyway it is waited for (`wait`, bounded); elsewhere only checked.
    std::optional<error> crashed_during(const tab_ptr& t, bool wait = true);

    // A quick probe of the page's main thread: an endless script is stopped before a capture
    // would wait for it. An error when the page did not answer and could not be stopped.
    result<void> unstick(const tab_ptr& t);

    // A call begins on tab `t`: what the previous call learned about a stuck page is forgotten.
    void begin_call(const tab_ptr& t);
    // A call that reads the current tab's page begins (the caller holds op_mu_): the browser is
    // up, the current tab is known, begin_call, and a stuck page is stopped (unstick).
    result<tab_ptr> begin_page_call();

    result<page_snapshot> take_snapshot(const tab_ptr& t, const snapshot_options& so, page_read how = page_read::whole);
    // How the page an action, a navigation or a tab switch shows is rendered: the whole page
    // within the snapshot budget.
    [[nodiscard]] snapshot_options page_view_options() const { return snapshot_options{opt_.snapshot_budget, "", false, false, 160, 12}; }

    // The snapshot a navigation's result shows (`s` taken with page_view_options(), whose budget
    // it applies again): when `collapse` (and the options let it), its regions the tab's last
    // shown page had (detail/repeated_regions.hpp) as one line each, before the budget (what they
    // took goes to the rest of the page), a note added for them; the page is remembered as shown.
    std::string show_new_page(const tab_ptr& t, const page_snapshot& s, std::vector<std::string>& notes, bool collapse);
    // The tab's page was not shown to the model: no region of the next one is "as before".
    void forget_shown(const tab_ptr& t) {
        std::lock_guard lock(eng_->mu);
        t->shown = {};
    }

    // ---- refs -----------------------------------------------------------------------------------

    result<node_handle> resolve(std::string_view ref);
    // An aria ref (e1, f1e2) of the last aria snapshot, when browser_options::aria_refs is set.
    result<node_handle> resolve_aria(std::string_view ref);

    result<json> element_info(const node_handle& h) { return call_on(h, detail::kInfoScript, json::array()); }
    // Offset of an OOPIF session's viewport inside the page's viewport.
    result<std::pair<double, double>> frame_offset(const tab_ptr& t, const std::string& session, int depth = 0);

    // A point inside the element, in page-viewport coordinates, after scrolling it into view;
    // with `hit_test`, fails with element_covered when another element would take the click.
    result<std::pair<double, double>> visible_point(const node_handle& h, bool hit_test);
    std::optional<node_handle> stand_in(const node_handle& h);  // where a hidden toggle is clicked

    // Input reaches only the tab in front: bring `t` there unless it is known to be.
    void to_front(const tab_ptr& t);

    static json mouse_params(const char* type, double x, double y, const char* button, int count, int buttons, int modifiers);
    /// Page.startScreencast's parameters for `o`.
    static json screencast_params(const screencast_options& o);

    result<void> mouse(const tab_ptr& t, const char* type, double x, double y, const char* button, int count, int buttons,
                       int modifiers = 0);

    // A left-button drag from `from` to the point `end()` gives once the button is down (HTML5
    // drag and drop replayed as drag events); drag() and drag_points().
    result<void> mouse_drag(const tab_ptr& t, std::pair<double, double> from,
                            const std::function<result<std::pair<double, double>>()>& end);

    // The element operations behind type/select/set_checked and fill() (no settle, no report).
    result<void> type_ref(std::string_view ref, const std::string& text, const type_options& o);
    // Secrets `names` may be typed into ref's frame (its security origin against each secret's origins).
    result<void> secret_target_check(std::string_view ref, const std::vector<std::string>& names);

    result<void> select_ref(std::string_view ref, const std::vector<std::string>& values);

    // The real paths of files the policy lets the page be given (uploads_dir, upload_roots),
    // as DOM.setFileInputFiles takes them; the first file refused is the error.
    result<json> upload_paths(const std::vector<std::string>& files);

    result<void> check_ref(std::string_view ref, bool checked);

    result<void> click_ref(std::string_view ref, const click_options& o);

    // Type `text` a key per character (browser::type with type_options::slowly).

    result<void> type_keys(const tab_ptr& t, std::string_view text);

    result<void> press_keys(const tab_ptr& t, std::string_view chord_text);

    // DOM.getNodeForLocation at a viewport point (CSS px) of `session`'s frame.
    result<json> node_at(const std::string& session, double x, double y);
    // What is at (x, y) of t's viewport (CSS px): "e12 button \"Go\"" for an element with a ref
    // (the nearest ancestor with one), a description otherwise; into out-of-process frames.
    result<std::string> hit_at(const tab_ptr& t, double x, double y);
    // (x, y) is a finite point inside t's viewport, or errc::args_invalid saying the viewport.
    result<void> check_point(const tab_ptr& t, double x, double y, std::string_view what);

    // ---- marks (impl/marks.hpp) -------------------------------------------------------------------

    // Call `fn` in agentkit's isolated world of t's main frame (its own globals: the page's
    // scripts cannot reach or restyle them; made once per document), awaited, by value.
    // by_value false: the result's RemoteObject (its objectId), not its value.
    result<json> isolated_call(const tab_ptr& t, const char* fn, json args, bool by_value = true);
    // Evaluate an expression there.
    result<json> isolated_eval(const tab_ptr& t, const std::string& expression);

    // The part of the main viewport (CSS px) where `frame` (in `session`) shows: its <iframe>'s
    // content box intersected with its parents' (everything for the main frame); cached per frame.
    detail::css_rect frame_clip(const tab_ptr& t, const std::string& session, const std::string& frame,
                                std::map<std::string, detail::css_rect>& cache, int depth = 0);

    // Take a snapshot (o.snapshot) and draw its refs' boxes and labels onto `shot` (captured with
    // `o`; the page scrolled by page_x, page_y); fills shot.marks, unmarked and snapshot.
    result<void> mark_screenshot(const tab_ptr& t, screenshot_result& shot, const screenshot_options& o, double page_x,
                                 double page_y);

    // ---- settling -------------------------------------------------------------------------------

    enum class quiet_result { quiet, busy, navigated, failed };

    quiet_result dom_quiet(const tab_ptr& t);

    std::string main_loader(const tab_ptr& t);  // engine mutex held
    // The current document's load event is held back (by an image, a frame or a request that
    // never ends) longer than load_event_timeout after its DOM was ready, and no newer navigation
    // has started: it counts as loaded. Engine mutex held.
    bool load_held_back(const tab_ptr& t);
    // The document of `loader` fired its load event, or it is the current one and load_held_back.
    bool load_done(const tab_ptr& t, const std::string& loader);  // engine mutex held

    // Settle after an action that started at event sequence `mark`: a navigation it triggered has
    // committed and loaded, the requests it started are done, and the DOM has been quiet.
    // Wait until the page is still after an action (DOM quiet, loads, requests), by `deadline`.
    void settle(const tab_ptr& t, std::uint64_t mark, std::vector<std::string>& notes, clock::time_point deadline);

    // Run an action on the current tab and report what changed.
    template <class F>
    result<action_result> act(std::string what, F&& f, bool expect_navigation = false);

    error policy_error(const policy_violation& v, std::string_view what) const;

    /// The URL the model was last shown for a tab: the next action's URLs are named against it.
    void set_reported_url(const tab_ptr& t, const std::string& url);

    result<action_result> finish_action(result<action_result> r) const;

    result<page_snapshot> finish_snapshot(result<page_snapshot> r) const;

    template <class F>
    result<action_result> act_locked(std::string what, tab_ptr t, F&& f, bool expect_navigation);

    result<action_result> navigate_locked(const std::string& url);

    result<action_result> history(int delta);

    result<void> wait_condition(const tab_ptr& t, const wait_options& o);

    // Counters for per-call metrics: every CDP command sent (over every connection, relaunches
    // included) and the time spent waiting for the page to settle, load or meet a wait_for.
    std::shared_ptr<std::atomic<std::uint64_t>> sent_ = std::make_shared<std::atomic<std::uint64_t>>(0);
    std::atomic<std::int64_t> wait_us_{0};
    mutable std::atomic<std::uint64_t> redactions_{0};
    // What the API returns: redacted, unless this thread's caller redacts it (redaction_scope).
    template <class T>
    [[nodiscard]] T redact_result(T v) const {
        return redaction_scope::active() ? std::move(v) : redact(std::move(v));
    }

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
    int pages_whole_ = 0;       // show_pages_whole() calls in force (under eng_->mu)
    mutable std::mutex policy_mu_;  // opt_.dialogs (read by the dispatcher)
    ref_registry refs_;
    std::unique_ptr<engine> eng_;
    std::vector<std::string> restart_notes_;
    std::string nonce_;
    // The live view's screencast: guarded by live_mu_, which is also held where eng_ is
    // replaced, so an ack from a viewer's thread never meets a half-swapped engine.
    std::mutex live_mu_;
    std::shared_ptr<std::function<void(screencast_frame)>> live_sink_;
    // A sink being called on the event thread (live_calls_ 0 or 1, on live_caller_): replacing
    // the sink waits on live_cv_ until it returned, so its owner can go away after.
    std::condition_variable live_cv_;
    int live_calls_ = 0;
    std::thread::id live_caller_;
    std::string live_session_;   // the page session screencasting ("" when none)
    std::string live_tab_;
    screencast_options live_opt_;
    bool live_capture_ = false;  // Page.startScreencast was sent last on live_session_ (not stopScreencast)
    std::uint64_t engine_gen_ = 0;  // counts engine starts
    /// Private directory (0700) inside downloads_dir that Chromium writes downloads into; a
    /// finished download is moved out of it, as a 0600 file. Set on the first start, removed
    /// with the browser object.
    std::string download_staging_;
    /// Routes, the request URLs answered with an empty page for restore_storage's temporary
    /// tabs, and the origins documents were loaded from (save_storage): read by the dispatcher.
    mutable std::mutex routes_mu_;
    std::vector<route_rule> routes_;
    std::set<std::string> blank_pages_;
    std::set<std::string> visited_origins_;
    std::atomic<bool> offline_{false};
    // The dispatcher's part of routes and network state: fulfil, continue changed or fail a
    // paused request the policy let through (true: answered).
    bool route_request(engine& e, const cdp::event& ev);
    // A script run on a temporary tab showing `origin` (an empty page the browser answers itself).
    result<json> on_origin_page(const std::string& origin, const char* fn, json args);
    result<json> storage_call(storage_area area, std::string_view op, json args);
    result<storage_restore> restore_locked(const storage_state& s);  // restore_storage with the browser started
    result<storage_state> save_locked();                              // save_storage with the browser started
    // A profile this object launched (launch.user_data_dir) keeps its cookies and localStorage
    // in this file of it between browsers (the browser context agentkit makes is not the
    // profile's own); "" when there is no such profile.
    std::string profile_state_file() const;
    // Emulation.setUserAgentOverride's parameters: the viewport's user agent and the emulated
    // locale's Accept-Language (navigator.language) — the browser's own agent when only the
    // locale is set; nullopt when neither is.
    std::optional<json> user_agent_params(const viewport_size& v) const;
    std::string browser_user_agent_;  // the browser's own (Browser.getVersion), when a locale needs it
    // Send `method` to every page and frame session and wait for the answers (a session that went
    // meanwhile has nothing to change).
    void broadcast(const std::string& method, const json& params);
    // The http(s) origin each open tab shows, and that tab.
    std::map<std::string, tab_ptr> origins_shown();
    // Storage.* parameters naming this browser's context (none for the default context).
    json context_params() const;
    // The CDP calls that put opt_.emulation on a page or frame session (none when nothing is set).
    std::vector<std::pair<std::string, json>> emulation_calls() const;
    /// Downloads started by this browser object (across restarts), against max_downloads;
    /// written by the event dispatcher under the engine mutex.
    std::size_t downloads_started_ = 0;
    clock::time_point recording_started_{};
};

}  // namespace agentkit::browser
#if !defined(AGENTKIT_SEPARATE_COMPILATION)
#include <agentkit/browser/impl/all.hpp>
#endif
