// agentkit/search/query.hpp — what a web search asks and what it answers, whatever the backend:
// a query (words, how many results, a site, a recency, a language and region, a page) and its
// results (numbered hits with title, URL, date and snippet, and the backend's answer box or
// knowledge-panel text when it has one). The one rule for a query's bounds is check_query().
//
//   agentkit::search::query q;
//   q.text = "chromium headless flags";
//   q.count = 5;                 // 1..20
//   q.site = "chromium.org";     // optional: results from this site only
//   q.recency = "month";         // optional: day, week, month or year
//   if (auto ok = agentkit::search::check_query(q); !ok) { ok.error() is args.invalid }
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

/// Web search without a browser: the query and its results, backends behind one concept
/// (SearXNG, Brave, Tavily, a Serper-format Google API, or the host's own), the bounded cache.
namespace agentkit::search {

inline constexpr int max_count = 20;                ///< the most results one query may ask for
inline constexpr int max_page = 10;                 ///< the deepest results page a query may ask for
inline constexpr std::size_t max_query_chars = 400; ///< the longest query text (backends refuse longer ones)
/// The recencies a query may ask for ("" is any time).
inline constexpr std::array<std::string_view, 4> recencies{"day", "week", "month", "year"};

/// One search: what the web_search tool's arguments become.
struct query {
    std::string text;      ///< the words searched for (required)
    int count = 10;        ///< results wanted, 1..max_count
    std::string site;      ///< results from this site only ("example.com"); "" for any
    std::string recency;   ///< "", "day", "week", "month" or "year"
    std::string language;  ///< results in this language ("en", "de"); "" for the backend's default
    std::string region;    ///< results for this country ("us", "de"); "" for the backend's default
    int page = 1;          ///< the page of results, 1..max_page (page 2 is the results after the first `count`)
};

/// One result.
struct hit {
    std::string title;    ///< as the backend gives it
    std::string url;      ///< the result's address (absolute)
    std::string date{};     ///< when the page was published, when the backend knows ("" otherwise)
    std::string snippet{};  ///< the backend's excerpt (whole; the tool clips it to a budget)
};

/// What a search answered.
struct results {
    std::string backend;          ///< the backend's name ("searxng", "brave", ...)
    std::vector<hit> hits;        ///< in the backend's order, at most the query's count
    std::string answer;           ///< an answer box or knowledge-panel text ("" when none)
    std::string answer_source;    ///< where the answer comes from (a title or URL; "" when unknown)
    bool from_cache = false;      ///< served from the cache, not the backend
    std::vector<std::string> notes;  ///< what the backend could not honour ("tavily has no language filter: ignored")
};

/// The query's bounds, checked once for every backend: text not blank and at most
/// max_query_chars, count 1..max_count, page 1..max_page, recency one of `recencies`, a site
/// that is a host name (no scheme, no path, no spaces), language and region codes of 2 to 8
/// letters (a dash allowed: "en-US"). Every problem is named in one `args.invalid` error.
[[nodiscard]] inline result<void> check_query(const query& q) {
    std::vector<std::string> problems;
    bool blank = true;
    for (char c : q.text)
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') blank = false;
    if (blank) problems.emplace_back("/query: must not be empty");
    if (q.text.size() > max_query_chars)
        problems.push_back("/query: at most " + count_noun(max_query_chars, "character") + " (got " + std::to_string(q.text.size()) + ")");
    if (q.count < 1 || q.count > max_count) problems.push_back("/count: must be 1 to " + std::to_string(max_count));
    if (q.page < 1 || q.page > max_page) problems.push_back("/page: must be 1 to " + std::to_string(max_page));
    if (!q.recency.empty()) {
        bool known = false;
        for (auto r : recencies) known = known || q.recency == r;
        if (!known) problems.emplace_back("/recency: must be one of: day, week, month, year");
    }
    if (!q.site.empty()) {
        bool ok = q.site.size() <= 253;
        for (char c : q.site)
            ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-');
        if (!ok) problems.emplace_back("/site: a host name such as example.com (no scheme, path or spaces)");
    }
    auto code_ok = [](const std::string& s) {
        if (s.empty()) return true;
        if (s.size() < 2 || s.size() > 8) return false;
        for (char c : s)
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-')) return false;
        return true;
    };
    if (!code_ok(q.language)) problems.emplace_back("/language: a language code such as en or de");
    if (!code_ok(q.region)) problems.emplace_back("/region: a country code such as us or de");
    if (problems.empty()) return {};
    std::string msg = "web_search: " + std::to_string(problems.size()) + (problems.size() == 1 ? " problem" : " problems") +
                      " in arguments: " + join(problems, "; ");
    return fail(errc::args_invalid, std::move(msg), "Fix every listed argument and search again.", json{{"problems", problems}});
}

/// The words a backend without a site parameter is sent: `site:HOST words` when a site is asked
/// for (the operator SearXNG's engines, Google and Brave read), else the words.
[[nodiscard]] inline std::string text_with_site(const query& q) {
    return q.site.empty() ? q.text : "site:" + q.site + " " + q.text;
}

/// The identity of a query for the cache: every field, case of the words kept.
[[nodiscard]] inline std::string cache_key(const query& q) {
    std::string k;
    for (const std::string* s : {&q.text, &q.site, &q.recency, &q.language, &q.region}) {
        k += std::to_string(s->size());
        k += ':';
        k += *s;
    }
    k += '#' + std::to_string(q.count) + '#' + std::to_string(q.page);
    return k;
}

}  // namespace agentkit::search
