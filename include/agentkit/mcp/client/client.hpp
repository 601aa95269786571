// agentkit/mcp/client/client.hpp — an MCP client: connects to one server over a client_transport
// (stdio: mcp/client/stdio.hpp; Streamable HTTP: mcp/http/client.hpp), negotiates the
// protocol, and makes requests.
// (Over 1,000 lines because it is one class around one piece of state: the table of requests in
// flight, which the handshake, every request, the server's own requests, progress, the listen
// stream and the transport's failures all read and complete; split, each part would reach into
// that table from outside.)
//
//   auto c = agentkit::mcp::client::connect(
//       std::make_unique<agentkit::mcp::stdio_client_transport>(agentkit::mcp::stdio_server{
//           .command = "npx", .args = {"-y", "@modelcontextprotocol/server-everything"}}),
//       {.server_name = "everything"});
//   if (!c) { std::puts((*c).error().to_text().c_str()); ... }
//   auto tools = (*c)->list_tools();                       // every page
//   agentkit::tool_context ctx;                            // stop token, deadline, progress
//   auto out = (*c)->call_tool("echo", {{"message", "hi"}}, ctx);
//
// Protocol, stateless era (client_options::protocol_version = "2026-07-28"): no handshake and no
// session; server/discover tells the server's versions, capabilities and serverInfo (a server
// that does not know it gets the initialize handshake below instead). Every request carries
// `_meta` with the revision, the client's capabilities and clientInfo; a request refused with
// -32022 (unsupported version) is sent once more when the server lists a revision the client
// speaks statelessly; an input_required result has its inputRequests answered through the host's
// callbacks (elicitation, sampling, roots) and the request is sent again, with a new id, its
// inputResponses and the server's requestState unchanged (at most max_input_rounds times). A
// result without resultType is complete; a "task" result (the tasks extension, declared on every
// request unless client_options::tasks is false) is followed to its end by call_tool(), and
// await_task() follows one by its id. Notifications come on a subscriptions/listen stream
// the client keeps open (client_options::listen) for the list_changed kinds the host has
// callbacks for and the server offers: when it ends it is opened again with backoff, and the
// host's callbacks are called then, since changes meanwhile were not replayed.
//
// Protocol (revision 2025-11-25 and older through initialize): the client sends initialize with
// its capabilities (roots, sampling and elicitation when the host gave the callbacks that answer
// them; elicitation in form mode, and URL mode with client_options::url_elicitation, a request
// in a mode not declared being refused with -32602), checks the server's answer (a revision it
// speaks), and sends notifications/initialized.
// Requests wait for their response up to a timeout (client_options::request_timeout, or the
// tool_context deadline); on a timeout or a stop request the client sends notifications/cancelled
// and answers `timeout` or `cancelled`. Progress: a request made with a progress callback carries
// a progressToken; notifications/progress reach the callback (and, by default, push the timeout
// back, up to max_request_time). The server's requests (ping, roots/list, sampling/createMessage,
// elicitation/create) are answered on their own threads through the host's callbacks, and the
// time a callback takes (a person, a model) is given back to the requests waiting meanwhile; a
// request the host has no callback for is answered with -32601. list_changed notifications call
// the host's callbacks. Tasks (2025-11-25): a tool the server lists with `execution.taskSupport:
// "required"` (on a server declaring tasks.requests.tools.call) is called as a task and polled
// to its result (call_tool_as_task()), so the host sees an ordinary call; "optional" tools are
// called directly. The stateless era's tasks extension is not used.
//
// Errors name the server (client_options::server_name) and say what to do: a JSON-RPC error
// answer is `remote.error` (details: server, method, code, data), a server that exits is
// `transport.closed` with the end of its stderr, a response over the transport's size limit is
// `budget.exceeded` for the request it answers; other requests are unaffected. Lines that are not
// JSON-RPC are skipped and counted (noise()).
//
// Thread safety: every member may be called from any thread, concurrently.
#pragma once

#include <agentkit/tools/traits.hpp>
#include <agentkit/core/declared_order.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/observer.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/mcp/client/transport.hpp>
#include <agentkit/mcp/protocol.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/version.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace agentkit::mcp {

/// A root the client offers the server (roots/list): a file:// URI and an optional name.
struct client_root {
    std::string uri;   ///< "file:///home/me/project"
    std::string name;  ///< shown to users; empty: none
};

/// How a client connects and what the host answers for the server.
struct client_options {
    /// The server's name in every message ("memory", "github"); empty: the transport's description.
    std::string server_name;
    std::string client_name = "agentkit";  ///< clientInfo.name
    std::string client_version = std::to_string(AGENTKIT_VERSION_MAJOR) + "." + std::to_string(AGENTKIT_VERSION_MINOR) + "." +
                                 std::to_string(AGENTKIT_VERSION_PATCH);  ///< clientInfo.version
    /// The revision asked for in initialize (the server may answer an older one it shares).
    std::string protocol_version = std::string(latest_handshake_version);
    std::chrono::milliseconds initialize_timeout{30000};  ///< bound for the handshake
    std::chrono::milliseconds request_timeout{60000};     ///< bound for a request without a deadline of its own
    /// Bound for a request whose timeout progress notifications keep pushing back.
    std::chrono::milliseconds max_request_time{600000};
    bool progress_resets_timeout = true;  ///< a progress notification restarts the request's timeout
    std::size_t max_list_pages = 1000;    ///< pagination guard for a server whose cursor never ends
    int max_input_rounds = 8;  ///< stateless era: input_required rounds answered for one request before it fails
    /// Tasks (2025-11-25, and the 2026-07-28 extension): called on the thread of a call_tool()
    /// that became the server's task, with its taskId, before it is polled: a host relaying the
    /// server's requests can then tell which call one that names the task (`_meta` related-task)
    /// belongs to, and a host that keeps the id can follow the task from another connection
    /// (await_task()).
    std::function<void(const std::string& task_id)> on_task_started;
    /// Tasks (the 2026-07-28 extension, io.modelcontextprotocol/tasks): declare it on every
    /// request, so that a server may answer a tools/call with a task, which call_tool() follows
    /// to its end (await_task()). false: every tools/call is answered in its request.
    bool tasks = true;
    /// Tasks (2025-11-25): the lifetime asked for when a tool is called as a task.
    std::chrono::milliseconds task_ttl{300000};
    /// Tasks: the wait between tasks/get polls when the server suggests none (its pollInterval
    /// is followed, kept within [task_poll_min, task_poll_max]).
    std::chrono::milliseconds task_poll{1000};
    std::chrono::milliseconds task_poll_min{10};    ///< shortest wait between polls
    std::chrono::milliseconds task_poll_max{5000};  ///< longest wait between polls

    /// Roots offered to the server (declares the roots capability when `roots_enabled`).
    std::vector<client_root> roots;
    bool roots_enabled = false;  ///< declare roots (with listChanged) even with no roots yet
    /// Answers sampling/createMessage (params → CreateMessageResult); unset: not declared.
    std::function<result<json>(const json& params)> on_sampling;
    /// Answers elicitation/create (params → {action, content}); unset: not declared. Form mode is
    /// declared; with `url_elicitation` URL mode too (params.mode "url": show the user params.url
    /// and params.message, open the URL with their consent, answer {action} without content). A
    /// request in a mode not declared is refused (-32602) without calling it.
    std::function<result<json>(const json& params)> on_elicitation;
    /// Declare URL-mode elicitation (2025-11-25) beside form mode; needs on_elicitation.
    bool url_elicitation = false;
    /// notifications/elicitation/complete (params: elicitationId): a URL-mode interaction the
    /// server asked for has ended (the host may retry the call that needed it).
    std::function<void(const json& params)> on_elicitation_complete;
    /// notifications/tools/list_changed.
    std::function<void()> on_tools_changed;
    /// notifications/resources/list_changed.
    std::function<void()> on_resources_changed;
    /// notifications/prompts/list_changed.
    std::function<void()> on_prompts_changed;
    /// notifications/resources/updated (the resource's URI).
    std::function<void(std::string_view uri)> on_resource_updated;
    /// notifications/message (params: level, logger, data).
    std::function<void(const json& params)> on_log;
    /// Stateless era: keep a subscriptions/listen stream open for the list_changed notifications
    /// the host has callbacks for (and the server's capabilities offer); false: none.
    bool listen = true;
    /// The first wait before a listen stream that ended is opened again (doubling up to 30 s;
    /// back to this once the server acknowledged one).
    std::chrono::milliseconds listen_retry{500};
    /// The connection ended (the server exited, the session closed); called once, before the
    /// requests still waiting fail, from the transport's thread: it must not call client::close().
    std::function<void(const error& why)> on_close;
    /// Told of each request sent and its answer (core/observer.hpp: mcp_request_sent and
    /// mcp_response_received, scope: the server's name, parent: request_options::parent_event,
    /// which call_tool() takes from its tool_context). Called on the requesting thread.
    observer on_event;
};

/// How one request is made.
struct request_options {
    /// Bound for the response; unset: client_options::request_timeout.
    std::optional<std::chrono::milliseconds> timeout;
    /// Give up at this time (a tool_context deadline); max(): none beyond `timeout`.
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    /// Cancels the request (notifications/cancelled is sent).
    std::stop_token stop{};
    /// Receives notifications/progress for this request (a progressToken is sent when set).
    std::function<void(double progress, std::optional<double> total, std::string_view message)> on_progress;
    /// The observer event this request is made inside (client_options::on_event); 0 = none.
    std::uint64_t parent_event = 0;
};

/// An MCP client connected to one server (see the file comment).
class client {
public:
    /// Start `transport`, make the initialize handshake and return the connected client. Errors:
    /// the transport's (the program cannot start, the server exits: `transport.closed` with its
    /// stderr), `timeout` (no initialize answer), `protocol.error` (a revision the client does not
    /// speak, a malformed answer), `remote.error` (the server refused).
    [[nodiscard]] static result<std::unique_ptr<client>> connect(std::unique_ptr<client_transport> transport, client_options o = {}) {
        std::unique_ptr<client> c(new client(std::move(transport), std::move(o)));
        if (auto r = c->start(); !r) {
            c->close();
            return fail(std::move(r).error());
        }
        return c;
    }

    client(const client&) = delete;
    client& operator=(const client&) = delete;
    /// Closes the connection (see close()).
    ~client() { close(); }

    /// Close the transport (the server process is stopped); requests still waiting fail with
    /// `transport.closed`. Idempotent.
    void close() {
        {
            std::lock_guard lock(mu_);
            if (closed_by_host_) return;
            closed_by_host_ = true;
        }
        t_->close();
        fail_all(error(errc::transport_closed, name() + ": the connection was closed"));
        listen_cv_.notify_all();
        if (listen_thread_.joinable()) listen_thread_.join();
        std::vector<std::thread> workers;
        {
            std::lock_guard lock(mu_);
            workers.swap(workers_);
        }
        for (auto& w : workers)
            if (w.joinable()) w.join();
    }

    /// The server's name in messages.
    [[nodiscard]] std::string name() const { return o_.server_name.empty() ? t_->describe() : o_.server_name; }
    /// The revision in use: the one the server answered in initialize, or "2026-07-28" when the
    /// connection is stateless.
    [[nodiscard]] std::string protocol_version() const {
        std::lock_guard lock(mu_);
        return version_;
    }
    /// True when the connection speaks the stateless era (2026-07-28: no session, `_meta` per request).
    [[nodiscard]] bool stateless() const noexcept { return stateless_.load(); }
    /// The server's serverInfo ({name, version, ...}).
    [[nodiscard]] const json& server_info() const noexcept { return server_info_; }
    /// The server's capabilities.
    [[nodiscard]] const json& server_capabilities() const noexcept { return server_caps_; }
    /// The server's instructions (empty when none).
    [[nodiscard]] const std::string& instructions() const noexcept { return instructions_; }
    /// True when the server declared `capability` (e.g. "tools", "resources", "prompts").
    [[nodiscard]] bool server_supports(std::string_view capability) const {
        return server_caps_.is_object() && server_caps_.contains(std::string(capability));
    }
    /// True while the connection is up.
    [[nodiscard]] bool connected() const {
        std::lock_guard lock(mu_);
        return !closed_ && !closed_by_host_;
    }
    /// Why the connection ended (nothing while it is up).
    [[nodiscard]] std::optional<error> close_reason() const {
        std::lock_guard lock(mu_);
        return close_reason_;
    }
    /// Messages from the server that were not valid JSON-RPC (skipped).
    [[nodiscard]] std::size_t noise() const noexcept { return noise_.load(); }
    /// The transport (for its diagnostics).
    [[nodiscard]] client_transport& transport() noexcept { return *t_; }

    /// Make a request and wait for its result (in the stateless era with its `_meta`, a version
    /// refusal retried once, input_required rounds answered). Never throws.
    [[nodiscard]] result<json> request(std::string_view method, json params = json::object(), request_options ro = {}) {
        if (!stateless_) return request_once(method, std::move(params), std::move(ro));
        if (!params.is_object()) params = json::object();
        bool version_retried = false;
        for (int round = 0;;) {
            auto r = request_once(method, with_meta(params), ro);
            if (!r) {
                const error& e = r.error();
                if (!version_retried && e.is(errc::remote_error) && e.details.value("code", 0) == code::unsupported_version && e.details.contains("data") &&
                    e.details["data"].is_object() && e.details["data"].contains("supported") && e.details["data"]["supported"].is_array()) {
                    const json& supported = e.details["data"]["supported"];
                    if (std::find(supported.begin(), supported.end(), json(std::string(stateless_version))) != supported.end()) {
                        version_retried = true;
                        std::lock_guard lock(mu_);
                        version_ = std::string(stateless_version);
                        continue;
                    }
                }
                return r;
            }
            if (r->is_object() && r->value("resultType", "") == "task" && method != "tools/call")  // the extension's tasks are for tools/call only
                return fail(errc::protocol_error, name() + ": " + std::string(method) + " was answered with a task, which only tools/call may be",
                            "The MCP server \"" + name() + "\" broke the tasks extension; report it to its maintainers.",
                            json{{"server", name()}, {"method", std::string(method)}});
            if (!r->is_object() || !r->contains("resultType") || (*r)["resultType"] != "input_required") return r;
            if (++round > o_.max_input_rounds)
                return fail(errc::input_required, name() + ": " + std::string(method) + " still needs input after " + std::to_string(o_.max_input_rounds) + " rounds",
                            "The server keeps asking; answer it differently or report it to the server's authors.",
                            json{{"server", name()}, {"method", std::string(method)}});
            auto answers = answer_input_requests(method, r->value("inputRequests", json::object()));
            if (!answers) return fail(std::move(answers).error());
            params["inputResponses"] = std::move(*answers);
            if (r->contains("requestState")) params["requestState"] = (*r)["requestState"];
            else params.erase("requestState");
        }
    }

private:
    /// `params` with the stateless era's per-request `_meta`.
    json with_meta(json params) const {
        std::lock_guard lock(mu_);
        json& meta = params["_meta"];
        if (!meta.is_object()) meta = json::object();
        meta[meta_key::protocol_version] = version_;
        meta[meta_key::client_capabilities] = caps_;
        if (o_.tasks) meta[meta_key::client_capabilities]["extensions"][std::string(tasks_extension)] = json::object();
        meta[meta_key::client_info] = json{{"name", o_.client_name}, {"version", o_.client_version}};
        return params;
    }

    /// An elicitation/create through the host's callback, when its mode is one the client declared.
    result<json> elicit(const json& params) {
        const std::string mode = elicitation_mode(params);
        if (!elicitation_mode_declared(caps_, mode))
            return fail(errc::args_invalid, "the client did not declare " + mode + "-mode elicitation",
                        mode == "url" ? "Set client_options::url_elicitation to take URL-mode requests." : std::string());
        return o_.on_elicitation(params);
    }

    /// The answers to an input_required result's inputRequests, through the host's callbacks.
    result<json> answer_input_requests(std::string_view for_method, const json& requests) {
        json out = json::object();
        if (!requests.is_object())
            return fail(errc::protocol_error, name() + ": " + std::string(for_method) + " asked for input without inputRequests",
                        "The server sent a malformed input_required result; report it to the server's authors.");
        for (const auto& [key, rq] : requests.items()) {
            const std::string method = rq.is_object() ? rq.value("method", "") : "";
            const json params = rq.is_object() ? rq.value("params", json::object()) : json::object();
            result<json> a = fail(errc::input_required, "");
            try {
                if (method == "elicitation/create" && o_.on_elicitation) a = elicit(params);
                else if (method == "sampling/createMessage" && o_.on_sampling) a = o_.on_sampling(params);
                else if (method == "roots/list" && (o_.roots_enabled || !o_.roots.empty())) a = json{{"roots", roots_json()}};
                else
                    return fail(errc::input_required, name() + ": " + std::string(for_method) + " needs " + (method.empty() ? std::string("input") : method) + ", which the host does not answer",
                                "Give client_options the callback that answers " + (method.empty() ? std::string("it") : method) + " (on_elicitation, on_sampling, roots).",
                                json{{"server", name()}, {"method", std::string(for_method)}, {"input", method}});
            } catch (const std::exception& ex) {
                a = fail(errc::internal, std::string("the host's callback failed: ") + ex.what());
            } catch (...) {
                a = fail(errc::internal, "the host's callback failed");
            }
            if (!a) {
                error e = std::move(a).error();
                e.message = name() + ": answering " + method + " for " + std::string(for_method) + ": " + e.message;
                return fail(std::move(e));
            }
            out[key] = std::move(*a);
        }
        return out;
    }

    json roots_json() const {
        json roots = json::array();
        for (const auto& r : o_.roots) {
            json one{{"uri", r.uri}};
            if (!r.name.empty()) one["name"] = r.name;
            roots.push_back(std::move(one));
        }
        return roots;
    }

    /// One request on the wire and the wait for its answer, reported to client_options::on_event.
    [[nodiscard]] result<json> request_once(std::string_view method, json params, request_options ro) {
        if (!o_.on_event) return request_wire(method, std::move(params), std::move(ro));
        event e;
        e.kind = event_kind::mcp_request_sent;
        e.part = "mcp.client";
        e.scope = name();
        e.id = next_event_id();
        e.parent = ro.parent_event;
        e.name = std::string(method);
        e.detail = detail::request_target(method, params);
        agentkit::notify(o_.on_event, e);
        const auto t0 = std::chrono::steady_clock::now();
        auto r = request_wire(method, std::move(params), std::move(ro));
        e.kind = event_kind::mcp_response_received;
        e.at = std::chrono::system_clock::now();
        e.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (!r) {
            e.error_code = r.error().code;
            e.error_message = r.error().message;
        } else if (const auto ie = r->is_object() ? r->find("isError") : r->end(); r->is_object() && ie != r->end() && ie->is_boolean() && ie->get<bool>()) {
            e.error_code = std::string(errc::tool_failed);  // the tool's own failure: the request went well
        }
        agentkit::notify(o_.on_event, e);
        return r;
    }

    [[nodiscard]] result<json> request_wire(std::string_view method, json params, request_options ro) {
        auto p = std::make_shared<pending>();
        p->method = std::string(method);
        p->on_progress = std::move(ro.on_progress);
        std::int64_t id = 0;
        {
            std::lock_guard lock(mu_);
            if (closed_ || closed_by_host_)
                return fail(errc::transport_closed, name() + ": not connected" + (close_reason_ ? " (" + close_reason_->message + ")" : std::string()),
                            "The MCP server \"" + name() + "\" is not running; it may be restarting, try again later.");
            id = next_id_++;
            pending_.emplace(id, p);
        }
        if (!params.is_object()) params = json::object();
        if (p->on_progress) params["_meta"]["progressToken"] = id;
        json msg{{"jsonrpc", "2.0"}, {"id", id}, {"method", std::string(method)}, {"params", std::move(params)}};
        // counted before sending: a garbled answer can arrive before send() returns
        const std::size_t malformed_before = malformed_.load();
        if (auto s = t_->send(wire(msg)); !s) {
            forget(id);
            error e = std::move(s).error();
            e.message = name() + ": cannot send " + std::string(method) + ": " + e.message;
            if (e.hint.empty()) e.hint = "The MCP server \"" + name() + "\" is not reading its input; it may be hung. Try again later.";
            return fail(std::move(e));
        }
        const auto timeout = ro.timeout.value_or(o_.request_timeout);
        const auto started = std::chrono::steady_clock::now();
        // While the host answers a request of the server's (a person, a model), the server waits
        // for it: that time extends both bounds (a host deadline stays as given).
        auto hard_end = [&] { return std::min(ro.deadline, started + std::max(timeout, o_.max_request_time) + p->host_time); };
        auto soft_end = [&] {
            if (host_answering_.load() > 0) return hard_end();
            return std::min(ro.deadline, (o_.progress_resets_timeout ? p->last_activity : started) + timeout + p->host_time);
        };
        std::unique_lock lock(p->mu);
        for (;;) {
            const auto end = std::min(soft_end(), hard_end());
            const bool woke = p->cv.wait_until(lock, ro.stop, end, [&] { return p->done || p->recheck; });
            if (p->done) break;
            if (woke) {
                p->recheck = false;
                continue;
            }
            if (ro.stop.stop_requested()) {
                lock.unlock();
                abandon(id, "cancelled by the client");
                return fail(errc::cancelled, name() + ": " + std::string(method) + " was cancelled");
            }
            const auto now = std::chrono::steady_clock::now();
            if (now >= std::min(soft_end(), hard_end())) {
                lock.unlock();
                abandon(id, "timed out");
                const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - started).count();
                // lines that were not JSON meanwhile: most likely the answer, malformed
                if (const std::size_t garbled = malformed_.load() - malformed_before; garbled > 0)
                    return fail(errc::timeout, name() + ": no answer to " + std::string(method) + " in " + std::to_string(ms) + " ms; meanwhile it wrote " +
                                    std::to_string(garbled) + " line(s) that are not valid JSON (a malformed answer?)",
                                "The MCP server \"" + name() + "\" answers with malformed JSON; see its log, report it to its maintainers, "
                                "or use another server's tools.",
                                json{{"server", name()}, {"method", std::string(method)}, {"elapsed_ms", ms}, {"malformed", garbled}});
                return fail(errc::timeout, name() + ": no answer to " + std::string(method) + " in " + std::to_string(ms) + " ms",
                            "The MCP server \"" + name() + "\" is slow or hung; try again, with less work per call, or later.",
                            json{{"server", name()}, {"method", std::string(method)}, {"elapsed_ms", ms}});
            }
        }
        if (p->failure) return fail(std::move(*p->failure));
        return std::move(p->response);
    }

public:
    /// Send a notification. Never throws.
    result<void> notify(std::string_view method, json params = json::object()) {
        json msg{{"jsonrpc", "2.0"}, {"method", std::string(method)}};
        if (params.is_object() && !params.empty()) msg["params"] = std::move(params);
        return t_->send(wire(msg));
    }

    /// ping.
    result<void> ping(std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
        request_options ro;
        ro.timeout = timeout;
        auto r = request("ping", json::object(), std::move(ro));
        if (!r) return fail(std::move(r).error());
        return {};
    }

    /// Every tool of the server (all pages of tools/list), in the server's order (in the stateless
    /// era without the tools whose x-mcp-header annotations are invalid). Each keeps its
    /// inputSchema as sent; annotations become traits (readOnlyHint → read_only, destructiveHint →
    /// destructive, idempotentHint → idempotent, openWorldHint → open_world; read-only tools are
    /// also parallel_safe).
    [[nodiscard]] result<std::vector<tool_info>> list_tools(request_options ro = {}) {
        auto all = list_all("tools/list", "tools", std::move(ro));
        if (!all) return fail(std::move(all).error());
        std::vector<tool_info> out;
        out.reserve(all->size());
        for (const auto& t : *all) {
            if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) {
                ++noise_;
                continue;  // a tool without a name cannot be called
            }
            if (stateless_ && !parameter_headers(t.value("inputSchema", json::object()))) {
                ++noise_;
                continue;  // an invalid x-mcp-header annotation: the tool must not be used (SEP-2243)
            }
            out.push_back(tool_info_of(t));
        }
        {
            std::lock_guard lock(mu_);
            task_support_.clear();
            for (const auto& t : *all)
                if (t.is_object() && t.contains("name") && t["name"].is_string())
                    if (auto ex = t.find("execution"); ex != t.end() && ex->is_object())
                        if (auto ts = ex->find("taskSupport"); ts != ex->end() && ts->is_string())
                            task_support_[t["name"].get<std::string>()] = ts->get<std::string>();
            tools_listed_ = true;
        }
        return out;
    }

    /// The raw tools/list entries (every page), for hosts that want fields tool_info lacks.
    [[nodiscard]] result<std::vector<json>> list_tools_json(request_options ro = {}) { return list_all("tools/list", "tools", std::move(ro)); }

    /// Call a tool: the context's stop token cancels, its deadline bounds the wait, its progress
    /// callback receives progress. A tool's own failure (isError) is a normal result with
    /// is_error; a failure to call is an error (`remote.error`, `timeout`, `cancelled`, ...).
    [[nodiscard]] result<tool_output> call_tool(std::string_view tool, const json& args, tool_context& ctx) {
        if (task_required(tool)) return call_tool_as_task(tool, args, ctx);
        request_options ro;
        ro.stop = ctx.stop;
        ro.deadline = ctx.deadline;
        ro.parent_event = ctx.parent_event;
        if (ctx.on_progress) ro.on_progress = ctx.on_progress;
        json params{{"name", std::string(tool)}, {"arguments", args.is_object() ? args : json::object()}};
        auto r = request("tools/call", std::move(params), std::move(ro));
        if (!r) {
            error e = std::move(r).error();
            if (e.is(errc::cancelled)) e.code = std::string(errc::tool_cancelled);
            if (e.is(errc::timeout)) e.code = std::string(errc::tool_timeout);
            return fail(std::move(e));
        }
        if (r->is_object() && r->value("resultType", "") == "task") return follow_task(std::string(tool), std::move(*r), ctx, true);
        return output_of(*r);
    }

    /// Follow a task of the tasks extension (2026-07-28) to its end, by its id: one that a
    /// call_tool() of this or another connection started (client_options::on_task_started gives
    /// the id), e.g. after the host reconnected. tasks/get at the task's pollIntervalMs (kept
    /// within task_poll_min and task_poll_max); its questions (inputRequests) answered through
    /// the host's callbacks and sent with tasks/update; its statusMessage passed to
    /// ctx.on_progress; ctx.stop or ctx.deadline sends tasks/cancel and answers `tool.cancelled`
    /// or `tool.timeout`. A completed task is its tool's output (isError kept); a failed one
    /// `remote.error` with the task's JSON-RPC error (details: code, data, task); one the
    /// server cancelled `tool.cancelled`. An id the server does not know is `remote.error`
    /// with code -32602 (forgotten after its ttlMs, or another client's).
    [[nodiscard]] result<tool_output> await_task(std::string_view task_id, tool_context& ctx) {
        request_options ro;
        ro.stop = ctx.stop;
        ro.deadline = ctx.deadline;
        ro.parent_event = ctx.parent_event;
        auto got = request("tasks/get", json{{"taskId", std::string(task_id)}}, ro);
        if (!got) {
            error e = std::move(got).error();
            if (e.is(errc::cancelled)) e.code = std::string(errc::tool_cancelled);
            if (e.is(errc::timeout)) e.code = std::string(errc::tool_timeout);
            e.message += " (reading task " + std::string(task_id) + ")";
            return fail(std::move(e));
        }
        return follow_task("task " + std::string(task_id), std::move(*got), ctx, false);
    }
    /// await_task() without a context.
    [[nodiscard]] result<tool_output> await_task(std::string_view task_id) {
        tool_context ctx;
        return await_task(task_id, ctx);
    }
    /// tasks/cancel (the 2026-07-28 extension): ask the server to stop a task; the server
    /// acknowledges and may still finish it. An unknown id is `remote.error` (-32602).
    result<void> cancel_task_by_id(std::string_view task_id, request_options ro = {}) {
        auto r = request("tasks/cancel", json{{"taskId", std::string(task_id)}}, std::move(ro));
        if (!r) return fail(std::move(r).error());
        return {};
    }
    /// Call a tool without a context.
    [[nodiscard]] result<tool_output> call_tool(std::string_view tool, const json& args) {
        tool_context ctx;
        return call_tool(tool, args, ctx);
    }

    /// True when the server takes task-augmented tools/call (2025-11-25 tasks:
    /// capabilities.tasks.requests.tools.call). Its tools marked `execution.taskSupport:
    /// "required"` are then called as tasks by call_tool(), transparently (see call_tool_as_task()).
    [[nodiscard]] bool server_runs_tool_tasks() const {
        const json& c = server_caps_;
        if (!c.is_object()) return false;
        const auto t = c.find("tasks");
        if (t == c.end() || !t->is_object()) return false;
        const auto r = t->find("requests");
        if (r == t->end() || !r->is_object()) return false;
        const auto tl = r->find("tools");
        return tl != r->end() && tl->is_object() && tl->contains("call");
    }

    /// Call a tool as a task (2025-11-25 tasks), as call_tool() does for the tools that require it:
    /// tools/call with `task: {ttl}`; then tasks/get at the server's pollInterval (or sooner, on a
    /// notifications/tasks/status) until the task ends or needs input, its status messages passed
    /// to the progress callback while the server sends no progress of its own; then tasks/result,
    /// during which the server's requests for input (elicitation, sampling) reach the host's
    /// callbacks. The stop token and the deadline bound the whole call; either sends tasks/cancel
    /// (when the server offers it) and answers `tool.cancelled` or `tool.timeout`. A server that
    /// answers the call at once (no task) is taken at its word. A task that failed is
    /// `remote.error` naming the tool and the task.
    [[nodiscard]] result<tool_output> call_tool_as_task(std::string_view tool, const json& args, tool_context& ctx) {
        auto watch = std::make_shared<task_watch>();
        watch->on_progress = ctx.on_progress;
        std::string token;
        {
            std::lock_guard lock(mu_);
            token = "agentkit-task-" + std::to_string(next_task_token_++);
            task_tokens_[token] = watch;
        }
        std::string task_id;
        struct unwatch {  // the watch ends with the call, however it ends
            client* self;
            const std::string& token;
            const std::string& id;
            ~unwatch() {
                std::lock_guard lock(self->mu_);
                self->task_tokens_.erase(token);
                if (!id.empty()) self->task_ids_.erase(id);
            }
        } forget_watch{this, token, task_id};

        const auto failed = [&](error e) -> result<tool_output> {
            if (e.is(errc::cancelled)) e.code = std::string(errc::tool_cancelled);
            if (e.is(errc::timeout)) e.code = std::string(errc::tool_timeout);
            return fail(std::move(e));
        };
        json params{{"name", std::string(tool)}, {"arguments", args.is_object() ? args : json::object()}, {"task", {{"ttl", o_.task_ttl.count()}}}};
        if (ctx.on_progress) params["_meta"]["progressToken"] = token;
        request_options ro;
        ro.stop = ctx.stop;
        ro.deadline = ctx.deadline;
        ro.parent_event = ctx.parent_event;
        auto created = request("tools/call", std::move(params), ro);
        if (!created) return failed(std::move(created).error());
        if (!created->is_object() || !created->contains("task")) return output_of(*created);  // run at once, no task
        const json& task = (*created)["task"];
        if (!task.is_object() || !task.contains("taskId") || !task["taskId"].is_string() || task["taskId"].get<std::string>().empty())
            return fail(errc::protocol_error, name() + ": tools/call " + std::string(tool) + " answered with a task that has no taskId",
                        "The MCP server "" + name() + "" broke the tasks protocol; report it to its maintainers.");
        json status = task;
        {
            std::lock_guard lock(mu_);
            task_id = task["taskId"].get<std::string>();
            task_ids_[task_id] = watch;
        }
        if (o_.on_task_started) {
            try {
                o_.on_task_started(task_id);
            } catch (...) {  // host callbacks never throw into the library
            }
        }
        const auto give_up = [&](std::string_view code, const std::string& why) -> result<tool_output> {
            cancel_task(task_id);
            const bool stopped = code == errc::tool_cancelled;
            return fail(code, name() + ": " + std::string(tool) + " (task " + task_id + ") " + why,
                        stopped ? std::string() : "The task ran past the call's deadline and was cancelled; try again with a longer timeout or less work.",
                        json{{"server", name()}, {"tool", std::string(tool)}, {"task", task_id}, {"status", status.value("status", "")}});
        };
        std::string last_message;
        double polls = 0;
        for (;;) {
            const std::string st = status.value("status", "working");
            if (st == "completed" || st == "failed" || st == "cancelled" || st == "input_required") break;
            if (ctx.on_progress && status.contains("statusMessage") && status["statusMessage"].is_string() &&
                status["statusMessage"].get<std::string>() != last_message) {
                last_message = status["statusMessage"].get<std::string>();
                std::unique_lock lock(watch->mu);
                const bool quiet = !watch->server_progress;  // the server's own progress, when it sends some, is what the host sees
                lock.unlock();
                if (quiet) {
                    try {
                        ctx.on_progress(++polls, std::nullopt, last_message);
                    } catch (...) {  // host callbacks never throw into the library
                    }
                }
            }
            auto wait = o_.task_poll;
            if (auto pi = status.find("pollInterval"); pi != status.end() && pi->is_number() && pi->get<double>() >= 0)
                wait = std::chrono::milliseconds(static_cast<std::int64_t>(std::min(pi->get<double>(), 86400000.0)));
            wait = std::clamp(wait, o_.task_poll_min, o_.task_poll_max);
            {
                std::unique_lock lock(watch->mu);
                const auto until = std::min(ctx.deadline, std::chrono::steady_clock::now() + wait);
                watch->cv.wait_until(lock, ctx.stop, until, [&] { return watch->changed; });
                if (watch->changed) {
                    watch->changed = false;
                    status = watch->status;
                }
            }
            if (ctx.stop.stop_requested()) return give_up(errc::tool_cancelled, "was cancelled");
            if (std::chrono::steady_clock::now() >= ctx.deadline) return give_up(errc::tool_timeout, "did not end in time");
            const std::string now_st = status.value("status", "working");
            if (now_st != "working") continue;  // a status notification said it moved on
            auto got = request("tasks/get", json{{"taskId", task_id}}, ro);
            if (!got) {
                error e = std::move(got).error();
                if (e.is(errc::cancelled)) return give_up(errc::tool_cancelled, "was cancelled");
                if (e.is(errc::timeout) && std::chrono::steady_clock::now() >= ctx.deadline) return give_up(errc::tool_timeout, "did not end in time");
                e.message += " (polling task " + task_id + " of " + std::string(tool) + ")";
                return fail(std::move(e));
            }
            if (got->is_object()) status = *got;
        }
        // tasks/result blocks until the task ends; the server's requests for input arrive meanwhile
        request_options rr = ro;
        rr.timeout = o_.max_request_time;
        auto res = request("tasks/result", json{{"taskId", task_id}}, rr);
        if (!res) {
            error e = std::move(res).error();
            if (e.is(errc::cancelled)) return give_up(errc::tool_cancelled, "was cancelled");
            if (e.is(errc::timeout)) return give_up(errc::tool_timeout, "did not end in time");
            if (e.is(errc::remote_error)) {
                e.message = name() + ": " + std::string(tool) + " (task " + task_id + ", " + status.value("status", "?") + ") failed: " + e.message;
                e.details["tool"] = std::string(tool);
                e.details["task"] = task_id;
            }
            return fail(std::move(e));
        }
        return output_of(*res);
    }

    /// Every resource (all pages of resources/list), as the server sent them.
    [[nodiscard]] result<std::vector<json>> list_resources(request_options ro = {}) { return list_all("resources/list", "resources", std::move(ro)); }
    /// Every resource template (all pages of resources/templates/list).
    [[nodiscard]] result<std::vector<json>> list_resource_templates(request_options ro = {}) {
        return list_all("resources/templates/list", "resourceTemplates", std::move(ro));
    }
    /// resources/read: the `contents` array ({uri, mimeType, text | blob}).
    [[nodiscard]] result<json> read_resource(std::string_view uri, request_options ro = {}) {
        auto r = request("resources/read", json{{"uri", std::string(uri)}}, std::move(ro));
        if (!r) return r;
        if (!r->contains("contents") || !(*r)["contents"].is_array())
            return fail(errc::protocol_error, name() + ": resources/read answered without a contents array");
        return (*r)["contents"];
    }
    /// resources/subscribe (updates arrive at client_options::on_resource_updated).
    result<void> subscribe(std::string_view uri) {
        auto r = request("resources/subscribe", json{{"uri", std::string(uri)}});
        if (!r) return fail(std::move(r).error());
        return {};
    }
    /// Every prompt (all pages of prompts/list).
    [[nodiscard]] result<std::vector<json>> list_prompts(request_options ro = {}) { return list_all("prompts/list", "prompts", std::move(ro)); }
    /// prompts/get: {description, messages}.
    [[nodiscard]] result<json> get_prompt(std::string_view prompt, const json& args = json::object(), request_options ro = {}) {
        json params{{"name", std::string(prompt)}};
        if (args.is_object() && !args.empty()) {
            json a = json::object();
            for (const auto& [k, v] : args.items()) a[k] = v.is_string() ? v : json(v.dump());  // prompt arguments are strings
            params["arguments"] = std::move(a);
        }
        return request("prompts/get", std::move(params), std::move(ro));
    }

    /// Replace the roots offered to the server and tell it (notifications/roots/list_changed).
    result<void> set_roots(std::vector<client_root> roots) {
        {
            std::lock_guard lock(mu_);
            o_.roots = std::move(roots);
        }
        return notify("notifications/roots/list_changed");
    }

    /// A tools/call result as a tool output: text, image, audio, resource_link (an artifact
    /// reference) and embedded resources (artifacts carrying their text or blob); structuredContent
    /// kept; isError kept. Unknown block types become a line of text naming their type.
    [[nodiscard]] static tool_output output_of(const json& r) {
        tool_output out;
        out.is_error = r.is_object() && r.value("isError", false);
        if (r.is_object() && r.contains("structuredContent") && r["structuredContent"].is_object())
            out.structured = r["structuredContent"];
        if (!r.is_object() || !r.contains("content") || !r["content"].is_array()) return out;
        for (const auto& b : r["content"]) {
            if (!b.is_object()) continue;
            const std::string type = b.value("type", "");
            auto str = [&](const json& o, const char* k) {
                auto it = o.find(k);
                return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
            };
            if (type == "text") {
                out.add_text(str(b, "text"));
            } else if (type == "image" || type == "audio") {
                out.add_image(str(b, "data"), str(b, "mimeType"));
            } else if (type == "resource_link") {
                artifact_ref a;
                a.uri = str(b, "uri");
                a.name = str(b, "name");
                a.mime_type = str(b, "mimeType");
                a.description = str(b, "description");
                if (auto s = b.find("size"); s != b.end() && s->is_number_unsigned()) a.size = s->get<std::size_t>();
                out.add_artifact(std::move(a));
            } else if (type == "resource" && b.contains("resource") && b["resource"].is_object()) {
                const json& res = b["resource"];
                if (res.contains("text")) out.add_resource(str(res, "uri"), str(res, "mimeType"), str(res, "text"));
                else out.content.push_back(content_block::make_resource_blob(str(res, "uri"), str(res, "mimeType"), str(res, "blob")));
            } else {
                out.add_text("[" + (type.empty() ? std::string("untyped") : type) + " content]");
            }
        }
        return out;
    }

    /// A tools/list entry as a tool_info (see list_tools()).
    [[nodiscard]] static tool_info tool_info_of(const json& t) {
        tool_info i;
        i.name = t.value("name", "");
        if (auto it = t.find("title"); it != t.end() && it->is_string()) i.title = it->get<std::string>();
        if (auto it = t.find("description"); it != t.end() && it->is_string()) i.description = it->get<std::string>();
        if (auto it = t.find("inputSchema"); it != t.end() && it->is_object()) i.input_schema = *it;
        else i.input_schema = json{{"type", "object"}};
        i.schema_as_sent = true;
        if (auto it = t.find("outputSchema"); it != t.end() && it->is_object()) i.output_schema = *it;
        if (auto it = t.find("icons"); it != t.end() && it->is_array() && !it->empty()) i.icons = *it;
        if (auto a = t.find("annotations"); a != t.end() && a->is_object()) {
            if (i.title.empty())
                if (auto tt = a->find("title"); tt != a->end() && tt->is_string()) i.title = tt->get<std::string>();
            auto hint = [&](const char* k) -> std::optional<bool> {
                auto h = a->find(k);
                if (h == a->end() || !h->is_boolean()) return std::nullopt;
                return h->get<bool>();
            };
            traits tr = no_traits;
            if (hint("readOnlyHint").value_or(false)) tr = tr | read_only | parallel_safe;
            if (auto d = hint("destructiveHint")) tr = tr | (*d ? destructive : non_destructive);
            if (hint("idempotentHint").value_or(false)) tr = tr | idempotent;
            if (auto w = hint("openWorldHint")) tr = tr | (*w ? open_world : closed_world);
            i.traits = tr;
        }
        return i;
    }

private:
    struct pending {
        std::mutex mu;
        std::condition_variable_any cv;
        bool done = false;
        json response;
        std::optional<error> failure;
        std::string method;
        std::function<void(double, std::optional<double>, std::string_view)> on_progress;
        std::chrono::steady_clock::time_point last_activity = std::chrono::steady_clock::now();
        /// Time the host spent answering the server's requests (elicitation, sampling) while this
        /// one waited: the server waited for the host then, so it does not count against it.
        std::chrono::steady_clock::duration host_time{};
        bool recheck = false;  ///< host_time changed: the waiter computes its bounds again
        /// Called once the request is answered or failed (a request nobody waits for: the listen stream).
        std::function<void(const std::optional<error>&)> on_done;
    };

    client(std::unique_ptr<client_transport> t, client_options o) : t_(std::move(t)), o_(std::move(o)) {}

    static std::string wire(const json& j) { return dump_declared(j, json::error_handler_t::replace); }

    result<void> start() {
        transport_handlers h;
        h.on_message = [this](std::string_view m) { on_message(m); };
        h.on_oversized = [this](std::string_view head, std::string_view tail, std::size_t size) { on_oversized(head, tail, size); };
        h.on_close = [this](const error& why) { on_transport_closed(why); };
        h.on_request_failed = [this](const json& id, const error& why) {
            if (auto p = take(id)) {
                error e = why;
                if (e.message.rfind(name(), 0) != 0) e.message = name() + ": " + p->method + ": " + e.message;
                complete(p, nullptr, std::move(e));
            }
        };
        if (auto r = t_->start(std::move(h)); !r) {
            error e = std::move(r).error();
            if (!o_.server_name.empty()) e.message = o_.server_name + ": " + e.message;
            return fail(std::move(e));
        }
        json caps = json::object();
        if (o_.roots_enabled || !o_.roots.empty()) caps["roots"] = json{{"listChanged", true}};
        if (o_.on_sampling) caps["sampling"] = json::object();
        if (o_.on_elicitation) {
            caps["elicitation"] = json{{"form", json::object()}};
            if (o_.url_elicitation) caps["elicitation"]["url"] = json::object();
        }
        caps_ = caps;
        if (o_.protocol_version == stateless_version) {
            auto d = discover();
            if (!d) return fail(std::move(d).error());
            if (*d) {
                start_listening();
                return {};
            }
            // the server does not speak the stateless era: the handshake, at the newest revision before it
            o_.protocol_version = std::string(latest_handshake_version);
        }
        return handshake(std::move(caps));
    }

    /// server/discover (stateless era). True: connected statelessly; false: the server is older
    /// (method unknown, a version refused without the stateless one, a 4xx).
    result<bool> discover() {
        {
            std::lock_guard lock(mu_);
            stateless_ = true;
            version_ = std::string(stateless_version);
        }
        request_options ro;
        ro.timeout = o_.initialize_timeout;
        auto r = request("server/discover", json::object(), std::move(ro));
        auto older = [&] {
            std::lock_guard lock(mu_);
            stateless_ = false;
            version_.clear();
            return false;
        };
        if (!r) {
            const error& e = r.error();
            const int status = e.details.is_object() ? e.details.value("status", 0) : 0;
            if (e.is(errc::remote_error) || (e.is(errc::transport_io) && status >= 400 && status < 500 && status != 401 && status != 403)) return older();
            return fail(std::move(r).error());
        }
        const json supported = r->is_object() ? r->value("supportedVersions", json::array()) : json::array();
        if (supported.is_array() && !supported.empty() &&
            std::find(supported.begin(), supported.end(), json(std::string(stateless_version))) == supported.end())
            return older();
        server_caps_ = r->value("capabilities", json::object());
        const json meta = r->value("_meta", json::object());
        server_info_ = meta.is_object() && meta.contains(meta_key::server_info) ? meta[meta_key::server_info] : r->value("serverInfo", json::object());
        if (auto it = r->find("instructions"); it != r->end() && it->is_string()) instructions_ = it->get<std::string>();
        return true;
    }

    /// initialize and notifications/initialized (2025-11-25 and older).
    result<void> handshake(json caps) {
        json params{{"protocolVersion", o_.protocol_version},
                    {"capabilities", std::move(caps)},
                    {"clientInfo", {{"name", o_.client_name}, {"version", o_.client_version}}}};
        request_options ro;
        ro.timeout = o_.initialize_timeout;
        auto r = request("initialize", std::move(params), std::move(ro));
        if (!r) {
            error e = std::move(r).error();
            if (e.is(errc::timeout))
                e.hint = "The MCP server \"" + name() + "\" did not answer initialize; check that it is an MCP stdio server and that it starts (its log: " +
                         t_->diagnostics().substr(0, 300) + ").";
            return fail(std::move(e));
        }
        if (!r->is_object() || !r->contains("protocolVersion") || !(*r)["protocolVersion"].is_string())
            return fail(errc::protocol_error, name() + ": the initialize answer has no protocolVersion",
                        "The server is not a working MCP server; check its command or URL.");
        {
            std::lock_guard lock(mu_);
            version_ = (*r)["protocolVersion"].get<std::string>();
        }
        if (!is_handshake_version(version_))
            return fail(errc::protocol_error, name() + ": the server speaks protocol revision " + version_ + ", which this client does not",
                        "Use a server version that supports one of 2025-11-25, 2025-06-18, 2025-03-26 or 2024-11-05.",
                        json{{"server", name()}, {"protocolVersion", version_}});
        server_caps_ = r->value("capabilities", json::object());
        server_info_ = r->value("serverInfo", json::object());
        if (auto it = r->find("instructions"); it != r->end() && it->is_string()) instructions_ = it->get<std::string>();
        if (auto n = notify("notifications/initialized"); !n) return fail(std::move(n).error());
        return {};
    }

    result<std::vector<json>> list_all(const char* method, const char* key, request_options ro) {
        std::vector<json> out;
        json cursor;
        for (std::size_t page = 0; page < o_.max_list_pages; ++page) {
            json params = json::object();
            if (!cursor.is_null()) params["cursor"] = cursor;
            request_options one;
            one.timeout = ro.timeout;
            one.deadline = ro.deadline;
            one.stop = ro.stop;
            one.parent_event = ro.parent_event;
            auto r = request(method, std::move(params), std::move(one));
            if (!r) return fail(std::move(r).error());
            if (!r->is_object() || !r->contains(key) || !(*r)[key].is_array())
                return fail(errc::protocol_error, name() + ": " + method + " answered without a \"" + key + "\" array",
                            "The server sent a malformed list; report it to the server's authors.");
            for (auto& e : (*r)[key]) out.push_back(std::move(e));
            auto next = r->find("nextCursor");
            if (next == r->end() || next->is_null()) return out;
            if (!next->is_string() || (!cursor.is_null() && *next == cursor))
                return fail(errc::protocol_error, name() + ": " + method + " sent a cursor that does not move on");
            cursor = *next;
        }
        return fail(errc::protocol_error, name() + ": " + method + " did not end after " + std::to_string(o_.max_list_pages) + " pages");
    }

    void forget(std::int64_t id) {
        std::lock_guard lock(mu_);
        pending_.erase(id);
    }

    void abandon(std::int64_t id, const char* reason) {
        forget(id);
        (void)notify("notifications/cancelled", json{{"requestId", id}, {"reason", reason}});
    }

    void complete(const std::shared_ptr<pending>& p, json response, std::optional<error> failure) {
        std::function<void(const std::optional<error>&)> done;
        {
            std::lock_guard lock(p->mu);
            if (p->done) return;
            p->done = true;
            p->response = std::move(response);
            p->failure = std::move(failure);
            done = p->on_done;
        }
        p->cv.notify_all();
        if (done) done(p->failure);
    }

    // ---- subscriptions/listen (stateless era) ---------------------------------------------------

    /// The notifications the listen stream asks for: what the host has callbacks for and the
    /// server's capabilities offer (empty: no stream).
    [[nodiscard]] json listen_wanted() const {
        json want = json::object();
        auto offers = [&](const char* cap) {
            return server_caps_.is_object() && server_caps_.contains(cap) && server_caps_[cap].is_object() &&
                   server_caps_[cap].value("listChanged", false) == true;
        };
        if (o_.on_tools_changed && offers("tools")) want["toolsListChanged"] = true;
        if (o_.on_prompts_changed && offers("prompts")) want["promptsListChanged"] = true;
        if (o_.on_resources_changed && offers("resources")) want["resourcesListChanged"] = true;
        return want;
    }

    /// Keep a listen stream open until the client closes (see the file comment).
    void start_listening() {
        const json want = listen_wanted();
        if (!o_.listen || want.empty()) return;
        listen_thread_ = std::thread([this, want] {
            auto backoff = o_.listen_retry;
            for (bool first = true;; first = false) {
                auto p = std::make_shared<pending>();
                p->method = "subscriptions/listen";
                p->on_done = [this](const std::optional<error>& why) {
                    std::lock_guard lock(mu_);
                    listen_open_ = false;
                    // a server that does not know the method: stop asking
                    if (why && why->is(errc::remote_error) && why->details.is_object() && why->details.value("code", 0) == code::method_not_found)
                        listen_unsupported_ = true;
                    listen_cv_.notify_all();
                };
                std::int64_t id = 0;
                {
                    std::lock_guard lock(mu_);
                    if (closed_ || closed_by_host_) return;
                    id = next_id_++;
                    pending_.emplace(id, p);
                    listen_open_ = true;
                }
                json msg{{"jsonrpc", "2.0"}, {"id", id}, {"method", "subscriptions/listen"}, {"params", with_meta(json{{"notifications", want}})}};
                if (auto sent = t_->send(wire(msg)); !sent) {
                    forget(id);
                    std::lock_guard lock(mu_);
                    listen_open_ = false;
                }
                // changes while no stream was open were not replayed: the host lists again
                if (!first) {
                    try {
                        if (want.contains("toolsListChanged") && o_.on_tools_changed) o_.on_tools_changed();
                        if (want.contains("promptsListChanged") && o_.on_prompts_changed) o_.on_prompts_changed();
                        if (want.contains("resourcesListChanged") && o_.on_resources_changed) o_.on_resources_changed();
                    } catch (...) {  // host callbacks never throw into the library
                    }
                }
                std::unique_lock lock(mu_);
                listen_cv_.wait(lock, [&] { return closed_ || closed_by_host_ || !listen_open_; });
                if (closed_ || closed_by_host_ || listen_unsupported_) return;
                if (listen_acked_) backoff = o_.listen_retry;
                listen_acked_ = false;
                ++listen_reopened_;
                listen_cv_.wait_for(lock, backoff, [&] { return closed_ || closed_by_host_; });
                if (closed_ || closed_by_host_) return;
                backoff = std::min(backoff * 2, std::chrono::milliseconds(30000));
            }
        });
    }

public:
    /// Stateless era: listen streams opened again after one ended (for tests and status).
    [[nodiscard]] std::size_t listen_reopened() const {
        std::lock_guard lock(mu_);
        return listen_reopened_;
    }
    /// Stateless era: true while a subscriptions/listen stream is open (or being opened).
    [[nodiscard]] bool listening() const {
        std::lock_guard lock(mu_);
        return listen_open_;
    }
    /// Stateless era: wait until the server acknowledged the listen stream (from then on no
    /// change is missed), at most `d`. False when it did not in time, or no stream is kept.
    [[nodiscard]] bool wait_listening(std::chrono::milliseconds d) {
        std::unique_lock lock(mu_);
        return listen_cv_.wait_for(lock, d, [&] { return (listen_open_ && listen_acked_) || closed_ || closed_by_host_; }) && listen_open_ &&
               listen_acked_;
    }

private:

    void fail_all(const error& why) {
        std::map<std::int64_t, std::shared_ptr<pending>> all;
        {
            std::lock_guard lock(mu_);
            all.swap(pending_);
        }
        for (auto& [id, p] : all) complete(p, nullptr, why);
    }

    std::shared_ptr<pending> take(const json& id) {
        if (!id.is_number_integer()) return nullptr;
        std::lock_guard lock(mu_);
        auto it = pending_.find(id.get<std::int64_t>());
        if (it == pending_.end()) return nullptr;
        auto p = it->second;
        pending_.erase(it);
        return p;
    }

    void on_oversized(std::string_view head, std::string_view tail, std::size_t size) {
        // find the id in the first or last bytes: "id":<number>
        std::optional<std::int64_t> id;
        for (std::string_view part : {head, tail}) {
            std::size_t at = part.rfind("\"id\"");
            if (at == std::string_view::npos) continue;
            at = part.find(':', at);
            if (at == std::string_view::npos) continue;
            ++at;
            while (at < part.size() && part[at] == ' ') ++at;
            std::int64_t v = 0;
            bool any = false;
            while (at < part.size() && part[at] >= '0' && part[at] <= '9') {
                v = v * 10 + (part[at] - '0');
                any = true;
                ++at;
            }
            if (any) {
                id = v;
                break;
            }
        }
        ++noise_;
        if (!id) return;
        auto p = take(json(*id));
        if (!p) return;
        complete(p, nullptr,
                 error(errc::budget_exceeded,
                       name() + ": the answer to " + p->method + " was " + std::to_string(size / 1024) + " KiB, over the size limit; it was dropped",
                       "Ask for less at a time (a smaller range, a page, a filter).", json{{"server", name()}, {"bytes", size}}));
    }

    void on_transport_closed(const error& why) {
        if (close_seen_.exchange(true)) return;
        error e = why;
        if (!o_.server_name.empty() && e.message.rfind(o_.server_name, 0) != 0) e.message = o_.server_name + ": " + e.message;
        bool by_host = false;
        {
            std::lock_guard lock(mu_);
            by_host = closed_by_host_;
            if (!by_host) close_reason_ = e;
        }
        // The host hears of it before any waiting request fails (so a caller that sees a failed
        // request can rely on its on_close having run).
        if (o_.on_close && !by_host) {
            try {
                o_.on_close(e);
            } catch (...) {
            }
        }
        {
            std::lock_guard lock(mu_);
            closed_ = true;
        }
        listen_cv_.notify_all();
        fail_all(e);
    }

    // A message that brings schemas whose properties' order a reader sees: a tool list, or a
    // server's elicitation form (one of a batch is enough).
    static bool carries_schemas(const json& m) {
        if (m.is_array()) return std::any_of(m.begin(), m.end(), [](const json& one) { return carries_schemas(one); });
        if (!m.is_object()) return false;
        if (auto r = m.find("result"); r != m.end() && r->is_object() && r->contains("tools")) return true;
        auto method = m.find("method");
        return method != m.end() && *method == "elicitation/create";
    }

    void on_message(std::string_view text) {
        json m = json::parse(text, nullptr, false);
        if (m.is_discarded()) {
            ++noise_;
            ++malformed_;
            return;
        }
        if (carries_schemas(m)) remember_declared_orders(text, m);  // a tool list keeps its servers' order
        if (m.is_array()) {  // a batch (2025-03-26)
            for (auto& one : m) handle(std::move(one));
            return;
        }
        handle(std::move(m));
    }

    void handle(json m) {
        if (!m.is_object()) {
            ++noise_;
            return;
        }
        const bool has_method = m.contains("method") && m["method"].is_string();
        const bool has_id = m.contains("id") && !m["id"].is_null();
        if (!has_method) {  // a response
            auto p = has_id ? take(m["id"]) : nullptr;
            if (!p) {
                ++noise_;
                return;
            }
            if (auto e = m.find("error"); e != m.end() && e->is_object()) {
                const int code = e->value("code", 0);
                const std::string msg = e->contains("message") && (*e)["message"].is_string() ? (*e)["message"].get<std::string>() : "";
                json details{{"server", name()}, {"method", p->method}, {"code", code}, {"message", msg}};
                if (e->contains("data")) details["data"] = (*e)["data"];
                std::string hint = code == code::method_not_found ? "The server \"" + name() + "\" does not offer " + p->method + "."
                                   : code == code::invalid_params ? "Check the name and arguments against the server's list and call again."
                                                                  : "The server \"" + name() + "\" refused the request; read its message.";
                complete(p, nullptr, error(errc::remote_error, name() + ": " + p->method + " failed: " + msg + " (" + std::to_string(code) + ")",
                                           std::move(hint), std::move(details)));
            } else if (m.contains("result")) {
                complete(p, std::move(m["result"]), std::nullopt);
            } else {
                complete(p, nullptr, error(errc::protocol_error, name() + ": the answer to " + p->method + " has neither result nor error"));
            }
            return;
        }
        const std::string method = m["method"].get<std::string>();
        json params = m.value("params", json::object());
        if (!has_id) {
            notification(method, params);
            return;
        }
        server_request(m["id"], method, std::move(params));
    }

    /// Pass a notifications/progress's numbers and message to a host callback (when there is one).
    static void report_progress(const std::function<void(double, std::optional<double>, std::string_view)>& cb, const json& params) {
        if (!cb) return;
        const double done = params.contains("progress") && params["progress"].is_number() ? params["progress"].get<double>() : 0.0;
        std::optional<double> total;
        if (params.contains("total") && params["total"].is_number()) total = params["total"].get<double>();
        const std::string msg = params.contains("message") && params["message"].is_string() ? params["message"].get<std::string>() : "";
        try {
            cb(done, total, msg);
        } catch (...) {  // host callbacks never throw into the library
        }
    }

    void notification(const std::string& method, const json& params) {
        if (method == "notifications/progress" && params.is_object() && params.contains("progressToken") && params["progressToken"].is_string()) {
            std::shared_ptr<task_watch> w;  // a task's progress (its token outlives the tools/call that sent it)
            {
                std::lock_guard lock(mu_);
                auto it = task_tokens_.find(params["progressToken"].get<std::string>());
                if (it != task_tokens_.end()) w = it->second;
            }
            if (!w) return;
            {
                std::lock_guard lock(w->mu);
                w->server_progress = true;
            }
            report_progress(w->on_progress, params);
            return;
        }
        if (method == "notifications/tasks/status") {
            if (!params.is_object() || !params.contains("taskId") || !params["taskId"].is_string()) return;
            std::shared_ptr<task_watch> w;
            {
                std::lock_guard lock(mu_);
                auto it = task_ids_.find(params["taskId"].get<std::string>());
                if (it != task_ids_.end()) w = it->second;
            }
            if (!w) return;
            {
                std::lock_guard lock(w->mu);
                w->status = params;
                w->changed = true;
            }
            w->cv.notify_all();
            return;
        }
        if (method == "notifications/progress") {
            if (!params.is_object() || !params.contains("progressToken") || !params["progressToken"].is_number_integer()) return;
            std::shared_ptr<pending> p;
            {
                std::lock_guard lock(mu_);
                auto it = pending_.find(params["progressToken"].get<std::int64_t>());
                if (it != pending_.end()) p = it->second;
            }
            if (!p) return;
            {
                std::lock_guard lock(p->mu);
                p->last_activity = std::chrono::steady_clock::now();
            }
            p->cv.notify_all();
            report_progress(p->on_progress, params);
            return;
        }
        if (method == "notifications/subscriptions/acknowledged") {
            {
                std::lock_guard lock(mu_);
                listen_acked_ = true;
            }
            listen_cv_.notify_all();
            return;
        }
        try {
            if (method == "notifications/tools/list_changed" && o_.on_tools_changed) o_.on_tools_changed();
            else if (method == "notifications/resources/list_changed" && o_.on_resources_changed) o_.on_resources_changed();
            else if (method == "notifications/prompts/list_changed" && o_.on_prompts_changed) o_.on_prompts_changed();
            else if (method == "notifications/resources/updated" && o_.on_resource_updated && params.contains("uri") && params["uri"].is_string())
                o_.on_resource_updated(params["uri"].get<std::string>());
            else if (method == "notifications/message" && o_.on_log) o_.on_log(params);
            else if (method == "notifications/elicitation/complete" && o_.on_elicitation_complete) o_.on_elicitation_complete(params);
        } catch (...) {
        }
        // notifications/cancelled for a server request: its worker answers anyway; nothing to stop
    }

    void answer(const json& id, result<json> r) {
        json msg{{"jsonrpc", "2.0"}, {"id", id}};
        if (r) msg["result"] = std::move(*r);
        else {
            const error& e = r.error();
            int c = code::internal_error;
            if (e.is(errc::tool_unknown) || e.is(errc::not_found)) c = code::method_not_found;
            else if (e.is(errc::args_invalid)) c = code::invalid_params;
            else if (e.is(errc::cancelled)) c = -1;  // the user declined (as MCP clients answer a refused sampling)
            msg["error"] = json{{"code", c}, {"message", e.message}};
        }
        (void)t_->send(wire(msg));
    }

    void server_request(json id, std::string method, json params) {
        if (method == "ping") {
            answer(id, json::object());
            return;
        }
        if (method == "roots/list") {
            std::lock_guard lock(mu_);
            if (!o_.roots_enabled && o_.roots.empty()) {
                json msg{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code::method_not_found}, {"message", "roots are not offered"}}}};
                (void)t_->send(wire(msg));
                return;
            }
            json roots = json::array();
            for (const auto& r : o_.roots) {
                json one{{"uri", r.uri}};
                if (!r.name.empty()) one["name"] = r.name;
                roots.push_back(std::move(one));
            }
            json msg{{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"roots", std::move(roots)}}}};
            (void)t_->send(wire(msg));
            return;
        }
        std::function<result<json>(const json&)> handler;
        if (method == "sampling/createMessage") handler = o_.on_sampling;
        else if (method == "elicitation/create" && o_.on_elicitation) handler = [this](const json& p) { return elicit(p); };
        if (!handler) {
            json msg{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code::method_not_found}, {"message", "the client does not offer " + method}}}};
            (void)t_->send(wire(msg));
            return;
        }
        // The host may take long (a model call, a user's answer): off the reader thread.
        std::lock_guard lock(mu_);
        if (closed_by_host_) return;
        workers_.emplace_back([this, id = std::move(id), handler = std::move(handler), params = std::move(params)] {
            result<json> r = fail(errc::internal, "the host's callback failed");
            ++host_answering_;
            const auto began = std::chrono::steady_clock::now();
            try {
                r = handler(params);
            } catch (const std::exception& ex) {
                r = fail(errc::internal, std::string("the host's callback failed: ") + ex.what());
            } catch (...) {
            }
            answer(id, std::move(r));
            host_answered(std::chrono::steady_clock::now() - began);
        });
    }

    /// The host finished answering a server's request that took `took`: the requests waiting
    /// meanwhile get that time back (see request_once).
    void host_answered(std::chrono::steady_clock::duration took) {
        std::vector<std::shared_ptr<pending>> waiting;
        {
            std::lock_guard lock(mu_);
            for (auto& [pid, p] : pending_) waiting.push_back(p);
            --host_answering_;
        }
        for (auto& p : waiting) {
            std::lock_guard lock(p->mu);
            p->host_time += took;
            p->recheck = true;
            p->cv.notify_all();
        }
    }

    /// Tasks: what one task-augmented call waits on (status notifications, progress by its token).
    struct task_watch {
        std::mutex mu;
        std::condition_variable_any cv;
        json status;                  ///< the last notifications/tasks/status
        bool changed = false;         ///< a status arrived that the call has not read
        bool server_progress = false; ///< the server sent notifications/progress for this task
        std::function<void(double, std::optional<double>, std::string_view)> on_progress;
    };

    /// The tasks extension's task (2026-07-28) from `status` (a CreateTaskResult or a tasks/get
    /// result) to its end; see await_task().
    result<tool_output> follow_task(const std::string& what, json status, tool_context& ctx, bool started_here) {
        const std::string id = status.is_object() && status.value("taskId", json()).is_string() ? status["taskId"].get<std::string>() : "";
        if (id.empty())
            return fail(errc::protocol_error, name() + ": " + what + " answered with a task that has no taskId",
                        "The MCP server \"" + name() + "\" broke the tasks extension; report it to its maintainers.");
        if (started_here && o_.on_task_started) {
            try {
                o_.on_task_started(id);
            } catch (...) {  // host callbacks never throw into the library
            }
        }
        request_options ro;
        ro.stop = ctx.stop;
        ro.deadline = ctx.deadline;
        ro.parent_event = ctx.parent_event;
        const auto give_up = [&](std::string_view code, const std::string& why) -> result<tool_output> {
            request_options cr;
            cr.timeout = std::chrono::milliseconds(5000);
            (void)cancel_task_by_id(id, cr);  // best effort: the server may be gone
            const bool stopped = code == errc::tool_cancelled;
            return fail(code, name() + ": " + what + " (task " + id + ") " + why,
                        stopped ? std::string() : "The task ran past the call's deadline and was cancelled; try again with a longer timeout or less work.",
                        json{{"server", name()}, {"task", id}, {"status", status.value("status", "")}});
        };
        std::set<std::string> answered;  // input keys already answered (a poll may show them again)
        bool reread = false;             // a terminal status without its payload is read once more
        int failed_polls = 0;            // tasks/get failures in a row
        std::string last_message;
        double reports = 0;
        for (;;) {
            const std::string st = status.value("status", "working");
            // a CreateTaskResult of a task already ended carries no result: tasks/get has it
            if (!reread && ((st == "completed" && !status.contains("result")) || (st == "failed" && !status.contains("error")))) {
                reread = true;
                auto got = request("tasks/get", json{{"taskId", id}}, ro);
                if (!got) {
                    error e = std::move(got).error();
                    e.message += " (reading task " + id + " of " + what + ")";
                    return fail(std::move(e));
                }
                if (got->is_object()) status = std::move(*got);
                continue;
            }
            if (st == "completed") {
                if (!status.contains("result") || !status["result"].is_object())
                    return fail(errc::protocol_error, name() + ": " + what + " (task " + id + ") completed without a result",
                                "The MCP server \"" + name() + "\" broke the tasks extension; report it to its maintainers.");
                return output_of(status["result"]);
            }
            if (st == "failed") {
                const json err = status.value("error", json::object());
                const int c = err.is_object() && err.value("code", json()).is_number_integer() ? err["code"].get<int>() : code::internal_error;
                const std::string msg = err.is_object() && err.value("message", json()).is_string() ? err["message"].get<std::string>()
                                                                                                     : status.value("statusMessage", std::string("failed"));
                json details{{"server", name()}, {"code", c}, {"task", id}};
                if (err.is_object() && err.contains("data")) details["data"] = err["data"];
                return fail(errc::remote_error, name() + ": " + what + " (task " + id + ") failed: " + msg + " (" + std::to_string(c) + ")", "",
                            std::move(details));
            }
            if (st == "cancelled")
                return fail(errc::tool_cancelled, name() + ": " + what + " (task " + id + ") was cancelled" +
                                                      (status.value("statusMessage", json()).is_string() ? ": " + status["statusMessage"].get<std::string>() : std::string()));
            bool updated = false;
            if (st == "input_required") {
                json open = json::object();
                const json reqs = status.value("inputRequests", json::object());
                if (reqs.is_object())
                    for (const auto& [k, v] : reqs.items())
                        if (answered.count(k) == 0) open[k] = v;
                if (!open.empty()) {
                    auto answers = answer_input_requests("tasks/update", open);
                    if (!answers) {
                        (void)give_up(errc::tool_cancelled, "");
                        error e = std::move(answers).error();
                        e.message += " (task " + id + " of " + what + " was cancelled)";
                        return fail(std::move(e));
                    }
                    auto up = request("tasks/update", json{{"taskId", id}, {"inputResponses", *answers}}, ro);
                    if (!up) {
                        error e = std::move(up).error();
                        if (e.is(errc::cancelled)) return give_up(errc::tool_cancelled, "was cancelled");
                        (void)give_up(errc::tool_cancelled, "");  // nobody follows it any more
                        e.message += " (answering task " + id + " of " + what + "; the task was cancelled)";
                        return fail(std::move(e));
                    }
                    for (const auto& [k, v] : open.items()) answered.insert(k);
                    updated = true;
                }
            }
            if (ctx.on_progress && status.value("statusMessage", json()).is_string() && status["statusMessage"].get<std::string>() != last_message) {
                last_message = status["statusMessage"].get<std::string>();
                try {
                    ctx.on_progress(++reports, std::nullopt, last_message);
                } catch (...) {  // host callbacks never throw into the library
                }
            }
            if (!updated) {  // after an update, look again at once
                auto wait = o_.task_poll;
                if (auto pi = status.find("pollIntervalMs"); pi != status.end() && pi->is_number() && pi->get<double>() >= 0)
                    wait = std::chrono::milliseconds(static_cast<std::int64_t>(std::min(pi->get<double>(), 86400000.0)));
                wait = std::clamp(wait, o_.task_poll_min, o_.task_poll_max);
                std::mutex m;
                std::condition_variable_any cv;
                std::unique_lock lock(m);
                cv.wait_until(lock, ctx.stop, std::min(ctx.deadline, std::chrono::steady_clock::now() + wait), [] { return false; });
            }
            if (ctx.stop.stop_requested()) return give_up(errc::tool_cancelled, "was cancelled");
            if (std::chrono::steady_clock::now() >= ctx.deadline) return give_up(errc::tool_timeout, "did not end in time");
            auto got = request("tasks/get", json{{"taskId", id}}, ro);
            if (!got) {
                error e = std::move(got).error();
                if (e.is(errc::cancelled)) return give_up(errc::tool_cancelled, "was cancelled");
                if (e.is(errc::timeout) && std::chrono::steady_clock::now() >= ctx.deadline) return give_up(errc::tool_timeout, "did not end in time");
                // a poll that timed out or lost its connection is tried again (three in a row at most)
                if ((e.is(errc::timeout) || e.is(errc::transport_io)) && ++failed_polls < 3) continue;
                const bool gone = e.is(errc::remote_error) && e.details.value("code", 0) == code::invalid_params;  // forgotten: nothing to cancel
                if (!gone && !e.is(errc::transport_closed)) (void)give_up(errc::tool_cancelled, "");  // nobody follows it any more
                e.message += " (polling task " + id + " of " + what + ")";
                return fail(std::move(e));
            }
            failed_polls = 0;
            if (got->is_object()) status = std::move(*got);
        }
    }

    /// True when `tool` must be called as a task: the server runs tool tasks and lists the tool
    /// with taskSupport "required" (the tool list is read once when the host has not).
    bool task_required(std::string_view tool) {
        if (!server_runs_tool_tasks()) return false;
        bool listed = false;
        {
            std::lock_guard lock(mu_);
            listed = tools_listed_;
        }
        if (!listed) (void)list_tools();
        std::lock_guard lock(mu_);
        const auto it = task_support_.find(std::string(tool));
        return it != task_support_.end() && it->second == "required";
    }

    /// tasks/cancel for a task the call gives up on (when the server offers it); bounded, best effort.
    void cancel_task(const std::string& id) {
        if (id.empty() || !server_caps_.is_object() || !server_caps_.contains("tasks") || !server_caps_["tasks"].is_object() ||
            !server_caps_["tasks"].contains("cancel"))
            return;
        request_options ro;
        ro.timeout = std::chrono::milliseconds(5000);
        (void)request("tasks/cancel", json{{"taskId", id}}, std::move(ro));
    }

    std::unique_ptr<client_transport> t_;
    client_options o_;
    mutable std::mutex mu_;
    std::map<std::int64_t, std::shared_ptr<pending>> pending_;
    std::int64_t next_id_ = 1;
    bool closed_ = false;
    bool closed_by_host_ = false;
    std::atomic<bool> close_seen_{false};
    std::optional<error> close_reason_;
    std::vector<std::thread> workers_;
    std::atomic<std::size_t> noise_{0};
    std::atomic<int> host_answering_{0};  // the server's requests the host is answering now
    std::atomic<std::size_t> malformed_{0};  // lines that were not JSON at all (a subset of noise_)
    std::string version_;
    std::atomic<bool> stateless_{false};  // the 2026-07-28 wire: _meta on every request, no handshake
    json caps_ = json::object();  // the capabilities the client declares
    json server_caps_ = json::object();
    json server_info_ = json::object();
    std::string instructions_;
    // the listen stream (stateless era), under mu_
    std::thread listen_thread_;
    std::condition_variable listen_cv_;
    bool listen_open_ = false;
    bool listen_acked_ = false;
    bool listen_unsupported_ = false;
    std::size_t listen_reopened_ = 0;
    // tasks (2025-11-25), under mu_
    std::map<std::string, std::string> task_support_;  // remote tool name -> execution.taskSupport
    bool tools_listed_ = false;
    std::int64_t next_task_token_ = 1;
    std::map<std::string, std::shared_ptr<task_watch>> task_tokens_;  // by the progressToken a task call sent
    std::map<std::string, std::shared_ptr<task_watch>> task_ids_;     // by task id
};

}  // namespace agentkit::mcp
