// agentkit/format/compact.hpp — the wordings compound tools share: a few tokens a call.
//
// Tool results are input tokens on every later call, so they say what happened and nothing
// else. The wordings shared by every compound tool: a step list (browser_interact, the demo's
// form tool), a form fill summary, and search results. (What a browser action changed on the
// page is worded by browser/action_result.hpp.)
//
//   using namespace agentkit::compact;
//   steps({{"click"}, {"type"}, {"wait", true, "", 120}}); // click:ok type:ok wait:120ms
//   filled({{"Name"}, {"Email", false, "element.not_visible"}});  // fill:1/2 (Email: element.not_visible)
#pragma once

#include <agentkit/core/strings.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

/// The compact wordings compound tools share (steps, form fills, search results).
namespace agentkit::compact {

namespace detail {
/// Quote a label, shortened to `max` bytes (UTF-8 safe) with an ellipsis.
[[nodiscard]] inline std::string quoted(std::string_view s, std::size_t max = 60) {
    std::string out = "\"";
    if (s.size() > max) {
        out += s.substr(0, agentkit::utf8_safe_prefix(s, max));
        out += "…";
    } else {
        out += s;
    }
    out += '"';
    return out;
}
}  // namespace detail

/// One search hit.
struct search_hit {
    std::string title;    ///< the hit's title
    std::string snippet;  ///< a short excerpt (shortened by search_results())
    std::string url;      ///< the hit's address (empty: none shown)
    std::string date{};   ///< when it was published (empty: none shown)
    std::string note{};   ///< a mark shown after it in brackets ("blocked by policy: ..."; empty: none)
};

/// `"query" results:` then `1. Title - snippet (url, date) [note]` per hit (snippets shortened to
/// `max_snippet`; the date and the note only when set).
[[nodiscard]] inline std::string search_results(std::string_view query, const std::vector<search_hit>& hits,
                                                std::size_t max_snippet = 160) {
    std::string s = detail::quoted(query, 80) + (hits.empty() ? " no results." : " results:");
    std::size_t i = 0;
    // appends only: g++ 12 at -O3 reports a false -Wrestrict on `"\n" + std::to_string(...)`
    for (const auto& h : hits) {
        s += '\n';
        s += std::to_string(++i);
        s += ". ";
        s += h.title;
        if (!h.snippet.empty()) {
            s += " - ";
            if (h.snippet.size() > max_snippet) {
                s += h.snippet.substr(0, agentkit::utf8_safe_prefix(h.snippet, max_snippet));
                s += "…";
            } else {
                s += h.snippet;
            }
        }
        if (!h.url.empty() || !h.date.empty()) {
            s += " (";
            s += h.url;
            if (!h.url.empty() && !h.date.empty()) s += ", ";
            s += h.date;
            s += ')';
        }
        if (!h.note.empty()) {
            s += " [";
            s += h.note;
            s += ']';
        }
    }
    return s;
}

/// The outcome of one step of a compound tool (interact, fill_form, batch).
struct step {
    std::string action;     ///< "click", "type", "wait", "fill", ...
    bool ok = true;         ///< the step succeeded
    std::string detail;     ///< on failure: the error code ("element.covered"); on success: optional
    long long ms = -1;      ///< a duration worth showing (waits), or -1
    bool skipped = false;   ///< not run (stop on error)

    step() = default;
    /// A step: its action, whether it succeeded, and the optional detail, duration and skip mark.
    step(std::string action_, bool ok_ = true, std::string detail_ = {}, long long ms_ = -1, bool skipped_ = false)
        : action(std::move(action_)), ok(ok_), detail(std::move(detail_)), ms(ms_), skipped(skipped_) {}
};

/// `click:ok type:ok wait:120ms fill:fail(ref.stale) type:skip`
[[nodiscard]] inline std::string steps(const std::vector<step>& list) {
    std::string s;
    for (const auto& st : list) {
        if (!s.empty()) s += ' ';
        s += st.action;
        s += ':';
        if (st.skipped) {
            s += "skip";
        } else if (!st.ok) {
            s += "fail";
            if (!st.detail.empty()) s += "(" + st.detail + ")";
        } else if (st.ms >= 0) {
            s += std::to_string(st.ms) + "ms";
        } else if (!st.detail.empty()) {
            s += st.detail;
        } else {
            s += "ok";
        }
    }
    return s;
}

/// `fill:5/5 ok` or `fill:4/5 (Email: element.not_visible)` — a form fill summary.
struct field_result {
    std::string label;       ///< the field's label, named on failure
    bool ok = true;          ///< the field was filled
    std::string error_code;  ///< on failure: the error code ("element.not_visible")

    field_result() = default;
    /// A field's result: its label, whether it was filled, and the error code on failure.
    field_result(std::string label_, bool ok_ = true, std::string code = {})
        : label(std::move(label_)), ok(ok_), error_code(std::move(code)) {}
};
/// `fill:N/M ok`, or `fill:N/M (Label: code, ...)` naming the fields that failed.
[[nodiscard]] inline std::string filled(const std::vector<field_result>& fields) {
    std::size_t ok = 0;
    std::string failures;
    for (const auto& f : fields) {
        if (f.ok) {
            ++ok;
        } else {
            if (!failures.empty()) failures += ", ";
            failures += f.label + ": " + (f.error_code.empty() ? std::string("failed") : f.error_code);
        }
    }
    std::string s = "fill:" + std::to_string(ok) + "/" + std::to_string(fields.size());
    s += failures.empty() ? std::string(" ok") : " (" + failures + ")";
    return s;
}

}  // namespace agentkit::compact
