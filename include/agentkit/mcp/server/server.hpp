// agentkit/mcp/server/server.hpp — a Model Context Protocol server over any agentkit toolbox, with
// resources, prompts and completions when its backend has them.
//
// (Over 1,000 lines because it is one protocol engine: the two eras share each method's
// handler, the session state and the in-flight bookkeeping, and splitting them apart would
// write the dispatch twice; the tasks extension's promotion of a running call is part of that
// bookkeeping. What is not the engine lives beside it: the wire types in
// mcp/protocol.hpp, features in mcp/server/features.hpp, backends in mcp/server/backend.hpp,
// client requests in mcp/server/request.hpp, the task store in mcp/server/tasks.hpp, HTTP in
// mcp/http/server.hpp.)
//
//   agentkit::toolbox tools{get_weather, search};
//   agentkit::mcp::server srv{agentkit::mcp::backend_for(tools), {.name = "weather", .version = "1.0"}};
//   return agentkit::mcp::run_stdio(srv);   // stdout carries protocol messages only
//
// backend_for(tools, masker) serves a toolbox through a visibility masker; backend_for(session)
// serves an agent_session: its masker's tools, its formatter's budgets, its artifact store.
// add_resources() and add_prompts() (mcp/server/backend.hpp) add resources, templates and prompts.
//
// Transports: the server is the protocol engine; a transport feeds it messages and carries its
// answers. stdio_transport (here) and http_transport (agentkit/mcp/http/server.hpp, Streamable
// HTTP, needs agentkit::net) both model mcp::transport; `serve(transport, stop)` runs one.
// A transport opens a session per client (open_session()): the handshake era keeps the
// negotiated version, the client's capabilities, its log level and its subscriptions there.
// Every message is handled with a reply function that receives what belongs to it (its
// response, the notifications and server requests about it); other messages (list changes,
// resource updates) go to the session's sink.
//
// Tool output becomes MCP content: text, image, audio, resource_link (an artifact reference),
// embedded resource (an artifact carrying its text or blob), and structuredContent for typed
// output, checked against the tool's outputSchema (a mismatch is an isError result).
//
// Protocol: JSON-RPC 2.0. Revisions 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05 through
// the initialize handshake (the server answers with the client's version when it supports it,
// else with its latest), and the stateless 2026-07-28 revision (server/discover; every request
// carries its version and capabilities in `_meta`; results carry `resultType`; list results
// and server/discover carry `ttlMs`/`cacheScope`; an unsupported version is answered with
// -32022; methods the revision removed — initialize, ping, logging/setLevel,
// resources/subscribe, resources/unsubscribe — with -32601; subscriptions/listen opens a
// notification stream; handlers needing client input answer input_required, see
// mcp/server/request.hpp). Clients of either era work with one server.
//
// Behaviour on bad input: malformed JSON (a raw NUL byte, invalid UTF-8, an over-long line,
// nesting deeper than max_depth included) → -32700 with id null; a message that is not a valid
// JSON-RPC request (wrong "jsonrpc", an id that is not a string or an integer, a method that is
// not a string, params that are not structured) → -32600, with the id when it is valid, even
// without an id; an id still in flight → -32600; unknown method (a "notifications/..." method
// sent with an id included: it is a request) → -32601; by-position params, bad params,
// tools/call arguments that are not an object, unknown tools, prompts and resources → -32602;
// invalid tool arguments and tool failures → a normal result with isError (the model sees
// them). Notifications are never answered; the client's responses go to the server request
// that waits for them. Nothing a client sends crashes the server or writes anything but whole
// protocol messages.
//
// Concurrency: handlers (tools/call, prompts/get, resources/read) run on worker threads;
// calls of parallel-safe tools run together, the others one at a time (prompts and resource
// reads count as parallel-safe). The reader never waits for a handler. Cancellation
// (notifications/cancelled, or a transport whose client went away) requests stop through the
// call's tool_context and suppresses its response; progress tokens turn
// tool_context::progress into notifications/progress.
#pragma once

#include <agentkit/mcp/server/backend.hpp>
#include <agentkit/core/declared_order.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/observer.hpp>
#include <agentkit/core/random.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/mcp/server/features.hpp>
#include <agentkit/mcp/protocol.hpp>
#include <agentkit/mcp/server/request.hpp>
#include <agentkit/mcp/server/tasks.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/export.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>

#include <algorithm>
#include <cmath>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <concepts>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <poll.h>
#include <signal.h>
#include <unistd.h>

namespace agentkit::mcp {

/// How the requestState of input_required results (2026-07-28) is protected. `seal` turns a
/// payload into the opaque string the client echoes; `open` gives the payload back, or nothing
/// when the string was not sealed here (forged, altered or forgotten); `digest` condenses a
/// request's arguments into the payload (collision-resistant where the payload leaves the
/// server). Leave empty for the built-in codec, which keeps payloads in the server (bounded,
/// expiring) and gives the client a random reference; agentkit/mcp/http/server.hpp has an
/// HMAC-SHA-256 codec that keeps the server stateless.
struct state_codec {
    std::function<std::string(const std::string& payload)> seal;  ///< payload → the opaque requestState string
    /// The requestState string → the payload; nullopt when it was not sealed here.
    std::function<std::optional<std::string>(std::string_view sealed)> open;
    /// A request's arguments → the condensed form kept in the payload.
    std::function<std::string(std::string_view text)> digest;
};

/// What a server says about itself, and its limits.
struct server_options {
    std::string name = "agentkit";  ///< serverInfo.name
    std::string version = "0.1.0";  ///< serverInfo.version
    std::string title;              ///< serverInfo.title ("" = not sent)
    /// The instructions the client may give the model ("" = not sent); a backend's own (a
    /// masker's account of its meta-tools: backend::instructions) follow them.
    std::string instructions;
    /// List page size (cursor pagination); 0 lists everything in one page.
    std::size_t page_size = 100;
    /// Cache hints for the stateless era.
    std::int64_t list_ttl_ms = 0;
    std::string cache_scope = "private";  ///< the cacheScope of list results (stateless era)
    /// Worker threads for handlers (requests beyond it queue in arrival order).
    std::size_t max_in_flight = 16;  // (calls running as tasks have threads of their own on top: tasks.max_tasks bounds them)
    /// Longest accepted message (bytes).
    std::size_t max_message_bytes = std::size_t{64} << 20U;
    /// Deepest accepted JSON nesting.
    std::size_t max_depth = 256;
    /// Minimum level written to stderr ("debug" ... "emergency"); "off" writes nothing.
    std::string stderr_level = "warning";
    /// How long a handler waits for the client's answer to a server request (handshake era).
    std::chrono::milliseconds client_request_timeout{std::chrono::minutes(5)};
    /// How long a requestState stays valid (stateless era).
    std::chrono::seconds request_state_ttl{std::chrono::minutes(10)};
    /// requestState protection (empty: the built-in server-side store).
    state_codec request_state;
    /// Tasks (the tasks extension, stateless era): how long they are kept, the polling interval
    /// suggested, when a long call becomes one (mcp/server/tasks.hpp).
    task_options tasks;
    /// A successful tools/call result leaves isError out (the schema's default is false), as
    /// some servers write theirs (Playwright MCP); false: always sent.
    bool omit_false_is_error = false;
    /// Told of each request received and its answer (core/observer.hpp: mcp_request_received and
    /// mcp_response_sent, scope: `name`; a failed answer's error_code is its JSON-RPC code). A
    /// tool a request calls gets the request's event as tool_context::parent_event. Called on the
    /// transport's and the workers' threads.
    observer on_event;
};

/// Where the messages about one incoming message go: its response (`last` = true: the request
/// is answered) and the notifications and server requests sent before it.
using reply_fn = std::function<void(const std::string& message, bool last)>;

class server;

/// One client of a server: in the handshake era its negotiated version, its capabilities, its
/// log level and its resource subscriptions. Created by server::open_session().
class session : public std::enable_shared_from_this<session> {
public:
    /// Receives one message.
    using sink = std::function<void(const std::string& message)>;

    /// Where messages that belong to no request go (list changes, resource updates, logs).
    void set_sink(sink s) {
        std::lock_guard lock(out_mu_);
        sink_ = std::move(s);
    }
    /// Who the client is, for binding requestState to it (set by the transport).
    void set_principal(std::string p) {
        std::lock_guard lock(mu_);
        principal_ = std::move(p);
    }
    /// The protocol revision initialize agreed on ("" before initialize).
    [[nodiscard]] std::string negotiated_version() const {
        std::lock_guard lock(mu_);
        return version_;
    }
    /// True once the client sent notifications/initialized.
    [[nodiscard]] bool initialized() const noexcept { return initialized_.load(); }
    /// True once the session was closed.
    [[nodiscard]] bool closed() const noexcept { return closed_.load(); }
    /// Requests of this session being served now.
    [[nodiscard]] std::size_t in_flight() const {
        std::lock_guard lock(mu_);
        return in_flight_.size();
    }

private:
    friend class server;
    friend class client_ping;
    struct call_state {
        std::stop_source stop;
        std::atomic<bool> cancelled{false};
        std::atomic<bool> detached{false};  // answered with a task: nothing more goes to its stream
        std::mutex send_mu;                 // its notifications, and the task handle, one at a time
        std::function<void()> on_cancel;  // a listener's removal
    };
    struct awaited {
        std::mutex mu;
        std::condition_variable_any cv;
        bool done = false;
        json response;
    };

    bool emit(const std::string& m) {  // false: nowhere to send it (no sink, e.g. no HTTP stream open)
        std::lock_guard lock(out_mu_);
        if (!sink_) return false;
        sink_(m);
        return true;
    }

    mutable std::mutex mu_;
    std::string version_;
    std::string principal_;
    json caps_ = json::object();
    std::atomic<bool> initialized_{false};
    std::atomic<bool> closed_{false};
    std::atomic<int> level_{100};  // no notifications/message until setLevel
    std::set<std::string, std::less<>> subscriptions_;
    std::map<std::string, std::shared_ptr<call_state>> in_flight_;
    std::map<std::string, std::shared_ptr<awaited>> awaiting_;
    std::uint64_t next_request_ = 0;
    std::mutex out_mu_;
    sink sink_;
};

/// A ping the server sent a client (server::ping_client): whether it answered. Destroying it
/// stops waiting (a late answer is then dropped).
class client_ping {
public:
    client_ping(const client_ping&) = delete;
    client_ping& operator=(const client_ping&) = delete;
    ~client_ping() {
        if (auto s = session_.lock()) {
            std::lock_guard lock(s->mu_);
            s->awaiting_.erase(key_);
        }
    }
    /// True once the client answered (with a result or an error: it is there either way).
    [[nodiscard]] bool answered() const {
        std::lock_guard lock(w_->mu);
        return w_->done;
    }

private:
    friend class server;
    client_ping(std::weak_ptr<session> s, std::string key, std::shared_ptr<session::awaited> w)
        : session_(std::move(s)), key_(std::move(key)), w_(std::move(w)) {}
    std::weak_ptr<session> session_;
    std::string key_;
    std::shared_ptr<session::awaited> w_;
};

namespace detail {

/// The built-in requestState codec: payloads stay in the server, the client gets a random
/// reference (128 bits). Bounded by count and bytes; the oldest go first.
class state_store {
public:
    std::string seal(const std::string& payload) {
        const std::string r = agentkit::random_hex(16);
        if (r.empty()) return {};  // no random source: nothing is kept, and "" is never opened
        std::string token = "st1." + r;
        std::lock_guard lock(mu_);
        bytes_ += payload.size();
        order_.push_back(token);
        items_[token] = payload;
        while (!order_.empty() && (items_.size() > max_items || bytes_ > max_bytes)) {
            auto it = items_.find(order_.front());
            if (it != items_.end()) {
                bytes_ -= it->second.size();
                items_.erase(it);
            }
            order_.pop_front();
        }
        return token;
    }
    std::optional<std::string> open(std::string_view token) const {
        std::lock_guard lock(mu_);
        auto it = items_.find(std::string(token));
        if (it == items_.end()) return std::nullopt;
        return it->second;
    }
    static constexpr std::size_t max_items = 4096;
    static constexpr std::size_t max_bytes = std::size_t{16} << 20U;

private:
    mutable std::mutex mu_;
    std::map<std::string, std::string> items_;
    std::deque<std::string> order_;
    std::size_t bytes_ = 0;
};

inline std::int64_t unix_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// A message as the server sends it: compact, schemas' properties in their declared order.
inline std::string dump(const json& j) { return dump_declared(j, json::error_handler_t::replace); }
/// A value's one text, whatever orders are remembered meanwhile: what a digest or a seal covers.
inline std::string canonical(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace detail

/// The protocol engine, independent of the transport. Thread-safe.
class server {
public:
    /// Receives one message.
    using sink = std::function<void(const std::string& line)>;

    /// A server of this backend with these options.
    explicit server(backend b, server_options o = {}) : b_(std::move(b)), o_(std::move(o)), tasks_(o_.tasks) {
        default_ = open_session();
        default_reply_ = [this](const std::string& m, bool) { default_->emit(m); };
        if (!o_.request_state.seal || !o_.request_state.open) {
            auto store = std::make_shared<detail::state_store>();
            o_.request_state.seal = [store](const std::string& p) { return store->seal(p); };
            o_.request_state.open = [store](std::string_view t) { return store->open(t); };
            o_.request_state.digest = [](std::string_view t) { return std::string(t); };
        }
        if (!o_.request_state.digest) o_.request_state.digest = [](std::string_view t) { return std::string(t); };
        last_version_ = b_.version ? b_.version() : 0;
        tasks_.on_status = [this](const json& task) {  // notifications/tasks to the listeners of that task
            const std::string id = task.value("taskId", std::string());
            for (auto& l : listeners_matching([&](const listener& x) { return std::find(x.tasks.begin(), x.tasks.end(), id) != x.tasks.end(); }))
                send_to_listener(*l, "notifications/tasks", task);
        };
    }
    server(const server&) = delete;
    server& operator=(const server&) = delete;
    ~server() { shutdown(std::chrono::milliseconds(2000)); }

    // ---- the built-in session (stdio) -------------------------------------------------------

    /// Where the built-in session's messages go (one JSON text per call, without a newline).
    void set_sink(sink s) { default_->set_sink(std::move(s)); }

    /// Handle one message of the built-in session (a line without its newline).
    void handle(std::string_view line) { handle(*default_, line, default_reply_); }

    /// The protocol version the built-in session negotiated (empty before initialize).
    [[nodiscard]] std::string negotiated_version() const { return default_->negotiated_version(); }

    // ---- sessions, for transports -------------------------------------------------------------

    /// A new client session; `out` receives what belongs to no request. An unlisted session
    /// (a stateless request's) gets no broadcasts (logs, list changes, resource updates).
    std::shared_ptr<session> open_session(session::sink out = {}, bool listed = true) {
        auto s = std::make_shared<session>();
        s->set_sink(std::move(out));
        if (!listed) return s;
        std::lock_guard lock(sessions_mu_);
        std::erase_if(sessions_, [](const std::weak_ptr<session>& w) { return w.expired(); });
        sessions_.push_back(s);
        return s;
    }

    /// A heartbeat: send the client of `s` a ping on the session's own stream (its sink), to
    /// tell a client that is still there from one that went away without a word; poll the
    /// handle for the answer. Null when the session is closed or has no stream open (a client
    /// that cannot hear the server is not asked, and so never found silent).
    [[nodiscard]] std::unique_ptr<client_ping> ping_client(session& s) {
        auto w = std::make_shared<session::awaited>();
        std::string id;
        {
            std::lock_guard lock(s.mu_);
            if (s.closed_.load()) return nullptr;
            id = "ping" + std::to_string(++s.next_request_);
            s.awaiting_[json(id).dump()] = w;
        }
        std::unique_ptr<client_ping> p(new client_ping(s.weak_from_this(), json(id).dump(), w));
        if (!s.emit(detail::dump(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "ping"}}))) return nullptr;  // (p forgets it)
        return p;
    }

    /// End a session: its running requests are cancelled (no responses), its listeners end,
    /// its server requests fail, its sink is dropped.
    void close_session(session& s) {
        s.closed_ = true;
        std::vector<std::shared_ptr<session::call_state>> calls;
        std::vector<std::shared_ptr<session::awaited>> waits;
        {
            std::lock_guard lock(s.mu_);
            for (auto& [k, c] : s.in_flight_) calls.push_back(c);
            for (auto& [k, w] : s.awaiting_) waits.push_back(w);
        }
        for (auto& c : calls) cancel(*c);
        for (auto& w : waits) {
            std::lock_guard lock(w->mu);
            w->done = true;
            w->response = json{{"error", {{"code", code::internal_error}, {"message", "session closed"}}}};
            w->cv.notify_all();
        }
        s.set_sink({});
        std::lock_guard lock(sessions_mu_);
        std::erase_if(sessions_, [&](const std::weak_ptr<session>& w) {
            auto p = w.lock();
            return !p || p.get() == &s;
        });
    }

    /// Handle one message (JSON text) of session `s`; what belongs to it goes to `reply`.
    void handle(session& s, std::string_view line, const reply_fn& reply) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.find_first_not_of(" \t") == std::string_view::npos) return;  // blank line
        if (line.size() > o_.max_message_bytes) {
            send_error(reply, nullptr, code::parse_error, "message too large", json{{"limit", o_.max_message_bytes}});
            return;
        }
        if (detail::nesting_depth(line) > o_.max_depth) {
            send_error(reply, nullptr, code::parse_error, "JSON nested too deeply", json{{"limit", o_.max_depth}});
            return;
        }
        // A raw NUL is never valid JSON (inside a string it must be escaped as \u0000). The
        // parser would take it for the end of the input and accept `{...}\0garbage`.
        if (line.find('\0') != std::string_view::npos) {
            send_error(reply, nullptr, code::parse_error, "Parse error: the message contains a NUL byte");
            return;
        }
        json msg = json::parse(line, nullptr, false);
        if (msg.is_discarded()) {
            send_error(reply, nullptr, code::parse_error, "Parse error: the message is not valid JSON (or not valid UTF-8)");
            return;
        }
        if (msg.is_array()) {
            handle_batch(s, msg, reply);
            return;
        }
        handle_message(s, msg, reply);
    }

    /// Handle one parsed message (an object) of session `s`.
    void handle_message(session& s, const json& msg, const reply_fn& reply) {
        if (!msg.is_object()) {
            send_error(reply, nullptr, code::invalid_request, "Invalid Request: a message must be a JSON object");
            return;
        }
        const bool has_id = msg.contains("id");
        const json id = has_id ? msg["id"] : json(nullptr);
        // A response of the client goes to the server request waiting for it; anything else
        // that is not a valid Request object is answered with -32600 (JSON-RPC 2.0 section 5),
        // even without an id: `{"foo": "boo"}` and `{"jsonrpc": "2.0", "method": 1, "params":
        // "bar"}` are the specification's own examples, each answered with id null.
        const bool looks_like_response = !msg.contains("method") && (msg.contains("result") || msg.contains("error"));
        if (msg.value("jsonrpc", json()) != "2.0") {
            if (!looks_like_response)
                send_error(reply, valid_id(id) ? id : json(nullptr), code::invalid_request, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
            return;
        }
        if (!msg.contains("method")) {
            if (looks_like_response) deliver_response(s, msg);
            else send_error(reply, valid_id(id) ? id : json(nullptr), code::invalid_request, "Invalid Request: no method");
            return;
        }
        if (!msg["method"].is_string()) {
            send_error(reply, valid_id(id) ? id : json(nullptr), code::invalid_request, "Invalid Request: \"method\" must be a string");
            return;
        }
        const std::string method = msg["method"].get<std::string>();
        if (has_id && !valid_id(id)) {
            send_error(reply, nullptr, code::invalid_request, "Invalid Request: \"id\" must be a string or an integer");
            return;
        }
        const json params = msg.contains("params") ? msg["params"] : json::object();
        if (!params.is_object() && !params.is_array()) {
            // Not a structured value: the message is not a valid Request object.
            send_error(reply, has_id ? id : json(nullptr), code::invalid_request, "Invalid Request: \"params\" must be an object");
            return;
        }
        if (!has_id) {
            handle_notification(s, method, params);
            return;
        }
        if (!o_.on_event) {
            handle_request(s, id, method, params, reply);
            return;
        }
        auto e = std::make_shared<event>();
        e->kind = event_kind::mcp_request_received;
        e->part = "mcp.server";
        e->scope = o_.name;
        e->id = next_event_id();
        e->name = method;
        e->detail = detail::request_target(method, params);
        e->data = json{{"request_id", id}};
        agentkit::notify(o_.on_event, *e);
        const auto t0 = std::chrono::steady_clock::now();
        // the answer (the reply's last message) ends it: with the JSON-RPC error, when it is one
        const reply_fn observed = [this, e, t0, reply](const std::string& m, bool last) {
            if (last) {
                e->kind = event_kind::mcp_response_sent;
                e->at = std::chrono::system_clock::now();
                e->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                if (m.rfind("{\"error\":", 0) == 0) {  // keys are sorted: an error answer starts so
                    const json a = json::parse(m, nullptr, false);
                    const json err = a.is_object() ? a.value("error", json::object()) : json::object();
                    e->error_code = std::to_string(err.value("code", 0));
                    e->error_message = err.value("message", "");
                }
                agentkit::notify(o_.on_event, *e);
            }
            if (reply) reply(m, last);
        };
        handle_request(s, id, method, params, observed, e->id);
    }

    /// The transport lost the stream of request `id` (the client went away): cancel it (no
    /// response is sent; a listener ends).
    void cancel_request(session& s, const json& id) {
        std::shared_ptr<session::call_state> c;
        {
            std::lock_guard lock(s.mu_);
            auto it = s.in_flight_.find(request_key(id));
            if (it == s.in_flight_.end()) return;
            c = it->second;
        }
        cancel(*c);
    }

    // ---- notifications --------------------------------------------------------------------------

    /// Log through MCP (notifications/message to every session that asked for that level) and
    /// stderr.
    void log(std::string_view level, std::string_view logger, const json& data) {
        const int rank = level_rank(level);
        if (o_.stderr_level != "off" && rank >= level_rank(o_.stderr_level)) {
            std::string line = "[" + std::string(level) + "] " + std::string(logger) + ": " +
                               (data.is_string() ? data.get<std::string>() : detail::dump(data)) + "\n";
            (void)!::write(2, line.data(), line.size());
        }
        const std::string m = detail::dump(json{{"jsonrpc", "2.0"},
                                                {"method", "notifications/message"},
                                                {"params", {{"level", level}, {"logger", logger}, {"data", data}}}});
        for (auto& s : live_sessions())
            if (s->initialized_.load() && rank >= s->level_.load()) s->emit(m);
    }

    /// Tell clients the tool list changed (sessions, and listeners that asked for it).
    void notify_tools_changed() { notify_list("tools"); }
    /// Tell clients the prompt list changed.
    void notify_prompts_changed() { notify_list("prompts"); }
    /// Tell clients the resource list changed.
    void notify_resources_changed() { notify_list("resources"); }
    /// Tell the clients subscribed to `uri` that it changed (notifications/resources/updated).
    void notify_resource_updated(std::string_view uri) {
        const json params{{"uri", uri}};
        const std::string m = detail::dump(json{{"jsonrpc", "2.0"}, {"method", "notifications/resources/updated"}, {"params", params}});
        for (auto& s : live_sessions()) {
            bool sub = false;
            {
                std::lock_guard lock(s->mu_);
                sub = s->subscriptions_.count(uri) != 0;
            }
            if (sub && s->initialized_.load()) s->emit(m);
        }
        for (auto& l : listeners_matching([&](const listener& x) {
                 return std::find(x.resources.begin(), x.resources.end(), uri) != x.resources.end();
             }))
            send_to_listener(*l, "notifications/resources/updated", params);
    }

    /// Send notifications/tools/list_changed if the visible set changed since the last check.
    void check_list_changed() {
        if (!b_.version) return;
        const std::uint64_t v = b_.version();
        const std::uint64_t old = last_version_.exchange(v);
        if (v != old) notify_tools_changed();
    }

    // ---- lifetime ----------------------------------------------------------------------------------

    /// Let in-flight calls finish for half of `bound`, then cancel what still runs and wait
    /// for the rest of it; end every listener (with its final response); stop the workers.
    void shutdown(std::chrono::milliseconds bound) {
        {
            std::unique_lock lock(calls_mu_);
            closing_ = true;
        }
        end_listeners();
        stop_promoter();
        std::unique_lock lock(calls_mu_);
        if (!calls_cv_.wait_for(lock, bound / 2, [&] { return running_ == 0; })) {
            lock.unlock();
            cancel_all();
            lock.lock();
            calls_cv_.wait_for(lock, bound - bound / 2, [&] { return running_ == 0; });
        }
        stop_workers_ = true;
        work_cv_.notify_all();
        std::vector<std::thread> ws = std::move(workers_);
        const bool all_done = running_ == 0;
        lock.unlock();
        for (auto& t : ws) {
            if (!t.joinable()) continue;
            // A tool that ignores cancellation past the bound is left behind rather than
            // hanging the host; it must not outlive the process's use of this server.
            if (all_done) t.join();
            else t.detach();
        }
    }

    /// Ask every running handler to stop (through its tool_context); their responses are still
    /// sent, as the client did not cancel them. Server requests waiting for a client fail.
    /// Used when the process is told to terminate.
    void cancel_all() {
        for (auto& s : live_sessions()) {
            std::vector<std::shared_ptr<session::awaited>> waits;
            {
                std::lock_guard lock(s->mu_);
                for (auto& [id, c] : s->in_flight_) c->stop.request_stop();
                for (auto& [k, w] : s->awaiting_) waits.push_back(w);
            }
            for (auto& w : waits) {
                std::lock_guard lock(w->mu);
                w->cv.notify_all();  // the waiter sees its stop token
            }
        }
        // after the calls: one told to stop can no longer become a task (promote() refuses)
        tasks_.cancel_all("the server is shutting down");
    }

    /// True once shutdown() began.
    [[nodiscard]] bool closing() const {
        std::lock_guard lock(calls_mu_);
        return closing_;
    }

    /// The options this server was built with.
    [[nodiscard]] const server_options& options() const noexcept { return o_; }
    /// What it serves.
    [[nodiscard]] const backend& served() const noexcept { return b_; }

    /// Number of handler requests (tools/call, prompts/get, resources/read) running or queued.
    [[nodiscard]] std::size_t in_flight() const {
        std::lock_guard lock(calls_mu_);
        return running_;
    }
    /// Number of open subscriptions/listen streams.
    [[nodiscard]] std::size_t listeners() const {
        std::lock_guard lock(listen_mu_);
        return listeners_.size();
    }

    /// The inputSchema of a visible tool (null when there is none of that name).
    [[nodiscard]] json input_schema_of(std::string_view tool) {
        auto m = schemas();
        auto it = m->find(tool);
        return it == m->end() ? json() : it->second.first;
    }

    /// The capabilities this server declares.
    [[nodiscard]] json capabilities(bool stateless = false) const {
        json c = json::object();
        if (b_.has_tools()) c["tools"] = {{"listChanged", true}};
        if (b_.has_resources()) c["resources"] = stateless ? json{{"listChanged", true}} : json{{"subscribe", true}, {"listChanged", true}};
        if (b_.has_prompts()) c["prompts"] = {{"listChanged", true}};
        if (b_.has_completions()) c["completions"] = json::object();
        c["logging"] = json::object();
        if (stateless && b_.has_tools()) c["extensions"] = {{std::string(tasks_extension), json::object()}};
        return c;
    }

private:
    struct listener {
        json id;
        bool tools = false, prompts = false, resources_list = false;
        std::vector<std::string> resources;
        std::vector<std::string> tasks;  // the tasks extension's notifications/tasks
        reply_fn reply;
        std::mutex mu;
        bool ended = false;
    };

    static bool valid_id(const json& id) { return id.is_string() || id.is_number_integer() || id.is_number_unsigned(); }

    static void send_to(const reply_fn& reply, const json& j, bool last) {
        if (reply) reply(detail::dump(j), last);
    }
    static void send_result(const reply_fn& reply, const json& id, json result) {
        send_to(reply, json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}, true);
    }
    static void send_error(const reply_fn& reply, const json& id, int c, std::string message, json data = nullptr) {
        json err{{"code", c}, {"message", std::move(message)}};
        if (!data.is_null()) err["data"] = std::move(data);
        json m{{"jsonrpc", "2.0"}, {"error", std::move(err)}};
        // An error about a message whose id is unknown has none: "id": null is how JSON-RPC
        // says so (MCP's schemas make the id optional; both are accepted by clients).
        m["id"] = id;
        send_to(reply, m, true);
    }

    std::vector<std::shared_ptr<session>> live_sessions() {
        std::vector<std::shared_ptr<session>> out;
        std::lock_guard lock(sessions_mu_);
        for (auto& w : sessions_)
            if (auto p = w.lock(); p && !p->closed_.load()) out.push_back(std::move(p));
        return out;
    }

    /// The key of a request id among the requests in flight: its JSON text, except that a
    /// number written with a fraction of zero is the integer it equals (a cancellation naming
    /// request 8 as 8.0 names the same request: JSON has one kind of number).
    static std::string request_key(const json& id) {
        if (id.is_number_float()) {
            const double d = id.get<double>();
            if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return std::to_string(static_cast<std::int64_t>(d));
        }
        return id.dump();
    }

    void cancel(session::call_state& c) {
        c.cancelled = true;
        c.stop.request_stop();
        if (c.on_cancel) c.on_cancel();
    }

    void handle_batch(session& s, const json& arr, const reply_fn& reply) {
        const bool batching = s.negotiated_version() == "2025-03-26";
        if (!batching || arr.empty()) {
            send_error(reply, nullptr, code::invalid_request,
                       arr.empty() ? "Invalid Request: empty batch"
                                   : "Invalid Request: JSON-RPC batches are not supported in this protocol revision; "
                                     "send one message per line");
            return;
        }
        for (const auto& m : arr) handle_message(s, m, reply);
    }

    void deliver_response(session& s, const json& msg) {
        if (!msg.contains("id") || !valid_id(msg["id"])) return;
        std::shared_ptr<session::awaited> w;
        {
            std::lock_guard lock(s.mu_);
            auto it = s.awaiting_.find(msg["id"].dump());
            if (it == s.awaiting_.end()) return;  // late or unknown: nothing waits for it
            w = it->second;
            s.awaiting_.erase(it);
        }
        std::lock_guard lock(w->mu);
        w->done = true;
        w->response = msg;
        w->cv.notify_all();
    }

    void handle_notification(session& s, const std::string& method, const json& params) {
        if (method == "notifications/initialized") {
            s.initialized_ = true;
        } else if (method == "notifications/cancelled") {
            if (!params.is_object() || !params.contains("requestId")) return;
            const std::string key = request_key(params["requestId"]);
            std::shared_ptr<session::call_state> c;
            {
                std::lock_guard lock(s.mu_);
                auto it = s.in_flight_.find(key);
                if (it != s.in_flight_.end()) {
                    c = it->second;
                    c->cancelled = true;  // under the lock the call's end decides its answer by (run_handler)
                }
            }
            if (!c) {
                log("debug", "mcp", "cancellation of an unknown or finished request " + key + " ignored");
                return;
            }
            cancel(*c);
        }
        // other notifications (roots/list_changed, progress from the client, ...) need no answer
    }

    /// The stateless era: a request carrying its protocol version in _meta.
    static std::optional<std::string> meta_version(const json& params) {
        auto m = params.find("_meta");
        if (m == params.end() || !m->is_object()) return std::nullopt;
        auto v = m->find(meta_key::protocol_version);
        if (v == m->end()) return std::nullopt;
        return v->is_string() ? v->get<std::string>() : std::string("<not a string>");
    }

    // The host's instructions, then the backend's (a masker's account of its meta-tools).
    std::string instructions() const {
        std::string text = o_.instructions;
        if (b_.instructions) {
            std::string more;
            try {
                more = b_.instructions();
            } catch (...) {
                // a host function that throws adds nothing
            }
            if (!more.empty()) text += (text.empty() ? "" : "\n\n") + more;
        }
        return text;
    }

    json server_info() const {
        json i{{"name", o_.name}, {"version", o_.version}};
        if (!o_.title.empty()) i["title"] = o_.title;
        return i;
    }

    bool known_method(std::string_view m, bool stateless) const {
        if (m == "server/discover" || m == "tools/list" || m == "tools/call") return true;
        if (b_.has_resources() && (m == "resources/list" || m == "resources/templates/list" || m == "resources/read")) return true;
        if (b_.has_prompts() && (m == "prompts/list" || m == "prompts/get")) return true;
        if (b_.has_completions() && m == "completion/complete") return true;
        if (stateless) return m == "subscriptions/listen" || m == "tasks/get" || m == "tasks/update" || m == "tasks/cancel";
        if (m == "initialize" || m == "ping" || m == "logging/setLevel") return true;
        return b_.has_resources() && (m == "resources/subscribe" || m == "resources/unsubscribe");
    }

    void handle_request(session& s, const json& id, const std::string& method, const json& raw_params, const reply_fn& reply,
                        std::uint64_t event_id = 0) {
        {
            // An id still in flight is ambiguous: its response could not be told from this one's.
            std::lock_guard lock(s.mu_);
            if (s.in_flight_.count(request_key(id)) != 0) {
                send_error(reply, id, code::invalid_request, "Invalid Request: a request with this id is already in flight");
                return;
            }
        }
        const json& params = raw_params;
        const auto mv = raw_params.is_object() ? meta_version(params) : std::nullopt;
        bool stateless = false;
        json meta;
        if (mv) {
            meta = params["_meta"];
            // Required on every request of this revision; {} means no optional capability. Never
            // inferred from an earlier request.
            auto caps = meta.find(meta_key::client_capabilities);
            if (caps == meta.end() || !caps->is_object()) {
                send_error(reply, id, code::invalid_params,
                           "Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"] must be an object on every "
                           "2026-07-28 request ({} when the client has no optional capability)");
                return;
            }
            if (*mv != stateless_version) {
                std::vector<std::string> modern{std::string(stateless_version)};
                send_error(reply, id, code::unsupported_version, "Unsupported protocol version: " + *mv,
                           json{{"supported", modern}, {"requested", *mv}});
                return;
            }
            stateless = true;
        }
        if (!known_method(method, stateless)) {
            send_error(reply, id, code::method_not_found, "Method not found: " + method);
            return;
        }
        if (!raw_params.is_object()) {  // by-position params: no MCP method takes them
            send_error(reply, id, code::invalid_params, "Invalid params: MCP params must be an object");
            return;
        }
        auto finish = [&](json r) {
            if (stateless) r["resultType"] = "complete";
            send_result(reply, id, std::move(r));
        };
        auto cacheable = [&](json& r) {
            if (!stateless) return;
            r["ttlMs"] = o_.list_ttl_ms;
            r["cacheScope"] = o_.cache_scope;
        };

        if (method == "initialize") {
            // protocolVersion and capabilities are required, and clientInfo, when sent, is an
            // object (a missing params object is the same as an empty one): the client is told
            // what to send, and may retry
            const json pv = params.value("protocolVersion", json());
            const json ci = params.value("clientInfo", json::object());
            if (!pv.is_string() || !params.value("capabilities", json()).is_object() || !ci.is_object()) {
                send_error(reply, id, code::invalid_params,
                           "Invalid params: initialize needs protocolVersion (a string) and capabilities (an object, {} "
                           "for none), and clientInfo {name, version}");
                return;
            }
            std::string requested = pv.get<std::string>();
            std::string chosen = is_handshake_version(requested) ? requested : std::string(latest_handshake_version);
            {
                std::lock_guard lock(s.mu_);
                s.version_ = chosen;
                const json caps = params.value("capabilities", json());
                s.caps_ = caps.is_object() ? caps : json::object();
            }
            json r{{"protocolVersion", chosen}, {"capabilities", capabilities(false)}, {"serverInfo", server_info()}};
            if (std::string text = instructions(); !text.empty()) r["instructions"] = std::move(text);
            send_result(reply, id, std::move(r));
            return;
        }
        if (method == "server/discover") {
            json r{{"supportedVersions", json::array({std::string(stateless_version)})},
                   {"capabilities", capabilities(true)},
                   {"serverInfo", server_info()},
                   {"_meta", {{meta_key::server_info, server_info()}}}};
            if (std::string text = instructions(); !text.empty()) r["instructions"] = std::move(text);
            r["ttlMs"] = o_.list_ttl_ms;
            r["cacheScope"] = o_.cache_scope;
            r["resultType"] = "complete";
            send_result(reply, id, std::move(r));
            return;
        }
        if (method == "ping") {
            finish(json::object());
            return;
        }
        if (!stateless && s.negotiated_version().empty() && !s.initialized_.load()) {
            send_error(reply, id, code::invalid_request,
                       "Invalid Request: send initialize first (or use protocol 2026-07-28 with _meta on every request)");
            return;
        }
        if (method == "logging/setLevel") {
            const json lv = params.value("level", json());
            if (!lv.is_string() || level_rank(lv.get<std::string>()) < 0) {
                send_error(reply, id, code::invalid_params,
                           "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency");
                return;
            }
            s.level_ = level_rank(lv.get<std::string>());
            finish(json::object());
            return;
        }
        if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel") {
            handle_task_request(s, id, method, params, meta, reply);
            return;
        }
        if (method == "tools/list") {
            std::vector<tool_info> tools = b_.list_tools ? b_.list_tools() : std::vector<tool_info>{};
            auto pg = detail::page_of(params, tools.size(), o_.page_size);
            if (!pg.ok) {
                send_error(reply, id, code::invalid_params, "Invalid params: unknown cursor; call tools/list without a cursor");
                return;
            }
            json arr = json::array();
            for (std::size_t i = pg.start; i < pg.start + pg.count; ++i) arr.push_back(to_mcp(tools[i]));
            json r{{"tools", std::move(arr)}};
            if (pg.next) r["nextCursor"] = *pg.next;
            cacheable(r);
            finish(std::move(r));
            return;
        }
        if (method == "resources/list" || method == "resources/templates/list" || method == "prompts/list") {
            json items = json::array();
            const char* key = "resources";
            if (method == "resources/list") {
                for (const auto& r : b_.list_resources ? b_.list_resources() : std::vector<resource_info>{}) items.push_back(r.to_json());
            } else if (method == "resources/templates/list") {
                key = "resourceTemplates";
                for (const auto& t : b_.list_resource_templates ? b_.list_resource_templates() : std::vector<resource_template_info>{})
                    items.push_back(t.to_json());
            } else {
                key = "prompts";
                for (const auto& p : b_.list_prompts ? b_.list_prompts() : std::vector<prompt_info>{}) items.push_back(p.to_json());
            }
            auto pg = detail::page_of(params, items.size(), o_.page_size);
            if (!pg.ok) {
                send_error(reply, id, code::invalid_params, "Invalid params: unknown cursor; call " + method + " without a cursor");
                return;
            }
            json page = json::array();
            for (std::size_t i = pg.start; i < pg.start + pg.count; ++i) page.push_back(std::move(items[i]));
            json r{{key, std::move(page)}};
            if (pg.next) r["nextCursor"] = *pg.next;
            cacheable(r);
            finish(std::move(r));
            return;
        }
        if (method == "resources/subscribe" || method == "resources/unsubscribe") {
            const json uri = params.value("uri", json());
            if (!uri.is_string() || uri.get<std::string>().empty()) {
                send_error(reply, id, code::invalid_params, "Invalid params: " + method + " needs \"uri\" (a string)");
                return;
            }
            {
                std::lock_guard lock(s.mu_);
                if (method == "resources/subscribe") {
                    if (s.subscriptions_.size() >= max_subscriptions) {
                        send_error(reply, id, code::invalid_params, "Invalid params: too many subscriptions in this session",
                                   json{{"limit", max_subscriptions}});
                        return;
                    }
                    s.subscriptions_.insert(uri.get<std::string>());
                } else {
                    s.subscriptions_.erase(uri.get<std::string>());
                }
            }
            finish(json::object());
            return;
        }
        if (method == "completion/complete") {
            complete(id, params, reply, stateless);
            return;
        }
        if (method == "subscriptions/listen") {
            listen(s, id, params, reply);
            return;
        }
        // tools/call, prompts/get, resources/read: handlers, on a worker.
        start_handler(s, id, method, params, stateless, meta, reply, event_id);
    }

    /// tasks/get, tasks/update, tasks/cancel (stateless era): the client must declare the
    /// extension on the request itself, before any task is looked up.
    void handle_task_request(session& s, const json& id, const std::string& method, const json& params, const json& meta,
                             const reply_fn& reply) {
        if (!declares_tasks(meta.value(meta_key::client_capabilities, json()))) {
            send_error(reply, id, code::missing_client_capability,
                       "Missing required client capability: " + method + " needs the tasks extension (" + std::string(tasks_extension) +
                           ") in this request's clientCapabilities.extensions",
                       tasks_required_capabilities());
            return;
        }
        const json tid = params.value("taskId", json());
        if (!tid.is_string() || tid.get_ref<const std::string&>().empty()) {
            send_error(reply, id, code::invalid_params, "Invalid params: " + method + " needs \"taskId\" (the string a CreateTaskResult gave)");
            return;
        }
        const std::string& task_id = tid.get_ref<const std::string&>();
        const std::string principal = principal_of(s);
        auto not_found = [&] {
            std::string shown = task_id.size() > 80 ? task_id.substr(0, 80) + "..." : task_id;
            send_error(reply, id, code::invalid_params,
                       "Task not found: " + shown + " (never created here, past its ttlMs, or another client's)");
        };
        if (method == "tasks/get") {
            auto v = tasks_.get(task_id, principal);
            if (!v) return not_found();
            (*v)["resultType"] = "complete";
            send_result(reply, id, std::move(*v));
            return;
        }
        if (method == "tasks/cancel") {
            if (!tasks_.cancel(task_id, principal)) return not_found();
            send_result(reply, id, json{{"resultType", "complete"}});
            return;
        }
        const json responses = params.value("inputResponses", json());
        if (!responses.is_object()) {
            send_error(reply, id, code::invalid_params, "Invalid params: tasks/update needs \"inputResponses\" (an object: key → the answer)");
            return;
        }
        std::string why;
        switch (tasks_.update(task_id, principal, responses, why)) {
            case detail::task_store::update_result::unknown_task:
                return not_found();
            case detail::task_store::update_result::invalid_answer:
                send_error(reply, id, code::invalid_params, "Invalid params: " + why + "; nothing of this update was taken");
                return;
            case detail::task_store::update_result::accepted:
                break;
        }
        send_result(reply, id, json{{"resultType", "complete"}});
    }

    void complete(const json& id, const json& params, const reply_fn& reply, bool stateless) {
        const json ref = params.value("ref", json());
        const json arg = params.value("argument", json());
        if (!ref.is_object() || !ref.contains("type") || !arg.is_object() || !arg.value("name", json()).is_string() ||
            !arg.value("value", json()).is_string()) {
            send_error(reply, id, code::invalid_params,
                       "Invalid params: completion/complete needs \"ref\" ({type, name|uri}) and \"argument\" ({name, value})");
            return;
        }
        const json context = params.contains("context") && params["context"].is_object()
                                 ? params["context"].value("arguments", json::object())
                                 : json::object();
        std::optional<completion> c;
        try {
            c = b_.complete(ref, arg["name"].get<std::string>(), arg["value"].get<std::string>(), context);
        } catch (...) {
            c.reset();
        }
        json values = json::array();
        bool more = false;
        std::optional<std::size_t> total;
        if (c) {
            for (std::size_t i = 0; i < c->values.size() && i < 100; ++i) values.push_back(c->values[i]);
            more = c->has_more || c->values.size() > 100;
            total = c->total ? c->total : std::optional<std::size_t>(c->values.size());
        }
        json comp{{"values", std::move(values)}, {"hasMore", more}};
        if (total) comp["total"] = *total;
        json r{{"completion", std::move(comp)}};
        if (stateless) r["resultType"] = "complete";
        send_result(reply, id, std::move(r));
    }

    // ---- subscriptions/listen (stateless era) -----------------------------------------------------

    void listen(session& s, const json& id, const json& params, const reply_fn& reply) {
        const json want = params.value("notifications", json::object());
        if (!want.is_object()) {
            send_error(reply, id, code::invalid_params, "Invalid params: \"notifications\" must be an object");
            return;
        }
        auto l = std::make_shared<listener>();
        l->id = id;
        l->reply = reply;
        json honoured = json::object();
        if (want.value("toolsListChanged", false) == true && b_.has_tools()) honoured["toolsListChanged"] = l->tools = true;
        if (want.value("promptsListChanged", false) == true && b_.has_prompts()) honoured["promptsListChanged"] = l->prompts = true;
        if (want.value("resourcesListChanged", false) == true && b_.has_resources())
            honoured["resourcesListChanged"] = l->resources_list = true;
        if (want.contains("resourceSubscriptions") && b_.has_resources()) {
            const json& subs = want["resourceSubscriptions"];
            if (!subs.is_array()) {
                send_error(reply, id, code::invalid_params, "Invalid params: \"resourceSubscriptions\" must be an array of URIs");
                return;
            }
            for (const auto& u : subs)
                if (u.is_string() && l->resources.size() < max_subscriptions) l->resources.push_back(u.get<std::string>());
            honoured["resourceSubscriptions"] = l->resources;
        }
        if (want.contains("taskIds")) {  // the tasks extension: status pushes of the caller's own tasks
            const json meta = params.value("_meta", json::object());
            if (!declares_tasks(meta.is_object() ? meta.value(meta_key::client_capabilities, json()) : json())) {
                send_error(reply, id, code::missing_client_capability,
                           "Missing required client capability: notifications of tasks need the tasks extension (" +
                               std::string(tasks_extension) + ") in this request's clientCapabilities.extensions",
                           tasks_required_capabilities());
                return;
            }
            const json& ids = want["taskIds"];
            if (!ids.is_array()) {
                send_error(reply, id, code::invalid_params, "Invalid params: \"taskIds\" must be an array of task ids");
                return;
            }
            const std::string principal = principal_of(s);
            for (const auto& t : ids)  // only tasks this client may read; others are not acknowledged
                if (t.is_string() && l->tasks.size() < max_subscriptions && tasks_.get(t.get<std::string>(), principal))
                    l->tasks.push_back(t.get<std::string>());
            honoured["taskIds"] = l->tasks;
        }
        {
            std::lock_guard lock(calls_mu_);
            if (closing_) {
                send_error(reply, id, code::internal_error, "server is shutting down");
                return;
            }
        }
        auto st = std::make_shared<session::call_state>();
        std::uint64_t key = 0;
        {
            std::lock_guard lock(listen_mu_);
            key = ++next_listener_;
            listeners_[key] = l;
        }
        std::weak_ptr<session> ws = s.weak_from_this();
        std::weak_ptr<listener> wl = l;
        const std::string id_key = request_key(id);
        st->on_cancel = [this, key, ws, wl, id_key] {
            if (auto lp = wl.lock()) {
                std::lock_guard lock(lp->mu);
                lp->ended = true;
            }
            {
                std::lock_guard lock(listen_mu_);
                listeners_.erase(key);
            }
            if (auto sp = ws.lock()) {
                std::lock_guard lock(sp->mu_);
                sp->in_flight_.erase(id_key);
            }
        };
        {
            std::lock_guard lock(s.mu_);
            s.in_flight_[id_key] = st;
        }
        json ack{{"notifications", std::move(honoured)}, {"_meta", {{meta_key::subscription_id, id}}}};
        std::lock_guard lock(l->mu);
        send_to(reply, json{{"jsonrpc", "2.0"}, {"method", "notifications/subscriptions/acknowledged"}, {"params", std::move(ack)}}, false);
    }

    template <class Pred>
    std::vector<std::shared_ptr<listener>> listeners_matching(Pred p) {
        std::vector<std::shared_ptr<listener>> out;
        std::lock_guard lock(listen_mu_);
        for (auto& [k, l] : listeners_)
            if (p(*l)) out.push_back(l);
        return out;
    }

    void send_to_listener(listener& l, const char* method, json params) {
        params["_meta"] = {{meta_key::subscription_id, l.id}};
        std::lock_guard lock(l.mu);
        if (l.ended) return;
        send_to(l.reply, json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}, false);
    }

    void notify_list(std::string_view what) {
        const std::string method = "notifications/" + std::string(what) + "/list_changed";
        const std::string m = detail::dump(json{{"jsonrpc", "2.0"}, {"method", method}});
        for (auto& s : live_sessions())
            if (s->initialized_.load()) s->emit(m);
        for (auto& l : listeners_matching([&](const listener& x) {
                 return (what == "tools" && x.tools) || (what == "prompts" && x.prompts) || (what == "resources" && x.resources_list);
             }))
            send_to_listener(*l, method.c_str(), json::object());
    }

    void end_listeners() {
        std::map<std::uint64_t, std::shared_ptr<listener>> all;
        {
            std::lock_guard lock(listen_mu_);
            all.swap(listeners_);
        }
        for (auto& [k, l] : all) {
            std::lock_guard lock(l->mu);
            if (l->ended) continue;
            l->ended = true;
            send_to(l->reply,
                    json{{"jsonrpc", "2.0"},
                         {"id", l->id},
                         {"result", {{"resultType", "complete"}, {"_meta", {{meta_key::subscription_id, l->id}}}}}},
                    true);
        }
    }

    // ---- handlers -----------------------------------------------------------------------------------

    struct handler_call {
        std::shared_ptr<session> s;
        json id;
        std::string key;
        std::string method;
        json params;
        bool stateless = false;
        json meta;
        reply_fn reply;
        std::uint64_t event_id = 0;  // its mcp_request_received (server_options::on_event)
        std::chrono::steady_clock::time_point queued = std::chrono::steady_clock::now();
        std::shared_ptr<session::call_state> st;
        // stateless input rounds
        json answers = json::object();
        json asked = json::object();
        json saved_state;
        // tasks: whether this call may become one, and the one it became
        task_support tasks = task_support::forbidden;  // forbidden unless the client declared the extension
        std::mutex task_mu;
        bool answered = false;              // its response went out in its request
        request_context* rq = nullptr;      // while the handler runs
        std::shared_ptr<detail::task_store::entry> task;
    };

    /// A tool's task support: the backend's word, else its long_running trait.
    task_support task_support_of(const std::string& tool) {
        if (b_.task_support_of) return b_.task_support_of(tool);
        auto m = schemas();
        auto it = m->find(tool);
        return it != m->end() && it->second.traits.is_long_running() ? task_support::optional : task_support::forbidden;
    }

    /// The name or URI a request is about, and its arguments (for requestState binding).
    static std::pair<std::string, json> target_of(const std::string& method, const json& params) {
        if (method == "resources/read") return {params.value("uri", json()).is_string() ? params["uri"].get<std::string>() : "", json()};
        const std::string n = params.value("name", json()).is_string() ? params["name"].get<std::string>() : "";
        return {n, params.contains("arguments") ? params["arguments"] : json::object()};
    }

    std::string principal_of(session& s) {
        std::lock_guard lock(s.mu_);
        return s.principal_;
    }

    void start_handler(session& s, const json& id, const std::string& method, const json& params, bool stateless, const json& meta,
                       const reply_fn& reply, std::uint64_t event_id = 0) {
        // Validate what every handler method needs before queueing.
        if (method == "tools/call") {
            if (!params.value("name", json()).is_string()) {
                send_error(reply, id, code::invalid_params, "Invalid params: tools/call needs \"name\" (a string)");
                return;
            }
            if (params.contains("arguments") && !params["arguments"].is_null() && !params["arguments"].is_object()) {
                // fails the CallToolRequest schema: a protocol error, not a tool error
                send_error(reply, id, code::invalid_params, "Invalid params: tools/call \"arguments\" must be an object");
                return;
            }
        } else if (method == "prompts/get") {
            if (!params.value("name", json()).is_string()) {
                send_error(reply, id, code::invalid_params, "Invalid params: prompts/get needs \"name\" (a string)");
                return;
            }
            if (params.contains("arguments") && !params["arguments"].is_null() && !params["arguments"].is_object()) {
                send_error(reply, id, code::invalid_params, "Invalid params: prompts/get \"arguments\" must be an object");
                return;
            }
        } else if (method == "resources/read") {
            if (!params.value("uri", json()).is_string()) {
                send_error(reply, id, code::invalid_params, "Invalid params: resources/read needs \"uri\" (a string)");
                return;
            }
        }
        auto c = std::make_shared<handler_call>();
        c->s = s.shared_from_this();
        c->id = id;
        c->key = request_key(id);
        c->method = method;
        c->params = params;
        c->stateless = stateless;
        c->meta = meta;
        c->reply = reply;
        c->event_id = event_id;
        c->st = std::make_shared<session::call_state>();
        if (stateless && method == "tools/call") {
            const task_support ts = task_support_of(params["name"].get<std::string>());
            const bool declared = declares_tasks(meta.value(meta_key::client_capabilities, json()));
            if (ts == task_support::required && !declared) {
                send_error(reply, id, code::missing_client_capability,
                           "Missing required client capability: the tool " + params["name"].get<std::string>() +
                               " runs only as a task; declare the tasks extension (" + std::string(tasks_extension) +
                               ") in this request's clientCapabilities.extensions",
                           tasks_required_capabilities());
                return;
            }
            if (declared) c->tasks = ts;
        }
        if (stateless) {
            // The client's answers of earlier rounds (in the requestState) and of this one.
            if (params.contains("inputResponses") && !params["inputResponses"].is_object()) {
                send_error(reply, id, code::invalid_params, "Invalid params: \"inputResponses\" must be an object");
                return;
            }
            if (params.contains("requestState")) {
                auto restored = restore_state(s, method, params);
                if (!restored) {
                    send_error(reply, id, code::invalid_params, "Invalid params: " + restored.error().message);
                    return;
                }
                c->answers = (*restored)["a"];
                c->asked = (*restored)["q"];
                c->saved_state = (*restored)["s"];
            }
            if (params.contains("inputResponses"))
                for (const auto& [k, v] : params["inputResponses"].items()) {
                    if (c->asked.contains(k)) {
                        const std::string m = c->asked[k].get<std::string>();
                        if (!detail::valid_input_response(m, v)) {
                            send_error(reply, id, code::invalid_params,
                                       "Invalid params: inputResponses[\"" + k + "\"] is not a valid result of " + m);
                            return;
                        }
                    }
                    c->answers[k] = v;
                }
        }
        {
            std::unique_lock lock(calls_mu_);
            if (closing_) {
                lock.unlock();
                send_error(reply, id, code::internal_error, "server is shutting down");
                return;
            }
            ++running_;
        }
        {
            std::lock_guard lock(s.mu_);
            s.in_flight_.emplace(c->key, c->st);
        }
        std::lock_guard lock(calls_mu_);
        queue_.push_back([this, c] { run_handler(c); });
        // One more worker when the queue holds more tasks than there are idle workers to take
        // them, up to max_in_flight. (Counting only "no idle worker" let a second task wait
        // behind a long first one: one idle worker, notified but not yet awake, counted for both.)
        // Workers running tasks do not count: a task answered its request and may run for hours
        // (their number is bounded by tasks.max_tasks), and requests must not wait behind them.
        if (queue_.size() > idle_workers_ && workers_.size() < std::max<std::size_t>(1, o_.max_in_flight) + tasks_running_)
            workers_.emplace_back([this] { worker_loop(); });
        work_cv_.notify_one();
    }

    result<json> restore_state(session& s, const std::string& method, const json& params) {
        const json& rs = params["requestState"];
        if (!rs.is_string()) return fail(errc::request_invalid, "\"requestState\" must be the string the server sent");
        auto payload = o_.request_state.open(rs.get<std::string>());
        if (!payload) return fail(errc::request_invalid, "requestState was not issued by this server, or was altered");
        json p = json::parse(*payload, nullptr, false);
        auto [target, args] = target_of(method, params);
        if (p.is_discarded() || !p.is_object() || p.value("v", 0) != 1) return fail(errc::request_invalid, "requestState is malformed");
        if (p.value("exp", std::int64_t{0}) < detail::unix_ms()) return fail(errc::request_invalid, "requestState expired; send the request again without it");
        if (p.value("p", std::string()) != principal_of(s) || p.value("m", std::string()) != method ||
            p.value("t", std::string()) != target || p.value("d", std::string()) != o_.request_state.digest(detail::canonical(args)))
            return fail(errc::request_invalid, "requestState belongs to another request");
        if (!p.contains("a") || !p["a"].is_object()) p["a"] = json::object();
        if (!p.contains("q") || !p["q"].is_object()) p["q"] = json::object();
        if (!p.contains("s")) p["s"] = nullptr;
        return p;
    }

    std::string seal_state(session& s, const handler_call& c, const request_context& rq) {
        auto [target, args] = target_of(c.method, c.params);
        json answers = json::object();
        for (const auto& [k, v] : c.answers.items())
            if (rq.asked_.contains(k)) answers[k] = v;  // only what the handler asked for
        json p{{"v", 1},
               {"exp", detail::unix_ms() + std::chrono::duration_cast<std::chrono::milliseconds>(o_.request_state_ttl).count()},
               {"p", principal_of(s)},
               {"m", c.method},
               {"t", target},
               {"d", o_.request_state.digest(detail::canonical(args))},
               {"a", std::move(answers)},
               {"q", rq.asked_},
               {"s", rq.saved_state_}};
        return o_.request_state.seal(detail::canonical(p));
    }

    /// Handshake era: send `r` to the client on the request's stream and wait for its answer.
    result<json> ask_client(handler_call& c, const input_request& r, std::stop_token stop, std::stop_token also) {
        // either token ends the wait: the call's cancellation, or the asker's own (also)
        std::stop_source either;
        std::stop_callback on_stop(stop, [&either] { either.request_stop(); });
        std::stop_callback on_also(also, [&either] { either.request_stop(); });
        auto w = std::make_shared<session::awaited>();
        std::string out_id;
        {
            std::lock_guard lock(c.s->mu_);
            if (c.s->closed_.load()) return fail(errc::transport_closed, "the client session is closed");
            out_id = "s" + std::to_string(++c.s->next_request_);
            c.s->awaiting_[json(out_id).dump()] = w;
        }
        send_to(c.reply, json{{"jsonrpc", "2.0"}, {"id", out_id}, {"method", r.method}, {"params", r.params}}, false);
        std::unique_lock lock(w->mu);
        const bool answered = w->cv.wait_for(lock, either.get_token(), o_.client_request_timeout, [&] { return w->done; });
        if (!answered) {
            lock.unlock();
            {
                std::lock_guard l2(c.s->mu_);
                c.s->awaiting_.erase(json(out_id).dump());
            }
            if (either.get_token().stop_requested()) return fail(errc::tool_cancelled, r.method + " was cancelled");
            return fail(errc::timeout, "the client did not answer " + r.method + " in time");
        }
        if (w->response.contains("error")) {
            const json& e = w->response["error"];
            return fail(errc::protocol_error, "the client answered " + r.method + " with an error: " +
                                                  (e.is_object() ? e.value("message", e.dump()) : e.dump()));
        }
        if (!w->response.contains("result")) return fail(errc::protocol_error, "the client's answer to " + r.method + " has no result");
        return w->response["result"];
    }

    /// A progress report as a task's statusMessage.
    static std::string progress_text(double p, std::optional<double> total, std::string_view msg) {
        if (!msg.empty()) return std::string(msg);
        auto num = [](double v) {
            json j = v == std::floor(v) && std::fabs(v) < 1e15 ? json(static_cast<std::int64_t>(v)) : json(v);
            return j.dump();
        };
        return total ? "progress " + num(p) + " of " + num(*total) : "progress " + num(p);
    }

    /// Make a running tools/call a task: the task is stored, the request answered with its
    /// handle, and from then on the handler's input waits on the task and its result ends it.
    /// False when the call was answered or cancelled already, committed to an input_required
    /// round, or the store is full. Called by the handler (request_context::start_task) or
    /// the promoter.
    bool promote(handler_call& c) {
        std::lock_guard tl(c.task_mu);
        if (c.task) return true;
        if (c.answered || c.rq == nullptr || c.tasks == task_support::forbidden || c.st->stop.stop_requested()) return false;
        {
            std::lock_guard lock(calls_mu_);
            if (closing_) return false;  // cancel_all() would not see a task made now
        }
        auto t = tasks_.create(principal_of(*c.s), [st = c.st] { st->stop.request_stop(); });
        if (!t) {
            log("warning", "mcp", "a call of " + detail::request_target(c.method, c.params) + " could not become a task: " +
                                      std::to_string(o_.tasks.max_tasks) + " tasks still run (server_options::tasks.max_tasks)");
            return false;
        }
        std::weak_ptr<detail::task_store::entry> wt = t;
        std::stop_token stop = c.st->stop.get_token();
        auto ask = [this, wt, stop](const std::vector<input_request>& rs, std::stop_token also) -> result<std::map<std::string, json>> {
            auto task = wt.lock();
            if (!task) return fail(errc::tool_cancelled, "the task is gone");
            std::stop_source either;
            std::stop_callback on_stop(stop, [&either] { either.request_stop(); });
            std::stop_callback on_also(also, [&either] { either.request_stop(); });
            return tasks_.wait_for_input(*task, rs, either.get_token());
        };
        if (!c.rq->enter_task(std::move(ask))) {
            tasks_.erase(*t);
            return false;
        }
        {
            std::lock_guard lock(c.s->mu_);
            if (c.st->cancelled.load()) {
                c.rq->leave_task();
                tasks_.erase(*t);
                return false;
            }
            c.s->in_flight_.erase(c.key);  // answered now; notifications/cancelled no longer reaches it
        }
        c.task = t;
        {
            std::lock_guard lock(calls_mu_);
            ++tasks_running_;  // its worker no longer counts against max_in_flight
            // a request queued behind it may run now, on an idle worker or a new one
            if (queue_.size() > idle_workers_ && !stop_workers_) workers_.emplace_back([this] { worker_loop(); });
            work_cv_.notify_one();
        }
        json r = tasks_.view(*t);
        r["resultType"] = "task";
        std::lock_guard sl(c.st->send_mu);
        c.st->detached = true;
        send_to(c.reply, json{{"jsonrpc", "2.0"}, {"id", c.id}, {"result", std::move(r)}}, true);
        return true;
    }

    /// Promote `c` once it has run for tasks.promote_after (one thread serves every call).
    void schedule_promotion(const std::shared_ptr<handler_call>& c) {
        std::lock_guard lock(promoter_mu_);
        if (promoter_stop_) return;
        due_.emplace(std::chrono::steady_clock::now() + o_.tasks.promote_after, c);
        if (!promoter_.joinable()) promoter_ = std::thread([this] { promoter_loop(); });
        promoter_cv_.notify_all();
    }

    void promoter_loop() {
        std::unique_lock lock(promoter_mu_);
        while (!promoter_stop_) {
            if (due_.empty()) {
                promoter_cv_.wait(lock);
                continue;
            }
            const auto when = due_.begin()->first;
            if (std::chrono::steady_clock::now() < when) {
                promoter_cv_.wait_until(lock, when);
                continue;
            }
            std::weak_ptr<handler_call> w = due_.begin()->second;
            due_.erase(due_.begin());
            lock.unlock();
            if (auto c = w.lock()) promote(*c);
            lock.lock();
        }
    }

    void stop_promoter() {
        std::thread t;
        {
            std::lock_guard lock(promoter_mu_);
            promoter_stop_ = true;
            due_.clear();
            t = std::move(promoter_);
        }
        promoter_cv_.notify_all();
        if (t.joinable()) t.join();
    }

    json output_schema_of(std::string_view tool) {
        auto m = schemas();
        auto it = m->find(tool);
        return it == m->end() ? json() : it->second.second;
    }

    void run_handler(const std::shared_ptr<handler_call>& cp) {
        handler_call& c = *cp;
        tool_context ctx;
        ctx.stop = c.st->stop.get_token();
        ctx.call_id = c.key;
        ctx.parent_event = c.event_id;
        if (c.stateless) {
            ctx.client_capabilities = c.meta[meta_key::client_capabilities];
        } else {
            std::lock_guard lock(c.s->mu_);
            ctx.client_capabilities = c.s->caps_;
        }
        json progress_token;
        if (auto m = c.params.find("_meta"); m != c.params.end() && m->is_object() && m->contains("progressToken"))
            progress_token = (*m)["progressToken"];
        if (!progress_token.is_null() || c.tasks != task_support::forbidden) {
            auto last = std::make_shared<double>(-1.0);
            const reply_fn reply = c.reply;
            auto st = c.st;
            // a copy of on_progress may be called after the call ended (a relay's watch): weak
            std::weak_ptr<handler_call> call = cp;
            ctx.on_progress = [this, call, reply, progress_token, last, st](double p, std::optional<double> total, std::string_view msg) {
                std::unique_lock sl(st->send_mu);  // a promotion cannot slip between the check and the send
                if (st->detached.load()) {  // a task: its progress is its statusMessage
                    sl.unlock();
                    std::shared_ptr<detail::task_store::entry> t;
                    if (auto cl = call.lock()) {
                        std::lock_guard tl(cl->task_mu);
                        t = cl->task;
                    }
                    if (t) tasks_.set_message(*t, progress_text(p, total, msg));
                    return;
                }
                if (progress_token.is_null() || p <= *last || st->cancelled.load()) return;  // progress must increase
                *last = p;
                json n{{"progressToken", progress_token}, {"progress", p}};
                if (total) n["total"] = *total;
                if (!msg.empty()) n["message"] = msg;
                send_to(reply, json{{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", std::move(n)}}, false);
            };
        }
        request_context rq;
        rq.stateless_ = c.stateless;
        rq.method_ = c.method;
        rq.caps_ = ctx.client_capabilities.is_object() ? ctx.client_capabilities : json::object();
        if (c.stateless) {
            const json lv = c.meta.value(meta_key::log_level, json());
            rq.log_threshold_ = lv.is_string() && level_rank(lv.get<std::string>()) >= 0 ? level_rank(lv.get<std::string>()) : 100;
            rq.answers_ = c.answers;
            rq.saved_state_ = c.saved_state;
        } else {
            rq.log_threshold_ = c.s->level_.load();
            rq.ask_remote_ = [this, &c, stop = ctx.stop](const input_request& r, std::stop_token also) {
                return ask_client(c, r, stop, std::move(also));
            };
            rq.session_send_ = [w = std::weak_ptr<session>(c.s)](const json& j) {
                const auto s = w.lock();
                return s && !s->closed_.load() && s->emit(detail::dump(j));
            };
        }
        {
            const reply_fn reply = c.reply;
            auto st = c.st;
            rq.send_ = [reply, st](const json& j) {
                std::lock_guard sl(st->send_mu);
                if (!st->cancelled.load() && !st->detached.load()) send_to(reply, j, false);
            };
        }
        if (c.tasks != task_support::forbidden) {
            {
                std::lock_guard tl(c.task_mu);
                c.rq = &rq;
            }
            rq.start_task_ = [this, &c] { return promote(c); };
            if (o_.tasks.promote_after.count() > 0) schedule_promotion(cp);
        }
        detail::request_binding binding(ctx, rq);

        const std::string& m = c.method;
        const auto tg = target_of(m, c.params);
        const std::string& target = tg.first;
        const json& args = tg.second;
        json response;  // the whole message
        auto fail_with = [&](int ec, std::string msg, json data = nullptr) {
            json e{{"code", ec}, {"message", std::move(msg)}};
            if (!data.is_null()) e["data"] = std::move(data);
            response = json{{"jsonrpc", "2.0"}, {"id", c.id}, {"error", std::move(e)}};
        };
        // A protocol error from agentkit's own: the hint in the message a client (and its model)
        // reads, the whole error in data.error beside what the method adds.
        auto fail_for = [&](int ec, std::string head, const agentkit::error& e, json data = json::object()) {
            if (!e.hint.empty()) head += ". " + e.hint;
            data["error"] = e.to_json();
            fail_with(ec, std::move(head), std::move(data));
        };
        auto ok = [&](json r) {
            if (c.stateless) r["resultType"] = "complete";
            response = json{{"jsonrpc", "2.0"}, {"id", c.id}, {"result", std::move(r)}};
        };
        auto common_error = [&](const agentkit::error& e) -> bool {  // errors every handler maps alike
            if (e.code == errc::client_capability_missing) {
                const json& d = e.details;
                json need = d.is_object() && d.contains("requiredCapabilities") && d["requiredCapabilities"].is_object()
                                ? d["requiredCapabilities"]
                                : json::object();
                fail_with(code::missing_client_capability, e.message, json{{"requiredCapabilities", std::move(need)}});
                return true;
            }
            // URL elicitations the user must complete first: the error itself for a client of
            // 2025-11-25 that takes URL mode; any other client reads a tool error naming them.
            if (e.code == errc::url_elicitation_required && !c.stateless && elicitation_mode_declared(ctx.client_capabilities, "url") &&
                e.details.is_object() && e.details.contains("elicitations") && e.details["elicitations"].is_array()) {
                fail_with(code::url_elicitation_required, e.message, json{{"elicitations", e.details["elicitations"]}});
                return true;
            }
            return false;
        };

        if (!ctx.cancelled()) {
            if (m == "tools/call") {
                result<tool_output> r = fail(errc::tool_cancelled, "cancelled before it started");
                const bool par = b_.parallel_safe && b_.parallel_safe(target);
                if (par) {
                    std::shared_lock lock(exclusive_);
                    r = run_tool(target, args.is_null() ? json::object() : args, ctx);
                } else {
                    std::unique_lock lock(exclusive_);
                    r = run_tool(target, args.is_null() ? json::object() : args, ctx);
                }
                // A changed tool set is announced before the result that changed it.
                check_list_changed();
                if (!r && r.error().code == errc::tool_unknown) {
                    fail_for(code::invalid_params, "Unknown tool: " + target, r.error());
                } else if (!r && common_error(r.error())) {
                } else if (!(!r && r.error().code == errc::input_required)) {
                    tool_output out = r ? std::move(*r) : tool_output::from_error(r.error());
                    if (!out.is_error) {
                        const json schema = output_schema_of(target);
                        if (!schema.is_null()) {
                            std::optional<std::string> bad;
                            if (!out.structured) bad = "the tool declares an outputSchema but returned no structured content";
                            else bad = detail::schema_violation(schema, *out.structured);
                            if (bad) {
                                log("error", "mcp", target + ": structuredContent does not match its outputSchema: " + *bad);
                                out = tool_output::from_error(agentkit::error{std::string(errc::internal),
                                                                              target + " returned output that does not match its outputSchema (" + *bad + ")",
                                                                              "This is a bug in the server.", {}});
                            }
                        }
                    }
                    ok(call_result(out, o_.omit_false_is_error));
                }
            } else if (m == "prompts/get") {
                result<prompt_result> r = fail(errc::internal, "no prompts");
                {
                    std::shared_lock lock(exclusive_);
                    r = guarded_call("prompt " + target, [&] { return b_.get_prompt(target, args.is_null() ? json::object() : args, ctx); });
                }
                if (r) {
                    json msgs = json::array();
                    for (const auto& pm : r->messages) msgs.push_back(json{{"role", pm.role}, {"content", detail::content_json(pm.content)}});
                    json res{{"messages", std::move(msgs)}};
                    if (!r->description.empty()) res["description"] = r->description;
                    ok(std::move(res));
                } else if (common_error(r.error()) || r.error().code == errc::input_required) {
                } else if (r.error().code == errc::not_found) {
                    agentkit::error e = r.error();
                    if (e.hint.empty()) e.hint = "List the prompts (prompts/list) and get one of them";
                    fail_for(code::invalid_params, "Unknown prompt: " + target, e);
                } else if (r.error().code == errc::args_invalid || r.error().code == errc::args_malformed) {
                    fail_for(code::invalid_params, "Invalid params: " + r.error().message, r.error());
                } else {
                    fail_for(code::internal_error, r.error().message, r.error());
                }
            } else {  // resources/read
                result<std::vector<resource_contents>> r = fail(errc::internal, "no resources");
                {
                    std::shared_lock lock(exclusive_);
                    r = guarded_call("resource " + target, [&] { return b_.read_resource(target, ctx); });
                }
                if (r && !r->empty()) {
                    json contents = json::array();
                    for (const auto& x : *r) contents.push_back(x.to_json());
                    json res{{"contents", std::move(contents)}};
                    if (c.stateless) {
                        res["ttlMs"] = o_.list_ttl_ms;
                        res["cacheScope"] = o_.cache_scope;
                    }
                    ok(std::move(res));
                } else if (!r && (common_error(r.error()) || r.error().code == errc::input_required)) {
                } else if (!r && r.error().code != errc::not_found) {
                    fail_for(code::internal_error, r.error().message, r.error(), json{{"uri", target}});
                } else {
                    agentkit::error e = r ? agentkit::error(errc::not_found, "no resource at " + target) : r.error();
                    if (e.hint.empty()) e.hint = "List the resources (resources/list, resources/templates/list) and read one of them";
                    fail_for(code::invalid_params, "Resource not found: " + target, e, json{{"uri", target}});
                }
            }
            if (rq.protocol_error_) {
                fail_with(code::invalid_params, "Invalid params: " + *rq.protocol_error_);
            } else if (c.stateless && !rq.pending_.empty() && (response.is_null() || !response.contains("error"))) {
                json reqs = json::object();
                for (const auto& p : rq.pending_) reqs[p.key] = json{{"method", p.method}, {"params", p.params}};
                // the answers of this round join the state, for the next
                for (const auto& [k, v] : rq.answers_.items()) c.answers[k] = v;
                std::string sealed = seal_state(*c.s, c, rq);
                if (sealed.empty())  // a codec that could not seal (no random source): the round could not come back
                    fail_with(code::internal_error, "the server could not keep this request's state for the next round",
                              json{{"error", "requestState could not be sealed"}});
                else
                    response = json{{"jsonrpc", "2.0"},
                                    {"id", c.id},
                                    {"result", {{"resultType", "input_required"}, {"inputRequests", std::move(reqs)}, {"requestState", std::move(sealed)}}}};
            } else if (response.is_null()) {
                fail_with(code::internal_error, "the handler answered nothing");
            }
        }
        // A call that became a task ends its task; one that did not is answered here, and a
        // promotion is refused from now on (both decided under task_mu).
        std::shared_ptr<detail::task_store::entry> task;
        {
            std::lock_guard tl(c.task_mu);
            c.rq = nullptr;
            task = c.task;
            if (!task) c.answered = true;
        }
        if (task) {
            tasks_.finish(*task, response);
            std::lock_guard lock(calls_mu_);
            --running_;
            --tasks_running_;
            calls_cv_.notify_all();
            return;
        }
        // A tool that runs only as a task, finished before it became one: a task already done.
        if (c.tasks == task_support::required && response.contains("result") && response["result"].value("resultType", "") == "complete") {
            if (auto t = tasks_.create(principal_of(*c.s), nullptr)) {
                tasks_.finish(*t, response);
                json r = tasks_.view(*t);
                r.erase("result");
                r["resultType"] = "task";
                response = json{{"jsonrpc", "2.0"}, {"id", c.id}, {"result", std::move(r)}};
            }
        }
        // Whether it is answered is decided with the request leaving the in-flight map, under the
        // lock a cancellation takes to find it: a cancellation handled before this point is never
        // followed by the response; one handled after it names a finished request.
        bool answer = false;
        {
            std::lock_guard lock(c.s->mu_);
            c.s->in_flight_.erase(c.key);
            answer = !c.st->cancelled.load();
        }
        if (answer && !response.is_null()) {
            send_to(c.reply, response, true);
        } else if (c.event_id != 0 && o_.on_event) {  // no answer: its end is told all the same
            event e;
            e.kind = event_kind::mcp_response_sent;
            e.part = "mcp.server";
            e.scope = o_.name;
            e.id = c.event_id;
            e.name = c.method;
            e.detail = detail::request_target(c.method, c.params);
            e.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c.queued).count();
            e.error_code = std::string(errc::cancelled);
            e.error_message = "cancelled: no answer is sent";
            e.data = json{{"request_id", c.id}};
            agentkit::notify(o_.on_event, e);
        }
        std::lock_guard lock(calls_mu_);
        --running_;
        calls_cv_.notify_all();
    }

    struct tool_schemas {
        json first;   // inputSchema
        json second;  // outputSchema (null: none)
        agentkit::traits traits;
    };
    using schema_map = std::map<std::string, tool_schemas, std::less<>>;  // name → its schemas and traits

    /// The visible tools' schemas, rebuilt when the backend's version changes.
    std::shared_ptr<const schema_map> schemas() {
        const std::uint64_t v = b_.version ? b_.version() : 0;
        std::lock_guard lock(schemas_mu_);
        if (!schemas_ || schemas_version_ != v) {
            auto m = std::make_shared<schema_map>();
            for (const auto& t : b_.list_tools ? b_.list_tools() : std::vector<tool_info>{})
                (*m)[t.name] = {t.input_schema, t.output_schema ? *t.output_schema : json(), t.traits};
            schemas_ = std::move(m);
            schemas_version_ = v;
        }
        return schemas_;
    }

    template <class F>
    static auto guarded_call(const std::string& what, F&& f) -> decltype(f()) {
        try {
            return f();
        } catch (const std::exception& e) {
            return fail(errc::tool_exception, what + " failed: " + e.what());
        } catch (...) {
            return fail(errc::tool_exception, what + " failed");
        }
    }

    result<tool_output> run_tool(const std::string& tool, const json& args, tool_context& ctx) {
        if (!b_.call_tool) return fail(errc::internal, "server has no backend");
        return guarded_call(tool, [&] { return b_.call_tool(tool, args, ctx); });
    }

    void worker_loop() {
        std::unique_lock lock(calls_mu_);
        for (;;) {
            ++idle_workers_;
            // at most max_in_flight handlers that are not tasks run at once
            work_cv_.wait(lock, [&] { return stop_workers_ || (!queue_.empty() && busy_ - tasks_running_ < std::max<std::size_t>(1, o_.max_in_flight)); });
            --idle_workers_;
            if (queue_.empty()) return;  // stopping
            auto task = std::move(queue_.front());
            queue_.pop_front();
            ++busy_;
            lock.unlock();
            task();
            lock.lock();
            --busy_;
            work_cv_.notify_one();  // a slot is free
        }
    }

    static constexpr std::size_t max_subscriptions = 1024;

    backend b_;
    server_options o_;
    std::shared_ptr<session> default_;
    reply_fn default_reply_;
    std::mutex sessions_mu_;
    std::vector<std::weak_ptr<session>> sessions_;
    std::atomic<std::uint64_t> last_version_{0};
    mutable std::mutex listen_mu_;
    std::map<std::uint64_t, std::shared_ptr<listener>> listeners_;
    std::uint64_t next_listener_ = 0;
    std::mutex schemas_mu_;
    std::shared_ptr<const schema_map> schemas_;
    std::uint64_t schemas_version_ = 0;
    mutable std::mutex calls_mu_;
    std::condition_variable calls_cv_;
    std::condition_variable work_cv_;
    std::deque<std::function<void()>> queue_;
    std::vector<std::thread> workers_;
    std::size_t idle_workers_ = 0;
    std::size_t tasks_running_ = 0;  // handlers running as tasks (their workers are extra)
    std::size_t busy_ = 0;           // workers running a handler, tasks included
    std::size_t running_ = 0;
    bool closing_ = false;
    bool stop_workers_ = false;
    std::shared_mutex exclusive_;
    detail::task_store tasks_;
    std::mutex promoter_mu_;
    std::condition_variable promoter_cv_;
    std::multimap<std::chrono::steady_clock::time_point, std::weak_ptr<handler_call>> due_;
    std::thread promoter_;
    bool promoter_stop_ = false;
};

// ---- transports -------------------------------------------------------------------------------

/// A transport: runs until its input ends or `*stop` becomes true, returns the exit code.
template <class T>
concept transport = requires(T& t, const std::atomic<bool>* stop) {
    { t.run(stop) } -> std::same_as<int>;
};

/// Run a transport: `return mcp::serve(t, mcp::stop_on_signals());`.
template <transport T>
int serve(T& t, const std::atomic<bool>* stop = nullptr) {
    return t.run(stop);
}

/// Serve on stdin/stdout until stdin closes or `*stop` becomes true; returns the process exit
/// code (0 on a clean end). Nothing but whole protocol lines is written to stdout.
///
/// Stopping: set `*stop` from a SIGTERM/SIGINT handler (see stop_on_signals()). The loop does
/// not rely on the signal interrupting its read (the signal may be delivered to any thread of
/// the process, e.g. a tool's worker): while it waits for input it re-checks `*stop` at least
/// every 100 ms. On a stop, calls still running are cancelled at once (their responses, whole
/// lines, are still written) and the loop returns; a partly received message is dropped. When
/// stdin closes instead, running calls get half of a 5 s grace to finish before they are
/// cancelled, and a last message without its newline is still handled.
///
/// A line longer than server_options::max_message_bytes is answered with -32700 as soon as it
/// exceeds the limit and the rest of it is discarded unread: memory stays bounded however long
/// a line grows.
inline int run_stdio(server& srv, int in_fd = 0, int out_fd = 1, const std::atomic<bool>* stop = nullptr) {
    srv.set_sink([out_fd](const std::string& line) {
        std::string buf = line;
        buf += '\n';
        std::size_t off = 0;
        while (off < buf.size()) {
            const ssize_t n = ::write(out_fd, buf.data() + off, buf.size() - off);
            if (n < 0) {
                if (errno == EINTR) continue;
                return;  // the client is gone
            }
            off += static_cast<std::size_t>(n);
        }
    });
    const std::size_t limit = srv.options().max_message_bytes;
    std::string pending;
    std::size_t scanned = 0;   // bytes of `pending` known to hold no newline
    bool discarding = false;   // inside an oversized line, dropping bytes up to its newline
    bool stopped = false;
    std::array<char, 65536> chunk{};
    for (;;) {
        if (stop != nullptr && stop->load()) {
            stopped = true;
            break;
        }
        if (stop != nullptr) {
            pollfd p{in_fd, POLLIN, 0};
            const int r = ::poll(&p, 1, 100);
            if (r < 0 && errno != EINTR) break;
            if (r <= 0) continue;  // timeout or signal: check *stop again
        }
        const ssize_t n = ::read(in_fd, chunk.data(), chunk.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (n == 0) break;
        std::string_view data(chunk.data(), static_cast<std::size_t>(n));
        if (discarding) {
            const std::size_t nl = data.find('\n');
            if (nl == std::string_view::npos) continue;
            data.remove_prefix(nl + 1);
            discarding = false;
        }
        pending.append(data);
        std::size_t start = 0;
        for (;;) {
            const std::size_t nl = pending.find('\n', std::max(start, scanned));
            if (nl == std::string::npos) break;
            srv.handle(std::string_view(pending).substr(start, nl - start));
            start = nl + 1;
        }
        pending.erase(0, start);
        scanned = pending.size();
        // Past the limit plus a possible '\r' (no overflow for a limit of SIZE_MAX): handle()
        // answers "message too large".
        if (pending.size() > limit && pending.size() - limit > 1) {
            srv.handle(pending);
            pending.clear();
            pending.shrink_to_fit();
            scanned = 0;
            discarding = true;
        }
    }
    if (stopped) srv.cancel_all();
    else if (!pending.empty() && !discarding) srv.handle(pending);  // a last message without its newline
    srv.shutdown(std::chrono::milliseconds(5000));
    srv.set_sink({});  // a tool left running past shutdown must not write to out_fd any more
    return 0;
}

/// The stdio transport as a value: `mcp::stdio_transport t{srv}; return mcp::serve(t, stop);`.
struct stdio_transport {
    server& srv;     ///< the server to run
    int in_fd = 0;   ///< where messages are read (stdin)
    int out_fd = 1;  ///< where messages are written (stdout)
    /// Serve until stdin closes or `*stop` is set (run_stdio()); returns the exit status.
    int run(const std::atomic<bool>* stop) { return run_stdio(srv, in_fd, out_fd, stop); }
};
static_assert(transport<stdio_transport>);

namespace detail {
inline std::atomic<bool> stop_signal_flag{false};
inline void on_stop_signal(int) { stop_signal_flag.store(true); }  // async-signal-safe: a lock-free store
}  // namespace detail

/// Install handlers for SIGTERM and SIGINT (without SA_RESTART) that set a flag, and return the
/// flag for run_stdio: `return run_stdio(srv, 0, 1, stop_on_signals());`. SIGPIPE is ignored,
/// so a client that closed its end makes writes fail instead of killing the server.
inline const std::atomic<bool>* stop_on_signals() {
    struct sigaction sa {};
    sa.sa_handler = detail::on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    ::sigaction(SIGTERM, &sa, nullptr);
    ::sigaction(SIGINT, &sa, nullptr);
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    ::sigaction(SIGPIPE, &ign, nullptr);
    return &detail::stop_signal_flag;
}

}  // namespace agentkit::mcp
