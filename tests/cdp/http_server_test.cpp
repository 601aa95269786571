// The test HTTP server (tests/support/http_server.hpp), exercised with agentkit's own
// minimal HTTP client and raw sockets.
#include "support/http_server.hpp"

#include <agentkit/cdp/detail/net.hpp>
#include <agentkit/cdp/websocket_transport.hpp>
#include <agentkit/core/http.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <future>

namespace d = agentkit::cdp::detail;
namespace errc = agentkit::errc;
using agentkit::test::http_request;
using agentkit::test::http_response;
using agentkit::test::http_server;
using namespace std::chrono_literals;

namespace {

agentkit::result<d::http_response> get(const http_server& s, const std::string& path,
                                       std::chrono::milliseconds timeout = 10s) {
    auto u = d::parse_url(s.url(path));
    if (!u) return agentkit::fail(u.error());
    return d::http_get(*u, timeout);
}

// Send raw bytes, read until the peer closes (bounded).
std::string raw_exchange(std::uint16_t port, const std::string& request) {
    const auto deadline = d::deadline_after(10s);
    auto fd = d::tcp_connect("127.0.0.1", port, deadline);
    if (!fd) return "connect failed";
    if (!d::send_all(fd->get(), request, deadline)) return "send failed";
    std::string out;
    char buf[4096];
    for (;;) {
        pollfd p{fd->get(), POLLIN, 0};
        if (d::poll_until(&p, 1, deadline) <= 0) return out + "<timeout>";
        const ssize_t n = ::recv(fd->get(), buf, sizeof buf, 0);
        if (n <= 0) return out;
        out.append(buf, static_cast<std::size_t>(n));
    }
}

}  // namespace

TEST(TestHttpServer, ServesRoutesAndCountsHits) {
    http_server s;
    s.route("/", http_response::html("<title>Home</title>"));
    s.route("/data.json", http_response::json(R"({"a":1})").with_header("X-Test", "yes"));
    EXPECT_NE(s.port(), 0);
    EXPECT_EQ(s.url("/x"), "http://127.0.0.1:" + std::to_string(s.port()) + "/x");
    auto r = get(s, "/?q=1");
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(r->head.status, 200);
    EXPECT_EQ(r->body, "<title>Home</title>");
    EXPECT_EQ(r->head.header("Content-Type").value_or(""), "text/html; charset=utf-8");
    auto j = get(s, "/data.json");
    ASSERT_TRUE(j);
    EXPECT_EQ(j->body, R"({"a":1})");
    EXPECT_EQ(j->head.header("x-test").value_or(""), "yes");
    EXPECT_EQ(s.hits("/"), 1U);
    EXPECT_EQ(s.hits("/data.json"), 1U);
    const auto reqs = s.requests();
    ASSERT_EQ(reqs.size(), 2U);
    EXPECT_EQ(reqs[0].query, "q=1");
    EXPECT_EQ(reqs[0].method, "GET");
}

TEST(TestHttpServer, UnknownPathsAre404UnlessAFallbackIsSet) {
    http_server s;
    auto r = get(s, "/missing");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->head.status, 404);
    s.fallback([](const http_request& req) { return http_response::text("fallback for " + req.path); });
    auto f = get(s, "/anything");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->head.status, 200);
    EXPECT_EQ(f->body, "fallback for /anything");
}

TEST(TestHttpServer, HandlersSeeMethodHeadersAndBody) {
    http_server s;
    s.route("/echo", [](const http_request& req) {
        return http_response::text(req.method + "|" + req.header("x-name").value_or("-") + "|" + req.body);
    });
    const std::string out = raw_exchange(s.port(),
                                         "POST /echo HTTP/1.1\r\nHost: x\r\nX-Name: agentkit\r\nContent-Length: 5\r\n\r\nhello");
    EXPECT_NE(out.find("HTTP/1.1 200 OK"), std::string::npos) << out;
    EXPECT_NE(out.find("POST|agentkit|hello"), std::string::npos) << out;
}

TEST(TestHttpServer, HandlerExceptionsBecome500) {
    http_server s;
    s.route("/boom", [](const http_request&) -> http_response { throw std::runtime_error("nope"); });
    auto r = get(s, "/boom");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->head.status, 500);
    EXPECT_NE(r->body.find("nope"), std::string::npos);
}

TEST(TestHttpServer, Redirects) {
    http_server s;
    s.redirect("/old", "/new");
    s.redirect("/moved", "/new", 301);
    auto r = get(s, "/old");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->head.status, 302);
    EXPECT_EQ(r->head.header("Location").value_or(""), "/new");
    auto p = get(s, "/moved");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->head.status, 301);
}

TEST(TestHttpServer, GateHoldsTheResponseUntilOpened) {
    http_server s;
    auto gate = s.make_gate();
    s.route("/slow", http_response::text("finally").held_by(gate));
    auto pending = std::async(std::launch::async, [&] { return get(s, "/slow", 30s); });
    ASSERT_TRUE(gate->wait_arrived(10s));
    EXPECT_EQ(gate->arrivals(), 1U);
    EXPECT_EQ(pending.wait_for(0ms), std::future_status::timeout) << "answered while the gate was shut";
    gate->open();
    ASSERT_EQ(pending.wait_for(10s), std::future_status::ready);
    auto r = pending.get();
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(r->body, "finally");
    // An open gate lets later requests straight through.
    auto again = get(s, "/slow");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->body, "finally");
}

TEST(TestHttpServer, BodyGateSendsHeadersFirst) {
    http_server s;
    auto gate = s.make_gate();
    s.route("/stream", http_response::text("body!").body_held_by(gate));
    const auto deadline = d::deadline_after(10s);
    auto fd = d::tcp_connect("127.0.0.1", s.port(), deadline);
    ASSERT_TRUE(fd);
    ASSERT_TRUE(d::send_all(fd->get(), "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n", deadline));
    std::string got;
    char buf[1024];
    while (got.find("\r\n\r\n") == std::string::npos) {
        pollfd p{fd->get(), POLLIN, 0};
        ASSERT_GT(d::poll_until(&p, 1, deadline), 0);
        const ssize_t n = ::recv(fd->get(), buf, sizeof buf, 0);
        ASSERT_GT(n, 0);
        got.append(buf, static_cast<std::size_t>(n));
    }
    EXPECT_NE(got.find("Content-Length: 5"), std::string::npos);
    EXPECT_EQ(got.substr(got.find("\r\n\r\n") + 4), "") << "the body must wait for the gate";
    ASSERT_TRUE(gate->wait_arrived(10s));
    gate->open();
    while (got.find("body!") == std::string::npos) {
        pollfd p{fd->get(), POLLIN, 0};
        ASSERT_GT(d::poll_until(&p, 1, deadline), 0);
        const ssize_t n = ::recv(fd->get(), buf, sizeof buf, 0);
        ASSERT_GT(n, 0);
        got.append(buf, static_cast<std::size_t>(n));
    }
}

TEST(TestHttpServer, StopReleasesHeldRequestsAndJoins) {
    auto s = std::make_unique<http_server>();
    auto gate = s->make_gate();
    s->route("/never", http_response::text("x").held_by(gate));
    auto pending = std::async(std::launch::async, [&, port = s->port()] {
        return raw_exchange(port, "GET /never HTTP/1.1\r\nHost: x\r\n\r\n");
    });
    ASSERT_TRUE(gate->wait_arrived(10s));
    auto stopped = std::async(std::launch::async, [&] { s->stop(); });
    ASSERT_EQ(stopped.wait_for(10s), std::future_status::ready) << "stop() hung on a held request";
    ASSERT_EQ(pending.wait_for(10s), std::future_status::ready);
    EXPECT_EQ(pending.get(), "") << "a held request is dropped without an answer";
    s.reset();
}

TEST(TestHttpServer, KeepAliveServesSeveralRequestsPerConnection) {
    http_server s{http_server::options{true}};
    s.route("/a", http_response::text("A"));
    s.route("/b", http_response::text("B"));
    const std::string out = raw_exchange(
        s.port(), "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const auto first = out.find("HTTP/1.1 200");
    ASSERT_NE(first, std::string::npos) << out;
    EXPECT_NE(out.find("HTTP/1.1 200", first + 1), std::string::npos) << out;
    EXPECT_NE(out.find("Connection: keep-alive"), std::string::npos);
    EXPECT_EQ(s.hits("/a"), 1U);
    EXPECT_EQ(s.hits("/b"), 1U);
}

TEST(TestHttpServer, WaitForHits) {
    http_server s;
    s.route("/p", http_response::text("p"));
    EXPECT_FALSE(s.wait_for_hits("/p", 1, 1ms));
    ASSERT_TRUE(get(s, "/p"));
    EXPECT_TRUE(s.wait_for_hits("/p", 1, 10s));
}

TEST(CdpDiscovery, ReadsWebSocketUrlFromJsonVersion) {
    http_server s;
    s.route("/json/version/", http_response::json(R"({"Browser":"Chrome/156","webSocketDebuggerUrl":"ws://127.0.0.1:1/devtools/browser/abc"})"));
    auto url = agentkit::cdp::discover_websocket_url(s.origin());
    ASSERT_TRUE(url) << url.error().to_text();
    EXPECT_EQ(*url, "ws://127.0.0.1:1/devtools/browser/abc");
    // A ws:// URL is passed through unchanged.
    EXPECT_EQ(agentkit::cdp::discover_websocket_url("ws://h:1/x").value_or(""), "ws://h:1/x");
}

TEST(CdpDiscovery, ExplainsNonDevToolsEndpoints) {
    http_server s;
    s.route("/json/version/", http_response::json(R"({"hello":"world"})"));
    auto url = agentkit::cdp::discover_websocket_url(s.origin());
    ASSERT_FALSE(url);
    EXPECT_EQ(url.error().code, errc::protocol_error);
    EXPECT_NE(url.error().hint.find("remote-debugging-port"), std::string::npos);
    http_server empty;
    auto nf = agentkit::cdp::discover_websocket_url(empty.origin());
    ASSERT_FALSE(nf);
    EXPECT_NE(nf.error().message.find("404"), std::string::npos);
}

TEST(CdpDiscovery, ConnectionRefusedIsATransportError) {
    std::uint16_t port = 0;
    {
        http_server s;
        port = s.port();
    }  // stopped: nothing listens there now (almost surely)
    auto url = agentkit::cdp::discover_websocket_url("http://127.0.0.1:" + std::to_string(port), 2s);
    ASSERT_FALSE(url);
    EXPECT_EQ(url.error().code, errc::transport_io);
    // named as Node and curl users know it, beside the system's words
    EXPECT_NE(url.error().message.find("connect ECONNREFUSED"), std::string::npos) << url.error().message;
}

TEST(CdpDiscovery, SendsTheHeadersItIsGivenAndAnEmptyValueAsEmpty) {
    http_server s;
    std::promise<http_request> seen;
    auto got = seen.get_future();
    s.route("/json/version/", [&seen](const http_request& r) {
        seen.set_value(r);
        return http_response::json(R"({"webSocketDebuggerUrl":"ws://127.0.0.1:1/devtools/browser/x"})");
    });
    const std::vector<std::pair<std::string, std::string>> headers{{"Authorization", "Bearer 12345"},
                                                                   {"X-Forwarded-Proto", "value:with:colons"}, {"X-Empty", ""}};
    auto url = agentkit::cdp::discover_websocket_url(s.origin(), 5s, headers);
    ASSERT_TRUE(url) << url.error().to_text();
    ASSERT_EQ(got.wait_for(5s), std::future_status::ready);
    const auto r = got.get();
    EXPECT_EQ(r.header("Authorization").value_or("?"), "Bearer 12345");
    EXPECT_EQ(r.header("X-Forwarded-Proto").value_or("?"), "value:with:colons");
    EXPECT_EQ(r.header("X-Empty").value_or("?"), "");
}

TEST(HeaderLines, ParseNameAndValueAndRefuseWhatCouldSplitARequest) {
    auto h = agentkit::net::parse_header_line("X-Forwarded-Proto:  value:with:colons ");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->first, "X-Forwarded-Proto");
    EXPECT_EQ(h->second, "value:with:colons");
    auto bare = agentkit::net::parse_header_line("X-Empty");
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->second, "");
    for (const char* bad : {"", ": value", "Bad Name: v", "X-A: one\r\nX-B: two", "X(y): z"}) {
        auto b = agentkit::net::parse_header_line(bad);
        ASSERT_FALSE(b) << bad;
        EXPECT_EQ(b.error().code, errc::args_invalid);
        EXPECT_EQ(b.error().message.find("two"), std::string::npos) << "the value is never echoed";
    }
    EXPECT_FALSE(agentkit::net::valid_header("X", std::string("a\0b", 3)));
    EXPECT_TRUE(agentkit::net::valid_header("X-Token_1.~", "anything: at all"));
}
