// agentkit-mcp-gateway: many MCP servers behind one, their tools masked.
//
//   agentkit-mcp-gateway --config servers.json [--mask menu|router|intent|frozen|none] [--port N]
//                        [--log-dir DIR] [--start-wait MS] [--call-timeout MS]
//
// Reads the `mcpServers` configuration (command/args/env/cwd, or url/headers), starts every
// server, and serves the union of their tools over stdio (default) or Streamable HTTP on
// 127.0.0.1 (--port; AGENTKIT_MCP_TOKEN sets a bearer token) through the masker --mask names:
//   menu    a mode per server: the model enters a server's mode to see its tools (default)
//   router  tool_search (hybrid: BM25F and character n-grams, plus an embedding model's vectors with
//           --embeddings-url/--embeddings-model or the "router" object's "embeddings"): the tools found
//           become visible; a server's keywords count as example requests of its tools, and so
//           do the configuration's "examples" per tool and what the router learns from usage (a
//           tool called after a tool_search that found it learns the query; the top-level
//           "router" object: "learn", "usage_file" to keep it across runs, "max_learned_per_tool")
//   intent  a class per server (its "keywords" from the configuration)
//   frozen  the configuration's "frozen" list; calls to the rest answer capability.unsupported
//   none    every tool
// stdout carries protocol messages only; the gateway's own lines and every server's stderr go to
// stderr / --log-dir (one <server>.stderr.log per server), never to stdout.
//
// A server's requests for input during a call (elicitation, sampling) are passed to the client
// whose call it is (gateway_options::relay_input; "relay_input": false in the configuration
// turns it off).
//
// An HTTP server whose entry has "oauth" is signed in to with OAuth 2.1 (mcp/http/oauth.hpp) when it
// answers 401: the gateway prints the sign-in URL on stderr, listens for the browser's return on
// 127.0.0.1 (mcp/http/oauth_loopback.hpp) and keeps the tokens and the client registration in
// --auth-dir (mcp/http/oauth_store.hpp: one 0600 <server>.oauth.json per server), so the next start
// needs no sign-in; until then the server's tools answer that it waits for a sign-in.
#include <agentkit/agentkit.hpp>

#if AGENTKIT_GATEWAY_HTTP
#include <agentkit/mcp/http/server.hpp>
#endif
#if AGENTKIT_GATEWAY_CURL
#include <agentkit/mcp/http/client.hpp>
#endif
#if AGENTKIT_GATEWAY_CURL && AGENTKIT_GATEWAY_HTTP
#define AGENTKIT_GATEWAY_OAUTH 1
#include <agentkit/mcp/http/oauth.hpp>
#include <agentkit/mcp/http/oauth_loopback.hpp>
#include <agentkit/mcp/http/oauth_store.hpp>
#else
#define AGENTKIT_GATEWAY_OAUTH 0
#endif

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ak = agentkit;
namespace mcp = agentkit::mcp;

namespace {

constexpr const char* usage =
    "usage: agentkit-mcp-gateway --config FILE [--mask menu|router|intent|frozen|none] [--port N] [--log-dir DIR] [--start-wait MS]\n"
    "                            [--call-timeout MS] [--auth-dir DIR] [--sign-in-wait MS]\n"
    "  --config FILE   servers in the mcpServers JSON format ({\"mcpServers\": {\"name\": {\"command\": ..., \"args\": [...]}}})\n"
    "  --mask MODE     how the union of tools is shown (default: menu)\n"
    "  --port N        serve Streamable HTTP on 127.0.0.1:N/mcp instead of stdio (AGENTKIT_MCP_TOKEN: bearer token)\n"
    "  --log-dir DIR   keep each server's stderr in DIR/<server>.stderr.log\n"
    "  --start-wait MS how long to wait for the servers before serving (default 10000; later ones join with list_changed)\n"
    "  --call-timeout MS how long a server may take to answer a call or a list (default 60000; then tool.timeout naming it)\n"
    "  --auth-dir DIR  where OAuth tokens of \"oauth\" servers are kept, one 0600 file each\n"
    "                  (default $XDG_STATE_HOME/agentkit-mcp-gateway, else ~/.local/state/agentkit-mcp-gateway)\n"
    "  --sign-in-wait MS how long a sign-in URL printed on stderr stays valid (default 300000)\n"
    "  --embeddings-url URL    with --mask router: fuse the vectors of an OpenAI-compatible embeddings API at URL\n"
    "                          (\"http://127.0.0.1:11434/v1\"; its key in $AGENTKIT_EMBEDDINGS_KEY, or the variable the\n"
    "                          configuration's router.embeddings.key_env names)\n"
    "  --embeddings-model NAME the embedding model's name (with --embeddings-url)\n";

struct flags {
    std::string config;
    std::string mask = "menu";
    int port = -1;
    std::string log_dir;
    long start_wait_ms = 10000;
    long call_timeout_ms = 60000;
    std::string auth_dir;
    long sign_in_wait_ms = 300000;
    std::string embeddings_url;
    std::string embeddings_model;
};

#if AGENTKIT_GATEWAY_OAUTH
/// One "oauth" server's sign-in: its token file, its redirect listener, its authorizer (made once:
/// reconnections keep the tokens), or why it could not be set up.
struct sign_in {
    std::unique_ptr<mcp::oauth_file_store> store;
    std::unique_ptr<mcp::oauth_loopback> back;
    std::shared_ptr<mcp::oauth_authorizer> auth;
    ak::error failure{ak::errc::internal, ""};
    bool ok = false;
};

/// The default --auth-dir: $XDG_STATE_HOME/agentkit-mcp-gateway, else ~/.local/state/...; "" when neither is set.
std::string default_auth_dir() {
    if (const char* x = std::getenv("XDG_STATE_HOME"); x != nullptr && *x == '/') return std::string(x) + "/agentkit-mcp-gateway";
    if (const char* h = std::getenv("HOME"); h != nullptr && *h == '/') return std::string(h) + "/.local/state/agentkit-mcp-gateway";
    return {};
}
#endif

int usage_error(const std::string& what) {
    std::fprintf(stderr, "agentkit-mcp-gateway: %s\n%s", what.c_str(), usage);
    return 2;
}

std::mutex log_mu;
void log_line(const std::string& s) {
    std::lock_guard lock(log_mu);
    std::fprintf(stderr, "agentkit-mcp-gateway: %s\n", s.c_str());
}

template <class MakeMasker>
int serve(mcp::gateway& g, MakeMasker make, const flags& f, std::atomic<mcp::server*>& current, const std::atomic<bool>* stop) {
    mcp::server_options so;
    so.name = "agentkit-mcp-gateway";
    mcp::server srv{mcp::gateway_backend(g, std::move(make)), so};
    current.store(&srv);
    int rc = 0;
    if (f.port >= 0) {
#if AGENTKIT_GATEWAY_HTTP
        mcp::http_options ho;
        ho.port = f.port;
        if (const char* token = std::getenv("AGENTKIT_MCP_TOKEN"); token != nullptr) ho.bearer_token = token;
        mcp::http_transport http{srv, ho};
        if (auto up = http.start(); !up) {
            log_line(up.error().message);
            current.store(nullptr);
            return 1;
        }
        log_line("serving " + http.url());
        rc = mcp::serve(http, stop);
#else
        (void)stop;
        log_line("--port needs a build with cpp-httplib (agentkit::net)");
        rc = 2;
#endif
    } else {
        rc = mcp::run_stdio(srv, 0, 1, stop);
    }
    current.store(nullptr);
    return rc;
}

}  // namespace

int main(int argc, char** argv) {
    flags f;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&](const char* name) -> const char* {
            if (i + 1 >= argc) return nullptr;
            (void)name;
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            std::fputs(usage, stderr);
            return 0;
        }
        const char* v = nullptr;
        if (a == "--config" && (v = value("--config"))) f.config = v;
        else if (a == "--mask" && (v = value("--mask"))) f.mask = v;
        else if (a == "--log-dir" && (v = value("--log-dir"))) f.log_dir = v;
        else if (a == "--start-wait" && (v = value("--start-wait"))) {
            char* end = nullptr;
            f.start_wait_ms = std::strtol(v, &end, 10);
            if (end == v || *end != '\0' || f.start_wait_ms < 0) return usage_error("--start-wait takes milliseconds");
        }
        else if (a == "--call-timeout" && (v = value("--call-timeout"))) {
            char* end = nullptr;
            f.call_timeout_ms = std::strtol(v, &end, 10);
            if (end == v || *end != '\0' || f.call_timeout_ms < 1) return usage_error("--call-timeout takes milliseconds");
        }
        else if (a == "--auth-dir" && (v = value("--auth-dir"))) f.auth_dir = v;
        else if (a == "--embeddings-url" && (v = value("--embeddings-url"))) f.embeddings_url = v;
        else if (a == "--embeddings-model" && (v = value("--embeddings-model"))) f.embeddings_model = v;
        else if (a == "--sign-in-wait" && (v = value("--sign-in-wait"))) {
            char* end = nullptr;
            f.sign_in_wait_ms = std::strtol(v, &end, 10);
            if (end == v || *end != '\0' || f.sign_in_wait_ms < 1000) return usage_error("--sign-in-wait takes milliseconds (at least 1000)");
        }
        else if (a == "--port" && (v = value("--port"))) {
            char* end = nullptr;
            const long p = std::strtol(v, &end, 10);
            if (end == v || *end != '\0' || p < 0 || p > 65535) return usage_error("--port takes a port number");
            f.port = static_cast<int>(p);
        } else return usage_error("unknown or incomplete argument \"" + std::string(a) + "\"");
    }
    if (f.config.empty()) return usage_error("--config FILE is required");
    if (f.mask != "menu" && f.mask != "router" && f.mask != "intent" && f.mask != "frozen" && f.mask != "none")
        return usage_error("--mask takes menu, router, intent, frozen or none");
    std::ifstream in(f.config);
    if (!in) return usage_error("cannot read " + f.config);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const ak::json j = ak::json::parse(text, nullptr, false);
    if (j.is_discarded()) return usage_error(f.config + " is not JSON");
    auto cfg = mcp::parse_servers_config(j);
    if (!cfg) return usage_error(cfg.error().message + (cfg.error().hint.empty() ? std::string() : "\n  " + cfg.error().hint));
    // --embeddings-url and --embeddings-model over the configuration's router.embeddings
    auto& emb = cfg->router.embeddings;
    if (!f.embeddings_url.empty()) emb.url = f.embeddings_url;
    if (!f.embeddings_model.empty()) emb.model = f.embeddings_model;
    if (emb.url.empty() != emb.model.empty())
        return usage_error("an embedding model needs both a URL and a name (--embeddings-url and --embeddings-model, or the configuration's "
                           "router.embeddings)");
    if (!emb.url.empty() && emb.url.rfind("http://", 0) != 0 && emb.url.rfind("https://", 0) != 0)
        return usage_error("--embeddings-url takes an http:// or https:// URL");
    if (!emb.url.empty() && f.mask != "router") log_line("an embedding model is configured; only --mask router uses it");
#if !AGENTKIT_GATEWAY_CURL
    if (!emb.url.empty()) return usage_error("an embedding model needs a build with libcurl (agentkit::curl)");
#endif

    const std::atomic<bool>* stop = mcp::stop_on_signals();
    std::atomic<mcp::server*> current{nullptr};
    mcp::gateway_options go;
    go.log = log_line;
    go.relay_input = cfg->relay_input;
    go.client.initialize_timeout = std::chrono::milliseconds(std::max(1000L, f.start_wait_ms));
    go.client.request_timeout = std::chrono::milliseconds(f.call_timeout_ms);
    go.on_change = [&current] {
        if (auto* s = current.load()) s->check_list_changed();
    };
    std::atomic<mcp::gateway*> gateway_ptr{nullptr};
#if AGENTKIT_GATEWAY_OAUTH
    std::map<std::string, sign_in> sign_ins;
    const std::string auth_dir = f.auth_dir.empty() ? default_auth_dir() : f.auth_dir;
    go.sign_in_wait = std::chrono::milliseconds(f.sign_in_wait_ms);
    for (const auto& u : cfg->servers) {
        if (!u.oauth || u.disabled) continue;
        sign_in& si = sign_ins[u.name];
        const auto& a = *u.oauth;
        if (!auth_dir.empty())
            si.store = std::make_unique<mcp::oauth_file_store>(auth_dir + "/" + mcp::local_tool_name(u.name) + ".oauth.json");
        else
            log_line(u.name + ": no --auth-dir and neither XDG_STATE_HOME nor HOME is set: its tokens are kept in memory only");
        if (si.store)
            if (auto loaded = si.store->load(); !loaded) log_line(u.name + ": " + loaded.error().message);
        // a sign-in (not for client credentials): the redirect port configured, else the one of
        // the last sign-in (its registration names it), else any
        int port = a.redirect_port;
        if (port == 0 && si.store)
            if (auto last = ak::parse_url(si.store->redirect_uri()); last && last->explicit_port) port = last->port;
        if (!a.client_credentials) {
            mcp::oauth_loopback_options lo;
            lo.port = port;
            lo.wait = std::chrono::milliseconds(f.sign_in_wait_ms);
            si.back = std::make_unique<mcp::oauth_loopback>(lo);
            if (auto up = si.back->start(); !up && a.redirect_port == 0 && port != 0) {
                lo.port = 0;  // the last sign-in's port is taken now: any other (the client registers again)
                si.back = std::make_unique<mcp::oauth_loopback>(lo);
                up = si.back->start();
            }
            if (si.back->port() <= 0) {
                si.failure = ak::error(ak::errc::transport_io, "cannot listen on 127.0.0.1:" + std::to_string(port) + " for the sign-in redirect of \"" + u.name + "\"",
                                       "Free that port or set another \"redirect_port\" in the server's \"oauth\" entry (0: any).");
                log_line(si.failure.to_text());
                continue;
            }
        }
        mcp::oauth_options oo;
        if (si.back) oo.redirect_uri = si.back->redirect_uri();
        oo.client_name = "agentkit-mcp-gateway";
        oo.client_id = a.client_id;
        oo.client_metadata_url = a.client_metadata_url;
        oo.scopes = a.scopes;
        if (!a.client_secret_env.empty()) {
            const char* secret = std::getenv(a.client_secret_env.c_str());
            if (secret == nullptr || *secret == '\0') {
                si.failure = ak::error(ak::errc::auth_required, "the client secret of \"" + u.name + "\" is in " + a.client_secret_env + ", which is not set",
                                       "Set " + a.client_secret_env + " in the gateway's environment, or remove \"client_secret_env\" for a public client.");
                log_line(si.failure.to_text());
                continue;
            }
            oo.client_secret = secret;
        }
        if (!a.private_key_file.empty()) {
            std::ifstream key(a.private_key_file);
            oo.private_key_pem.assign(std::istreambuf_iterator<char>(key), std::istreambuf_iterator<char>());
            if (!key || oo.private_key_pem.empty()) {
                si.failure = ak::error(ak::errc::auth_required, "cannot read the private key of \"" + u.name + "\" from " + a.private_key_file,
                                       "Check the path in \"private_key_file\" and that this user can read it.");
                log_line(si.failure.to_text());
                continue;
            }
            oo.signing_algorithm = a.signing_algorithm;
        }
        oo.client_credentials = a.client_credentials;
        if (!a.workload_token_file.empty())  // read at each exchange: platforms rotate these files
            oo.jwt_assertion = [file = a.workload_token_file, name = u.name](const mcp::jwt_bearer_context&) -> ak::result<std::string> {
                std::ifstream token_file(file);
                std::string jwt((std::istreambuf_iterator<char>(token_file)), std::istreambuf_iterator<char>());
                while (!jwt.empty() && (jwt.back() == '\n' || jwt.back() == '\r' || jwt.back() == ' ')) jwt.pop_back();
                if (!token_file && jwt.empty())
                    return ak::fail(ak::errc::not_found, "cannot read the workload token of \"" + name + "\" from " + file,
                                    "Check the path in \"workload_token_file\" and that this user can read it.");
                return jwt;
            };
        const std::string name = u.name;
        const long wait_s = f.sign_in_wait_ms / 1000;
        if (si.back)
            oo.authorize = si.back->authorize([name, wait_s, &gateway_ptr](const std::string& url) {
                log_line(name + ": sign-in needed: open this URL in a browser within " + std::to_string(wait_s) + " s: " + url);
                if (auto* gw = gateway_ptr.load())
                    gw->note(name, "waiting for a person to sign in (the gateway printed the sign-in URL on its stderr); its tools "
                                   "appear once they have");
            });
        if (si.store) si.store->attach(oo);
        si.auth = std::make_shared<mcp::oauth_authorizer>(std::move(oo));
        si.ok = true;
    }
    go.on_stop = [&sign_ins] {
        for (auto& [name, si] : sign_ins)
            if (si.back) si.back->cancel();
    };
#endif
    auto stdio = mcp::stdio_transports(f.log_dir);
    mcp::transport_factory make = [&](const mcp::upstream_config& u) -> ak::result<std::unique_ptr<mcp::client_transport>> {
#if AGENTKIT_GATEWAY_CURL
        if (!u.url.empty()) {
            mcp::http_server_endpoint ep;
            ep.url = u.url;
            ep.headers = u.headers;
            if (u.oauth) {
#if AGENTKIT_GATEWAY_OAUTH
                const sign_in& si = sign_ins.at(u.name);
                if (!si.ok) return ak::fail(si.failure);
                ep.authorizer = si.auth;
#else
                return ak::fail(ak::errc::capability_unsupported, "server \"" + u.name + "\" asks for OAuth and this gateway was built without it",
                                "Build with libcurl and cpp-httplib (agentkit::curl, agentkit::net), or give a token in its \"headers\".");
#endif
            }
            return std::unique_ptr<mcp::client_transport>(std::make_unique<mcp::http_client_transport>(std::move(ep)));
        }
#endif
        return stdio(u);
    };
    mcp::gateway g{*cfg, make, go};
    gateway_ptr.store(&g);
    g.start(std::chrono::milliseconds(f.start_wait_ms));

    if (f.mask == "none") return serve(g, [](const mcp::gateway&) { return ak::all_visible{}; }, f, current, stop);
    if (f.mask == "router") {
        // What the router learns outlives each router: the gateway makes a new one whenever the
        // servers' tools change, and it starts from this log (and from the file, across runs).
        ak::usage_log_options uo;
        uo.file = cfg->router.usage_file;
        uo.max_per_tool = cfg->router.max_learned_per_tool;
        auto usage_history = std::make_shared<ak::usage_log>(uo);
        if (auto loaded = usage_history->load(); !loaded) log_line(loaded.error().message + ". " + loaded.error().hint);
        const ak::mcp::router_settings rs = cfg->router;
        // What the router knows of a catalogue beyond the tools' own texts: a server's configured keywords
        // count as an example request of each of its tools, and so do the configuration's "examples" and
        // what was learned from usage. (A server's description counted too until issue 46: it helped the
        // task set it was chosen on and lost on task sets written later; bench/README.md.)
        auto options_for = [usage_history, rs](const mcp::gateway& gw) {
            ak::router_options o;
            for (auto& [server, names] : gw.tools_by_server()) {
                std::string what;
                for (const auto& k : gw.config().servers)
                    if (k.name == server)
                        for (const auto& w : k.keywords) what += (what.empty() ? "" : " ") + w;
                if (!what.empty())
                    for (const auto& n : names) o.examples[n].push_back(what);
            }
            for (const auto& u : gw.config().servers)
                for (const auto& [tool, requests] : u.examples)
                    if (const std::string n = gw.local_name(u.name, tool); !n.empty())
                        o.examples[n].insert(o.examples[n].end(), requests.begin(), requests.end());
            for (auto& [tool, queries] : usage_history->examples())
                o.examples[tool].insert(o.examples[tool].end(), queries.begin(), queries.end());
            o.learn_from_calls = rs.learn;
            o.max_learned_per_tool = rs.max_learned_per_tool;
            o.on_learn = [usage_history](const std::string& tool, const std::string& query) {
                if (auto added = usage_history->add(tool, query); !added) log_line(added.error().message);
            };
            return o;
        };
#if AGENTKIT_GATEWAY_CURL
        if (!rs.embeddings.url.empty()) {
            // An embedding model's vectors fused with the word ranking (visibility/embedding_endpoint.hpp):
            // by words alone while the endpoint is slow, down or answers garbage, said once in the log.
            const auto& es = rs.embeddings;
            ak::embedding_endpoint_options eo;
            eo.base_url = es.url;
            eo.model = es.model;
            eo.api_key_env = es.key_env;
            eo.dimensions = es.dimensions;
            eo.document_prefix = es.document_prefix;
            eo.query_prefix = es.query_prefix;
            eo.cache_dir = es.cache_dir;
            eo.query_timeout = std::chrono::milliseconds(es.query_timeout_ms);
            eo.on_log = [](std::string_view line) { log_line(std::string(line)); };
            using endpoint = ak::embedding_endpoint<ak::net::http_client>;
            const endpoint model(std::make_shared<ak::net::http_client>(), std::move(eo));
            if (!model.cache().problem().empty()) log_line(model.cache().problem());
            // The model's vectors stacked with the character n-grams' (blended_embedder), fused with BM25F:
            // when the model cannot embed a search request, it ranks as without a model.
            using blend = ak::blended_embedder<ak::hashed_ngram_embedder, endpoint>;
            const blend vectors({}, model, static_cast<float>(es.model_share));
            return serve(g, [options_for, vectors, es](const mcp::gateway& gw) {
                ak::router_options o = options_for(gw);
                o.retrieval.fusion = es.fusion == "weighted" ? ak::fusion_kind::weighted : ak::fusion_kind::rrf;
                if (es.fusion == "weighted") o.retrieval.dense_weight = static_cast<float>(es.dense_weight);
                else o.retrieval.dense_weight_rrf = static_cast<float>(es.dense_weight);
                o.vectors_wait = std::chrono::milliseconds(es.wait_ms);
                return ak::router<blend>{std::move(o), vectors};
            }, f, current, stop);
        }
#endif
        return serve(g, [options_for](const mcp::gateway& gw) {
            // Hybrid retrieval: BM25F fused with hashed character n-grams (no model).
            return ak::router<ak::hashed_ngram_embedder>{options_for(gw), {}};
        }, f, current, stop);
    }
    if (f.mask == "frozen")
        return serve(g, [](const mcp::gateway& gw) {
            std::vector<ak::deferred_tool> deferred;
            const auto& exposed = gw.config().frozen;
            for (const auto& t : gw.toolbox().infos())
                if (std::find(exposed.begin(), exposed.end(), t.name) == exposed.end()) {
                    ak::deferred_tool d;
                    d.name = t.name;
                    d.reason = "this gateway exposes a frozen set of tools, and this one is not in it";
                    d.alternative = "one of the listed tools";
                    deferred.push_back(std::move(d));
                }
            return ak::frozen_scope(exposed, std::move(deferred));
        }, f, current, stop);
    if (f.mask == "intent")
        return serve(g, [](const mcp::gateway& gw) {
            std::vector<ak::intent_class> classes;
            for (auto& [server, names] : gw.tools_by_server()) {
                if (names.empty()) continue;
                ak::intent_class c;
                c.name = server;
                c.description = gw.description_of(server);
                c.tools = names;
                for (const auto& k : gw.config().servers)
                    if (k.name == server)
                        for (const auto& w : k.keywords) c.keywords.push_back({w, 1.0});
                c.keywords.push_back({server, 1.0});
                classes.push_back(std::move(c));
            }
            return ak::intent_classes<>(std::move(classes));
        }, f, current, stop);
    return serve(g, [](const mcp::gateway& gw) {
        std::vector<ak::menu_mode> modes;
        for (auto& [server, names] : gw.tools_by_server()) {
            if (names.empty()) continue;
            ak::menu_mode m;
            m.name = ak::mcp::local_tool_name(server);
            m.description = gw.description_of(server);  // the prompt's intent line too (no intent of its own)
            m.tools = names;
            modes.push_back(std::move(m));
        }
        return ak::menu_runtime(std::move(modes), {}, "", {});
    }, f, current, stop);
}
