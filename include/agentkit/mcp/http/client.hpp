// agentkit/mcp/http/client.hpp — the MCP Streamable HTTP client transport (revision
// 2025-11-25 and older): mcp::client over HTTP(S), through libcurl (needs agentkit::curl).
//
//   agentkit::mcp::http_server_endpoint ep;
//   ep.url = "https://mcp.example.com/mcp";
//   ep.headers = {{"Authorization", "Bearer " + token}};       // sent as given, never printed
//   auto c = agentkit::mcp::client::connect(std::make_unique<agentkit::mcp::http_client_transport>(ep), o);
//
// The wire: every message is a POST to the endpoint (Accept: application/json, text/event-stream).
// The initialize answer's Mcp-Session-Id header is sent with every later request, and
// MCP-Protocol-Version with the negotiated revision. A request is answered with JSON or with an
// SSE stream carrying its notifications, the server's requests about it, then its response; a
// stream that ends before the response is resumed with a GET carrying Last-Event-ID, after the
// `retry` the server asked for (up to max_resume_attempts times). A GET stream carries what
// belongs to no request (list changes, log messages); a server without one answers 405 and
// the client does without. Closing sends DELETE to end the session.
//
// The stateless era (2026-07-28, when a request's `_meta` names it): MCP-Protocol-Version is the
// revision the message's `_meta` gives, Mcp-Method names the method, Mcp-Name the tool, prompt or
// resource (tools/call, prompts/get: params.name; resources/read: params.uri; the tasks
// extension's tasks/*: params.taskId; a value that is not
// plain printable ASCII is sent as =?base64?…?=), and tools/call mirrors the arguments its tool's
// inputSchema marks with x-mcp-header into Mcp-Param-<name> headers (the schemas are read from the
// tools/list answers passing through; null and absent arguments are left out). An error status whose body is the JSON-RPC
// error answering the request is that error (remote.error), not a transport failure.
//
// Authorization: a fixed token goes in `headers`; or `authorizer` (mcp/http/oauth.hpp's
// oauth_authorizer, MCP's OAuth 2.1) gives the Authorization header of every request and, when
// the server refuses one with 401 or 403, gets credentials that may pass (discovery, the
// authorization code flow, a refresh, a scope step-up); the request is then sent again, at most
// max_auth_retries times.
//
// Failures of one request fail that request only: 401/403 → `auth.required` (what to
// configure; the authorizer's own error when it could not help), other statuses → `transport.io` with the status, a stream that cannot be resumed
// → `transport.io`. A 404 on a request carrying a session id means the server ended the session:
// the connection ends (`transport.closed`), and a host reconnects. Messages name the URL without
// its query or credentials, never a header.
#pragma once

#include <agentkit/net/http_client.hpp>
#include <agentkit/core/declared_order.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/core/url.hpp>
#include <agentkit/core/base64.hpp>
#include <agentkit/mcp/client/transport.hpp>
#include <agentkit/mcp/protocol.hpp>
#include <agentkit/net/sse.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace agentkit::mcp {

/// What answers an HTTP server's demand for credentials (mcp/http/oauth.hpp's oauth_authorizer).
/// Called from the transport's request threads, possibly at once: implementations are thread-safe.
class http_authorizer {
public:
    http_authorizer() = default;
    http_authorizer(const http_authorizer&) = delete;
    http_authorizer& operator=(const http_authorizer&) = delete;
    virtual ~http_authorizer() = default;
    /// The Authorization header value for the next request ("" for none). Never printed.
    [[nodiscard]] virtual std::string authorization() = 0;
    /// The server at `url` refused a request that carried `sent` (the Authorization value, "" for
    /// none) with `status` (401 or 403) and this WWW-Authenticate header: get credentials that may
    /// pass (the request is then sent again), or say why not and what the host can do.
    [[nodiscard]] virtual result<void> refused(const std::string& url, int status, const std::string& www_authenticate,
                                               const std::string& sent) = 0;
    /// A request that carried the current credentials was not refused (ends a streak of refusals).
    virtual void accepted() {}
    /// The credential headers of one request to `url` with `method` (a DPoP proof binds both);
    /// by default the Authorization header from authorization() alone.
    [[nodiscard]] virtual std::vector<std::pair<std::string, std::string>> authorization_headers(std::string_view method, std::string_view url) {
        (void)method;
        (void)url;
        std::string a = authorization();
        if (a.empty()) return {};
        return {{"Authorization", std::move(a)}};
    }
    /// The server sent a DPoP-Nonce header (RFC 9449 §9): the next proofs carry it. Called before
    /// refused() for the same answer.
    virtual void server_nonce(std::string_view nonce) { (void)nonce; }
};

/// Where a Streamable HTTP MCP server is (the `url`/`headers` of an `mcpServers` entry).
struct http_server_endpoint {
    std::string url;  ///< http:// or https:// endpoint ("https://host/mcp")
    std::vector<std::pair<std::string, std::string>> headers;  ///< sent with every request; never printed
    std::chrono::milliseconds connect_timeout{10000};  ///< connecting (and TLS)
    std::size_t max_message_bytes = std::size_t{32} << 20U;  ///< largest JSON answer or SSE event accepted
    int max_resume_attempts = 5;  ///< GETs with Last-Event-ID before a broken stream fails its request
    std::chrono::milliseconds default_retry{1000};  ///< wait before resuming when the server named no `retry`
    bool listen = true;  ///< open the GET stream for messages that belong to no request
    /// How long the handshake waits for that GET stream to open (its headers, or its refusal)
    /// before the first request goes out, so that the server knows the stream for what it
    /// is: a plain listener, not the resumption of a request's stream that ended.
    std::chrono::milliseconds listen_open_wait{2000};
    /// Gives the Authorization header and answers 401/403 (mcp/http/oauth.hpp); null: `headers` only.
    std::shared_ptr<http_authorizer> authorizer;
    int max_auth_retries = 3;  ///< times one request is sent again after its authorizer got new credentials
};

/// The Streamable HTTP client transport (see the file comment).
class http_client_transport final : public client_transport {
public:
    /// A transport to `ep` (nothing is sent before start()).
    explicit http_client_transport(http_server_endpoint ep) : ep_(std::move(ep)) {}
    ~http_client_transport() override { close(); }

    /// Check the URL. `request.invalid` when it is not http(s).
    result<void> start(transport_handlers h) override {
        auto u = parse_url(ep_.url);
        if (!u || (u->scheme != "http" && u->scheme != "https"))
            return fail(errc::request_invalid, "\"" + net::redact_url(ep_.url) + "\" is not an http(s) URL",
                        "Give the server's endpoint as an http:// or https:// URL.");
        h_ = std::move(h);
        started_ = true;
        return {};
    }

    /// POST one message. A request is sent from a thread of its own (its answer may stream for
    /// long); notifications and responses are sent at once.
    result<void> send(const std::string& message) override {
        if (stop_.stop_requested()) return fail(errc::transport_closed, "the connection to " + describe() + " is closed");
        reap();
        json m = json::parse(message, nullptr, false);
        const bool is_request = m.is_object() && m.contains("method") && m.contains("id");
        std::vector<std::pair<std::string, std::string>> extra = message_headers(m);
        if (!is_request) {
            auto r = post(message, nullptr, m.is_object() ? m.value("method", "") : std::string(), extra);
            if (!r) return r;
            if (m.is_object() && m.value("method", "") == "notifications/initialized" && ep_.listen) start_listener();
            return {};
        }
        std::lock_guard lock(threads_mu_);
        workers_.emplace_back();
        auto it = std::prev(workers_.end());
        it->thread = std::thread([this, message, id = m["id"], method = m.value("method", ""), it, extra = std::move(extra)] {
            (void)post(message, id, method, extra);
            std::lock_guard l(threads_mu_);
            it->done = true;
        });
        return {};
    }

    /// End the session (DELETE), stop every stream and join every thread. Idempotent.
    void close() override {
        if (!started_ || closing_.exchange(true)) return;
        stop_.request_stop();
        {
            std::lock_guard lock(cv_mu_);
            cv_.notify_all();
        }
        std::list<worker> all;
        {
            std::lock_guard lock(threads_mu_);
            all.swap(workers_);
        }
        for (auto& w : all)
            if (w.thread.joinable()) w.thread.join();
        if (listener_.joinable()) listener_.join();
        const std::string sid = session_id();
        if (!sid.empty()) {
            net::client_request rq = base_request("DELETE");
            rq.timeout = std::chrono::milliseconds(2000);
            (void)http_.perform(rq);
        }
        if (h_.on_close && !closed_reported_.exchange(true)) h_.on_close(error(errc::transport_closed, "the connection to " + describe() + " was closed by the host"));
    }

    /// The URL without its query or credentials.
    [[nodiscard]] std::string describe() const override { return net::redact_url(ep_.url); }

    /// The session the server gave (empty before initialize or when it gave none).
    [[nodiscard]] std::string session_id() const {
        std::lock_guard lock(state_mu_);
        return session_;
    }
    /// Streams resumed with Last-Event-ID so far.
    [[nodiscard]] std::size_t resumptions() const noexcept { return resumed_.load(); }

private:
    struct worker {
        std::thread thread;
        bool done = false;
    };

    void reap() {
        std::list<worker> finished;
        {
            std::lock_guard lock(threads_mu_);
            for (auto it = workers_.begin(); it != workers_.end();) {
                if (it->done) {
                    auto next = std::next(it);
                    finished.splice(finished.end(), workers_, it);
                    it = next;
                } else {
                    ++it;
                }
            }
        }
        for (auto& w : finished)
            if (w.thread.joinable()) w.thread.join();
    }

    net::client_request base_request(std::string method) const {
        net::client_request rq;
        rq.method = std::move(method);
        rq.url = ep_.url;
        rq.connect_timeout = ep_.connect_timeout;
        rq.max_response_bytes = ep_.max_message_bytes;
        rq.headers = ep_.headers;
        if (ep_.authorizer)
            for (auto& h : ep_.authorizer->authorization_headers(rq.method, ep_.url)) rq.headers.push_back(std::move(h));
        std::lock_guard lock(state_mu_);
        if (!session_.empty()) rq.headers.emplace_back("Mcp-Session-Id", session_);
        if (!version_.empty()) rq.headers.emplace_back("MCP-Protocol-Version", version_);
        return rq;
    }

    /// Deliver one message; note the negotiated version when it passes.
    bool deliver(std::string_view data, const json& id, bool& answered) {
        json m = json::parse(data, nullptr, false);
        if (m.is_object() && !m.contains("method") && m.contains("id")) {
            if (!id.is_null() && m["id"] == id) answered = true;
            if (m.contains("result") && m["result"].is_object() && m["result"].contains("tools") && m["result"]["tools"].is_array()) note_tools(m["result"]["tools"]);
            if (m.contains("result") && m["result"].is_object() && m["result"].contains("protocolVersion") &&
                m["result"]["protocolVersion"].is_string()) {
                std::lock_guard lock(state_mu_);
                if (version_.empty()) version_ = m["result"]["protocolVersion"].get<std::string>();
            }
        }
        if (h_.on_message) h_.on_message(data);
        return true;
    }

    error status_error(int status, const std::string& body, const std::string& what) const {
        std::string snippet = body.substr(0, 200);
        for (char& c : snippet)
            if (static_cast<unsigned char>(c) < 0x20) c = ' ';
        if (status == 401 || status == 403)
            return error(errc::auth_required, what + " was refused with HTTP " + std::to_string(status) + " by " + describe(),
                         "The server needs credentials: give its token in the server's \"headers\" (Authorization) in the configuration.",
                         json{{"status", status}, {"url", describe()}});
        return error(errc::transport_io, what + " failed with HTTP " + std::to_string(status) + " from " + describe() + (snippet.empty() ? "" : ": " + snippet),
                     "Check the server's URL; try again later if the server is overloaded.", json{{"status", status}, {"url", describe()}});
    }

    /// Read an SSE body from `rq`, delivering its events; returns false when the transfer failed.
    struct stream_state {
        std::string last_event_id;
        std::optional<long> retry_ms;
        bool answered = false;
    };

    result<net::client_response> read_stream(const net::client_request& rq, const json& id, stream_state& st, bool& is_sse, std::string& body,
                                             const net::head_sink& on_head = {}) {
        net::sse_reader sse(ep_.max_message_bytes);
        bool decided = false;
        is_sse = false;
        bool too_big = false;
        auto sink = [&](const net::client_response& head, std::string_view piece) {
            if (!decided) {
                decided = true;
                is_sse = head.status == 200 && ascii_lower(head.header("content-type")).rfind("text/event-stream", 0) == 0;
                if (head.status == 200) {
                    const std::string sid = head.header("mcp-session-id");
                    std::lock_guard lock(state_mu_);
                    if (!sid.empty() && session_.empty()) session_ = sid;
                }
            }
            if (!is_sse) {
                if (body.size() + piece.size() > ep_.max_message_bytes) {
                    too_big = true;
                    return false;
                }
                body.append(piece);
                return true;
            }
            return sse.feed(piece, [&](const net::sse_event& e) {
                if (!e.id.empty()) st.last_event_id = e.id;
                if (e.retry_ms) st.retry_ms = *e.retry_ms;
                if (!e.data.empty()) deliver(e.data, id, st.answered);
                return !stop_.stop_requested();
            });
        };
        auto r = http_.perform(rq, sink, stop_.get_token(), on_head);
        if (too_big)
            return fail(errc::budget_exceeded, "an answer from " + describe() + " was over " + std::to_string(ep_.max_message_bytes >> 20U) + " MiB",
                        "Ask for less at a time (a smaller range, a page, a filter).");
        if (!r && sse.overflowed())
            return fail(errc::budget_exceeded, "an event from " + describe() + " was over the size limit", "Ask for less at a time.");
        return r;
    }

    /// A header value as SEP-2243 sends it: as is when plain printable ASCII without surrounding
    /// spaces, else =?base64?<UTF-8 bytes>?=.
    static std::string header_value(std::string_view v) {
        bool plain = v.empty() || (v.front() != ' ' && v.back() != ' ');
        for (char c : v)
            if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) plain = false;
        return plain ? std::string(v) : "=?base64?" + base64_encode(v) + "?=";
    }

    /// The revision a message's `_meta` names (the stateless era), noted for every later request;
    /// initialize forgets it (its answer names the handshake's). Headers of the stateless era.
    std::vector<std::pair<std::string, std::string>> message_headers(const json& m) {
        std::vector<std::pair<std::string, std::string>> out;
        if (!m.is_object() || !m.contains("method") || !m["method"].is_string()) return out;
        const std::string method = m["method"].get<std::string>();
        const json params = m.value("params", json::object());
        bool stateless = false;
        {
            std::lock_guard lock(state_mu_);
            if (method == "initialize") version_.clear();
            if (params.is_object() && params.contains("_meta") && params["_meta"].is_object() && params["_meta"].contains(meta_key::protocol_version) &&
                params["_meta"][meta_key::protocol_version].is_string())
                version_ = params["_meta"][meta_key::protocol_version].get<std::string>();
            stateless = version_ == stateless_version;
        }
        if (!stateless) return out;
        out.emplace_back("Mcp-Method", header_value(method));
        const char* name_field = mcp_name_field(method);
        if (name_field != nullptr && params.is_object() && params.contains(name_field) && params[name_field].is_string())
            out.emplace_back("Mcp-Name", header_value(params[name_field].get<std::string>()));
        if (method == "tools/call" && params.is_object() && params.contains("name") && params["name"].is_string() && params.contains("arguments") &&
            params["arguments"].is_object()) {
            std::vector<parameter_header> mirrored;
            {
                std::lock_guard lock(state_mu_);
                auto it = param_headers_.find(params["name"].get<std::string>());
                if (it != param_headers_.end()) mirrored = it->second;
            }
            const json& args = params["arguments"];
            for (const auto& ph : mirrored) {
                auto a = args.find(ph.property);
                if (a == args.end() || a->is_null()) continue;
                std::string v;
                if (a->is_string()) v = a->get<std::string>();
                else if (a->is_boolean()) v = a->get<bool>() ? "true" : "false";
                else if (a->is_number()) v = a->dump();
                else continue;
                out.emplace_back("Mcp-Param-" + ph.header, header_value(v));
            }
        }
        return out;
    }

    /// Note the x-mcp-header annotations of listed tools (valid ones only).
    void note_tools(const json& tools) {
        std::lock_guard lock(state_mu_);
        for (const auto& t : tools) {
            if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) continue;
            auto ph = parameter_headers(t.value("inputSchema", json::object()));
            if (ph && !ph->empty()) param_headers_[t["name"].get<std::string>()] = std::move(*ph);
            else param_headers_.erase(t["name"].get<std::string>());
        }
    }

    /// The Authorization value `rq` carries ("" when none).
    static std::string sent_authorization(const net::client_request& rq) {
        for (const auto& [k, v] : rq.headers)
            if (iequals_ascii(k, "authorization")) return v;
        return {};
    }

    result<void> post(const std::string& message, const json& id, const std::string& method,
                      const std::vector<std::pair<std::string, std::string>>& extra) {
        const std::string what = method.empty() ? std::string("a message") : method;
        auto failed = [&](error e) -> result<void> {
            if (!id.is_null() && h_.on_request_failed && !stop_.stop_requested()) h_.on_request_failed(id, e);
            return fail(std::move(e));
        };
        net::client_request rq;
        bool had_session = false;
        stream_state st;
        bool is_sse = false;
        std::string body;
        result<net::client_response> r = fail(errc::internal, "not sent");
        for (int auth_try = 0;; ++auth_try) {
            rq = base_request("POST");
            rq.headers.emplace_back("Content-Type", "application/json");
            rq.headers.emplace_back("Accept", "application/json, text/event-stream");
            rq.headers.insert(rq.headers.end(), extra.begin(), extra.end());
            rq.body = message;
            had_session = !session_id().empty();
            st = stream_state{};
            is_sse = false;
            body.clear();
            r = read_stream(rq, id, st, is_sse, body);
            if (r && ep_.authorizer)
                if (const std::string nonce = r->header("dpop-nonce"); !nonce.empty()) ep_.authorizer->server_nonce(nonce);
            if (r && ep_.authorizer && r->status != 401 && r->status != 403 && !sent_authorization(rq).empty()) ep_.authorizer->accepted();
            if (!r || (r->status != 401 && r->status != 403) || !ep_.authorizer || auth_try >= ep_.max_auth_retries) break;
            auto renewed = ep_.authorizer->refused(ep_.url, r->status, r->header("www-authenticate"), sent_authorization(rq));
            if (!renewed) {
                error e = std::move(renewed).error();
                if (!e.details.is_object()) e.details = json::object();
                e.details["status"] = r->status;
                e.details["url"] = describe();
                e.message = what + " to " + describe() + " was refused with HTTP " + std::to_string(r->status) + ": " + e.message;
                return failed(std::move(e));
            }
        }
        if (!r) {
            if (stop_.stop_requested()) return fail(errc::transport_closed, "closed");
            error e = std::move(r).error();
            if (e.hint.empty()) e.hint = "Check that the server at " + describe() + " is running and reachable.";
            return failed(std::move(e));
        }
        const int status = r->status;
        if (status == 202 || status == 204) return {};
        if (status == 404 && had_session) {
            error e(errc::transport_closed, "the server at " + describe() + " ended the session",
                    "Reconnect: the server forgot this session (it restarted or timed it out).");
            if (h_.on_close && !closed_reported_.exchange(true)) h_.on_close(e);
            return fail(std::move(e));
        }
        if (status != 200) {
            // The JSON-RPC error answering this request (the stateless era answers errors with 4xx).
            json answer = json::parse(body, nullptr, false);
            if (status != 401 && status != 403 && !id.is_null() && answer.is_object() && answer.contains("error") && answer.contains("id") && answer["id"] == id) {
                bool answered = false;
                deliver(body, id, answered);
                return {};
            }
            return failed(status_error(status, body, what));
        }
        if (!is_sse) {
            if (!body.empty()) {
                bool answered = false;
                json parsed = json::parse(body, nullptr, false);
                if (parsed.is_array()) {
                    remember_declared_orders(body, parsed);  // written again below, in the order they came
                    for (const auto& one : parsed) deliver(dump_declared(one, json::error_handler_t::replace), id, answered);
                } else {
                    deliver(body, id, answered);
                }
            }
            return {};
        }
        // An SSE answer: resume until the response came (or give up).
        for (int attempt = 0; !st.answered && !id.is_null(); ++attempt) {
            if (st.last_event_id.empty() || attempt >= ep_.max_resume_attempts)
                return failed(error(errc::transport_io,
                                    "the stream answering " + what + " ended before its response" +
                                        (st.last_event_id.empty() ? " and cannot be resumed (no event id)" : " and could not be resumed"),
                                    "Try the call again.", json{{"url", describe()}}));
            if (!wait_for(std::chrono::milliseconds(st.retry_ms.value_or(ep_.default_retry.count())))) return fail(errc::transport_closed, "closed");
            net::client_request g = base_request("GET");
            g.headers.emplace_back("Accept", "text/event-stream");
            g.headers.emplace_back("Last-Event-ID", st.last_event_id);
            ++resumed_;
            std::string gbody;
            bool g_sse = false;
            auto gr = read_stream(g, id, st, g_sse, gbody);
            if (!gr && stop_.stop_requested()) return fail(errc::transport_closed, "closed");
            if (gr && gr->status != 200) return failed(status_error(gr->status, gbody, what + " (resuming)"));
        }
        return {};
    }

    /// Wait, waking early on close(); false when closing.
    bool wait_for(std::chrono::milliseconds d) {
        std::unique_lock lock(cv_mu_);
        return !cv_.wait_for(lock, d, [&] { return stop_.stop_requested(); });
    }

    /// Start the GET listener and wait (listen_open_wait at most) until its first GET is open or
    /// answered.
    void start_listener() {
        {
            std::lock_guard lock(threads_mu_);
            if (listener_.joinable()) return;
            listener_ = std::thread([this] {
                stream_state st;
                int failures = 0;
                const net::head_sink opened = [this](const net::client_response&) { listener_settled(); };
                while (!stop_.stop_requested() && failures < ep_.max_resume_attempts) {
                    net::client_request g = base_request("GET");
                    g.headers.emplace_back("Accept", "text/event-stream");
                    if (!st.last_event_id.empty()) g.headers.emplace_back("Last-Event-ID", st.last_event_id);
                    std::string body;
                    bool is_sse = false;
                    auto r = read_stream(g, nullptr, st, is_sse, body, opened);
                    listener_settled();  // refused or failed: nobody waits for it any longer
                    if (stop_.stop_requested()) return;
                    if (r && (r->status == 405 || r->status == 404 || r->status == 400)) return;  // no stream offered
                    if (r && is_sse) failures = 0;
                    else ++failures;
                    if (!wait_for(std::chrono::milliseconds(st.retry_ms.value_or(ep_.default_retry.count())))) return;
                }
            });
        }
        std::unique_lock lock(cv_mu_);
        cv_.wait_for(lock, ep_.listen_open_wait, [&] { return listener_settled_ || stop_.stop_requested(); });
    }

    void listener_settled() {
        std::lock_guard lock(cv_mu_);
        if (listener_settled_) return;
        listener_settled_ = true;
        cv_.notify_all();
    }

    http_server_endpoint ep_;
    transport_handlers h_;
    net::http_client http_;
    std::stop_source stop_;
    std::atomic<bool> closing_{false};
    std::atomic<bool> closed_reported_{false};
    std::atomic<std::size_t> resumed_{0};
    bool started_ = false;
    mutable std::mutex state_mu_;
    std::string session_;
    std::string version_;
    std::map<std::string, std::vector<parameter_header>> param_headers_;  // by tool name (x-mcp-header)
    std::mutex threads_mu_;
    std::list<worker> workers_;
    std::thread listener_;
    bool listener_settled_ = false;  // the listener's first GET is open or over (under cv_mu_)
    std::mutex cv_mu_;
    std::condition_variable cv_;
};

}  // namespace agentkit::mcp
