// agentkit/mcp/http/server.hpp — MCP over Streamable HTTP: one endpoint (/mcp) serving both
// protocol eras, over agentkit::net's HTTP server (cpp-httplib; needs agentkit::net, which
// links OpenSSL's libcrypto for the request-state MAC). Not part of the single header.
// (Over 1,000 lines because it is one transport around one table: the sessions with their
// streams and requests in flight, which both eras' handlers, the guards, the idle reaper and
// stop() all read and change; the wire rules above are its specification. Splitting it by era
// would copy that table's handling into each.)
//
//   agentkit::mcp::server srv{agentkit::mcp::backend_for(tools), options};
//   agentkit::mcp::http_transport http{srv, {.port = 8931}};       // 127.0.0.1:8931/mcp
//   return agentkit::mcp::serve(http, agentkit::mcp::stop_on_signals());
//
// Or one server per client session (each with its own state, e.g. its own browser):
//
//   agentkit::mcp::http_transport http{[] { return std::make_unique<agentkit::mcp::server>(...); }, opts};
//
// The wire, for each era on the same endpoint:
//   2025-11-25 and earlier: POST initialize opens a session (Mcp-Session-Id, 32 hex digits);
//     every later POST carries it (a missing one: 400, an unknown or ended one: 404). A POST
//     of a request is answered with JSON when the response is ready before anything else is
//     sent, else with an SSE stream carrying the notifications and server requests about it
//     (progress, logs, sampling, elicitation, roots) and then the response. A POST of a
//     notification or of a response to a server request: 202. GET opens the session's stream
//     for what belongs to no request (list changes, resource updates; one at a time: 409);
//     DELETE ends the session.
//   2026-07-28: stateless. Every POST carries MCP-Protocol-Version, Mcp-Method (and Mcp-Name
//     for tools/call, prompts/get, resources/read, and the taskId of tasks/get, tasks/update,
//     tasks/cancel), and `_meta` with the protocol version and
//     client capabilities; a mismatch is 400 with -32020, missing `_meta` fields 400 with
//     -32602, an unsupported version 400 with -32022, an unknown or removed method 404 with
//     -32601, a missing client capability 400 with -32021. Headers named by a tool's
//     `x-mcp-header` annotations (Mcp-Param-*) must match the arguments. subscriptions/listen
//     answers with a stream that stays open; closing any stream cancels its request. GET and
//     DELETE without a session: 405. requestState is sealed with HMAC-SHA-256 under a random
//     per-process key (hmac_state_codec()), bound to the request, the client and a deadline.
//
// Guards, before anything else: the Host header must name the bound address, a loopback name
// (when bound to loopback) or an allowed host, and an Origin header, when present, an allowed
// one (DNS rebinding): 403. With a bearer token set, every request must carry it: 401. Then:
// a body over max_body_bytes 413, a Content-Type other than JSON 415, an Accept that takes
// neither JSON nor SSE 406, more than max_sessions sessions 503, more than
// max_requests_per_session requests or streams of one session at once 429. Sessions idle for
// session_idle_timeout (no request, no stream) are closed. Every error answer is a JSON-RPC
// error (with the request's id when it is known). A stream whose client stops reading is
// closed after the write timeout; a request that does not arrive within the request timeout
// loses its connection.
//
// Stopping (stop(), or *stop in run()): new requests get 503, running handlers get the grace
// to finish (their answers are sent) and are cancelled after it, listeners get their final
// response, sessions and streams end, connections close. An ended session's own server (the
// factory's) is destroyed as soon as its streams and requests are over, before DELETE answers.
//
// Over 1,000 lines: the two eras and the HTTP+SSE transport share one session table, its
// guards and its stream pump; split, each part would reach into the others' bookkeeping.
#pragma once

#include <agentkit/mcp/server/server.hpp>
#include <agentkit/core/base64.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/random.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/core/url.hpp>
#include <agentkit/net/http_server.hpp>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace agentkit::mcp {

namespace detail {
inline std::string base64url(std::string_view bytes) {
    std::string s = base64_encode(bytes);
    for (char& c : s) c = c == '+' ? '-' : c == '/' ? '_' : c;
    while (!s.empty() && s.back() == '=') s.pop_back();
    return s;
}
inline std::optional<std::string> base64url_decode(std::string_view text) {
    std::string s(text);
    for (char& c : s) {
        if (c == '-') c = '+';
        else if (c == '_') c = '/';
        else if (c == '+' || c == '/' || c == '=') return std::nullopt;
    }
    while (s.size() % 4 != 0) s += '=';
    return base64_decode(s);
}
/// Strict standard base64 (RFC 4648 alphabet, padding to a multiple of 4, nothing else).
inline std::optional<std::string> base64_strict(std::string_view s) {
    if (s.size() % 4 != 0) return std::nullopt;
    std::size_t pad = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        const bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
        if (c == '=') {
            if (i + 2 < s.size()) return std::nullopt;
            ++pad;
        } else if (!alpha || pad > 0) {
            return std::nullopt;
        }
    }
    return base64_decode(s);
}
inline std::string hex_of(const unsigned char* p, std::size_t n) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        out += hex[p[i] >> 4U];
        out += hex[p[i] & 15U];
    }
    return out;
}
inline std::string sha256_hex(std::string_view data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    if (EVP_Digest(data.data(), data.size(), md.data(), &len, EVP_sha256(), nullptr) != 1) return {};
    return hex_of(md.data(), len);
}
}  // namespace detail

/// requestState sealed with HMAC-SHA-256 (OpenSSL) under a key drawn at random for this
/// codec: the payload travels with the client, base64url-encoded, and comes back only if
/// unaltered (compared in constant time). Arguments are condensed with SHA-256.
[[nodiscard]] inline state_codec hmac_state_codec() {
    auto key = std::make_shared<std::array<unsigned char, 32>>();
    // the kernel's generator when OpenSSL's fails; with neither, no state is ever accepted back
    const bool keyed = RAND_bytes(key->data(), static_cast<int>(key->size())) == 1 || random_bytes(key->data(), key->size());
    auto mac = [key](std::string_view payload) {
        std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
        unsigned int len = 0;
        HMAC(EVP_sha256(), key->data(), static_cast<int>(key->size()), reinterpret_cast<const unsigned char*>(payload.data()),
             payload.size(), out.data(), &len);
        return std::string(reinterpret_cast<const char*>(out.data()), len);
    };
    state_codec c;
    c.seal = [mac](const std::string& payload) { return detail::base64url(payload) + "." + detail::base64url(mac(payload)); };
    c.open = [mac, keyed](std::string_view sealed) -> std::optional<std::string> {
        if (!keyed) return std::nullopt;
        const std::size_t dot = sealed.rfind('.');
        if (dot == std::string_view::npos) return std::nullopt;
        auto payload = detail::base64url_decode(sealed.substr(0, dot));
        auto tag = detail::base64url_decode(sealed.substr(dot + 1));
        if (!payload || !tag) return std::nullopt;
        const std::string expect = mac(*payload);
        if (tag->size() != expect.size() || CRYPTO_memcmp(tag->data(), expect.data(), expect.size()) != 0) return std::nullopt;
        return payload;
    };
    c.digest = [](std::string_view text) { return detail::sha256_hex(text); };
    return c;
}

/// How an http_transport binds, guards its endpoint, bounds sessions and requests, and times out.
struct http_options {
    std::string host = "127.0.0.1";  ///< the address to bind: loopback unless told otherwise
    int port = 0;                    ///< 0: any free port
    std::string path = "/mcp";       ///< the endpoint's path
    /// Further paths that serve the same endpoint (e.g. "/" for clients given the bare server
    /// URL); nothing else is served.
    std::vector<std::string> extra_paths;
    /// The HTTP+SSE transport of protocol 2024-11-05, for clients that still speak it, at this
    /// path ("" = off; e.g. "/sse"): a GET opens a session and its event stream, whose first
    /// event, `endpoint`, names where to POST the session's messages (this path with
    /// ?sessionId=ID; each POST is answered 202, every answer comes on the stream); the session
    /// ends when the stream closes. The same guards, bounds and sessions as the endpoint's.
    std::string sse_path;
    /// Host names accepted in Host and Origin besides the bound address (and localhost,
    /// 127.0.0.1, [::1] when bound to loopback or all interfaces); "*" accepts any (no
    /// DNS-rebinding protection: only behind a proxy that checks them).
    std::vector<std::string> allowed_hosts;
    /// Origins accepted as they are written ("https://app.example"), besides those of
    /// allowed hosts.
    std::vector<std::string> allowed_origins;
    /// When set, every request must carry "Authorization: Bearer <token>".
    std::string bearer_token;
    std::size_t max_body_bytes = std::size_t{4} << 20U;  ///< a larger request body is answered 413
    std::size_t max_sessions = 64;                       ///< sessions open at once; initialize beyond them is answered 503
    /// Requests being answered and streams open at once, per session.
    std::size_t max_requests_per_session = 16;
    /// subscriptions/listen streams open at once (stateless era, all clients).
    std::size_t max_listen_streams = 16;
    std::chrono::seconds session_idle_timeout{std::chrono::minutes(30)};  ///< a session this long without a request or stream is closed
    /// Connections served at once (one thread each).
    std::size_t threads = 64;
    /// Serve 2026-07-28 (stateless) requests. Off: they are answered -32022 naming the
    /// handshake versions, and clients fall back to initialize.
    bool stateless = true;
    /// How long a request may run without sending anything before its answer becomes a stream.
    std::chrono::milliseconds stream_after{2000};
    /// Comment lines on quiet streams, to keep intermediaries and clients from timing out.
    std::chrono::seconds keep_alive_interval{15};
    std::chrono::seconds read_timeout{10};     ///< the longest wait for one read from a client
    std::chrono::seconds write_timeout{10};    ///< the longest wait for one write (a stream whose client stops reading is closed)
    std::chrono::seconds request_timeout{30};  ///< a request (line, headers, body) not in within this loses its connection
    /// Running handlers get this long to finish when the transport stops.
    std::chrono::milliseconds shutdown_grace{3000};
    /// A heartbeat: a session whose client has a stream open (GET, or the HTTP+SSE stream) is
    /// pinged once established and then ping_interval after each answer; one that does not
    /// answer within ping_timeout is closed, as the idle timeout closes one (a client that
    /// went away without a word no longer holds its session's server). 0: no heartbeat.
    std::chrono::milliseconds ping_timeout{0};
    std::chrono::milliseconds ping_interval{3000};  ///< between an answered ping and the next
    /// Told when a session is established (its initialize answered, or an HTTP+SSE stream
    /// opened; `sse` says which transport). Called on the transport's threads with none of its
    /// locks held; it must not call into the transport. Stateless requests have no session and
    /// are not told.
    std::function<void(std::string_view session_id, bool sse)> on_session_start;
    /// Told when a session on_session_start told of ends (DELETE, the end of its HTTP+SSE
    /// stream, the idle timeout, the transport's stop), after its server was shut down (and
    /// destroyed, when its streams and requests were over within 2 s); as on_session_start
    /// otherwise.
    std::function<void(std::string_view session_id, bool sse)> on_session_end;
};

/// MCP over Streamable HTTP (see the top of this header). Models mcp::transport.
class http_transport {
public:
    /// Makes the server of a new session (one server per session).
    using server_factory = std::function<std::unique_ptr<server>()>;

    /// Every session served by `shared`.
    http_transport(server& shared, http_options o) : shared_(&shared), o_(std::move(o)) {}
    /// Every session served by a server of its own, made by `make` when the session starts and
    /// destroyed when it ends. Stateless requests are not served (they have no session).
    http_transport(server_factory make, http_options o) : make_(std::move(make)), o_(std::move(o)) { o_.stateless = false; }
    http_transport(const http_transport&) = delete;
    http_transport& operator=(const http_transport&) = delete;
    ~http_transport() { stop(); }

    /// Bind and serve in the background. Errors: transport.io when the address cannot be bound.
    [[nodiscard]] result<void> start() {
        if (http_) return {};
        net::http_server_options ho;
        ho.host = o_.host;
        ho.port = o_.port;
        ho.max_body_bytes = o_.max_body_bytes;
        ho.threads = std::max<std::size_t>(4, o_.threads);
        ho.read_timeout = o_.read_timeout;
        ho.write_timeout = o_.write_timeout;
        ho.request_timeout = o_.request_timeout;
        ho.error_response = [](int status, net::http_response& out) {
            const bool big = status == 413;
            out = error_response(status, big ? code::invalid_request : code::parse_error,
                                 big ? "Request body too large" : "Bad HTTP request");
        };
        http_ = std::make_unique<net::http_server>(ho);
        http_->route(o_.path, [this](const net::http_request& r) { return serve(r); });
        for (const auto& p : o_.extra_paths) http_->route(p, [this](const net::http_request& r) { return serve(r); });
        if (!o_.sse_path.empty()) http_->route(o_.sse_path, [this](const net::http_request& r) { return serve_sse(r); });
        if (auto up = http_->start(); !up) {
            http_.reset();
            return up;
        }
        stopping_ = false;
        reaper_ = std::thread([this] { reap_loop(); });
        return {};
    }

    /// Stop (idempotent): see the top of this header.
    void stop() {
        if (!http_) return;
        stopping_ = true;
        {
            std::lock_guard lock(reap_mu_);
            reap_cv_.notify_all();
        }
        if (reaper_.joinable()) reaper_.join();
        if (shared_ != nullptr) shared_->shutdown(o_.shutdown_grace);
        std::map<std::string, std::shared_ptr<entry>> all;
        {
            std::lock_guard lock(sessions_mu_);
            all.swap(sessions_);
        }
        for (auto& [id, e] : all) end_session(*e, o_.shutdown_grace);
        http_->stop();
        http_.reset();
    }

    /// Serve until `*stop` becomes true (checked every 100 ms); 0 on a clean end, 1 when the
    /// address could not be bound (the reason on stderr).
    int run(const std::atomic<bool>* stop) {
        if (auto up = start(); !up) {
            const std::string line = "mcp: " + up.error().message + "\n";
            (void)!::write(2, line.data(), line.size());
            return 1;
        }
        while (stop == nullptr || !stop->load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        this->stop();
        return 0;
    }

    /// The port bound (the one chosen when options().port is 0); 0 when not serving.
    [[nodiscard]] int port() const noexcept { return http_ ? http_->port() : 0; }
    /// "http://127.0.0.1:PORT/mcp".
    [[nodiscard]] std::string url() const { return http_ ? http_->url(o_.path) : std::string(); }
    /// Sessions open now.
    [[nodiscard]] std::size_t sessions() const {
        std::lock_guard lock(sessions_mu_);
        return sessions_.size();
    }
    /// The HTTP server's connection counts (all zero when not serving).
    [[nodiscard]] net::http_server_stats http_stats() const { return http_ ? http_->stats() : net::http_server_stats{}; }

    /// Answer one HTTP request to the endpoint as the running transport does (guards, both
    /// eras, sessions): for a host that mounts MCP in an HTTP server of its own (route its
    /// endpoint's requests here), and for the fuzzer. A streamed answer's body is produced by
    /// calling its `stream` with an http_stream.
    [[nodiscard]] net::http_response handle(const net::http_request& r) { return serve(r); }
    /// The options in force (stateless is off with a server_factory).
    [[nodiscard]] const http_options& options() const noexcept { return o_; }

private:
    /// The messages of one POST on their way to the client.
    struct exchange {
        std::mutex mu;
        std::condition_variable cv;
        std::deque<std::string> queue;
        bool done = false;  // the response is queued
        void push(const std::string& m, bool last) {
            std::lock_guard lock(mu);
            queue.push_back(m);
            if (last) done = true;
            cv.notify_all();
        }
    };
    /// A session of the handshake era.
    struct entry {
        std::string id;
        std::string principal;
        std::unique_ptr<server> owned;
        server* srv = nullptr;
        std::shared_ptr<session> s;
        std::mutex mu;
        std::chrono::steady_clock::time_point last_used = std::chrono::steady_clock::now();
        std::size_t active = 0;  // requests being answered and streams open
        std::condition_variable quiet;  // told when `active` goes down
        // the heartbeat's (the reaper thread's alone): the ping waiting for its answer, and when
        // the next is due or this one is late
        std::unique_ptr<client_ping> ping;
        std::chrono::steady_clock::time_point ping_at{}, ping_late{};
        bool get_open = false;
        bool ended = false;
        bool announced = false;  // on_session_start was told (on_session_end will be)
        bool sse = false;  // a session of the HTTP+SSE transport (sse_path), not of the endpoint
        std::shared_ptr<exchange> get_stream;  // where the session's own messages go while a GET is open
    };

    // ---- responses ------------------------------------------------------------------------------

    /// A JSON-RPC error as an HTTP answer; `id` when the request's is known, `data` when set.
    static net::http_response error_response(int status, int c, std::string message, json data = nullptr, json id = nullptr) {
        json err{{"code", c}, {"message", std::move(message)}};
        if (!data.is_null()) err["data"] = std::move(data);
        json m{{"jsonrpc", "2.0"}, {"error", std::move(err)}};
        if (!id.is_null()) m["id"] = std::move(id);
        return net::http_response::json_text(m.dump(-1, ' ', false, json::error_handler_t::replace), status);
    }

    /// The error code of a response the engine wrote, when it is one. (The engine dumps objects
    /// with sorted keys: an error response starts with {"error":{"code":N.)
    static std::optional<int> error_code_of(std::string_view m) {
        static constexpr std::string_view prefix = R"({"error":{"code":)";
        if (m.substr(0, prefix.size()) != prefix) return std::nullopt;
        m.remove_prefix(prefix.size());
        bool neg = false;
        if (!m.empty() && m[0] == '-') {
            neg = true;
            m.remove_prefix(1);
        }
        int v = 0;
        std::size_t n = 0;
        while (n < m.size() && n < 9 && m[n] >= '0' && m[n] <= '9') v = v * 10 + (m[n++] - '0');
        if (n == 0) return std::nullopt;
        return neg ? -v : v;
    }

    static std::string sse_event(const std::string& m) { return "event: message\ndata: " + m + "\n\n"; }

    static void sse_headers(net::http_response& r) {
        r.headers.emplace_back("Cache-Control", "no-cache");
        r.headers.emplace_back("X-Accel-Buffering", "no");
    }

    // ---- guards -------------------------------------------------------------------------------------

    bool host_allowed(std::string_view host) const {
        const std::string h = ascii_lower(host);
        const std::string bound = ascii_lower(o_.host);
        const bool loopback_bind = is_loopback_host(bound) || bound == "0.0.0.0" || bound == "::" || bound == "[::]";
        if (loopback_bind && is_loopback_host(h)) return true;
        if (h == bound || "[" + h + "]" == bound) return true;
        for (const auto& a : o_.allowed_hosts) {
            if (a == "*") return true;
            std::string al = ascii_lower(a);
            if (al.size() > 2 && al.front() == '[' && al.back() == ']') al = al.substr(1, al.size() - 2);
            if (al == h) return true;
        }
        return false;
    }

    std::optional<net::http_response> guard(const net::http_request& r) const {
        const std::string host = r.header("Host");
        auto hp = parse_authority(host);
        if (host.empty() || !hp || !host_allowed(hp->host))
            return error_response(403, -32000, "Forbidden: Host \"" + host + "\" is not allowed (DNS rebinding protection)");
        if (r.has_header("Origin")) {
            const std::string origin = r.header("Origin");
            bool ok = std::find(o_.allowed_origins.begin(), o_.allowed_origins.end(), origin) != o_.allowed_origins.end();
            if (!ok) {
                auto u = parse_url(origin);
                ok = u && (u->scheme == "http" || u->scheme == "https") && host_allowed(u->host);
            }
            if (!ok) return error_response(403, -32000, "Forbidden: Origin \"" + origin + "\" is not allowed (DNS rebinding protection)");
        }
        if (!o_.bearer_token.empty()) {
            const std::string auth = r.header("Authorization");
            const std::string want = "Bearer " + o_.bearer_token;
            const bool ok = auth.size() == want.size() && CRYPTO_memcmp(auth.data(), want.data(), want.size()) == 0;
            if (!ok) {
                auto out = error_response(401, -32000, "Unauthorized: send Authorization: Bearer <token>");
                out.headers.emplace_back("WWW-Authenticate", "Bearer");
                return out;
            }
        }
        return std::nullopt;
    }

    std::string principal_of(const net::http_request& r) const {
        if (o_.bearer_token.empty()) return "anonymous";
        return "bearer:" + detail::sha256_hex(r.header("Authorization"));
    }

    static bool accepts(const net::http_request& r, std::string_view type) {
        if (!r.has_header("Accept")) return true;
        const std::string a = ascii_lower(r.header("Accept"));
        return a.find(type) != std::string::npos || a.find("*/*") != std::string::npos;
    }

    static std::string trimmed(std::string_view v) {
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
        while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
        return std::string(v);
    }

    /// A header value that may be base64-encoded (=?base64?...?=); nothing when the encoding
    /// is broken or the value holds characters a header may not.
    static std::optional<std::string> header_value(std::string_view v) {
        for (char c : v)
            if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) return std::nullopt;
        const std::string t = trimmed(v);
        static constexpr std::string_view pre = "=?base64?", post = "?=";
        if (t.size() >= pre.size() + post.size() && t.compare(0, pre.size(), pre) == 0 &&
            t.compare(t.size() - post.size(), post.size(), post) == 0)
            return detail::base64_strict(std::string_view(t).substr(pre.size(), t.size() - pre.size() - post.size()));
        return t;
    }

    // ---- dispatch ---------------------------------------------------------------------------------------

    net::http_response serve(const net::http_request& r) {
        if (auto g = guard(r)) return *g;
        if (stopping_.load()) return error_response(503, -32000, "Service Unavailable: the server is shutting down");
        if (r.method == "POST") return post(r);
        if (r.method == "GET") return get(r);
        if (r.method == "DELETE") return del(r);
        auto out = error_response(405, -32000, "Method Not Allowed: use POST (GET and DELETE with a 2025-11-25 session)");
        out.headers.emplace_back("Allow", "GET, POST, DELETE");
        return out;
    }

    /// A POSTed message's body as one JSON-RPC message in `msg`, or the answer refusing it. The
    /// endpoint's POSTs (`answers`) must also accept JSON or SSE; the HTTP+SSE transport's answer 202.
    std::optional<net::http_response> read_message(const net::http_request& r, json& msg, bool answers) {
        const std::string ct = ascii_lower(r.header("Content-Type"));
        if (ct.rfind("application/json", 0) != 0)
            return error_response(415, code::invalid_request, "Unsupported Media Type: the body must be application/json");
        if (answers && !accepts(r, "application/json") && !accepts(r, "text/event-stream"))
            return error_response(406, code::invalid_request, "Not Acceptable: accept application/json and text/event-stream");
        if (r.body.size() > o_.max_body_bytes) return error_response(413, code::invalid_request, "Request body too large");
        const server& any = shared_ != nullptr ? *shared_ : *probe();
        if (mcp::detail::nesting_depth(r.body) > any.options().max_depth || r.body.find('\0') != std::string::npos)
            return error_response(400, code::parse_error, "Parse error: nested too deeply, or a NUL byte");
        msg = json::parse(r.body, nullptr, false);
        if (msg.is_discarded()) return error_response(400, code::parse_error, "Parse error: the body is not valid JSON (or not valid UTF-8)");
        if (msg.is_array()) return error_response(400, code::invalid_request, "Invalid Request: send one JSON-RPC message per POST");
        if (!msg.is_object()) return error_response(400, code::invalid_request, "Invalid Request: a message must be a JSON object");
        return std::nullopt;
    }

    net::http_response post(const net::http_request& r) {
        json msg;
        if (auto refused = read_message(r, msg, true)) return *refused;
        json id;
        if (auto it = msg.find("id"); it != msg.end() && (it->is_string() || it->is_number_integer() || it->is_number_unsigned())) id = *it;
        const json params = msg.contains("params") && msg["params"].is_object() ? msg["params"] : json::object();
        const bool has_meta = params.contains("_meta");
        const bool has_session = r.has_header("Mcp-Session-Id");
        const bool has_version = r.has_header("MCP-Protocol-Version");
        const std::string version = trimmed(r.header("MCP-Protocol-Version"));
        const bool modern = !has_session && (has_version || has_meta) && !(!has_meta && is_handshake_version(version));
        if (modern) return post_modern(r, msg, id, params, has_version, version);
        return post_legacy(r, msg, id, has_session, has_version, version);
    }

    /// A server to read options from in per-session mode (the factory's first product).
    const server* probe() {
        std::lock_guard lock(probe_mu_);
        if (!probe_) probe_ = make_();
        return probe_.get();
    }

    // ---- 2026-07-28 -------------------------------------------------------------------------------------

    net::http_response post_modern(const net::http_request& r, const json& msg, const json& id, const json& params, bool has_version,
                                   const std::string& version) {
        const json meta = params.value("_meta", json());
        const std::string meta_version =
            meta.is_object() && meta.value(meta_key::protocol_version, json()).is_string() ? meta[meta_key::protocol_version].get<std::string>() : "";
        if (!o_.stateless) {
            std::vector<std::string> handshake;
            for (auto v : supported_versions)
                if (v != stateless_version) handshake.emplace_back(v);
            const std::string asked = has_version ? version : meta_version;
            return error_response(400, code::unsupported_version,
                                  "Unsupported protocol version " + asked + ": this server keeps a session per client; initialize with one of the supported versions",
                                  json{{"supported", handshake}, {"requested", asked}}, id);
        }
        if (!has_version)
            return error_response(400, code::header_mismatch, "Header mismatch: the MCP-Protocol-Version header is required", nullptr, id);
        if (!meta.is_object() || !meta.contains(meta_key::protocol_version) || !meta[meta_key::protocol_version].is_string() ||
            !meta.contains(meta_key::client_capabilities) || !meta[meta_key::client_capabilities].is_object())
            return error_response(400, code::invalid_params,
                                  "Invalid params: params._meta must carry io.modelcontextprotocol/protocolVersion and "
                                  "io.modelcontextprotocol/clientCapabilities on every request",
                                  nullptr, id);
        if (meta_version != version)
            return error_response(400, code::header_mismatch,
                                  "Header mismatch: MCP-Protocol-Version " + version + " differs from _meta protocolVersion " + meta_version,
                                  nullptr, id);
        if (version != stateless_version)
            return error_response(400, code::unsupported_version, "Unsupported protocol version: " + version,
                                  json{{"supported", json::array({std::string(stateless_version)})}, {"requested", version}}, id);
        const bool is_request = msg.contains("method") && msg.contains("id");
        const std::string method = msg.value("method", json()).is_string() ? msg["method"].get<std::string>() : "";
        if (is_request) {
            if (auto bad = check_headers(r, method, params))
                return error_response(400, code::header_mismatch, "Header mismatch: " + *bad, nullptr, id);
        }
        auto s = shared_->open_session({}, false);
        s->set_principal(principal_of(r));
        if (!is_request) {
            shared_->handle_message(*s, msg, {});
            shared_->close_session(*s);
            return accepted();
        }
        if (method == "subscriptions/listen") {
            std::lock_guard lock(listen_mu_);
            if (listen_streams_ >= o_.max_listen_streams) {
                shared_->close_session(*s);
                return error_response(429, -32000, "Too Many Requests: too many subscriptions/listen streams are open", nullptr, id);
            }
            ++listen_streams_;
        }
        auto ex = std::make_shared<exchange>();
        shared_->handle_message(*s, msg, [ex](const std::string& m, bool last) { ex->push(m, last); });
        server* srv = shared_;
        const bool listen = method == "subscriptions/listen";
        return answer(r, ex, id, [this, srv, s, id, listen](bool cancelled) {
            if (cancelled) srv->cancel_request(*s, id);
            srv->close_session(*s);
            if (listen) {
                std::lock_guard lock(listen_mu_);
                --listen_streams_;
            }
        }, true);
    }

    /// Mcp-Method, Mcp-Name and Mcp-Param-* against the body; what is wrong, if anything.
    std::optional<std::string> check_headers(const net::http_request& r, const std::string& method, const json& params) const {
        if (!r.has_header("Mcp-Method")) return std::string("the Mcp-Method header is required");
        if (trimmed(r.header("Mcp-Method")) != method) return "Mcp-Method \"" + r.header("Mcp-Method") + "\" differs from the method " + method;
        const char* named = mcp_name_field(method);
        const std::string field = named != nullptr ? named : "";
        if (!field.empty()) {
            if (!r.has_header("Mcp-Name")) return "the Mcp-Name header is required for " + method;
            auto v = header_value(r.header("Mcp-Name"));
            if (!v) return std::string("Mcp-Name is not a valid header value (or broken base64)");
            const json body = params.value(field, json());
            if (!body.is_string() || *v != body.get<std::string>()) return "Mcp-Name \"" + *v + "\" differs from params." + field;
        }
        if (method != "tools/call" || !params.value("name", json()).is_string()) return std::nullopt;
        const json schema = shared_->input_schema_of(params["name"].get<std::string>());
        if (!schema.is_object()) return std::nullopt;
        const json args = params.value("arguments", json::object());
        return check_param_headers(r, schema, args.is_object() ? args : json::object(), 0);
    }

    /// Every property annotated with x-mcp-header (reached through `properties` only): when the
    /// arguments have a value, its Mcp-Param-<name> header must be there and match it.
    std::optional<std::string> check_param_headers(const net::http_request& r, const json& schema, const json& args, int depth) const {
        if (depth > 8 || !schema.is_object() || !schema.contains("properties") || !schema["properties"].is_object()) return std::nullopt;
        for (const auto& [name, prop] : schema["properties"].items()) {
            const json value = args.is_object() && args.contains(name) ? args[name] : json();
            if (prop.is_object() && prop.contains("x-mcp-header") && prop["x-mcp-header"].is_string()) {
                const std::string header = "Mcp-Param-" + prop["x-mcp-header"].get<std::string>();
                if (value.is_null()) continue;
                if (!r.has_header(header)) return "the " + header + " header is required (the arguments have " + name + ")";
                auto v = header_value(r.header(header));
                if (!v) return header + " is not a valid header value (or broken base64)";
                bool same = false;
                if (value.is_string()) same = *v == value.get<std::string>();
                else if (value.is_boolean()) same = *v == (value.get<bool>() ? "true" : "false");
                else if (value.is_number()) {
                    char* end = nullptr;
                    const double d = std::strtod(v->c_str(), &end);
                    same = !v->empty() && end != nullptr && *end == '\0' && d == value.get<double>();
                }
                if (!same) return header + " differs from the argument " + name;
            }
            if (prop.is_object() && value.is_object())
                if (auto bad = check_param_headers(r, prop, value, depth + 1)) return bad;
        }
        return std::nullopt;
    }

    // ---- 2025-11-25 and earlier ------------------------------------------------------------------------------

    net::http_response post_legacy(const net::http_request& r, const json& msg, const json& id, bool has_session, bool has_version,
                                   const std::string& version) {
        const std::string method = msg.value("method", json()).is_string() ? msg["method"].get<std::string>() : "";
        const bool is_request = !method.empty() && msg.contains("id");
        std::shared_ptr<entry> e;
        bool fresh = false;
        if (has_session) {
            e = find(r.header("Mcp-Session-Id"), r);
            if (!e) return error_response(404, -32001, "Session not found: start a new session with initialize", nullptr, id);
            if (has_version && !is_handshake_version(version))
                return error_response(400, code::invalid_request, "Bad Request: unsupported MCP-Protocol-Version " + version, nullptr, id);
        } else {
            if (method != "initialize" || !is_request)
                return error_response(400, code::invalid_request,
                                      "Bad Request: the Mcp-Session-Id header is required (initialize first; or use protocol 2026-07-28 "
                                      "with MCP-Protocol-Version and _meta)",
                                      json(), id);
            auto made = create_session(r);
            if (!made) return error_response(503, -32000, made.error().message, nullptr, id);
            e = *made;
            fresh = true;
        }
        {
            std::lock_guard lock(e->mu);
            // (an ended session's server may be gone: counted in `active`, a message keeps it)
            if (e->ended) return error_response(404, -32001, "Session not found: start a new session with initialize", nullptr, id);
            e->last_used = std::chrono::steady_clock::now();
            if (is_request && e->active >= o_.max_requests_per_session)
                return error_response(429, -32000, "Too Many Requests: too many requests of this session at once", nullptr, id);
            ++e->active;
        }
        if (!is_request) {
            e->srv->handle_message(*e->s, msg, {});
            std::lock_guard lock(e->mu);
            --e->active;
            e->quiet.notify_all();
            return accepted();
        }
        auto ex = std::make_shared<exchange>();
        e->srv->handle_message(*e->s, msg, [ex](const std::string& m, bool last) { ex->push(m, last); });
        auto done = [e, id](bool cancelled) {
            if (cancelled) e->srv->cancel_request(*e->s, id);
            std::lock_guard lock(e->mu);
            --e->active;
            e->quiet.notify_all();
            e->last_used = std::chrono::steady_clock::now();
        };
        auto out = answer(r, ex, id, std::move(done), false);
        if (fresh) {
            if (out.status == 200 && !e->s->negotiated_version().empty()) {
                out.headers.emplace_back("Mcp-Session-Id", e->id);
                announce(*e);
            } else {
                drop(e->id);
            }
        }
        return out;
    }

    result<std::shared_ptr<entry>> create_session(const net::http_request& r) {
        {
            std::lock_guard lock(sessions_mu_);
            if (sessions_.size() >= o_.max_sessions)
                return fail(errc::transport_io, "Service Unavailable: too many sessions (" + std::to_string(o_.max_sessions) +
                                                    "); end one with DELETE or retry later");
        }
        auto e = std::make_shared<entry>();
        e->id = random_hex(16);
        if (e->id.empty()) return fail(errc::internal, "no random source for a session id", "Check that the kernel offers getrandom or /dev/urandom.");
        e->principal = principal_of(r);
        if (shared_ != nullptr) {
            e->srv = shared_;
        } else {
            try {
                e->owned = make_();
            } catch (...) {
                e->owned.reset();
            }
            if (!e->owned) return fail(errc::internal, "Service Unavailable: the session's server could not be made");
            e->srv = e->owned.get();
        }
        e->s = e->srv->open_session();
        e->s->set_principal(e->principal);
        std::lock_guard lock(sessions_mu_);
        if (sessions_.size() >= o_.max_sessions) return fail(errc::transport_io, "Service Unavailable: too many sessions");
        sessions_[e->id] = e;
        return e;
    }

    /// The session `sid` of this client, of the endpoint (or with `sse`, of the HTTP+SSE transport).
    std::shared_ptr<entry> find(const std::string& sid, const net::http_request& r, bool sse = false) {
        std::lock_guard lock(sessions_mu_);
        auto it = sessions_.find(sid);
        if (it == sessions_.end()) return nullptr;
        if (it->second->principal != principal_of(r)) return nullptr;  // another client's session: as if unknown
        if (it->second->sse != sse) return nullptr;
        return it->second;
    }

    void drop(const std::string& sid) {
        std::shared_ptr<entry> e;
        {
            std::lock_guard lock(sessions_mu_);
            auto it = sessions_.find(sid);
            if (it == sessions_.end()) return;
            e = it->second;
            sessions_.erase(it);
        }
        end_session(*e, std::chrono::milliseconds(0));
    }

    void end_session(entry& e, std::chrono::milliseconds grace) {
        std::shared_ptr<exchange> g;
        bool told = false;
        {
            std::lock_guard lock(e.mu);
            if (e.ended) return;
            e.ended = true;
            told = e.announced;
            g = e.get_stream;
        }
        e.srv->close_session(*e.s);
        if (g) {
            std::lock_guard lock(g->mu);
            g->done = true;
            g->cv.notify_all();
        }
        if (e.owned) {
            e.owned->shutdown(grace);
            // The session's server (and what it holds: a browser, say) goes now, once its
            // streams and requests are over (a stream ends within a moment of `done`), so that a
            // DELETE answers when its resources are gone; one still busy past the bound keeps it
            // until the session's last reference goes.
            std::unique_lock lock(e.mu);
            if (e.quiet.wait_for(lock, std::chrono::seconds(2), [&] { return e.active == 0; })) {
                auto gone = std::move(e.owned);
                lock.unlock();
                gone.reset();
            }
        }
        if (told && o_.on_session_end) o_.on_session_end(e.id, e.sse);
    }

    /// The session is established: on_session_start (once).
    void announce(entry& e) {
        {
            std::lock_guard lock(e.mu);
            if (e.ended || e.announced) return;
            e.announced = true;
        }
        if (o_.on_session_start) o_.on_session_start(e.id, e.sse);
    }

    net::http_response get(const net::http_request& r) {
        if (!r.has_header("Mcp-Session-Id")) {
            auto out = error_response(405, -32000, "Method Not Allowed: GET needs a 2025-11-25 session (Mcp-Session-Id)");
            out.headers.emplace_back("Allow", "POST");
            return out;
        }
        auto e = find(r.header("Mcp-Session-Id"), r);
        if (!e) return error_response(404, -32001, "Session not found");
        if (!accepts(r, "text/event-stream")) return error_response(406, code::invalid_request, "Not Acceptable: GET answers text/event-stream");
        auto ex = std::make_shared<exchange>();
        {
            std::lock_guard lock(e->mu);
            if (e->ended) return error_response(404, -32001, "Session not found");
            if (e->get_open) return error_response(409, -32000, "Conflict: this session's stream is already open");
            if (e->active >= o_.max_requests_per_session)
                return error_response(429, -32000, "Too Many Requests: too many streams of this session at once");
            e->get_open = true;
            ++e->active;
            e->get_stream = ex;
        }
        e->s->set_sink([ex](const std::string& m) { ex->push(m, false); });
        auto out = net::http_response::streamed("text/event-stream", [this, e, ex](net::http_stream& st) {
            pump(st, *ex, [&] { return e->s->closed(); });
            std::lock_guard lock(e->mu);
            if (e->get_stream == ex) {
                e->s->set_sink({});
                e->get_stream.reset();
            }
            e->get_open = false;
            --e->active;
            e->quiet.notify_all();
            e->last_used = std::chrono::steady_clock::now();
        });
        sse_headers(out);
        return out;
    }

    net::http_response del(const net::http_request& r) {
        if (!r.has_header("Mcp-Session-Id")) {
            auto out = error_response(405, -32000, "Method Not Allowed: DELETE needs a 2025-11-25 session (Mcp-Session-Id)");
            out.headers.emplace_back("Allow", "POST");
            return out;
        }
        auto e = find(r.header("Mcp-Session-Id"), r);
        if (!e) return error_response(404, -32001, "Session not found");
        drop(e->id);
        return net::http_response::json_text("{}", 200);
    }

    // ---- the HTTP+SSE transport of 2024-11-05 (http_options::sse_path) ------------------------------

    net::http_response serve_sse(const net::http_request& r) {
        if (auto g = guard(r)) return *g;
        if (stopping_.load()) return error_response(503, -32000, "Service Unavailable: the server is shutting down");
        if (r.method == "GET") return open_sse(r);
        if (r.method == "POST") return post_sse(r);
        auto out = error_response(405, -32000, "Method Not Allowed: GET opens the stream, POST sends a message (?sessionId=)");
        out.headers.emplace_back("Allow", "GET, POST");
        return out;
    }

    net::http_response open_sse(const net::http_request& r) {
        if (!accepts(r, "text/event-stream")) return error_response(406, code::invalid_request, "Not Acceptable: GET answers text/event-stream");
        auto made = create_session(r);
        if (!made) return error_response(503, -32000, made.error().message);
        auto e = *made;
        auto ex = std::make_shared<exchange>();
        {
            std::lock_guard lock(e->mu);
            e->sse = true;
            e->get_open = true;
            ++e->active;
            e->get_stream = ex;
        }
        announce(*e);
        e->s->set_sink([ex](const std::string& m) { ex->push(m, false); });
        auto out = net::http_response::streamed("text/event-stream", [this, e, ex](net::http_stream& st) {
            if (st.write("event: endpoint\ndata: " + o_.sse_path + "?sessionId=" + e->id + "\n\n"))
                pump(st, *ex, [&] { return e->s->closed(); });
            {
                std::lock_guard lock(e->mu);
                --e->active;  // this stream's own count: drop() waits for the others
            }
            drop(e->id);  // the stream was the session: it ends with it (its requests are cancelled)
        });
        sse_headers(out);
        return out;
    }

    net::http_response post_sse(const net::http_request& r) {
        std::string sid;
        for (const auto& [k, v] : query_params(r.query))
            if (k == "sessionId") sid = v;
        if (sid.empty()) return error_response(400, code::invalid_request, "Bad Request: POST to " + o_.sse_path + "?sessionId=ID (the endpoint event's URL)");
        auto e = find(sid, r, true);
        if (!e) return error_response(404, -32001, "Session not found: open a new stream with GET " + o_.sse_path);
        json msg;
        if (auto refused = read_message(r, msg, false)) return *refused;
        std::shared_ptr<exchange> stream;
        const bool is_request = msg.contains("method") && msg.contains("id");
        {
            std::lock_guard lock(e->mu);
            if (e->ended || !e->get_stream) return error_response(404, -32001, "Session not found: its stream is closed");
            stream = e->get_stream;
            e->last_used = std::chrono::steady_clock::now();
            if (is_request && e->active >= o_.max_requests_per_session)
                return error_response(429, -32000, "Too Many Requests: too many requests of this session at once");
            ++e->active;
        }
        if (!is_request) {
            e->srv->handle_message(*e->s, msg, {});
            std::lock_guard lock(e->mu);
            --e->active;
            e->quiet.notify_all();
            return accepted();
        }
        e->srv->handle_message(*e->s, msg, [e, stream](const std::string& m, bool last) {
            stream->push(m, false);  // the stream stays open for the session's next answers
            if (!last) return;
            std::lock_guard lock(e->mu);
            --e->active;
            e->quiet.notify_all();
            e->last_used = std::chrono::steady_clock::now();
        });
        return accepted();
    }

    static net::http_response accepted() {
        net::http_response out;
        out.status = 202;
        out.content_type = "application/json";
        return out;
    }

    /// Write an exchange's messages to an SSE stream until its response is written, the
    /// client leaves, the server stops or `ended()`; keep-alive comments on quiet stretches.
    template <class Ended>
    bool pump(net::http_stream& st, exchange& ex, Ended ended) {
        auto last_write = std::chrono::steady_clock::now();
        std::unique_lock lock(ex.mu);
        for (;;) {
            ex.cv.wait_for(lock, std::chrono::milliseconds(250), [&] { return !ex.queue.empty() || ex.done || stopping_.load(); });
            std::deque<std::string> batch;
            batch.swap(ex.queue);
            const bool done = ex.done;
            lock.unlock();
            std::string out;
            for (const auto& m : batch) out += sse_event(m);
            if (!out.empty()) {
                if (!st.write(out)) return false;
                last_write = std::chrono::steady_clock::now();
            }
            if (done && batch.empty()) return true;  // everything, response included, is out
            if (done) {
                lock.lock();
                if (ex.queue.empty()) return true;
                continue;
            }
            if (st.gone() || ended()) return false;
            if (std::chrono::steady_clock::now() - last_write >= o_.keep_alive_interval) {
                if (!st.write(":\n\n")) return false;
                last_write = std::chrono::steady_clock::now();
            }
            lock.lock();
        }
    }

    /// Answer a POSTed request: JSON when its response comes first, else an SSE stream.
    /// `finish(cancelled)` runs once the exchange is over.
    net::http_response answer(const net::http_request& r, std::shared_ptr<exchange> ex, const json& id, std::function<void(bool)> finish,
                              bool modern) {
        const auto begun = std::chrono::steady_clock::now();
        std::unique_lock lock(ex->mu);
        while (ex->queue.empty()) {
            if (ex->cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return !ex->queue.empty(); })) break;
            if (r.client_gone() || stopping_.load()) {
                lock.unlock();
                finish(true);
                return error_response(503, -32000, "the request was abandoned", nullptr, id);
            }
            if (std::chrono::steady_clock::now() - begun >= o_.stream_after) break;
        }
        if (ex->queue.size() == 1 && ex->done) {
            std::string m = std::move(ex->queue.front());
            ex->queue.clear();
            lock.unlock();
            finish(false);
            int status = 200;
            if (auto c = error_code_of(m); c && modern) {
                if (*c == code::method_not_found) status = 404;
                else if (*c == code::missing_client_capability || *c == code::unsupported_version || *c == code::header_mismatch) status = 400;
            }
            return net::http_response::json_text(std::move(m), status);
        }
        lock.unlock();
        auto out = net::http_response::streamed("text/event-stream", [this, ex, finish = std::move(finish)](net::http_stream& st) {
            const bool complete = pump(st, *ex, [] { return false; });
            finish(!complete);
        });
        sse_headers(out);
        return out;
    }

    // ---- idle sessions ---------------------------------------------------------------------------------------

    void reap_loop() {
        const bool heartbeat = o_.ping_timeout.count() > 0;
        const auto tick = heartbeat ? std::chrono::milliseconds(100) : std::chrono::milliseconds(1000);
        std::unique_lock lock(reap_mu_);
        while (!stopping_.load()) {
            reap_cv_.wait_for(lock, tick, [&] { return stopping_.load(); });
            if (stopping_.load()) return;
            lock.unlock();
            std::vector<std::string> gone;
            std::vector<std::shared_ptr<entry>> all;
            const auto now = std::chrono::steady_clock::now();
            {
                std::lock_guard l2(sessions_mu_);
                for (auto& [id, e] : sessions_) {
                    std::lock_guard l3(e->mu);
                    if (e->active == 0 && now - e->last_used >= o_.session_idle_timeout) gone.push_back(id);
                    else if (heartbeat) all.push_back(e);
                }
            }
            for (const auto& e : all)
                if (!beat(*e, now)) gone.push_back(e->id);
            for (const auto& id : gone) drop(id);
            lock.lock();
        }
    }

    /// One heartbeat step for `e` (the reaper thread's): false when its client did not answer in time.
    bool beat(entry& e, std::chrono::steady_clock::time_point now) {
        if (e.ping) {
            if (e.ping->answered()) {
                e.ping.reset();
                e.ping_at = now + o_.ping_interval;
                return true;
            }
            return now < e.ping_late;
        }
        if (now < e.ping_at) return true;
        {
            std::lock_guard lock(e.mu);  // (counted as active: the session's server stays while it is pinged)
            if (!e.announced || e.ended || !e.get_open) return true;
            ++e.active;
        }
        e.ping = e.srv->ping_client(*e.s);
        {
            std::lock_guard lock(e.mu);
            --e.active;
            e.quiet.notify_all();
        }
        if (e.ping) e.ping_late = now + o_.ping_timeout;
        else e.ping_at = now + o_.ping_interval;  // no stream to send it on just now
        return true;
    }

    server* shared_ = nullptr;
    server_factory make_;
    http_options o_;
    std::unique_ptr<net::http_server> http_;
    std::atomic<bool> stopping_{false};
    mutable std::mutex sessions_mu_;
    std::map<std::string, std::shared_ptr<entry>> sessions_;
    std::mutex listen_mu_;
    std::size_t listen_streams_ = 0;
    std::mutex probe_mu_;
    std::unique_ptr<server> probe_;
    std::mutex reap_mu_;
    std::condition_variable reap_cv_;
    std::thread reaper_;
};
static_assert(transport<http_transport>);

}  // namespace agentkit::mcp
