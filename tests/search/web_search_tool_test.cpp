// The web_search tool (browser/tools/search.hpp) with a backend of the test's own: its compact
// result (numbered hits, clipped snippets, the answer box, dates, page-data marks), the origin
// policy marking results it would refuse, the artifact keeping what was clipped, errors that
// leave the session working, and that no browser is started or spoken to. Also the research
// mode of the menu, the router finding the tool from plain words, and agentkit-browser-mcp's
// --search options.
#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace ak = agentkit;
namespace br = agentkit::browser;
namespace se = agentkit::search;
using agentkit::json;

namespace {

se::results sample(const se::query& q) {
    se::results r;
    r.backend = "fake";
    r.answer = "Paris is the capital of France.";
    r.answer_source = "Wikipedia";
    r.hits.push_back({"Paris - Wikipedia", "https://en.wikipedia.org/wiki/Paris", "2024-06-01", "Paris is the capital and largest city of France."});
    r.hits.push_back({"Visit Paris", "https://blocked.example/paris?utm_source=x", "", std::string(500, 'x') + " tail"});
    r.hits.push_back({"Long one", "https://long.example/" + std::string(200, 'p') + "?q=" + std::string(50, 'z'), "", "short"});
    r.hits.resize(std::min<std::size_t>(r.hits.size(), static_cast<std::size_t>(q.count)));
    return r;
}

struct harness {
    br::browser b;
    br::bounded_artifacts store;
    br::tool_state state;
    decltype(br::browser_tools(std::declval<br::tool_state&>())) tools;
    int backend_calls = 0;
    se::searcher searcher;

    explicit harness(br::browser_options o = {})
        : b(std::move(o)),
          state(b, store),
          tools(br::browser_tools(state)),
          searcher(se::any_backend::from_function("fake", [this](const se::query& q, std::stop_token) -> ak::result<se::results> {
              ++backend_calls;
              if (q.text == "fail") return ak::fail(ak::errc::search_rate_limited, "fake: rate limited", "Wait 3 s before searching again.");
              return sample(q);
          })) {
        state.searcher = &searcher;
    }
};

br::browser_options with_policy() {
    br::browser_options o;
    o.policy.blocked_origins = {"https://blocked.example"};
    return o;
}

}  // namespace

TEST(WebSearchTool, AnswersCompactNumberedResultsWithoutTheBrowser) {
    harness h(with_policy());
    auto r = h.tools.call("web_search", json{{"query", "capital of France"}, {"count", 3}});
    ASSERT_TRUE(r) << r.error().to_text();
    const std::string text = r->joined_text();
    EXPECT_NE(text.find("<<page-data "), std::string::npos) << text;  // results are third-party text
    EXPECT_NE(text.find("answer: Paris is the capital of France. (Wikipedia)"), std::string::npos) << text;
    EXPECT_NE(text.find("1. Paris - Wikipedia - Paris is the capital and largest city of France. (https://en.wikipedia.org/wiki/Paris, 2024-06-01)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("2. Visit Paris - "), std::string::npos);
    EXPECT_EQ(text.find(" tail"), std::string::npos) << "the long snippet is clipped";
    // a result the origin policy refuses is marked, not hidden
    EXPECT_NE(text.find("https://blocked.example/paris?utm_source=x) [blocked by policy: blocked_origins: https://blocked.example]"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("1 result is outside the origin policy"), std::string::npos);
    // a very long URL loses its query, as snapshot links do, and keeps its scheme
    EXPECT_NE(text.find("3. Long one - short (https://long.example/pppp"), std::string::npos) << text;
    EXPECT_EQ(text.find(std::string(50, 'z')), std::string::npos);
    // what was clipped is kept whole as an artifact, named at the end
    const auto at = text.find("whole snippets and URLs: browser_artifact");
    ASSERT_NE(at, std::string::npos) << text;
    const auto id_at = text.find("\"id\": \"", at);
    ASSERT_NE(id_at, std::string::npos);
    const std::string id = text.substr(id_at + 7, text.find('"', id_at + 7) - id_at - 7);
    auto art = h.tools.call("browser_artifact", json{{"id", id}});
    ASSERT_TRUE(art) << art.error().to_text();
    EXPECT_NE(art->joined_text().find(" tail"), std::string::npos);
    EXPECT_NE(art->joined_text().find(std::string(50, 'z')), std::string::npos);
    // no browser: never started, no CDP command sent
    EXPECT_FALSE(h.b.running());
    EXPECT_EQ(h.b.totals().cdp_commands, 0U);
    // counted like every browser tool
    EXPECT_EQ(h.state.per_tool["web_search"].calls, 1U);
}

TEST(WebSearchTool, RepeatsComeFromTheCacheAndSayIt) {
    harness h;
    ASSERT_TRUE(h.tools.call("web_search", json{{"query", "capital of France"}}));
    auto again = h.tools.call("web_search", json{{"query", "capital of France"}});
    ASSERT_TRUE(again);
    EXPECT_NE(again->joined_text().find("(fake, from cache)"), std::string::npos) << again->joined_text();
    EXPECT_EQ(h.backend_calls, 1);
}

TEST(WebSearchTool, BadArgumentsAndBackendErrorsAreStructuredAndTheSessionGoesOn) {
    harness h;
    auto bad = h.tools.call("web_search", json{{"query", ""}, {"count", 50}, {"recency", "decade"}});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, ak::errc::args_invalid);
    for (const char* f : {"/query", "/count", "/recency"}) EXPECT_NE(bad.error().message.find(f), std::string::npos) << bad.error().message;
    auto site = h.tools.call("web_search", json{{"query", "x"}, {"site", "http://example.org/"}});
    ASSERT_FALSE(site);
    EXPECT_NE(site.error().message.find("/site"), std::string::npos);
    auto limited = h.tools.call("web_search", json{{"query", "fail"}});
    ASSERT_FALSE(limited);
    EXPECT_EQ(limited.error().code, ak::errc::search_rate_limited);
    EXPECT_EQ(limited.error().details.is_object() && limited.error().details.contains("screenshot"), false);  // no page involved
    auto ok = h.tools.call("web_search", json{{"query", "capital of France"}, {"count", 1}});
    ASSERT_TRUE(ok) << ok.error().to_text();
    EXPECT_NE(ok->joined_text().find("1. Paris - Wikipedia"), std::string::npos);
    EXPECT_EQ(ok->joined_text().find("2. "), std::string::npos);
    EXPECT_FALSE(h.b.running());
}

TEST(WebSearchTool, WithoutABackendItSaysHowToConfigureOne) {
    br::browser b;
    br::bounded_artifacts store;
    br::tool_state state(b, store);
    auto tools = br::browser_tools(state);
    auto r = tools.call("web_search", json{{"query", "x"}});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::search_unconfigured);
    EXPECT_NE(r.error().hint.find("--search"), std::string::npos);
    EXPECT_NE(r.error().hint.find("BRAVE_API_KEY"), std::string::npos);
}

TEST(WebSearchTool, ResearchModeOfTheMenuHoldsSearchBatchReadAndExtract) {
    harness h;
    auto menu = br::make_browser_menu<decltype(h.tools)>();
    menu.bind(h.tools.infos());
    auto entered = menu.handle_meta("menu_enter", json{{"mode", "research"}});
    ASSERT_TRUE(entered && entered->has_value());
    for (const char* t : {"web_search", "browser_batch", "browser_extract", "browser_navigate"})
        EXPECT_TRUE(menu.is_visible(t)) << t;
    EXPECT_FALSE(menu.is_visible("browser_click"));
}

TEST(WebSearchTool, TheRouterFindsItFromPlainWords) {
    harness h;
    for (const char* q : {"search the web", "look something up on the internet", "find pages about a topic online",
                          "web search for recent news", "which websites talk about this"}) {
        ak::router<> r;
        r.bind(h.tools.infos());
        auto o = r.search(q, 3);
        ASSERT_TRUE(o) << q;
        std::vector<std::string> names;
        if (o->structured)
            for (const auto& t : o->structured->at("tools")) names.push_back(t.at("name").get<std::string>());
        EXPECT_NE(std::find(names.begin(), names.end(), "web_search"), names.end()) << q << ": " << json(names).dump();
    }
}

TEST(WebSearchConfig, CommandLineChoosesTheBackendAndBoundsItByTimeoutAction) {
    auto parse = [](std::vector<const char*> args, br::server_config& c) {
        args.insert(args.begin(), "agentkit-browser-mcp");
        return br::parse_command_line(static_cast<int>(args.size()), const_cast<char**>(args.data()), c);
    };
    br::server_config c;
    ASSERT_TRUE(parse({"--search", "serper", "--search-url", "http://127.0.0.1:9/search", "--timeout-action", "2500"}, c));
    ASSERT_TRUE(br::finish_config(c));
    EXPECT_EQ(c.web_search.backend, "serper");
    EXPECT_EQ(c.web_search.url, "http://127.0.0.1:9/search");
    EXPECT_EQ(c.web_search.options.timeout, std::chrono::milliseconds(2500));

    br::server_config bad;
    auto r = parse({"--search", "bing"}, bad);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("searxng, brave, tavily, serper"), std::string::npos);
    br::server_config bad_url;
    r = parse({"--search", "brave", "--search-url", "ftp://x/?key=SECRET"}, bad_url);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message.find("SECRET"), std::string::npos) << r.error().message;
    br::server_config no_url;
    ASSERT_TRUE(parse({"--search", "searxng"}, no_url));
    auto f = br::finish_config(no_url);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("--search-url"), std::string::npos);
    br::server_config lone_url;
    ASSERT_TRUE(parse({"--search-url", "http://127.0.0.1:9/"}, lone_url));
    ASSERT_TRUE(br::finish_config(lone_url));
    EXPECT_TRUE(std::any_of(lone_url.notes.begin(), lone_url.notes.end(),
                            [](const std::string& n) { return n.find("--search-url has no effect") != std::string::npos; }));
    const std::string help = br::server_usage;
    for (const char* s : {"--search BACKEND", "--search-url URL", "BRAVE_API_KEY", "TAVILY_API_KEY", "SERPER_API_KEY"})
        EXPECT_NE(help.find(s), std::string::npos) << s;
}
