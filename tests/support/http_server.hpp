// tests/support/http_server.hpp — a small threaded HTTP/1.1 server for tests.
//
// Binds 127.0.0.1 on an ephemeral port and serves registered routes: fixed responses,
// handler callbacks, redirects, and responses held back by a `gate` the test opens (to
// simulate slow servers without sleeping), and 101 upgrades handed to a callback (a WebSocket
// echo, say). One thread accepts; each connection gets its
// own thread. Connections close after one response unless keep-alive is enabled.
// stop() (and the destructor) releases held responses, closes every socket and joins
// every thread. Self-contained: POSIX and the standard library only.
//
//   agentkit::test::http_server server;
//   server.route("/", agentkit::test::http_response::html("<title>Hi</title>"));
//   server.route("/api", [](const agentkit::test::http_request& r) {
//       return agentkit::test::http_response::json("{\"q\":\"" + r.query + "\"}");
//   });
//   server.redirect("/old", "/");
//   auto gate = server.make_gate();
//   server.route("/slow", agentkit::test::http_response::text("late").held_by(gate));
//   // ... the browser requests /slow ...
//   gate->wait_arrived(std::chrono::seconds(10));   // the request is being held
//   gate->open();                                    // now it is answered
//   std::string url = server.url("/");               // http://127.0.0.1:<port>/
#pragma once

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace agentkit::test {

/// A request as the server saw it.
struct http_request {
    std::string method;
    std::string target;  ///< path and query as sent
    std::string path;    ///< without the query
    std::string query;   ///< after '?', empty when none
    std::string version;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;

    [[nodiscard]] std::optional<std::string> header(std::string_view name) const {
        for (const auto& [k, v] : headers) {
            if (k.size() != name.size()) continue;
            bool eq = true;
            for (std::size_t i = 0; i < k.size() && eq; ++i)
                eq = std::tolower(static_cast<unsigned char>(k[i])) == std::tolower(static_cast<unsigned char>(name[i]));
            if (eq) return v;
        }
        return std::nullopt;
    }
};

/// A condition the test controls: responses held by it are sent once it is opened.
class gate {
public:
    /// Release every held response (now and in the future).
    void open() {
        std::lock_guard lock(mu_);
        open_ = true;
        cv_.notify_all();
    }
    [[nodiscard]] bool is_open() const {
        std::lock_guard lock(mu_);
        return open_;
    }
    /// Requests that reached this gate so far.
    [[nodiscard]] std::size_t arrivals() const {
        std::lock_guard lock(mu_);
        return arrivals_;
    }
    /// Wait (bounded) until at least `count` requests reached the gate.
    [[nodiscard]] bool wait_arrived(std::chrono::milliseconds timeout, std::size_t count = 1) const {
        std::unique_lock lock(mu_);
        return cv_.wait_for(lock, timeout, [&] { return arrivals_ >= count; });
    }

    // Used by the server: count an arrival, then wait until open or aborted (server stop).
    // Returns false when aborted.
    bool pass() {
        std::unique_lock lock(mu_);
        ++arrivals_;
        cv_.notify_all();
        cv_.wait(lock, [&] { return open_ || aborted_; });
        return open_;
    }
    void abort() {
        std::lock_guard lock(mu_);
        aborted_ = true;
        cv_.notify_all();
    }

private:
    mutable std::mutex mu_;
    mutable std::condition_variable cv_;
    bool open_ = false;
    bool aborted_ = false;
    std::size_t arrivals_ = 0;
};

/// A whole HTML document with `title` and `body` (UTF-8), as the browser tests serve them.
inline std::string page(const std::string& title, const std::string& body) {
    return "<!doctype html><html><head><meta charset=utf-8><title>" + title + "</title></head><body>" + body + "</body></html>";
}

/// A response to send.
struct http_response {
    int status = 200;
    std::string content_type = "text/html; charset=utf-8";
    std::vector<std::pair<std::string, std::string>> headers;  ///< extra headers
    std::string body;
    std::shared_ptr<gate> before_headers;  ///< hold the whole response until open
    std::shared_ptr<gate> before_body;     ///< send the headers, hold the body until open
    /// With status 101: send the status line and `headers` only, then hand the connection to
    /// this function on the connection's thread: (socket, stop descriptor — readable once the
    /// server stops —, bytes already read past the request). It returns when it is done; the
    /// server then closes the socket.
    std::function<void(int fd, int stop_fd, std::string& buffered)> upgrade;

    [[nodiscard]] static http_response html(std::string body) {
        http_response r;
        r.body = std::move(body);
        return r;
    }
    [[nodiscard]] static http_response text(std::string body) {
        http_response r;
        r.content_type = "text/plain; charset=utf-8";
        r.body = std::move(body);
        return r;
    }
    [[nodiscard]] static http_response json(std::string body) {
        http_response r;
        r.content_type = "application/json";
        r.body = std::move(body);
        return r;
    }
    [[nodiscard]] static http_response redirect_to(std::string location, int status = 302) {
        http_response r;
        r.status = status;
        r.content_type = "text/plain; charset=utf-8";
        r.headers.emplace_back("Location", std::move(location));
        r.body = "redirect";
        return r;
    }
    [[nodiscard]] static http_response not_found() {
        http_response r;
        r.status = 404;
        r.content_type = "text/plain; charset=utf-8";
        r.body = "not found";
        return r;
    }
    /// 101 Switching Protocols with `headers`, the connection then handed to `take_over`.
    [[nodiscard]] static http_response switching_protocols(std::vector<std::pair<std::string, std::string>> headers,
                                                           std::function<void(int, int, std::string&)> take_over) {
        http_response r;
        r.status = 101;
        r.headers = std::move(headers);
        r.upgrade = std::move(take_over);
        return r;
    }
    /// Add a header (chainable).
    http_response&& with_header(std::string name, std::string value) && {
        headers.emplace_back(std::move(name), std::move(value));
        return std::move(*this);
    }
    /// Hold the whole response until `g` opens (chainable).
    http_response&& held_by(std::shared_ptr<gate> g) && {
        before_headers = std::move(g);
        return std::move(*this);
    }
    /// Send the headers now and the body once `g` opens (chainable).
    http_response&& body_held_by(std::shared_ptr<gate> g) && {
        before_body = std::move(g);
        return std::move(*this);
    }
};

using http_handler = std::function<http_response(const http_request&)>;

[[nodiscard]] inline std::string_view http_reason(int status) {
    switch (status) {
        case 101: return "Switching Protocols";
        case 200: return "OK";
        case 201: return "Created";
        case 204: return "No Content";
        case 301: return "Moved Permanently";
        case 302: return "Found";
        case 303: return "See Other";
        case 304: return "Not Modified";
        case 307: return "Temporary Redirect";
        case 308: return "Permanent Redirect";
        case 400: return "Bad Request";
        case 401: return "Unauthorized";
        case 403: return "Forbidden";
        case 404: return "Not Found";
        case 500: return "Internal Server Error";
        case 503: return "Service Unavailable";
        default: return "Status";
    }
}

/// The server. Construction binds and starts accepting; throws std::runtime_error when it
/// cannot bind (a test-setup failure, not a condition tests handle).
class http_server {
public:
    struct options {
        bool keep_alive = false;  ///< serve several requests per connection when asked
    };

    http_server() : http_server(options{}) {}
    explicit http_server(options o) : opts_(o) {
        wake_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        listen_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (wake_ < 0 || listen_ < 0) throw std::runtime_error("http_server: cannot create sockets");
        const int one = 1;
        ::setsockopt(listen_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = 0;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(listen_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_, 128) != 0) {
            const int e = errno;
            ::close(listen_);
            ::close(wake_);
            throw std::runtime_error("http_server: cannot listen: " + std::system_category().message(e));
        }
        socklen_t len = sizeof addr;
        ::getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        acceptor_ = std::thread([this] { accept_loop(); });
    }

    http_server(const http_server&) = delete;
    http_server& operator=(const http_server&) = delete;
    ~http_server() { stop(); }

    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    /// "http://127.0.0.1:<port>"
    [[nodiscard]] std::string origin() const { return "http://127.0.0.1:" + std::to_string(port_); }
    /// origin() + path (path should start with '/').
    [[nodiscard]] std::string url(std::string_view path = "/") const { return origin() + std::string(path); }

    /// Serve a fixed response at `path` (exact match, query ignored).
    void route(std::string path, http_response r) {
        std::lock_guard lock(mu_);
        routes_[std::move(path)] = [r = std::move(r)](const http_request&) { return r; };
    }
    /// Serve `path` with a handler (runs on the connection's thread; may block on a gate).
    void route(std::string path, http_handler h) {
        std::lock_guard lock(mu_);
        routes_[std::move(path)] = std::move(h);
    }
    /// Answer `from` with a redirect to `to`.
    void redirect(std::string from, std::string to, int status = 302) {
        route(std::move(from), http_response::redirect_to(std::move(to), status));
    }
    /// Answer every path without a route (default: 404).
    void fallback(http_handler h) {
        std::lock_guard lock(mu_);
        fallback_ = std::move(h);
    }

    /// A new gate owned by this server (released when the server stops).
    [[nodiscard]] std::shared_ptr<gate> make_gate() {
        auto g = std::make_shared<gate>();
        std::lock_guard lock(mu_);
        gates_.push_back(g);
        return g;
    }

    /// Requests served (or being served) for `path`.
    [[nodiscard]] std::size_t hits(std::string_view path) const {
        std::lock_guard lock(mu_);
        return static_cast<std::size_t>(
            std::count_if(log_.begin(), log_.end(), [&](const http_request& r) { return r.path == path; }));
    }
    /// TCP connections accepted so far, whether a request followed or not (a browser's
    /// preconnect opens one and sends nothing).
    [[nodiscard]] std::size_t connections() const noexcept { return connections_.load(); }
    /// Every request so far, in arrival order.
    [[nodiscard]] std::vector<http_request> requests() const {
        std::lock_guard lock(mu_);
        return log_;
    }
    /// Wait (bounded) until `path` was requested at least `count` times.
    [[nodiscard]] bool wait_for_hits(std::string_view path, std::size_t count, std::chrono::milliseconds timeout) const {
        std::unique_lock lock(mu_);
        return hit_cv_.wait_for(lock, timeout, [&] {
            return static_cast<std::size_t>(std::count_if(log_.begin(), log_.end(),
                                                          [&](const http_request& r) { return r.path == path; })) >= count;
        });
    }

    /// Stop accepting, release held responses, close connections, join threads. Idempotent.
    void stop() {
        if (stopped_.exchange(true)) return;
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto n = ::write(wake_, &one, sizeof one);
        std::vector<std::shared_ptr<gate>> gates;
        {
            std::lock_guard lock(mu_);
            gates = gates_;
        }
        for (auto& g : gates) g->abort();
        if (acceptor_.joinable()) acceptor_.join();
        std::list<worker> workers;
        {
            std::lock_guard lock(mu_);
            workers.swap(workers_);
        }
        for (auto& w : workers)
            if (w.thread.joinable()) w.thread.join();
        ::close(listen_);
        ::close(wake_);
    }

private:
    struct worker {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };

    void accept_loop() {
        for (;;) {
            pollfd fds[2] = {{listen_, POLLIN, 0}, {wake_, POLLIN, 0}};
            if (::poll(fds, 2, -1) < 0) {
                if (errno == EINTR) continue;
                return;
            }
            if ((fds[1].revents & POLLIN) != 0) return;
            const int fd = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) continue;
            connections_.fetch_add(1);
            auto done = std::make_shared<std::atomic<bool>>(false);
            std::lock_guard lock(mu_);
            // Reap finished workers so a long test does not accumulate threads.
            for (auto it = workers_.begin(); it != workers_.end();) {
                if (it->done->load()) {
                    it->thread.join();
                    it = workers_.erase(it);
                } else {
                    ++it;
                }
            }
            workers_.push_back(worker{std::thread([this, fd, done] {
                                          serve(fd);
                                          ::close(fd);
                                          done->store(true);
                                      }),
                                      done});
        }
    }

    // Read until `want` bytes are buffered or the header end appears; false on EOF/stop.
    bool fill(int fd, std::string& buf) {
        pollfd fds[2] = {{fd, POLLIN, 0}, {wake_, POLLIN, 0}};
        for (;;) {
            if (::poll(fds, 2, -1) < 0) {
                if (errno == EINTR) continue;
                return false;
            }
            break;
        }
        if ((fds[1].revents & POLLIN) != 0) return false;
        char chunk[16384];
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) return false;
        buf.append(chunk, static_cast<std::size_t>(n));
        return true;
    }

    bool send_all(int fd, std::string_view data) {
        while (!data.empty()) {
            const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
            if (n < 0) {
                if (errno == EINTR) continue;
                return false;
            }
            data.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    }

    void serve(int fd) {
        std::string buf;
        for (;;) {
            std::size_t head_end = 0;
            while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
                if (buf.size() > 65536 || !fill(fd, buf)) return;
            }
            http_request req;
            if (!parse_head(std::string_view(buf).substr(0, head_end), req)) {
                send_all(fd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                return;
            }
            buf.erase(0, head_end + 4);
            std::size_t body_len = 0;
            if (auto cl = req.header("Content-Length")) {
                const auto [p, ec] = std::from_chars(cl->data(), cl->data() + cl->size(), body_len);
                if (ec != std::errc{} || body_len > (std::size_t{64} << 20U)) return;
            }
            while (buf.size() < body_len)
                if (!fill(fd, buf)) return;
            req.body = buf.substr(0, body_len);
            buf.erase(0, body_len);

            http_handler handler;
            {
                std::lock_guard lock(mu_);
                log_.push_back(req);
                if (auto it = routes_.find(req.path); it != routes_.end()) handler = it->second;
                else handler = fallback_;
            }
            hit_cv_.notify_all();
            http_response resp;
            if (!handler) {
                resp = http_response::not_found();
            } else {
                try {
                    resp = handler(req);
                } catch (const std::exception& e) {
                    resp = http_response::text(std::string("handler threw: ") + e.what());
                    resp.status = 500;
                }
            }
            if (resp.before_headers && !resp.before_headers->pass()) return;
            if (resp.status == 101 && resp.upgrade) {
                std::string head = "HTTP/1.1 101 Switching Protocols\r\n";
                for (const auto& [k, v] : resp.headers) head += k + ": " + v + "\r\n";
                head += "\r\n";
                if (!send_all(fd, head)) return;
                resp.upgrade(fd, wake_, buf);
                return;
            }

            const bool keep = opts_.keep_alive && req.version == "HTTP/1.1" &&
                              req.header("Connection").value_or("") != "close";
            std::string head = "HTTP/1.1 " + std::to_string(resp.status) + " " + std::string(http_reason(resp.status)) + "\r\n";
            head += "Content-Type: " + resp.content_type + "\r\n";
            head += "Content-Length: " + std::to_string(resp.body.size()) + "\r\n";
            head += "Cache-Control: no-store\r\n";
            for (const auto& [k, v] : resp.headers) head += k + ": " + v + "\r\n";
            head += keep ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
            const bool head_only = req.method == "HEAD";
            if (resp.before_body) {
                if (!send_all(fd, head)) return;
                if (!resp.before_body->pass()) return;
                if (!head_only && !send_all(fd, resp.body)) return;
            } else {
                if (!head_only) head += resp.body;
                if (!send_all(fd, head)) return;
            }
            if (!keep) {
                ::shutdown(fd, SHUT_WR);
                // Drain until the client closes (bounded by stop), so it never sees a reset.
                char sink[4096];
                pollfd fds[2] = {{fd, POLLIN, 0}, {wake_, POLLIN, 0}};
                while (::poll(fds, 2, 5000) > 0 && (fds[1].revents & POLLIN) == 0 &&
                       ::recv(fd, sink, sizeof sink, 0) > 0) {
                }
                return;
            }
        }
    }

    static bool parse_head(std::string_view head, http_request& req) {
        auto eol = head.find("\r\n");
        const std::string_view line = head.substr(0, eol);
        const auto sp1 = line.find(' ');
        const auto sp2 = line.rfind(' ');
        if (sp1 == std::string_view::npos || sp2 == sp1) return false;
        req.method = std::string(line.substr(0, sp1));
        req.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
        req.version = std::string(line.substr(sp2 + 1));
        const auto q = req.target.find('?');
        req.path = req.target.substr(0, q);
        if (q != std::string::npos) req.query = req.target.substr(q + 1);
        while (eol != std::string_view::npos) {
            head = head.substr(eol + 2);
            eol = head.find("\r\n");
            const std::string_view h = head.substr(0, eol);
            if (h.empty()) continue;
            const auto colon = h.find(':');
            if (colon == std::string_view::npos) return false;
            std::string_view v = h.substr(colon + 1);
            while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
            while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
            req.headers.emplace_back(std::string(h.substr(0, colon)), std::string(v));
        }
        return true;
    }

    options opts_;
    int listen_ = -1;
    int wake_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stopped_{false};
    std::atomic<std::size_t> connections_{0};
    std::thread acceptor_;
    mutable std::mutex mu_;
    mutable std::condition_variable hit_cv_;
    std::map<std::string, http_handler, std::less<>> routes_;
    http_handler fallback_;
    std::vector<std::shared_ptr<gate>> gates_;
    std::vector<http_request> log_;
    std::list<worker> workers_;
};

}  // namespace agentkit::test
