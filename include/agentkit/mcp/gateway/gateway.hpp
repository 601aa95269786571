// agentkit/mcp/gateway/gateway.hpp — many MCP servers as one: the union of their tools, kept current
// (list_changed, restarts), served through any masker (agentkit-mcp-gateway is built on it).
//
//   auto cfg = agentkit::mcp::parse_servers_config(json::parse(file));   // the mcpServers format
//   agentkit::mcp::gateway g{*cfg, agentkit::mcp::stdio_transports()};
//   g.start(std::chrono::seconds(20));                 // first connections, in parallel
//   agentkit::mcp::server srv{agentkit::mcp::gateway_backend(g, [](const agentkit::mcp::gateway&) {
//       return agentkit::all_visible{};
//   })};
//
// Each upstream server has a thread of its own that connects, lists its tools (and lists them
// again on notifications/tools/list_changed), waits while it runs, and restarts it with backoff
// (restart_initial doubling up to restart_max) when it dies. Nothing one server does (starting
// slowly, hanging, dying) holds a lock another server's calls need: a call holds no gateway lock
// while it waits for its server.
//
// Names: a tool keeps its server's name when no other server has one like it; colliding names
// are namespaced as `<server>_<tool>` (and made valid tool names, see local_tool_name()). The
// tools of a server that is down stay listed with their last known description: calling one
// answers `transport.closed` naming the server, why it is down and when it is tried again.
// Arguments are checked against each tool's inputSchema before they leave the gateway.
#pragma once

#include <agentkit/mcp/gateway/input_relay.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/mcp/server/backend.hpp>
#include <agentkit/mcp/client/client.hpp>
#include <agentkit/mcp/client/remote_tools.hpp>
#include <agentkit/mcp/client/stdio.hpp>
#include <agentkit/tools/runtime_toolbox.hpp>
#include <agentkit/visibility/masked_call.hpp>
#include <agentkit/visibility/masker.hpp>

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
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace agentkit::mcp {

/// How the gateway signs in to an HTTP server that asks for OAuth ("oauth" in its entry; the
/// flow itself is mcp/http/oauth.hpp's, the redirect listener mcp/http/oauth_loopback.hpp's).
struct upstream_oauth {
    std::string client_id;                ///< a pre-registered client; empty: registration or client_metadata_url
    std::string client_secret_env;        ///< the environment variable holding its secret (never the file)
    std::string client_metadata_url;      ///< a client ID metadata document the host publishes
    std::vector<std::string> scopes;      ///< asked for when the server names none
    int redirect_port = 0;                ///< the loopback redirect's port; 0: kept from the last sign-in, else any free one
    bool client_credentials = false;      ///< machine-to-machine: the client_credentials grant, no sign-in
    std::string private_key_file;         ///< a PEM private key for private_key_jwt (instead of a secret)
    std::string signing_algorithm = "ES256";  ///< for private_key_file: ES256 or RS256
    /// A file holding the workload's identity JWT (workload identity federation: exchanged with
    /// the jwt-bearer grant, no sign-in; read at each exchange, as platforms rotate it).
    std::string workload_token_file;
};

/// One entry of an `mcpServers` configuration.
struct upstream_config {
    std::string name;        ///< the key in mcpServers
    stdio_server stdio;      ///< command, args, env, cwd (when `url` is empty)
    std::string url;         ///< a Streamable HTTP endpoint instead of a command
    std::vector<std::pair<std::string, std::string>> headers;  ///< sent to `url`; never printed
    std::optional<upstream_oauth> oauth;  ///< sign in with OAuth when `url` asks for it ("oauth": true or {...})
    std::string description; ///< what the server is for (the menu's mode description); empty: its instructions
    std::vector<std::string> keywords;  ///< words that point at this server (the intent masker)
    /// Example requests per tool (the server's own tool names), for the router's tool_search.
    std::map<std::string, std::vector<std::string>> examples;
    bool disabled = false;   ///< listed but not started
};

/// The embedding model `--mask router` fuses with its word ranking (the "router" object's "embeddings"
/// object, or --embeddings-url and --embeddings-model): an OpenAI-compatible /v1/embeddings endpoint
/// (visibility/embedding_endpoint.hpp). Without a URL, the router uses no model.
struct embeddings_settings {
    std::string url;    ///< the API's base URL ("http://127.0.0.1:11434/v1"); "": no model
    std::string model;  ///< the model's name
    std::string key_env = "AGENTKIT_EMBEDDINGS_KEY";  ///< the environment variable holding its key (may be unset)
    std::size_t dimensions = 0;     ///< sent as "dimensions" when not 0
    std::string document_prefix;    ///< before each tool text ("search_document: ")
    std::string query_prefix;       ///< before each search request ("search_query: ")
    std::string cache_dir;          ///< tool vectors kept here across restarts ("": memory only)
    std::size_t query_timeout_ms = 1500;  ///< a search request's embedding, then words alone
    std::size_t wait_ms = 10000;    ///< at start (and when the tools change), how long to wait for the tools' vectors
    std::string fusion = "weighted";  ///< "weighted" or "rrf" (retriever_options::fusion)
    /// The vectors' weight against the words': in weighted fusion their share (0..1), in rrf against the words' 1.
    double dense_weight = 0.35;
    /// The model's share of the vectors, beside the character n-grams' (blended_embedder; 0..1).
    double model_share = 0.2;
};

/// What `--mask router` learns from usage (the configuration's top-level "router" object).
struct router_settings {
    bool learn = true;  ///< a tool called after a tool_search that found it learns the query
    std::string usage_file;  ///< keep what was learned in this JSON file (usage_log.hpp); "": memory only
    std::size_t max_learned_per_tool = 100;  ///< learned queries kept per tool (the oldest go first)
    embeddings_settings embeddings;  ///< an embedding model to fuse (none by default)
};

/// A parsed configuration: the servers, and what the gateway's maskers need.
struct servers_config {
    std::vector<upstream_config> servers;  ///< in the file's order
    std::vector<std::string> frozen;       ///< the tools `--mask frozen` exposes (gateway names)
    router_settings router;                ///< learning from usage under `--mask router`
    bool relay_input = true;               ///< top-level "relay_input" (gateway_options::relay_input)
};

/// Read the "router" object's "embeddings" object (see embeddings_settings); `args.invalid` names the first
/// entry that is wrong.
[[nodiscard]] inline result<embeddings_settings> parse_embeddings_settings(const json& j) {
    const std::string shape =
        "\"embeddings\" is {\"url\": \"http(s)://host/v1\", \"model\": \"name\", \"key_env\": \"VARIABLE\", \"dimensions\": n, "
        "\"document_prefix\": \"...\", \"query_prefix\": \"...\", \"cache_dir\": \"path\", \"query_timeout_ms\": n, \"wait_ms\": n, "
        "\"fusion\": \"weighted\"|\"rrf\", \"dense_weight\": a number, \"model_share\": 0 to 1}";
    auto bad = [&](const std::string& why) {
        return fail(errc::args_invalid, "configuration: " + shape + " (" + why + ")",
                    "Give at least \"url\" and \"model\"; the key goes in the environment variable \"key_env\" names, never in the file.");
    };
    if (!j.is_object()) return bad("it is not an object");
    embeddings_settings e;
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& k = it.key();
        const json& v = it.value();  // (clang 14 cannot capture a structured binding in the lambdas below)
        auto text = [&](std::string& out) {
            if (!v.is_string()) return false;
            out = v.get<std::string>();
            return true;
        };
        auto count = [&](std::size_t& out) {
            if (!v.is_number_unsigned()) return false;
            out = static_cast<std::size_t>(v.get<std::uint64_t>());
            return true;
        };
        bool ok = false;
        if (k == "url") ok = text(e.url);
        else if (k == "model") ok = text(e.model);
        else if (k == "key_env") ok = text(e.key_env);
        else if (k == "document_prefix") ok = text(e.document_prefix);
        else if (k == "query_prefix") ok = text(e.query_prefix);
        else if (k == "cache_dir") ok = text(e.cache_dir);
        else if (k == "dimensions") ok = count(e.dimensions);
        else if (k == "query_timeout_ms") ok = count(e.query_timeout_ms) && e.query_timeout_ms >= 1;
        else if (k == "wait_ms") ok = count(e.wait_ms);
        else if (k == "fusion") ok = text(e.fusion) && (e.fusion == "rrf" || e.fusion == "weighted");
        else if (k == "dense_weight") ok = v.is_number() && v.get<double>() >= 0;
        else if (k == "model_share") ok = v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1;
        else if (k == "api_key" || k == "key") return bad("a key is read from the environment variable \"key_env\" names, not from the file");
        if (k == "dense_weight" && ok) e.dense_weight = v.get<double>();
        if (k == "model_share" && ok) e.model_share = v.get<double>();
        if (!ok) return bad("\"" + k + "\" is not");
    }
    if (e.url.empty() != e.model.empty()) return bad(e.url.empty() ? "\"model\" without \"url\"" : "\"url\" without \"model\"");
    if (!e.url.empty() && e.url.rfind("http://", 0) != 0 && e.url.rfind("https://", 0) != 0) return bad("\"url\" is not http(s)");
    if (e.fusion == "weighted" && e.dense_weight > 1) return bad("a weighted fusion's \"dense_weight\" is a share, 0 to 1");
    return e;
}

/// Read the `mcpServers` JSON format: {"mcpServers": {"<name>": {"command", "args", "env",
/// "cwd"} | {"url", "headers", "oauth"}}}, plus optional "description", "keywords", "examples"
/// ({"<tool>": ["<request>", ...]}) and "disabled" per server, a top-level "frozen" list and a
/// top-level "router" object ({"learn": bool, "usage_file": "...", "max_learned_per_tool": n,
/// "embeddings": {"url", "model", "key_env", "dimensions", "document_prefix", "query_prefix",
/// "cache_dir", "query_timeout_ms", "wait_ms", "fusion": "weighted"|"rrf", "dense_weight", "model_share"}})
/// and a top-level "relay_input" (true or false). `args.invalid` names the first entry that is wrong.
[[nodiscard]] inline result<servers_config> parse_servers_config(const json& j) {
    auto bad = [](const std::string& what) {
        return fail(errc::args_invalid, "configuration: " + what,
                    "Write {\"mcpServers\": {\"name\": {\"command\": \"...\", \"args\": [...]}}} or {\"url\": \"https://...\"} per server.");
    };
    if (!j.is_object() || !j.contains("mcpServers") || !j["mcpServers"].is_object()) return bad("no \"mcpServers\" object");
    servers_config cfg;
    for (const auto& item : j["mcpServers"].items()) {
        const std::string name = item.key();
        const json& e = item.value();
        if (!e.is_object()) return bad("server \"" + name + "\" is not an object");
        upstream_config u;
        u.name = name;
        auto str = [&](const char* k) -> std::optional<std::string> {
            auto it = e.find(k);
            if (it == e.end()) return std::string();
            if (!it->is_string()) return std::nullopt;
            return it->get<std::string>();
        };
        auto command = str("command");
        auto url = str("url");
        auto cwd = str("cwd");
        auto description = str("description");
        if (!command || !url || !cwd || !description) return bad("server \"" + name + "\": command, url, cwd and description are strings");
        u.stdio.command = *command;
        u.stdio.cwd = *cwd;
        u.url = *url;
        u.description = *description;
        if (u.stdio.command.empty() == u.url.empty()) return bad("server \"" + name + "\" needs either \"command\" or \"url\"");
        if (auto a = e.find("args"); a != e.end()) {
            if (!a->is_array()) return bad("server \"" + name + "\": \"args\" is an array of strings");
            for (const auto& x : *a) {
                if (!x.is_string()) return bad("server \"" + name + "\": \"args\" is an array of strings");
                u.stdio.args.push_back(x.get<std::string>());
            }
        }
        for (const char* key : {"env", "headers"}) {
            auto it = e.find(key);
            if (it == e.end()) continue;
            if (!it->is_object()) return bad("server \"" + name + "\": \"" + key + "\" maps names to strings");
            for (const auto& [k, v] : it->items()) {
                if (!v.is_string()) return bad("server \"" + name + "\": \"" + key + "\" maps names to strings");
                if (std::string_view(key) == "env") u.stdio.env[k] = v.get<std::string>();
                else u.headers.emplace_back(k, v.get<std::string>());
            }
        }
        if (auto o = e.find("oauth"); o != e.end() && !(o->is_boolean() && !o->get<bool>())) {
            const std::string where = "server \"" + name + "\": \"oauth\" ";
            if (u.url.empty()) return bad(where + "needs a \"url\" (OAuth is for HTTP servers)");
            if (!o->is_boolean() && !o->is_object()) return bad(where + "is true or an object");
            upstream_oauth a;
            if (o->is_object()) {
                if (o->contains("client_secret"))
                    return fail(errc::args_invalid, "configuration: " + where + "holds a client_secret; secrets are not read from the file",
                                "Put the secret in an environment variable and name it in \"client_secret_env\".");
                for (const auto& [k, v] : o->items()) {
                    if (k == "client_id" || k == "client_secret_env" || k == "client_metadata_url" || k == "private_key_file" ||
                        k == "signing_algorithm" || k == "workload_token_file") {
                        if (!v.is_string()) return bad(where + "\"" + k + "\" is a string");
                        (k == "client_id"             ? a.client_id
                         : k == "client_secret_env"   ? a.client_secret_env
                         : k == "client_metadata_url" ? a.client_metadata_url
                         : k == "private_key_file"    ? a.private_key_file
                         : k == "workload_token_file" ? a.workload_token_file
                                                      : a.signing_algorithm) = v.get<std::string>();
                    } else if (k == "client_credentials") {
                        if (!v.is_boolean()) return bad(where + "\"client_credentials\" is true or false");
                        a.client_credentials = v.get<bool>();
                    } else if (k == "scopes") {
                        if (!v.is_array()) return bad(where + "\"scopes\" is an array of strings");
                        for (const auto& x : v) {
                            if (!x.is_string()) return bad(where + "\"scopes\" is an array of strings");
                            a.scopes.push_back(x.get<std::string>());
                        }
                    } else if (k == "redirect_port") {
                        if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > 65535)
                            return bad(where + "\"redirect_port\" is a port number (0: any)");
                        a.redirect_port = v.get<int>();
                    } else {
                        return bad(where + "has no \"" + k + "\" (client_id, client_secret_env, client_metadata_url, scopes, redirect_port, "
                                   "client_credentials, private_key_file, signing_algorithm, workload_token_file)");
                    }
                }
                if (a.signing_algorithm != "ES256" && a.signing_algorithm != "RS256") return bad(where + "\"signing_algorithm\" is ES256 or RS256");
                if (a.client_credentials && a.client_id.empty())
                    return bad(where + "with \"client_credentials\" needs the \"client_id\" the authorization server gave this client");
                if (!a.workload_token_file.empty() && a.client_id.empty())
                    return bad(where + "with \"workload_token_file\" needs the \"client_id\" the authorization server knows the workload by");
                if (a.client_credentials && a.client_secret_env.empty() && a.private_key_file.empty())
                    return bad(where + "with \"client_credentials\" needs \"client_secret_env\" or \"private_key_file\"");
            }
            u.oauth = std::move(a);
        }
        if (auto k = e.find("keywords"); k != e.end() && k->is_array())
            for (const auto& x : *k)
                if (x.is_string()) u.keywords.push_back(x.get<std::string>());
        if (auto x = e.find("examples"); x != e.end()) {
            const std::string shape = "server \"" + name + "\": \"examples\" maps tool names to arrays of requests";
            if (!x->is_object()) return bad(shape);
            for (const auto& [tool, list] : x->items()) {
                if (!list.is_array()) return bad(shape);
                for (const auto& q : list) {
                    if (!q.is_string()) return bad(shape);
                    u.examples[tool].push_back(q.get<std::string>());
                }
            }
        }
        if (auto d = e.find("disabled"); d != e.end() && d->is_boolean()) u.disabled = d->get<bool>();
        cfg.servers.push_back(std::move(u));
    }
    if (auto r = j.find("router"); r != j.end()) {
        const std::string shape =
            "\"router\" is {\"learn\": true|false, \"usage_file\": \"path\", \"max_learned_per_tool\": a whole number >= 1}";
        if (!r->is_object()) return bad(shape);
        for (const auto& [k, v] : r->items()) {
            if (k == "learn" && v.is_boolean()) cfg.router.learn = v.get<bool>();
            else if (k == "usage_file" && v.is_string()) cfg.router.usage_file = v.get<std::string>();
            else if (k == "max_learned_per_tool" && v.is_number_unsigned() && v.get<std::uint64_t>() >= 1)
                cfg.router.max_learned_per_tool = static_cast<std::size_t>(v.get<std::uint64_t>());
            else if (k == "embeddings") {
                if (auto e = parse_embeddings_settings(v); !e) return fail(e.error());
                else cfg.router.embeddings = std::move(*e);
            } else return bad(shape + " (\"" + k + "\" is not)");
        }
    }
    if (auto r = j.find("relay_input"); r != j.end()) {
        if (!r->is_boolean()) return bad("\"relay_input\" is true or false");
        cfg.relay_input = r->get<bool>();
    }
    if (auto f = j.find("frozen"); f != j.end() && f->is_array())
        for (const auto& x : *f)
            if (x.is_string()) cfg.frozen.push_back(x.get<std::string>());
    return cfg;
}

/// Makes the transport to one server (stdio_transports() for commands; a host adds HTTP).
using transport_factory = std::function<result<std::unique_ptr<client_transport>>(const upstream_config&)>;

/// Stdio for servers with a command; `transport.io` for URL servers (this factory has no HTTP:
/// mcp/http/client.hpp's http_client_transport does it).
[[nodiscard]] inline transport_factory stdio_transports(std::string stderr_dir = {}) {
    return [stderr_dir](const upstream_config& u) -> result<std::unique_ptr<client_transport>> {
        if (!u.url.empty())
            return fail(errc::transport_io, "server \"" + u.name + "\" is an HTTP server and this gateway was built without HTTP",
                        "Build with libcurl (agentkit::curl) or run the server over stdio.");
        stdio_server s = u.stdio;
        if (s.stderr_log.empty() && !stderr_dir.empty()) s.stderr_log = stderr_dir + "/" + local_tool_name(u.name) + ".stderr.log";
        return std::unique_ptr<client_transport>(std::make_unique<stdio_client_transport>(std::move(s)));
    };
}

/// How a gateway connects, restarts and times out.
struct gateway_options {
    client_options client;  ///< for every upstream (server_name, on_close and on_tools_changed are the gateway's)
    std::chrono::milliseconds restart_initial{500};  ///< first wait before a restart
    std::chrono::milliseconds restart_max{30000};    ///< the longest wait between restarts
    /// Called (from an upstream's thread) when the union of tools changed.
    std::function<void()> on_change;
    /// Called with one line about an upstream's life ("memory: up, 9 tools"); never holds secrets.
    std::function<void(const std::string&)> log;
    /// How long a server with "oauth" may wait for a person to sign in during its handshake
    /// (added to client.initialize_timeout for it).
    std::chrono::milliseconds sign_in_wait{std::chrono::minutes(5)};
    /// Called when stop() begins, before it waits for the upstreams: end what they may be waiting
    /// for outside the gateway (a sign-in: oauth_loopback::cancel()).
    std::function<void()> on_stop;
    /// Pass a server's requests for input made while one of its tools runs (elicitation/create:
    /// a question for the user; sampling/createMessage: a completion from the client's model) to
    /// the MCP client whose call it is, and its answer back (input_relay.hpp: both protocol
    /// eras). The servers are told the client can answer both (the elicitation capability in
    /// form and URL mode, and sampling), so tools that need them are offered; a URL-mode question
    /// reaches only a client that declared URL mode (else the server hears -32602), a server's
    /// -32042 (URL elicitations to complete first) reaches such a client as that error and any
    /// other as a tool error naming the URLs, and notifications/elicitation/complete goes to the
    /// client that was asked. A callback the host set in `client` wins (on_task_started is
    /// chained instead: the relay and the host both hear each task). false: neither is declared.
    bool relay_input = true;
};

/// The state of one upstream server, for status displays and tests.
struct upstream_status {
    std::string name;          ///< the server's name
    bool up = false;           ///< connected now
    std::size_t tools = 0;     ///< tools known (the last list, also while down)
    std::size_t restarts = 0;  ///< connections made after the first
    std::string last_error;    ///< why it is down (empty while up)
};

/// The gateway (see the file comment).
class gateway {
public:
    /// A gateway over `cfg`'s servers (nothing starts before start()).
    gateway(servers_config cfg, transport_factory make, gateway_options o = {})
        : cfg_(std::move(cfg)), make_(std::move(make)), o_(std::move(o)) {
        for (const auto& s : cfg_.servers)
            if (!s.disabled) ups_.push_back(std::make_unique<upstream>(s));
    }
    gateway(const gateway&) = delete;
    gateway& operator=(const gateway&) = delete;
    /// Stops every upstream.
    ~gateway() { stop(); }

    /// Start every upstream in parallel and wait until each has connected or failed once, at
    /// most `wait` (a server slower than that joins later, with list_changed).
    void start(std::chrono::milliseconds wait = std::chrono::milliseconds(20000)) {
        for (std::size_t i = 0; i < ups_.size(); ++i) ups_[i]->thread = std::thread([this, i] { run(i); });
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, wait, [&] {
            return std::all_of(ups_.begin(), ups_.end(), [](const auto& u) { return u->tried; });
        });
    }

    /// Stop every upstream (their processes end). Idempotent.
    void stop() {
        {
            std::lock_guard lock(mu_);
            if (stopping_) return;
            stopping_ = true;
            for (auto& u : ups_) u->cv.notify_all();
        }
        cv_.notify_all();
        if (o_.on_stop) o_.on_stop();
        for (auto& u : ups_) u->relay.stop();  // calls parked for a client's next round end first
        for (auto& u : ups_) {
            std::shared_ptr<client> c;
            {
                std::lock_guard lock(mu_);
                c = u->c;
            }
            if (c) c->close();
            if (u->thread.joinable()) u->thread.join();
        }
    }

    /// The union of the servers' tools as they are now (see the file comment for names).
    [[nodiscard]] runtime_toolbox toolbox() const {
        std::lock_guard lock(mu_);
        return box_;
    }
    /// Changes whenever toolbox() does.
    [[nodiscard]] std::uint64_t version() const { return version_.load(); }
    /// The server a gateway tool belongs to (empty for an unknown name).
    [[nodiscard]] std::string server_of(std::string_view tool) const {
        std::lock_guard lock(mu_);
        auto it = owner_.find(std::string(tool));
        return it == owner_.end() ? std::string() : it->second;
    }
    /// Each enabled server's state, in configuration order.
    [[nodiscard]] std::vector<upstream_status> status() const {
        std::lock_guard lock(mu_);
        std::vector<upstream_status> out;
        for (const auto& u : ups_) out.push_back({u->cfg.name, u->c != nullptr, u->tools.size(), u->restarts, u->last_error});
        return out;
    }
    /// The configuration.
    [[nodiscard]] const servers_config& config() const noexcept { return cfg_; }
    /// The gateway name of a server's tool (its own name), or "" when the server has no such tool now.
    [[nodiscard]] std::string local_name(const std::string& server, const std::string& tool) const {
        std::lock_guard lock(mu_);
        auto it = local_names_.find(key(server, tool));
        return it == local_names_.end() ? std::string() : it->second;
    }
    /// Gateway tool names per server (in each server's order), for modes and intent classes.
    [[nodiscard]] std::vector<std::pair<std::string, std::vector<std::string>>> tools_by_server() const {
        std::lock_guard lock(mu_);
        std::vector<std::pair<std::string, std::vector<std::string>>> out;
        for (const auto& u : ups_) {
            std::vector<std::string> names;
            for (const auto& t : u->tools) names.push_back(local_names_.at(key(u->cfg.name, t.name)));
            out.emplace_back(u->cfg.name, std::move(names));
        }
        return out;
    }
    /// The servers that are down now, each with why ("locked (HTTP 401 ...)"), joined by "; ";
    /// empty when every server is up. The gateway adds it to a `tool.unknown` answer, since the
    /// tool may belong to a server that never came up and so lists nothing.
    [[nodiscard]] std::string unavailable_note() const {
        std::lock_guard lock(mu_);
        std::string out;
        for (const auto& u : ups_) {
            if (u->c) continue;
            out += (out.empty() ? "" : "; ") + u->cfg.name + " (" + (u->last_error.empty() ? std::string("starting") : u->last_error) + ")";
        }
        return out;
    }
    /// Say why `server` is not up yet while it waits for something outside the gateway ("waiting
    /// for a sign-in: ..."): calls for it and unavailable_note() show this (with the last
    /// attempt's failure, if any), and start() stops waiting for it. Ignored once the server is
    /// up; its next failure replaces it.
    void note(const std::string& server, const std::string& why) {
        {
            std::lock_guard lock(mu_);
            for (auto& u : ups_)
                if (u->cfg.name == server && !u->c) {
                    if (!u->noted && !u->last_error.empty()) u->failed_before = u->last_error;
                    u->last_error = u->failed_before.empty() ? why : why + "; the last attempt: " + u->failed_before;
                    u->noted = true;
                    u->tried = true;
                }
        }
        cv_.notify_all();
    }

    /// What a server is for, on one line: its configured description, else the first sentence
    /// of its instructions read as plain text (markdown_plain; at most 200 bytes, cut on a
    /// character boundary), else its name.
    [[nodiscard]] std::string description_of(const std::string& server) const {
        std::lock_guard lock(mu_);
        for (const auto& u : ups_)
            if (u->cfg.name == server) {
                if (!u->cfg.description.empty()) return collapse_whitespace(u->cfg.description);
                if (std::string plain = markdown_plain(u->instructions); !plain.empty())
                    return clip_ellipsis(first_sentence(plain), 200);
            }
        return "The tools of the " + server + " MCP server.";
    }

private:
    struct upstream {
        explicit upstream(upstream_config conf) : cfg(std::move(conf)) {}
        upstream_config cfg;
        std::shared_ptr<client> c;
        std::vector<tool_info> tools;  // remote names
        std::string instructions;
        std::string last_error;
        std::string failed_before;  // the failure a note() keeps beside itself
        bool noted = false;         // last_error is a note(), not a failure
        std::size_t restarts = 0;
        bool tried = false;
        bool relist = false;
        bool dead = false;
        std::chrono::steady_clock::time_point retry_at{};
        std::condition_variable cv;
        std::thread thread;
        input_relay relay{cfg.name};  // its requests for input, to the clients of its calls
    };

    static std::string key(const std::string& server, const std::string& tool) { return server + '\x1f' + tool; }

    void say(const std::string& line) const {
        if (o_.log) o_.log(line);
    }

    /// Tell the host that the union changed (version_ was bumped by rebuild_locked()).
    void changed() {
        if (o_.on_change) o_.on_change();
    }

    void run(std::size_t i) {
        upstream& u = *ups_[i];
        auto backoff = o_.restart_initial;
        for (bool first = true;; first = false) {
            {
                std::lock_guard lock(mu_);
                if (stopping_) return;
            }
            client_options co = o_.client;
            co.server_name = u.cfg.name;
            if (u.cfg.oauth) co.initialize_timeout += o_.sign_in_wait;  // the handshake may wait for a person
            co.on_tools_changed = [this, &u] {
                std::lock_guard lock(mu_);
                u.relist = true;
                u.cv.notify_all();
            };
            co.on_close = [this, &u](const error&) {
                std::lock_guard lock(mu_);
                u.dead = true;
                u.cv.notify_all();
            };
            if (o_.relay_input) {
                if (!co.on_elicitation) {
                    co.on_elicitation = [&u](const json& params) { return u.relay.answer("elicitation/create", params); };
                    co.url_elicitation = true;  // passed on to a client that declared URL mode (-32602 to the server otherwise)
                }
                // the relay must know every task's call; a host's own callback still hears them
                co.on_task_started = [&u, host = std::move(co.on_task_started)](const std::string& id) {
                    u.relay.task_started(id);
                    if (host) host(id);
                };
                if (!co.on_elicitation_complete)
                    co.on_elicitation_complete = [&u](const json& params) { (void)u.relay.completed(params); };
                if (!co.on_sampling)
                    co.on_sampling = [&u](const json& params) { return u.relay.answer("sampling/createMessage", params); };
            }
            std::optional<error> failure;
            std::shared_ptr<client> c;
            auto t = make_(u.cfg);
            if (!t) failure = t.error();
            else if (auto r = client::connect(std::move(*t), std::move(co)); !r) failure = r.error();
            else c = std::shared_ptr<client>(std::move(*r));
            std::vector<tool_info> tools;
            bool differs = false;
            if (c) {
                auto listed = c->list_tools();
                if (listed) tools = std::move(*listed);
                else failure = listed.error();
            }
            if (failure) {
                if (c) c->close();
                {
                    std::lock_guard lock(mu_);
                    // what to do travels with why: a model calling its tools reads both
                    u.last_error = failure->hint.empty() ? failure->message : failure->message + " (" + failure->hint + ")";
                    u.noted = false;
                    u.failed_before.clear();
                    u.tried = true;
                    u.retry_at = std::chrono::steady_clock::now() + backoff;
                }
                cv_.notify_all();
                say(u.cfg.name + ": " + failure->to_text() + " (next try in " + std::to_string(backoff.count()) + " ms)");
                std::unique_lock lock(mu_);
                u.cv.wait_for(lock, backoff, [&] { return stopping_; });
                backoff = std::min(backoff * 2, o_.restart_max);
                continue;
            }
            {
                std::lock_guard lock(mu_);
                u.c = c;
                u.tools = std::move(tools);
                u.instructions = c->instructions();
                u.last_error.clear();
                u.noted = false;
                u.failed_before.clear();
                u.dead = false;
                u.tried = true;
                if (!first) ++u.restarts;
                differs = rebuild_locked();
            }
            cv_.notify_all();
            say(u.cfg.name + ": up, " + count_noun(u.tools.size(), "tool"));
            if (differs) changed();
            backoff = o_.restart_initial;
            // while it runs: relist on list_changed; leave when it dies or the gateway stops
            for (;;) {
                std::unique_lock lock(mu_);
                u.cv.wait(lock, [&] { return stopping_ || u.dead || u.relist; });
                if (stopping_) return;
                if (u.dead) break;
                u.relist = false;
                lock.unlock();
                auto listed = c->list_tools();
                if (!listed) continue;  // a failed relist keeps the last list; the close (if any) follows
                {
                    std::lock_guard l(mu_);
                    u.tools = std::move(*listed);
                    differs = rebuild_locked();
                }
                say(u.cfg.name + ": tools listed again");
                if (differs) changed();
            }
            std::string why;
            {
                std::lock_guard lock(mu_);
                auto reason = c->close_reason();
                u.last_error = reason ? reason->message : "the connection ended";
                u.c.reset();
                u.retry_at = std::chrono::steady_clock::now() + backoff;
                why = u.last_error;
            }
            c->close();
            say(u.cfg.name + ": down (" + why + "); restarting in " + std::to_string(backoff.count()) + " ms");
            // (the names stay: their calls now say that the server is down)
            std::unique_lock lock(mu_);
            u.cv.wait_for(lock, backoff, [&] { return stopping_; });
            backoff = std::min(backoff * 2, o_.restart_max);
        }
    }

    /// Recompute names and the toolbox (under mu_); true when the catalogue differs from before.
    bool rebuild_locked() {
        std::map<std::string, std::size_t> count;
        for (const auto& u : ups_)
            for (const auto& t : u->tools) ++count[local_tool_name(t.name)];
        runtime_toolbox box;
        local_names_.clear();
        owner_.clear();
        for (std::size_t i = 0; i < ups_.size(); ++i) {
            upstream& u = *ups_[i];
            for (const auto& t : u.tools) {
                std::string base = local_tool_name(t.name);
                if (count[base] > 1) {
                    std::string qualified = u.cfg.name;  // appends only: g++ 12 -O3 warns falsely (-Wrestrict) on "_" + s
                    qualified += '_';
                    qualified += t.name;
                    base = local_tool_name(qualified);
                }
                std::string name = base;
                for (int n = 2; box.contains(name); ++n) {
                    std::string suffix(1, '_');
                    suffix += std::to_string(n);
                    name = base.substr(0, 64 - suffix.size());
                    name += suffix;
                }
                runtime_tool rt;
                rt.info = t;
                rt.info.name = name;
                rt.info.traits = rt.info.traits | parallel_safe;  // servers run independently of each other
                rt.handler = [this, i, remote = t.name](const json& args, tool_context& ctx) { return call(i, remote, args, ctx); };
                local_names_[key(u.cfg.name, t.name)] = name;
                owner_[name] = u.cfg.name;
                (void)box.add(std::move(rt));
            }
        }
        std::string sig;
        for (const auto& t : box.infos()) sig += t.name + '\x1f' + t.description + '\x1f' + t.input_schema.dump() + '\x1e';
        box_ = std::move(box);
        if (sig == signature_) return false;
        signature_ = std::move(sig);
        ++version_;  // before anyone hears of the change (the log line, on_change)
        return true;
    }

    result<tool_output> call(std::size_t i, const std::string& remote, const json& args, tool_context& ctx) {
        std::shared_ptr<client> c;
        std::string why;
        std::chrono::steady_clock::time_point retry_at;
        {
            std::lock_guard lock(mu_);
            c = ups_[i]->c;
            why = ups_[i]->last_error;
            retry_at = ups_[i]->retry_at;
        }
        const std::string& name = ups_[i]->cfg.name;
        if (!c) {
            const auto in = std::chrono::duration_cast<std::chrono::seconds>(retry_at - std::chrono::steady_clock::now()).count();
            return fail(errc::transport_closed, "the MCP server \"" + name + "\" is unavailable: " + (why.empty() ? "it is starting" : why),
                        "It is restarted automatically" + (in > 0 ? " (next try in " + std::to_string(in) + " s)" : std::string()) +
                            "; try again later, or use another server's tools meanwhile.",
                        json{{"server", name}});
        }
        return ups_[i]->relay.run(ctx, [c, remote, args](tool_context& x) { return c->call_tool(remote, args, x); });
    }

    servers_config cfg_;
    transport_factory make_;
    gateway_options o_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    bool stopping_ = false;
    std::vector<std::unique_ptr<upstream>> ups_;
    runtime_toolbox box_;
    std::map<std::string, std::string> local_names_;
    std::map<std::string, std::string> owner_;
    std::string signature_;
    std::atomic<std::uint64_t> version_{0};
};

/// A backend serving a gateway through a masker made by `make(g)` (made again, and bound to the
/// new union, whenever the gateway's tools change: a menu gets its modes from the servers of the
/// moment). The masker is used under a lock; calls wait for their server without it.
template <class MakeMasker>
[[nodiscard]] backend gateway_backend(gateway& g, MakeMasker make) {
    using M = std::decay_t<decltype(make(g))>;
    static_assert(masker<M>, "agentkit: gateway_backend's factory must return a masker");
    struct shared {
        shared(gateway* gw, MakeMasker mk) : g(gw), make(std::move(mk)) {}
        gateway* g;
        MakeMasker make;
        std::mutex mu;
        std::optional<M> m;
        runtime_toolbox box;
        std::set<std::string, std::less<>> meta;
        std::uint64_t seen = ~std::uint64_t{0};
        std::uint64_t epoch = 0;
        void refresh() {  // under mu
            const std::uint64_t v = g->version();
            if (v == seen && m) return;
            seen = v;
            ++epoch;
            box = g->toolbox();
            m.emplace(make(*g));
            m->bind(box.infos());
            meta.clear();
            for (const auto& t : m->meta_tools()) meta.insert(t.name);
        }
    };
    auto s = std::make_shared<shared>(&g, std::move(make));
    backend b;
    b.list_tools = [s] {
        std::lock_guard lock(s->mu);
        s->refresh();
        std::vector<tool_info> out = served_meta_tools(*s->m);  // not complete, message_user: a session's
        for (const auto& t : s->box.infos())
            if (s->m->is_visible(t.name)) out.push_back(t);
        return out;
    };
    b.call_tool = [s](std::string_view name, const json& args, tool_context& ctx) -> result<tool_output> {
        masked_route route;
        runtime_toolbox box;
        {
            std::lock_guard lock(s->mu);
            s->refresh();
            if (session_only_tool(*s->m, name) && !s->box.find(name)) return fail(session_only_refusal(name));
            route = masked_call(*s->m, s->box, [&](std::string_view n) { return s->meta.count(n) != 0; }, name, args);
            box = s->box;
        }
        if (route.answer) {
            if (!*route.answer && route.answer->error().is(errc::tool_unknown)) {
                // The tool may be one of a server that is down (never up, it lists nothing): the
                // answer names those servers and why, as a tool error the model reads (a
                // tool.unknown would become a bare JSON-RPC "Unknown tool" error).
                if (const std::string down = s->g->unavailable_note(); !down.empty()) {
                    const error& e = route.answer->error();
                    json details = json::object();
                    details["tool"] = std::string(name);
                    if (e.details.is_object() && e.details.contains("candidates")) details["candidates"] = e.details["candidates"];
                    return fail(errc::transport_closed,
                                e.message + ", and these MCP servers are not available now (their tools are missing): " + down,
                                "If the tool is one of theirs, it comes back when the server does (the gateway retries; fix what "
                                "its error says). " + e.hint,
                                std::move(details));
                }
            }
            return std::move(*route.answer);
        }
        auto r = box.call_at(*route.index, args, ctx);
        std::lock_guard lock(s->mu);
        if (s->m) masked_observe(*s->m, name, args, r);
        return r;
    };
    b.parallel_safe = [](std::string_view) { return true; };
    // A relayed call that runs long becomes the gateway's task for a client that takes tasks
    // (its remote's own task is followed by the gateway's client meanwhile).
    b.task_support_of = [](std::string_view) { return task_support::optional; };
    b.version = [s] {
        std::lock_guard lock(s->mu);
        s->refresh();
        return (s->epoch << 32U) ^ static_cast<std::uint64_t>(s->m->version());
    };
    b.instructions = [s] {
        std::lock_guard lock(s->mu);
        s->refresh();
        return mcp_instructions_of(*s->m);
    };
    return b;
}

}  // namespace agentkit::mcp
