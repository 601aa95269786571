// agentkit/format/budget.hpp — hard, self-describing size budgets.
//
// Every result the model sees has a ceiling. What is cut says how much was cut and how to get
// it: an artifact id when a store is given, otherwise how to ask for less.
//
//   agentkit::cut_report cut;
//   std::string s = agentkit::cap_text(page_text, 6000, "page text", store, &cut);
//   // s.size() <= 6000, ends with
//   // "[cut: showing 5,861 of 48,212 chars of page text; full text: artifact a3 (agentkit://artifacts/a3)]"
//
//   std::string t = agentkit::cap_tokens(page_text, 1500, agentkit::token_counter{}, "page text", store);
//   // counts <= 1,500 tokens, the same note (its numbers are characters: where the rest starts)
//
//   agentkit::head_tail(old_result, 1400, 500);  // history compression: head, marker, tail
#pragma once

#include <agentkit/core/strings.hpp>
#include <agentkit/core/tokens.hpp>
#include <agentkit/format/artifacts.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace agentkit {

/// What kind of content a result carries; each kind has its own cap.
enum class result_kind { generic, snapshot, page_text, extraction, search, log };

/// The kind's name in a cut note ("snapshot", "page text", ...; "result" for generic).
[[nodiscard]] constexpr std::string_view to_string(result_kind k) noexcept {
    switch (k) {
        case result_kind::generic: return "result";
        case result_kind::snapshot: return "snapshot";
        case result_kind::page_text: return "page text";
        case result_kind::extraction: return "extraction";
        case result_kind::search: return "search results";
        case result_kind::log: return "log";
    }
    return "result";
}

/// Token budgets, as the formatter's token_counter counts (the unit of every budget a model's
/// context is measured in: a browser snapshot's, a tool result's). `total` is the hard cap for
/// any single result; a per-kind cap applies to the text of that kind (0 = only the total applies).
struct budgets {
    std::size_t total = 10000;      ///< the hard cap on any single result
    std::size_t snapshot = 1500;    ///< the cap on snapshot text
    std::size_t page_text = 1500;   ///< the cap on page text
    std::size_t extraction = 1000;  ///< the cap on extraction results
    std::size_t search = 1000;      ///< the cap on search results
    std::size_t log = 1000;         ///< the cap on logs (console, network)

    /// The cap for a kind: its own cap, or `total` when that is 0 or larger.
    [[nodiscard]] constexpr std::size_t cap(result_kind k) const noexcept {
        std::size_t c = 0;
        switch (k) {
            case result_kind::generic: c = 0; break;
            case result_kind::snapshot: c = snapshot; break;
            case result_kind::page_text: c = page_text; break;
            case result_kind::extraction: c = extraction; break;
            case result_kind::search: c = search; break;
            case result_kind::log: c = log; break;
        }
        return (c == 0 || c > total) ? total : c;
    }
};

/// `12345` → `"12,345"`.
[[nodiscard]] inline std::string group_digits(std::size_t n) {
    std::string d = std::to_string(n);
    std::string out;
    out.reserve(d.size() + d.size() / 3);
    const std::size_t lead = d.size() % 3;
    for (std::size_t i = 0; i < d.size(); ++i) {
        if (i != 0 && (i % 3) == lead) out += ',';
        out += d[i];
    }
    return out;
}

/// What a cut removed (filled by cap_text when it cuts).
struct cut_report {
    bool cut = false;                      ///< true when the text was cut
    std::size_t original_chars = 0;        ///< the text's length before the cut
    std::size_t kept_chars = 0;            ///< the length kept
    std::optional<artifact_ref> artifact;  ///< where the full text went, when stored
};

namespace detail {
/// Prefer cutting at a line break in the last 15% of the allowed prefix.
[[nodiscard]] inline std::size_t nice_cut(std::string_view s, std::size_t max_bytes) {
    std::size_t n = utf8_safe_prefix(s, max_bytes);
    if (n >= s.size()) return n;
    const std::size_t floor = n - n * 15 / 100;
    for (std::size_t i = n; i > floor && i > 0; --i)
        if (s[i - 1] == '\n') return i;
    return n;
}
}  // namespace detail

/// The length of the longest prefix of `text` (UTF-8 safe) that `tokens` counts at
/// `max_tokens` or fewer: text.size() when all of it fits. A token budget's cut point, found
/// in ~log2(size) counts of prefixes (a count grows with its text).
[[nodiscard]] inline std::size_t token_prefix(std::string_view text, std::size_t max_tokens, const token_counter& tokens) {
    if (tokens.count(text) <= max_tokens) return text.size();
    std::size_t lo = 0, hi = text.size();  // the prefix of lo fits, the prefix of hi does not
    while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (tokens.count(text.substr(0, utf8_safe_prefix(text, mid))) <= max_tokens) lo = mid;
        else hi = mid;
    }
    return utf8_safe_prefix(text, lo);
}

/// How to read a stored artifact: `reader_tool {"id": "a3", "offset": 5861}` when the host has a
/// tool that reads artifacts (e.g. browser_artifact), else `artifact a3 (agentkit://artifacts/a3)`.
[[nodiscard]] inline std::string artifact_read_hint(const artifact_ref& a, std::string_view reader_tool = {},
                                                    std::optional<std::size_t> offset = std::nullopt) {
    if (reader_tool.empty()) return "artifact " + a.id + (a.uri.empty() ? std::string() : " (" + a.uri + ")");
    std::string s = std::string(reader_tool) + " {\"id\": \"" + a.id + "\"";
    if (offset) s += ", \"offset\": " + std::to_string(*offset);
    return s + "}";
}

/// Where the rest of a cut text is, once stored: "the rest: reader_tool {…, "offset": N}" when the
/// host has an artifact-reading tool and what was shown is the text's beginning (`shown`: its
/// length), else "full text: …" (the tool call without an offset, or the artifact's URI).
[[nodiscard]] inline std::string stored_rest(const artifact_ref& a, std::string_view reader_tool,
                                             std::optional<std::size_t> shown = std::nullopt) {
    if (reader_tool.empty() || !shown) return "full text: " + artifact_read_hint(a, reader_tool);
    return "the rest: " + artifact_read_hint(a, reader_tool, shown);
}

/// The one wording of a cut, for every part of agentkit: what is shown of how much (in `unit`s),
/// and where the rest is (`rest`, e.g. "the rest: " + artifact_read_hint(...), or advice to ask
/// for less):
///   "[cut: showing 5,861 of 48,212 chars of page text; the rest: browser_artifact {"id": "a3", "offset": 5861}]"
///   "[cut: showing 212 of 1,304 lines of snapshot (~6,000 tokens; hidden: 1,092 text lines); to see them: ...]"
[[nodiscard]] inline std::string cut_note(std::size_t shown, std::size_t total, std::string_view unit, std::string_view what,
                                          std::string_view rest) {
    std::string s = "[cut: showing " + group_digits(shown) + " of " + group_digits(total) + " ";
    s += unit;
    s += " of ";
    s += what;
    s += "; ";
    s += rest;
    return s + "]";
}

/// cut_note in characters (the text's bytes: what an offset into it counts).
[[nodiscard]] inline std::string cut_note(std::size_t shown, std::size_t total, std::string_view what, std::string_view rest) {
    return cut_note(shown, total, "chars", what, rest);
}

namespace detail {
/// What cap_text and cap_tokens share: `size` measures a text in the budget's unit, `prefix`
/// gives the length of the longest prefix of a text within a budget in that unit.
template <class Size, class Prefix>
[[nodiscard]] std::string cap_by(std::string_view text, std::size_t cap, const Size& size, const Prefix& prefix, std::string_view what,
                                 artifact_sink_ref sink, cut_report* report, std::string_view narrow_hint, std::string_view reader_tool) {
    if (size(text) <= cap) return std::string(text);
    std::optional<artifact_ref> stored;
    if (sink) {
        artifact_blob b;
        b.mime_type = "text/plain";
        b.name = std::string(what);
        b.description = "full " + std::string(what) + " (" + group_digits(text.size()) + " chars) cut from a result";
        b.data = std::string(text);
        if (auto r = sink.put(std::move(b))) stored = std::move(*r);
    }
    auto note_for = [&](std::size_t kept) {
        const std::string rest = stored ? stored_rest(*stored, reader_tool, kept)
                                 : !narrow_hint.empty() ? std::string(narrow_hint)
                                                        : std::string("narrow the request (a selector, a section or a smaller range) to see the rest");
        return "\n" + cut_note(kept, text.size(), what, rest);
    };
    // The note's length depends on the kept count only through its digits; size it for the worst case.
    const std::size_t note_size = size(note_for(text.size()));
    std::string out;
    if (note_size >= cap) {
        out.assign(text.substr(0, prefix(text, cap)));
    } else {
        std::size_t keep = nice_cut(text, prefix(text, cap - note_size));
        out.assign(text.substr(0, keep));
        out += note_for(keep);
        // a count of two joined parts can exceed the sum of their counts (tokens): give it back
        for (int i = 0; i < 4 && size(out) > cap && keep > 0; ++i) {
            const std::size_t over = size(out) - cap, now = size(text.substr(0, keep));
            keep = prefix(text, now > over ? now - over : 0);
            out.assign(text.substr(0, keep));
            out += note_for(keep);
        }
    }
    if (report) {
        report->cut = true;
        report->original_chars = text.size();
        report->kept_chars = out.size();
        report->artifact = stored;
    }
    return out;
}
}  // namespace detail

/// Cap `text` at `cap` bytes (UTF-8 safe). When it is longer, the full text is stored in `sink`
/// (if any) and the kept head is followed by a one-line note saying what was cut and how to get
/// it. The returned string is never longer than `cap`. `what` names the content ("page text").
/// `narrow_hint` replaces the default advice when there is no store; `reader_tool` names the
/// host's artifact-reading tool (empty: the note names the artifact's URI).
[[nodiscard]] inline std::string cap_text(std::string_view text, std::size_t cap, std::string_view what = "result",
                                          artifact_sink_ref sink = {}, cut_report* report = nullptr,
                                          std::string_view narrow_hint = {}, std::string_view reader_tool = {}) {
    return detail::cap_by(
        text, cap, [](std::string_view s) { return s.size(); }, [](std::string_view s, std::size_t n) { return utf8_safe_prefix(s, n); },
        what, sink, report, narrow_hint, reader_tool);
}

/// cap_text with the cap in tokens as `tokens` counts them (the unit of the budgets a model's
/// context is measured in): the returned text, note included, counts at most `max_tokens`.
[[nodiscard]] inline std::string cap_tokens(std::string_view text, std::size_t max_tokens, const token_counter& tokens,
                                            std::string_view what = "result", artifact_sink_ref sink = {}, cut_report* report = nullptr,
                                            std::string_view narrow_hint = {}, std::string_view reader_tool = {}) {
    return detail::cap_by(
        text, max_tokens, [&](std::string_view s) { return tokens.count(s); },
        [&](std::string_view s, std::size_t n) { return token_prefix(s, n, tokens); }, what, sink, report, narrow_hint, reader_tool);
}

/// History compression: the first `head` and last `tail` bytes with a marker between them
/// (UTF-8 safe). Text no longer than head + tail + the marker is returned unchanged.
/// `how_to_get` is appended to the marker ("re-run read_page to see it again").
[[nodiscard]] inline std::string head_tail(std::string_view text, std::size_t head = 1400, std::size_t tail = 500,
                                           std::string_view how_to_get = {}) {
    const std::string probe = "\n[... " + group_digits(text.size()) + " chars omitted from an older result ...]\n";
    if (text.size() <= head + tail + probe.size() + how_to_get.size() + 2) return std::string(text);
    const std::size_t h = detail::nice_cut(text, head);
    const std::size_t t = utf8_safe_suffix_start(text, tail);
    const std::size_t omitted = t > h ? t - h : 0;
    std::string out(text.substr(0, h));
    out += "\n[... " + group_digits(omitted) + " chars omitted from an older result";
    if (!how_to_get.empty()) {
        out += "; ";
        out += how_to_get;
    }
    out += " ...]\n";
    out += text.substr(t);
    return out;
}

}  // namespace agentkit
