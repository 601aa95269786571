// agentkit/browser/tools/session.hpp — browser tools: the session's artifacts and call metrics.
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

#include <agentkit/browser/tools/support.hpp>
#include <agentkit/format/artifact_reader.hpp>

namespace agentkit::browser {

/// Arguments of browser_artifact (artifact_read_args).
using artifact_args = artifact_read_args;  // format/artifact_reader.hpp

/// Arguments of browser_metrics.
struct metrics_args {
    std::optional<int> last;  ///< how many of the newest calls to list (default 10)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(metrics_args, last, "How many of the newest calls",
                                     range(0, static_cast<int>(tool_state::recent_capacity))));
    }
};

/// Make the browser_artifact tool: read an artifact (screenshot, full snapshot, cut text, log) by id; text by
/// offset and length.
template <class State>
auto artifact_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_artifact">(
        st,
        "Read an artifact by id (text by offset and length).",
        [s](const artifact_args& a) -> result<tool_output> {
            // what the store holds came from pages (snapshots, logs, cut results): escaped, so it
            // cannot write a mark, and otherwise exactly as stored (offsets count the stored text)
            return read_artifact_output(s->store, a, [](std::string t) { return detail::escape_marks(t); });
        },
        read_only);
}

/// Make the browser_metrics tool: this session's browser tool calls, totals per tool and the last calls.
template <class State>
auto metrics_tool(State& st) {
    tool_state* s = &st;
    return tool<"browser_metrics">(
        "This session's browser calls: totals per tool and the newest calls.",
        [s](const metrics_args& a) {
            std::lock_guard lock(s->mu);
            auto line = [](const std::string& head, std::size_t calls, std::size_t bytes, std::size_t tokens, std::int64_t ms,
                           std::uint64_t trips, std::int64_t waited) {
                return head + ": " + std::to_string(calls) + (calls == 1 ? " call, " : " calls, ") + std::to_string(bytes) +
                       " bytes (~" + std::to_string(tokens) + " tokens), " + std::to_string(ms) + " ms, " +
                       std::to_string(trips) + " CDP round trips, " + std::to_string(waited) + " ms waiting\n";
            };
            const auto& t = s->total;
            std::string out = line("total", t.calls, t.bytes, t.tokens, t.ms, t.cdp_round_trips, t.wait_ms);
            for (const auto& [name, v] : s->per_tool)
                out += line(name, v.calls, v.bytes, v.tokens, v.ms, v.cdp_round_trips, v.wait_ms);
            const auto want = static_cast<std::size_t>(std::max(0, a.last.value_or(10)));
            const std::size_t n = std::min(want, s->recent.size());
            if (n > 0) out += "last " + std::to_string(n) + " calls (tool ok/error ms tokens round-trips wait-ms):\n";
            for (std::size_t i = s->recent.size() - n; i < s->recent.size(); ++i) {
                const auto& m = s->recent[i];
                out += m.tool + (m.ok ? " ok " : " error ") + std::to_string(m.ms) + " " + std::to_string(m.tokens) + " " +
                       std::to_string(m.cdp_round_trips) + " " + std::to_string(m.wait_ms) + "\n";
            }
            return tool_output::text(out);
        },
        read_only | parallel_safe);
}

}  // namespace agentkit::browser
