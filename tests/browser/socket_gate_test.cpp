// Unit tests of the WebSocket gate (a SOCKS5 proxy, socket_gate.hpp) over real loopback
// sockets, without a browser: handshakes, refusals, malformed input, relaying, bounds and
// shutdown; and of browser_policy::check_socket, its decision for the browser.
#include <agentkit/browser/policy.hpp>
#include <agentkit/browser/socket_gate.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace br = agentkit::browser;
using namespace std::chrono_literals;

namespace {

// A blocking TCP client with bounded waits.
class client {
public:
    explicit client(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    }
    client(const client&) = delete;
    client& operator=(const client&) = delete;
    ~client() {
        if (fd_ >= 0) ::close(fd_);
    }
    [[nodiscard]] bool connected() const { return connected_; }
    bool send(const std::string& s) {
        std::size_t off = 0;
        while (off < s.size()) {
            const ssize_t n = ::send(fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL);
            if (n <= 0) return false;
            off += static_cast<std::size_t>(n);
        }
        return true;
    }
    void shut_write() { ::shutdown(fd_, SHUT_WR); }
    // Exactly n bytes, or what arrived before EOF or the timeout.
    std::string recv(std::size_t n, std::chrono::milliseconds timeout = 5000ms) {
        std::string out;
        const auto end = std::chrono::steady_clock::now() + timeout;
        while (out.size() < n) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
            if (left.count() <= 0) break;
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
            char buf[65536];
            const ssize_t r = ::recv(fd_, buf, std::min(sizeof buf, n - out.size()), 0);
            if (r <= 0) break;
            out.append(buf, static_cast<std::size_t>(r));
        }
        return out;
    }
    // True when the peer closed (EOF or reset) within the timeout, discarding data before it.
    bool closed_by_peer(std::chrono::milliseconds timeout = 5000ms) {
        const auto end = std::chrono::steady_clock::now() + timeout;
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
            if (left.count() <= 0) return false;
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
            char buf[4096];
            if (::recv(fd_, buf, sizeof buf, 0) <= 0) return true;
        }
    }

private:
    int fd_;
    bool connected_ = false;
};

// Echoes every connection (one at a time) until the client half-closes, then closes.
class echo_server {
public:
    echo_server() : listen_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)), stop_(::eventfd(0, EFD_CLOEXEC)) {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(listen_, 16);
        socklen_t len = sizeof a;
        ::getsockname(listen_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { run(); });
    }
    echo_server(const echo_server&) = delete;
    echo_server& operator=(const echo_server&) = delete;
    ~echo_server() {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto n = ::write(stop_, &one, sizeof one);
        thread_.join();
        ::close(listen_);
        ::close(stop_);
    }
    [[nodiscard]] std::uint16_t port() const { return port_; }
    [[nodiscard]] std::size_t connections() const { return connections_.load(); }

private:
    void run() {
        for (;;) {
            pollfd p[2] = {{listen_, POLLIN, 0}, {stop_, POLLIN, 0}};
            if (::poll(p, 2, -1) <= 0 || (p[1].revents & POLLIN) != 0) return;
            const int fd = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) continue;
            ++connections_;
            for (;;) {
                pollfd q[2] = {{fd, POLLIN, 0}, {stop_, POLLIN, 0}};
                if (::poll(q, 2, -1) <= 0 || (q[1].revents & POLLIN) != 0) break;
                char buf[65536];
                const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
                if (n <= 0) break;
                if (::send(fd, buf, static_cast<std::size_t>(n), MSG_NOSIGNAL) != n) break;
            }
            ::close(fd);
        }
    }
    int listen_;
    int stop_;
    std::uint16_t port_ = 0;
    std::atomic<std::size_t> connections_{0};
    std::thread thread_;
};

// Records the decisions asked for; refuses hosts starting with "blocked".
struct judge {
    std::mutex mu;
    std::vector<std::pair<std::string, std::uint16_t>> asked;
    br::socket_gate::decision fn() {
        return [this](const std::string& host, std::uint16_t port) -> std::optional<std::string> {
            std::lock_guard lock(mu);
            asked.emplace_back(host, port);
            if (host.rfind("blocked", 0) == 0) return "blocked_origins: " + host;
            return std::nullopt;
        };
    }
    std::vector<std::pair<std::string, std::uint16_t>> seen() {
        std::lock_guard lock(mu);
        return asked;
    }
};

std::string port_bytes(std::uint16_t p) { return {static_cast<char>(p >> 8U), static_cast<char>(p & 0xFFU)}; }

std::string connect_domain(const std::string& host, std::uint16_t port) {
    return std::string("\x05\x01\x00\x03", 4) + static_cast<char>(host.size()) + host + port_bytes(port);
}
std::string connect_ipv4(std::uint16_t port) { return std::string("\x05\x01\x00\x01\x7f\x00\x00\x01", 8) + port_bytes(port); }

const std::string greeting("\x05\x01\x00", 3);
const std::string greeting_ok("\x05\x00", 2);

}  // namespace

TEST(SocketGate, RefusedConnectGetsReply2AndTheDecisionSawHostAndPort) {
    judge j;
    auto g = br::socket_gate::start(j.fn());
    ASSERT_TRUE(g.has_value()) << g.error().message;
    EXPECT_NE((*g)->port(), 0);
    EXPECT_EQ((*g)->proxy_server(), "http=direct://;https=direct://;socks=socks5://127.0.0.1:" + std::to_string((*g)->port()));
    client c((*g)->port());
    ASSERT_TRUE(c.connected());
    ASSERT_TRUE(c.send(greeting));
    EXPECT_EQ(c.recv(2), greeting_ok);
    ASSERT_TRUE(c.send(connect_domain("blocked.test", 8443)));
    const std::string reply = c.recv(10);
    ASSERT_EQ(reply.size(), 10U);
    EXPECT_EQ(reply[0], '\x05');
    EXPECT_EQ(reply[1], '\x02');  // connection not allowed by ruleset
    EXPECT_TRUE(c.closed_by_peer());
    ASSERT_EQ(j.seen().size(), 1U);
    EXPECT_EQ(j.seen()[0].first, "blocked.test");
    EXPECT_EQ(j.seen()[0].second, 8443);
    const auto st = (*g)->stats();
    EXPECT_EQ(st.accepted, 1U);
    EXPECT_EQ(st.refused, 1U);
    EXPECT_EQ(st.relayed, 0U);
}

TEST(SocketGate, AllowedConnectIsRelayedBothWaysWithHalfCloseAndBackpressure) {
    echo_server echo;
    judge j;
    br::socket_gate_options o;
    o.buffer_size = 4096;  // far smaller than what is sent: the relay must stop and resume reading
    auto g = br::socket_gate::start(j.fn(), o);
    ASSERT_TRUE(g.has_value());
    client c((*g)->port());
    ASSERT_TRUE(c.connected());
    // greeting, request and the first data in one write (a client may pipeline them)
    ASSERT_TRUE(c.send(greeting + connect_ipv4(echo.port()) + "hello"));
    EXPECT_EQ(c.recv(2), greeting_ok);
    const std::string reply = c.recv(10);
    ASSERT_EQ(reply.size(), 10U);
    EXPECT_EQ(reply.substr(0, 4), std::string("\x05\x00\x00\x01", 4));
    EXPECT_EQ(c.recv(5), "hello");
    std::string big(1U << 20U, '\0');
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
    std::thread writer([&] { (void)c.send(big); });
    const std::string back = c.recv(big.size(), 20000ms);
    writer.join();
    EXPECT_TRUE(back == big) << back.size();
    c.shut_write();  // → the echo server sees EOF and closes → so do we
    EXPECT_TRUE(c.closed_by_peer());
    ASSERT_EQ(j.seen().size(), 1U);
    EXPECT_EQ(j.seen()[0].first, "127.0.0.1");
    EXPECT_EQ((*g)->stats().relayed, 1U);
}

TEST(SocketGate, DomainNamesAreResolvedOffTheLoopAndIPv6AddressesParsed) {
    echo_server echo;
    judge j;
    auto g = br::socket_gate::start(j.fn());
    ASSERT_TRUE(g.has_value());
    {
        client c((*g)->port());
        ASSERT_TRUE(c.send(greeting));
        EXPECT_EQ(c.recv(2), greeting_ok);
        ASSERT_TRUE(c.send(connect_domain("localhost", echo.port())));  // ::1 may be tried first: refused, then 127.0.0.1
        const std::string reply = c.recv(10);
        ASSERT_GE(reply.size(), 2U);
        ASSERT_EQ(reply[1], '\x00');
        ASSERT_TRUE(c.send("via name"));
        EXPECT_EQ(c.recv(8), "via name");
    }
    {
        client c((*g)->port());
        ASSERT_TRUE(c.send(greeting));
        EXPECT_EQ(c.recv(2), greeting_ok);
        std::string v6("\x05\x01\x00\x04", 4);
        v6 += std::string(15, '\0') + '\x01';  // ::1, where nothing listens on the echo port
        ASSERT_TRUE(c.send(v6 + port_bytes(echo.port())));
        const std::string reply = c.recv(10);
        ASSERT_GE(reply.size(), 2U);
        EXPECT_NE(reply[1], '\x00');  // refused (0x05), or unreachable without IPv6
        EXPECT_NE(reply[1], '\x02');
        EXPECT_TRUE(c.closed_by_peer());
    }
    {
        client c((*g)->port());  // a name that does not resolve: host unreachable
        ASSERT_TRUE(c.send(greeting + connect_domain("no-such-host.invalid", 80)));
        EXPECT_EQ(c.recv(2), greeting_ok);
        const std::string reply = c.recv(10, 30000ms);
        ASSERT_GE(reply.size(), 2U);
        EXPECT_TRUE(reply[1] == '\x04' || reply[1] == '\x06') << static_cast<int>(reply[1]);  // unreachable, or a resolver that timed out
    }
    // other spellings of an address reach the decision as its one canonical spelling
    for (const std::string& spelling : {std::string("127.1"), std::string("0x7f.0.0.1"), std::string("2130706433")}) {
        client c((*g)->port());
        ASSERT_TRUE(c.send(greeting + connect_domain(spelling, echo.port())));
        EXPECT_EQ(c.recv(2), greeting_ok);
        const std::string reply = c.recv(10);
        ASSERT_GE(reply.size(), 2U);
        EXPECT_EQ(reply[1], '\x00') << spelling;
    }
    {
        client c((*g)->port());  // ::ffff:127.0.0.1, an IPv4-mapped IPv6 address
        ASSERT_TRUE(c.send(greeting));
        EXPECT_EQ(c.recv(2), greeting_ok);
        std::string v6("\x05\x01\x00\x04", 4);
        v6 += std::string(10, '\0') + "\xff\xff" + std::string("\x7f\x00\x00\x01", 4);
        ASSERT_TRUE(c.send(v6 + port_bytes(echo.port())));
        const std::string reply = c.recv(10);
        ASSERT_GE(reply.size(), 2U);
        EXPECT_EQ(reply[1], '\x00');
    }
    const auto seen = j.seen();
    ASSERT_EQ(seen.size(), 7U);
    EXPECT_EQ(seen[0].first, "localhost");
    EXPECT_EQ(seen[1].first, "::1");
    EXPECT_EQ(seen[2].first, "no-such-host.invalid");
    for (std::size_t i = 3; i < 7; ++i) EXPECT_EQ(seen[i].first, "127.0.0.1") << i;
    const auto st = (*g)->stats();
    EXPECT_EQ(st.relayed, 5U);
    EXPECT_EQ(st.failed, 2U);
}

TEST(SocketGate, MalformedOrUnsupportedHandshakesAreAnsweredAndClosed) {
    judge j;
    auto g = br::socket_gate::start(j.fn());
    ASSERT_TRUE(g.has_value());
    {  // not SOCKS5 at all: closed without a reply
        client c((*g)->port());
        ASSERT_TRUE(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
        EXPECT_EQ(c.recv(1, 2000ms), "");
        EXPECT_TRUE(c.closed_by_peer());
    }
    {  // only username/password offered: no acceptable method
        client c((*g)->port());
        ASSERT_TRUE(c.send(std::string("\x05\x01\x02", 3)));
        EXPECT_EQ(c.recv(2), std::string("\x05\xFF", 2));
        EXPECT_TRUE(c.closed_by_peer());
    }
    {  // BIND: command not supported
        client c((*g)->port());
        ASSERT_TRUE(c.send(greeting + std::string("\x05\x02\x00\x01\x7f\x00\x00\x01\x00\x50", 10)));
        EXPECT_EQ(c.recv(2), greeting_ok);
        EXPECT_EQ(c.recv(2), std::string("\x05\x07", 2));
        EXPECT_TRUE(c.closed_by_peer());
    }
    {  // unknown address type
        client c((*g)->port());
        ASSERT_TRUE(c.send(greeting + std::string("\x05\x01\x00\x09\x00\x00", 6)));
        EXPECT_EQ(c.recv(2), greeting_ok);
        EXPECT_EQ(c.recv(2), std::string("\x05\x08", 2));
        EXPECT_TRUE(c.closed_by_peer());
    }
    {  // a domain name with control characters
        client c((*g)->port());
        ASSERT_TRUE(c.send(greeting + connect_domain(std::string("a\nb", 3), 80)));
        EXPECT_EQ(c.recv(2), greeting_ok);
        EXPECT_EQ(c.recv(2), std::string("\x05\x04", 2));
        EXPECT_TRUE(c.closed_by_peer());
    }
    {  // the client goes away in the middle of the request
        client c((*g)->port());
        ASSERT_TRUE(c.send(greeting + std::string("\x05\x01\x00\x03\x10" "ab", 7)));
        EXPECT_EQ(c.recv(2), greeting_ok);
        c.shut_write();
        EXPECT_TRUE(c.closed_by_peer());
    }
    EXPECT_TRUE(j.seen().empty());  // none of these reached the decision
    const auto st = (*g)->stats();
    EXPECT_EQ(st.failed, 6U);
    EXPECT_EQ(st.refused, 0U);
}

TEST(SocketGate, ConnectionsBeyondTheLimitAndStalledHandshakesAreClosed) {
    judge j;
    br::socket_gate_options o;
    o.max_connections = 1;
    o.handshake_timeout = 300ms;
    auto g = br::socket_gate::start(j.fn(), o);
    ASSERT_TRUE(g.has_value());
    client first((*g)->port());
    ASSERT_TRUE(first.send(std::string("\x05", 1)));  // an incomplete greeting: it holds the only slot
    client second((*g)->port());
    EXPECT_TRUE(second.closed_by_peer(2000ms));  // over the limit: closed at once
    EXPECT_TRUE(first.closed_by_peer(5000ms));   // the handshake timed out
    const auto st = (*g)->stats();
    EXPECT_EQ(st.accepted, 2U);
    EXPECT_EQ(st.failed, 2U);
    EXPECT_EQ(st.active, 0U);
}

TEST(SocketGate, StopClosesRelayedAndPendingConnectionsAndIsIdempotent) {
    echo_server echo;
    judge j;
    auto g = br::socket_gate::start(j.fn());
    ASSERT_TRUE(g.has_value());
    client relayed((*g)->port());
    ASSERT_TRUE(relayed.send(greeting + connect_ipv4(echo.port()) + "x"));
    EXPECT_EQ(relayed.recv(2 + 10 + 1).size(), 13U);
    client pending((*g)->port());
    ASSERT_TRUE(pending.send(greeting));
    EXPECT_EQ(pending.recv(2), greeting_ok);
    (*g)->stop();
    EXPECT_TRUE(relayed.closed_by_peer());
    EXPECT_TRUE(pending.closed_by_peer());
    EXPECT_EQ((*g)->stats().active, 0U);
    (*g)->stop();
    g->reset();  // the destructor after stop
}

TEST(SocketGate, PolicyJudgesASocketByHostAndPort) {
    br::browser_policy p;
    p.allowed_origins = {"http://127.0.0.1:8080", "https://secure.test", "*.any.test"};
    p.blocked_origins = {"https://bad.any.test"};
    // other ports: either scheme admits
    EXPECT_FALSE(p.check_socket("127.0.0.1", 8080).has_value());
    EXPECT_FALSE(p.check_socket("secure.test", 8443).has_value());
    // default ports: the scheme they imply
    EXPECT_FALSE(p.check_socket("secure.test", 443).has_value());
    ASSERT_TRUE(p.check_socket("secure.test", 80).has_value());  // ws://secure.test is not allowed
    EXPECT_EQ(p.check_socket("secure.test", 80)->url, "ws://secure.test/");
    EXPECT_EQ(p.check_socket("secure.test", 80)->rule, "allowed_origins: not in the allowed list");
    // not in the allowed list
    auto other = p.check_socket("127.0.0.1", 9090);
    ASSERT_TRUE(other.has_value());
    EXPECT_EQ(other->url, "ws://127.0.0.1:9090/");
    // a blocked pattern under either scheme refuses on a non-default port...
    auto bad = p.check_socket("bad.any.test", 9000);
    ASSERT_TRUE(bad.has_value());
    EXPECT_EQ(bad->rule, "blocked_origins: https://bad.any.test");
    // ...and on the default ports too: a block of https://h is not dodged by a socket to h:80
    ASSERT_TRUE(p.check_socket("bad.any.test", 80).has_value());
    EXPECT_EQ(p.check_socket("bad.any.test", 80)->rule, "blocked_origins: https://bad.any.test");
    ASSERT_TRUE(p.check_socket("bad.any.test", 443).has_value());
    // a fully qualified name (trailing dot) is the same host, for sockets and for check()
    ASSERT_TRUE(p.check_socket("bad.any.test.", 9000).has_value());
    EXPECT_EQ(p.check_socket("bad.any.test.", 9000)->rule, "blocked_origins: https://bad.any.test");
    ASSERT_TRUE(p.check("https://bad.any.test./x").has_value());
    EXPECT_EQ(p.check("https://bad.any.test./x")->rule, "blocked_origins: https://bad.any.test");
    EXPECT_FALSE(p.check("https://ok.any.test./").has_value());
    EXPECT_TRUE(p.check("https://bad.any.test../").has_value());  // not a host
    // the unspecified addresses reach loopback on Linux: refused
    EXPECT_TRUE(p.check_socket("0.0.0.0", 8080).has_value());
    EXPECT_TRUE(p.check_socket("::", 8080).has_value());
    EXPECT_EQ(p.check_socket("bad.any.test", 443)->url, "wss://bad.any.test/");
    // IPv6 with or without brackets; malformed hosts are refused
    br::browser_policy v6;
    v6.allowed_origins = {"[::1]:9000"};
    EXPECT_FALSE(v6.check_socket("::1", 9000).has_value());
    EXPECT_FALSE(v6.check_socket("[::1]", 9000).has_value());
    EXPECT_TRUE(v6.check_socket("::1", 9001).has_value());
    br::browser_policy open;
    EXPECT_FALSE(open.check_socket("example.com", 443).has_value());
    for (const char* h : {"", "a/b", "a@b", "a b", "x.test:80/y"})
        EXPECT_TRUE(open.check_socket(h, 443).has_value()) << h;
    EXPECT_TRUE(open.check_socket("example.com", 0).has_value());
}
