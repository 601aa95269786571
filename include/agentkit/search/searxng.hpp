// agentkit/search/searxng.hpp — SearXNG's JSON search API (self-hosted metasearch, no key).
//
// Request: GET <url>/search?q=…&format=json&pageno=N[&time_range=day|week|month|year][&language=xx[-YY]]
// (`format=json` must be enabled in the instance's settings.yml, search.formats; an instance
// without it answers 403, reported as such). A site is asked for with the `site:` operator in
// the words. SearXNG returns a page of its own size: the first `count` results are kept.
// Answer: `results[]` {title, url, content, publishedDate}; the first of `answers[]` (a string,
// or an object with `answer` and `url`) or else the first infobox's `content` is the answer.
#pragma once

#include <agentkit/core/http.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/search/adapter.hpp>
#include <agentkit/search/query.hpp>

#include <string>
#include <string_view>

namespace agentkit::search {

/// SearXNG's wire format (`--search searxng --search-url http://127.0.0.1:8888`).
struct searxng {
    static constexpr std::string_view name = "searxng";  ///< the backend's name (--search)
    static constexpr std::string_view key_env = "";       ///< no key
    static constexpr std::string_view default_url = "";   ///< self-hosted: the URL must be configured

    /// GET <url>/search?q=…&format=json&pageno=… (a URL that already ends in /search is kept).
    static net::client_request build(const query& q, const endpoint& e) {
        std::string url = e.url;
        while (!url.empty() && url.back() == '/') url.pop_back();
        if (url.size() < 7 || url.substr(url.size() - 7) != "/search") url += "/search";
        url += "?q=" + net::form_encode(text_with_site(q)) + "&format=json&pageno=" + std::to_string(q.page);
        if (!q.recency.empty()) url += "&time_range=" + q.recency;
        if (!q.language.empty()) url += "&language=" + net::form_encode(q.region.empty() ? q.language : q.language + "-" + ascii_upper(q.region));
        net::client_request rq;
        rq.url = std::move(url);
        rq.headers = {{"Accept", "application/json"}};
        return rq;
    }

    /// results[], answers[] and infoboxes[] of a 2xx answer.
    static result<results> parse(std::string_view body, const query& q) {
        auto j = read_object(name, body);
        if (!j) return fail(j.error());
        auto list = array_of(name, *j, "results");
        if (!list) return fail(list.error());
        if (*list == nullptr) return fail(malformed_answer(name, "no \"results\" list (is this a SearXNG /search URL with format=json?)"));
        results out;
        out.backend = std::string(name);
        for (const auto& r : **list) add_hit(out, q, r, "title", "url", "publishedDate", "content");
        auto answers = array_of(name, *j, "answers");
        if (!answers) return fail(answers.error());
        if (*answers != nullptr) {
            for (const auto& a : **answers) {
                if (a.is_string()) out.answer = plain_text(a.get<std::string>());
                else if (a.is_object()) {
                    out.answer = plain_text(text_of(a, "answer"));
                    out.answer_source = text_of(a, "url");
                }
                if (!out.answer.empty()) break;
            }
        }
        if (out.answer.empty()) {
            auto boxes = array_of(name, *j, "infoboxes");
            if (!boxes) return fail(boxes.error());
            if (*boxes != nullptr)
                for (const auto& b : **boxes) {
                    out.answer = plain_text(text_of(b, "content"));
                    out.answer_source = text_of(b, "infobox");
                    if (!out.answer.empty()) break;
                }
        }
        return out;
    }

private:
    static std::string ascii_upper(std::string s) {
        for (char& c : s)
            if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
        return s;
    }
};

static_assert(wire_adapter<searxng>);

}  // namespace agentkit::search
