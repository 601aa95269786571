// "Search, then read two results" end to end through agent_session and the scripted model: the
// browser tools (web_search among them) over real headless Chromium, a fake SearXNG on 127.0.0.1
// whose results point to pages served on 127.0.0.1, and a third result outside the origin
// policy. The model's second step reads the URLs from the first step's result (as a model would)
// and passes two of them to browser_batch.
#include <agentkit/agentkit.hpp>
#include <agentkit/net/http_client.hpp>
#include <agentkit/net/http_server.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>
#include <vector>

namespace ak = agentkit;
namespace br = agentkit::browser;
namespace se = agentkit::search;
namespace net = agentkit::net;
using agentkit::json;
using namespace std::chrono_literals;

namespace {

std::string page(const std::string& title, const std::string& body) {
    return "<!doctype html><html><head><meta charset=utf-8><title>" + title + "</title></head><body>" + body + "</body></html>";
}

}  // namespace

TEST(SearchE2E, SearchThenReadTwoResultsThroughTheScriptedModel) {
    net::http_server site;
    site.route("/alpha.html", net::http_response::html(page("Alpha", "<h1>Alpha plan</h1><p>Alpha costs 12 euros a month.</p>")));
    site.route("/beta.html", net::http_response::html(page("Beta", "<h1>Beta plan</h1><p>Beta costs 15 euros a month.</p>")));
    ASSERT_TRUE(site.start());
    net::http_server searxng;
    searxng.route("/search", [&](const net::http_request&) {
        json results = json::array();
        results.push_back({{"url", site.url("/alpha.html")}, {"title", "Alpha pricing"}, {"content", "Alpha plan prices."},
                           {"publishedDate", "2024-05-01T00:00:00"}, {"engine", "brave"}, {"score", 2.0}});
        results.push_back({{"url", site.url("/beta.html")}, {"title", "Beta pricing"}, {"content", "Beta plan prices."},
                           {"publishedDate", nullptr}, {"engine", "brave"}, {"score", 1.0}});
        results.push_back({{"url", "https://elsewhere.example/gamma"}, {"title", "Gamma pricing"}, {"content", "Elsewhere."}});
        return net::http_response::json_text(json{{"query", "plans"}, {"results", results}, {"answers", json::array()},
                                                  {"infoboxes", json::array()}}.dump());
    });
    ASSERT_TRUE(searxng.start());

    br::browser_options o;
    o.call_timeout = 8000ms;
    o.navigation_timeout = 15000ms;
    o.policy.allowed_origins = {site.origin()};
    br::browser b(o);
    br::bounded_artifacts store;
    br::tool_state state(b, store);
    net::http_client http;
    se::settings ss;
    ss.backend = "searxng";
    ss.url = searxng.origin();
    auto backend = se::make_backend(ss, http);
    ASSERT_TRUE(backend) << backend.error().to_text();
    se::searcher searcher(*backend);
    state.searcher = &searcher;

    ak::agent_session s{br::browser_tools(state)};
    std::vector<std::string> read_urls;
    ak::scripted_model m(ak::provider::anthropic, {ak::script::call({{"web_search", {{"query", "pricing plans"}, {"count", 3}}}})});
    m.then([&](const json& request) {
        // the URLs as the model sees them in the last tool result
        const std::string seen = request.dump();
        static const std::regex url_re(R"re(\((http://127\.0\.0\.1:\d+/[a-z]+\.html))re");
        for (std::sregex_iterator it(seen.begin(), seen.end(), url_re), end; it != end; ++it) {
            const std::string u = (*it)[1].str();
            if (std::find(read_urls.begin(), read_urls.end(), u) == read_urls.end()) read_urls.push_back(u);
        }
        return ak::script::call({{"browser_batch", {{"urls", read_urls}}}});
    });
    m.then(ak::script::call({{"complete", {{"result", "Alpha costs 12 euros, Beta 15."}}}}));
    auto r = s.run(m, "Find the prices of the Alpha and Beta plans.");
    ASSERT_EQ(r.reason, ak::stop_reason::completed) << (r.error ? r.error->to_text() : "");
    ASSERT_EQ(read_urls.size(), 2U);
    EXPECT_EQ(read_urls[0], site.url("/alpha.html"));
    EXPECT_EQ(read_urls[1], site.url("/beta.html"));

    const auto& h = s.history();
    ASSERT_GE(h.size(), 5U);
    const std::string search_text = h[2].results.at(0).output.joined_text();
    EXPECT_NE(search_text.find("3. Gamma pricing - Elsewhere. (https://elsewhere.example/gamma) [blocked by policy: allowed_origins"),
              std::string::npos)
        << search_text;
    const std::string batch_text = h[4].results.at(0).output.joined_text();
    EXPECT_NE(batch_text.find("Alpha costs 12 euros a month."), std::string::npos) << batch_text;
    EXPECT_NE(batch_text.find("Beta costs 15 euros a month."), std::string::npos) << batch_text;
    EXPECT_EQ(searxng.hits("/search"), 1U);
    EXPECT_EQ(site.hits("/alpha.html"), 1U);
}
