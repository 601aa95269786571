// End-to-end tests of what the browser keeps for sites and of the requests it answers itself,
// against real headless Chromium on pages served from 127.0.0.1: cookies, localStorage and
// sessionStorage, the storage state saved and restored (a second browser, an origin no tab
// shows), routes (mocked, changed, removed), offline, and the origin policy deciding before
// all of them. Through the engine's API and through the tools in both layouts.
#include <agentkit/agentkit.hpp>
#include <agentkit/browser/tools.hpp>

#include "support/http_server.hpp"
#include "support/tool_text.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace ak = agentkit;
namespace br = agentkit::browser;
namespace errc = agentkit::errc;
using ak::json;
using agentkit::test::text_of;
using agentkit::test::http_request;
using agentkit::test::http_response;
using agentkit::test::http_server;
using agentkit::test::page;
using namespace std::chrono_literals;

namespace {

br::browser_options options() {
    br::browser_options o;
    o.call_timeout = 4000ms;
    o.navigation_timeout = 8000ms;
    o.network_idle_timeout = 1500ms;
    o.allow_evaluate = true;  // the tests read the page's own view (document.cookie, localStorage)
    return o;
}

std::string eval(br::browser& b, const std::string& expr) {
    auto r = b.evaluate(expr);
    if (!r) return "ERROR " + r.error().message;
    return r->value.is_string() ? r->value.get<std::string>() : r->value.dump();
}

struct temp_dir {
    std::filesystem::path path;
    temp_dir() {
        path = std::filesystem::temp_directory_path() / ("agentkit-site-data-" + std::to_string(::getpid()) + "-" + ak::random_hex(4));
        std::filesystem::create_directories(path);
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

struct site_tools {
    br::browser b;
    br::bounded_artifacts store;
    br::tool_state state;
    decltype(br::browser_tools(std::declval<br::tool_state&>())) tools;
    explicit site_tools(br::browser_options o = options(), br::tools_options t = {})
        : b(std::move(o)), store(), state(b, store, std::move(t)), tools(br::browser_tools(state)) {}
    std::string call(const std::string& name, json args = json::object()) {
        ak::tool_context ctx;
        return text_of(tools.call(name, args, ctx));
    }
};

}  // namespace

// ---- cookies ------------------------------------------------------------------------------------

TEST(SiteDataE2E, CookiesSetListedReadDeletedAndClearedAsThePageSeesThem) {
    http_server s;
    s.route("/", http_response::html(page("Home", "<p>home</p>")));
    br::browser b(options());
    ASSERT_TRUE(b.navigate(s.url("/")));
    br::cookie c;
    c.name = "sid";
    c.value = "abc-1";
    ASSERT_TRUE(b.set_cookie(c));  // the page's host, path /
    br::cookie other;
    other.name = "pref";
    other.value = "dark";
    other.domain = "127.0.0.1";
    other.http_only = true;
    other.same_site = "Strict";
    ASSERT_TRUE(b.set_cookie(other));
    EXPECT_EQ(eval(b, "document.cookie"), "sid=abc-1");  // the httpOnly one is hidden from the page
    auto all = b.cookies();
    ASSERT_TRUE(all);
    ASSERT_EQ(all->size(), 2U);
    for (const auto& k : *all) {
        EXPECT_EQ(k.domain, "127.0.0.1");
        EXPECT_EQ(k.path, "/");
        if (k.name == "pref") {
            EXPECT_TRUE(k.http_only);
            EXPECT_EQ(k.same_site, "Strict");
        }
    }
    // the server gets both
    s.route("/echo", [](const http_request& r) { return http_response::text(r.header("cookie").value_or("none")); });
    ASSERT_TRUE(b.navigate(s.url("/echo")));
    EXPECT_EQ(eval(b, "document.body.innerText"), "sid=abc-1; pref=dark");
    auto n = b.delete_cookies("sid");
    ASSERT_TRUE(n);
    EXPECT_EQ(*n, 1U);
    EXPECT_EQ(b.cookies()->size(), 1U);
    EXPECT_EQ(*b.delete_cookies("nothing-by-that-name"), 0U);
    EXPECT_EQ(*b.delete_cookies(), 1U);
    EXPECT_TRUE(b.cookies()->empty());
    // bad input says what is wrong, and the browser goes on
    br::cookie bad;
    bad.name = "a;b";
    bad.value = "v";
    auto e = b.set_cookie(bad);
    ASSERT_FALSE(e);
    EXPECT_TRUE(e.error().is(errc::args_invalid));
    bad.name = "a";
    bad.same_site = "lax";
    EXPECT_TRUE(b.set_cookie(bad).error().is(errc::args_invalid));
    EXPECT_TRUE(b.navigate(s.url("/")));
}

TEST(SiteDataE2E, ACookieForAHostThePolicyRefusesIsRefusedAndAPageWithoutAHostSaysSo) {
    http_server s;
    s.route("/", http_response::html(page("Home", "<p>home</p>")));
    auto o = options();
    o.policy.allowed_origins = {s.origin()};
    br::browser b(o);
    br::cookie c;
    c.name = "x";
    c.value = "1";
    auto blank = b.set_cookie(c);  // no page yet: about:blank has no host
    ASSERT_FALSE(blank);
    EXPECT_NE(blank.error().message.find("no host"), std::string::npos) << blank.error().message;
    ASSERT_TRUE(b.navigate(s.url("/")));
    c.domain = "evil.test";
    auto r = b.set_cookie(c);
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().is(errc::policy_blocked)) << r.error().to_text();
    EXPECT_NE(r.error().to_text().find("allowed_origins"), std::string::npos) << r.error().to_text();
    EXPECT_TRUE(b.cookies()->empty());
    c.domain = "localhost";  // this machine, as the allowed origin names it
    EXPECT_TRUE(b.set_cookie(c));
}

TEST(SiteDataE2E, CookieToolsInBothLayouts) {
    http_server s;
    s.route("/", http_response::html(page("Home", "<p>home</p>")));
    site_tools f;
    f.call("browser_navigate", {{"url", s.url("/")}});
    EXPECT_EQ(f.call("browser_cookie_list"), "No cookies found");
    EXPECT_NE(f.call("browser_cookie_set", {{"name", "sid"}, {"value", "v1"}, {"httpOnly", true}}).find("cookie sid set for 127.0.0.1"), std::string::npos);
    const std::string listed = f.call("browser_cookie_list");
    EXPECT_NE(listed.find("sid=v1 (domain: 127.0.0.1, path: /)"), std::string::npos) << listed;
    EXPECT_NE(listed.find("<<page-data " + f.b.boundary() + ">>"), std::string::npos) << listed;  // the site's values are page data
    EXPECT_NE(f.call("browser_cookie_get", {{"name", "sid"}}).find("httpOnly: true, secure: false, sameSite: Lax"), std::string::npos);
    EXPECT_EQ(f.call("browser_cookie_get", {{"name", "nope"}}), "Cookie 'nope' not found");
    EXPECT_EQ(f.call("browser_cookie_list", {{"domain", "example"}}), "No cookies found");
    EXPECT_NE(f.call("browser_cookie_delete", {{"name", "sid"}}).find("1 cookie(s) named sid deleted"), std::string::npos);
    EXPECT_NE(f.call("browser_cookie_set", {{"name", "a"}, {"value", "1"}, {"sameSite", "Sideways"}}).find("args.invalid"), std::string::npos);

    br::tools_options pw;
    pw.output = br::output_mode::playwright;
    site_tools g(options(), pw);
    g.call("browser_navigate", {{"url", s.url("/")}});
    const std::string set = g.call("browser_cookie_set", {{"name", "sid"}, {"value", "v1"}});
    EXPECT_NE(set.find("### Ran Playwright code"), std::string::npos) << set;
    EXPECT_NE(set.find(R"(await page.context().addCookies([{"name":"sid","value":"v1","domain":"127.0.0.1","path":"/"}]);)"), std::string::npos) << set;
    const std::string list = g.call("browser_cookie_list");
    EXPECT_NE(list.find("### Result\nsid=v1 (domain: 127.0.0.1, path: /)"), std::string::npos) << list;
    EXPECT_NE(list.find("await page.context().cookies();"), std::string::npos) << list;
    EXPECT_NE(g.call("browser_cookie_clear").find("await page.context().clearCookies();"), std::string::npos);
    EXPECT_EQ(eval(g.b, "document.cookie"), "");
}

// ---- web storage --------------------------------------------------------------------------------

TEST(SiteDataE2E, LocalAndSessionStorageOfTheCurrentPageAreSeparateAndAPageWithoutAnOriginSaysSo) {
    http_server s;
    s.route("/", http_response::html(page("Home", "<script>localStorage.setItem('seen', 'yes')</script>")));
    br::browser b(options());
    auto none = b.storage_items(br::storage_area::local);  // about:blank
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().message.find("opaque"), std::string::npos) << none.error().message;
    ASSERT_TRUE(b.navigate(s.url("/")));
    ASSERT_TRUE(b.set_storage_item(br::storage_area::local, "k", "v=1\nline two"));
    ASSERT_TRUE(b.set_storage_item(br::storage_area::session, "k", "session"));
    EXPECT_EQ(eval(b, "localStorage.getItem('k')"), "v=1\nline two");
    EXPECT_EQ(eval(b, "sessionStorage.getItem('k')"), "session");
    auto items = b.storage_items(br::storage_area::local);
    ASSERT_TRUE(items);
    ASSERT_EQ(items->size(), 2U);
    EXPECT_EQ(*b.storage_value(br::storage_area::local, "seen"), std::optional<std::string>("yes"));
    EXPECT_FALSE(b.storage_value(br::storage_area::local, "missing")->has_value());
    EXPECT_EQ(*b.remove_storage_items(br::storage_area::local, "seen"), 1U);
    EXPECT_EQ(*b.remove_storage_items(br::storage_area::local, "seen"), 0U);
    EXPECT_EQ(*b.remove_storage_items(br::storage_area::session, std::nullopt), 1U);
    EXPECT_EQ(eval(b, "sessionStorage.length"), "0");
    EXPECT_EQ(eval(b, "localStorage.length"), "1");
    // a page that overrides Storage in its own world does not fool the tools (they read from theirs)
    ASSERT_TRUE(b.evaluate("Storage.prototype.getItem = () => 'forged'"));
    EXPECT_EQ(*b.storage_value(br::storage_area::local, "k"), std::optional<std::string>("v=1\nline two"));
}

TEST(SiteDataE2E, WebStorageToolsInBothLayouts) {
    http_server s;
    s.route("/", http_response::html(page("Home", "<p>home</p>")));
    site_tools f;
    f.call("browser_navigate", {{"url", s.url("/")}});
    EXPECT_EQ(f.call("browser_localstorage_list"), "No localStorage items found");
    f.call("browser_localstorage_set", {{"key", "k1"}, {"value", "v1"}});
    f.call("browser_sessionstorage_set", {{"key", "s1"}, {"value", "w1"}});
    EXPECT_NE(f.call("browser_localstorage_get", {{"key", "k1"}}).find("k1=v1"), std::string::npos);
    EXPECT_EQ(f.call("browser_localstorage_get", {{"key", "s1"}}), "localStorage key 's1' not found");
    EXPECT_NE(f.call("browser_sessionstorage_list").find("s1=w1"), std::string::npos);
    EXPECT_NE(f.call("browser_localstorage_delete", {{"key", "k1"}}).find("deleted"), std::string::npos);
    EXPECT_NE(f.call("browser_sessionstorage_clear").find("1 sessionStorage item(s) deleted"), std::string::npos);
    EXPECT_EQ(f.call("browser_sessionstorage_list"), "No sessionStorage items found");

    br::tools_options pw;
    pw.output = br::output_mode::playwright;
    site_tools g(options(), pw);
    g.call("browser_navigate", {{"url", s.url("/")}});
    const std::string set = g.call("browser_localstorage_set", {{"key", "it's"}, {"value", "v"}});
    EXPECT_NE(set.find(R"(await page.localStorage.setItem('it\'s', 'v');)"), std::string::npos) << set;
    const std::string got = g.call("browser_localstorage_get", {{"key", "it's"}});
    EXPECT_NE(got.find("### Result\nit's=v"), std::string::npos) << got;
    EXPECT_NE(g.call("browser_localstorage_get", {{"key", "x"}}).find("localStorage key 'x' not found"), std::string::npos);
}

// ---- storage state ------------------------------------------------------------------------------

TEST(SiteDataE2E, AStorageStateSavedInOneBrowserIsRestoredInAnotherIncludingAnOriginNoTabShows) {
    http_server a, c;
    a.route("/", http_response::html(page("A", "<p>a</p>")));
    c.route("/", http_response::html(page("C", "<p>c</p>")));
    br::storage_state saved;
    {
        br::browser b(options());
        ASSERT_TRUE(b.navigate(c.url("/")));
        ASSERT_TRUE(b.set_storage_item(br::storage_area::local, "on", "c"));
        ASSERT_TRUE(b.set_storage_item(br::storage_area::session, "gone", "with the tab"));
        ASSERT_TRUE(b.navigate(a.url("/")));  // no tab shows C now
        ASSERT_TRUE(b.set_storage_item(br::storage_area::local, "on", "a"));
        br::cookie k;
        k.name = "sid";
        k.value = "s-1";
        ASSERT_TRUE(b.set_cookie(k));
        auto st = b.save_storage();
        ASSERT_TRUE(st) << st.error().to_text();
        saved = *st;
        ASSERT_EQ(b.tabs()->size(), 1U);  // the temporary tab is gone
    }
    ASSERT_EQ(saved.cookies.size(), 1U);
    ASSERT_EQ(saved.origins.size(), 2U);
    const json file = br::to_json(saved);  // Playwright's format
    EXPECT_EQ(file["cookies"][0]["name"], "sid");
    EXPECT_EQ(file["cookies"][0]["sameSite"], "Lax");
    for (const auto& o : file["origins"]) {
        ASSERT_EQ(o["localStorage"].size(), 1U) << o.dump();  // sessionStorage is not kept
        EXPECT_EQ(o["localStorage"][0]["value"], o["origin"] == a.origin() ? "a" : "c") << o.dump();
    }
    // a second browser: a page of A is open, C is not
    br::browser b2(options());
    ASSERT_TRUE(b2.navigate(a.url("/")));
    ASSERT_TRUE(b2.set_storage_item(br::storage_area::local, "stale", "x"));
    const auto c_requests = c.requests().size();
    auto report = b2.restore_storage(saved);
    ASSERT_TRUE(report) << report.error().to_text();
    EXPECT_EQ(report->cookies, 1U);
    EXPECT_EQ(report->origins, 2U);
    EXPECT_TRUE(report->left_out.empty());
    std::string c_paths;
    for (const auto& r : c.requests()) c_paths += r.path + " ";
    EXPECT_EQ(c.requests().size(), c_requests) << c_paths;  // C's temporary page was answered by the browser
    EXPECT_EQ(eval(b2, "document.cookie"), "sid=s-1");
    EXPECT_EQ(eval(b2, "localStorage.getItem('on') + '|' + localStorage.getItem('stale')"), "a|null");  // replaced
    ASSERT_TRUE(b2.navigate(c.url("/")));
    EXPECT_EQ(eval(b2, "localStorage.getItem('on')"), "c");
    EXPECT_EQ(b2.tabs()->size(), 1U);
}

TEST(SiteDataE2E, RestoringLeavesOutWhatThePolicyRefusesAndSaysSo) {
    http_server a;
    a.route("/", http_response::html(page("A", "<p>a</p>")));
    auto o = options();
    o.policy.allowed_origins = {a.origin()};
    br::browser b(o);
    ASSERT_TRUE(b.navigate(a.url("/")));
    auto st = br::parse_storage_state(json::parse(R"({"cookies": [{"name": "ok", "value": "1", "domain": "127.0.0.1"},
                                                                  {"name": "tracker", "value": "2", "domain": ".evil.test"}],
                                                      "origins": [{"origin": "http://evil.test", "localStorage": [{"name": "k", "value": "v"}]},
                                                                  {"origin": ")" + a.origin() + R"(", "localStorage": [{"name": "k", "value": "mine"}]}]})"));
    ASSERT_TRUE(st);
    auto r = b.restore_storage(*st);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(r->cookies, 1U);
    EXPECT_EQ(r->origins, 1U);
    ASSERT_EQ(r->left_out.size(), 2U);
    EXPECT_EQ(r->left_out[0], "cookie tracker for .evil.test: allowed_origins: not in the allowed list");
    EXPECT_EQ(r->left_out[1], "localStorage of http://evil.test: allowed_origins: not in the allowed list");
    EXPECT_EQ(eval(b, "document.cookie + '|' + localStorage.getItem('k')"), "ok=1|mine");
    EXPECT_TRUE(b.blocked_requests().empty());  // nothing was even tried
}

TEST(SiteDataE2E, StorageStateToolsWriteAFileAndRefuseFilesOutsideTheWorkspace) {
    http_server a;
    a.route("/", http_response::html(page("A", "<p>a</p>")));
    temp_dir ws;
    br::tools_options t;
    t.workspace = ws.path.string();
    t.output_dir = (ws.path / "out").string();
    auto o = options();
    o.policy.secrets = {{"TOKEN", "tok-s3cret-42"}};
    site_tools f(o, t);
    f.call("browser_navigate", {{"url", a.url("/")}});
    f.call("browser_localstorage_set", {{"key", "k"}, {"value", "v"}});
    f.call("browser_localstorage_set", {{"key", "api"}, {"value", "tok-s3cret-42"}});
    const std::string saved = f.call("browser_storage_state");
    EXPECT_NE(saved.find("storage state saved to out/storage-state-"), std::string::npos) << saved;
    EXPECT_NE(saved.find("0 cookie(s), 1 origin(s)"), std::string::npos) << saved;
    std::filesystem::path file;
    for (const auto& e : std::filesystem::directory_iterator(ws.path / "out")) file = e.path();
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str().find("tok-s3cret-42"), std::string::npos) << text.str();  // the secret is never written out
    auto j = json::parse(text.str());
    EXPECT_EQ(j["origins"][0]["origin"], a.origin());
    // a named file in the workspace, restored after the page changed things
    EXPECT_NE(f.call("browser_storage_state", {{"filename", "state.json"}}).find("state.json"), std::string::npos);
    ASSERT_TRUE(std::filesystem::exists(ws.path / "state.json"));
    f.call("browser_localstorage_set", {{"key", "k"}, {"value", "changed"}});
    const std::string restored = f.call("browser_set_storage_state", {{"filename", "state.json"}});
    EXPECT_NE(restored.find("storage state restored from state.json: 0 cookie(s), 1 origin(s)"), std::string::npos) << restored;
    EXPECT_EQ(eval(f.b, "localStorage.getItem('k')"), "v");
    // outside the workspace and the output directory: refused; missing and malformed files: clear errors
    const std::string outside = f.call("browser_storage_state", {{"filename", "/tmp/../etc/agentkit-state.json"}});
    EXPECT_NE(outside.find("File access denied"), std::string::npos) << outside;
    EXPECT_NE(f.call("browser_set_storage_state", {{"filename", "missing.json"}}).find("cannot read"), std::string::npos);
    std::ofstream(ws.path / "bad.json") << R"({"cookies": [{"name": "x"}]})";
    const std::string bad = f.call("browser_set_storage_state", {{"filename", "bad.json"}});
    EXPECT_NE(bad.find("cookie 1 has no \"value\""), std::string::npos) << bad;
    EXPECT_EQ(eval(f.b, "localStorage.getItem('k')"), "v");  // nothing was lost

    br::tools_options pw = t;
    pw.output = br::output_mode::playwright;
    site_tools g(options(), pw);
    g.call("browser_navigate", {{"url", a.url("/")}});
    const std::string r = g.call("browser_storage_state");
    EXPECT_NE(r.find("- [Storage state](out/storage-state-"), std::string::npos) << r;
    EXPECT_NE(r.find("page.context().storageState({ path: 'out/storage-state-"), std::string::npos) << r;
    const std::string back = g.call("browser_set_storage_state", {{"filename", "state.json"}});
    EXPECT_NE(back.find("### Result\nStorage state restored from state.json"), std::string::npos) << back;
    EXPECT_NE(back.find("await page.context().setStorageState('state.json');"), std::string::npos) << back;
}

// ---- routes and the network state ---------------------------------------------------------------

namespace {
// A page that fetches `path` when its button is clicked and shows the status and body.
std::string fetcher(const std::string& path, const std::string& extra_headers = "{}") {
    return page("Fetcher", "<button id=go onclick=\"fetch('" + path + "', {headers: " + extra_headers +
                               "}).then(async r => document.getElementById('out').textContent = r.status + ' ' + (r.headers.get('content-type') || '') + ' ' + await r.text(), e => document.getElementById('out').textContent = 'failed: ' + e.message)\">go</button><p id=out></p>");
}

std::string fetch_now(br::browser& b, const std::string& path) {
    auto r = b.evaluate("fetch('" + path + "').then(async r => r.status + ' ' + (r.headers.get('content-type') || '') + ' ' + await r.text(), e => 'failed: ' + e.message)");
    if (!r) return "ERROR " + r.error().message;
    return r->value.is_string() ? r->value.get<std::string>() : r->value.dump();
}
}  // namespace

TEST(RoutesE2E, AMockedResponseIsAnsweredByTheBrowserAndNeverReachesTheServer) {
    http_server s;
    s.route("/", http_response::html(fetcher("/api/users")));
    s.route("/api/users", http_response::json(R"({"from":"server"})"));
    br::browser b(options());
    ASSERT_TRUE(b.navigate(s.url("/")));
    br::route_rule r;
    r.pattern = "**/api/users";
    r.body = R"([{"id":1,"name":"Alice"}])";
    r.content_type = "application/json";
    ASSERT_TRUE(b.add_route(r));
    EXPECT_EQ(fetch_now(b, "/api/users"), R"(200 application/json [{"id":1,"name":"Alice"}])");
    EXPECT_EQ(s.hits("/api/users"), 0U);
    // a later route for the same URL wins; a status without a body answers empty
    br::route_rule gone;
    gone.pattern = "**/api/*";
    gone.status = 404;
    ASSERT_TRUE(b.add_route(gone));
    EXPECT_EQ(fetch_now(b, "/api/users"), "404  ");
    ASSERT_EQ(b.routes().size(), 2U);
    EXPECT_EQ(b.remove_routes("**/api/*"), 1U);
    EXPECT_EQ(fetch_now(b, "/api/users"), R"(200 application/json [{"id":1,"name":"Alice"}])");
    EXPECT_EQ(b.remove_routes(), 1U);
    EXPECT_EQ(fetch_now(b, "/api/users"), R"(200 application/json {"from":"server"})");
    EXPECT_EQ(s.hits("/api/users"), 1U);
    // bad routes are refused with what is wrong
    br::route_rule bad;
    EXPECT_TRUE(b.add_route(bad).error().is(errc::args_invalid));
    bad.pattern = "**";
    bad.status = 42;
    EXPECT_TRUE(b.add_route(bad).error().is(errc::args_invalid));
    bad.status.reset();
    bad.add_headers = {{"X-Bad", "a\r\nInjected: 1"}};
    EXPECT_TRUE(b.add_route(bad).error().is(errc::args_invalid));
}

TEST(RoutesE2E, ARouteChangesTheHeadersARequestIsSentWith) {
    http_server s;
    std::string seen;
    std::mutex mu;
    s.route("/", http_response::html(page("Home", "<p>home</p>")));
    s.route("/api/check", [&](const http_request& r) {
        std::lock_guard l(mu);
        seen = "custom=" + r.header("x-custom-header").value_or("-") + " trace=" + r.header("x-trace").value_or("-");
        return http_response::text("ok");
    });
    br::browser b(options());
    ASSERT_TRUE(b.navigate(s.url("/")));
    br::route_rule r;
    r.pattern = "**/api/check";
    r.add_headers = {{"X-Custom-Header", "test-value"}};
    r.remove_headers = {"x-TRACE"};
    ASSERT_TRUE(b.add_route(r));
    ASSERT_TRUE(b.evaluate("fetch('/api/check', {headers: {'X-Trace': 't1'}}).then(r => r.text())"));
    std::lock_guard l(mu);
    EXPECT_EQ(seen, "custom=test-value trace=-");
}

TEST(RoutesE2E, ARouteNeverOpensAnOriginThePolicyRefuses) {
    http_server s, other;
    s.route("/", http_response::html(page("Home", "<p>home</p>")));
    other.route("/x", http_response::text("other"));
    auto o = options();
    o.policy.allowed_origins = {s.origin()};
    br::browser b(o);
    ASSERT_TRUE(b.navigate(s.url("/")));
    br::route_rule everything;
    everything.pattern = "**";
    everything.body = "mocked";
    ASSERT_TRUE(b.add_route(everything));
    EXPECT_EQ(fetch_now(b, "/anything"), "200  mocked");
    EXPECT_NE(fetch_now(b, other.url("/x")).find("failed"), std::string::npos);
    bool refused = false;
    for (const auto& r : b.blocked_requests()) refused = refused || r.url == other.url("/x");
    EXPECT_TRUE(refused);
    EXPECT_EQ(other.hits("/x"), 0U);
}

TEST(RoutesE2E, OfflineFailsEveryRequestOfEveryTabUntilOnlineAndMockedRoutesStillAnswer) {
    http_server s;
    s.route("/", http_response::html(page("Home", "<p>home</p>")));
    s.route("/next", http_response::html(page("Next", "<p>next</p>")));
    br::browser b(options());
    ASSERT_TRUE(b.navigate(s.url("/")));
    ASSERT_TRUE(b.set_offline(true));
    EXPECT_TRUE(b.offline());
    EXPECT_EQ(eval(b, "navigator.onLine"), "false");
    auto nav = b.navigate(s.url("/next"));
    ASSERT_FALSE(nav);
    EXPECT_NE(nav.error().message.find("net::ERR_INTERNET_DISCONNECTED"), std::string::npos) << nav.error().message;
    EXPECT_EQ(s.hits("/next"), 0U);
    // a tab opened while offline is offline too
    auto t = b.new_tab();
    ASSERT_TRUE(t);
    EXPECT_EQ(eval(b, "navigator.onLine"), "false");
    EXPECT_FALSE(b.navigate(s.url("/next")));
    br::route_rule mock;
    mock.pattern = "**/mocked";
    mock.body = "<title>Mocked</title><p>from the route</p>";
    mock.content_type = "text/html";
    ASSERT_TRUE(b.add_route(mock));
    EXPECT_TRUE(b.navigate(s.url("/mocked")));
    EXPECT_EQ(eval(b, "document.title"), "Mocked");
    ASSERT_TRUE(b.set_offline(false));
    EXPECT_TRUE(b.navigate(s.url("/next")));
    EXPECT_EQ(eval(b, "navigator.onLine"), "true");
    EXPECT_EQ(s.hits("/next"), 1U);
}

TEST(RoutesE2E, RouteToolsInBothLayouts) {
    http_server s;
    s.route("/", http_response::html(fetcher("/api/users")));
    site_tools f;
    f.call("browser_navigate", {{"url", s.url("/")}});
    EXPECT_EQ(f.call("browser_route_list"), "No active routes");
    EXPECT_EQ(f.call("browser_route", {{"pattern", "**/api/users"}, {"status", 201}, {"body", "[]"}, {"contentType", "application/json"}}),
              "route added: 1. **/api/users (status=201, body=[], contentType=application/json)");
    f.call("browser_route", {{"pattern", "**/api/posts"}, {"headers", {"X-A: 1"}}, {"removeHeaders", "cookie, x-b"}});
    EXPECT_EQ(f.call("browser_route_list"),
              "1. **/api/users (status=201, body=[], contentType=application/json)\n"
              "2. **/api/posts (addHeaders={\"X-A\":\"1\"}, removeHeaders=cookie,x-b)");
    EXPECT_NE(f.call("browser_route", {{"pattern", "**"}, {"headers", {"no colon"}}}).find("Invalid header \"no colon\""), std::string::npos);
    const std::string clicked = f.call("browser_click", {{"ref", "e1"}});
    EXPECT_NE(clicked.find("201 application/json []"), std::string::npos) << clicked;
    EXPECT_EQ(f.call("browser_unroute", {{"pattern", "**/api/users"}}), "Removed 1 route(s) for pattern: **/api/users");
    EXPECT_EQ(f.call("browser_unroute"), "Removed all 1 route(s)");
    EXPECT_EQ(f.call("browser_network_state_set", {{"state", "offline"}}), "Network is now offline");
    EXPECT_NE(f.call("browser_navigate", {{"url", s.url("/")}}).find("ERR_INTERNET_DISCONNECTED"), std::string::npos);
    EXPECT_EQ(f.call("browser_network_state_set", {{"state", "online"}}), "Network is now online");
    EXPECT_NE(f.call("browser_network_state_set", {{"state", "flaky"}}).find("args.invalid"), std::string::npos);

    br::tools_options pw;
    pw.output = br::output_mode::playwright;
    site_tools g(options(), pw);
    g.call("browser_navigate", {{"url", s.url("/")}});
    const std::string added = g.call("browser_route", {{"pattern", "**/api/users"}, {"body", "x"}});
    EXPECT_NE(added.find("### Result\nRoute added for pattern: **/api/users"), std::string::npos) << added;
    EXPECT_NE(added.find("await page.context().route('**/api/users', async route => { /* route handler */ });"), std::string::npos) << added;
    const std::string off = g.call("browser_network_state_set", {{"state", "offline"}});
    EXPECT_NE(off.find("Network is now offline"), std::string::npos) << off;
    EXPECT_NE(off.find("await page.context().setOffline(true);"), std::string::npos) << off;
}

// A profile directory (launch.user_data_dir) keeps what its sites stored for the next browser
// on it: cookies and localStorage, saved when the browser closes (readable by its user only).
TEST(SiteDataE2E, AProfileDirectoryKeepsCookiesAndLocalStorageForTheNextBrowser) {
    http_server s;
    s.route("/", http_response::html(page("Home", "<script>document.title = localStorage.getItem('seen') ? 'again' : 'first'; localStorage.setItem('seen', '1')</script>")));
    temp_dir dir;
    auto o = options();
    o.launch.user_data_dir = (dir.path / "profile").string();
    {
        br::browser b(o);
        auto n = b.navigate(s.url("/"));
        ASSERT_TRUE(n) << n.error().message;
        EXPECT_EQ(eval(b, "document.title"), "first");
        br::cookie c;
        c.name = "kept";
        c.value = "yes";
        c.expires = 4102444800;  // 2100: a persistent cookie
        ASSERT_TRUE(b.set_cookie(c));
    }  // closed: the profile keeps them
    const auto file = dir.path / "profile" / "agentkit-storage-state.json";
    ASSERT_TRUE(std::filesystem::exists(file));
    EXPECT_EQ(std::filesystem::status(file).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    br::browser again(o);
    ASSERT_TRUE(again.navigate(s.url("/")));
    EXPECT_EQ(eval(again, "document.title"), "again");
    EXPECT_EQ(eval(again, "document.cookie"), "kept=yes");
    // a browser without the profile starts empty
    br::browser fresh(options());
    ASSERT_TRUE(fresh.navigate(s.url("/")));
    EXPECT_EQ(eval(fresh, "document.title"), "first");
}
