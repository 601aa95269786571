// agentkit/net/http_server.hpp — a small HTTP/1.1 server on loopback, over cpp-httplib.
//
// Needs cpp-httplib (an optional dependency: Debian's libcpp-httplib-dev; CMake target
// agentkit::net). Nothing in core, tools, visibility or format includes this header.
//
//   agentkit::net::http_server site;                          // 127.0.0.1, any free port
//   site.route("/", agentkit::net::http_response::html("<h1>Hi</h1>"));
//   site.route("/quote", [](const agentkit::net::http_request& r) { ... return response; });
//   site.route("/events", [](const agentkit::net::http_request&) {
//       return agentkit::net::http_response::streamed("text/event-stream", [](agentkit::net::http_stream& s) {
//           while (s.write("data: tick\n\n")) { ... }           // false once the client is gone
//       });
//   });
//   if (auto up = site.start(); !up) { up.error(): transport.io, with the address }
//   site.url("/quote");                                       // "http://127.0.0.1:40123/quote"
//
// Routes match the path exactly (no patterns); an unknown path answers 404, a known path with
// another method 405. Handlers run on the server's connection threads; a handler that throws
// answers 500 and never takes the server down. Binds to 127.0.0.1 unless told otherwise.
//
// Bounds (http_server_options): a body larger than max_body_bytes is refused with 413 before it
// is read; a request (line, headers and body) must arrive within request_timeout, and each read
// or write waits at most read_timeout / write_timeout (a slow sender or a client that stops
// reading loses its connection, nobody else notices); an idle keep-alive connection is closed
// after keep_alive_timeout. Connections are served by at most `threads` threads, one
// connection per thread while it lasts (streams included); up to `max_queued` more wait for a
// thread, and beyond that a new connection is answered 503 at once and closed.
//
// Why cpp-httplib: it is the HTTP library Debian packages (libcpp-httplib-dev), small and
// well kept. Its model is a thread per connection; this server bounds the threads and queue and
// runs its own connection loop (poll-based keep-alive that wakes at once on stop, whole-request
// deadlines, a view of the client's socket for streamed responses) over the library's request
// parser and router. The trade-off: an open stream or a slow client holds a thread, so
// `threads` caps concurrent connections — size it for the number of clients.
#pragma once

#include <agentkit/core/result.hpp>
#include <agentkit/core/error.hpp>

#include <httplib.h>

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
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace agentkit::net {

/// One request, as a handler sees it.
struct http_request {
    std::string method; ///< "GET", "POST", ... as sent
    std::string path;   ///< without the query
    std::string query;  ///< the raw query string, without '?' ("" when none)
    std::string body;   ///< the whole request body (at most max_body_bytes)
    std::multimap<std::string, std::string> headers;  ///< names as sent
    std::string remote_addr;  ///< the client's numeric IP address
    /// True once the client closed its connection (or the server stops): work for it can end.
    std::function<bool()> client_gone = [] { return false; };

    /// A header's value (case-insensitive name), "" when absent.
    [[nodiscard]] std::string header(std::string_view name) const {
        for (const auto& [k, v] : headers)
            if (k.size() == name.size() &&
                std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) { return (a | 0x20) == (b | 0x20); }))
                return v;
        return {};
    }
    /// True when the header is present (case-insensitive name), even with an empty value.
    [[nodiscard]] bool has_header(std::string_view name) const {
        for (const auto& [k, v] : headers)
            if (k.size() == name.size() &&
                std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) { return (a | 0x20) == (b | 0x20); }))
                return true;
        return false;
    }
};

/// Where a streamed response body goes.
class http_stream {
public:
    /// Send `data` at once (one chunk). False when the client is gone, a write timed out, or
    /// the server stops: the producer should return.
    bool write(std::string_view data) {
        if (!ok_ || gone()) return ok_ = false;
        if (data.empty()) return true;
        ok_ = write_(data);
        return ok_;
    }
    /// True when the client closed the connection or the server stops.
    [[nodiscard]] bool gone() const { return gone_(); }

    /// A stream over `w` (sends one chunk, false on failure) and `g` (true once the client is gone); the server makes these.
    http_stream(std::function<bool(std::string_view)> w, std::function<bool()> g) : write_(std::move(w)), gone_(std::move(g)) {}

private:
    std::function<bool(std::string_view)> write_;
    std::function<bool()> gone_;
    bool ok_ = true;
};

/// One response.
struct http_response {
    int status = 200;                                          ///< the HTTP status
    std::string content_type = "text/plain; charset=utf-8";    ///< the Content-Type header
    std::string body;                                          ///< the body (unless `stream` is set)
    std::vector<std::pair<std::string, std::string>> headers;  ///< more headers, sent as given
    /// When set, the body is produced by this function after the headers are sent (chunked),
    /// on the connection's thread; `body` is ignored.
    std::function<void(http_stream&)> stream;
    /// When set, the connection is handed over once the status line and `headers` are sent
    /// (an HTTP/1.1 upgrade: `status` is 101, see net/websocket.hpp): the function owns the
    /// socket `fd` until it returns, on the connection's thread; the connection then closes.
    /// `stop_fd` turns readable (poll it beside `fd`) when the server stops. `body`,
    /// `content_type` and `stream` are ignored.
    std::function<void(int fd, int stop_fd)> takeover;

    /// A 200 response of HTML (text/html; charset=utf-8).
    [[nodiscard]] static http_response html(std::string body) {
        http_response r;
        r.content_type = "text/html; charset=utf-8";
        r.body = std::move(body);
        return r;
    }
    /// A response of plain text (text/plain; charset=utf-8) with this status.
    [[nodiscard]] static http_response text(std::string body, int status = 200) {
        http_response r;
        r.status = status;
        r.body = std::move(body);
        return r;
    }
    /// A response of JSON text (application/json), sent as given, with this status.
    [[nodiscard]] static http_response json_text(std::string body, int status = 200) {
        http_response r;
        r.status = status;
        r.content_type = "application/json";
        r.body = std::move(body);
        return r;
    }
    /// A chunked response of this content type whose body `producer` writes to an http_stream.
    [[nodiscard]] static http_response streamed(std::string content_type, std::function<void(http_stream&)> producer, int status = 200) {
        http_response r;
        r.status = status;
        r.content_type = std::move(content_type);
        r.stream = std::move(producer);
        return r;
    }
};

/// A route's handler: the response to one request (run on a connection thread; throwing answers 500).
using http_handler = std::function<http_response(const http_request&)>;

/// How an http_server binds, and its threads, bounds and timeouts.
struct http_server_options {
    std::string host = "127.0.0.1";    ///< the address to bind (loopback unless told otherwise)
    int port = 0;                      ///< 0: any free port
    std::size_t max_body_bytes = 1U << 20U;  ///< a larger request body is refused with 413 before it is read
    std::size_t threads = 8;           ///< connections served at once (one thread each, started on demand)
    std::size_t max_queued = 0;        ///< connections waiting for a thread before new ones get 503 (0: as many as threads)
    std::chrono::seconds read_timeout{10};        ///< the longest wait for one read from the client
    std::chrono::seconds write_timeout{10};       ///< the longest wait for one write to the client
    std::chrono::seconds request_timeout{30};     ///< the whole request (line, headers, body) must arrive within
    std::chrono::seconds keep_alive_timeout{5};   ///< an idle connection is closed after
    std::size_t keep_alive_max = 1000;            ///< requests per connection
    /// The response to requests the library refuses before any handler sees them (413 body
    /// too large, 400 malformed, 414 URI too long, ...): given the status, fill in the body.
    /// Empty: a line of text.
    std::function<void(int status, http_response& out)> error_response;
};

/// What the server has seen (for tests and benches).
struct http_server_stats {
    std::uint64_t connections = 0;  ///< accepted and served
    std::uint64_t refused = 0;      ///< answered 503 because every thread was busy and the queue full
    std::size_t open = 0;           ///< being served now
};

namespace detail {

/// One client connection (its socket), shared by the connection loop and streamed responses.
struct connection {
    std::atomic<int> fd{-1};  ///< -1 once closed
    std::atomic<std::int64_t> deadline_ms{0};  ///< 0: none; else a steady-clock ms the request must arrive by
    const std::atomic<bool>* stopping = nullptr;
    std::atomic<bool> taken{false};  ///< handed over (an upgrade): nothing more is written as HTTP

    [[nodiscard]] bool peer_closed() const {
        const int f = fd.load();
        if (f < 0) return true;
        pollfd p{f, static_cast<short>(POLLIN | POLLRDHUP), 0};
        if (::poll(&p, 1, 0) <= 0) return false;
        return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
    }
    [[nodiscard]] bool gone() const { return (stopping != nullptr && stopping->load()) || peer_closed(); }
};

inline std::int64_t steady_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline void ip_and_port(const sockaddr_storage& a, socklen_t len, std::string& ip, int& port) {
    char host[NI_MAXHOST] = {};
    if (::getnameinfo(reinterpret_cast<const sockaddr*>(&a), len, host, sizeof(host), nullptr, 0, NI_NUMERICHOST) == 0) ip = host;
    if (a.ss_family == AF_INET) port = ntohs(reinterpret_cast<const sockaddr_in*>(&a)->sin_port);
    else if (a.ss_family == AF_INET6) port = ntohs(reinterpret_cast<const sockaddr_in6*>(&a)->sin6_port);
}

/// The connection's byte stream for httplib's request parser: poll-based, with the read and
/// write timeouts and the request deadline.
class conn_stream final : public httplib::Stream {
public:
    conn_stream(std::shared_ptr<connection> c, int read_ms, int write_ms) : c_(std::move(c)), read_ms_(read_ms), write_ms_(write_ms) {}

    bool is_readable() const override { return off_ < size_ || wait(POLLIN, read_ms_); }
    bool is_writable() const override { return wait(POLLOUT, write_ms_); }

    ssize_t read(char* ptr, size_t size) override {
        if (off_ < size_) {
            const std::size_t n = std::min(size, size_ - off_);
            std::memcpy(ptr, buf_.data() + off_, n);
            off_ += n;
            return static_cast<ssize_t>(n);
        }
        if (!wait(POLLIN, read_ms_)) return -1;
        ssize_t n = 0;
        do n = ::recv(c_->fd, buf_.data(), buf_.size(), 0);
        while (n < 0 && errno == EINTR);
        if (n <= 0) return n;
        off_ = 0;
        size_ = static_cast<std::size_t>(n);
        return read(ptr, size);
    }

    ssize_t write(const char* ptr, size_t size) override {
        if (c_->taken.load() || !wait(POLLOUT, write_ms_)) return -1;
        ssize_t n = 0;
        do n = ::send(c_->fd, ptr, size, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        return n;
    }

    void get_remote_ip_and_port(std::string& ip, int& port) const override {
        sockaddr_storage a{};
        socklen_t len = sizeof(a);
        if (::getpeername(c_->fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) ip_and_port(a, len, ip, port);
    }
    void get_local_ip_and_port(std::string& ip, int& port) const override {
        sockaddr_storage a{};
        socklen_t len = sizeof(a);
        if (::getsockname(c_->fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) ip_and_port(a, len, ip, port);
    }
    socket_t socket() const override { return c_->fd; }

    /// Bytes of the next request already read.
    [[nodiscard]] bool buffered() const noexcept { return off_ < size_; }

private:
    /// Wait for `events` up to `ms`, and never past the request deadline.
    bool wait(short events, int ms) const {
        const std::int64_t deadline = c_->deadline_ms.load();
        if (deadline != 0 && events == POLLIN) {
            const std::int64_t left = deadline - steady_ms();
            if (left <= 0) return false;
            ms = static_cast<int>(std::min<std::int64_t>(ms, left));
        }
        pollfd p{c_->fd, events, 0};
        int r = 0;
        do r = ::poll(&p, 1, ms);
        while (r < 0 && errno == EINTR);
        return r > 0 && (p.revents & (events | POLLHUP)) != 0;
    }

    std::shared_ptr<connection> c_;
    int read_ms_, write_ms_;
    std::array<char, 4096> buf_{};
    std::size_t off_ = 0, size_ = 0;
};

inline thread_local bool shed_thread = false;                 // this thread answers 503 and closes
inline thread_local std::shared_ptr<connection> current_connection;  // the connection this thread serves

/// httplib's task queue, bounded: `threads` workers started on demand, `max_queued` waiting
/// connections; past that, connections go to one thread that refuses them with 503.
class bounded_pool final : public httplib::TaskQueue {
public:
    bounded_pool(std::size_t threads, std::size_t max_queued) : max_threads_(std::max<std::size_t>(1, threads)), max_queued_(max_queued) {
        shedder_ = std::thread([this] {
            shed_thread = true;
            std::unique_lock lock(mu_);
            for (;;) {
                cv_.wait(lock, [&] { return stop_ || !shed_.empty(); });
                if (shed_.empty()) return;
                auto fn = std::move(shed_.front());
                shed_.pop_front();
                lock.unlock();
                fn();
                lock.lock();
            }
        });
    }
    bounded_pool(const bounded_pool&) = delete;
    bounded_pool& operator=(const bounded_pool&) = delete;
    ~bounded_pool() override { shutdown(); }

    void enqueue(std::function<void()> fn) override {
        std::lock_guard lock(mu_);
        // Idle workers (some notified but not awake yet) each take one job; the jobs beyond
        // them wait. Counting only "no idle worker" let a second connection wait behind a long
        // first one while the pool could still grow.
        const std::size_t waiting = jobs_.size() >= idle_ ? jobs_.size() - idle_ : 0;
        if (workers_.size() >= max_threads_ && waiting >= max_queued_) {
            shed_.push_back(std::move(fn));
            cv_.notify_all();
            return;
        }
        jobs_.push_back(std::move(fn));
        if (jobs_.size() > idle_ && workers_.size() < max_threads_) workers_.emplace_back([this] { work(); });
        cv_.notify_all();
    }

    void shutdown() override {
        {
            std::lock_guard lock(mu_);
            if (stop_ && workers_.empty() && !shedder_.joinable()) return;
            stop_ = true;
        }
        cv_.notify_all();
        std::vector<std::thread> ws;
        {
            std::lock_guard lock(mu_);
            ws.swap(workers_);
        }
        for (auto& t : ws)
            if (t.joinable()) t.join();
        if (shedder_.joinable()) shedder_.join();
    }

private:
    void work() {
        std::unique_lock lock(mu_);
        for (;;) {
            ++idle_;
            cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
            --idle_;
            if (jobs_.empty()) return;
            auto fn = std::move(jobs_.front());
            jobs_.pop_front();
            lock.unlock();
            fn();
            lock.lock();
        }
    }

    std::size_t max_threads_, max_queued_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> jobs_, shed_;
    std::vector<std::thread> workers_;
    std::thread shedder_;
    std::size_t idle_ = 0;
    bool stop_ = false;
};

}  // namespace detail

class http_server;

namespace detail {
/// httplib's server with agentkit's connection loop.
class httplib_server final : public httplib::Server {
public:
    httplib_server(const http_server_options& o, std::atomic<bool>& stopping, int wake_fd, std::atomic<std::uint64_t>& connections,
                   std::atomic<std::uint64_t>& refused, std::atomic<std::size_t>& open)
        : o_(o), stopping_(stopping), wake_fd_(wake_fd), connections_(connections), refused_(refused), open_(open) {}

private:
    bool process_and_close_socket(socket_t sock) override {
        if (shed_thread || stopping_.load()) {
            if (!stopping_.load()) {
                ++refused_;
                static constexpr std::string_view busy =
                    "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: text/plain\r\n"
                    "Content-Length: 20\r\n\r\nserver busy; retry\r\n";
                (void)!::send(sock, busy.data(), busy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
            }
            ::shutdown(sock, SHUT_RDWR);
            ::close(sock);
            return false;
        }
        ++connections_;
        ++open_;
        auto c = std::make_shared<connection>();
        c->fd = sock;
        c->stopping = &stopping_;
        const int read_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(o_.read_timeout).count());
        const int write_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(o_.write_timeout).count());
        const int idle_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(o_.keep_alive_timeout).count());
        const std::int64_t request_ms = std::chrono::duration_cast<std::chrono::milliseconds>(o_.request_timeout).count();
        conn_stream strm(c, read_ms, write_ms);
        current_connection = c;
        bool ret = false;
        std::size_t count = std::max<std::size_t>(1, o_.keep_alive_max);
        bool first = true;
        while (count > 0 && !stopping_.load()) {
            if (!strm.buffered() && !wait_request(sock, first ? read_ms : idle_ms)) break;
            first = false;
            c->deadline_ms = steady_ms() + request_ms;
            bool closed = false;
            ret = process_request(strm, count == 1 || stopping_.load(), closed, nullptr);
            c->deadline_ms = 0;
            if (!ret || closed || c->taken.load()) break;  // an upgraded connection is over when its owner returns
            --count;
        }
        current_connection.reset();
        c->fd = -1;
        ::shutdown(sock, SHUT_RDWR);
        ::close(sock);
        --open_;
        return ret;
    }

    /// Wait until the next request starts (or the client leaves, or the server stops).
    bool wait_request(int sock, int ms) const {
        std::array<pollfd, 2> p{pollfd{sock, POLLIN, 0}, pollfd{wake_fd_, POLLIN, 0}};
        int r = 0;
        do r = ::poll(p.data(), p.size(), ms);
        while (r < 0 && errno == EINTR);
        if (r <= 0 || stopping_.load() || (p[1].revents & POLLIN) != 0) return false;
        return (p[0].revents & POLLIN) != 0;
    }

    const http_server_options& o_;
    std::atomic<bool>& stopping_;
    int wake_fd_;
    std::atomic<std::uint64_t>& connections_;
    std::atomic<std::uint64_t>& refused_;
    std::atomic<std::size_t>& open_;
};
}  // namespace detail

/// A small HTTP/1.1 server (127.0.0.1 unless told otherwise): exact-path routes to handlers or fixed responses.
class http_server {
public:
    /// A server with these options, not serving yet (start() binds).
    explicit http_server(http_server_options o = {}) : opt_(std::move(o)) {}
    http_server(const http_server&) = delete;
    http_server& operator=(const http_server&) = delete;
    ~http_server() { stop(); }

    ///@{
    /// Answer `path` (any method unless `method` is given) with a handler or a fixed response.
    void route(std::string path, http_handler h, std::string method = {}) {
        std::lock_guard lock(mu_);
        routes_[std::move(path)].push_back(entry{std::move(method), std::move(h)});
    }
    void route(std::string path, http_response fixed, std::string method = {}) {
        route(std::move(path), [fixed = std::move(fixed)](const http_request&) { return fixed; }, std::move(method));
    }
    ///@}

    /// Bind and serve on a thread of its own. Errors: errc::transport_io when the address cannot
    /// be bound (the message names it).
    [[nodiscard]] result<void> start() {
        if (thread_.joinable()) return {};
        stopping_ = false;
        if (wake_[0] < 0 && ::pipe2(wake_.data(), O_CLOEXEC | O_NONBLOCK) != 0)
            return fail(errc::transport_io, "cannot create a pipe: " + std::string(std::strerror(errno)));
        srv_ = std::make_unique<detail::httplib_server>(opt_, stopping_, wake_[0], connections_, refused_, open_);
        const std::size_t threads = opt_.threads == 0 ? 1 : opt_.threads;
        const std::size_t queued = opt_.max_queued == 0 ? threads : opt_.max_queued;
        srv_->new_task_queue = [threads, queued] { return new detail::bounded_pool(threads, queued); };
        srv_->set_payload_max_length(opt_.max_body_bytes);
        srv_->set_read_timeout(opt_.read_timeout);
        srv_->set_write_timeout(opt_.write_timeout);
        srv_->set_keep_alive_timeout(static_cast<time_t>(opt_.keep_alive_timeout.count()));
        srv_->set_keep_alive_max_count(std::max<std::size_t>(1, opt_.keep_alive_max));
        // Headers and body go out in separate writes: without TCP_NODELAY the body waits for the
        // client's delayed ACK of the headers (~40 ms on Linux) on every keep-alive response.
        srv_->set_tcp_nodelay(true);
        auto dispatch = [this](const httplib::Request& req, httplib::Response& res) { serve(req, res); };
        srv_->Get(".*", dispatch);
        srv_->Post(".*", dispatch);
        srv_->Put(".*", dispatch);
        srv_->Delete(".*", dispatch);
        srv_->Patch(".*", dispatch);
        srv_->Options(".*", dispatch);
        srv_->set_error_handler([this](const httplib::Request&, httplib::Response& res) {
            if (!res.body.empty()) return;
            if (opt_.error_response) {
                http_response out;
                out.status = res.status;
                opt_.error_response(res.status, out);
                for (const auto& [k, v] : out.headers) res.set_header(k, v);
                res.set_content(out.body, out.content_type);
            } else if (res.status == 413) {
                res.set_content("request body too large\n", "text/plain");
            }
        });
        // httplib listens with a backlog of 5: a burst of clients connecting at once overflows it
        // and the kernel drops their handshakes (retried after 1, 3, 7 ... s). Listen again
        // with the system's maximum once bound (Linux takes a second listen() as a new backlog).
        auto listening = std::make_shared<std::atomic<int>>(-1);
        srv_->set_socket_options([listening](socket_t sock) {  // (httplib.h: socket_t at global scope)
            httplib::default_socket_options(sock);
            listening->store(static_cast<int>(sock));
        });
        const int port = opt_.port == 0 ? srv_->bind_to_any_port(opt_.host) : (srv_->bind_to_port(opt_.host, opt_.port) ? opt_.port : -1);
        if (port <= 0) {
            srv_.reset();
            return fail(errc::transport_io, "cannot listen on " + opt_.host + ":" + std::to_string(opt_.port),
                        "Choose another port, or 0 for any free port.");
        }
        if (const int fd = listening->load(); fd >= 0) (void)::listen(fd, SOMAXCONN);
        port_ = port;
        auto ended = std::make_shared<std::atomic<bool>>(false);
        thread_ = std::thread([s = srv_.get(), ended] {
            s->listen_after_bind();
            ended->store(true);
        });
        // cpp-httplib's stop() does nothing until its listening loop runs: a stop() right after
        // start() (a program whose next step fails at once) left the thread in accept() for good
        // and stop() waiting for it. Return once the loop runs (or has already ended).
        while (!srv_->is_running() && !ended->load()) std::this_thread::yield();
        return {};
    }

    /// Stop serving (idempotent): idle connections close at once, streamed responses see
    /// their client gone, requests in flight finish first.
    void stop() {
        stopping_ = true;
        if (wake_[1] >= 0) (void)!::write(wake_[1], "x", 1);
        if (srv_) srv_->stop();
        if (thread_.joinable()) thread_.join();
        srv_.reset();
        for (int& fd : wake_)
            if (fd >= 0) {
                ::close(fd);
                fd = -1;
            }
    }

    /// True once stop() began.
    [[nodiscard]] bool stopping() const noexcept { return stopping_.load(); }
    /// The port bound by start() (the one chosen when options().port is 0); 0 before.
    [[nodiscard]] int port() const noexcept { return port_; }
    /// "http://127.0.0.1:PORT" (IPv6 hosts in brackets).
    [[nodiscard]] std::string origin() const {
        const bool v6 = opt_.host.find(':') != std::string::npos;
        return "http://" + (v6 ? "[" + opt_.host + "]" : opt_.host) + ":" + std::to_string(port_);
    }
    /// origin() followed by `path` ("http://127.0.0.1:PORT/quote").
    [[nodiscard]] std::string url(std::string_view path = "/") const { return origin() + std::string(path); }
    /// Requests answered for `path` so far (any method, any status).
    [[nodiscard]] std::size_t hits(std::string_view path) const {
        std::lock_guard lock(mu_);
        auto it = hits_.find(std::string(path));
        return it == hits_.end() ? 0 : it->second;
    }
    /// Connections served, refused with 503 and open now.
    [[nodiscard]] http_server_stats stats() const { return {connections_.load(), refused_.load(), open_.load()}; }
    /// The options the server was made with.
    [[nodiscard]] const http_server_options& options() const noexcept { return opt_; }

private:
    struct entry {
        std::string method;
        http_handler handler;
    };

    void serve(const httplib::Request& req, httplib::Response& res) {
        std::shared_ptr<detail::connection> conn = detail::current_connection;
        if (conn) conn->deadline_ms = 0;  // the request is in: no deadline while it is served
        http_request r;
        r.method = req.method;
        r.path = req.path;
        if (const auto q = req.target.find('?'); q != std::string::npos) r.query = req.target.substr(q + 1);
        r.body = req.body;
        for (const auto& [k, v] : req.headers)
            if (k != "REMOTE_ADDR" && k != "REMOTE_PORT" && k != "LOCAL_ADDR" && k != "LOCAL_PORT") r.headers.emplace(k, v);
        r.remote_addr = req.remote_addr;
        if (conn) r.client_gone = [conn] { return conn->gone(); };
        else r.client_gone = [this] { return stopping_.load(); };
        http_handler h;
        bool known = false;
        {
            std::lock_guard lock(mu_);
            ++hits_[r.path];
            if (auto it = routes_.find(r.path); it != routes_.end()) {
                known = true;
                for (const auto& e : it->second)
                    if (e.method.empty() || e.method == r.method) h = e.handler;
            }
        }
        http_response out;
        if (!h) {
            out = http_response::text(known ? "method not allowed\n" : "not found\n", known ? 405 : 404);
        } else {
            try {
                out = h(r);
            } catch (...) {
                out = http_response::text("internal error\n", 500);
            }
        }
        if (out.takeover && conn) {
            take_over(*conn, out);
            res.status = out.status;
            return;
        }
        res.status = out.status;
        for (const auto& [k, v] : out.headers) res.set_header(k, v);
        if (!out.stream) {
            res.set_content(out.body, out.content_type);
            return;
        }
        auto producer = std::make_shared<std::function<void(http_stream&)>>(std::move(out.stream));
        res.set_chunked_content_provider(out.content_type, [producer, conn, this](std::size_t, httplib::DataSink& sink) {
            http_stream s([&sink](std::string_view d) { return sink.write(d.data(), d.size()); },
                          [conn, this] { return conn ? conn->gone() : stopping_.load(); });
            try {
                (*producer)(s);
            } catch (...) {
            }
            sink.done();  // always: without it the library calls the provider again
            return true;
        });
    }

    /// Send the head of an upgrade response, then hand the socket to `out.takeover` until it
    /// returns; the connection writes nothing more as HTTP and closes.
    void take_over(detail::connection& c, const http_response& out) {
        c.taken = true;
        const int fd = c.fd.load();
        std::string head = "HTTP/1.1 " + std::to_string(out.status) + (out.status == 101 ? " Switching Protocols" : " OK") + "\r\n";
        for (const auto& [k, v] : out.headers) head += k + ": " + v + "\r\n";
        head += "\r\n";
        std::size_t sent = 0;
        while (sent < head.size()) {
            pollfd p{fd, POLLOUT, 0};
            if (::poll(&p, 1, static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(opt_.write_timeout).count())) <= 0) return;
            const ssize_t n = ::send(fd, head.data() + sent, head.size() - sent, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;
            sent += static_cast<std::size_t>(n);
        }
        try {
            out.takeover(fd, wake_[0]);
        } catch (...) {
        }
    }

    http_server_options opt_;
    std::atomic<bool> stopping_{false};
    std::array<int, 2> wake_{-1, -1};
    std::atomic<std::uint64_t> connections_{0};
    std::atomic<std::uint64_t> refused_{0};
    std::atomic<std::size_t> open_{0};
    std::unique_ptr<detail::httplib_server> srv_;
    std::thread thread_;
    int port_ = 0;
    mutable std::mutex mu_;
    std::map<std::string, std::vector<entry>, std::less<>> routes_;
    std::map<std::string, std::size_t, std::less<>> hits_;
};

}  // namespace agentkit::net
