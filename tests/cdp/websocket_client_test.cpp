// The WebSocket client against a tiny scripted WebSocket server on 127.0.0.1: handshake,
// masking, fragmentation, ping/pong, close handshake in both directions, sizes, violations.
#include <agentkit/cdp/websocket_transport.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>

namespace cdp = agentkit::cdp;
namespace d = agentkit::cdp::detail;
namespace ws = agentkit::cdp::detail::ws;
namespace errc = agentkit::errc;
using namespace std::chrono_literals;

namespace {

// The server side of one accepted connection, driven by a test script.
struct ws_peer {
    int fd = -1;
    std::string buf;

    bool write(std::string_view raw) const {
        return static_cast<bool>(d::send_all(fd, raw, d::deadline_after(10s)));
    }
    bool send(ws::opcode op, std::string_view payload, bool fin = true) const {
        return write(ws::encode_frame(op, payload, fin));
    }

    struct frame {
        ws::opcode op = ws::opcode::text;
        bool fin = true;
        bool masked = false;
        std::string payload;
    };

    // Next frame from the client, unmasked; nullopt on EOF or timeout.
    std::optional<frame> read_frame(std::chrono::milliseconds timeout = 10s) {
        const auto deadline = d::deadline_after(timeout);
        for (;;) {
            auto h = ws::decode_header(buf, std::uint64_t{1} << 30U);
            if (!h) return std::nullopt;
            if (*h && buf.size() >= (*h)->frame_size()) {
                frame f;
                f.op = (*h)->op;
                f.fin = (*h)->fin;
                f.masked = (*h)->masked;
                f.payload = buf.substr((*h)->payload_offset, static_cast<std::size_t>((*h)->payload_size));
                if (f.masked) ws::apply_mask(f.payload.data(), f.payload.size(), (*h)->mask);
                buf.erase(0, (*h)->frame_size());
                return f;
            }
            if (!fill(deadline)) return std::nullopt;
        }
    }

    // True when the client closed its side of TCP.
    bool wait_eof(std::chrono::milliseconds timeout = 10s) {
        const auto deadline = d::deadline_after(timeout);
        for (;;) {
            pollfd p{fd, POLLIN, 0};
            if (d::poll_until(&p, 1, deadline) <= 0) return false;
            char tmp[4096];
            const ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
            if (n <= 0) return true;
        }
    }

    bool fill(d::clock::time_point deadline) {
        pollfd p{fd, POLLIN, 0};
        if (d::poll_until(&p, 1, deadline) <= 0) return false;
        char tmp[65536];
        const ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
        if (n <= 0) return false;
        buf.append(tmp, static_cast<std::size_t>(n));
        return true;
    }
};

// Accepts one connection, answers the handshake, then runs the script.
class ws_test_server {
public:
    struct options {
        int status = 101;
        bool bad_accept = false;
        bool extension = false;
    };

    explicit ws_test_server(std::function<void(ws_peer&)> script) : ws_test_server(std::move(script), options{}) {}
    ws_test_server(std::function<void(ws_peer&)> script, options o) : opts_(o), script_(std::move(script)) {
        listen_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (::bind(listen_.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listen_.get(), 4) != 0 ||
            ::getsockname(listen_.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0)
            throw std::runtime_error("ws_test_server: cannot listen");
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { run(); });
    }
    ~ws_test_server() { join(); }

    void join() {
        if (thread_.joinable()) thread_.join();
    }
    [[nodiscard]] std::string url() const { return "ws://127.0.0.1:" + std::to_string(port_) + "/devtools/browser/test"; }
    [[nodiscard]] const std::string& request() const { return request_; }

private:
    void run() {
        pollfd p{listen_.get(), POLLIN, 0};
        if (d::poll_until(&p, 1, d::deadline_after(10s)) <= 0) return;
        d::unique_fd conn(::accept4(listen_.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (!conn) return;
        ws_peer peer;
        peer.fd = conn.get();
        const auto deadline = d::deadline_after(10s);
        while (peer.buf.find("\r\n\r\n") == std::string::npos)
            if (!peer.fill(deadline)) return;
        const auto end = peer.buf.find("\r\n\r\n");
        request_ = peer.buf.substr(0, end + 4);
        peer.buf.erase(0, end + 4);
        std::string key;
        if (const auto k = request_.find("Sec-WebSocket-Key: "); k != std::string::npos)
            key = request_.substr(k + 19, request_.find("\r\n", k) - k - 19);
        std::string resp;
        if (opts_.status != 101) {
            resp = "HTTP/1.1 " + std::to_string(opts_.status) + " Nope\r\nContent-Length: 0\r\n\r\n";
        } else {
            resp = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
                   (opts_.bad_accept ? d::websocket_accept("wrong") : d::websocket_accept(key)) + "\r\n";
            if (opts_.extension) resp += "Sec-WebSocket-Extensions: permessage-deflate\r\n";
            resp += "\r\n";
        }
        if (!peer.write(resp)) return;
        if (opts_.status == 101 && script_) script_(peer);
    }

    options opts_;
    std::function<void(ws_peer&)> script_;
    d::unique_fd listen_;
    std::uint16_t port_ = 0;
    std::thread thread_;
    std::string request_;
};

}  // namespace

TEST(CdpWebSocketClient, HandshakeAndMaskedEcho) {
    std::promise<ws_peer::frame> seen;
    ws_test_server server([&](ws_peer& peer) {
        auto f = peer.read_frame();
        if (!f) return;
        peer.send(ws::opcode::text, "echo:" + f->payload);
        seen.set_value(*f);
        (void)peer.read_frame();  // the client's close
    });
    auto t = cdp::websocket_transport::connect(server.url());
    ASSERT_TRUE(t) << t.error().to_text();
    EXPECT_TRUE(t->is_open());
    ASSERT_TRUE(t->send(R"({"id":1,"method":"Browser.getVersion"})"));
    auto m = t->receive(10s);
    ASSERT_TRUE(m) << m.error().to_text();
    EXPECT_EQ(*m, R"(echo:{"id":1,"method":"Browser.getVersion"})");
    auto f = seen.get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    const auto frame = f.get();
    EXPECT_TRUE(frame.masked) << "client frames must be masked";
    EXPECT_EQ(frame.op, ws::opcode::text);
    t->close();
    server.join();
    const auto& req = server.request();
    EXPECT_EQ(req.rfind("GET /devtools/browser/test HTTP/1.1\r\n", 0), 0U) << req;
    EXPECT_NE(req.find("Upgrade: websocket\r\n"), std::string::npos);
    EXPECT_NE(req.find("Connection: Upgrade\r\n"), std::string::npos);
    EXPECT_NE(req.find("Sec-WebSocket-Version: 13\r\n"), std::string::npos);
    EXPECT_NE(req.find("Host: 127.0.0.1:"), std::string::npos);
    const auto k = req.find("Sec-WebSocket-Key: ");
    ASSERT_NE(k, std::string::npos);
    EXPECT_EQ(req.find("\r\n", k) - k - 19, 24U) << "16 random bytes in base64";
}

TEST(CdpWebSocketClient, ReassemblesFragmentsAndAnswersInterleavedPing) {
    std::promise<std::optional<ws_peer::frame>> pong;
    ws_test_server server([&](ws_peer& peer) {
        peer.send(ws::opcode::text, "Hel", false);
        peer.send(ws::opcode::ping, "p1");
        peer.send(ws::opcode::continuation, "lo ", false);
        peer.send(ws::opcode::continuation, "world", true);
        pong.set_value(peer.read_frame());
        (void)peer.read_frame();
    });
    auto t = cdp::websocket_transport::connect(server.url());
    ASSERT_TRUE(t) << t.error().to_text();
    auto m = t->receive(10s);
    ASSERT_TRUE(m) << m.error().to_text();
    EXPECT_EQ(*m, "Hello world");
    auto f = pong.get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    auto p = f.get();
    ASSERT_TRUE(p);
    EXPECT_EQ(p->op, ws::opcode::pong);
    EXPECT_EQ(p->payload, "p1");
    EXPECT_TRUE(p->masked);
}

TEST(CdpWebSocketClient, LargeMessagesBothWays) {
    std::string big;
    for (int i = 0; i < 300000; ++i) big += static_cast<char>('a' + i % 26);
    std::promise<std::string> got;
    ws_test_server server([&](ws_peer& peer) {
        peer.send(ws::opcode::text, big);  // 64-bit length
        auto f = peer.read_frame();
        got.set_value(f ? f->payload : "<none>");
        (void)peer.read_frame();
    });
    auto t = cdp::websocket_transport::connect(server.url());
    ASSERT_TRUE(t);
    auto m = t->receive(10s);
    ASSERT_TRUE(m) << m.error().to_text();
    EXPECT_EQ(*m, big);
    ASSERT_TRUE(t->send(big));
    auto f = got.get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    EXPECT_EQ(f.get(), big);
}

TEST(CdpWebSocketClient, OversizedMessageClosesWith1009) {
    std::promise<std::optional<ws_peer::frame>> close_frame;
    ws_test_server server([&](ws_peer& peer) {
        peer.send(ws::opcode::text, std::string(2000, 'x'));
        close_frame.set_value(peer.read_frame());
    });
    cdp::websocket_options o;
    o.max_message_size = 1000;
    auto t = cdp::websocket_transport::connect(server.url(), o);
    ASSERT_TRUE(t);
    auto m = t->receive(10s);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, errc::protocol_error);
    EXPECT_NE(m.error().message.find("limit"), std::string::npos);
    EXPECT_FALSE(t->is_open());
    auto f = close_frame.get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    auto c = f.get();
    ASSERT_TRUE(c);
    EXPECT_EQ(c->op, ws::opcode::close);
    EXPECT_EQ(ws::parse_close_payload(c->payload).first, ws::close_code::too_big);
    // Terminal: the same error again.
    EXPECT_EQ(t->receive(10ms).error().code, errc::protocol_error);
}

TEST(CdpWebSocketClient, OversizedFragmentedMessageIsRefused) {
    std::promise<std::optional<ws_peer::frame>> close_frame;
    ws_test_server server([&](ws_peer& peer) {
        peer.send(ws::opcode::text, std::string(600, 'x'), false);
        peer.send(ws::opcode::continuation, std::string(600, 'y'), true);
        close_frame.set_value(peer.read_frame());
    });
    cdp::websocket_options o;
    o.max_message_size = 1000;
    auto t = cdp::websocket_transport::connect(server.url(), o);
    ASSERT_TRUE(t);
    auto m = t->receive(10s);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, errc::protocol_error);
    auto f = close_frame.get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    auto c = f.get();
    ASSERT_TRUE(c);
    EXPECT_EQ(ws::parse_close_payload(c->payload).first, ws::close_code::too_big);
}

TEST(CdpWebSocketClient, ServerCloseIsEchoedAndReported) {
    std::promise<std::optional<ws_peer::frame>> echo;
    ws_test_server server([&](ws_peer& peer) {
        peer.send(ws::opcode::text, "last words");
        peer.send(ws::opcode::close, ws::close_payload(1001, "going away"));
        echo.set_value(peer.read_frame());
    });
    auto t = cdp::websocket_transport::connect(server.url());
    ASSERT_TRUE(t);
    auto m = t->receive(10s);
    ASSERT_TRUE(m);
    EXPECT_EQ(*m, "last words") << "messages before the close are delivered";
    auto end = t->receive(10s);
    ASSERT_FALSE(end);
    EXPECT_EQ(end.error().code, errc::transport_closed);
    EXPECT_NE(end.error().message.find("1001"), std::string::npos) << end.error().message;
    EXPECT_NE(end.error().message.find("going away"), std::string::npos);
    ASSERT_TRUE(t->close_status());
    EXPECT_EQ(t->close_status()->first, 1001);
    auto f = echo.get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    auto e = f.get();
    ASSERT_TRUE(e);
    EXPECT_EQ(e->op, ws::opcode::close);
    EXPECT_EQ(ws::parse_close_payload(e->payload).first, 1001);
    EXPECT_FALSE(t->send("after close"));
}

TEST(CdpWebSocketClient, ClientCloseHandshake) {
    std::promise<std::pair<std::optional<ws_peer::frame>, bool>> seen;
    ws_test_server server([&](ws_peer& peer) {
        auto c = peer.read_frame();
        if (c && c->op == ws::opcode::close) peer.send(ws::opcode::close, c->payload);
        const bool eof = peer.wait_eof();
        seen.set_value({c, eof});
    });
    auto t = cdp::websocket_transport::connect(server.url());
    ASSERT_TRUE(t);
    auto closing = std::async(std::launch::async, [&] { t->close(); });
    ASSERT_EQ(closing.wait_for(10s), std::future_status::ready);
    EXPECT_FALSE(t->is_open());
    auto f = seen.get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    auto [c, eof] = f.get();
    ASSERT_TRUE(c);
    EXPECT_EQ(c->op, ws::opcode::close);
    EXPECT_TRUE(c->masked);
    EXPECT_EQ(ws::parse_close_payload(c->payload).first, ws::close_code::normal);
    EXPECT_TRUE(eof) << "the client closes TCP after the handshake";
    auto r = t->receive(10ms);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::transport_closed);
}

TEST(CdpWebSocketClient, CloseWakesABlockedReceive) {
    ws_test_server server([&](ws_peer& peer) {
        auto c = peer.read_frame(30s);
        if (c && c->op == ws::opcode::close) peer.send(ws::opcode::close, c->payload);
    });
    auto t = cdp::websocket_transport::connect(server.url());
    ASSERT_TRUE(t);
    auto blocked = std::async(std::launch::async, [&] { return t->receive(std::chrono::hours(1)); });
    EXPECT_EQ(blocked.wait_for(20ms), std::future_status::timeout);
    t->close();
    ASSERT_EQ(blocked.wait_for(10s), std::future_status::ready) << "close() did not wake receive()";
    auto r = blocked.get();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::transport_closed);
}

TEST(CdpWebSocketClient, TimeoutIsNotTerminal) {
    std::promise<void> go;
    auto go_f = go.get_future();
    ws_test_server server([&](ws_peer& peer) {
        if (go_f.wait_for(10s) != std::future_status::ready) return;
        peer.send(ws::opcode::text, "now");
        (void)peer.read_frame();
    });
    auto t = cdp::websocket_transport::connect(server.url());
    ASSERT_TRUE(t);
    auto r = t->receive(20ms);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::timeout);
    EXPECT_TRUE(t->is_open());
    go.set_value();
    auto m = t->receive(10s);
    ASSERT_TRUE(m) << m.error().to_text();
    EXPECT_EQ(*m, "now");
}

TEST(CdpWebSocketClient, LostConnectionIsTransportClosed) {
    ws_test_server server([&](ws_peer&) {});  // closes TCP without a close frame
    auto t = cdp::websocket_transport::connect(server.url());
    ASSERT_TRUE(t);
    auto r = t->receive(10s);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::transport_closed);
    EXPECT_NE(r.error().message.find("lost"), std::string::npos);
}

TEST(CdpWebSocketClient, MaskedServerFrameIsAProtocolError) {
    ws_test_server server([&](ws_peer& peer) {
        peer.write(ws::encode_frame(ws::opcode::text, "masked", true, ws::mask_key{1, 2, 3, 4}));
        (void)peer.read_frame();
    });
    auto t = cdp::websocket_transport::connect(server.url());
    ASSERT_TRUE(t);
    auto r = t->receive(10s);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::protocol_error);
    EXPECT_NE(r.error().message.find("masked"), std::string::npos);
}

TEST(CdpWebSocketClient, StrayContinuationIsAProtocolError) {
    ws_test_server server([&](ws_peer& peer) {
        peer.send(ws::opcode::continuation, "orphan");
        (void)peer.read_frame();
    });
    auto t = cdp::websocket_transport::connect(server.url());
    ASSERT_TRUE(t);
    auto r = t->receive(10s);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::protocol_error);
}

TEST(CdpWebSocketClient, HandshakeFailuresAreExplained) {
    {
        ws_test_server server(nullptr, {.status = 101, .bad_accept = true, .extension = false});
        auto t = cdp::websocket_transport::connect(server.url());
        ASSERT_FALSE(t);
        EXPECT_EQ(t.error().code, errc::protocol_error);
        EXPECT_NE(t.error().message.find("Sec-WebSocket-Accept"), std::string::npos) << t.error().message;
    }
    {
        ws_test_server server(nullptr, {.status = 404, .bad_accept = false, .extension = false});
        auto t = cdp::websocket_transport::connect(server.url());
        ASSERT_FALSE(t);
        EXPECT_NE(t.error().message.find("HTTP 404"), std::string::npos) << t.error().message;
        EXPECT_EQ(t.error().details["status"], 404);
    }
    {
        ws_test_server server(nullptr, {.status = 101, .bad_accept = false, .extension = true});
        auto t = cdp::websocket_transport::connect(server.url());
        ASSERT_FALSE(t);
        EXPECT_NE(t.error().message.find("extension"), std::string::npos) << t.error().message;
    }
    auto not_ws = cdp::websocket_transport::connect("http://127.0.0.1:9/");
    ASSERT_FALSE(not_ws);
    EXPECT_NE(not_ws.error().hint.find("discover_websocket_url"), std::string::npos);
}
