// agentkit/browser/tools/search.hpp — web_search: search the web through the configured backend
// (search::searcher; SearXNG, Brave, Tavily, a Serper-format API or the host's own) without the
// browser: no page is opened, no tab is touched. Part of browser/tools.hpp (include that).
//
// The result is compact numbered lines — title, snippet clipped to a budget, the URL (a very
// long one shortened as snapshot links are), the date when the backend knows it — after the
// backend's answer box or knowledge-panel text when it has one, framed as untrusted data like
// page text. A result whose URL the origin policy refuses is marked, not hidden: reading it with
// browser_navigate or browser_batch would be refused. What was clipped (whole snippets, the
// whole answer, full URLs) is stored as one artifact, named at the end.
#pragma once

#include <agentkit/browser/detail/page_data.hpp>
#include <agentkit/browser/detail/render.hpp>
#include <agentkit/browser/tools/support.hpp>
#include <agentkit/format/compact.hpp>
#include <agentkit/search/query.hpp>
#include <agentkit/search/searcher.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace agentkit::browser {

/// Arguments of web_search.
struct web_search_args {
    std::string query;                    ///< what to search for
    int count = 10;                       ///< results wanted (1-20)
    std::optional<std::string> site;      ///< results from this site only
    std::optional<std::string> recency;   ///< day, week, month or year
    std::optional<std::string> language;  ///< results in this language
    std::optional<std::string> region;    ///< results for this country
    int page = 1;                         ///< the page of results (1-10)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(web_search_args, query, "Words to search for", min_length(1), max_length(400)),
                      AGENTKIT_FIELD(web_search_args, count, "Results (1-20)", range(1, 20)),
                      AGENTKIT_FIELD(web_search_args, site, "Only this site, e.g. example.com"),
                      AGENTKIT_FIELD(web_search_args, recency, "Published within", one_of("day", "week", "month", "year")),
                      AGENTKIT_FIELD(web_search_args, language, "Language code, e.g. en"),
                      AGENTKIT_FIELD(web_search_args, region, "Country code, e.g. us"),
                      AGENTKIT_FIELD(web_search_args, page, "Results page (1-10)", range(1, 10)));
    }
};

/// How web_search shapes its result (characters).
struct web_search_budget {
    std::size_t snippet = 200;  ///< of each snippet
    std::size_t answer = 600;   ///< of the answer box
    std::size_t url = 120;      ///< a longer URL loses its query and fragment (as snapshot links do)
};

namespace detail {

/// The text of a search's results (and the full text to store when something was clipped).
inline result<tool_output> search_output(tool_state& st, const search::query& q, const search::results& r,
                                         const web_search_budget& budget = {}) {
    bool clipped = false;
    std::vector<compact::search_hit> hits;
    std::string full;  // everything, unclipped, for the artifact
    std::size_t blocked = 0;
    for (std::size_t i = 0; i < r.hits.size(); ++i) {
        const auto& h = r.hits[i];
        compact::search_hit c;
        c.title = h.title;
        c.snippet = h.snippet;
        c.date = h.date;
        c.url = compact_url(h.url, "", budget.url, budget.url + 40);  // a path is cut only when very long
        if (h.url.rfind("https://", 0) == 0 && c.url.rfind("https://", 0) != 0) c.url = "https://" + c.url;  // a URL to read stays whole-schemed
        if (c.url != h.url || h.snippet.size() > budget.snippet) clipped = true;
        if (auto v = st.b.policy().check_navigation(h.url)) {
            c.note = "blocked by policy: " + v->rule;
            ++blocked;
        }
        hits.push_back(std::move(c));
        full += std::to_string(i + 1) + ". " + h.title + "\n   " + h.url + (h.date.empty() ? "" : "  (" + h.date + ")") + "\n   " + h.snippet + "\n";
    }
    std::string body;
    if (!r.answer.empty()) {
        std::string a = r.answer;
        if (a.size() > budget.answer) {
            a = a.substr(0, utf8_safe_prefix(a, budget.answer)) + "…";
            clipped = true;
        }
        body += "answer: " + a + (r.answer_source.empty() ? "" : " (" + r.answer_source + ")") + "\n";
        full = "answer: " + r.answer + (r.answer_source.empty() ? "" : " (" + r.answer_source + ")") + "\n" + full;
    }
    body += compact::search_results(q.text, hits, budget.snippet);
    std::string out = page_data(body, st.b.boundary());
    std::string tail = "(" + r.backend + (r.from_cache ? ", from cache" : "") + (q.page > 1 ? ", page " + std::to_string(q.page) : "") + ")";
    if (blocked > 0)
        tail += " " + std::to_string(blocked) + (blocked == 1 ? " result is" : " results are") +
                " outside the origin policy: reading them is refused.";
    out += tail + "\n";
    for (const auto& n : r.notes) out += "note: " + n + "\n";
    if (clipped) {
        auto ref = store_text(st, "web_search results", "the whole results of \"" + q.text.substr(0, 80) + "\"", full);
        if (ref) out += "whole snippets and URLs: " + artifact_read_hint(*ref, artifact_tool_name) + "\n";
    }
    return tool_output::text(std::move(out));
}

}  // namespace detail

/// Make the web_search tool: search the web through the state's searcher (no browser).
template <class State>
auto web_search_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"web_search">(
        st,
        "Search the web: look up facts, news, websites and sources online with a search engine, without opening a page. "
        "Numbered results (title, snippet, URL, date) and the engine's answer box when it has one. Read a result with "
        "browser_navigate, or several with browser_batch.",
        [s](const web_search_args& a, tool_context& ctx) -> result<tool_output> {
            search::query q;
            q.text = a.query;
            q.count = a.count;
            q.site = a.site.value_or("");
            q.recency = a.recency.value_or("");
            q.language = a.language.value_or("");
            q.region = a.region.value_or("");
            q.page = a.page;
            if (s->searcher == nullptr) {
                search::searcher none;
                return fail(none.search(q, ctx.stop).error());
            }
            auto r = s->searcher->search(q, ctx.stop);
            if (!r) return fail(r.error());
            return detail::search_output(*s, q, *r);
        },
        reading_traits);
}

}  // namespace agentkit::browser
