// agentkit/browser/tools/recording.hpp — browser tools: screen recordings.
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

#include <agentkit/browser/tools/playwright.hpp>
#include <agentkit/browser/tools/support.hpp>

namespace agentkit::browser {

/// Arguments of browser_recording_start.
struct recording_start_args {
    std::optional<int> width;   ///< largest frame width (default 800)
    std::optional<int> height;  ///< largest frame height (default 600)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(recording_start_args, width, "Max frame width", range(16, 4096)),
                      AGENTKIT_FIELD(recording_start_args, height, "Max frame height", range(16, 4096)));
    }
};

/// Make the browser_recording_start tool: start recording the current tab's screen (frames until
/// browser_recording_stop).
template <class State>
auto recording_start_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_recording_start">(
        st,
        "Record the tab's screen until browser_recording_stop.",
        [s](const recording_start_args& a) -> result<tool_output> {
            recording_options o;
            o.max_width = a.width.value_or(800);
            o.max_height = a.height.value_or(600);
            auto r = s->b.start_recording(o);
            if (!r) return fail(r.error());
            return tool_output::text("recording started");
        },
        reading_traits);
}

/// Make the browser_recording_stop tool: stop the recording; its frames are stored as artifacts (ids
/// returned, read with browser_artifact).
template <class State>
auto recording_stop_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_recording_stop">(
        st,
        "Stop recording; frames are stored as artifacts.",
        [s]() -> result<tool_output> {
            auto r = s->b.stop_recording();
            if (!r) return fail(r.error());
            json manifest = {{"mime_type", r->mime_type}, {"seconds", r->seconds}, {"dropped", r->dropped}, {"frames", json::array()}};
            std::string ids;
            for (std::size_t i = 0; i < r->frames.size(); ++i) {
                auto ref = s->store.put({r->mime_type, "recording frame " + std::to_string(i + 1),
                                         "screencast frame at " + json(r->frames[i].timestamp).dump(), std::move(r->frames[i].base64), true});
                if (!ref) continue;
                manifest["frames"].push_back({{"id", ref->id}, {"timestamp", r->frames[i].timestamp}});
                if (i < 3 || i + 1 == r->frames.size()) ids += (ids.empty() ? "" : ", ") + ref->id;
                else if (i == 3) ids += ", ...";
            }
            auto m = s->store.put({"application/json", "recording", "frames of a screen recording", manifest.dump(), false});
            std::string line = "recording stopped: " + std::to_string(manifest["frames"].size()) + " frames over " +
                               std::to_string(static_cast<int>(r->seconds * 1000)) + " ms";
            if (r->dropped) line += " (" + std::to_string(r->dropped) + " earlier frames dropped)";
            if (m) line += "; recording artifact " + m->id;
            line += "; frames " + ids;
            for (const auto& n : r->notes) line += "\nnote: " + n;
            tool_output out = tool_output::text(line);
            if (m) out.add_artifact(*m);
            return out;
        },
        reading_traits);
}

/// Make the browser_start_tracing tool (--caps tracing): record a trace in Playwright's format
/// (browser/trace_file.hpp) in the output directory's traces/ folder until browser_stop_tracing:
/// every tool call, the screencast, the requests.
template <class State>
auto start_tracing_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_start_tracing">(
        st,
        "Start recording a trace (tool calls, screencast, requests) that Playwright's trace viewer opens; stop it "
        "with browser_stop_tracing.",
        [s]() -> result<tool_output> {
            {
                std::lock_guard lock(s->mu);
                if (s->trace) return fail(errc::args_invalid, "Tracing is already started", "Call browser_stop_tracing first.");
            }
            const auto dir = detail::output_dirs(s->options).second / "traces";
            const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
            const auto& vp = s->b.options().viewport;
            json ctx{{"viewport", {{"width", vp.width}, {"height", vp.height}}}, {"deviceScaleFactor", vp.device_scale_factor},
                     {"isMobile", vp.mobile}};
            if (!vp.user_agent.empty()) ctx["userAgent"] = vp.user_agent;
            auto t = trace_writer::start(dir, "trace-" + std::to_string(ms.count()), std::move(ctx));
            if (!t) return fail(t.error());
            std::shared_ptr<trace_writer> tracer = std::move(*t);
            // the screencast: unless a recording (browser_recording_start) already runs
            recording_options ro;
            ro.max_width = vp.width;
            ro.max_height = vp.height;
            std::string note;
            if (auto r = s->b.start_recording(ro); !r) note = "the screencast is not in this trace: " + r.error().message;
            std::size_t seen = 0, dropped = 0;
            if (auto n = s->b.network_requests(false, &dropped)) seen = n->size();
            {
                std::lock_guard lock(s->mu);
                s->trace = tracer;
                s->trace_requests_seen = seen;
                s->trace_requests_dropped = dropped;
                s->trace_screencast = note.empty();
            }
            const std::string base = detail::pw_printable(*s, tracer->dir() / tracer->name());
            if (detail::pw_mode(*s)) {
                pw::response resp;
                resp.language = s->options.codegen;
                resp.results.push_back("Trace recording started");
                resp.results.push_back("- [Action log](" + base + ".trace)");
                resp.results.push_back("- [Network log](" + base + ".network)");
                resp.results.push_back("- [Resources](" + detail::pw_printable(*s, tracer->dir() / "resources") + ")");
                if (!note.empty()) resp.results.push_back("Note: " + note);
                return detail::pw_finish(*s, std::move(resp), {});
            }
            return tool_output::text("tracing to " + base + ".trace" + (note.empty() ? std::string() : "\nnote: " + note));
        },
        reading_traits);
}

/// Make the browser_stop_tracing tool: finish the trace browser_start_tracing began.
template <class State>
auto stop_tracing_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_stop_tracing">(
        st, "Stop the trace browser_start_tracing began and say where its files are.",
        [s]() -> result<tool_output> {
            std::shared_ptr<trace_writer> tracer;
            std::size_t seen = 0, dropped_then = 0;
            bool screencast = false;
            {
                std::lock_guard lock(s->mu);
                tracer.swap(s->trace);  // (the state holds none after)
                seen = s->trace_requests_seen;
                dropped_then = s->trace_requests_dropped;
                screencast = s->trace_screencast;
            }
            if (!tracer) return fail(errc::not_found, "Tracing is not started", "Start it with browser_start_tracing.");
            std::vector<std::string> notes;
            if (screencast) {
                auto rec = s->b.stop_recording();
                if (!rec) {
                    notes.push_back("the screencast could not be read: " + rec.error().message);
                } else {
                    const auto& vp = s->b.options().viewport;
                    for (const auto& f : rec->frames)
                        if (auto w = tracer->frame(f.base64, vp.width, vp.height, f.timestamp * 1000); !w) {
                            notes.push_back(w.error().message);
                            break;
                        }
                    if (rec->dropped > 0) notes.push_back(std::to_string(rec->dropped) + " early screencast frames were dropped (the recording's bound)");
                }
            }
            std::size_t dropped_now = 0;
            if (auto n = s->b.network_requests(false, &dropped_now)) {
                // the requests since the start (all the log keeps when it dropped some meanwhile)
                const std::size_t from = dropped_now == dropped_then ? std::min(seen, n->size()) : 0;
                const double started = tracer->now();  // the log keeps no start times: the requests are dated at the stop
                for (std::size_t i = from; i < n->size(); ++i) {
                    const auto& e = (*n)[i];
                    auto headers = [](const std::vector<std::pair<std::string, std::string>>& hs) {
                        json a = json::array();
                        for (const auto& [k, v] : hs) a.push_back({{"name", k}, {"value", v}});
                        return a;
                    };
                    json entry{{"_monotonicTime", started},
                               {"time", e.duration_ms},
                               {"request", {{"method", e.method}, {"url", e.url}, {"httpVersion", "HTTP/1.1"}, {"cookies", json::array()},
                                            {"headers", headers(e.request_headers)}, {"queryString", json::array()},
                                            {"headersSize", -1}, {"bodySize", e.post_data ? static_cast<long long>(e.post_data->size()) : 0}}},
                               {"response", {{"status", e.status}, {"statusText", e.status_text}, {"httpVersion", "HTTP/1.1"},
                                             {"cookies", json::array()}, {"headers", headers(e.response_headers)},
                                             {"content", {{"size", -1}, {"mimeType", e.mime_type}}}, {"redirectURL", ""},
                                             {"headersSize", -1}, {"bodySize", -1}}},
                               {"cache", json::object()},
                               {"timings", {{"send", -1}, {"wait", -1}, {"receive", -1}}},
                               {"_resourceType", e.resource_type}};
                    if (!e.error.empty()) entry["response"]["_failureText"] = e.error;
                    if (auto w = tracer->request(std::move(entry)); !w) {
                        notes.push_back(w.error().message);
                        break;
                    }
                }
            }
            auto files = tracer->stop();
            if (!files) return fail(files.error());
            const std::string trace = detail::pw_printable(*s, files->trace);
            if (detail::pw_mode(*s)) {
                pw::response resp;
                resp.language = s->options.codegen;
                resp.results.push_back("Trace recording stopped.");
                resp.results.push_back("- [Trace](" + trace + ")");
                resp.results.push_back("- [Network log](" + detail::pw_printable(*s, files->network) + ")");
                resp.results.push_back("- [Resources](" + detail::pw_printable(*s, files->resources) + ")");
                for (const auto& n : notes) resp.results.push_back("Note: " + n);
                return detail::pw_finish(*s, std::move(resp), {});
            }
            std::string text = "trace saved: " + trace + " (" + std::to_string(files->calls) + " calls, " + std::to_string(files->frames) +
                               " frames, " + std::to_string(files->requests) + " requests; open it with npx playwright show-trace)";
            for (const auto& n : notes) text += "\nnote: " + n;
            return tool_output::text(text);
        },
        reading_traits);
}

}  // namespace agentkit::browser
