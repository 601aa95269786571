// Several agentkit browsers in one Chromium (cdp_endpoint), each with its own browser context,
// as the soak drives them: what one session's pages do must not show in another's results.
#include <agentkit/agentkit.hpp>

#include "support/http_server.hpp"

#include <gtest/gtest.h>

#include <string>

#include <unistd.h>

namespace ak = agentkit;
namespace br = agentkit::browser;
using agentkit::test::http_request;
using agentkit::test::http_response;
using agentkit::test::http_server;

namespace {

bool have_chromium() { return ::access(ak::cdp::resolve_executable({}).c_str(), X_OK) == 0; }

using agentkit::test::page;

}  // namespace

TEST(SharedBrowser, BlockedRequestsOfOneSessionAreNotReportedToAnother) {
    if (!have_chromium()) GTEST_SKIP() << "no Chromium";
    http_server server, elsewhere;
    // another origin than the allowed one: refused by both policies
    const std::string other = elsewhere.origin();
    server.route("/a", http_response::html(page("A", "<button onclick=\"document.body.append('clicked')\">Go</button>")));
    server.route("/b", http_response::html(page("B", "<p>b</p><img src=\"" + other + "/private-of-b.png\">")));
    auto chromium = ak::cdp::websocket_transport::launch({});
    ASSERT_TRUE(chromium) << chromium.error().to_text();
    br::browser_options o;
    o.cdp_endpoint = "http://127.0.0.1:" + std::to_string(chromium->port());
    o.policy.allowed_origins = {server.origin()};
    br::browser a(o);
    br::browser b(o);
    auto na = a.navigate(server.url("/a"));
    ASSERT_TRUE(na) << na.error().to_text();
    auto nb = b.navigate(server.url("/b"));
    ASSERT_TRUE(nb) << nb.error().to_text();
    // B's own session reports its blocked image
    bool b_saw = false;
    for (const auto& r : b.blocked_requests()) b_saw = b_saw || r.url.find("private-of-b") != std::string::npos;
    EXPECT_TRUE(b_saw) << nb->to_text();
    // A's session never lists it: not in its log, not in an action's result
    for (const auto& r : a.blocked_requests()) EXPECT_EQ(r.url.find("private-of-b"), std::string::npos) << r.url;
    EXPECT_EQ(na->to_text().find("private-of-b"), std::string::npos) << na->to_text();
}

TEST(SharedBrowser, OneSessionsPolicyDoesNotGovernAnotherSessionsPages) {
    if (!have_chromium()) GTEST_SKIP() << "no Chromium";
    http_server server, elsewhere;
    server.route("/p", http_response::html(page("Plain", "<p>plain</p>")));
    elsewhere.route("/p", http_response::html(page("Plain", "<p>plain</p>")));
    auto chromium = ak::cdp::websocket_transport::launch({});
    ASSERT_TRUE(chromium) << chromium.error().to_text();
    const std::string endpoint = "http://127.0.0.1:" + std::to_string(chromium->port());
    br::browser_options strict;
    strict.cdp_endpoint = endpoint;
    strict.policy.allowed_origins = {server.origin()};
    br::browser a(strict);
    ASSERT_TRUE(a.navigate(server.url("/p")));
    // B has no origin lists: another origin than A's allowed one is B's to open
    br::browser_options open;
    open.cdp_endpoint = endpoint;
    br::browser b(open);
    auto nb = b.navigate(elsewhere.url("/p"));
    ASSERT_TRUE(nb) << nb.error().to_text();
    EXPECT_EQ(nb->title, "Plain") << nb->to_text();
    for (const auto& r : a.blocked_requests()) EXPECT_EQ(r.url.find(elsewhere.origin()), std::string::npos) << r.url;
    // and A still enforces its own policy on its own pages
    auto na = a.navigate(elsewhere.url("/p"));
    ASSERT_FALSE(na);
    EXPECT_TRUE(na.error().is(ak::errc::policy_blocked)) << na.error().to_text();
}

// A long session issued refs without ever dropping those of closed tabs and closed browsers,
// and remembered every retired ref: the registry grew with every page the session saw.
TEST(SessionLifecycle, RefsOfClosedTabsAndBrowsersAreRetiredAndStale) {
    if (!have_chromium()) GTEST_SKIP() << "no Chromium";
    http_server server;
    server.route("/p", http_response::html(page("Buttons", "<button>One</button><button>Two</button><a href=\"/p\">Again</a>")));
    br::browser b;
    auto first = b.navigate(server.url("/p"));
    ASSERT_TRUE(first) << first.error().to_text();
    ASSERT_GT(b.refs().size(), 0U);
    const std::string old_ref = "e1";  // the first ref issued, on the first tab
    ASSERT_NE(first->to_text().find("[ref=e1]"), std::string::npos) << first->to_text();

    // a second tab with its own refs; closing it retires them
    auto second = b.new_tab(server.url("/p"));
    ASSERT_TRUE(second) << second.error().to_text();
    ASSERT_TRUE(b.snapshot());
    const std::size_t with_two_tabs = b.refs().size();
    ASSERT_TRUE(b.close_tab());
    EXPECT_LT(b.refs().size(), with_two_tabs);

    // closing the browser retires every ref; an old ref then says stale, and the next use works
    b.close();
    EXPECT_EQ(b.refs().size(), 0U);
    auto click = b.click(old_ref);
    ASSERT_FALSE(click);
    EXPECT_TRUE(click.error().is(ak::errc::ref_stale)) << click.error().to_text();
    EXPECT_NE(click.error().message.find("button"), std::string::npos) << click.error().message;  // still described
    ASSERT_TRUE(b.navigate(server.url("/p")));
}

TEST(SessionLifecycle, RetiredRefsRememberedAreBounded) {
    br::ref_registry r;
    constexpr std::size_t n = br::ref_registry::kMaxRemembered + 100;
    for (std::size_t i = 0; i < n; ++i) (void)r.ref_for("s", "f", "loader-a", static_cast<std::int64_t>(i + 1), "button", "b");
    EXPECT_EQ(r.size(), n);
    r.frame_navigated("f", "loader-b");
    EXPECT_EQ(r.size(), 0U);
    EXPECT_EQ(r.remembered_stale(), br::ref_registry::kMaxRemembered);
    // every retired ref still resolves to ref.stale: the newest with its description, the oldest without
    auto newest = r.resolve("e" + std::to_string(n));
    ASSERT_FALSE(newest);
    EXPECT_TRUE(newest.error().is(ak::errc::ref_stale));
    EXPECT_NE(newest.error().message.find("button \"b\""), std::string::npos) << newest.error().message;
    auto oldest = r.resolve("e1");
    ASSERT_FALSE(oldest);
    EXPECT_TRUE(oldest.error().is(ak::errc::ref_stale)) << oldest.error().to_text();
    // retire_frames and retire_all
    (void)r.ref_for("s", "g", "l", 1, "link", "x");
    (void)r.ref_for("s", "h", "l", 2, "link", "y");
    r.retire_frames({"g"});
    EXPECT_EQ(r.size(), 1U);
    r.retire_all();
    EXPECT_EQ(r.size(), 0U);
}

// Back and forward report the navigation (URL, title) every time, also for pages the
// back/forward cache restores (the soak once saw a back whose result did not say it navigated).
TEST(SessionLifecycle, BackAndForwardAlwaysReportTheNavigation) {
    if (!have_chromium()) GTEST_SKIP() << "no Chromium";
    http_server server;
    server.route("/one", http_response::html(page("One", "<a href=\"/two\">Two</a>")));
    server.route("/two", http_response::html(page("Two", "<a href=\"/one\">One</a>")));
    br::browser b;
    ASSERT_TRUE(b.navigate(server.url("/one")));
    ASSERT_TRUE(b.navigate(server.url("/two")));
    for (int i = 0; i < 15; ++i) {
        auto back = b.back();
        ASSERT_TRUE(back) << back.error().to_text();
        EXPECT_TRUE(back->navigated) << i << ": " << back->to_text();
        EXPECT_EQ(back->title, "One") << i << ": " << back->to_text();
        auto fwd = b.forward();
        ASSERT_TRUE(fwd) << fwd.error().to_text();
        EXPECT_TRUE(fwd->navigated) << i << ": " << fwd->to_text();
        EXPECT_EQ(fwd->title, "Two") << i << ": " << fwd->to_text();
    }
}
