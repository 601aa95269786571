// agentkit/net/http_client.hpp — an HTTP(S) client over libcurl: one request in, its status,
// headers and body out, the body either collected or streamed to a callback as it arrives.
//
// Needs libcurl (an optional dependency: Debian's libcurl4-openssl-dev; CMake target
// agentkit::curl). The request and response types, the Retry-After rule and redact_url() are in
// core/http.hpp (no libcurl): code that only speaks HTTP through a client (the search backends)
// needs that header alone, and http_client satisfies its `http_client_like` concept. Nothing in core, tools, visibility or format includes this header. The model
// client (session/model_client.hpp) is built on it; so can be anything else that speaks HTTP to a
// service (an MCP client, a search backend).
//
//   agentkit::net::http_client http;
//   agentkit::net::client_request rq;
//   rq.method = "POST";
//   rq.url = "https://api.example.com/v1/things";
//   rq.headers = {{"content-type", "application/json"}};
//   rq.body = R"({"q":1})";
//   rq.timeout = std::chrono::seconds(30);
//   auto r = http.perform(rq);                    // result<client_response>
//   if (r && r->ok()) use(r->body); else if (r) r->status, r->header("retry-after"); else r.error()
//
//   // streamed: each piece of the body as it arrives (on the calling thread)
//   auto s = http.perform(rq, [](const agentkit::net::client_response& head, std::string_view piece) {
//       return consume(head.status, piece);      // false stops the transfer
//   });
//
// Any status is a response (a 404 is not an error here: the caller reads the status); errors
// are the transport's, structured: `request.invalid` (a URL that is not http(s), a header with
// a line break), `transport.io` (cannot connect, TLS, a connection that broke, a body larger
// than max_response_bytes), `timeout` (connect_timeout, timeout or stall_timeout ran out),
// `cancelled` (cancel(), the stop token, or the body callback returning false; details.by says
// which). Error messages name the method and the URL without its query and credentials, never
// a header: keys sent in headers (Authorization, x-api-key) never reach a message or a log.
//
// Cancellation is prompt: cancel() (any thread) or the stop token wakes the transfer's poll
// at once, whatever the network is doing. perform() may be called from several threads at
// once; each transfer uses its own curl handles, and finished handles are kept for the next
// request so that its connection (and TLS session) is reused. libcurl is initialised once per
// process, on first use (curl_global_init, thread-safe through a function-local static).
#pragma once

#include <agentkit/version.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/http.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/core/url.hpp>

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if LIBCURL_VERSION_NUM < 0x074400
#error "agentkit/net/http_client.hpp needs libcurl 7.68 or newer (curl_multi_poll, curl_multi_wakeup)"
#endif

/// HTTP: a client over libcurl (http_client), a loopback server over cpp-httplib (http_server), a Server-Sent Events reader.
namespace agentkit::net {

namespace detail {

/// libcurl initialised once per process (thread-safe: a function-local static).
[[nodiscard]] inline bool curl_ready() noexcept {
    static const bool ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    return ok;
}

/// A token character of RFC 9110 (header names).
[[nodiscard]] constexpr bool header_name_char(char c) noexcept {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

/// One transfer's state, shared with libcurl's callbacks.
struct transfer {
    client_response resp;
    const body_sink* sink = nullptr;
    const head_sink* on_head = nullptr;
    bool follows_redirects = false;
    std::size_t max_bytes = 0;
    bool sink_stopped = false;
    bool sink_threw = false;
    bool too_large = false;
};

inline std::size_t on_curl_header(char* data, std::size_t size, std::size_t n, void* user) noexcept {
    const std::size_t len = size * n;
    auto* t = static_cast<transfer*>(user);
    try {
        std::string_view h(data, len);
        while (!h.empty() && (h.back() == '\r' || h.back() == '\n')) h.remove_suffix(1);
        if (h.empty()) {  // the end of a header block: the final one when not a 1xx or a followed redirect
            const int st = t->resp.status;
            const bool followed = t->follows_redirects && st >= 300 && st < 400 && !t->resp.header("location").empty();
            if (t->on_head != nullptr && *t->on_head && st >= 200 && !followed) {
                try {
                    (*t->on_head)(t->resp);
                } catch (...) {  // documented: ignored
                }
            }
            return len;
        }
        if (h.substr(0, 5) == "HTTP/") {  // a new response (after a 1xx or a redirect): start over
            t->resp.headers.clear();
            t->resp.status = 0;
            const std::size_t sp = h.find(' ');
            if (sp != std::string_view::npos && sp + 4 <= h.size()) {
                int code = 0;
                for (std::size_t i = sp + 1; i < sp + 4; ++i) {
                    if (h[i] < '0' || h[i] > '9') return len;
                    code = code * 10 + (h[i] - '0');
                }
                t->resp.status = code;
            }
            return len;
        }
        const std::size_t colon = h.find(':');
        if (colon == std::string_view::npos || colon == 0) return len;
        std::string_view v = h.substr(colon + 1);
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
        while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
        t->resp.headers.emplace_back(ascii_lower(h.substr(0, colon)), std::string(v));
    } catch (...) {
        return 0;  // out of memory: stop the transfer
    }
    return len;
}

inline std::size_t on_curl_body(char* data, std::size_t size, std::size_t n, void* user) noexcept {
    const std::size_t len = size * n;
    auto* t = static_cast<transfer*>(user);
    t->resp.body_bytes += len;
    if (t->sink != nullptr && *t->sink) {
        try {
            if (!(*t->sink)(t->resp, std::string_view(data, len))) {
                t->sink_stopped = true;
                return 0;
            }
        } catch (...) {
            t->sink_threw = true;
            return 0;
        }
        return len;
    }
    if (t->resp.body.size() + len > t->max_bytes) {
        t->too_large = true;
        return 0;
    }
    try {
        t->resp.body.append(data, len);
    } catch (...) {
        t->too_large = true;
        return 0;
    }
    return len;
}

}  // namespace detail

/// The client. Thread-safe; keep one per process or per service (it pools connections).
class http_client {
public:
    http_client() = default;
    http_client(const http_client&) = delete;
    http_client& operator=(const http_client&) = delete;
    ~http_client() {
        std::lock_guard lock(mu_);
        for (auto& h : idle_) free_handle(h);
        idle_.clear();
    }

    /// True when libcurl could be initialised (perform() fails with `transport.io` otherwise).
    [[nodiscard]] static bool available() noexcept { return detail::curl_ready(); }

    /// Send `rq` and wait for the whole response. With a `sink`, the body goes to it piece by
    /// piece instead of into client_response::body. `stop`: requesting it cancels this request.
    /// `on_head`: told when the final response's headers have arrived.
    [[nodiscard]] result<client_response> perform(const client_request& rq, const body_sink& sink = {},
                                                  std::stop_token stop = {}, const head_sink& on_head = {}) {
        const std::string shown = redact_url(rq.url);
        const std::string what = (rq.method.empty() ? std::string("GET") : rq.method) + " " + shown;
        if (auto bad = check(rq, shown)) return fail(std::move(*bad));
        if (!detail::curl_ready())
            return fail(errc::transport_io, what + ": libcurl could not be initialised", "Check the libcurl installation.");
        if (stop.stop_requested())
            return fail(errc::cancelled, what + ": cancelled before it was sent", {}, json{{"url", shown}, {"by", "stop_token"}});

        handle h = acquire();
        if (h.easy == nullptr || h.multi == nullptr) {
            free_handle(h);
            return fail(errc::transport_io, what + ": curl_easy_init failed", "Out of memory or a broken libcurl.");
        }
        detail::transfer t;
        t.sink = sink ? &sink : nullptr;
        t.on_head = on_head ? &on_head : nullptr;
        t.follows_redirects = rq.max_redirects > 0;
        t.max_bytes = rq.max_response_bytes;
        char errbuf[CURL_ERROR_SIZE] = {0};
        curl_slist* headers = nullptr;
        bool ok = true;
        for (const auto& [k, v] : rq.headers) {
            const std::string line = v.empty() ? k + ";" : k + ": " + v;  // "name;" sends an empty value
            curl_slist* next = curl_slist_append(headers, line.c_str());
            if (next == nullptr) {
                ok = false;
                break;
            }
            headers = next;
        }
        if (ok) {
            // no "Expect: 100-continue" round trip before a large body
            if (curl_slist* next = curl_slist_append(headers, "Expect:")) headers = next;
            else ok = false;
        }
        if (!ok) {
            curl_slist_free_all(headers);
            release(h, false);
            return fail(errc::transport_io, what + ": out of memory building the headers");
        }
        CURL* e = h.easy;
        curl_easy_reset(e);
        curl_easy_setopt(e, CURLOPT_URL, rq.url.c_str());
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(e, CURLOPT_USERAGENT, (std::string("agentkit/") + version.string).c_str());
        const std::string method = rq.method.empty() ? std::string("GET") : rq.method;
        if (method == "GET" && rq.body.empty()) {
            curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        } else if (method == "HEAD") {
            curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
        } else {
            if (method != "POST") curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method.c_str());
            if (method == "POST" || !rq.body.empty()) {
                curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(rq.body.size()));
                curl_easy_setopt(e, CURLOPT_POSTFIELDS, rq.body.c_str());
            }
        }
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &detail::on_curl_body);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &detail::on_curl_header);
        curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(rq.timeout.count()));
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(rq.connect_timeout.count()));
        if (rq.stall_timeout.count() > 0) {
            curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
            curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, static_cast<long>(rq.stall_timeout.count()));
        }
        curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500  // 7.85: the string forms
        curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
        curl_easy_setopt(e, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
        curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
        if (rq.max_redirects > 0) {
            curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
            curl_easy_setopt(e, CURLOPT_MAXREDIRS, rq.max_redirects);
        }

        in_flight f;
        f.multi = h.multi;
        {
            std::lock_guard lock(mu_);
            flights_.push_back(&f);
        }
        CURLcode rc = CURLE_OK;
        bool multi_failed = false;
        {
            std::stop_callback on_stop(stop, [&f] {
                f.cancelled.store(true);
                f.by_stop_token.store(true);
                curl_multi_wakeup(f.multi);
            });
            if (curl_multi_add_handle(h.multi, e) != CURLM_OK) {
                multi_failed = true;
            } else {
                int running = 1;
                while (running > 0 && !f.cancelled.load()) {
                    if (curl_multi_perform(h.multi, &running) != CURLM_OK) {
                        multi_failed = true;
                        break;
                    }
                    if (running == 0 || f.cancelled.load()) break;
                    if (curl_multi_poll(h.multi, nullptr, 0, 1000, nullptr) != CURLM_OK) {
                        multi_failed = true;
                        break;
                    }
                }
                int left = 0;
                while (CURLMsg* m = curl_multi_info_read(h.multi, &left))
                    if (m->msg == CURLMSG_DONE && m->easy_handle == e) rc = m->data.result;
                curl_multi_remove_handle(h.multi, e);
            }
        }
        {
            std::lock_guard lock(mu_);
            flights_.remove(&f);
        }
        curl_off_t connect_us = 0;
        curl_easy_getinfo(e, CURLINFO_CONNECT_TIME_T, &connect_us);
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, nullptr);
        curl_slist_free_all(headers);
        const bool cancelled = f.cancelled.load();
        const bool clean = !cancelled && !multi_failed && rc == CURLE_OK;
        release(h, clean);

        json details{{"url", shown}};
        if (t.resp.status != 0) details["status"] = t.resp.status;
        details["bytes"] = t.resp.body_bytes;
        if (cancelled) {
            details["by"] = f.by_stop_token.load() ? "stop_token" : "cancel";
            return fail(errc::cancelled, what + ": cancelled", {}, std::move(details));
        }
        if (t.sink_threw)
            return fail(errc::internal, what + ": the body callback threw an exception", {}, std::move(details));
        if (t.sink_stopped) {
            details["by"] = "body_sink";
            return fail(errc::cancelled, what + ": stopped by the body callback", {}, std::move(details));
        }
        if (t.too_large) {
            details["max_response_bytes"] = rq.max_response_bytes;
            return fail(errc::transport_io, what + ": the response body is larger than " + std::to_string(rq.max_response_bytes) + " bytes",
                        "Raise client_request::max_response_bytes or stream the body.", std::move(details));
        }
        if (multi_failed)
            return fail(errc::transport_io, what + ": libcurl's multi interface failed", "Retry.", std::move(details));
        if (rc != CURLE_OK) {
            details["curl_code"] = static_cast<int>(rc);
            std::string why = errbuf[0] != '\0' ? std::string(errbuf) : std::string(curl_easy_strerror(rc));
            if (rc == CURLE_OPERATION_TIMEDOUT) {
                const bool connected = connect_us > 0 || t.resp.status != 0;
                details["phase"] = connected ? "transfer" : "connect";
                return fail(errc::timeout, what + ": " + (connected ? "timed out: " : "could not connect in time: ") + why,
                            connected ? "The server answered too slowly; raise the timeout or retry later."
                                      : "Check that the server is up and reachable; then retry.",
                            std::move(details));
            }
            if (rc == CURLE_URL_MALFORMAT || rc == CURLE_UNSUPPORTED_PROTOCOL)
                return fail(errc::request_invalid, what + ": " + why, "Pass an http:// or https:// URL.", std::move(details));
            const bool reached = t.resp.status != 0;
            return fail(errc::transport_io,
                        what + (reached ? ": the connection broke after " + std::to_string(t.resp.body_bytes) + " bytes of body: "
                                        : ": cannot reach the server: ") + why,
                        reached ? "Retry the request." : "Check the network, the URL and that the server is running; then retry.",
                        std::move(details));
        }
        return std::move(t.resp);
    }

    /// Cancel every request of this client in flight now (from any thread): each perform()
    /// returns `cancelled` promptly. Requests started later are not affected.
    void cancel() noexcept {
        std::lock_guard lock(mu_);
        for (in_flight* f : flights_) {
            f->cancelled.store(true);
            curl_multi_wakeup(f->multi);
        }
    }

    /// Requests in flight now.
    [[nodiscard]] std::size_t in_flight_count() const {
        std::lock_guard lock(mu_);
        return flights_.size();
    }

private:
    struct handle {
        CURL* easy = nullptr;
        CURLM* multi = nullptr;  ///< holds the connection cache the next request reuses
    };
    struct in_flight {
        CURLM* multi = nullptr;
        std::atomic<bool> cancelled{false};
        std::atomic<bool> by_stop_token{false};
    };
    static constexpr std::size_t max_idle = 4;

    static void free_handle(handle& h) noexcept {
        if (h.easy != nullptr) curl_easy_cleanup(h.easy);
        if (h.multi != nullptr) curl_multi_cleanup(h.multi);
        h = handle{};
    }

    [[nodiscard]] handle acquire() {
        {
            std::lock_guard lock(mu_);
            if (!idle_.empty()) {
                handle h = idle_.back();
                idle_.pop_back();
                return h;
            }
        }
        return handle{curl_easy_init(), curl_multi_init()};
    }

    /// Keep the handles for the next request (with their open connection) unless the transfer
    /// ended abnormally.
    void release(handle& h, bool reusable) {
        if (reusable) {
            std::lock_guard lock(mu_);
            if (idle_.size() < max_idle) {
                idle_.push_back(h);
                h = handle{};
                return;
            }
        }
        free_handle(h);
    }

    /// A request that must not be sent: not http(s), or a header that would split the request.
    [[nodiscard]] static std::optional<error> check(const client_request& rq, const std::string& shown) {
        const auto u = parse_url(rq.url);
        if (!u || !u->has_authority || (u->scheme != "http" && u->scheme != "https") || u->host.empty())
            return error(errc::request_invalid, "not an http:// or https:// URL: " + shown, "Pass the service's full http(s) URL.",
                         json{{"url", shown}});
        for (char c : rq.method)
            if (!detail::header_name_char(c))
                return error(errc::request_invalid, "the HTTP method is not a token", "Use GET, POST, PUT, DELETE, ...");
        for (const auto& [k, v] : rq.headers) {
            bool name_ok = !k.empty();
            for (char c : k) name_ok = name_ok && detail::header_name_char(c);
            if (!name_ok)
                return error(errc::request_invalid, "a header name is not a token (letters, digits, -): \"" + k.substr(0, 64) + "\"",
                             "Fix the header name.", json{{"url", shown}});
            for (char c : v)
                if (c == '\r' || c == '\n' || c == '\0')  // the value itself is never shown: it may be a key
                    return error(errc::request_invalid, "the value of header \"" + k + "\" holds a line break or NUL",
                                 "Remove line breaks from header values.", json{{"url", shown}, {"header", k}});
        }
        return std::nullopt;
    }

    mutable std::mutex mu_;
    std::vector<handle> idle_;
    std::list<in_flight*> flights_;
};

static_assert(http_client_like<http_client>, "net::http_client is the libcurl implementation of core/http.hpp's concept");

}  // namespace agentkit::net
