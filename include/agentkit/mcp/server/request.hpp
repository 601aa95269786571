// agentkit/mcp/server/request.hpp — what a handler (a tool, a prompt, a resource read) can do with the
// MCP client while it serves one request: log to it, and ask it for input (elicitation,
// sampling, roots), written once for both protocol eras.
//
//   [](const args& a, agentkit::tool_context& ctx) -> agentkit::result<std::string> {
//       auto* rq = agentkit::mcp::request_of(ctx);     // nullptr when not called over MCP
//       if (!rq) return "no client to ask";
//       rq->log("info", "looking up " + a.city);
//       auto answer = rq->ask(agentkit::mcp::input::elicit("user_name", "What is your name?", schema));
//       if (!answer) return agentkit::fail(answer.error());   // (2026-07-28: the server answers input_required)
//       return "Hello, " + (*answer)["content"]["name"].get<std::string>();
//   }
//
// ask() in the handshake era (2025-11-25 and earlier) sends the request to the client on the
// request's own stream and waits for its answer (bounded; cancelled with the call). In the
// stateless era (2026-07-28) the server never sends requests: ask() returns the answer the
// client sent with a retry (inputResponses, or an earlier round's answer carried in the signed
// requestState); when there is none yet it fails with errc::input_required and the server
// answers the whole request with an input_required result listing every input asked for, and
// a requestState the client cannot alter. A request running as a task (the tasks extension,
// mcp/server/tasks.hpp) waits instead: its questions are the task's inputRequests on tasks/get
// until tasks/update answers them. The same handler code serves all three.
#pragma once

#include <agentkit/mcp/protocol.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/tools/context.hpp>

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace agentkit::mcp {

/// One request of the server to the client, under a key the handler chooses.
struct input_request {
    std::string key;     ///< unique within the request ("user_name")
    std::string method;  ///< "elicitation/create", "sampling/createMessage" or "roots/list"
    json params = json::object();  ///< the request's parameters
};

/// Builders for the three kinds of input request.
namespace input {
/// elicitation/create in form mode: `requested_schema` is a flat object schema.
[[nodiscard]] inline input_request elicit(std::string key, std::string message, json requested_schema) {
    return {std::move(key), "elicitation/create", json{{"message", std::move(message)}, {"requestedSchema", std::move(requested_schema)}}};
}
/// sampling/createMessage with one user text message.
[[nodiscard]] inline input_request sample(std::string key, std::string text, int max_tokens = 256) {
    json msg{{"role", "user"}, {"content", {{"type", "text"}, {"text", std::move(text)}}}};
    return {std::move(key), "sampling/createMessage", json{{"messages", json::array({std::move(msg)})}, {"maxTokens", max_tokens}}};
}
/// roots/list.
[[nodiscard]] inline input_request list_roots(std::string key) { return {std::move(key), "roots/list", json::object()}; }
}  // namespace input

/// The client capability an input request's method needs ("elicitation", "sampling", "roots"),
/// or "" for a method that is not a client request.
[[nodiscard]] inline std::string_view capability_for(std::string_view method) noexcept {
    if (method == "elicitation/create") return "elicitation";
    if (method == "sampling/createMessage") return "sampling";
    if (method == "roots/list") return "roots";
    return {};
}

namespace detail {
/// True when `v` has the shape of the client's result for `method`.
inline bool valid_input_response(std::string_view method, const json& v) {
    if (!v.is_object()) return false;
    if (method == "elicitation/create") {
        const json a = v.value("action", json());
        return a == "accept" || a == "decline" || a == "cancel";
    }
    if (method == "sampling/createMessage") return v.contains("role") && v.contains("content");
    if (method == "roots/list") return v.contains("roots") && v["roots"].is_array();
    return true;
}
}  // namespace detail

class server;

/// The MCP side of one request, for its handler. Thread-safe. Get it with request_of(ctx).
class request_context {
public:
    /// True in the stateless era (2026-07-28): input comes through input_required rounds.
    [[nodiscard]] bool stateless() const noexcept { return stateless_; }
    /// The MCP method being served ("tools/call", "prompts/get", "resources/read").
    [[nodiscard]] const std::string& method() const noexcept { return method_; }
    /// What the client declared (this request's `_meta` in 2026-07-28, initialize before).
    [[nodiscard]] const json& client_capabilities() const noexcept { return caps_; }
    /// True when the client declared `capability` ("elicitation", "sampling", "roots", ...).
    [[nodiscard]] bool client_supports(std::string_view capability) const {
        return caps_.is_object() && caps_.contains(std::string(capability)) && !caps_[std::string(capability)].is_null();
    }

    /// notifications/message to the client, on this request's stream, when the client asked
    /// for this level or a lower one (logging/setLevel, or this request's logLevel in
    /// 2026-07-28). Returns true when it was sent.
    bool log(std::string_view level, json data, std::string_view logger = {}) {
        const int rank = level_rank(level);
        if (rank < 0 || rank < log_threshold_ || !send_) return false;
        json p{{"level", level}, {"data", std::move(data)}};
        if (!logger.empty()) p["logger"] = logger;
        send_(json{{"jsonrpc", "2.0"}, {"method", "notifications/message"}, {"params", std::move(p)}});
        return true;
    }

    /// Ask the client for one input; its result (an ElicitResult, a CreateMessageResult, a
    /// ListRootsResult). Errors: errc::client_capability_missing (details requiredCapabilities)
    /// when the client did not declare what the method needs; errc::input_required (stateless
    /// era) when the answer is not there yet; errc::protocol_error when the client answered
    /// with an error or a malformed result; errc::tool_cancelled / errc::timeout.
    [[nodiscard]] result<json> ask(const input_request& r) { return ask(r, std::stop_token{}); }

    /// As ask(), and in the handshake era the wait for the client's answer also ends (with
    /// errc::tool_cancelled) when `also` is requested (a relay whose own call has ended).
    [[nodiscard]] result<json> ask(const input_request& r, std::stop_token also) {
        auto all = ask_all({r}, std::move(also));
        if (!all) return fail(std::move(all).error());
        return std::move((*all)[r.key]);
    }

    /// Ask several at once: in the stateless era they go to the client in one input_required
    /// round; in the handshake era one after the other.
    [[nodiscard]] result<std::map<std::string, json>> ask_all(const std::vector<input_request>& rs, std::stop_token also = {}) {
        for (const auto& r : rs) {
            const std::string_view cap = capability_for(r.method);
            if (cap.empty())
                return fail(errc::internal, "ask: " + r.method + " is not a request a server sends to a client");
            if (!client_supports(cap))
                return fail(errc::client_capability_missing,
                            "the client did not declare the " + std::string(cap) + " capability, which " + r.method + " needs",
                            "Use a client that supports " + std::string(cap) + ".",
                            json{{"requiredCapabilities", {{std::string(cap), json::object()}}}});
            if (r.method == "elicitation/create") {
                const std::string mode = elicitation_mode(r.params);
                if (mode != "form" && mode != "url")
                    return fail(errc::internal, "ask: elicitation mode '" + mode + "' is neither form nor url");
                if (!elicitation_mode_declared(caps_, mode))
                    return fail(errc::client_capability_missing,
                                "the client did not declare " + mode + "-mode elicitation, which this request needs",
                                "Use a client that supports elicitation in " + mode + " mode.",
                                json{{"requiredCapabilities", {{"elicitation", {{mode, json::object()}}}}}});
            }
        }
        std::map<std::string, json> out;
        if (!stateless_) {
            for (const auto& r : rs) {
                if (!ask_remote_) return fail(errc::transport_closed, "no client to ask");
                auto got = ask_remote_(r, also);
                if (!got) return fail(std::move(got).error());
                if (!detail::valid_input_response(r.method, *got))
                    return fail(errc::protocol_error, "the client's answer to " + r.method + " is malformed");
                out[r.key] = std::move(*got);
            }
            return out;
        }
        std::unique_lock lock(mu_);
        std::vector<input_request> missing;
        for (const auto& r : rs) {
            asked_[r.key] = r.method;
            auto it = answers_.find(r.key);
            if (it != answers_.end()) {
                if (!detail::valid_input_response(r.method, *it)) {
                    protocol_error_ = "inputResponses[\"" + r.key + "\"] is not a valid result of " + r.method;
                    return fail(errc::protocol_error, *protocol_error_);
                }
                out[r.key] = *it;
                continue;
            }
            missing.push_back(r);
        }
        if (missing.empty()) return out;
        if (task_ask_) {  // a task: the questions wait on tasks/get, the answers come by tasks/update
            auto ask_in_task = task_ask_;
            lock.unlock();
            auto got = ask_in_task(missing, std::move(also));
            if (!got) return fail(std::move(got).error());
            lock.lock();
            for (auto& [k, v] : *got) {
                answers_[k] = v;
                out[k] = std::move(v);
            }
            return out;
        }
        for (const auto& r : missing) {
            bool listed = false;
            for (const auto& p : pending_) listed = listed || p.key == r.key;
            if (!listed) pending_.push_back(r);
        }
        return fail(errc::input_required, "waiting for the client's input", "The server answers with an input_required result.");
    }

    /// Go on as a task (the tasks extension, 2026-07-28; mcp/server/tasks.hpp): the client is
    /// answered now with a task handle and this handler's result becomes the task's; input
    /// asked from here on waits for tasks/update. True when the request is (now) a task; false
    /// when it cannot be one: not a tools/call of a tool that supports tasks, a client that did
    /// not declare the extension, input already asked for this round, the server's tasks full.
    /// Calling it is never required: a long call of a task-supporting tool becomes a task by itself.
    bool start_task() {
        std::function<bool()> f;
        {
            std::lock_guard lock(mu_);
            if (task_ask_) return true;
            f = start_task_;
        }
        return f && f();
    }
    /// True once this request runs as a task.
    [[nodiscard]] bool in_task() const {
        std::lock_guard lock(mu_);
        return static_cast<bool>(task_ask_);
    }

    /// Something that sends a message (a notification) to this request's client after the
    /// request has ended, through its session's channel for messages of no request (stdio, or
    /// the HTTP session's stream); it returns false once the session is gone. Empty in the
    /// stateless era, whose requests have no session.
    [[nodiscard]] std::function<bool(const json& message)> session_sender() const { return session_send_; }

    /// State a handler keeps between input_required rounds (stateless era): what it saved in
    /// the round before (null in the first round or in the handshake era).
    [[nodiscard]] json saved_state() const {
        std::lock_guard lock(mu_);
        return saved_state_;
    }
    /// Keep `s` for the next round (carried, signed, in the requestState).
    void save_state(json s) {
        std::lock_guard lock(mu_);
        saved_state_ = std::move(s);
    }

private:
    friend class server;
    bool stateless_ = false;
    std::string method_;
    json caps_ = json::object();
    int log_threshold_ = 100;  // above every level: nothing is sent
    std::function<void(const json&)> send_;
    std::function<bool(const json&)> session_send_;
    std::function<result<json>(const input_request&, std::stop_token also)> ask_remote_;
    std::function<bool()> start_task_;
    std::function<result<std::map<std::string, json>>(const std::vector<input_request>&, std::stop_token also)> task_ask_;
    mutable std::mutex mu_;
    json answers_ = json::object();
    json asked_ = json::object();
    std::vector<input_request> pending_;
    json saved_state_;
    std::optional<std::string> protocol_error_;

    /// The server makes this request a task: false when it already committed to an
    /// input_required round.
    bool enter_task(std::function<result<std::map<std::string, json>>(const std::vector<input_request>&, std::stop_token)> ask) {
        std::lock_guard lock(mu_);
        if (!pending_.empty() || protocol_error_) return false;
        task_ask_ = std::move(ask);
        return true;
    }
    void leave_task() {
        std::lock_guard lock(mu_);
        task_ask_ = nullptr;
    }
};

namespace detail {
inline std::mutex& request_registry_mutex() {
    static std::mutex m;
    return m;
}
inline std::unordered_map<const tool_context*, request_context*>& request_registry() {
    static std::unordered_map<const tool_context*, request_context*> r;
    return r;
}
/// Ties a tool_context to its request_context while a handler runs.
class request_binding {
public:
    request_binding(const tool_context& ctx, request_context& rq) : ctx_(&ctx) {
        std::lock_guard lock(request_registry_mutex());
        request_registry()[ctx_] = &rq;
    }
    request_binding(const request_binding&) = delete;
    request_binding& operator=(const request_binding&) = delete;
    ~request_binding() {
        std::lock_guard lock(request_registry_mutex());
        request_registry().erase(ctx_);
    }

private:
    const tool_context* ctx_;
};
}  // namespace detail

/// The MCP request a handler serves, from the tool_context it was given; nullptr when the
/// handler was not called by an MCP server (e.g. by an agent session).
[[nodiscard]] inline request_context* request_of(const tool_context& ctx) {
    std::lock_guard lock(detail::request_registry_mutex());
    auto it = detail::request_registry().find(&ctx);
    return it == detail::request_registry().end() ? nullptr : it->second;
}

}  // namespace agentkit::mcp
