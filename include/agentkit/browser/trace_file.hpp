// agentkit/browser/trace_file.hpp — a trace in Playwright's trace format (the files its trace
// viewer reads, `npx playwright show-trace`): browser_start_tracing / browser_stop_tracing.
//
//   auto t = agentkit::browser::trace_writer::start(".playwright-mcp/traces", "trace-1712", {});
//   auto id = (*t)->before("browser_click", {{"target", "e5"}});   // each tool call
//   (*t)->after(id, std::nullopt);
//   (*t)->frame(jpeg_base64, 800, 600, frame_wall_ms);            // the screencast
//   auto files = (*t)->stop();
//
// In the traces directory: <name>.trace (one JSON event per line: `context-options` first, then
// `before`/`after` for each call, `screencast-frame` for each frame), <name>.network (one
// `resource-snapshot` per request, HAR entries), <name>.stacks (no client stacks: empty lists),
// screencast/ (the frames as JPEG files the events name) and resources/ (blobs; none yet).
// Times are milliseconds on one monotonic clock that starts at the trace's start (its
// context-options event also has the wall time then). A line that cannot be written is said by
// the call that wrote it; the trace goes on.
#pragma once

#include <agentkit/core/base64.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace agentkit::browser {

/// The files of a finished trace.
struct trace_files {
    std::filesystem::path trace;    ///< <name>.trace: the events
    std::filesystem::path network;  ///< <name>.network: the requests
    std::filesystem::path stacks;   ///< <name>.stacks
    std::filesystem::path resources;  ///< resources/
    std::size_t calls = 0;   ///< tool calls recorded
    std::size_t frames = 0;  ///< screencast frames recorded
    std::size_t requests = 0;  ///< requests recorded
};

/// Writes one trace (see the top of this header). Thread-safe.
class trace_writer {
public:
    /// Start a trace named `name` (file names: letters, digits, `-`, `_`, `.`) in `dir` (made
    /// when missing), its context described by `options` (Playwright's context options:
    /// viewport, userAgent, ...). Errors: tool_failed when the directory or the first line cannot be
    /// written, args_invalid for a name that is not a file name.
    [[nodiscard]] static result<std::unique_ptr<trace_writer>> start(const std::filesystem::path& dir, std::string name,
                                                                    json options) {
        if (name.empty() || name.size() > 128 || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != std::string::npos ||
            name[0] == '.')
            return fail(errc::args_invalid, "a trace name is letters, digits, '-', '_' and '.', not \"" + name.substr(0, 64) + "\"");
        std::error_code ec;
        for (const auto& d : {dir, dir / "resources", dir / "screencast"}) {
            std::filesystem::create_directories(d, ec);
            if (ec) return fail(errc::tool_failed, "cannot create the traces directory " + d.string() + ": " + ec.message());
        }
        std::unique_ptr<trace_writer> t(new trace_writer(dir, std::move(name)));
        const auto wall = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
        t->wall0_ms_ = static_cast<double>(wall.count());
        json first{{"version", 9},
                   {"type", "context-options"},
                   {"origin", "library"},
                   {"browserName", "chromium"},
                   {"platform", "linux"},
                   {"wallTime", t->wall0_ms_},
                   {"monotonicTime", 0},
                   {"sdkLanguage", "javascript"},
                   {"options", options.is_object() ? std::move(options) : json::object()}};
        if (auto w = t->write(t->trace_path(), first.dump(-1, ' ', false, json::error_handler_t::replace) + "\n", true); !w) return fail(w.error());
        if (auto w = t->write(t->network_path(), "", true); !w) return fail(w.error());
        return t;
    }

    trace_writer(const trace_writer&) = delete;
    trace_writer& operator=(const trace_writer&) = delete;

    /// The trace's name.
    [[nodiscard]] const std::string& name() const noexcept { return name_; }
    /// The traces directory it writes to.
    [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }
    /// <name>.trace
    [[nodiscard]] std::filesystem::path trace_path() const { return dir_ / (name_ + ".trace"); }
    /// <name>.network
    [[nodiscard]] std::filesystem::path network_path() const { return dir_ / (name_ + ".network"); }
    /// Milliseconds since the trace started (the events' clock).
    [[nodiscard]] double now() const {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
    }
    /// A wall-clock time (ms since the epoch) on the events' clock.
    [[nodiscard]] double at_wall(double wall_ms) const { return wall_ms - wall0_ms_; }

    /// A tool call begins: its `before` event; the call's id, for after(). (Nothing once stopped.)
    std::string before(std::string_view tool, const json& params, std::string_view page_id = "page@1") {
        std::lock_guard lock(mu_);
        if (stopped_) return {};
        const std::string id = "call@" + std::to_string(++calls_);
        json e{{"type", "before"},   {"callId", id},   {"startTime", now()}, {"title", tool},
               {"class", "Tool"},    {"method", tool}, {"params", params.is_object() ? params : json::object()},
               {"stepId", id},       {"pageId", page_id}};
        keep(write(trace_path(), e.dump(-1, ' ', false, json::error_handler_t::replace), false));
        return id;
    }
    /// The call `id` ended, with `error` when it failed: its `after` event.
    void after(const std::string& id, const std::optional<std::string>& error) {
        std::lock_guard lock(mu_);
        if (stopped_ || id.empty()) return;
        json e{{"type", "after"}, {"callId", id}, {"endTime", now()}};
        if (error) e["error"] = {{"message", *error}, {"name", "Error"}};
        keep(write(trace_path(), e.dump(-1, ' ', false, json::error_handler_t::replace), false));
    }
    /// A screencast frame (base64 JPEG) shown at `wall_ms`: written to screencast/ and named by a
    /// `screencast-frame` event.
    [[nodiscard]] result<void> frame(std::string_view jpeg_base64, int width, int height, double wall_ms,
                                     std::string_view page_id = "page@1") {
        auto bytes = base64_decode(jpeg_base64);
        if (!bytes) return fail(errc::args_invalid, "a screencast frame is not base64");
        std::lock_guard lock(mu_);
        if (stopped_) return {};
        const std::string file = "screencast/" + std::string(page_id) + "-" + std::to_string(++frames_) + ".jpeg";
        if (auto w = write(dir_ / file, *bytes, true); !w) return w;
        json e{{"type", "screencast-frame"}, {"pageId", page_id}, {"file", file}, {"width", width}, {"height", height},
               {"timestamp", at_wall(wall_ms)}};
        return write(trace_path(), e.dump(), false);
    }
    /// A request, as a HAR entry (request, response, startedDateTime, time, ...): a
    /// `resource-snapshot` line of <name>.network.
    [[nodiscard]] result<void> request(json har_entry) {
        std::lock_guard lock(mu_);
        if (stopped_) return {};
        ++requests_;
        json e{{"type", "resource-snapshot"}, {"snapshot", std::move(har_entry)}};
        return write(network_path(), e.dump(-1, ' ', false, json::error_handler_t::replace), false);
    }

    /// Finish: <name>.stacks, then no more events. Idempotent; the first write error of the
    /// trace's lines, when there was one, is said here.
    [[nodiscard]] result<trace_files> stop() {
        std::lock_guard lock(mu_);
        if (!stopped_) {
            stopped_ = true;
            if (auto w = write(dir_ / (name_ + ".stacks"), R"({"files":[],"stacks":[]})", true); !w) return fail(w.error());
        }
        if (!first_error_) return fail(first_error_.error());
        return trace_files{trace_path(), network_path(), dir_ / (name_ + ".stacks"), dir_ / "resources", calls_, frames_, requests_};
    }

private:
    trace_writer(std::filesystem::path dir, std::string name) : dir_(std::move(dir)), name_(std::move(name)) {}

    void keep(result<void> w) {  // the first failed write, for stop() to say
        if (!w && first_error_) first_error_ = std::move(w);
    }

    /// Append `line` and a newline (or, with `whole`, write `text` as the file): the file is
    /// opened each time, so one failed write costs that line alone.
    static result<void> write(const std::filesystem::path& p, std::string_view text, bool whole) {
        std::ofstream out(p, std::ios::binary | (whole ? std::ios::trunc : std::ios::app));
        if (out) {
            out.write(text.data(), static_cast<std::streamsize>(text.size()));
            if (!whole) out.put('\n');
            out.flush();
        }
        if (!out) return fail(errc::tool_failed, "cannot write " + p.string());
        return {};
    }

    std::filesystem::path dir_;
    std::string name_;
    std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
    double wall0_ms_ = 0;
    std::mutex mu_;
    bool stopped_ = false;
    std::size_t calls_ = 0, frames_ = 0, requests_ = 0;
    result<void> first_error_ = {};  // the first write of an event line that failed
};

}  // namespace agentkit::browser
