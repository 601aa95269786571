// agentkit/net/http_server.hpp — a small HTTP server on loopback, over cpp-httplib.
//
// Needs cpp-httplib (an optional dependency: Debian's libcpp-httplib-dev; CMake target
// agentkit::net). Nothing in core, tools, visibility or format includes this header.
//
//   agentkit::net::http_server site;                          // 127.0.0.1, any free port
//   site.route("/", agentkit::net::http_response::html("<h1>Hi</h1>"));
//   site.route("/quote", [](const agentkit::net::http_request& r) { ... return response; });
//   if (auto up = site.start(); !up) { up.error(): net.bind, with the address }
//   site.url("/quote");                                       // "http://127.0.0.1:40123/quote"
//
// Routes match the path exactly (no patterns); an unknown path answers 404, a known path with
// another method 405. Handlers run on the server's worker threads; a handler that throws
// answers 500 and never takes the server down. Bodies are bounded (max_body_bytes: 413).
// Binds to 127.0.0.1 unless told otherwise.
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/result.hpp>

#include <httplib.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace agentkit::net {

/// One request, as a handler sees it.
struct http_request {
    std::string method;
    std::string path;   ///< without the query
    std::string query;  ///< the raw query string, without '?' ("" when none)
    std::string body;
    std::multimap<std::string, std::string> headers;  ///< names as sent
    std::string remote_addr;

    /// A header's value (case-insensitive name), "" when absent.
    [[nodiscard]] std::string header(std::string_view name) const {
        for (const auto& [k, v] : headers)
            if (k.size() == name.size() &&
                std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) { return (a | 0x20) == (b | 0x20); }))
                return v;
        return {};
    }
};

/// One response.
struct http_response {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;

    [[nodiscard]] static http_response html(std::string body) {
        http_response r;
        r.content_type = "text/html; charset=utf-8";
        r.body = std::move(body);
        return r;
    }
    [[nodiscard]] static http_response text(std::string body, int status = 200) {
        http_response r;
        r.status = status;
        r.body = std::move(body);
        return r;
    }
    [[nodiscard]] static http_response json_text(std::string body, int status = 200) {
        http_response r;
        r.status = status;
        r.content_type = "application/json";
        r.body = std::move(body);
        return r;
    }
};

using http_handler = std::function<http_response(const http_request&)>;

struct http_server_options {
    std::string host = "127.0.0.1";    ///< the address to bind (loopback unless told otherwise)
    int port = 0;                      ///< 0: any free port
    std::size_t max_body_bytes = 1U << 20U;
    std::size_t threads = 8;           ///< worker threads (one per connection being served)
    std::chrono::seconds read_timeout{10};
    std::chrono::seconds write_timeout{10};
};

class http_server {
public:
    explicit http_server(http_server_options o = {}) : opt_(std::move(o)) {}
    http_server(const http_server&) = delete;
    http_server& operator=(const http_server&) = delete;
    ~http_server() { stop(); }

    /// Answer `path` (any method unless `method` is given) with a handler or a fixed response.
    void route(std::string path, http_handler h, std::string method = {}) {
        std::lock_guard lock(mu_);
        routes_[std::move(path)].push_back(entry{std::move(method), std::move(h)});
    }
    void route(std::string path, http_response fixed, std::string method = {}) {
        route(std::move(path), [fixed = std::move(fixed)](const http_request&) { return fixed; }, std::move(method));
    }

    /// Bind and serve on a thread of its own. Errors: errc::transport_io when the address cannot
    /// be bound (the message names it).
    [[nodiscard]] result<void> start() {
        if (thread_.joinable()) return {};
        srv_ = std::make_unique<httplib::Server>();
        const std::size_t threads = opt_.threads == 0 ? 1 : opt_.threads;
        srv_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
        srv_->set_payload_max_length(opt_.max_body_bytes);
        srv_->set_read_timeout(opt_.read_timeout);
        srv_->set_write_timeout(opt_.write_timeout);
        auto dispatch = [this](const httplib::Request& req, httplib::Response& res) { serve(req, res); };
        srv_->Get(".*", dispatch);
        srv_->Post(".*", dispatch);
        srv_->Put(".*", dispatch);
        srv_->Delete(".*", dispatch);
        srv_->Patch(".*", dispatch);
        srv_->Options(".*", dispatch);
        srv_->set_error_handler([](const httplib::Request&, httplib::Response& res) {
            if (res.status == 413 && res.body.empty()) res.set_content("request body too large\n", "text/plain");
        });
        const int port = opt_.port == 0 ? srv_->bind_to_any_port(opt_.host) : (srv_->bind_to_port(opt_.host, opt_.port) ? opt_.port : -1);
        if (port <= 0) {
            srv_.reset();
            return fail(errc::transport_io, "cannot listen on " + opt_.host + ":" + std::to_string(opt_.port),
                        "Choose another port, or 0 for any free port.");
        }
        port_ = port;
        thread_ = std::thread([s = srv_.get()] { s->listen_after_bind(); });
        return {};
    }

    /// Stop serving (idempotent); requests in flight finish first.
    void stop() {
        if (srv_) srv_->stop();
        if (thread_.joinable()) thread_.join();
        srv_.reset();
    }

    [[nodiscard]] int port() const noexcept { return port_; }
    /// "http://127.0.0.1:PORT" (IPv6 hosts in brackets).
    [[nodiscard]] std::string origin() const {
        const bool v6 = opt_.host.find(':') != std::string::npos;
        return "http://" + (v6 ? "[" + opt_.host + "]" : opt_.host) + ":" + std::to_string(port_);
    }
    [[nodiscard]] std::string url(std::string_view path = "/") const { return origin() + std::string(path); }
    /// Requests answered for `path` so far (any method, any status).
    [[nodiscard]] std::size_t hits(std::string_view path) const {
        std::lock_guard lock(mu_);
        auto it = hits_.find(std::string(path));
        return it == hits_.end() ? 0 : it->second;
    }

private:
    struct entry {
        std::string method;
        http_handler handler;
    };

    void serve(const httplib::Request& req, httplib::Response& res) {
        http_request r;
        r.method = req.method;
        r.path = req.path;
        if (const auto q = req.target.find('?'); q != std::string::npos) r.query = req.target.substr(q + 1);
        r.body = req.body;
        for (const auto& [k, v] : req.headers) r.headers.emplace(k, v);
        r.remote_addr = req.remote_addr;
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
        res.status = out.status;
        for (const auto& [k, v] : out.headers) res.set_header(k, v);
        res.set_content(out.body, out.content_type);
    }

    http_server_options opt_;
    std::unique_ptr<httplib::Server> srv_;
    std::thread thread_;
    int port_ = 0;
    mutable std::mutex mu_;
    std::map<std::string, std::vector<entry>, std::less<>> routes_;
    std::map<std::string, std::size_t, std::less<>> hits_;
};

}  // namespace agentkit::net
