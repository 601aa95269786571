// agentkit/format/report.hpp — the Result / Summary / Artifacts contract: the answer first,
// then bounded bullets, then where the large things are.
//
// What an agent-style tool (web_eval_agent, a sub-agent) hands back: the answer first, a few
// bounded bullets, and references to everything large — never the large things themselves.
//
//   Result: The order total is $42.10.
//   Summary:
//   - completed in 3 model turns (4 tool calls, 0 errors)
//   - ...
//   Artifacts:
//   - session_id: s-3f2a
//   - stored: 2 screenshots, 1 text (48,212 bytes)
//   - fetch: get_screenshots(session_id="s-3f2a") · read_artifact(id="a3") for a3 (page text)
//
// The fetch line names only tools the caller has: report::artifact_tool (an agent_session sets
// it to its toolbox's artifact reader) and report_options::screenshots_tool; without them it
// names each artifact by id and URI.
//
// Images are never inlined unless report_options::inline_images is set.
#pragma once

#include <agentkit/tools/output.hpp>
#include <agentkit/format/artifacts.hpp>
#include <agentkit/format/budget.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit {

/// What an agent-style tool hands back: the answer, summary bullets and the artifacts (see the file comment).
struct report {
    std::string result;                 ///< the final answer ("" when there is none)
    bool answered = false;              ///< true when `result` is a real answer
    std::string no_answer_reason;       ///< why there is no answer (step limit, error, ...)
    std::vector<std::string> summary;   ///< bullets, most important first
    std::string session_id;  ///< the session the artifacts belong to ("" = not shown)
    std::vector<artifact_ref> artifacts;  ///< the stored artifacts, counted and listed under Artifacts
    std::vector<std::string> next_actions;  ///< extra retrieval guidance lines
    /// The tool that reads artifacts back (agent_session: the toolbox's own); "" = name them by URI.
    std::string artifact_tool;
    /// Images the run produced that a caller may inline (only with inline_images).
    std::vector<content_block> images;
};

/// The bounds and tool names of a report's text.
struct report_options {
    std::size_t max_result_chars = 4000;     ///< the longest answer shown; the rest is cut with a note
    std::size_t max_bullets = 8;             ///< summary bullets shown (then "(+N more)")
    std::size_t max_bullet_chars = 240;      ///< the longest bullet (and no-answer reason, next action)
    std::size_t max_artifacts_listed = 5;    ///< artifacts named in the fetch line (then "…")
    std::size_t max_chars = 30000;           ///< the hard cap of the whole text
    /// A tool the caller has that returns a session's screenshots (web_eval's get_screenshots);
    /// "" = screenshots are listed like the other artifacts.
    std::string screenshots_tool;
    /// Overrides report::artifact_tool when not empty.
    std::string artifact_tool;
    bool inline_images = false;  ///< the tool result carries report::images as image blocks
};

namespace detail {
[[nodiscard]] inline std::string one_line(std::string_view s, std::size_t max) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) out += (c == '\n' || c == '\r') ? ' ' : c;
    if (out.size() > max) {
        out.resize(utf8_safe_prefix(out, max > 1 ? max - 1 : 0));
        out += "…";
    }
    return out;
}
}  // namespace detail

/// The report as text, within report_options::max_chars.
[[nodiscard]] inline std::string render_report(const report& r, const report_options& o = {}) {
    std::string s = "Result: ";
    if (r.answered && !r.result.empty()) {
        std::string res = cap_text(r.result, o.max_result_chars, "final answer", {}, nullptr,
                                   "ask for a narrower answer to see the rest");
        // Continuation lines are indented so the three sections stay unambiguous.
        for (char c : res) {
            s += c;
            if (c == '\n') s += "  ";
        }
    } else {
        s += "(no final answer";
        if (!r.no_answer_reason.empty()) s += ": " + detail::one_line(r.no_answer_reason, o.max_bullet_chars);
        s += ")";
    }
    s += "\nSummary:";
    const std::size_t shown = r.summary.size() < o.max_bullets ? r.summary.size() : o.max_bullets;
    for (std::size_t i = 0; i < shown; ++i) s += "\n- " + detail::one_line(r.summary[i], o.max_bullet_chars);
    if (shown < r.summary.size()) s += "\n- (+" + std::to_string(r.summary.size() - shown) + " more)";
    if (r.summary.empty()) s += "\n- (nothing to report)";
    s += "\nArtifacts:";
    if (!r.session_id.empty()) s += "\n- session_id: " + r.session_id;
    const artifact_counts c = count_artifacts(r.artifacts);
    if (c.total() == 0) {
        s += "\n- stored: none";
    } else {
        s += "\n- stored:";
        bool first = true;
        auto part = [&](std::size_t n, std::string_view one, std::string_view many) {
            if (n == 0) return;
            s += first ? " " : ", ";
            first = false;
            s += std::to_string(n) + " " + std::string(n == 1 ? one : many);
        };
        part(c.images, "screenshot", "screenshots");
        part(c.texts, "text", "texts");
        part(c.other, "file", "files");
        s += " (" + group_digits(c.bytes) + " bytes)";
        std::string fetch;
        const bool by_session = c.images > 0 && !r.session_id.empty() && !o.screenshots_tool.empty();
        if (by_session) fetch += o.screenshots_tool + "(session_id=\"" + r.session_id + "\")";
        const std::string& reader = o.artifact_tool.empty() ? r.artifact_tool : o.artifact_tool;
        std::size_t listed = 0;
        for (const auto& a : r.artifacts) {
            if (by_session && a.mime_type.rfind("image/", 0) == 0) continue;
            if (listed == o.max_artifacts_listed) {
                fetch += " · …";
                break;
            }
            if (!fetch.empty()) fetch += " · ";
            fetch += reader.empty() ? a.id + (a.uri.empty() ? std::string() : " (" + a.uri + ")") : reader + "(id=\"" + a.id + "\")";
            if (!a.name.empty()) fetch += " for " + detail::one_line(a.name, 60);
            ++listed;
        }
        if (!fetch.empty()) s += (reader.empty() && !by_session ? "\n- ids: " : "\n- fetch: ") + fetch;
    }
    for (const auto& n : r.next_actions) s += "\n- " + detail::one_line(n, o.max_bullet_chars);
    return cap_text(s, o.max_chars, "report");
}

/// The report as a tool result: one text block (plus images only when inline_images is set).
[[nodiscard]] inline tool_output report_output(const report& r, const report_options& o = {}) {
    tool_output out = tool_output::text(render_report(r, o));
    if (o.inline_images)
        for (const auto& img : r.images)
            if (img.type == content_block::kind::image) out.content.push_back(img);
    out.structured = json{{"result", r.answered ? json(r.result) : json(nullptr)},
                          {"summary", r.summary},
                          {"session_id", r.session_id},
                          {"artifact_count", r.artifacts.size()}};
    return out;
}

}  // namespace agentkit
