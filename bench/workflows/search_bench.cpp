// agentkit-bench-search — "search, then read two results", two ways, through agent_session and
// the scripted model over real headless Chromium, everything served on 127.0.0.1:
//   results page  browser_navigate to a search engine's results page (stand-in: 10 results
//                 among the chrome such a page has: header, search box, ads, "people also
//                 ask", related searches, footer), then browser_navigate to each of two results;
//   web_search    web_search through a SearXNG stand-in (the same 10 results, in SearXNG's JSON
//                 format), then browser_batch on two result URLs.
// Columns: tool round trips, API calls, input tokens summed over the calls (chars/4), output
// tokens, wall time of the run (the browser already started; median of 5 runs).
//
// Then what a search costs over the backend: the same SearXNG request sent directly with the
// libcurl client, and through the web_search tool (distinct queries: no cache), 200 each; the
// difference of the medians is what agentkit adds (the bound: 5 ms).
//
//   build/bin/agentkit-bench-search          (needs Chromium: /usr/lib/chromium/chromium or $AGENTKIT_CHROMIUM)
#include <agentkit/agentkit.hpp>
#include <agentkit/net/http_client.hpp>
#include <agentkit/net/http_server.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace ak = agentkit;
namespace br = agentkit::browser;
namespace se = agentkit::search;
namespace net = agentkit::net;
using ak::json;
using clock_type = std::chrono::steady_clock;

namespace {

const char* kTitles[] = {"Acme pricing plans",     "Acme plans compared",     "Acme review 2024",  "Acme vs Initech",
                         "Acme discount codes",    "Acme enterprise pricing", "Acme free tier",    "Acme billing FAQ",
                         "Acme alternatives",      "Acme changelog"};

std::string article(const std::string& title, int plan_base) {
    std::string s = "<!doctype html><html><head><meta charset=utf-8><title>" + title + "</title></head><body>"
                    "<header><nav><a href=/>Home</a> <a href=/docs>Docs</a> <a href=/blog>Blog</a> <a href=/login>Log in</a></nav></header><main><h1>" +
                    title + "</h1>";
    for (int i = 0; i < 12; ++i)
        s += "<p>Plan " + std::to_string(plan_base + i) + " costs " + std::to_string(10 + i) +
             " euros a month with seats, storage and support terms described in full sentences here.</p>";
    return s + "</main><footer><a href=/privacy>Privacy</a> <a href=/terms>Terms</a></footer></body></html>";
}

std::string results_page(const std::string& origin) {
    std::string s = "<!doctype html><html><head><meta charset=utf-8><title>acme pricing plans - Search</title></head><body>"
                    "<header><a href=/>Search</a><form><input name=q value='acme pricing plans' aria-label=Search><button>Search</button></form>"
                    "<nav><a href=/all>All</a> <a href=/images>Images</a> <a href=/news>News</a> <a href=/videos>Videos</a> "
                    "<a href=/maps>Maps</a> <a href=/shopping>Shopping</a> <a href=/settings>Settings</a> <a href=/tools>Tools</a></nav></header>"
                    "<main><p>About 1,240,000 results (0.41 seconds)</p>"
                    "<section aria-label=Ads><h2>Sponsored</h2>";
    for (int i = 0; i < 3; ++i)
        s += "<div><a href=/ad" + std::to_string(i) + "><h3>Ad: Try Widget Pro " + std::to_string(i) +
             " today</h3></a><p>Sponsored · widgetpro.example · The best alternative, 30-day free trial, no card needed.</p></div>";
    s += "</section>";
    for (int i = 0; i < 10; ++i) {
        const std::string url = origin + "/r" + std::to_string(i) + ".html";
        s += "<div class=g><a href='" + url + "'><h3>" + kTitles[i] + "</h3><cite>" + url +
             "</cite></a><button aria-label='About this result'>⋮</button><p>A snippet of about one hundred and twenty characters that "
             "describes what the page is about, with its plans and prices.</p></div>";
        if (i == 3) {
            s += "<section><h2>People also ask</h2>";
            for (const char* q : {"How much does Acme cost?", "Is Acme free?", "Does Acme have a student plan?", "How do I cancel Acme?"})
                s += "<details><summary>" + std::string(q) + "</summary><p>An answer from a web page.</p></details>";
            s += "</section>";
        }
    }
    s += "<section><h2>Related searches</h2>";
    for (const char* q : {"acme pricing per user", "acme free plan", "acme enterprise", "acme vs initech pricing", "acme student discount",
                          "acme coupon"})
        s += "<a href=/search?q=x>" + std::string(q) + "</a> ";
    s += "</section><nav aria-label=Pagination><a href=/p2>2</a> <a href=/p3>3</a> <a href=/p4>4</a> <a href=/next>Next</a></nav></main>"
         "<footer><a href=/help>Help</a> <a href=/feedback>Send feedback</a> <a href=/privacy>Privacy</a> <a href=/terms>Terms</a></footer></body></html>";
    return s;
}

json searxng_results(const std::string& origin) {
    json results = json::array();
    for (int i = 0; i < 10; ++i)
        results.push_back({{"url", origin + "/r" + std::to_string(i) + ".html"},
                           {"title", kTitles[i]},
                           {"content", "A snippet of about one hundred and twenty characters that describes what the page is about, with "
                                       "its plans and prices."},
                           {"engine", "brave"},
                           {"publishedDate", i % 3 == 0 ? json("2024-05-0" + std::to_string(1 + i % 9)) : json(nullptr)},
                           {"score", 10 - i},
                           {"category", "general"}});
    return json{{"query", "acme pricing plans"}, {"number_of_results", 0}, {"results", results}, {"answers", json::array()},
                {"infoboxes", json::array()}, {"suggestions", json::array()}, {"unresponsive_engines", json::array()}};
}

ak::token_counter chars_over_4() {
    return ak::token_counter::from_function([](std::string_view s) { return (s.size() + 3) / 4; });
}

struct measured {
    std::size_t tool_round_trips = 0, api_calls = 0, input = 0, output = 0;
    double ms = 0;
    bool ok = true;
};

measured run_once(br::tool_state& state, std::vector<ak::scripted_reply> script, const char* task) {
    ak::session_options o;
    o.tokens = chars_over_4();
    o.builtin_complete = false;
    ak::agent_session s{br::browser_tools(state), ak::all_visible{}, ak::compact_formatter{}, o};
    ak::scripted_model m(ak::provider::anthropic, std::move(script), chars_over_4());
    const auto t0 = clock_type::now();
    const auto r = s.run(m, task);
    measured out;
    out.ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
    out.ok = r.ok();
    if (!r.ok()) std::fprintf(stderr, "run failed: %s\n", r.error ? r.error->to_text().c_str() : std::string(ak::to_string(r.reason)).c_str());
    for (const auto& t : s.metrics().turns) {
        ++out.api_calls;
        if (!t.tools.empty()) ++out.tool_round_trips;
    }
    out.input = s.metrics().usage.input_tokens;
    out.output = s.metrics().usage.output_tokens;
    return out;
}

measured median_of(br::tool_state& state, const std::vector<ak::scripted_reply>& script, const char* task, int runs) {
    std::vector<measured> all;
    for (int i = 0; i < runs; ++i) all.push_back(run_once(state, script, task));
    std::sort(all.begin(), all.end(), [](const measured& a, const measured& b) { return a.ms < b.ms; });
    return all[all.size() / 2];
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main() {
    net::http_server site;
    for (int i = 0; i < 10; ++i) site.route("/r" + std::to_string(i) + ".html", net::http_response::html(article(kTitles[i], i * 12)));
    if (!site.start()) return 1;
    site.route("/search", net::http_response::html(results_page(site.origin())));
    net::http_server searxng;
    const std::string answer = searxng_results(site.origin()).dump();
    searxng.route("/search", [&answer](const net::http_request&) { return net::http_response::json_text(answer); });
    if (!searxng.start()) return 1;

    br::browser_options bo;
    br::browser b(bo);
    br::bounded_artifacts store;
    br::tool_state state(b, store);
    net::http_client http;
    se::settings ss;
    ss.backend = "searxng";
    ss.url = searxng.origin();
    auto backend = se::make_backend(ss, http);
    if (!backend) return 1;
    se::searcher searcher(*backend, se::cache_options{0, std::chrono::milliseconds(0), {}});  // no cache: every search is asked
    state.searcher = &searcher;
    {
        auto tools = br::browser_tools(state);  // start the browser before anything is timed
        auto warm = tools.call("browser_navigate", json{{"url", site.url("/r9.html")}});
        if (!warm) {
            std::fprintf(stderr, "no browser: %s\n", warm.error().to_text().c_str());
            return 77;
        }
    }

    const std::string serp = site.url("/search") + "?q=acme+pricing+plans";
    const std::string r0 = site.url("/r0.html");
    const std::string r1 = site.url("/r1.html");
    const std::vector<ak::scripted_reply> page_way{
        ak::script::call({{"browser_navigate", {{"url", serp}}}}),
        ak::script::call({{"browser_navigate", {{"url", r0}}}}),
        ak::script::call({{"browser_navigate", {{"url", r1}}}}),
        ak::script::say("Plan 0 costs 10 euros a month; plan 12 costs 10 euros a month."),
    };
    const std::vector<ak::scripted_reply> search_way{
        ak::script::call({{"web_search", {{"query", "acme pricing plans"}}}}),
        ak::script::call({{"browser_batch", {{"urls", {r0, r1}}}}}),
        ak::script::say("Plan 0 costs 10 euros a month; plan 12 costs 10 euros a month."),
    };
    const char* task = "Find Acme's pricing plans: search, then read the first two results.";
    const measured before = median_of(state, page_way, task, 5);
    const measured after = median_of(state, search_way, task, 5);

    std::printf("Search, then read two results — results page in the browser → web_search + browser_batch\n");
    std::printf("real headless Chromium, pages and a SearXNG stand-in on 127.0.0.1; scripted model (Anthropic format); tokens = chars/4;\n"
                "time: median of 5 runs, browser already started\n\n");
    std::printf("%-28s | %-16s | %-9s | %-12s | %-7s | %s\n", "way", "tool round trips", "API calls", "input tokens", "output", "wall ms");
    std::printf("%s\n", std::string(96, '-').c_str());
    std::printf("%-28s | %-16zu | %-9zu | %-12zu | %-7zu | %.0f\n", "results page (navigate x3)", before.tool_round_trips, before.api_calls,
                before.input, before.output, before.ms);
    std::printf("%-28s | %-16zu | %-9zu | %-12zu | %-7zu | %.0f\n", "web_search + browser_batch", after.tool_round_trips, after.api_calls,
                after.input, after.output, after.ms);
    std::printf("input tokens -%.0f%%, wall time -%.0f%%\n\n", 100.0 * (1.0 - static_cast<double>(after.input) / static_cast<double>(before.input)),
                100.0 * (1.0 - after.ms / before.ms));

    // What a search costs over the backend's own latency.
    constexpr int n = 200;
    std::vector<double> direct;
    std::vector<double> tool;
    net::client_request rq;
    rq.url = searxng.url("/search") + "?q=acme&format=json&pageno=1";
    auto tools = br::browser_tools(state);
    const auto cdp_before = b.totals().cdp_commands;
    for (int i = 0; i < n; ++i) {
        auto t0 = clock_type::now();
        auto resp = http.perform(rq);
        direct.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
        if (!resp || !resp->ok()) return 1;
        t0 = clock_type::now();
        auto r = tools.call("web_search", json{{"query", "acme pricing plans " + std::to_string(i)}});
        tool.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
        if (!r) {
            std::fprintf(stderr, "%s\n", r.error().to_text().c_str());
            return 1;
        }
    }
    const double d = median(direct);
    const double t = median(tool);
    std::printf("a search over the backend (%d searches, no cache): the backend request alone %.2f ms (median), through web_search "
                "%.2f ms: agentkit adds %.2f ms (bound: 5 ms), no browser call (%llu CDP commands during the searches)\n",
                n, d, t, t - d, static_cast<unsigned long long>(b.totals().cdp_commands - cdp_before));
    return before.ok && after.ok ? 0 : 1;
}
