// agentkit/mcp/server.hpp — a Model Context Protocol server over any agentkit toolbox.
//
//   agentkit::toolbox tools{get_weather, search};
//   agentkit::mcp::server srv{agentkit::mcp::backend_for(tools), {.name = "weather", .version = "1.0"}};
//   return agentkit::mcp::run_stdio(srv);   // stdout carries protocol messages only
//
// backend_for(tools, masker) serves a toolbox through a visibility masker; backend_for(session)
// serves an agent_session: its masker's tools, its formatter's budgets, its artifact store.
//
// Tool output becomes MCP content: text, image, resource_link (an artifact reference), embedded
// resource (an artifact carrying its text or blob), and structuredContent for typed output.
//
// Protocol: JSON-RPC 2.0, newline-delimited on stdio. Revisions 2025-11-25, 2025-06-18,
// 2025-03-26 and 2024-11-05 through the initialize handshake (the server answers with the
// client's version when it supports it, else with its latest), and the stateless 2026-07-28
// revision (server/discover; every request carries its version and capabilities in `_meta`;
// results carry `resultType`; tools/list and server/discover carry `ttlMs`/`cacheScope`; an
// unsupported version is answered with -32022). Clients of either era work with one server.
//
// Behaviour on bad input: malformed JSON (a raw NUL byte, invalid UTF-8, an over-long line,
// nesting deeper than max_depth included) → -32700 with id null; a message that is not a valid
// JSON-RPC request (wrong "jsonrpc", an id that is not a string or an integer, a method that is
// not a string, params that are not structured) → -32600, with the id when it is valid, even
// without an id; an id still in flight → -32600; unknown method (a "notifications/..." method
// sent with an id included: it is a request) → -32601; by-position params, bad params,
// tools/call arguments that are not an object and unknown tools → -32602; invalid tool
// arguments and tool failures → a normal result with isError (the model sees them). Responses
// from the client and notifications are never answered. Nothing a client sends crashes the
// server or writes anything but a whole protocol message line to stdout.
//
// Concurrency: tools/call requests run on worker threads; calls of parallel-safe tools run
// together, the others one at a time. The reader never waits for a tool. Cancellation
// (notifications/cancelled) requests stop through the call's tool_context and suppresses its
// response; progress tokens turn tool_context::progress into notifications/progress.
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/export.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/visibility/masked_call.hpp>
#include <agentkit/visibility/masker.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
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

/// Protocol revisions this server speaks, newest first.
inline constexpr std::array<std::string_view, 5> supported_versions{"2026-07-28", "2025-11-25", "2025-06-18",
                                                                     "2025-03-26", "2024-11-05"};
/// The first revision of the stateless era (per-request `_meta`, server/discover).
inline constexpr std::string_view stateless_version = "2026-07-28";
/// The newest revision negotiated through initialize.
inline constexpr std::string_view latest_handshake_version = "2025-11-25";

/// JSON-RPC and MCP error codes.
namespace code {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
inline constexpr int missing_client_capability = -32021;  ///< 2026-07-28: data.requiredCapabilities
inline constexpr int unsupported_version = -32022;
}  // namespace code

/// What a server serves. Build one with backend_for(); or fill the functions yourself.
struct backend {
    /// Tools visible now, in a deterministic order.
    std::function<std::vector<tool_info>()> list_tools;
    /// Run a tool (visibility, validation and dispatch included). Never throws.
    std::function<result<tool_output>(std::string_view name, const json& args, tool_context& ctx)> call_tool;
    /// True when the tool may run concurrently with other parallel-safe calls.
    std::function<bool(std::string_view name)> parallel_safe;
    /// Changes whenever the visible tool set changes (drives notifications/tools/list_changed).
    std::function<std::uint64_t()> version;
};

struct server_options {
    std::string name = "agentkit";
    std::string version = "0.1.0";
    std::string title;
    std::string instructions;
    /// tools/list page size (cursor pagination); 0 lists everything in one page.
    std::size_t page_size = 100;
    /// Cache hints for the stateless era.
    std::int64_t list_ttl_ms = 0;
    std::string cache_scope = "private";
    /// Worker threads for tools/call (requests beyond it queue in arrival order).
    std::size_t max_in_flight = 16;
    /// Longest accepted message line (bytes).
    std::size_t max_message_bytes = std::size_t{64} << 20U;
    /// Deepest accepted JSON nesting.
    std::size_t max_depth = 256;
    /// Minimum level written to stderr ("debug" ... "emergency"); "off" writes nothing.
    std::string stderr_level = "warning";
};

namespace detail {

inline int level_rank(std::string_view l) {
    constexpr std::array<std::string_view, 8> levels{"debug", "info", "notice", "warning",
                                                     "error", "critical", "alert", "emergency"};
    for (std::size_t i = 0; i < levels.size(); ++i)
        if (levels[i] == l) return static_cast<int>(i);
    return -1;
}

/// Nesting depth of a JSON text, ignoring brackets inside strings (cheap pre-check before parse).
inline std::size_t nesting_depth(std::string_view s) {
    std::size_t depth = 0, max = 0;
    bool in_str = false, esc = false;
    for (char c : s) {
        if (in_str) {
            if (esc) esc = false;
            else if (c == '\\') esc = true;
            else if (c == '"') in_str = false;
            continue;
        }
        if (c == '"') in_str = true;
        else if (c == '[' || c == '{') max = std::max(max, ++depth);
        else if ((c == ']' || c == '}') && depth > 0) --depth;
    }
    return max;
}

inline json content_json(const content_block& b) {
    switch (b.type) {
        case content_block::kind::text: return json{{"type", "text"}, {"text", b.text}};
        case content_block::kind::image: return json{{"type", "image"}, {"data", b.text}, {"mimeType", b.mime_type}};
        case content_block::kind::artifact: {
            if (b.artifact.embedded()) {  // an embedded resource: the contents travel in the result
                json r{{"uri", b.artifact.uri}};
                if (!b.artifact.mime_type.empty()) r["mimeType"] = b.artifact.mime_type;
                if (b.artifact.text) r["text"] = *b.artifact.text;
                else r["blob"] = *b.artifact.blob;
                return json{{"type", "resource"}, {"resource", std::move(r)}};
            }
            json j{{"type", "resource_link"}, {"uri", b.artifact.uri}, {"name", b.artifact.name.empty() ? b.artifact.id : b.artifact.name}};
            if (!b.artifact.mime_type.empty()) j["mimeType"] = b.artifact.mime_type;
            if (!b.artifact.description.empty()) j["description"] = b.artifact.description;
            if (b.artifact.size > 0) j["size"] = b.artifact.size;
            return j;
        }
        case content_block::kind::structured: return json{{"type", "text"}, {"text", b.data.dump(-1, ' ', false, json::error_handler_t::replace)}};
        case content_block::kind::tool_reference:
            return json{{"type", "text"}, {"text", "Tool " + b.text + " is now available."}};
    }
    return json{{"type", "text"}, {"text", ""}};
}

}  // namespace detail

/// The tools/call result for a tool output (content, structuredContent, isError).
[[nodiscard]] inline json call_result(const tool_output& out) {
    json content = json::array();
    for (const auto& b : out.content) content.push_back(detail::content_json(b));
    json r{{"content", std::move(content)}, {"isError", out.is_error}};
    if (out.structured && !out.is_error) r["structuredContent"] = *out.structured;
    return r;
}

/// A backend serving every tool of a toolbox.
template <class Toolbox>
[[nodiscard]] backend backend_for(const Toolbox& box) {
    backend b;
    b.list_tools = [&box] { return box.infos(); };
    b.call_tool = [&box](std::string_view name, const json& args, tool_context& ctx) { return box.call(name, args, ctx); };
    b.parallel_safe = [&box](std::string_view name) {
        auto i = box.find(name);
        return i && box.infos()[*i].traits.is_parallel_safe();
    };
    b.version = [] { return std::uint64_t{0}; };
    return b;
}

/// A backend serving a toolbox through a visibility masker (meta-tools included; hidden tools
/// answered by the masker; the masker observes every call). The masker is used under a lock.
template <class Toolbox, masker Masker>
[[nodiscard]] backend backend_for(const Toolbox& box, Masker& m) {
    struct shared {
        const Toolbox* box;
        Masker* m;
        std::set<std::string, std::less<>> meta_names;
        std::mutex mu;
    };
    auto s = std::make_shared<shared>();
    s->box = &box;
    s->m = &m;
    {
        std::lock_guard lock(s->mu);
        m.bind(box.infos());
        for (const auto& t : m.meta_tools()) s->meta_names.insert(t.name);
    }
    backend b;
    b.list_tools = [s] {
        std::lock_guard lock(s->mu);
        std::vector<tool_info> out = s->m->meta_tools();
        for (const auto& t : s->box->infos())
            if (s->m->is_visible(t.name)) out.push_back(t);
        return out;
    };
    b.call_tool = [s](std::string_view name, const json& args, tool_context& ctx) -> result<tool_output> {
        masked_route route;
        {
            std::lock_guard lock(s->mu);
            route = masked_call(*s->m, *s->box, [&](std::string_view n) { return s->meta_names.count(n) != 0; }, name, args);
        }
        if (route.answer) return std::move(*route.answer);
        auto r = s->box->call_at(*route.index, args, ctx);
        std::lock_guard lock(s->mu);
        masked_observe(*s->m, name, args, r);
        return r;
    };
    b.parallel_safe = [s](std::string_view name) {
        auto i = s->box->find(name);
        return i && s->box->infos()[*i].traits.is_parallel_safe();
    };
    b.version = [s] {
        std::lock_guard lock(s->mu);
        return static_cast<std::uint64_t>(s->m->version());
    };
    return b;
}

/// A session that can be served (agentkit::agent_session): its visible tools, its call path.
template <class S>
concept servable_session = requires(S& s, const S& cs, std::string_view n, const json& a, tool_context& ctx) {
    { cs.served_tools() } -> std::convertible_to<std::vector<tool_info>>;
    { s.serve_call(n, a, ctx) } -> std::same_as<result<tool_output>>;
    { cs.serve_parallel_safe(n) } -> std::convertible_to<bool>;
    { cs.serve_version() } -> std::convertible_to<std::uint64_t>;
};

/// A backend serving an agent session: the tools its masker shows now (meta-tools included),
/// called through the session so that its formatter (budgets, cut text stored as artifacts)
/// and masker apply exactly as in its own model loop. The session must outlive the server.
template <servable_session Session>
[[nodiscard]] backend backend_for(Session& session) {
    backend b;
    b.list_tools = [&session] { return session.served_tools(); };
    b.call_tool = [&session](std::string_view name, const json& args, tool_context& ctx) {
        return session.serve_call(name, args, ctx);
    };
    b.parallel_safe = [&session](std::string_view name) { return session.serve_parallel_safe(name); };
    b.version = [&session] { return session.serve_version(); };
    return b;
}

/// The protocol engine, independent of the transport: feed it messages with handle(); it
/// emits messages through the `send` function given at construction. Thread-safe.
class server {
public:
    using sink = std::function<void(const std::string& line)>;

    explicit server(backend b, server_options o = {}) : b_(std::move(b)), o_(std::move(o)) {}
    server(const server&) = delete;
    server& operator=(const server&) = delete;
    ~server() { shutdown(std::chrono::milliseconds(2000)); }

    /// Where messages go (one JSON text per call, without the newline).
    void set_sink(sink s) {
        std::lock_guard lock(out_mu_);
        sink_ = std::move(s);
    }

    /// Handle one incoming message (a line without its newline).
    void handle(std::string_view line) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.find_first_not_of(" \t") == std::string_view::npos) return;  // blank line
        if (line.size() > o_.max_message_bytes) {
            send_error(nullptr, code::parse_error, "message too large", json{{"limit", o_.max_message_bytes}});
            return;
        }
        if (detail::nesting_depth(line) > o_.max_depth) {
            send_error(nullptr, code::parse_error, "JSON nested too deeply", json{{"limit", o_.max_depth}});
            return;
        }
        // A raw NUL is never valid JSON (inside a string it must be escaped as \u0000). The
        // parser would take it for the end of the input and accept `{...}\0garbage`.
        if (line.find('\0') != std::string_view::npos) {
            send_error(nullptr, code::parse_error, "Parse error: the message contains a NUL byte");
            return;
        }
        json msg = json::parse(line, nullptr, false);
        if (msg.is_discarded()) {
            send_error(nullptr, code::parse_error, "Parse error: the message is not valid JSON (or not valid UTF-8)");
            return;
        }
        if (msg.is_array()) {
            handle_batch(msg);
            return;
        }
        handle_message(msg);
    }

    /// Log through MCP (notifications/message, when the client asked for that level) and stderr.
    void log(std::string_view level, std::string_view logger, const json& data) {
        const int rank = detail::level_rank(level);
        if (o_.stderr_level != "off" && rank >= detail::level_rank(o_.stderr_level)) {
            std::string line = "[" + std::string(level) + "] " + std::string(logger) + ": " +
                               (data.is_string() ? data.get<std::string>() : data.dump(-1, ' ', false, json::error_handler_t::replace)) + "\n";
            (void)!::write(2, line.data(), line.size());
        }
        if (initialized_.load() && rank >= client_level_.load())
            send(json{{"jsonrpc", "2.0"},
                      {"method", "notifications/message"},
                      {"params", {{"level", level}, {"logger", logger}, {"data", data}}}});
    }

    /// Let in-flight calls finish for half of `bound`, then cancel what still runs and wait
    /// for the rest of it; stop the workers.
    void shutdown(std::chrono::milliseconds bound) {
        std::unique_lock lock(calls_mu_);
        closing_ = true;
        if (!calls_cv_.wait_for(lock, bound / 2, [&] { return running_ == 0; })) {
            for (auto& [id, c] : in_flight_) c->stop.request_stop();
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

    /// Ask every running tools/call to stop (through its tool_context); their responses are still
    /// sent, as the client did not cancel them. Used when the process is told to terminate.
    void cancel_all() {
        std::lock_guard lock(calls_mu_);
        for (auto& [id, c] : in_flight_) c->stop.request_stop();
    }

    /// The options this server was built with.
    [[nodiscard]] const server_options& options() const noexcept { return o_; }

    /// Number of tools/call requests running now.
    [[nodiscard]] std::size_t in_flight() const {
        std::lock_guard lock(calls_mu_);
        return in_flight_.size();
    }

    /// The protocol version negotiated by initialize (empty before).
    [[nodiscard]] std::string negotiated_version() const {
        std::lock_guard lock(state_mu_);
        return version_;
    }

    /// Send notifications/tools/list_changed if the visible set changed since the last check.
    void check_list_changed() {
        if (!b_.version) return;
        const std::uint64_t v = b_.version();
        const std::uint64_t old = last_version_.exchange(v);
        if (v != old && initialized_.load())
            send(json{{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}});
    }

private:
    struct call_state {
        std::stop_source stop;
        std::atomic<bool> cancelled{false};
    };

    void send(const json& j) {
        std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
        std::lock_guard lock(out_mu_);
        if (sink_) sink_(s);
    }

    void send_result(const json& id, json result) { send(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}); }

    void send_error(const json& id, int c, std::string message, json data = nullptr) {
        json err{{"code", c}, {"message", std::move(message)}};
        if (!data.is_null()) err["data"] = std::move(data);
        send(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}});
    }

    static bool valid_id(const json& id) { return id.is_string() || id.is_number_integer() || id.is_number_unsigned(); }

    void handle_batch(const json& arr) {
        bool batching = false;
        {
            std::lock_guard lock(state_mu_);
            batching = version_ == "2025-03-26";
        }
        if (!batching || arr.empty()) {
            send_error(nullptr, code::invalid_request,
                       arr.empty() ? "Invalid Request: empty batch"
                                   : "Invalid Request: JSON-RPC batches are not supported in this protocol revision; "
                                     "send one message per line");
            return;
        }
        for (const auto& m : arr) handle_message(m);
    }

    void handle_message(const json& msg) {
        if (!msg.is_object()) {
            send_error(nullptr, code::invalid_request, "Invalid Request: a message must be a JSON object");
            return;
        }
        const bool has_id = msg.contains("id");
        const json id = has_id ? msg["id"] : json(nullptr);
        // A response of the client (we send no requests) is never answered; anything else that
        // is not a valid Request object is answered with -32600 (JSON-RPC 2.0 section 5), even
        // without an id: `{"foo": "boo"}` and `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`
        // are the specification's own examples, each answered with id null.
        const bool looks_like_response = !msg.contains("method") && (msg.contains("result") || msg.contains("error"));
        if (msg.value("jsonrpc", json()) != "2.0") {
            if (!looks_like_response)
                send_error(valid_id(id) ? id : json(nullptr), code::invalid_request, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
            return;
        }
        if (!msg.contains("method")) {
            // A response to a request of ours (we send none) or garbage.
            if (!msg.contains("result") && !msg.contains("error"))
                send_error(valid_id(id) ? id : json(nullptr), code::invalid_request, "Invalid Request: no method");
            return;
        }
        if (!msg["method"].is_string()) {
            send_error(valid_id(id) ? id : json(nullptr), code::invalid_request, "Invalid Request: \"method\" must be a string");
            return;
        }
        const std::string method = msg["method"].get<std::string>();
        if (has_id && !valid_id(id)) {
            send_error(nullptr, code::invalid_request, "Invalid Request: \"id\" must be a string or an integer");
            return;
        }
        const json params = msg.contains("params") ? msg["params"] : json::object();
        if (!params.is_object() && !params.is_array()) {
            // Not a structured value: the message is not a valid Request object.
            send_error(has_id ? id : json(nullptr), code::invalid_request,
                       "Invalid Request: \"params\" must be an object");
            return;
        }
        if (!has_id) {
            handle_notification(method, params);
            return;
        }
        handle_request(id, method, params);
    }

    void handle_notification(const std::string& method, const json& params) {
        if (method == "notifications/initialized") {
            initialized_ = true;
            last_version_ = b_.version ? b_.version() : 0;
        } else if (method == "notifications/cancelled") {
            if (!params.is_object() || !params.contains("requestId")) return;
            const std::string key = params["requestId"].dump();
            std::lock_guard lock(calls_mu_);
            auto it = in_flight_.find(key);
            if (it == in_flight_.end()) {
                log("debug", "mcp", "cancellation of an unknown or finished request " + key + " ignored");
                return;
            }
            it->second->cancelled = true;
            it->second->stop.request_stop();
        }
        // other notifications (roots/list_changed, progress from the client, ...) need no answer
    }

    /// The stateless era: a request carrying its protocol version in _meta.
    std::optional<std::string> meta_version(const json& params) const {
        auto m = params.find("_meta");
        if (m == params.end() || !m->is_object()) return std::nullopt;
        auto v = m->find("io.modelcontextprotocol/protocolVersion");
        if (v == m->end()) return std::nullopt;
        return v->is_string() ? v->get<std::string>() : std::string("<not a string>");
    }

    static bool is_supported(std::string_view v) {
        return std::find(supported_versions.begin(), supported_versions.end(), v) != supported_versions.end();
    }

    json capabilities() const {
        return json{{"tools", {{"listChanged", true}}}, {"logging", json::object()}};
    }

    json server_info() const {
        json i{{"name", o_.name}, {"version", o_.version}};
        if (!o_.title.empty()) i["title"] = o_.title;
        return i;
    }

    static bool known_method(std::string_view m) {
        return m == "initialize" || m == "server/discover" || m == "ping" || m == "tools/list" || m == "tools/call" ||
               m == "logging/setLevel";
    }

    void handle_request(const json& id, const std::string& method, const json& raw_params) {
        {
            // An id still in flight is ambiguous: its response could not be told from this one's.
            std::lock_guard lock(calls_mu_);
            if (in_flight_.count(id.dump()) != 0) {
                send_error(id, code::invalid_request, "Invalid Request: a request with this id is already in flight");
                return;
            }
        }
        if (!known_method(method)) {
            send_error(id, code::method_not_found, "Method not found: " + method);
            return;
        }
        if (!raw_params.is_object()) {  // by-position params: no MCP method takes them
            send_error(id, code::invalid_params, "Invalid params: MCP params must be an object");
            return;
        }
        const json& params = raw_params;
        const auto mv = meta_version(params);
        bool stateless = false;
        if (mv) {
            if (*mv != stateless_version) {
                std::vector<std::string> modern{std::string(stateless_version)};
                send_error(id, code::unsupported_version,
                           "Unsupported protocol version: " + *mv,
                           json{{"supported", modern}, {"requested", *mv}});
                return;
            }
            stateless = true;
            // Required on every request of this revision; {} means no optional capability. Never
            // inferred from an earlier request.
            const json& m = params["_meta"];
            auto caps = m.find("io.modelcontextprotocol/clientCapabilities");
            if (method != "server/discover" && (caps == m.end() || !caps->is_object())) {
                send_error(id, code::invalid_params,
                           "Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"] must be an object on every "
                           "2026-07-28 request ({} when the client has no optional capability)");
                return;
            }
        }
        auto finish = [&](json r) {
            if (stateless) r["resultType"] = "complete";
            send_result(id, std::move(r));
        };

        if (method == "initialize") {
            std::string requested = params.value("protocolVersion", json()).is_string()
                                        ? params["protocolVersion"].get<std::string>()
                                        : std::string();
            std::string chosen = (is_supported(requested) && requested != stateless_version)
                                     ? requested
                                     : std::string(latest_handshake_version);
            {
                std::lock_guard lock(state_mu_);
                version_ = chosen;
                const json caps = params.value("capabilities", json());
                init_caps_ = caps.is_object() ? caps : json::object();
            }
            json r{{"protocolVersion", chosen}, {"capabilities", capabilities()}, {"serverInfo", server_info()}};
            if (!o_.instructions.empty()) r["instructions"] = o_.instructions;
            send_result(id, std::move(r));
            return;
        }
        if (method == "server/discover") {
            json r{{"supportedVersions", json::array({std::string(stateless_version)})},
                   {"capabilities", capabilities()},
                   {"serverInfo", server_info()},
                   {"ttlMs", o_.list_ttl_ms},
                   {"cacheScope", o_.cache_scope},
                   {"resultType", "complete"}};
            if (!o_.instructions.empty()) r["instructions"] = o_.instructions;
            send_result(id, std::move(r));
            return;
        }
        if (method == "ping") {
            finish(json::object());
            return;
        }
        if (!stateless && !initialized_.load() && negotiated_version().empty()) {
            send_error(id, code::invalid_request,
                       "Invalid Request: send initialize first (or use protocol 2026-07-28 with _meta on every request)");
            return;
        }
        if (method == "tools/list") {
            list_tools(id, params, stateless);
            return;
        }
        if (method == "tools/call") {
            call_tool(id, params, stateless);
            return;
        }
        if (method == "logging/setLevel") {
            const json lv = params.value("level", json());
            if (!lv.is_string() || detail::level_rank(lv.get<std::string>()) < 0) {
                send_error(id, code::invalid_params,
                           "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency");
                return;
            }
            client_level_ = detail::level_rank(lv.get<std::string>());
            finish(json::object());
            return;
        }
    }

    void list_tools(const json& id, const json& params, bool stateless) {
        std::vector<tool_info> tools = b_.list_tools ? b_.list_tools() : std::vector<tool_info>{};
        std::size_t start = 0;
        if (params.contains("cursor") && !params["cursor"].is_null()) {
            const json& c = params["cursor"];
            bool ok = c.is_string();
            if (ok) {
                const std::string s = c.get<std::string>();
                ok = s.size() > 1 && s[0] == 'o' && s.find_first_not_of("0123456789", 1) == std::string::npos && s.size() < 12;
                if (ok) start = static_cast<std::size_t>(std::stoull(s.substr(1)));
                ok = ok && start <= tools.size();
            }
            if (!ok) {
                send_error(id, code::invalid_params, "Invalid params: unknown cursor; call tools/list without a cursor");
                return;
            }
        }
        const std::size_t n = o_.page_size == 0 ? tools.size() : std::min(o_.page_size, tools.size() - start);
        json arr = json::array();
        for (std::size_t i = start; i < start + n; ++i) arr.push_back(to_mcp(tools[i]));
        json r{{"tools", std::move(arr)}};
        if (start + n < tools.size()) r["nextCursor"] = "o" + std::to_string(start + n);
        if (stateless) {
            r["ttlMs"] = o_.list_ttl_ms;
            r["cacheScope"] = o_.cache_scope;
            r["resultType"] = "complete";
        }
        send_result(id, std::move(r));
    }

    void call_tool(const json& id, const json& params, bool stateless) {
        const json name = params.value("name", json());
        if (!name.is_string()) {
            send_error(id, code::invalid_params, "Invalid params: tools/call needs \"name\" (a string)");
            return;
        }
        json args = params.contains("arguments") ? params["arguments"] : json::object();
        if (args.is_null()) args = json::object();
        if (!args.is_object()) {  // fails the CallToolRequest schema: a protocol error, not a tool error
            send_error(id, code::invalid_params, "Invalid params: tools/call \"arguments\" must be an object");
            return;
        }
        json progress_token;
        if (auto m = params.find("_meta"); m != params.end() && m->is_object() && m->contains("progressToken"))
            progress_token = (*m)["progressToken"];
        json client_caps;
        if (stateless) {
            client_caps = params["_meta"]["io.modelcontextprotocol/clientCapabilities"];
        } else {
            std::lock_guard lock(state_mu_);
            client_caps = init_caps_;
        }

        auto st = std::make_shared<call_state>();
        const std::string key = id.dump();
        {
            std::unique_lock lock(calls_mu_);
            if (closing_) {
                lock.unlock();
                send_error(id, code::internal_error, "server is shutting down");
                return;
            }
            if (in_flight_.count(key) != 0) {
                lock.unlock();
                send_error(id, code::invalid_request, "Invalid Request: a request with this id is already in flight");
                return;
            }
            in_flight_.emplace(key, st);
            ++running_;
        }
        const std::string tool = name.get<std::string>();
        auto work = [this, id, key, tool, args = std::move(args), progress_token, st, stateless,
                     client_caps = std::move(client_caps)]() mutable {
            tool_context ctx;
            ctx.stop = st->stop.get_token();
            ctx.call_id = key;
            ctx.client_capabilities = std::move(client_caps);
            if (!progress_token.is_null()) {
                auto last = std::make_shared<double>(-1.0);
                ctx.on_progress = [this, progress_token, last](double p, std::optional<double> total, std::string_view msg) {
                    if (p <= *last) return;  // progress must increase
                    *last = p;
                    json n{{"progressToken", progress_token}, {"progress", p}};
                    if (total) n["total"] = *total;
                    if (!msg.empty()) n["message"] = msg;
                    send(json{{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", std::move(n)}});
                };
            }
            result<tool_output> r = fail(errc::tool_cancelled, "cancelled before it started");
            const bool par = b_.parallel_safe && b_.parallel_safe(tool);
            if (!ctx.cancelled()) {
                if (par) {
                    std::shared_lock lock(exclusive_);
                    r = run(tool, args, ctx);
                } else {
                    std::unique_lock lock(exclusive_);
                    r = run(tool, args, ctx);
                }
            }
            // A changed tool set is announced before the result that changed it.
            check_list_changed();
            if (!st->cancelled.load()) {
                if (!r && r.error().code == errc::tool_unknown) {
                    send_error(id, code::invalid_params, "Unknown tool: " + tool, json{{"error", r.error().to_json()}});
                } else if (!r && r.error().code == errc::client_capability_missing) {
                    const json& d = r.error().details;
                    json need = d.is_object() && d.contains("requiredCapabilities") && d["requiredCapabilities"].is_object()
                                    ? d["requiredCapabilities"]
                                    : json::object();
                    send_error(id, code::missing_client_capability, r.error().message, json{{"requiredCapabilities", std::move(need)}});
                } else {
                    json res = call_result(r ? *r : tool_output::from_error(r.error()));
                    if (stateless) res["resultType"] = "complete";
                    send_result(id, std::move(res));
                }
            }
            std::lock_guard lock(calls_mu_);
            in_flight_.erase(key);
            --running_;
            calls_cv_.notify_all();
        };
        std::lock_guard lock(calls_mu_);
        queue_.push_back(std::move(work));
        // One more worker when every existing one is busy, up to max_in_flight.
        if (idle_workers_ == 0 && workers_.size() < std::max<std::size_t>(1, o_.max_in_flight))
            workers_.emplace_back([this] { worker_loop(); });
        work_cv_.notify_one();
    }

    void worker_loop() {
        std::unique_lock lock(calls_mu_);
        for (;;) {
            ++idle_workers_;
            work_cv_.wait(lock, [&] { return stop_workers_ || !queue_.empty(); });
            --idle_workers_;
            if (queue_.empty()) return;  // stopping
            auto task = std::move(queue_.front());
            queue_.pop_front();
            lock.unlock();
            task();
            lock.lock();
        }
    }

    result<tool_output> run(const std::string& tool, const json& args, tool_context& ctx) {
        if (!b_.call_tool) return fail(errc::internal, "server has no backend");
        try {
            return b_.call_tool(tool, args, ctx);
        } catch (const std::exception& e) {
            return fail(errc::tool_exception, tool + " failed: " + e.what());
        } catch (...) {
            return fail(errc::tool_exception, tool + " failed");
        }
    }

    backend b_;
    server_options o_;
    std::mutex out_mu_;
    sink sink_;
    mutable std::mutex state_mu_;
    std::string version_;
    json init_caps_ = json::object();  // the client capabilities of initialize (handshake era)
    std::atomic<bool> initialized_{false};
    std::atomic<int> client_level_{100};  // no notifications/message until setLevel
    std::atomic<std::uint64_t> last_version_{0};
    mutable std::mutex calls_mu_;
    std::condition_variable calls_cv_;
    std::map<std::string, std::shared_ptr<call_state>> in_flight_;
    std::condition_variable work_cv_;
    std::deque<std::function<void()>> queue_;
    std::vector<std::thread> workers_;
    std::size_t idle_workers_ = 0;
    std::size_t running_ = 0;
    bool closing_ = false;
    bool stop_workers_ = false;
    std::shared_mutex exclusive_;
};

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
