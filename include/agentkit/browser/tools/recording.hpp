// agentkit/browser/tools/recording.hpp — browser tools: screen recordings.
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

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

}  // namespace agentkit::browser
