// agentkit/format/compact.hpp — compact result strings for the built-in tool kinds (seed 004).
//
// Tool results are input tokens on every later call, so they say what happened and nothing
// else: `Clicked "Submit" → Thanks (https://ex.com/done)`, `Typed "hello world".`,
// `Scrolled down.`, `Tab opened → https://…`, and for compound tools a step list
// `click:ok type:ok wait:120ms`.
//
//   using namespace agentkit::compact;
//   clicked("Submit", "Thanks", "https://ex.com/done");   // Clicked "Submit" → Thanks (https://ex.com/done)
//   steps({{"click"}, {"type"}, {"wait", true, "", 120}}); // click:ok type:ok wait:120ms
#pragma once

#include <agentkit/core/strings.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
/// ` → Title (url)` / ` → url` / ` → Title`, or empty when both are empty.
[[nodiscard]] inline std::string arrow_page(std::string_view title, std::string_view url) {
    if (title.empty() && url.empty()) return {};
    std::string s = " → ";
    if (!title.empty()) {
        s += title;
        if (!url.empty()) {
            s += " (";
            s += url;
            s += ')';
        }
    } else {
        s += url;
    }
    return s;
}
}  // namespace detail

/// `Title (url)` — the page a result ended on.
[[nodiscard]] inline std::string page(std::string_view title, std::string_view url) {
    std::string s = detail::arrow_page(title, url);
    return s.empty() ? s : s.substr(5);  // drop " → " (5 bytes: space, 3-byte arrow, space)
}

/// `Clicked "Submit".` or, when the click led somewhere, `Clicked "Submit" → Thanks (https://…)`.
[[nodiscard]] inline std::string clicked(std::string_view target, std::string_view title = {}, std::string_view url = {}) {
    std::string s = "Clicked " + detail::quoted(target);
    const std::string p = detail::arrow_page(title, url);
    s += p.empty() ? std::string(".") : p;
    return s;
}

/// `Typed "hello world".` (`Typed "hello…" (120 chars) ⏎.` for long text submitted with Enter).
[[nodiscard]] inline std::string typed(std::string_view text, bool submitted = false, std::size_t max_echo = 40) {
    std::string s = "Typed " + detail::quoted(text, max_echo);
    if (text.size() > max_echo) s += " (" + std::to_string(text.size()) + " chars)";
    if (submitted) s += " ⏎";
    s += '.';
    return s;
}

/// `Scrolled down.` / `Scrolled down 600px.`
[[nodiscard]] inline std::string scrolled(std::string_view direction, int pixels = 0) {
    std::string s = "Scrolled ";
    s += direction;
    if (pixels > 0) s += " " + std::to_string(pixels) + "px";
    s += '.';
    return s;
}

/// `Title (url)` followed by a blank line and the page body (snapshot or text), if any.
[[nodiscard]] inline std::string navigated(std::string_view title, std::string_view url, std::string_view body = {}) {
    std::string s = page(title, url);
    if (!body.empty()) {
        s += "\n\n";
        s += body;
    }
    return s;
}

/// `Tab opened → https://…`
[[nodiscard]] inline std::string tab_opened(std::string_view url) { return "Tab opened → " + std::string(url); }

/// `Waited 120ms.`
[[nodiscard]] inline std::string waited(long long ms) { return "Waited " + std::to_string(ms) + "ms."; }

/// One search hit.
struct search_hit {
    std::string title;
    std::string snippet;
    std::string url;
};

/// `"query" results:` then `1. Title - snippet (url)` per hit (snippets shortened to `max_snippet`).
[[nodiscard]] inline std::string search_results(std::string_view query, const std::vector<search_hit>& hits,
                                                std::size_t max_snippet = 160) {
    std::string s = detail::quoted(query, 80) + (hits.empty() ? " no results." : " results:");
    std::size_t i = 0;
    for (const auto& h : hits) {
        s += "\n" + std::to_string(++i) + ". " + h.title;
        if (!h.snippet.empty()) {
            s += " - ";
            if (h.snippet.size() > max_snippet) {
                s += h.snippet.substr(0, agentkit::utf8_safe_prefix(h.snippet, max_snippet));
                s += "…";
            } else {
                s += h.snippet;
            }
        }
        if (!h.url.empty()) s += " (" + h.url + ")";
    }
    return s;
}

/// The outcome of one step of a compound tool (interact, fill_form, batch).
struct step {
    std::string action;     ///< "click", "type", "wait", "fill", ...
    bool ok = true;
    std::string detail;     ///< on failure: the error code ("element.covered"); on success: optional
    long long ms = -1;      ///< a duration worth showing (waits), or -1
    bool skipped = false;   ///< not run (stop on error)

    step() = default;
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

/// A step list and the page it ended on: `click:ok type:ok click:ok → Home (https://x.com/home)`.
[[nodiscard]] inline std::string steps(const std::vector<step>& list, std::string_view title, std::string_view url) {
    return steps(list) + detail::arrow_page(title, url);
}

/// `fill:5/5 ok` or `fill:4/5 (Email: element.not_visible)` — a form fill summary.
struct field_result {
    std::string label;
    bool ok = true;
    std::string error_code;

    field_result() = default;
    field_result(std::string label_, bool ok_ = true, std::string code = {})
        : label(std::move(label_)), ok(ok_), error_code(std::move(code)) {}
};
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
