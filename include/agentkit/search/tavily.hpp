// agentkit/search/tavily.hpp — the Tavily search API (key in TAVILY_API_KEY).
//
// Request: POST https://api.tavily.com/search with `Authorization: Bearer <key>` and a JSON body
// {"query", "max_results", "include_answer": true, "topic": "general"[, "time_range"]
// [, "include_domains": [site]]}. Tavily has no pages: page N asks for N×count results (at
// most 20) and keeps the last count; it has no language or country filter for general search,
// and a result says so (results::notes) rather than pretending.
// Answer: `answer` (a string or null) and `results[]` {title, url, content, published_date}.
#pragma once

#include <agentkit/core/http.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/search/adapter.hpp>
#include <agentkit/search/query.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace agentkit::search {

/// The Tavily API's wire format (`--search tavily`, key in TAVILY_API_KEY).
struct tavily {
    static constexpr std::string_view name = "tavily";             ///< the backend's name (--search)
    static constexpr std::string_view key_env = "TAVILY_API_KEY";  ///< where the key is read from
    static constexpr std::string_view default_url = "https://api.tavily.com/search";  ///< the search endpoint

    /// POST …/search, the key as a bearer token.
    static net::client_request build(const query& q, const endpoint& e) {
        json body{{"query", q.text},
                  {"max_results", std::min(max_count, q.count * q.page)},
                  {"include_answer", true},
                  {"topic", "general"}};
        if (!q.recency.empty()) body["time_range"] = q.recency;
        if (!q.site.empty()) body["include_domains"] = json::array({q.site});
        net::client_request rq;
        rq.method = "POST";
        rq.url = e.url;
        rq.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}, {"Authorization", "Bearer " + e.key}};
        rq.body = body.dump();
        return rq;
    }

    /// answer and results[] of a 2xx answer; the page's slice of them.
    static result<results> parse(std::string_view body, const query& q) {
        auto j = read_object(name, body);
        if (!j) return fail(j.error());
        auto list = array_of(name, *j, "results");
        if (!list) return fail(list.error());
        if (*list == nullptr) return fail(malformed_answer(name, "no \"results\" list"));
        results all;
        query wide = q;
        wide.count = max_count;
        for (const auto& r : **list) add_hit(all, wide, r, "title", "url", "published_date", "content");
        results out;
        out.backend = std::string(name);
        const std::size_t from = static_cast<std::size_t>(q.count) * static_cast<std::size_t>(q.page - 1);
        for (std::size_t i = from; i < all.hits.size() && out.hits.size() < static_cast<std::size_t>(q.count); ++i)
            out.hits.push_back(std::move(all.hits[i]));
        out.answer = plain_text(text_of(*j, "answer"));
        if (!out.answer.empty()) out.answer_source = "tavily";
        if (q.count * q.page > max_count)
            out.notes.push_back("tavily has no pages: it returns at most " + std::to_string(max_count) + " results in all");
        if (!q.language.empty()) out.notes.push_back("tavily has no language filter: language ignored");
        if (!q.region.empty()) out.notes.push_back("tavily has no country filter for general search: region ignored");
        return out;
    }
};

static_assert(wire_adapter<tavily>);

}  // namespace agentkit::search
