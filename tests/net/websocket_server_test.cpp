// The server side of a WebSocket (net/websocket.hpp) over http_server, on 127.0.0.1: talked to
// by agentkit's own CDP WebSocket client (the same frame codec from the other end) and by raw
// sockets for what a client must not do (label unit).
#include <agentkit/net/websocket.hpp>

#include <agentkit/cdp/websocket_transport.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ak = agentkit;
namespace net = agentkit::net;
namespace ws = agentkit::ws;
using namespace std::chrono_literals;

namespace {

/// An echo server at /ws ("echo:" + each message), its messages at most `max` bytes.
struct echo_server {
    net::http_server server;
    explicit echo_server(std::size_t max = std::size_t{1} << 20U) {
        server.route("/ws", [max](const net::http_request& r) {
            return net::websocket_upgrade(r, [](net::websocket_peer& peer) {
                for (;;) {
                    auto m = peer.receive(10s);
                    if (!m) return;
                    if (*m && !peer.send("echo:" + (*m)->data, (*m)->op)) return;
                }
            }, max);
        });
        EXPECT_TRUE(server.start());
    }
    std::string ws_url() const { return "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws"; }
};

/// A raw connection: the handshake done by hand, then frames as given.
struct raw_client {
    int fd = -1;
    std::string buf;
    explicit raw_client(int port) {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<std::uint16_t>(port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
        timeval tv{10, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
    ~raw_client() { ::close(fd); }
    void write(const std::string& s) const { (void)!::send(fd, s.data(), s.size(), MSG_NOSIGNAL); }
    /// The response head (up to the blank line).
    std::string head() {
        while (buf.find("\r\n\r\n") == std::string::npos && fill()) {
        }
        const auto e = buf.find("\r\n\r\n");
        std::string h = buf.substr(0, e == std::string::npos ? buf.size() : e);
        buf.erase(0, e == std::string::npos ? buf.size() : e + 4);
        return h;
    }
    bool fill() {
        char c[4096];
        const ssize_t n = ::recv(fd, c, sizeof c, 0);
        if (n <= 0) return false;
        buf.append(c, static_cast<std::size_t>(n));
        return true;
    }
    /// The next frame from the server (its opcode and payload); nothing when the connection ends first.
    std::optional<std::pair<ws::opcode, std::string>> frame() {
        for (;;) {
            auto h = ws::decode_header(buf, 1U << 24U);
            if (h && *h && buf.size() >= (*h)->frame_size()) {
                auto f = **h;
                std::string p = buf.substr(f.payload_offset, static_cast<std::size_t>(f.payload_size));
                buf.erase(0, f.frame_size());
                return std::pair{f.op, p};
            }
            if (!fill()) return std::nullopt;
        }
    }
    void handshake(const std::string& path = "/ws", const std::string& extra = "Sec-WebSocket-Version: 13\r\n") {
        write("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" + extra + "\r\n");
    }
};

ws::mask_key key() { return ws::mask_key{1, 2, 3, 4}; }

}  // namespace

TEST(WebSocketServer, EchoesTextAndLargeMessagesToAgentkitsOwnClient) {
    echo_server s;
    auto c = ak::cdp::websocket_transport::connect(s.ws_url());
    ASSERT_TRUE(c) << c.error().to_text();
    ASSERT_TRUE(c->send("hello"));
    auto m = c->receive(10s);
    ASSERT_TRUE(m) << m.error().to_text();
    EXPECT_EQ(*m, "echo:hello");
    const std::string big(300000, 'x');  // a 64-bit length both ways
    ASSERT_TRUE(c->send(big));
    auto b = c->receive(10s);
    ASSERT_TRUE(b);
    EXPECT_EQ(*b, "echo:" + big);
}

TEST(WebSocketServer, TheHandshakeAnswersTheRfcAcceptKey) {
    echo_server s;
    raw_client c(s.server.port());
    c.handshake();
    const auto h = c.head();
    EXPECT_EQ(h.rfind("HTTP/1.1 101", 0), 0U) << h;
    EXPECT_NE(h.find("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), std::string::npos) << h;  // RFC 6455 §1.3
}

TEST(WebSocketServer, NotAHandshakeIs400AndAnotherVersionIs426) {
    echo_server s;
    {
        raw_client c(s.server.port());
        c.write("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        EXPECT_EQ(c.head().rfind("HTTP/1.1 400", 0), 0U);
    }
    {
        raw_client c(s.server.port());
        c.handshake("/ws", "Sec-WebSocket-Version: 8\r\n");
        const auto h = c.head();
        EXPECT_EQ(h.rfind("HTTP/1.1 426", 0), 0U) << h;
        EXPECT_NE(h.find("Sec-WebSocket-Version: 13"), std::string::npos);
    }
}

TEST(WebSocketServer, FragmentsArePutTogetherAndPingsAnswered) {
    echo_server s;
    raw_client c(s.server.port());
    c.handshake();
    ASSERT_EQ(c.head().rfind("HTTP/1.1 101", 0), 0U);
    c.write(ws::encode_frame(ws::opcode::text, "Hel", false, key()));
    c.write(ws::encode_frame(ws::opcode::ping, "p", true, key()));
    c.write(ws::encode_frame(ws::opcode::continuation, "lo", true, key()));
    auto pong = c.frame();
    ASSERT_TRUE(pong);
    EXPECT_EQ(pong->first, ws::opcode::pong);
    EXPECT_EQ(pong->second, "p");
    auto m = c.frame();
    ASSERT_TRUE(m);
    EXPECT_EQ(m->second, "echo:Hello");
}

TEST(WebSocketServer, AnUnmaskedClientFrameClosesWith1002) {
    echo_server s;
    raw_client c(s.server.port());
    c.handshake();
    ASSERT_EQ(c.head().rfind("HTTP/1.1 101", 0), 0U);
    c.write(ws::encode_frame(ws::opcode::text, "no mask"));
    auto f = c.frame();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->first, ws::opcode::close);
    EXPECT_EQ(ws::parse_close_payload(f->second).first, ws::close_code::protocol_error);
    EXPECT_FALSE(c.frame()) << "and the connection ends";
}

TEST(WebSocketServer, AMessageOverTheLimitClosesWith1009) {
    echo_server s(1000);
    raw_client c(s.server.port());
    c.handshake();
    ASSERT_EQ(c.head().rfind("HTTP/1.1 101", 0), 0U);
    c.write(ws::encode_frame(ws::opcode::text, std::string(600, 'a'), false, key()));
    c.write(ws::encode_frame(ws::opcode::continuation, std::string(600, 'b'), true, key()));
    auto f = c.frame();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->first, ws::opcode::close);
    EXPECT_EQ(ws::parse_close_payload(f->second).first, ws::close_code::too_big);
}

TEST(WebSocketServer, TheClientsCloseIsEchoedAndTheServerStopEndsSessionsAtOnce) {
    echo_server s;
    {
        raw_client c(s.server.port());
        c.handshake();
        ASSERT_EQ(c.head().rfind("HTTP/1.1 101", 0), 0U);
        c.write(ws::encode_frame(ws::opcode::close, ws::close_payload(1000), true, key()));
        auto f = c.frame();
        ASSERT_TRUE(f);
        EXPECT_EQ(f->first, ws::opcode::close);
    }
    raw_client c(s.server.port());
    c.handshake();
    ASSERT_EQ(c.head().rfind("HTTP/1.1 101", 0), 0U);
    const auto t0 = std::chrono::steady_clock::now();
    s.server.stop();  // the session waits in receive(10 s): the stop must end it now
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
    auto f = c.frame();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->first, ws::opcode::close);
    EXPECT_EQ(ws::parse_close_payload(f->second).first, ws::close_code::going_away);
}

TEST(WebSocketServer, WakeEndsAReceiveAtOnceFromAnotherThread) {
    // declared before the server: the session thread writes them until the server's stop joins it
    std::atomic<int> wakes{0};
    std::atomic<net::websocket_peer*> live{nullptr};
    net::http_server server;
    server.route("/ws", [&](const net::http_request& r) {
        return net::websocket_upgrade(r, [&](net::websocket_peer& peer) {
            live = &peer;
            (void)peer.send("ready");
            for (;;) {
                auto m = peer.receive(30s);
                if (!m) break;
                if (!*m) {
                    ++wakes;
                    (void)peer.send("woken");
                }
            }
            live = nullptr;
        });
    });
    ASSERT_TRUE(server.start());
    auto c = ak::cdp::websocket_transport::connect("ws://127.0.0.1:" + std::to_string(server.port()) + "/ws");
    ASSERT_TRUE(c);
    auto ready = c->receive(10s);  // the session runs, its peer is set
    ASSERT_TRUE(ready);
    ASSERT_EQ(*ready, "ready");
    ASSERT_NE(live.load(), nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    live.load()->wake();
    auto m = c->receive(10s);
    ASSERT_TRUE(m) << m.error().to_text();
    EXPECT_EQ(*m, "woken");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
    EXPECT_EQ(wakes.load(), 1);
    server.stop();  // ends and joins the session before the locals it writes go
    EXPECT_EQ(live.load(), nullptr);
}
