// agentkit/browser/socket_gate.hpp — a SOCKS5 proxy on 127.0.0.1 that judges every connection
// the browser sends through it, relaying the allowed ones and refusing the rest. The browser
// uses it to enforce its origin policy on WebSockets in the network stack.
//
// Why a proxy: CDP request interception (Fetch) never sees WebSocket handshakes, and
// Network.setBlockedURLs does not block them in Chromium 156. Chromium's proxy rules send ws://
// and wss:// to the SOCKS proxy when one is configured (RFC 6455 §4.1.3;
// ProxyRules::GetProxyListForWebSocketScheme), so a browser context created with
//     proxyServer     = proxy_server()   "http=direct://;https=direct://;socks=socks5://127.0.0.1:PORT"
//     proxyBypassList = kBypassList      "<-loopback>" (loopback is otherwise never proxied)
// sends exactly its WebSocket connections here, whether a page, an iframe, a dedicated, shared
// or service worker opened them, and whichever constructor was used, while http(s) goes direct
// (and stays under Fetch interception). Measured with Chromium 156: with that context, a page's
// and a dedicated worker's WebSockets arrived as SOCKS CONNECTs (host names as SOCKS domain
// names, 127.0.0.1 included), the same page's fetch() and <img> requests did not, and neither a
// refused CONNECT (any reply code, or the connection closed or reset at any point of the
// handshake) nor a proxy port that refuses connections made the browser retry directly.
//
//   auto g = socket_gate::start([](const std::string& host, std::uint16_t port) -> std::optional<std::string> {
//       if (host == "evil.test") return "blocked_origins: evil.test";   // refused, with the rule
//       return std::nullopt;                                             // allowed: relayed
//   });
//   if (!g) ...;
//   (*g)->proxy_server();  // for Target.createBrowserContext
//
// Protocol: RFC 1928 server side with the no-authentication method only, CONNECT only, IPv4,
// domain-name and IPv6 addresses. Every CONNECT is put to the decision function (host as sent:
// a domain name, dotted IPv4 or IPv6 text without brackets; port): nothing → the gate connects
// and relays bytes both ways until both sides are done; a rule → reply 0x02 "connection not
// allowed by ruleset" and close. Other failures get their RFC 1928 reply (0x01 general, 0x03
// network or 0x04 host unreachable, 0x05 refused, 0x06 timed out, 0x07 command or 0x08 address
// type not supported); a greeting without the no-authentication method gets 0xFF; anything that
// is not SOCKS5 is closed.
//
// Threads: one poll() loop accepts, parses handshakes, connects (non-blocking) and relays; one
// resolver thread runs getaddrinfo for domain names, so a slow lookup never stalls the relays
// (lookups run one at a time; a connection that closes or times out withdraws its lookup). The
// decision function runs on the loop thread: it must be quick and must not call back into the
// gate. stop() (and the destructor) wakes and joins both threads and closes every descriptor; a
// lookup in progress is waited for (bounded by the resolver's timeout).
// Bounds: max_connections open client connections (more are closed at once), handshake_timeout
// from accept to relaying (lookup and connect included), buffer_size bytes buffered per
// direction (a side that does not read stops the gate reading from the other). Relayed
// connections have no idle timeout: WebSockets live long.
//
// Hosts reach the decision function canonically (policy_detail::canonical_address: numeric IPv4
// spellings as dotted quads, IPv4-mapped IPv6 as IPv4, IPv6 without brackets). A name is judged by name: where it resolves is not checked
// (as for http(s), whose Fetch interception also sees names only). The listening socket is on
// 127.0.0.1, reachable by local processes, which could connect anywhere directly anyway.
// POSIX (Linux: eventfd, accept4).
#pragma once

#include <agentkit/browser/policy.hpp>
#include <agentkit/cdp/detail/posix.hpp>
#include <agentkit/core/result.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace agentkit::browser {

/// The bounds of a socket_gate.
struct socket_gate_options {
    std::size_t max_connections = 256;                   ///< open client connections
    std::chrono::milliseconds handshake_timeout{15000};  ///< accept → relaying (lookup and connect included)
    std::size_t buffer_size = std::size_t{64} << 10U;    ///< bytes buffered per direction
};

/// Counts since start.
struct socket_gate_stats {
    std::uint64_t accepted = 0;  ///< client connections accepted
    std::uint64_t refused = 0;   ///< CONNECTs the decision function refused
    std::uint64_t relayed = 0;   ///< CONNECTs connected and relayed
    std::uint64_t failed = 0;    ///< not SOCKS5, malformed, unsupported, unreachable, timed out or over the limit
    std::size_t active = 0;      ///< client connections open now
};

/// A SOCKS5 proxy on 127.0.0.1 that lets a browser's WebSockets connect only where a decision function allows.
class socket_gate {
public:
    /// (host, port) → nothing to allow, or the rule refusing the connection.
    using decision = std::function<std::optional<std::string>(const std::string& host, std::uint16_t port)>;

    /// The proxy bypass list that makes the browser send loopback WebSockets here too.
    static constexpr const char* kBypassList = "<-loopback>";

    /// Listen on 127.0.0.1 (an ephemeral port) and start the threads.
    [[nodiscard]] static result<std::unique_ptr<socket_gate>> start(decision decide, socket_gate_options options = {}) {
        std::unique_ptr<socket_gate> g(new socket_gate(std::move(decide), options));
        if (auto r = g->open(); !r) return fail(r.error());
        return g;
    }

    socket_gate(const socket_gate&) = delete;
    socket_gate& operator=(const socket_gate&) = delete;
    ~socket_gate() { stop(); }

    /// Stop both threads and close every connection. Idempotent.
    void stop() {
        if (stopping_.exchange(true)) return;
        notify();
        {
            std::lock_guard lock(rmu_);
            rstop_ = true;
        }
        rcv_.notify_all();
        if (loop_.joinable()) loop_.join();
        if (resolver_.joinable()) resolver_.join();
        listen_.reset();
        wake_.reset();
    }

    /// The port it listens on (127.0.0.1).
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    /// The proxyServer value: http(s) direct, WebSockets (SOCKS) through this gate.
    [[nodiscard]] std::string proxy_server() const {
        return "http=direct://;https=direct://;socks=socks5://127.0.0.1:" + std::to_string(port_);
    }
    /// The counts since start.
    [[nodiscard]] socket_gate_stats stats() const {
        std::lock_guard lock(smu_);
        return stats_;
    }

private:
    using clock = std::chrono::steady_clock;
    using unique_fd = cdp::detail::unique_fd;

    enum class phase { greeting, request, resolving, connecting, relaying, closing };

    struct conn {
        std::uint64_t id = 0;
        phase state = phase::greeting;
        unique_fd client, upstream;
        std::string up;    // client → upstream (the handshake bytes first)
        std::string down;  // → client (replies, then upstream's bytes)
        bool client_eof = false, upstream_eof = false;
        bool upstream_shut = false, client_shut = false;
        bool done = false;  // remove at the end of the round
        clock::time_point deadline = clock::time_point::max();
        std::vector<sockaddr_storage> addrs;
        std::vector<socklen_t> addr_lens;
        std::size_t next_addr = 0;
        int last_error = 0;
    };

    struct lookup {
        std::uint64_t id = 0;
        std::string host;
        std::uint16_t port = 0;
        std::vector<sockaddr_storage> addrs;
        std::vector<socklen_t> lens;
    };

    socket_gate(decision decide, socket_gate_options o) : decide_(std::move(decide)), opt_(o) {
        if (opt_.max_connections == 0) opt_.max_connections = 1;
        if (opt_.buffer_size < 512) opt_.buffer_size = 512;
    }

    result<void> open() {
        wake_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
        listen_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
        if (!wake_ || !listen_)
            return fail(errc::browser_launch, "the WebSocket gate cannot create sockets: " + cdp::detail::errno_message(errno));
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = 0;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(listen_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_.get(), 64) != 0)
            return fail(errc::browser_launch, "the WebSocket gate cannot listen on 127.0.0.1: " + cdp::detail::errno_message(errno));
        socklen_t len = sizeof addr;
        if (::getsockname(listen_.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0)
            return fail(errc::browser_launch, "the WebSocket gate has no port: " + cdp::detail::errno_message(errno));
        port_ = ntohs(addr.sin_port);
        loop_ = std::thread([this] { run(); });
        resolver_ = std::thread([this] { resolve_loop(); });
        return {};
    }

    void notify() const noexcept {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto n = ::write(wake_.get(), &one, sizeof one);
    }

    template <class F>
    void count(F&& f) {
        std::lock_guard lock(smu_);
        f(stats_);
    }

    /// The host the decision sees, in one spelling per address: numeric IPv4 forms the resolver
    /// would accept ("127.1", "0x7f.1", "2130706433") as dotted quads, IPv4-mapped IPv6 as its
    /// IPv4 address, other IPv6 in inet_ntop form; names lower case as sent.
    static std::string canonical_host(const std::string& host) {
        std::string h = policy_detail::canonical_address(host);
        if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);  // IPv6 as inet_ntop writes it
        return h;
    }

    // ---- the resolver thread ---------------------------------------------------------------

    void resolve_loop() {
        for (;;) {
            lookup job;
            {
                std::unique_lock lock(rmu_);
                rcv_.wait(lock, [&] { return rstop_ || !jobs_.empty(); });
                if (rstop_) return;
                job = std::move(jobs_.front());
                jobs_.pop_front();
            }
            addrinfo hints{};
            hints.ai_family = AF_UNSPEC;
            hints.ai_socktype = SOCK_STREAM;
            hints.ai_flags = AI_NUMERICSERV;
            addrinfo* list = nullptr;
            const std::string service = std::to_string(job.port);
            if (::getaddrinfo(job.host.c_str(), service.c_str(), &hints, &list) == 0) {
                for (addrinfo* ai = list; ai != nullptr && job.addrs.size() < 16; ai = ai->ai_next) {
                    if (ai->ai_addrlen > sizeof(sockaddr_storage)) continue;
                    sockaddr_storage ss{};
                    std::memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
                    job.addrs.push_back(ss);
                    job.lens.push_back(ai->ai_addrlen);
                }
                ::freeaddrinfo(list);
            }
            {
                std::lock_guard lock(rmu_);
                if (rstop_) return;
                resolved_.push_back(std::move(job));
            }
            notify();
        }
    }

    // ---- the loop thread -------------------------------------------------------------------

    void run() {
        std::list<conn> conns;
        std::uint64_t next_id = 1;
        std::vector<pollfd> fds;
        std::vector<std::pair<conn*, bool>> owners;  // (connection, is the upstream socket)
        while (!stopping_.load()) {
            fds.clear();
            owners.clear();
            fds.push_back({wake_.get(), POLLIN, 0});
            // accept() failing for want of descriptors leaves the socket readable: pause it a little
            const bool accepting = clock::now() >= accept_paused_until_;
            fds.push_back({accepting ? listen_.get() : -1, POLLIN, 0});
            auto deadline = accepting ? clock::time_point::max() : accept_paused_until_;
            for (auto& c : conns) {
                deadline = std::min(deadline, c.deadline);
                if (const short ev = client_events(c); ev != 0) {
                    fds.push_back({c.client.get(), ev, 0});
                    owners.emplace_back(&c, false);
                }
                if (const short ev = upstream_events(c); ev != 0) {
                    fds.push_back({c.upstream.get(), ev, 0});
                    owners.emplace_back(&c, true);
                }
            }
            const int n = cdp::detail::poll_until(fds.data(), static_cast<nfds_t>(fds.size()), deadline);
            if (n < 0) break;
            if (stopping_.load()) break;
            if ((fds[0].revents & POLLIN) != 0) {
                std::uint64_t v = 0;
                [[maybe_unused]] const auto r = ::read(wake_.get(), &v, sizeof v);
                take_lookups(conns);
            }
            if ((fds[1].revents & POLLIN) != 0) accept_all(conns, next_id);
            for (std::size_t i = 0; i < owners.size(); ++i) {
                const short re = fds[i + 2].revents;
                if (re == 0 || owners[i].first->done) continue;
                if (owners[i].second) on_upstream(*owners[i].first, re);
                else on_client(*owners[i].first, re);
            }
            const auto now = clock::now();
            for (auto& c : conns)
                if (!c.done && c.deadline <= now) expire(c);
            conns.remove_if([](const conn& c) { return c.done; });
        }
        conns.clear();  // closes every socket
        count([](socket_gate_stats& s) { s.active = 0; });
        // Ended by a poll() failure rather than stop(): refuse new connections outright (the
        // browser then fails its WebSockets) instead of leaving them queued unanswered.
        if (!stopping_.load()) listen_.reset();
    }

    [[nodiscard]] short client_events(const conn& c) const {
        short ev = 0;
        const bool reading = c.state == phase::greeting || c.state == phase::request || c.state == phase::closing ||
                             (c.state == phase::relaying && !c.client_eof && c.up.size() < opt_.buffer_size);
        if (reading && !c.client_eof) ev |= POLLIN;
        if (!c.down.empty()) ev |= POLLOUT;
        return ev;
    }

    [[nodiscard]] short upstream_events(const conn& c) const {
        if (!c.upstream) return 0;
        if (c.state == phase::connecting) return POLLOUT;
        if (c.state != phase::relaying) return 0;
        short ev = 0;
        if (!c.upstream_eof && c.down.size() < opt_.buffer_size) ev |= POLLIN;
        if (!c.up.empty()) ev |= POLLOUT;
        return ev;
    }

    void accept_all(std::list<conn>& conns, std::uint64_t& next_id) {
        for (;;) {
            unique_fd fd(::accept4(listen_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
            if (!fd) {
                if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                    accept_paused_until_ = clock::now() + std::chrono::milliseconds(100);
                return;  // EAGAIN, or an error we leave to the next round
            }
            if (conns.size() >= opt_.max_connections) {
                count([](socket_gate_stats& s) {
                    ++s.accepted;
                    ++s.failed;
                });
                continue;  // closed at once: the browser fails this connection instead of waiting
            }
            conn& c = conns.emplace_back();
            c.id = next_id++;
            c.client = std::move(fd);
            c.deadline = clock::now() + opt_.handshake_timeout;
            count([](socket_gate_stats& s) {
                ++s.accepted;
                ++s.active;
            });
        }
    }

    // Read what the socket has (up to `room` bytes) into `into`; false on EOF or error.
    static bool read_some(int fd, std::string& into, std::size_t room, bool& error) {
        error = false;
        std::array<char, 16384> chunk{};
        const std::size_t want = std::min(room, chunk.size());
        if (want == 0) return true;
        const ssize_t n = ::recv(fd, chunk.data(), want, 0);
        if (n > 0) {
            into.append(chunk.data(), static_cast<std::size_t>(n));
            return true;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
        error = n < 0;
        return false;
    }

    // Write what the socket takes from the front of `from`; false on error.
    static bool write_some(int fd, std::string& from) {
        if (from.empty()) return true;
        const ssize_t n = ::send(fd, from.data(), from.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n >= 0) {
            from.erase(0, static_cast<std::size_t>(n));
            return true;
        }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    }

    void on_client(conn& c, short re) {
        if ((re & POLLOUT) != 0 && !write_some(c.client.get(), c.down)) return drop(c);
        if ((re & (POLLIN | POLLHUP | POLLERR)) != 0 && !c.client_eof) {
            bool error = false;
            const std::size_t room = c.state == phase::relaying ? opt_.buffer_size - std::min(opt_.buffer_size, c.up.size())
                                                                : std::size_t{16384};
            if (!read_some(c.client.get(), c.up, room, error)) {
                if (error && c.state != phase::closing) return drop(c);
                c.client_eof = true;
            }
            if (c.state == phase::closing) c.up.clear();  // refused or failed: what follows is discarded
        }
        if (c.state == phase::greeting || c.state == phase::request) {
            if (c.client_eof) {
                count([](socket_gate_stats& s) { ++s.failed; });
                return drop(c);
            }
            handshake(c);
        } else if (c.state == phase::relaying && !c.up.empty() && !write_some(c.upstream.get(), c.up)) {
            return drop(c);
        }
        settle(c);
    }

    void on_upstream(conn& c, short re) {
        if (c.state == phase::connecting) {
            int err = 0;
            socklen_t len = sizeof err;
            if (::getsockopt(c.upstream.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
            if (err == 0 && (re & POLLOUT) != 0) return connected(c);
            c.last_error = err != 0 ? err : ECONNREFUSED;
            c.upstream.reset();
            return try_connect(c);
        }
        if ((re & POLLOUT) != 0 && !write_some(c.upstream.get(), c.up)) return drop(c);
        if ((re & (POLLIN | POLLHUP | POLLERR)) != 0 && !c.upstream_eof) {
            bool error = false;
            if (!read_some(c.upstream.get(), c.down, opt_.buffer_size - std::min(opt_.buffer_size, c.down.size()), error)) {
                if (error) return drop(c);
                c.upstream_eof = true;
            }
        }
        if (!c.down.empty() && !write_some(c.client.get(), c.down)) return drop(c);
        settle(c);
    }

    // Half-closes and the end of a connection, after any read or write.
    void settle(conn& c) {
        if (c.done) return;
        if (c.state == phase::closing) {
            if (!c.down.empty()) return;
            if (!c.client_shut) {
                ::shutdown(c.client.get(), SHUT_WR);
                c.client_shut = true;
            }
            if (c.client_eof) drop(c);  // the client closed too: no reset can overtake our reply
            return;
        }
        if (c.state != phase::relaying) return;
        if (c.client_eof && c.up.empty() && !c.upstream_shut) {
            ::shutdown(c.upstream.get(), SHUT_WR);
            c.upstream_shut = true;
        }
        if (c.upstream_eof && c.down.empty() && !c.client_shut) {
            ::shutdown(c.client.get(), SHUT_WR);
            c.client_shut = true;
        }
        if (c.upstream_shut && c.client_shut) drop(c);
    }

    void drop(conn& c) {
        if (c.state == phase::resolving) {  // its lookup is no longer wanted: do not queue work for nobody
            std::lock_guard lock(rmu_);
            jobs_.erase(std::remove_if(jobs_.begin(), jobs_.end(), [&](const lookup& l) { return l.id == c.id; }), jobs_.end());
        }
        if (!c.done) count([](socket_gate_stats& s) { --s.active; });
        c.done = true;
        c.client.reset();
        c.upstream.reset();
    }

    // Send an RFC 1928 reply and close (after the client has read it, bounded by a short linger).
    void refuse(conn& c, std::uint8_t code) {
        if (code == 0x02) count([](socket_gate_stats& s) { ++s.refused; });
        else count([](socket_gate_stats& s) { ++s.failed; });
        c.down.append({'\x05', static_cast<char>(code), '\x00', '\x01', '\0', '\0', '\0', '\0', '\0', '\0'});
        close_after(c);
    }

    void close_after(conn& c) {
        c.state = phase::closing;
        c.up.clear();
        c.upstream.reset();
        c.deadline = clock::now() + std::chrono::seconds(2);
        settle(c);
    }

    void handshake(conn& c) {
        if (c.state == phase::greeting) {
            if (c.up.size() < 2) return;
            if (c.up[0] != '\x05') {  // not SOCKS5: no reply we could give makes sense
                count([](socket_gate_stats& s) { ++s.failed; });
                return drop(c);
            }
            const std::size_t n = static_cast<unsigned char>(c.up[1]);
            if (c.up.size() < 2 + n) return;
            const bool no_auth = c.up.find('\x00', 2) < 2 + n;
            c.up.erase(0, 2 + n);
            if (!no_auth) {
                count([](socket_gate_stats& s) { ++s.failed; });
                c.down.assign({'\x05', '\xFF'});
                return close_after(c);
            }
            c.down.append({'\x05', '\x00'});
            c.state = phase::request;
        }
        if (c.state != phase::request || c.up.size() < 5) return;
        const auto b = [&](std::size_t i) { return static_cast<unsigned char>(c.up[i]); };
        if (b(0) != 5) return refuse(c, 0x01);
        if (b(1) != 1) return refuse(c, 0x07);  // BIND and UDP ASSOCIATE are not offered
        std::size_t need = 0;
        switch (b(3)) {
            case 1: need = 4 + 4 + 2; break;
            case 3: need = 4 + 1 + static_cast<std::size_t>(b(4)) + 2; break;
            case 4: need = 4 + 16 + 2; break;
            default: return refuse(c, 0x08);
        }
        if (c.up.size() < need) return;
        std::string host;
        if (b(3) == 3) {
            host = c.up.substr(5, b(4));
            const bool printable = !host.empty() && std::all_of(host.begin(), host.end(), [](char ch) {
                return static_cast<unsigned char>(ch) > 0x20 && static_cast<unsigned char>(ch) < 0x7F;
            });
            if (!printable) return refuse(c, 0x04);
        } else {
            char text[INET6_ADDRSTRLEN] = {};
            if (::inet_ntop(b(3) == 1 ? AF_INET : AF_INET6, c.up.data() + 4, text, sizeof text) == nullptr) return refuse(c, 0x01);
            host = text;
        }
        host = canonical_host(host);
        const auto port = static_cast<std::uint16_t>((b(need - 2) << 8U) | b(need - 1));
        c.up.erase(0, need);  // anything after the request is the client's first data
        if (port == 0) return refuse(c, 0x04);
        std::optional<std::string> rule;
        try {
            rule = decide_ ? decide_(host, port) : std::optional<std::string>();
        } catch (const std::exception& e) {
            rule = std::string("socket_gate: the decision failed: ") + e.what();
        } catch (...) {
            rule = std::string("socket_gate: the decision failed");
        }
        if (rule) return refuse(c, 0x02);
        // Numeric addresses connect at once; names go to the resolver thread.
        std::string literal = host;
        if (literal.size() > 2 && literal.front() == '[' && literal.back() == ']') literal = literal.substr(1, literal.size() - 2);
        sockaddr_storage ss{};
        auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
        auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
        if (::inet_pton(AF_INET, literal.c_str(), &v4->sin_addr) == 1) {
            v4->sin_family = AF_INET;
            v4->sin_port = htons(port);
            c.addrs.push_back(ss);
            c.addr_lens.push_back(sizeof(sockaddr_in));
        } else if (::inet_pton(AF_INET6, literal.c_str(), &v6->sin6_addr) == 1) {
            v6->sin6_family = AF_INET6;
            v6->sin6_port = htons(port);
            c.addrs.push_back(ss);
            c.addr_lens.push_back(sizeof(sockaddr_in6));
        }
        if (!c.addrs.empty()) return try_connect(c);
        c.state = phase::resolving;
        {
            std::lock_guard lock(rmu_);
            jobs_.push_back(lookup{c.id, host, port, {}, {}});
        }
        rcv_.notify_one();
    }

    void take_lookups(std::list<conn>& conns) {
        std::vector<lookup> done;
        {
            std::lock_guard lock(rmu_);
            done.assign(std::make_move_iterator(resolved_.begin()), std::make_move_iterator(resolved_.end()));
            resolved_.clear();
        }
        for (auto& l : done) {
            auto it = std::find_if(conns.begin(), conns.end(), [&](const conn& c) { return c.id == l.id; });
            if (it == conns.end() || it->done || it->state != phase::resolving) continue;  // closed or timed out meanwhile
            if (l.addrs.empty()) {
                refuse(*it, 0x04);
                continue;
            }
            it->addrs = std::move(l.addrs);
            it->addr_lens = std::move(l.lens);
            try_connect(*it);
        }
    }

    // Connect to the next candidate address (non-blocking); all failed → the matching reply.
    void try_connect(conn& c) {
        c.state = phase::connecting;
        while (c.next_addr < c.addrs.size()) {
            const auto& ss = c.addrs[c.next_addr];
            const socklen_t len = c.addr_lens[c.next_addr];
            ++c.next_addr;
            unique_fd fd(::socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
            if (!fd) {
                c.last_error = errno;
                continue;
            }
            const int one = 1;
            ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&ss), len) == 0) {
                c.upstream = std::move(fd);
                return connected(c);
            }
            if (errno == EINPROGRESS || errno == EINTR) {
                c.upstream = std::move(fd);
                return;  // POLLOUT tells
            }
            c.last_error = errno;
        }
        std::uint8_t code = 0x01;
        switch (c.last_error) {
            case ECONNREFUSED: code = 0x05; break;
            case ENETUNREACH: code = 0x03; break;
            case EHOSTUNREACH: code = 0x04; break;
            case ETIMEDOUT: code = 0x06; break;
            default: break;
        }
        refuse(c, code);
    }

    void connected(conn& c) {
        sockaddr_storage ss{};
        socklen_t len = sizeof ss;
        std::string reply = {'\x05', '\x00', '\x00'};
        if (::getsockname(c.upstream.get(), reinterpret_cast<sockaddr*>(&ss), &len) == 0 && ss.ss_family == AF_INET6) {
            const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
            reply += '\x04';
            reply.append(reinterpret_cast<const char*>(&a->sin6_addr), 16);
            reply.append(reinterpret_cast<const char*>(&a->sin6_port), 2);
        } else {
            const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
            reply += '\x01';
            if (ss.ss_family == AF_INET) {
                reply.append(reinterpret_cast<const char*>(&a->sin_addr), 4);
                reply.append(reinterpret_cast<const char*>(&a->sin_port), 2);
            } else {
                reply.append(6, '\0');
            }
        }
        c.down += reply;
        c.state = phase::relaying;
        c.deadline = clock::time_point::max();
        c.addrs.clear();
        c.addr_lens.clear();
        count([](socket_gate_stats& s) { ++s.relayed; });
        settle(c);
    }

    void expire(conn& c) {
        switch (c.state) {
            case phase::resolving:
            case phase::connecting: return refuse(c, 0x06);
            case phase::greeting:
            case phase::request: count([](socket_gate_stats& s) { ++s.failed; }); return drop(c);
            case phase::closing:
            case phase::relaying: return drop(c);
        }
    }

    decision decide_;
    socket_gate_options opt_;
    unique_fd listen_;
    unique_fd wake_;
    std::uint16_t port_ = 0;
    std::atomic<bool> stopping_{false};
    clock::time_point accept_paused_until_{};  // the loop thread's

    mutable std::mutex smu_;
    socket_gate_stats stats_;

    std::mutex rmu_;  // the resolver's queues
    std::condition_variable rcv_;
    std::deque<lookup> jobs_;
    std::vector<lookup> resolved_;
    bool rstop_ = false;

    std::thread loop_;      // started last, joined by stop()
    std::thread resolver_;
};

}  // namespace agentkit::browser
