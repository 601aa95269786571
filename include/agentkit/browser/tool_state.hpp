// agentkit/browser/tool_state.hpp — what the browser tools share: the browser, the artifact
// store, the tools' options and the running totals of their calls.
#pragma once

#include <agentkit/browser/browser.hpp>
#include <agentkit/browser/artifacts.hpp>
#include <agentkit/browser/playwright_output.hpp>
#include <agentkit/browser/trace_file.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/tokens.hpp>
#include <agentkit/search/searcher.hpp>
#include <agentkit/tools/context.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace agentkit::browser {

/// Per-call metrics of the browser tools.
struct call_metrics {
    std::string tool;  ///< the tool's name
    std::size_t bytes = 0;   ///< of the text returned
    std::size_t tokens = 0;  ///< estimated
    std::int64_t ms = 0;     ///< wall time of the call
    std::uint64_t cdp_round_trips = 0;  ///< CDP commands the call sent (with the browser's own answers to paused requests)
    std::int64_t wait_ms = 0;           ///< of ms, time spent waiting for the page (settle, load, wait_for)
    bool ok = true;  ///< the call succeeded
};

/// A browser tool call about to run (tools_options::before_call).
struct call_start {
    std::string tool;  ///< the tool's name
    json args;         ///< its arguments, secrets redacted
};

/// A finished browser tool call, as a timeline shows it (tools_options::on_record).
struct call_record {
    std::string tool;       ///< the tool's name
    json args;              ///< its arguments, secrets redacted
    call_metrics metrics;   ///< time, size, tokens, success
    std::string head;       ///< the start of its text (redacted, at most ~400 characters)
    std::string error;      ///< the error's text when it failed ("" otherwise)
    std::vector<std::string> artifacts;  ///< ids of the artifacts it stored
};

/// How the browser tools shape their results.
struct tools_options {
    /// Hard cap on any result's text, in tokens as the state's counter counts them (the unit of
    /// every browser budget: a snapshot's, a change report's); what is cut goes to the artifact
    /// store. A snapshot within its own budget is never cut by it.
    std::size_t max_result_tokens = 10000;
    /// Return screenshots as inline images (default: stored as artifacts, id returned).
    bool inline_screenshots = false;
    /// Longest browser_wait_for {time} (seconds).
    double max_wait_seconds = 30;
    /// browser_console_messages' lowest level kept when the call names none: error, warning,
    /// info or debug (Playwright MCP's --console-level).
    std::string console_level = "info";
    /// Receives every call's metrics (e.g. a log line on stderr).
    std::function<void(const call_metrics&)> on_call;
    /// Runs before each call touches the browser (a live view's pause gate): it may wait, and
    /// should end its wait when the call's stop token is requested. An error ends the call
    /// with that error; a text starts the call's result as written (e.g. what changed while a person
    /// had control: redact page text in it, browser::redact). Empty: calls run at once.
    std::function<result<std::string>(const call_start&, tool_context&)> before_call;
    /// Receives each finished call with its redacted arguments and the head of its result (a
    /// live view's timeline). Called on the calling thread; must not throw (ignored if it does).
    std::function<void(const call_record&)> on_record;
    /// How results are written: agentkit's terse text, or Playwright MCP's layout with its aria
    /// snapshot, refs and generated code (then set browser_options::aria_refs too, and
    /// dialog_policy::hold for its modal state: dialogs left open until browser_handle_dialog).
    output_mode output = output_mode::agentkit;
    /// The generated code's language in Playwright's layout (--codegen).
    codegen_language codegen = codegen_language::typescript;
    /// Where Playwright's layout writes snapshot files ("": <workspace>/.playwright-mcp).
    std::string output_dir;
    /// What file paths in Playwright's layout are relative to ("": the working directory).
    std::string workspace;
    /// Bytes the files in the output directory may take (--output-max-size; 0: no bound): before
    /// a tool writes a file there, and after each call, the oldest files go until the rest fit
    /// (never a session log, never the artifact store's own folder, never the newest file).
    std::uintmax_t output_max_bytes = 0;
    /// The attribute getByTestId() locators read in Playwright's layout (--test-id-attribute).
    std::string test_id_attribute = "data-testid";
    /// Playwright's layout: every snapshot shows each element's box (--snapshot-boxes).
    bool snapshot_boxes = false;
    /// Playwright's layout: files a model names (snapshot and screenshot filenames) may lie
    /// anywhere, not only in the workspace or the output directory (--allow-unrestricted-file-access).
    bool unrestricted_files = false;
    /// browser_file_upload may give the page files inside the workspace's roots (what
    /// workspace_roots answers, else the workspace), besides the policy's uploads directory
    /// (--allow-uploads; Playwright MCP's rule, where uploads are on by default).
    bool uploads_from_workspace = false;
    /// The workspace's roots for one call, as local paths (an MCP server asks its client's
    /// roots/list); an empty list, or no function: the workspace alone.
    std::function<result<std::vector<std::string>>(tool_context&)> workspace_roots;
    /// The host's resolved configuration as browser_get_config shows it (--caps config; no
    /// function: the tool says the host has none to show).
    std::function<json()> effective_config;
};

/// What the tools share: the browser, the artifact store, options and totals.
struct tool_state {
    browser& b;               ///< the browser the tools drive
    bounded_artifacts& store;     ///< where cut text and screenshots go
    tools_options options{};  ///< the tools' options
    token_counter tokens{};   ///< estimates the tokens of results
    /// web_search's backend and cache (the host's, outliving the state; nullptr: web_search
    /// answers `search.unconfigured`).
    search::searcher* searcher = nullptr;

    /// Sums of the calls' metrics.
    struct totals {
        ///@{
        /// Calls, and the bytes and estimated tokens of their text.
        std::size_t calls = 0, bytes = 0, tokens = 0;
        ///@}
        ///@{
        /// Wall time of the calls, and of it the time spent waiting for the page (ms).
        std::int64_t ms = 0, wait_ms = 0;
        ///@}
        std::uint64_t cdp_round_trips = 0;  ///< CDP commands the calls sent
        /// Add one call's metrics.
        void add(const call_metrics& m) {
            ++calls;
            bytes += m.bytes;
            tokens += m.tokens;
            ms += m.ms;
            wait_ms += m.wait_ms;
            cdp_round_trips += m.cdp_round_trips;
        }
    };
    static constexpr std::size_t recent_capacity = 64;  ///< per-call metrics kept for browser_metrics

    std::mutex mu;  ///< the metrics below
    totals total;   ///< every call of the session
    std::map<std::string, totals> per_tool;  ///< totals per tool name
    std::deque<call_metrics> recent;  ///< the newest calls, oldest first
    /// Playwright's layout: the last `### Page` lines shown (a page whose header changed is shown again).
    std::string pw_last_page;
    /// Playwright's layout: the console log file the results link to (`### Events`), its lines
    /// so far, when it started, and how many of the tab's messages it has seen.
    struct pw_console_log {
        std::string file;   ///< its name in the output directory ("": none yet for this document)
        std::size_t lines = 0;  ///< lines written to it
        std::chrono::steady_clock::time_point started{};  ///< when its first line was written
        std::size_t seen = 0;   ///< the tab's messages seen so far (its dropped ones included)
    } pw_console;  ///< the current tab's console log file (Playwright's layout)
    std::set<std::string> pw_downloads_begun;  ///< Playwright's layout: downloads whose start `### Events` has said (ids)
    std::set<std::string> pw_downloads_ended;  ///< and those whose end it has said
    /// The trace browser_start_tracing began (null: none): every call until browser_stop_tracing
    /// is written to it. Guarded by `mu`.
    std::shared_ptr<trace_writer> trace;
    std::size_t trace_requests_seen = 0;     ///< the tab's requests logged when the trace started
    std::size_t trace_requests_dropped = 0;  ///< and those its log had dropped then
    bool trace_screencast = false;           ///< the trace started the screencast (its stop stops it)

    /// The state of tools on browser `br` with artifact store `st`.
    tool_state(browser& br, bounded_artifacts& st, tools_options o = {}) : b(br), store(st), options(std::move(o)) {}
};

}  // namespace agentkit::browser
