// Web search backends (agentkit/search/) against fake services on 127.0.0.1 (agentkit::net's
// HTTP server) answering in the shape of each service's documented examples (fake_services.hpp),
// through the libcurl client: the request each backend sends (method, path, parameters,
// headers, body), its reading of the answer, and every bad day: a refused key, a rate limit with
// and without a bounded retry, a backend that does not answer in time, answers that are not
// JSON, cut short or of the wrong shape, and the cache. The key is checked to appear in no error.
// No sleeps: a held answer waits on a flag the test raises.
#include <agentkit/agentkit.hpp>
#include <agentkit/net/http_client.hpp>
#include <agentkit/net/http_server.hpp>

#include <gtest/gtest.h>

#include "support/flag.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "search/fake_services.hpp"

namespace ak = agentkit;
namespace net = agentkit::net;
namespace se = agentkit::search;
using agentkit::json;
using namespace std::chrono_literals;

namespace {

constexpr const char* kKey = "SECRET-search-key-7c1f0a9e4b";

using agentkit::test::flag;

/// The query parameters of a request, decoded ('+' is a space).
std::map<std::string, std::string> params(const std::string& query) {
    auto decode = [](std::string_view s) {
        std::string out;
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '+') out += ' ';
            else if (s[i] == '%' && i + 2 < s.size()) {
                out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
                i += 2;
            } else out += s[i];
        }
        return out;
    };
    std::map<std::string, std::string> m;
    std::size_t start = 0;
    while (start <= query.size()) {
        std::size_t amp = query.find('&', start);
        if (amp == std::string::npos) amp = query.size();
        std::string part = query.substr(start, amp - start);
        if (auto eq = part.find('='); eq != std::string::npos) m[decode(part.substr(0, eq))] = decode(part.substr(eq + 1));
        start = amp + 1;
    }
    return m;
}

/// A fake service: one path, answers given by the test, requests recorded.
struct fake_service {
    net::http_server server;
    std::mutex mu;
    std::vector<net::http_request> seen;
    std::function<net::http_response(const net::http_request&)> answer;

    explicit fake_service(const std::string& path) {
        server.route(path, [this](const net::http_request& r) {
            std::function<net::http_response(const net::http_request&)> a;
            {
                std::lock_guard lock(mu);
                seen.push_back(r);
                a = answer;
            }
            return a ? a(r) : net::http_response::text("no answer set", 500);
        });
        EXPECT_TRUE(server.start().has_value());
    }
    // the route reads mu, seen and answer: stop (and join) the server before they go
    ~fake_service() { server.stop(); }
    fake_service(const fake_service&) = delete;
    fake_service& operator=(const fake_service&) = delete;
    std::size_t count() {
        std::lock_guard lock(mu);
        return seen.size();
    }
    net::http_request last() {
        std::lock_guard lock(mu);
        return seen.back();
    }
};

void expect_no_key(const ak::error& e) {
    EXPECT_EQ(e.to_text().find(kKey), std::string::npos) << e.to_text();
    EXPECT_EQ(e.to_json().dump().find(kKey), std::string::npos) << e.to_json().dump();
}

se::query make_query(std::string text, int count = 10) {
    se::query q;
    q.text = std::move(text);
    q.count = count;
    return q;
}

template <class Adapter>
se::http_backend<Adapter, net::http_client> backend_at(net::http_client& http, const std::string& url, se::backend_options o = {}) {
    return se::http_backend<Adapter, net::http_client>(http, se::endpoint{url, Adapter::key_env.empty() ? "" : kKey}, std::move(o));
}

}  // namespace

// ---- each backend's wire format ------------------------------------------------------------

TEST(SearchWire, SearxngSendsTheJsonQueryAndReadsResultsDatesAndTheInfobox) {
    fake_service svc("/search");
    svc.answer = [](const net::http_request&) { return net::http_response::json_text(fake::searxng_answer().dump()); };
    net::http_client http;
    auto b = backend_at<se::searxng>(http, svc.server.origin());  // the instance's base URL: /search is added
    se::query q = make_query("rust async", 2);
    q.site = "rust-lang.github.io";
    q.recency = "month";
    q.language = "en";
    q.region = "us";
    q.page = 2;
    auto r = b.search(q);
    ASSERT_TRUE(r) << r.error().to_text();
    const auto rq = svc.last();
    EXPECT_EQ(rq.method, "GET");
    EXPECT_EQ(rq.path, "/search");
    auto p = params(rq.query);
    EXPECT_EQ(p["q"], "site:rust-lang.github.io rust async");
    EXPECT_EQ(p["format"], "json");
    EXPECT_EQ(p["pageno"], "2");
    EXPECT_EQ(p["time_range"], "month");
    EXPECT_EQ(p["language"], "en-US");
    ASSERT_EQ(r->hits.size(), 2U);  // the instance's page of 3, cut to the count
    EXPECT_EQ(r->hits[0].title, "Asynchronous Programming in Rust");
    EXPECT_EQ(r->hits[0].url, "https://rust-lang.github.io/async-book/");
    EXPECT_EQ(r->hits[0].date, "2024-03-05T00:00:00");
    EXPECT_EQ(r->hits[1].date, "");  // publishedDate null
    EXPECT_NE(r->answer.find("general-purpose programming language"), std::string::npos);
    EXPECT_EQ(r->answer_source, "Rust (programming language)");
    EXPECT_EQ(r->backend, "searxng");
}

TEST(SearchWire, SearxngAnswersListWinsOverTheInfobox) {
    json a = fake::searxng_answer();
    a["answers"] = json::array({json{{"answer", "42"}, {"url", "https://example.org/answer"}}});
    auto r = se::searxng::parse(a.dump(), make_query("x"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->answer, "42");
    EXPECT_EQ(r->answer_source, "https://example.org/answer");
    a["answers"] = json::array({"plain answer"});
    r = se::searxng::parse(a.dump(), make_query("x"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->answer, "plain answer");
}

TEST(SearchWire, BraveSendsTheKeyHeaderAndParametersAndStripsMarkup) {
    fake_service svc("/res/v1/web/search");
    svc.answer = [](const net::http_request&) { return net::http_response::json_text(fake::brave_answer().dump()); };
    net::http_client http;
    auto b = backend_at<se::brave>(http, svc.server.url("/res/v1/web/search"));
    se::query q = make_query("brave search", 5);
    q.recency = "week";
    q.language = "EN";
    q.region = "DE";
    q.page = 3;
    auto r = b.search(q);
    ASSERT_TRUE(r) << r.error().to_text();
    const auto rq = svc.last();
    EXPECT_EQ(rq.method, "GET");
    EXPECT_EQ(rq.header("X-Subscription-Token"), kKey);
    EXPECT_EQ(rq.header("Accept"), "application/json");
    auto p = params(rq.query);
    EXPECT_EQ(p["q"], "brave search");
    EXPECT_EQ(p["count"], "5");
    EXPECT_EQ(p["offset"], "2");  // pages, zero-based
    EXPECT_EQ(p["freshness"], "pw");
    EXPECT_EQ(p["search_lang"], "en");
    EXPECT_EQ(p["country"], "de");
    ASSERT_EQ(r->hits.size(), 2U);
    EXPECT_EQ(r->hits[0].title, "Private Search Engine - Brave Search");
    EXPECT_EQ(r->hits[0].snippet, "Search the web privately with Brave Search & stay in control.");
    EXPECT_EQ(r->hits[0].date, "2024-05-02T10:00:00");
    EXPECT_EQ(r->hits[1].date, "3 days ago");  // no page_age: the age
    EXPECT_EQ(r->answer, "Brave Search is a search engine developed by Brave Software, Inc.");
    EXPECT_EQ(r->answer_source, "Brave Search");
}

TEST(SearchWire, TavilyPostsJsonWithABearerKeyAndSaysWhatItCannotFilter) {
    fake_service svc("/search");
    svc.answer = [](const net::http_request&) { return net::http_response::json_text(fake::tavily_answer().dump()); };
    net::http_client http;
    auto b = backend_at<se::tavily>(http, svc.server.url("/search"));
    se::query q = make_query("Who is Leo Messi?", 2);
    q.site = "wikipedia.org";
    q.recency = "year";
    q.language = "en";
    auto r = b.search(q);
    ASSERT_TRUE(r) << r.error().to_text();
    const auto rq = svc.last();
    EXPECT_EQ(rq.method, "POST");
    EXPECT_EQ(rq.header("Authorization"), std::string("Bearer ") + kKey);
    const json body = json::parse(rq.body);
    EXPECT_EQ(body["query"], "Who is Leo Messi?");
    EXPECT_EQ(body["max_results"], 2);
    EXPECT_EQ(body["include_answer"], true);
    EXPECT_EQ(body["time_range"], "year");
    EXPECT_EQ(body["include_domains"], json::array({"wikipedia.org"}));
    EXPECT_FALSE(body.contains("api_key"));  // the key travels in the header only
    ASSERT_EQ(r->hits.size(), 2U);
    EXPECT_EQ(r->hits[1].date, "Tue, 02 Jul 2024 10:00:00 GMT");
    EXPECT_EQ(r->answer, "Lionel Messi is an Argentine professional footballer.");
    ASSERT_EQ(r->notes.size(), 1U);
    EXPECT_NE(r->notes[0].find("no language filter"), std::string::npos);

    // page 2 of 1: Tavily has no pages, so the second result of a wider request
    q = make_query("Who is Leo Messi?", 1);
    q.page = 2;
    r = b.search(q);
    ASSERT_TRUE(r);
    EXPECT_EQ(json::parse(svc.last().body)["max_results"], 2);
    ASSERT_EQ(r->hits.size(), 1U);
    EXPECT_EQ(r->hits[0].url, "https://en.wikipedia.org/wiki/Lionel_Messi");
}

TEST(SearchWire, SerperPostsJsonWithItsKeyHeaderAndReadsTheKnowledgeGraph) {
    fake_service svc("/search");
    svc.answer = [](const net::http_request&) { return net::http_response::json_text(fake::serper_answer().dump()); };
    net::http_client http;
    auto b = backend_at<se::serper>(http, svc.server.url("/search"));
    se::query q = make_query("apple inc", 10);
    q.site = "apple.com";
    q.recency = "day";
    q.region = "US";
    q.language = "en";
    q.page = 2;
    auto r = b.search(q);
    ASSERT_TRUE(r) << r.error().to_text();
    const auto rq = svc.last();
    EXPECT_EQ(rq.method, "POST");
    EXPECT_EQ(rq.header("X-API-KEY"), kKey);
    const json body = json::parse(rq.body);
    EXPECT_EQ(body["q"], "site:apple.com apple inc");
    EXPECT_EQ(body["num"], 10);
    EXPECT_EQ(body["page"], 2);
    EXPECT_EQ(body["gl"], "us");
    EXPECT_EQ(body["hl"], "en");
    EXPECT_EQ(body["tbs"], "qdr:d");
    ASSERT_EQ(r->hits.size(), 2U);
    EXPECT_EQ(r->hits[0].url, "https://www.apple.com/");
    EXPECT_EQ(r->hits[1].date, "Jun 3, 2024");
    EXPECT_EQ(r->answer.rfind("Apple: Apple Inc. is an American", 0), 0U) << r->answer;
    EXPECT_EQ(r->answer_source, "Wikipedia");
    // an answer box wins over the knowledge graph
    json a = fake::serper_answer();
    a["answerBox"] = json{{"title", "Apple founded"}, {"answer", "April 1, 1976"}, {"link", "https://example.org/founded"}};
    auto r2 = se::serper::parse(a.dump(), q);
    ASSERT_TRUE(r2);
    EXPECT_EQ(r2->answer, "April 1, 1976");
    EXPECT_EQ(r2->answer_source, "https://example.org/founded");
}

// ---- bad days ------------------------------------------------------------------------------

TEST(SearchFailures, RefusedKeyNamesTheVariableAndNeverTheKey) {
    fake_service svc("/search");
    for (int status : {401, 403}) {
        svc.answer = [status](const net::http_request&) {
            return net::http_response::json_text(json{{"detail", std::string("invalid key ") + kKey}}.dump(), status);
        };
        net::http_client http;
        auto b = backend_at<se::serper>(http, svc.server.url("/search"));
        auto r = b.search(make_query("x"));
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, ak::errc::search_auth);
        EXPECT_NE(r.error().hint.find("SERPER_API_KEY"), std::string::npos) << r.error().to_text();
        EXPECT_EQ(r.error().details["status"], status);
        expect_no_key(r.error());
    }
    // SearXNG has no key: its 403 means JSON output is off on the instance
    svc.answer = [](const net::http_request&) { return net::http_response::text("Forbidden", 403); };
    net::http_client http;
    auto s = backend_at<se::searxng>(http, svc.server.origin());
    auto r = s.search(make_query("x"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::search_auth);
    EXPECT_NE(r.error().hint.find("search.formats"), std::string::npos) << r.error().to_text();
}

TEST(SearchFailures, RateLimitIsRetriedOnceAfterRetryAfterThenSucceeds) {
    fake_service svc("/search");
    std::atomic<int> calls{0};
    svc.answer = [&](const net::http_request&) {
        if (calls.fetch_add(1) == 0) {
            auto r = net::http_response::json_text(R"({"message":"rate limited"})", 429);
            r.headers.emplace_back("Retry-After", "2");
            return r;
        }
        return net::http_response::json_text(fake::serper_answer().dump());
    };
    std::vector<std::chrono::milliseconds> waits;
    se::backend_options o;
    o.wait = [&](std::chrono::milliseconds d, std::stop_token) { waits.push_back(d); };
    net::http_client http;
    auto b = backend_at<se::serper>(http, svc.server.url("/search"), o);
    auto r = b.search(make_query("apple"));
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(svc.count(), 2U);
    ASSERT_EQ(waits.size(), 1U);
    EXPECT_EQ(waits[0], 2000ms);
    EXPECT_EQ(r->hits.size(), 2U);
}

TEST(SearchFailures, SecondRateLimitIsAnErrorWithTheWaitAndNoThirdRequest) {
    fake_service svc("/search");
    svc.answer = [](const net::http_request&) {
        auto r = net::http_response::json_text("{}", 429);
        r.headers.emplace_back("Retry-After", "1");
        return r;
    };
    se::backend_options o;
    int waited = 0;
    o.wait = [&](std::chrono::milliseconds, std::stop_token) { ++waited; };
    net::http_client http;
    auto b = backend_at<se::brave>(http, svc.server.url("/search"), o);
    auto r = b.search(make_query("x"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::search_rate_limited);
    EXPECT_EQ(r.error().details["retry_after_seconds"], 1);
    EXPECT_NE(r.error().message.find("after one retry"), std::string::npos) << r.error().message;
    EXPECT_EQ(svc.count(), 2U);
    EXPECT_EQ(waited, 1);
    expect_no_key(r.error());
}

TEST(SearchFailures, RateLimitLongerThanTheBoundIsNotWaitedFor) {
    fake_service svc("/search");
    svc.answer = [](const net::http_request&) {
        auto r = net::http_response::json_text("{}", 429);
        r.headers.emplace_back("Retry-After", "120");
        return r;
    };
    se::backend_options o;
    int waited = 0;
    o.wait = [&](std::chrono::milliseconds, std::stop_token) { ++waited; };
    net::http_client http;
    auto b = backend_at<se::tavily>(http, svc.server.url("/search"), o);
    auto r = b.search(make_query("x"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::search_rate_limited);
    EXPECT_EQ(r.error().details["retry_after_seconds"], 120);
    EXPECT_NE(r.error().hint.find("Wait 120 s"), std::string::npos);
    EXPECT_EQ(svc.count(), 1U);
    EXPECT_EQ(waited, 0);
    // without Retry-After: no retry, and the error says there was no wait given
    svc.answer = [](const net::http_request&) { return net::http_response::json_text("{}", 429); };
    r = b.search(make_query("y"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::search_rate_limited);
    EXPECT_NE(r.error().message.find("without saying"), std::string::npos);
    EXPECT_EQ(svc.count(), 2U);
}

TEST(SearchFailures, ABackendThatDoesNotAnswerInTimeIsATimeoutAndTheNextSearchWorks) {
    fake_service svc("/search");
    flag release;
    std::atomic<bool> hold{true};
    svc.answer = [&](const net::http_request&) {
        if (hold.load()) (void)release.wait_for(10s);  // held until the test has seen the timeout
        return net::http_response::json_text(fake::searxng_answer().dump());
    };
    se::backend_options o;
    o.timeout = 300ms;
    net::http_client http;
    auto b = backend_at<se::searxng>(http, svc.server.origin(), o);
    auto r = b.search(make_query("x"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::timeout);
    EXPECT_NE(r.error().message.find("within 300 ms"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().hint.find("--timeout-action"), std::string::npos);
    hold = false;
    release.raise();
    auto again = b.search(make_query("x"));
    ASSERT_TRUE(again) << again.error().to_text();
    EXPECT_EQ(again->hits.size(), 3U);
}

TEST(SearchFailures, AStopRequestEndsASearchInFlightAndTheNextSearchWorks) {
    fake_service svc("/search");
    flag arrived;
    flag release;
    std::atomic<bool> hold{true};
    svc.answer = [&](const net::http_request&) {
        if (hold.load()) {
            arrived.raise();
            (void)release.wait_for(10s);
        }
        return net::http_response::json_text(fake::searxng_answer().dump());
    };
    net::http_client http;
    auto b = backend_at<se::searxng>(http, svc.server.origin());
    std::stop_source stop;
    std::thread canceller([&] {
        if (arrived.wait_for(10s)) stop.request_stop();  // once the backend has the request
    });
    auto r = b.search(make_query("x"), stop.get_token());  // returns while the answer is still held
    canceller.join();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::cancelled) << r.error().to_text();
    hold = false;
    release.raise();
    auto again = b.search(make_query("x"));
    ASSERT_TRUE(again) << again.error().to_text();
}

TEST(SearchFailures, MalformedTruncatedAndMisshapenAnswersAreClearErrors) {
    const std::string whole = fake::brave_answer().dump();
    struct bad {
        std::string body;
        std::string says;
    };
    const std::vector<bad> cases{{"<html>Service Unavailable</html>", "not JSON"},
                                 {whole.substr(0, whole.size() / 2), "truncated"},
                                 {"", "empty"},
                                 {"[1,2,3]", "not an object"},
                                 {R"({"web":{"results":"none"}})", "not a list"},
                                 {R"({"web":7})", "not an object"},
                                 {R"({"unrelated":true})", "neither"}};
    fake_service svc("/search");
    net::http_client http;
    auto b = backend_at<se::brave>(http, svc.server.url("/search"));
    for (const auto& c : cases) {
        svc.answer = [body = c.body](const net::http_request&) { return net::http_response::json_text(body); };
        auto r = b.search(make_query("x"));
        ASSERT_FALSE(r) << c.body;
        EXPECT_EQ(r.error().code, ak::errc::search_malformed) << c.body;
        EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
        EXPECT_NE(r.error().message.find("brave"), std::string::npos);
    }
    // each adapter refuses a list where its results should be
    EXPECT_EQ(se::searxng::parse(R"({"results":{}})", make_query("x")).error().code, ak::errc::search_malformed);
    EXPECT_EQ(se::searxng::parse(R"({"answers":[]})", make_query("x")).error().code, ak::errc::search_malformed);
    EXPECT_EQ(se::tavily::parse(R"({"results":"x"})", make_query("x")).error().code, ak::errc::search_malformed);
    EXPECT_EQ(se::serper::parse(R"({"organic":{}})", make_query("x")).error().code, ak::errc::search_malformed);
    EXPECT_EQ(se::serper::parse(R"({"x":1})", make_query("x")).error().code, ak::errc::search_malformed);
    // odd entries are skipped, the rest kept: no URL, a javascript: URL, not an object
    auto r = se::serper::parse(R"j({"organic":[{"title":"a"},{"title":"b","link":"javascript:alert(1)"},5,{"title":"c","link":"https://c.example/"}]})j",
                               make_query("x"));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->hits.size(), 1U);
    EXPECT_EQ(r->hits[0].url, "https://c.example/");
}

TEST(SearchFailures, OtherStatusesAreSearchFailedAndAnEchoedKeyIsScrubbed) {
    fake_service svc("/search");
    svc.answer = [](const net::http_request&) {
        return net::http_response::text(std::string("internal error for key ") + kKey, 502);
    };
    net::http_client http;
    auto b = backend_at<se::tavily>(http, svc.server.url("/search"));
    auto r = b.search(make_query("x"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::search_failed);
    EXPECT_EQ(r.error().details["status"], 502);
    EXPECT_NE(r.error().message.find("[redacted]"), std::string::npos) << r.error().message;
    expect_no_key(r.error());
}

TEST(SearchFailures, AnUnreachableBackendIsATransportErrorNamingIt) {
    std::string url;
    {
        net::http_server gone;
        ASSERT_TRUE(gone.start());
        url = gone.url("/search");
    }  // stopped: nothing listens there now
    net::http_client http;
    auto b = backend_at<se::serper>(http, url);
    auto r = b.search(make_query("x"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::transport_io);
    EXPECT_EQ(r.error().message.rfind("serper: ", 0), 0U) << r.error().message;
    expect_no_key(r.error());
}

// ---- the searcher: checks and the cache ----------------------------------------------------

TEST(Searcher, AnIdenticalQueryWithinTheWindowIsServedFromTheCache) {
    fake_service svc("/search");
    svc.answer = [](const net::http_request&) { return net::http_response::json_text(fake::searxng_answer().dump()); };
    net::http_client http;
    auto now = std::chrono::steady_clock::now();
    se::cache_options co;
    co.max_entries = 2;
    co.max_age = 60s;
    co.now = [&] { return now; };
    se::searcher s(backend_at<se::searxng>(http, svc.server.origin()), co);
    auto a = s.search(make_query("rust"));
    ASSERT_TRUE(a);
    EXPECT_FALSE(a->from_cache);
    auto b = s.search(make_query("rust"));
    ASSERT_TRUE(b);
    EXPECT_TRUE(b->from_cache);
    EXPECT_EQ(svc.count(), 1U);
    EXPECT_EQ(b->hits.size(), a->hits.size());
    // another count is another query
    ASSERT_TRUE(s.search(make_query("rust", 2)));
    EXPECT_EQ(svc.count(), 2U);
    // bounded in entries: a third query pushes out the least recently used ("rust" 10)
    ASSERT_TRUE(s.search(make_query("go")));
    EXPECT_EQ(svc.count(), 3U);
    ASSERT_TRUE(s.search(make_query("rust")));
    EXPECT_EQ(svc.count(), 4U);
    // bounded in age
    now += 61s;
    ASSERT_TRUE(s.search(make_query("rust")));
    EXPECT_EQ(svc.count(), 5U);
    EXPECT_EQ(s.cache_hits(), 1U);
    EXPECT_EQ(s.backend_calls(), 5U);
}

TEST(Searcher, FailuresAreNotCachedAndBadQueriesNeverReachTheBackend) {
    int calls = 0;
    bool fail_next = true;
    se::searcher s(se::any_backend::from_function("mine", [&](const se::query& q, std::stop_token) -> ak::result<se::results> {
        ++calls;
        if (fail_next) return ak::fail(ak::errc::search_failed, "down");
        se::results r;
        r.hits.push_back({"t", "https://example.org/" + q.text, "", "s"});
        return r;
    }));
    EXPECT_FALSE(s.search(make_query("a")));
    fail_next = false;
    auto r = s.search(make_query("a"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->backend, "mine");
    EXPECT_EQ(calls, 2);
    se::query bad = make_query("   ", 0);
    bad.page = 11;
    bad.recency = "decade";
    bad.site = "https://example.org/x";
    bad.language = "english language";
    auto e = s.search(bad);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().code, ak::errc::args_invalid);
    for (const char* field : {"/query", "/count", "/page", "/recency", "/site", "/language"})
        EXPECT_NE(e.error().message.find(field), std::string::npos) << field << ": " << e.error().message;
    EXPECT_EQ(calls, 2);
    // a host's backend that throws becomes an error
    se::searcher t(se::any_backend::from_function("throws", [](const se::query&, std::stop_token) -> ak::result<se::results> {
        throw std::runtime_error("boom");
    }));
    auto thrown = t.search(make_query("a"));
    ASSERT_FALSE(thrown);
    EXPECT_EQ(thrown.error().code, ak::errc::internal);
    // none configured
    se::searcher none;
    EXPECT_EQ(none.search(make_query("a")).error().code, ak::errc::search_unconfigured);
}

// ---- configuration -------------------------------------------------------------------------

TEST(SearchConfig, MakeBackendReadsTheKeyFromItsVariableAndNamesWhatIsMissing) {
    net::http_client http;
    se::settings s;
    s.backend = "brave";
    auto none = [](const char*) -> const char* { return nullptr; };
    auto r = se::make_backend(s, http, none);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::search_unconfigured);
    EXPECT_NE(r.error().message.find("BRAVE_API_KEY"), std::string::npos);
    std::string asked;
    auto env = [&](const char* n) -> const char* {
        asked = n;
        return kKey;
    };
    fake_service svc("/search");
    svc.answer = [](const net::http_request&) { return net::http_response::json_text(fake::brave_answer().dump()); };
    s.url = svc.server.url("/search");
    auto b = se::make_backend(s, http, env);
    ASSERT_TRUE(b) << b.error().to_text();
    EXPECT_EQ(asked, "BRAVE_API_KEY");
    EXPECT_EQ(b->name(), "brave");
    ASSERT_TRUE(b->search(make_query("x")));
    EXPECT_EQ(svc.last().header("X-Subscription-Token"), kKey);

    s.backend = "bing";
    r = se::make_backend(s, http, env);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::args_invalid);
    EXPECT_NE(r.error().hint.find("searxng, brave, tavily, serper"), std::string::npos);
    s.backend = "searxng";
    s.url.clear();
    EXPECT_EQ(se::make_backend(s, http, env).error().code, ak::errc::search_unconfigured);
    s.url = "ftp://127.0.0.1/";
    EXPECT_EQ(se::make_backend(s, http, env).error().code, ak::errc::args_invalid);
    for (const auto& info : se::builtin_backends) {
        s.backend = std::string(info.name);
        s.url = "http://127.0.0.1:9/";
        EXPECT_TRUE(se::make_backend(s, http, env)) << info.name;
    }
}

TEST(SearchConfig, TheReadersNeverCrashOnHostileBodies) {
    const std::vector<std::string> bodies{"{", "{\"results\":[", std::string(1, '\0'), "{\"results\":[{\"url\":1e999}]}",
                                          std::string(5000, '['), "{\"organic\":[{\"link\":\"https://a\",\"title\":[1]}]}",
                                          "\xff\xfe{}", "{\"web\":{\"results\":[null,true,\"s\"]},\"infobox\":{\"results\":[7]}}"};
    for (const auto& b : bodies) {
        (void)se::searxng::parse(b, make_query("x"));
        (void)se::brave::parse(b, make_query("x"));
        (void)se::tavily::parse(b, make_query("x"));
        (void)se::serper::parse(b, make_query("x"));
    }
    auto r = se::brave::parse(bodies.back(), make_query("x"));
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->hits.empty());
    EXPECT_TRUE(r->answer.empty());
}
