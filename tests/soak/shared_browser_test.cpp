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

std::string page(const std::string& title, const std::string& body) {
    return "<!doctype html><html><head><meta charset=utf-8><title>" + title + "</title></head><body>" + body + "</body></html>";
}

}  // namespace

TEST(SharedBrowser, BlockedRequestsOfOneSessionAreNotReportedToAnother) {
    if (!have_chromium()) GTEST_SKIP() << "no Chromium";
    http_server server;
    // another origin than the allowed one (localhost is not 127.0.0.1): refused by both policies
    const std::string other = "http://localhost:" + std::to_string(server.port());
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
