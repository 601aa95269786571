// agentkit/session/metrics.hpp — per-turn and per-session numbers, and a one-line log.
//
//   [turn 3 anthropic] in=6113 (fresh=1000 cache_read=5113 write=0 hit=83.6%) out=212 rt=1 1.21s
//     tools=2 [read_page 12ms 2,310c ok | click 4ms 41c ok*]      (* = parallel, ~ = speculative)
#pragma once

#include <agentkit/format/budget.hpp>
#include <agentkit/session/message.hpp>
#include <agentkit/session/provider.hpp>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace agentkit {

/// One tool call as it ran.
struct tool_metric {
    std::string name;              ///< the tool's name
    double ms = 0;                 ///< wall time of the call (0 for answers that ran nothing)
    std::size_t result_chars = 0;  ///< the formatted result's text size
    std::size_t result_tokens = 0; ///< estimated
    bool ok = true;                ///< the call succeeded
    bool parallel = false;         ///< ran concurrently with other calls
    bool speculative = false;      ///< started before the response was complete
    bool meta = false;             ///< a masker meta-tool
};

/// One model round trip and the tool calls it produced.
struct turn_metrics {
    std::size_t turn = 0;            ///< the turn's number in the session
    agentkit::provider provider = agentkit::provider::anthropic;  ///< the API the request went to
    agentkit::usage usage;           ///< as the provider reported it
    std::size_t estimated_input = 0; ///< the request estimated with the token counter
    std::size_t round_trips = 1;     ///< requests sent for this turn (retries included)
    double model_ms = 0;             ///< time waiting for the model
    double tools_ms = 0;             ///< wall time running the tools
    std::vector<tool_metric> tools;  ///< the tool calls of this turn, in order
    std::size_t speculative_used = 0;  ///< calls started early whose results were used
    std::size_t speculative_discarded = 0;  ///< calls started early whose results were thrown away

    /// One log line: tokens, cache hits, round trips, times and every call (`*` parallel, `~` speculative).
    [[nodiscard]] std::string log_line() const {
        char buf[96];
        std::string s = "[turn " + std::to_string(turn) + " " + std::string(to_string(provider)) + "] in=" +
                        std::to_string(usage.input_tokens);
        std::snprintf(buf, sizeof buf, "%.1f%%", usage.hit_rate() * 100.0);
        s += " (fresh=" + std::to_string(usage.fresh_input()) + " cache_read=" + std::to_string(usage.cache_read_tokens) +
             " write=" + std::to_string(usage.cache_write_tokens) + " hit=" + buf + ")";
        s += " out=" + std::to_string(usage.output_tokens);
        s += " rt=" + std::to_string(round_trips);
        std::snprintf(buf, sizeof buf, " model=%.0fms tools=%.0fms", model_ms, tools_ms);
        s += buf;
        s += " calls=" + std::to_string(tools.size());
        if (!tools.empty()) {
            s += " [";
            for (std::size_t i = 0; i < tools.size(); ++i) {
                const auto& t = tools[i];
                if (i) s += " | ";
                std::snprintf(buf, sizeof buf, " %.0fms ", t.ms);
                s += t.name + buf + group_digits(t.result_chars) + "c " + (t.ok ? "ok" : "err");
                if (t.parallel) s += '*';
                if (t.speculative) s += '~';
            }
            s += "]";
        }
        if (speculative_used + speculative_discarded > 0)
            s += " spec=" + std::to_string(speculative_used) + "/" + std::to_string(speculative_used + speculative_discarded);
        return s;
    }
};

/// Totals over a session.
struct session_metrics {
    std::vector<turn_metrics> turns;  ///< every turn, in order
    agentkit::usage usage;            ///< token usage summed over the turns
    std::size_t round_trips = 0;      ///< requests sent (retries included)
    std::size_t tool_calls = 0;       ///< tool calls made
    std::size_t tool_errors = 0;      ///< tool calls that failed
    std::size_t nudges = 0;           ///< prose answers the masker turned into nudges
    std::size_t malformed_calls = 0;  ///< tool calls whose arguments were not a JSON object

    /// Add a turn to the totals.
    void add(const turn_metrics& t) {
        usage += t.usage;
        round_trips += t.round_trips;
        tool_calls += t.tools.size();
        for (const auto& x : t.tools)
            if (!x.ok) ++tool_errors;
        turns.push_back(t);
    }

    /// One log line of the totals: turns, round trips, tokens, cache hits, calls and errors.
    [[nodiscard]] std::string log_line() const {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.1f%%", usage.hit_rate() * 100.0);
        std::string s = "[session] turns=" + std::to_string(turns.size()) + " rt=" + std::to_string(round_trips) +
                        " in=" + std::to_string(usage.input_tokens) + " out=" + std::to_string(usage.output_tokens) +
                        " cache_read=" + std::to_string(usage.cache_read_tokens) +
                        " write=" + std::to_string(usage.cache_write_tokens) + " hit=" + buf +
                        " calls=" + std::to_string(tool_calls) + " errors=" + std::to_string(tool_errors);
        std::snprintf(buf, sizeof buf, " effective_in=%.0f", usage.effective_input());
        s += buf;
        return s;
    }
};

}  // namespace agentkit
