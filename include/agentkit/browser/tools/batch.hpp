// agentkit/browser/tools/batch.hpp — browser tools: reading several URLs at once (browser_batch).
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

#include <agentkit/browser/tools/support.hpp>

namespace agentkit::browser {

/// Arguments of browser_batch.
struct batch_args {
    std::vector<std::string> urls;  ///< the URLs to read (1-20), each in its own temporary tab
    std::optional<int> budget;      ///< token budget shared by all pages (default 8000)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(batch_args, urls, ""),
                      AGENTKIT_FIELD(batch_args, budget, "Tokens shared by all pages", range(200, 100000)));
    }
};

namespace detail {

/// The text of a batch read. The page texts share the tokens the result cap leaves after the
/// headers and notes (pages that need less than an equal share give the rest away), so the
/// generic cap never cuts a batch; a page cut here or by its token share is stored whole as an
/// artifact and its note says where the part not shown starts.
inline result<tool_output> batch_output(tool_state& st, const std::vector<batch_page>& pages) {
    constexpr std::size_t max_blocked_lines = 10;  // per page
    constexpr std::size_t note_reserve = 200;       // a cut note with the artifact id and offset (bytes)
    constexpr std::size_t seam_tokens = 4;          // a count of parts joined may exceed their counts' sum
    const std::string& nonce = st.b.boundary();
    std::vector<std::string> heads(pages.size());    // "## n. URL as asked", an error: ours
    std::vector<std::string> reports(pages.size());  // where it went, what it requested: the page's, in its marks
    std::size_t ok = 0;
    for (std::size_t i = 0; i < pages.size(); ++i) {
        const auto& p = pages[i];
        std::string& h = heads[i];
        h = "## " + std::to_string(i + 1) + ". " + p.url + "\n";
        if (p.error_) {
            h += "error: " + p.error_->message + "\n\n";
            continue;
        }
        ++ok;
        std::string& r = reports[i];
        const bool success = p.http_status == 0 || (p.http_status >= 200 && p.http_status <= 299);
        // the final URL when a redirect changed it, the status when it is not a success
        if (!p.final_url.empty() && !detail::same_place(p.final_url, p.url)) r += "url: " + p.final_url + (success ? "\n" : " ");
        if (!success) r += "HTTP " + std::to_string(p.http_status) + "\n";
        for (std::size_t k = 0; k < p.blocked.size() && k < max_blocked_lines; ++k)
            r += "blocked " + p.blocked[k].resource_type + " " + p.blocked[k].url + " (policy " + p.blocked[k].rule + ")\n";
        if (p.blocked.size() > max_blocked_lines)
            r += "blocked " + std::to_string(p.blocked.size() - max_blocked_lines) + " more requests (browser_network_requests lists them)\n";
    }
    const std::string top = std::to_string(ok) + " of " + std::to_string(pages.size()) + " pages read\n\n";
    // the tokens the headers, marks and notes take; the rest is shared by the page texts
    const auto& tokens = st.tokens;
    std::size_t fixed = tokens.count(top) + seam_tokens;
    const std::size_t marks = tokens.count(detail::page_data("x", nonce));  // with a one-character text
    const std::size_t note_tokens = tokens.count(std::string(note_reserve, 'x'));
    for (std::size_t i = 0; i < pages.size(); ++i) {
        fixed += tokens.count(heads[i]) + tokens.count(reports[i]) + 2 * seam_tokens;
        if (!pages[i].error_) fixed += marks + note_tokens + tokens.count("title: " + pages[i].title + "\n") + seam_tokens;
    }
    const std::size_t cap = st.options.max_result_tokens;
    std::size_t left = cap > fixed ? cap - fixed : 0;
    std::vector<std::size_t> need(pages.size(), 0), share(pages.size(), 0);
    for (std::size_t i = 0; i < pages.size(); ++i)
        if (!pages[i].error_) need[i] = tokens.count(pages[i].text);
    {
        std::size_t open = 0;
        for (const auto& p : pages) open += p.error_ ? 0U : 1U;
        std::vector<bool> done(pages.size(), false);
        bool changed = true;
        while (open > 0 && changed) {
            changed = false;
            const std::size_t fair = left / open;
            for (std::size_t i = 0; i < pages.size(); ++i)
                if (!pages[i].error_ && !done[i] && need[i] <= fair) {
                    share[i] = need[i];
                    left -= share[i];
                    done[i] = true;
                    --open;
                    changed = true;
                }
        }
        for (std::size_t i = 0; i < pages.size(); ++i)
            if (!pages[i].error_ && !done[i]) share[i] = open ? left / open : 0;
    }
    std::string out = top;
    for (std::size_t i = 0; i < pages.size(); ++i) {
        const auto& p = pages[i];
        out += heads[i];
        if (p.error_) continue;
        std::string text = p.text;
        bool cut = false;
        if (need[i] > share[i]) {
            std::size_t keep = token_prefix(text, share[i], tokens);
            if (const auto nl = text.rfind('\n', keep == 0 ? 0 : keep - 1); nl != std::string::npos && nl + 1 >= keep / 2)
                keep = nl + 1;  // whole lines, unless that loses more than half the share
            text.resize(keep);
            cut = true;
        }
        out += detail::page_data(reports[i] + "title: " + p.title + "\n" + text, nonce);  // the title is the page's text too
        if (cut || p.truncated) {
            // the whole page out of band; when what is shown is its beginning, the rest starts at `shown`
            const std::string& whole = p.truncated ? p.full_text : p.text;
            auto ref = store_text(st, "page text", "full text of " + p.final_url, whole);
            const bool prefix = whole.compare(0, text.size(), text) == 0;
            // the one cut wording (format/budget.hpp); a page cut to its token share shows whole lines,
            // not a prefix: its note names the whole text without an offset
            std::string note =
                cut_note(text.size(), whole.size(), "page text",
                         ref ? stored_rest(*ref, artifact_tool_name, prefix && !text.empty() ? std::optional<std::size_t>(text.size()) : std::nullopt)
                             : "it could not be stored: " + ref.error().message) +
                "\n";
            if (note.size() > note_reserve) note = note.substr(0, utf8_safe_prefix(note, note_reserve - 2)) + "]\n";
            out += note;
        }
        out += "\n";
    }
    return tool_output::text(std::move(out));
}

}  // namespace detail

/// Make the browser_batch tool: read several URLs at once (each in its own temporary tab, concurrently) and
/// return each page's compact text within one shared token budget.
template <class State>
auto batch_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_batch">(
        st,
        "Read several URLs at once, each as compact text within one shared token budget.",
        [s](const batch_args& a) -> result<tool_output> {
            auto r = s->b.batch_read(a.urls, static_cast<std::size_t>(a.budget.value_or(8000)));
            if (!r) return fail(r.error());
            return detail::batch_output(*s, *r);
        },
        reading_traits | long_running);
}

}  // namespace agentkit::browser
