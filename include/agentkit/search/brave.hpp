// agentkit/search/brave.hpp — the Brave Search API (web search endpoint; key in BRAVE_API_KEY).
//
// Request: GET https://api.search.brave.com/res/v1/web/search?q=…&count=N&offset=P
// [&freshness=pd|pw|pm|py][&search_lang=xx][&country=XX] with the headers
// `Accept: application/json` and `X-Subscription-Token: <key>`. Brave's `offset` counts pages
// (0..9), so page N is offset N-1. A site is asked for with the `site:` operator.
// Answer: `web.results[]` {title, url, description, page_age or age}; the description marks the
// query's words with <strong>, removed here. `infobox.results[0]` (title, long_desc or
// description) is the answer when present.
#pragma once

#include <agentkit/core/http.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/search/adapter.hpp>
#include <agentkit/search/query.hpp>

#include <string>
#include <string_view>

namespace agentkit::search {

/// The Brave Search API's wire format (`--search brave`, key in BRAVE_API_KEY).
struct brave {
    static constexpr std::string_view name = "brave";              ///< the backend's name (--search)
    static constexpr std::string_view key_env = "BRAVE_API_KEY";   ///< where the key is read from
    static constexpr std::string_view default_url = "https://api.search.brave.com/res/v1/web/search";  ///< the web search endpoint

    /// GET …/web/search?q=…&count=…&offset=… with the key in X-Subscription-Token.
    static net::client_request build(const query& q, const endpoint& e) {
        static constexpr std::pair<std::string_view, std::string_view> freshness[] = {
            {"day", "pd"}, {"week", "pw"}, {"month", "pm"}, {"year", "py"}};
        std::string url = e.url + (e.url.find('?') == std::string::npos ? "?" : "&");
        url += "q=" + net::form_encode(text_with_site(q)) + "&count=" + std::to_string(q.count) + "&offset=" + std::to_string(q.page - 1);
        for (const auto& [r, f] : freshness)
            if (q.recency == r) url += "&freshness=" + std::string(f);
        if (!q.language.empty()) url += "&search_lang=" + net::form_encode(ascii_lower(q.language));
        if (!q.region.empty()) url += "&country=" + net::form_encode(ascii_lower(q.region));
        net::client_request rq;
        rq.url = std::move(url);
        rq.headers = {{"Accept", "application/json"}, {"X-Subscription-Token", e.key}};
        return rq;
    }

    /// web.results[] and infobox of a 2xx answer.
    static result<results> parse(std::string_view body, const query& q) {
        auto j = read_object(name, body);
        if (!j) return fail(j.error());
        results out;
        out.backend = std::string(name);
        auto web = j->find("web");
        if (web != j->end() && !web->is_null()) {
            if (!web->is_object()) return fail(malformed_answer(name, "\"web\" is not an object"));
            auto list = array_of(name, *web, "results");
            if (!list) return fail(list.error());
            if (*list != nullptr)
                for (const auto& r : **list) {
                    const std::size_t before = out.hits.size();
                    add_hit(out, q, r, "title", "url", "page_age", "description");
                    if (out.hits.size() > before && out.hits.back().date.empty()) out.hits.back().date = text_of(r, "age");
                }
        } else if (text_of(*j, "type") != "search") {
            return fail(malformed_answer(name, "neither \"web\" results nor a search response"));
        }
        auto box = j->find("infobox");
        if (box != j->end() && box->is_object()) {
            auto list = array_of(name, *box, "results");
            if (!list) return fail(list.error());
            if (*list != nullptr && !(*list)->empty()) {
                const json& first = (**list)[0];
                out.answer = plain_text(text_of(first, "long_desc"));
                if (out.answer.empty()) out.answer = plain_text(text_of(first, "description"));
                out.answer_source = text_of(first, "title");
            }
        }
        return out;
    }
};

static_assert(wire_adapter<brave>);

}  // namespace agentkit::search
