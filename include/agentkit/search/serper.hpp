// agentkit/search/serper.hpp — Google results in Serper's format (google.serper.dev; key in
// SERPER_API_KEY). Any service that speaks this format works with --search-url.
//
// Request: POST https://google.serper.dev/search with `X-API-KEY: <key>` and a JSON body
// {"q", "num", "page"[, "gl": region][, "hl": language][, "tbs": "qdr:d|w|m|y"]}. A site is asked
// for with the `site:` operator.
// Answer: `organic[]` {title, link, snippet, date}; `answerBox` (answer, else snippet; title or
// link as its source) or else `knowledgeGraph` (title: description) is the answer.
#pragma once

#include <agentkit/search/adapter.hpp>
#include <agentkit/core/http.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/search/query.hpp>

#include <string>
#include <string_view>

namespace agentkit::search {

/// Serper's Google-results wire format (`--search serper`, key in SERPER_API_KEY).
struct serper {
    static constexpr std::string_view name = "serper";             ///< the backend's name (--search)
    static constexpr std::string_view key_env = "SERPER_API_KEY";  ///< where the key is read from
    static constexpr std::string_view default_url = "https://google.serper.dev/search";  ///< the search endpoint

    /// POST …/search, the key in X-API-KEY.
    static net::client_request build(const query& q, const endpoint& e) {
        json body{{"q", text_with_site(q)}, {"num", q.count}, {"page", q.page}};
        if (!q.region.empty()) body["gl"] = ascii_lower(q.region);
        if (!q.language.empty()) body["hl"] = ascii_lower(q.language);
        if (!q.recency.empty()) body["tbs"] = "qdr:" + q.recency.substr(0, 1);
        net::client_request rq;
        rq.method = "POST";
        rq.url = e.url;
        rq.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}, {"X-API-KEY", e.key}};
        rq.body = body.dump();
        return rq;
    }

    /// organic[], answerBox and knowledgeGraph of a 2xx answer.
    static result<results> parse(std::string_view body, const query& q) {
        auto j = read_object(name, body);
        if (!j) return fail(j.error());
        auto list = array_of(name, *j, "organic");
        if (!list) return fail(list.error());
        if (*list == nullptr && !j->contains("searchParameters"))
            return fail(malformed_answer(name, "no \"organic\" list and no \"searchParameters\""));
        results out;
        out.backend = std::string(name);
        if (*list != nullptr)
            for (const auto& r : **list) add_hit(out, q, r, "title", "link", "date", "snippet");
        if (auto box = j->find("answerBox"); box != j->end() && box->is_object()) {
            out.answer = plain_text(text_of(*box, "answer"));
            if (out.answer.empty()) out.answer = plain_text(text_of(*box, "snippet"));
            out.answer_source = text_of(*box, "link");
            if (out.answer_source.empty()) out.answer_source = text_of(*box, "title");
        }
        if (auto kg = j->find("knowledgeGraph"); out.answer.empty() && kg != j->end() && kg->is_object()) {
            const std::string title = text_of(*kg, "title");
            const std::string desc = plain_text(text_of(*kg, "description"));
            if (!desc.empty()) {
                out.answer = title.empty() ? desc : title + ": " + desc;
                out.answer_source = text_of(*kg, "descriptionSource");
            }
        }
        return out;
    }
};

static_assert(wire_adapter<serper>);

}  // namespace agentkit::search
