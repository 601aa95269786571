// End-to-end tests of the CDP driver against real headless Chromium
// (/usr/lib/chromium/chromium or $AGENTKIT_CHROMIUM), on pages served from 127.0.0.1.
#include <agentkit/cdp.hpp>

#include "support/http_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include <signal.h>

namespace cdp = agentkit::cdp;
namespace errc = agentkit::errc;
namespace fs = std::filesystem;
using agentkit::json;
using agentkit::test::http_response;
using agentkit::test::http_server;
using namespace std::chrono_literals;

namespace {

constexpr auto kBound = 30s;

// Live (non-zombie) processes whose process group is `pgid`.
std::vector<int> live_group_members(pid_t pgid) {
    std::vector<int> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc", ec)) {
        const auto name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in(e.path() / "stat");
        std::string line;
        if (!std::getline(in, line)) continue;
        const auto close = line.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(line.substr(close + 2));
        char state = 0;
        long ppid = 0, pgrp = 0;
        rest >> state >> ppid >> pgrp;
        if (pgrp == pgid && state != 'Z' && state != 'X') out.push_back(std::stoi(name));
    }
    return out;
}

struct site {
    http_server server;
    site() {
        server.route("/", http_response::html("<!doctype html><title>agentkit e2e</title><h1>Hello from the test server</h1>"));
        server.route("/second", http_response::html("<!doctype html><title>second page</title><p>two</p>"));
    }
};

// Create a tab, attach (flatten), navigate, wait for load, evaluate `expression` in the page.
agentkit::result<agentkit::json> navigate_and_evaluate(cdp::connection& conn, const std::string& url,
                                                       const std::string& expression) {
    auto target = conn.call("Target.createTarget", {{"url", "about:blank"}});
    if (!target) return agentkit::fail(target.error());
    auto sid = conn.attach_to_target((*target)["targetId"].get<std::string>());
    if (!sid) return agentkit::fail(sid.error());
    cdp::session page = conn.session_for(*sid);
    if (auto r = page.call("Page.enable"); !r) return agentkit::fail(r.error());
    auto loaded = page.expect("Page.loadEventFired");
    auto nav = page.call("Page.navigate", {{"url", url}});
    if (!nav) return agentkit::fail(nav.error());
    if (nav->contains("errorText")) return agentkit::fail(errc::navigation_failed, (*nav)["errorText"].get<std::string>());
    if (auto e = loaded.wait(kBound); !e) return agentkit::fail(e.error());
    auto value = page.call("Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}});
    if (!value) return agentkit::fail(value.error());
    return (*value)["result"].value("value", agentkit::json());
}

// The same, reading document.title.
agentkit::result<std::string> navigate_and_read_title(cdp::connection& conn, const std::string& url) {
    auto title = navigate_and_evaluate(conn, url, "document.title");
    if (!title) return agentkit::fail(title.error());
    if (!title->is_string()) return agentkit::fail(errc::tool_failed, "document.title is not a string: " + title->dump());
    return title->get<std::string>();
}

}  // namespace

TEST(CdpE2E, PipeLaunchReportsVersion) {
    auto t = cdp::pipe_transport::launch();
    ASSERT_TRUE(t) << t.error().to_text() << "\n" << t.error().details.dump(2);
    EXPECT_NE(t->version().value("product", "").find("Chrome/"), std::string::npos) << t->version().dump();
    EXPECT_GT(t->pid(), 0);
    cdp::connection conn{std::move(*t)};
    auto v = conn.call("Browser.getVersion");
    ASSERT_TRUE(v) << v.error().to_text();
    EXPECT_EQ((*v)["protocolVersion"], "1.3");
}

TEST(CdpE2E, PipeNavigateAndEvaluateTitle) {
    site s;
    auto t = cdp::pipe_transport::launch();
    ASSERT_TRUE(t) << t.error().to_text();
    cdp::connection conn{std::move(*t)};
    auto title = navigate_and_read_title(conn, s.server.url("/"));
    ASSERT_TRUE(title) << title.error().to_text();
    EXPECT_EQ(*title, "agentkit e2e");
    EXPECT_GE(s.server.hits("/"), 1U);
}

TEST(CdpE2E, RealCdpErrorsCarryCodeAndMessage) {
    auto t = cdp::pipe_transport::launch();
    ASSERT_TRUE(t) << t.error().to_text();
    cdp::connection conn{std::move(*t)};
    auto r = conn.call("Nonexistent.method");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::cdp_error);
    EXPECT_EQ(r.error().details["code"], -32601) << r.error().details.dump();
    EXPECT_FALSE(r.error().details["message"].get<std::string>().empty());
    auto bad_session = conn.call("Runtime.evaluate", {{"expression", "1"}}, "NO-SUCH-SESSION");
    ASSERT_FALSE(bad_session);
    EXPECT_EQ(bad_session.error().code, errc::cdp_error);
    EXPECT_TRUE(conn.is_open()) << "CDP errors do not end the connection";
}

TEST(CdpE2E, AutoAttachResumesNewTargetsFromTheHandler) {
    site s;
    auto t = cdp::pipe_transport::launch();
    ASSERT_TRUE(t) << t.error().to_text();
    auto rec = std::make_shared<cdp::transcript_recorder>();
    cdp::any_transport any{std::move(*t)};
    any.record_to(rec);
    cdp::connection conn{std::move(any)};
    struct attach_info {
        std::string sid;
        agentkit::result<json> enabled;
        agentkit::result<json> resumed;
        cdp::event_waiter loaded;
    };
    std::promise<attach_info> attached;
    std::atomic<bool> once{false};
    auto sub = conn.on("Target.attachedToTarget", [&](const cdp::event& e) {
        // The initial about:blank tab attaches too (not paused); we want the new one.
        if (e.params["targetInfo"].value("url", "") != s.server.url("/second") || once.exchange(true)) return;
        attach_info info;
        EXPECT_TRUE(e.params.value("waitingForDebugger", false));
        info.sid = e.params["sessionId"].get<std::string>();
        // The target is paused: subscribe and enable before it runs, so nothing is missed.
        // Blocking calls from a handler are allowed by the threading contract.
        info.loaded = conn.expect("Page.loadEventFired", info.sid);
        info.enabled = conn.call("Page.enable", json::object(), info.sid);
        info.resumed = conn.call("Runtime.runIfWaitingForDebugger", json::object(), info.sid);
        attached.set_value(std::move(info));
    });
    ASSERT_TRUE(conn.set_auto_attach(true, /*wait_for_debugger_on_start=*/true));
    auto created = conn.call("Target.createTarget", {{"url", s.server.url("/second")}});
    ASSERT_TRUE(created) << created.error().to_text();
    auto f = attached.get_future();
    ASSERT_EQ(f.wait_for(kBound), std::future_status::ready);
    auto info = f.get();
    ASSERT_TRUE(info.enabled) << info.enabled.error().to_text();
    ASSERT_TRUE(info.resumed) << info.resumed.error().to_text();
    auto loaded = info.loaded.wait(kBound);
    ASSERT_TRUE(loaded) << loaded.error().to_text() << "\n" << cdp::to_jsonl(rec->entries());
    auto title = conn.call("Runtime.evaluate", {{"expression", "document.title"}, {"returnByValue", true}}, info.sid);
    ASSERT_TRUE(title) << title.error().to_text();
    EXPECT_EQ((*title)["result"]["value"], "second page");
}

TEST(CdpE2E, WebSocketLaunchDiscoveryAndNavigation) {
    site s;
    auto t = cdp::websocket_transport::launch();
    ASSERT_TRUE(t) << t.error().to_text() << "\n" << t.error().details.dump(2);
    ASSERT_GT(t->port(), 0);
    EXPECT_EQ(t->url().rfind("ws://127.0.0.1:", 0), 0U) << t->url();
    auto discovered = cdp::discover_websocket_url("http://127.0.0.1:" + std::to_string(t->port()));
    ASSERT_TRUE(discovered) << discovered.error().to_text();
    EXPECT_EQ(*discovered, t->url());
    cdp::connection conn{std::move(*t)};
    auto title = navigate_and_read_title(conn, s.server.url("/"));
    ASSERT_TRUE(title) << title.error().to_text();
    EXPECT_EQ(*title, "agentkit e2e");

    // A second client on the same browser, connected the way a remote farm is used.
    auto second = cdp::websocket_transport::connect(*discovered);
    ASSERT_TRUE(second) << second.error().to_text();
    cdp::connection conn2{std::move(*second)};
    auto targets = conn2.call("Target.getTargets");
    ASSERT_TRUE(targets) << targets.error().to_text();
    bool found = false;
    for (const auto& ti : (*targets)["targetInfos"]) found = found || ti.value("title", "") == "agentkit e2e";
    EXPECT_TRUE(found) << targets->dump();
    conn2.close();  // closing a connected (not launched) transport leaves the browser running
    auto still = conn.call("Browser.getVersion");
    EXPECT_TRUE(still) << still.error().to_text();
}

TEST(CdpE2E, RecordedSessionReplaysWithoutABrowser) {
    site s;
    const std::string url = s.server.url("/");
    auto rec = std::make_shared<cdp::transcript_recorder>();
    std::string live_title;
    {
        auto t = cdp::pipe_transport::launch();
        ASSERT_TRUE(t) << t.error().to_text();
        cdp::any_transport any{std::move(*t)};
        any.record_to(rec);
        cdp::connection conn{std::move(any)};
        auto title = navigate_and_read_title(conn, url);
        ASSERT_TRUE(title) << title.error().to_text();
        live_title = *title;
    }
    const auto path = fs::temp_directory_path() / ("agentkit_e2e_" + std::to_string(::getpid()) + ".jsonl");
    ASSERT_TRUE(rec->save(path));
    auto replay = cdp::replay_transport::from_file(path);
    fs::remove(path);
    ASSERT_TRUE(replay) << replay.error().to_text();
    const auto served_before = s.server.hits("/");
    cdp::connection conn{std::move(*replay)};
    auto title = navigate_and_read_title(conn, url);
    ASSERT_TRUE(title) << title.error().to_text();
    EXPECT_EQ(*title, live_title);
    EXPECT_EQ(s.server.hits("/"), served_before) << "the replay must not touch the network";
    EXPECT_TRUE(conn.transport_as<cdp::replay_transport>()->finished());
}

TEST(CdpE2E, KillingTheBrowserFailsPendingCallsAtOnce) {
    auto t = cdp::pipe_transport::launch();
    ASSERT_TRUE(t) << t.error().to_text();
    const pid_t pid = t->pid();
    const fs::path temp = t->process().temp_dir();
    cdp::connection conn{std::move(*t)};
    auto target = conn.call("Target.createTarget", {{"url", "about:blank"}});
    ASSERT_TRUE(target) << target.error().to_text();
    auto sid = conn.attach_to_target((*target)["targetId"].get<std::string>());
    ASSERT_TRUE(sid) << sid.error().to_text();

    // Calls that would never complete on their own.
    std::vector<std::future<agentkit::result<json>>> pending;
    for (int i = 0; i < 4; ++i)
        pending.push_back(conn.call_async("Runtime.evaluate",
                                          {{"expression", "new Promise(() => {})"}, {"awaitPromise", true}}, *sid,
                                          std::chrono::minutes(10)));
    std::promise<agentkit::result<json>> via_callback;
    conn.call_async("Runtime.evaluate", {{"expression", "new Promise(() => {})"}, {"awaitPromise", true}}, *sid,
                    [&](agentkit::result<json> r) { via_callback.set_value(std::move(r)); }, std::chrono::minutes(10));
    auto blocked_sync = std::async(std::launch::async, [&] {
        return conn.call("Runtime.evaluate", {{"expression", "new Promise(() => {})"}, {"awaitPromise", true}}, *sid,
                         std::chrono::minutes(10));
    });
    // Every call is registered (and sent) once call_async returns; wait for the sync one.
    auto in_flight = conn.expect("Never.sent");  // just to exercise waiter failure below
    const auto registered_by = std::chrono::steady_clock::now() + kBound;  // bounded, not a sleep
    while (conn.pending_count() < 6 && std::chrono::steady_clock::now() < registered_by) std::this_thread::yield();
    ASSERT_EQ(conn.pending_count(), 6U);

    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    for (auto& f : pending) {
        ASSERT_EQ(f.wait_for(kBound), std::future_status::ready) << "a pending call outlived the browser";
        auto r = f.get();
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, errc::browser_crashed) << r.error().to_text();
        EXPECT_NE(r.error().message.find("signal 9"), std::string::npos) << r.error().message;
        EXPECT_FALSE(r.error().hint.empty());
    }
    auto cb = via_callback.get_future();
    ASSERT_EQ(cb.wait_for(kBound), std::future_status::ready);
    EXPECT_EQ(cb.get().error().code, errc::browser_crashed);
    ASSERT_EQ(blocked_sync.wait_for(kBound), std::future_status::ready);
    EXPECT_EQ(blocked_sync.get().error().code, errc::browser_crashed);
    auto w = in_flight.wait(kBound);
    EXPECT_EQ(w.error().code, errc::browser_crashed);

    auto later = conn.call("Browser.getVersion", json::object(), {}, std::chrono::minutes(10));
    ASSERT_FALSE(later);
    EXPECT_EQ(later.error().code, errc::browser_crashed);
    EXPECT_FALSE(conn.is_open());

    conn.close();
    EXPECT_FALSE(fs::exists(temp)) << temp;
    EXPECT_TRUE(live_group_members(pid).empty());
}

TEST(CdpE2E, PipeCloseLeavesNoProcessOrProfile) {
    auto t = cdp::pipe_transport::launch();
    ASSERT_TRUE(t) << t.error().to_text();
    const pid_t pid = t->pid();
    const fs::path temp = t->process().temp_dir();
    const fs::path profile = t->profile_dir();
    ASSERT_TRUE(fs::exists(profile));
    EXPECT_EQ(profile.parent_path(), temp);
    {
        cdp::connection conn{std::move(*t)};
        auto target = conn.call("Target.createTarget", {{"url", "about:blank"}});  // a renderer exists now
        ASSERT_TRUE(target) << target.error().to_text();
        EXPECT_GE(live_group_members(pid).size(), 2U) << "expected helper processes in the browser's group";
        auto* pipe = conn.transport_as<cdp::pipe_transport>();
        ASSERT_NE(pipe, nullptr);
        conn.close();
        // Browser.close was honoured: a clean exit, not a signal.
        EXPECT_EQ(pipe->process().exit_description(), "exited with status 0");
    }
    EXPECT_FALSE(fs::exists(temp)) << temp;
    EXPECT_NE(::kill(pid, 0), 0) << "the browser was not reaped";
    EXPECT_TRUE(live_group_members(pid).empty());
}

TEST(CdpE2E, WebSocketCloseLeavesNoProcessOrProfile) {
    auto t = cdp::websocket_transport::launch();
    ASSERT_TRUE(t) << t.error().to_text();
    const pid_t pid = t->pid();
    const fs::path temp = t->process()->temp_dir();
    {
        cdp::connection conn{std::move(*t)};
        ASSERT_TRUE(conn.call("Browser.getVersion"));
    }
    EXPECT_FALSE(fs::exists(temp)) << temp;
    EXPECT_NE(::kill(pid, 0), 0);
    EXPECT_TRUE(live_group_members(pid).empty());
}

// navigator.webdriver: pages that refuse automated browsers read it. agentkit's browsers hide it
// (as Playwright's do), over the pipe and over a WebSocket, also when the host passes its own
// --disable-blink-features; a host that wants it visible says so.
TEST(CdpE2E, PagesSeeNavigatorWebdriverOnlyWhenTheHostAsks) {
    site s;
    // the page's own script reads it while loading, before any CDP evaluation
    s.server.route("/wd", http_response::html("<!doctype html><title>x</title><script>document.title = 'webdriver=' + navigator.webdriver;</script>"));
    const auto page_sees = [&](auto launched) -> std::string {
        if (!launched) return "launch failed: " + launched.error().to_text();
        cdp::connection conn{std::move(*launched)};
        auto v = navigate_and_evaluate(conn, s.server.url("/wd"), "document.title + ' ' + navigator.webdriver");
        return v ? v->dump() : v.error().to_text();
    };
    EXPECT_EQ(page_sees(cdp::pipe_transport::launch()), "\"webdriver=false false\"");
    EXPECT_EQ(page_sees(cdp::websocket_transport::launch()), "\"webdriver=false false\"");
    cdp::launch_options own;
    own.extra_args = {"--disable-blink-features=AcceleratedSmallCanvases"};
    EXPECT_EQ(page_sees(cdp::pipe_transport::launch(own)), "\"webdriver=false false\"");
    cdp::launch_options visible;
    visible.automation_visible = true;
    EXPECT_EQ(page_sees(cdp::pipe_transport::launch(visible)), "\"webdriver=true true\"");
}

TEST(CdpE2E, ExtraFlagsReachTheBrowser) {
    cdp::launch_options o;
    o.extra_args = {"--user-agent=agentkit-e2e-agent"};
    auto t = cdp::pipe_transport::launch(o);
    ASSERT_TRUE(t) << t.error().to_text();
    EXPECT_EQ(t->version().value("userAgent", ""), "agentkit-e2e-agent");
    const auto& args = t->process().args();
    EXPECT_NE(std::find(args.begin(), args.end(), "--remote-debugging-pipe"), args.end());
    EXPECT_NE(std::find(args.begin(), args.end(), "--headless=new"), args.end());
    EXPECT_EQ(std::find(args.begin(), args.end(), "--no-sandbox") != args.end(), ::geteuid() == 0);
}
