// MCP's OAuth 2.1 for mcp::client (mcp/http/oauth.hpp): PKCE, the discovery orders, WWW-Authenticate,
// and the whole flow against a fake authorization server and MCP endpoint on 127.0.0.1
// (registration, authorization through the host's callback, token, refresh, scope step-up), each
// failure with its reason, and no token, code or secret in any message. Also what a host keeps
// between runs (mcp/http/oauth_store.hpp), the loopback redirect (mcp/http/oauth_loopback.hpp) and the
// gateway's "oauth" configuration entries.
#include <agentkit/agentkit.hpp>
#include <agentkit/net/http_server.hpp>
#include <agentkit/mcp/http/client.hpp>
#include <agentkit/mcp/http/oauth.hpp>
#include <agentkit/mcp/http/oauth_loopback.hpp>
#include <agentkit/mcp/http/oauth_store.hpp>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace ak = agentkit;
namespace mcp = agentkit::mcp;
namespace net = agentkit::net;
using ak::json;

namespace {

/// An authorization server and an MCP endpoint that needs its tokens, on one loopback server.
/// Every knob is read per request, so a test sets them before the client asks.
struct fake_world {
    net::http_server site;
    std::mutex mu;
    std::vector<std::string> seen;  // "GET /path", in order
    // protected resource metadata
    bool prm_at_path = true;
    bool prm_at_root = false;
    std::string prm_resource;  // "" = the endpoint
    json prm_scopes;           // scopes_supported (null: none)
    std::string challenge_scope;
    // authorization server
    std::string issuer_path;       // "" or "/tenant"
    bool openid_only = false;      // metadata only at <path>/.well-known/openid-configuration
    std::string metadata_issuer;   // "" = the right one
    bool s256 = true;
    bool registration = true;
    bool iss_supported = true;
    bool cimd = false;  // client_id_metadata_document_supported
    json auth_methods = json::array({"none"});
    std::string iss_mode = "correct";  // correct, wrong, omit
    bool wrong_state = false;
    bool deny = false;
    bool refuse_tokens = false;
    json grant_types;  // grant_types_supported (null: not listed)
    std::string workload_jwt;  // the jwt-bearer assertion the token endpoint takes
    // what it saw and issued
    std::vector<json> registrations;
    std::vector<std::multimap<std::string, std::string>> authorizations;  // the authorization URL's parameters
    std::vector<std::multimap<std::string, std::string>> token_requests;
    std::vector<std::string> token_auth_headers;
    std::vector<std::multimap<std::string, std::string>> idp_requests;  // token exchanges at /idp/token
    std::map<std::string, std::string> access;   // access token → scope
    std::map<std::string, std::string> refresh;  // refresh token → scope
    std::string challenge;                       // the code challenge of the pending code
    std::string pending_scope;
    std::string write_scope;  // tools/call needs it when set
    bool never_enough = false;  // tools/call answers insufficient_scope whatever the token
    int expires_in = 3600;      // what the token answers say
    int refusals = 0;           // 401s the MCP endpoint answered
    int counter = 0;

    fake_world() {
        auto logged = [this](std::function<net::http_response(const net::http_request&)> h) {
            return [this, h](const net::http_request& r) {
                {
                    std::lock_guard lock(mu);
                    seen.push_back(r.method + " " + r.path);
                }
                return h(r);
            };
        };
        site.route("/mcp", logged([this](const net::http_request& r) { return mcp_endpoint(r); }));
        site.route("/.well-known/oauth-protected-resource/mcp", logged([this](const net::http_request&) { return prm(prm_at_path); }));
        site.route("/.well-known/oauth-protected-resource", logged([this](const net::http_request&) { return prm(prm_at_root); }));
        for (const char* p : {"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration",
                              "/.well-known/oauth-authorization-server/tenant", "/.well-known/openid-configuration/tenant",
                              "/tenant/.well-known/openid-configuration"}) {
            const std::string path = p;
            site.route(path, logged([this, path](const net::http_request&) { return as_metadata(path); }));
        }
        site.route("/register", logged([this](const net::http_request& r) {
                       std::lock_guard lock(mu);
                       registrations.push_back(json::parse(r.body, nullptr, false));
                       json out{{"client_id", "client-" + std::to_string(++counter)}};
                       if (auth_methods[0] != "none") out["client_secret"] = "s3cret-" + std::to_string(counter);
                       out["token_endpoint_auth_method"] = auth_methods[0];
                       return net::http_response::json_text(out.dump(), 201);
                   }));
        site.route("/token", logged([this](const net::http_request& r) { return token(r); }));
        // an enterprise identity provider: the user's ID token for an ID-JAG (RFC 8693)
        site.route("/idp/token", logged([this](const net::http_request& r) {
                       std::lock_guard lock(mu);
                       auto f = mcp::detail::query_params(r.body);
                       idp_requests.push_back(f);
                       auto get = [&](const char* k) { return f.count(k) != 0 ? f.find(k)->second : std::string(); };
                       if (get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" || get("subject_token") != "id-token-of-ada" ||
                           get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" ||
                           get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag")
                           return net::http_response::json_text(R"({"error":"invalid_grant"})", 400);
                       return net::http_response::json_text(json{{"access_token", "id-jag:" + get("audience") + "|" + get("resource")},
                                                                 {"issued_token_type", "urn:ietf:params:oauth:token-type:id-jag"},
                                                                 {"token_type", "N_A"}}
                                                                .dump());
                   }));
        EXPECT_TRUE(site.start());
    }

    std::string origin() const { return site.url(""); }
    std::string endpoint() const { return site.url("/mcp"); }
    std::string issuer() { return metadata_issuer.empty() ? origin() + issuer_path : metadata_issuer; }

    std::vector<std::string> requests() {
        std::lock_guard lock(mu);
        return seen;
    }

    net::http_response prm(bool served) {
        std::lock_guard lock(mu);
        if (!served) return net::http_response::json_text(R"({"error":"not_found"})", 404);
        json j{{"resource", prm_resource.empty() ? endpoint() : prm_resource}, {"authorization_servers", json::array({origin() + issuer_path})}};
        if (!prm_scopes.is_null()) j["scopes_supported"] = prm_scopes;
        return net::http_response::json_text(j.dump());
    }

    net::http_response as_metadata(const std::string& path) {
        std::lock_guard lock(mu);
        const std::string want = issuer_path.empty() ? (openid_only ? "/.well-known/openid-configuration" : "/.well-known/oauth-authorization-server")
                                 : openid_only      ? "/tenant/.well-known/openid-configuration"
                                                    : "/.well-known/oauth-authorization-server/tenant";
        if (path != want) return net::http_response::json_text("{}", 404);
        json j{{"issuer", metadata_issuer.empty() ? origin() + issuer_path : metadata_issuer},
               {"authorization_endpoint", origin() + "/authorize"},
               {"token_endpoint", origin() + "/token"},
               {"response_types_supported", json::array({"code"})},
               {"token_endpoint_auth_methods_supported", auth_methods},
               {"scopes_supported", json::array({"read", "write", "offline_access"})}};
        if (s256) j["code_challenge_methods_supported"] = json::array({"S256"});
        if (registration) j["registration_endpoint"] = origin() + "/register";
        if (iss_supported) j["authorization_response_iss_parameter_supported"] = true;
        if (cimd) j["client_id_metadata_document_supported"] = true;
        if (!grant_types.is_null()) j["grant_types_supported"] = grant_types;
        return net::http_response::json_text(j.dump());
    }

    /// The user agent and the user: approve (or not) and come back to the redirect URI.
    ak::result<std::string> authorize(const std::string& url) {
        std::lock_guard lock(mu);
        const auto u = ak::parse_url(url);
        auto params = mcp::detail::query_params(u->query);
        authorizations.push_back(params);
        const std::string redirect = params.find("redirect_uri")->second;
        if (deny) return redirect + "?error=access_denied&error_description=no+thanks";
        challenge = params.find("code_challenge")->second;
        pending_scope = params.count("scope") != 0 ? params.find("scope")->second : "";
        std::string back = redirect + "?code=the-code-" + std::to_string(authorizations.size()) + "&state=" +
                           (wrong_state ? std::string("forged") : net::form_encode(params.find("state")->second));
        if (iss_mode == "correct") back += "&iss=" + net::form_encode(issuer());
        else if (iss_mode == "wrong") back += "&iss=" + net::form_encode("https://evil.example.com");
        return back;
    }

    net::http_response token(const net::http_request& r) {
        std::lock_guard lock(mu);
        auto f = mcp::detail::query_params(r.body);
        token_requests.push_back(f);
        token_auth_headers.push_back(r.header("Authorization"));
        auto get = [&](const char* k) { return f.count(k) != 0 ? f.find(k)->second : std::string(); };
        if (refuse_tokens) return net::http_response::json_text(R"({"error":"invalid_grant","error_description":"code expired"})", 400);
        std::string scope;
        if (get("grant_type") == "authorization_code") {
            if (mcp::pkce_challenge(get("code_verifier")) != challenge) return net::http_response::json_text(R"({"error":"invalid_grant"})", 400);
            scope = pending_scope;
        } else if (get("grant_type") == "client_credentials") {
            scope = get("scope");
        } else if (get("grant_type") == "urn:ietf:params:oauth:grant-type:jwt-bearer") {
            if (get("assertion") != workload_jwt)
                return net::http_response::json_text(R"({"error":"invalid_grant","error_description":"the assertion is not trusted"})", 400);
            scope = get("scope");
        } else if (get("grant_type") == "refresh_token") {
            auto it = refresh.find(get("refresh_token"));
            if (it == refresh.end()) return net::http_response::json_text(R"({"error":"invalid_grant"})", 400);
            scope = it->second;
        } else {
            return net::http_response::json_text(R"({"error":"unsupported_grant_type"})", 400);
        }
        const std::string at = "access-token-" + std::to_string(++counter);
        const std::string rt = "refresh-token-" + std::to_string(counter);
        access[at] = scope;
        refresh[rt] = scope;
        return net::http_response::json_text(
            json{{"access_token", at}, {"token_type", "Bearer"}, {"expires_in", expires_in}, {"refresh_token", rt}, {"scope", scope}}.dump());
    }

    net::http_response mcp_endpoint(const net::http_request& r) {
        if (r.method != "POST") return net::http_response::text("", 405);
        std::string scope;
        {
            std::lock_guard lock(mu);
            const std::string a = r.header("Authorization");
            auto it = a.rfind("Bearer ", 0) == 0 ? access.find(a.substr(7)) : access.end();
            if (it == access.end()) {
                ++refusals;
                net::http_response out = net::http_response::json_text(R"({"error":"invalid_token"})", 401);
                out.headers.emplace_back("WWW-Authenticate", "Bearer error=\"invalid_token\", resource_metadata=\"" + origin() +
                                                                 "/.well-known/oauth-protected-resource/mcp\"" +
                                                                 (challenge_scope.empty() ? "" : ", scope=\"" + challenge_scope + "\""));
                return out;
            }
            scope = it->second;
        }
        const json m = json::parse(r.body, nullptr, false);
        const std::string method = m.value("method", "");
        if (!m.contains("id")) return net::http_response::text("", 202);
        const auto granted = mcp::detail::split_scopes(scope);
        if (method == "tools/call" && (never_enough || (!write_scope.empty() && std::find(granted.begin(), granted.end(), write_scope) == granted.end()))) {
            net::http_response out = net::http_response::json_text(R"({"error":"insufficient_scope"})", 403);
            out.headers.emplace_back("WWW-Authenticate", "Bearer error=\"insufficient_scope\", scope=\"" + (write_scope.empty() ? scope : write_scope) + "\"");
            return out;
        }
        json result;
        if (method == "initialize")
            result = {{"protocolVersion", "2025-11-25"}, {"capabilities", {{"tools", json::object()}}}, {"serverInfo", {{"name", "fake"}, {"version", "1"}}}};
        else if (method == "tools/list")
            result = {{"tools", json::array({{{"name", "echo"}, {"inputSchema", {{"type", "object"}}}}})}};
        else if (method == "tools/call")
            result = {{"content", json::array({{{"type", "text"}, {"text", "ok"}}})}};
        else
            result = json::object();
        return net::http_response::json_text(json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", result}}.dump());
    }
};

mcp::oauth_options options_for(fake_world& w) {
    mcp::oauth_options o;
    o.redirect_uri = "http://127.0.0.1:9/callback";
    o.authorize = [&w](const std::string& url) { return w.authorize(url); };
    return o;
}

/// Connect mcp::client to the world's endpoint through `a`.
ak::result<std::unique_ptr<mcp::client>> connect(fake_world& w, std::shared_ptr<mcp::oauth_authorizer> a) {
    mcp::http_server_endpoint ep;
    ep.url = w.endpoint();
    ep.listen = false;
    ep.authorizer = std::move(a);
    mcp::client_options co;
    co.server_name = "fake";
    return mcp::client::connect(std::make_unique<mcp::http_client_transport>(ep), co);
}

std::string param(const std::multimap<std::string, std::string>& m, const char* k) {
    auto it = m.find(k);
    return it == m.end() ? std::string("(absent)") : it->second;
}

/// What a refusal without a token leads to, straight through the authorizer.
ak::error refusal_error(fake_world& w, mcp::oauth_options o) {
    mcp::oauth_authorizer a(std::move(o));
    auto r = a.refused(w.endpoint(), 401, "Bearer", "");
    EXPECT_FALSE(r);
    return r ? ak::error(ak::errc::internal, "passed") : r.error();
}

}  // namespace

TEST(OAuthPieces, PkceChallengeIsBase64UrlOfSha256) {
    // base64url(SHA-256("abc")), computed independently.
    EXPECT_EQ(mcp::pkce_challenge("abc"), "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
    EXPECT_EQ(mcp::pkce_challenge("test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"), "nw4Cig7sk_DT0QSX9Qn-3UKs33fmbbp8bRuv1b5-wXw");
    std::set<std::string> verifiers;
    for (int i = 0; i < 20; ++i) {
        const std::string v = mcp::pkce_verifier();
        ASSERT_EQ(v.size(), 43u);  // 32 random bytes
        for (char c : v) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') << v;
        verifiers.insert(v);
    }
    EXPECT_EQ(verifiers.size(), 20u);
}

TEST(OAuthPieces, MetadataLocationsInTheSpecificationsOrder) {
    EXPECT_EQ(mcp::authorization_server_metadata_urls("https://auth.example.com"),
              (std::vector<std::string>{"https://auth.example.com/.well-known/oauth-authorization-server",
                                        "https://auth.example.com/.well-known/openid-configuration"}));
    EXPECT_EQ(mcp::authorization_server_metadata_urls("https://auth.example.com/tenant1/"),
              (std::vector<std::string>{"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                                        "https://auth.example.com/.well-known/openid-configuration/tenant1",
                                        "https://auth.example.com/tenant1/.well-known/openid-configuration"}));
    EXPECT_TRUE(mcp::authorization_server_metadata_urls("ftp://x").empty());
    EXPECT_EQ(mcp::protected_resource_metadata_urls("https://mcp.example.com:8443/public/mcp"),
              (std::vector<std::string>{"https://mcp.example.com:8443/.well-known/oauth-protected-resource/public/mcp",
                                        "https://mcp.example.com:8443/.well-known/oauth-protected-resource"}));
    EXPECT_EQ(mcp::protected_resource_metadata_urls("https://mcp.example.com/", "https://mcp.example.com/custom.json"),
              (std::vector<std::string>{"https://mcp.example.com/custom.json", "https://mcp.example.com/.well-known/oauth-protected-resource"}));
}

TEST(OAuthPieces, BearerChallengeAndResourceMatching) {
    auto c = mcp::parse_bearer_challenge(
        R"(Basic realm="x", Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://h/.well-known/oauth-protected-resource", error_description="needs \"write\"")");
    EXPECT_EQ(c["error"], "insufficient_scope");
    EXPECT_EQ(c["scope"], "files:read files:write");
    EXPECT_EQ(c["resource_metadata"], "https://h/.well-known/oauth-protected-resource");
    EXPECT_EQ(c["error_description"], "needs \"write\"");
    EXPECT_FALSE(c.contains("realm"));  // Basic's, not Bearer's
    EXPECT_TRUE(mcp::parse_bearer_challenge("Basic realm=\"x\"").empty());
    EXPECT_EQ(mcp::parse_bearer_challenge("bearer scope=a").at("scope"), "a");

    EXPECT_TRUE(mcp::resource_covers("https://h.example.com", "https://h.example.com/mcp"));
    EXPECT_TRUE(mcp::resource_covers("https://h.example.com/mcp", "https://h.example.com/mcp"));
    EXPECT_TRUE(mcp::resource_covers("https://h.example.com/api/", "https://h.example.com/api/mcp"));
    EXPECT_FALSE(mcp::resource_covers("https://h.example.com/mc", "https://h.example.com/mcp"));
    EXPECT_FALSE(mcp::resource_covers("https://evil.example.com/mcp", "https://h.example.com/mcp"));
    EXPECT_FALSE(mcp::resource_covers("http://h.example.com/mcp", "https://h.example.com/mcp"));
    EXPECT_FALSE(mcp::resource_covers("https://h.example.com:8443/mcp", "https://h.example.com/mcp"));
}

TEST(OAuthFlow, DiscoversRegistersAuthorizesAndCalls) {
    fake_world w;
    w.prm_scopes = json::array({"read"});
    std::vector<mcp::oauth_tokens> saved;
    auto o = options_for(w);
    o.on_tokens = [&](const mcp::oauth_tokens& t) { saved.push_back(t); };
    auto a = std::make_shared<mcp::oauth_authorizer>(o);
    auto c = connect(w, a);
    ASSERT_TRUE(c) << c.error().to_text();
    auto tools = (*c)->list_tools();
    ASSERT_TRUE(tools) << tools.error().to_text();
    auto r = (*c)->call_tool("echo", json::object());
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(r->joined_text(), "ok");
    (*c)->close();

    const auto seen = w.requests();
    ASSERT_GE(seen.size(), 6u);
    EXPECT_EQ(seen[0], "POST /mcp");  // refused: no token
    EXPECT_EQ(seen[1], "GET /.well-known/oauth-protected-resource/mcp");  // from resource_metadata
    EXPECT_EQ(seen[2], "GET /.well-known/oauth-authorization-server");
    EXPECT_EQ(seen[3], "POST /register");
    EXPECT_EQ(seen[4], "POST /token");
    EXPECT_EQ(seen[5], "POST /mcp");  // initialize again, with the token
    ASSERT_EQ(w.registrations.size(), 1u);
    EXPECT_EQ(w.registrations[0]["application_type"], "native");
    EXPECT_EQ(w.registrations[0]["redirect_uris"], json::array({"http://127.0.0.1:9/callback"}));
    EXPECT_EQ(w.registrations[0]["grant_types"], json::array({"authorization_code", "refresh_token"}));
    EXPECT_EQ(w.registrations[0]["token_endpoint_auth_method"], "none");
    ASSERT_EQ(w.authorizations.size(), 1u);
    const auto& q = w.authorizations[0];
    EXPECT_EQ(param(q, "response_type"), "code");
    EXPECT_EQ(param(q, "client_id"), "client-1");
    EXPECT_EQ(param(q, "code_challenge_method"), "S256");
    EXPECT_EQ(param(q, "resource"), w.endpoint());  // exactly as the metadata gives it
    EXPECT_EQ(param(q, "scope"), "read offline_access");  // scopes_supported, and a refresh token
    ASSERT_EQ(w.token_requests.size(), 1u);
    EXPECT_EQ(param(w.token_requests[0], "grant_type"), "authorization_code");
    EXPECT_EQ(param(w.token_requests[0], "resource"), w.endpoint());
    EXPECT_EQ(param(w.token_requests[0], "redirect_uri"), "http://127.0.0.1:9/callback");
    EXPECT_EQ(param(w.token_requests[0], "client_id"), "client-1");
    ASSERT_EQ(saved.size(), 1u);
    EXPECT_EQ(saved[0].issuer, w.origin());
    EXPECT_EQ(saved[0].resource, w.endpoint());
    EXPECT_FALSE(saved[0].refresh_token.empty());
    EXPECT_TRUE(saved[0].expires_at.has_value());
    EXPECT_EQ(a->authorizations(), 1);
}

TEST(OAuthFlow, RefreshesARejectedTokenWithoutAskingTheUser) {
    fake_world w;
    auto a = std::make_shared<mcp::oauth_authorizer>(options_for(w));
    auto c = connect(w, a);
    ASSERT_TRUE(c) << c.error().to_text();
    const std::string first = a->tokens().access_token;
    {
        std::lock_guard lock(w.mu);
        w.access.clear();  // the server stops taking the token (it expired)
    }
    auto tools = (*c)->list_tools();
    ASSERT_TRUE(tools) << tools.error().to_text();
    EXPECT_EQ(a->authorizations(), 1);  // the user was asked once
    EXPECT_NE(a->tokens().access_token, first);
    ASSERT_EQ(w.token_requests.size(), 2u);
    EXPECT_EQ(param(w.token_requests[1], "grant_type"), "refresh_token");
    EXPECT_EQ(param(w.token_requests[1], "resource"), w.endpoint());
    (*c)->close();
}

TEST(OAuthFlow, ATokenAboutToExpireIsRefreshedBeforeTheRequestNotAfterA401) {
    fake_world w;
    w.expires_in = 10;  // inside refresh_ahead (30 s): every token is about to expire
    auto a = std::make_shared<mcp::oauth_authorizer>(options_for(w));
    auto c = connect(w, a);
    ASSERT_TRUE(c) << c.error().to_text();
    const int refusals_after_sign_in = w.refusals;  // the first request had no token
    const std::string first = a->tokens().access_token;
    auto tools = (*c)->list_tools();
    ASSERT_TRUE(tools) << tools.error().to_text();
    EXPECT_EQ(w.refusals, refusals_after_sign_in);  // no 401 round trip
    EXPECT_NE(a->tokens().access_token, first);
    EXPECT_EQ(param(w.token_requests.at(1), "grant_type"), "refresh_token");
    EXPECT_EQ(a->authorizations(), 1);
    // a token with time left is sent as it is
    {
        std::lock_guard lock(w.mu);
        w.expires_in = 3600;
    }
    const auto before = w.token_requests.size();
    ASSERT_TRUE((*c)->list_tools());  // refreshes the 10 s token once more, now to a 3600 s one
    ASSERT_TRUE((*c)->list_tools());
    EXPECT_EQ(w.token_requests.size(), before + 1);
    (*c)->close();
}

TEST(OAuthFlow, StepUpAsksForTheChallengedScopeWithTheEarlierOnes) {
    fake_world w;
    w.challenge_scope = "read";
    w.write_scope = "write";
    auto a = std::make_shared<mcp::oauth_authorizer>(options_for(w));
    auto c = connect(w, a);
    ASSERT_TRUE(c) << c.error().to_text();
    auto r = (*c)->call_tool("echo", json::object());
    ASSERT_TRUE(r) << r.error().to_text();
    ASSERT_EQ(w.authorizations.size(), 2u);
    EXPECT_EQ(param(w.authorizations[0], "scope"), "read offline_access");
    EXPECT_EQ(param(w.authorizations[1], "scope"), "read offline_access write");
    (*c)->close();
}

TEST(OAuthFlow, StepUpThatCannotHelpStopsWithAReason) {
    fake_world w;
    w.challenge_scope = "read";
    w.never_enough = true;  // 403 insufficient_scope for the scope the token has
    auto a = std::make_shared<mcp::oauth_authorizer>(options_for(w));
    auto c = connect(w, a);
    ASSERT_TRUE(c) << c.error().to_text();
    auto r = (*c)->call_tool("echo", json::object());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::auth_required);
    EXPECT_EQ(r.error().details.value("reason", ""), "insufficient_scope") << r.error().to_text();
    EXPECT_EQ(r.error().details.value("status", 0), 403);
    EXPECT_EQ(a->authorizations(), 1);  // no pointless second sign-in
    (*c)->close();
}

TEST(OAuthFlow, PreRegisteredClientAuthenticatesWithBasic) {
    fake_world w;
    w.registration = false;
    w.auth_methods = json::array({"client_secret_basic"});
    auto o = options_for(w);
    o.client_id = "pre:registered";
    o.client_secret = "pre-secret";
    auto a = std::make_shared<mcp::oauth_authorizer>(o);
    auto c = connect(w, a);
    ASSERT_TRUE(c) << c.error().to_text();
    EXPECT_TRUE(w.registrations.empty());
    ASSERT_EQ(w.token_auth_headers.size(), 1u);
    // client_secret_basic: the form-encoded id and secret, base64 (RFC 6749 §2.3.1).
    EXPECT_EQ(w.token_auth_headers[0], "Basic " + ak::base64_encode("pre%3Aregistered:pre-secret"));
    EXPECT_EQ(param(w.token_requests[0], "client_secret"), "(absent)");
    EXPECT_EQ(param(w.authorizations[0], "client_id"), "pre:registered");
    (*c)->close();
}

TEST(OAuthFlow, ClientIdMetadataDocumentInPlaceOfRegistration) {
    fake_world w;
    w.cimd = true;
    auto o = options_for(w);
    o.client_metadata_url = "https://agent.example.com/client.json";
    mcp::oauth_authorizer a(o);
    ASSERT_TRUE(a.refused(w.endpoint(), 401, "", ""));
    EXPECT_TRUE(w.registrations.empty());
    EXPECT_EQ(param(w.authorizations.at(0), "client_id"), "https://agent.example.com/client.json");
    EXPECT_EQ(param(w.token_requests.at(0), "client_id"), "https://agent.example.com/client.json");
    // A server without such documents: dynamic registration, the document URL unused.
    fake_world plain;
    auto o2 = options_for(plain);
    o2.client_metadata_url = "https://agent.example.com/client.json";
    mcp::oauth_authorizer b(o2);
    ASSERT_TRUE(b.refused(plain.endpoint(), 401, "", ""));
    EXPECT_EQ(plain.registrations.size(), 1u);
    EXPECT_EQ(param(plain.authorizations.at(0), "client_id"), "client-1");
}

TEST(OAuthFlow, PathIssuerFoundThroughOpenIdConfiguration) {
    fake_world w;
    w.prm_at_path = false;
    w.prm_at_root = true;
    w.prm_resource = w.origin();
    w.issuer_path = "/tenant";
    w.openid_only = true;
    mcp::oauth_authorizer a(options_for(w));
    // No resource_metadata in the challenge: the well-known locations, path first.
    ASSERT_TRUE(a.refused(w.endpoint(), 401, "Bearer error=\"invalid_token\"", ""));
    const auto seen = w.requests();
    ASSERT_GE(seen.size(), 5u);
    EXPECT_EQ(seen[0], "GET /.well-known/oauth-protected-resource/mcp");
    EXPECT_EQ(seen[1], "GET /.well-known/oauth-protected-resource");
    EXPECT_EQ(seen[2], "GET /.well-known/oauth-authorization-server/tenant");
    EXPECT_EQ(seen[3], "GET /.well-known/openid-configuration/tenant");
    EXPECT_EQ(seen[4], "GET /tenant/.well-known/openid-configuration");
    EXPECT_EQ(param(w.authorizations.at(0), "resource"), w.origin());  // as published, no slash added
    EXPECT_EQ(a.tokens().issuer, w.origin() + "/tenant");
}

TEST(OAuthErrors, EachFailureNamesItsReasonAndSendsNothingFurther) {
    auto reason = [](const ak::error& e) { return e.details.value("reason", std::string("(none)")); };
    {
        fake_world w;
        w.prm_at_path = false;
        w.prm_at_root = false;
        auto o = options_for(w);
        o.legacy_discovery = false;  // else the server's origin is taken as its authorization server (below)
        auto e = refusal_error(w, o);
        EXPECT_EQ(reason(e), "metadata_missing") << e.to_text();
        EXPECT_FALSE(e.hint.empty());
    }
    {
        fake_world w;
        w.prm_resource = "https://evil.example.com/mcp";
        auto e = refusal_error(w, options_for(w));
        EXPECT_EQ(reason(e), "resource_mismatch") << e.to_text();
        EXPECT_TRUE(w.authorizations.empty());
        EXPECT_EQ(w.requests().size(), 1u);  // the metadata only
    }
    {
        fake_world w;
        w.metadata_issuer = "https://attacker.example.com";
        auto e = refusal_error(w, options_for(w));
        EXPECT_EQ(reason(e), "issuer_mismatch") << e.to_text();
        EXPECT_TRUE(w.registrations.empty());
        EXPECT_TRUE(w.authorizations.empty());
    }
    {
        fake_world w;
        w.s256 = false;
        EXPECT_EQ(reason(refusal_error(w, options_for(w))), "pkce_unsupported");
    }
    {
        fake_world w;
        w.registration = false;
        auto e = refusal_error(w, options_for(w));
        EXPECT_EQ(reason(e), "no_client") << e.to_text();
        EXPECT_NE(e.hint.find("client_id"), std::string::npos);
    }
    {
        fake_world w;
        auto o = options_for(w);
        o.authorize = nullptr;
        EXPECT_EQ(reason(refusal_error(w, o)), "no_authorize_callback");
    }
    for (const std::string mode : {"wrong", "omit"}) {
        fake_world w;
        w.iss_mode = mode;
        auto e = refusal_error(w, options_for(w));
        EXPECT_EQ(reason(e), "iss_mismatch") << mode << ": " << e.to_text();
        EXPECT_TRUE(w.token_requests.empty()) << mode;  // the code never reaches the token endpoint
    }
    {
        fake_world w;
        w.iss_supported = false;
        w.iss_mode = "omit";  // not advertised, not sent: fine
        mcp::oauth_authorizer a(options_for(w));
        EXPECT_TRUE(a.refused(w.endpoint(), 401, "", ""));
    }
    {
        fake_world w;
        w.wrong_state = true;
        EXPECT_EQ(reason(refusal_error(w, options_for(w))), "state_mismatch");
        EXPECT_TRUE(w.token_requests.empty());
    }
    {
        fake_world w;
        w.deny = true;
        auto e = refusal_error(w, options_for(w));
        EXPECT_EQ(reason(e), "authorization_denied");
        EXPECT_NE(e.message.find("access_denied"), std::string::npos);
    }
}

TEST(OAuthErrors, TokensCodesAndSecretsNeverReachAMessage) {
    fake_world w;
    w.auth_methods = json::array({"client_secret_post"});
    auto o = options_for(w);
    auto a = std::make_shared<mcp::oauth_authorizer>(o);
    auto c = connect(w, a);
    ASSERT_TRUE(c) << c.error().to_text();
    const auto t = a->tokens();
    ASSERT_FALSE(t.access_token.empty());
    ASSERT_EQ(param(w.token_requests.at(0), "client_secret"), "s3cret-1");  // client_secret_post
    std::vector<std::string> secrets{t.access_token, t.refresh_token, "s3cret-1", "the-code-"};
    std::string texts;
    {
        std::lock_guard lock(w.mu);
        w.access.clear();
        w.refuse_tokens = true;  // refresh and code exchange refused from now on
    }
    auto r = (*c)->list_tools();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().details.value("reason", ""), "token_failed") << r.error().to_text();
    texts += r.error().to_text() + r.error().to_json().dump();
    // an authorizer whose server refuses: its error too
    fake_world w2;
    w2.refuse_tokens = true;
    auto e = refusal_error(w2, options_for(w2));
    texts += e.to_text() + e.to_json().dump();
    EXPECT_NE(texts.find("invalid_grant"), std::string::npos);  // the server's reason is told
    for (const auto& s : secrets) EXPECT_EQ(texts.find(s), std::string::npos) << s << " leaked: " << texts;
    (*c)->close();
}

namespace {

/// GET `url` as a browser coming back would: the status and the page.
std::pair<int, std::string> browser_get(const std::string& url) {
    net::http_client http;
    net::client_request rq;
    rq.method = "GET";
    rq.url = url;
    rq.timeout = std::chrono::seconds(10);
    auto r = http.perform(rq);
    EXPECT_TRUE(r) << r.error().to_text();
    return r ? std::pair<int, std::string>{r->status, r->body} : std::pair<int, std::string>{0, ""};
}

std::filesystem::path fresh_dir(const std::string& name) {
    auto d = std::filesystem::temp_directory_path() / ("agentkit-oauth-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(d);
    return d;
}

}  // namespace

TEST(OAuthLoopback, ReturnsTheRedirectCarryingItsStateAndRefusesAnyOther) {
    mcp::oauth_loopback back;
    ASSERT_TRUE(back.start());
    ASSERT_EQ(back.redirect_uri().rfind("http://127.0.0.1:", 0), 0U) << back.redirect_uri();
    std::promise<std::string> announced;
    auto authorize = back.authorize([&](const std::string& url) { announced.set_value(url); });
    auto result = std::async(std::launch::async, [&] { return authorize("https://as.example/authorize?client_id=c&state=abc123&x=1"); });
    EXPECT_EQ(announced.get_future().get(), "https://as.example/authorize?client_id=c&state=abc123&x=1");
    // a stale or forged link: refused, and its parameters are not shown back
    auto [stale, stale_page] = browser_get(back.redirect_uri() + "?code=forged-code&state=other");
    EXPECT_EQ(stale, 400);
    EXPECT_EQ(stale_page.find("forged-code"), std::string::npos);
    auto [ok, page] = browser_get(back.redirect_uri() + "?code=the-code&state=abc123&iss=https%3A%2F%2Fas.example");
    EXPECT_EQ(ok, 200);
    EXPECT_NE(page.find("Signed in"), std::string::npos);
    EXPECT_EQ(page.find("the-code"), std::string::npos);
    auto got = result.get();
    ASSERT_TRUE(got) << got.error().to_text();
    EXPECT_EQ(*got, back.redirect_uri() + "?code=the-code&state=abc123&iss=https%3A%2F%2Fas.example");
    // the same link again: nobody waits for it any more
    EXPECT_EQ(browser_get(back.redirect_uri() + "?code=the-code&state=abc123").first, 400);
    // an authorization URL without a state cannot be matched: refused before anything is shown
    bool shown = false;
    auto no_state = back.authorize([&](const std::string&) { shown = true; })("https://as.example/authorize?client_id=c");
    ASSERT_FALSE(no_state);
    EXPECT_EQ(no_state.error().code, ak::errc::args_invalid);
    EXPECT_FALSE(shown);
}

TEST(OAuthLoopback, AWaitEndsByTimeoutOrCancelAndResetTakesWaitsAgain) {
    mcp::oauth_loopback back;
    ASSERT_TRUE(back.start());
    auto late = back.wait_for("s1", std::chrono::milliseconds(30));
    ASSERT_FALSE(late);
    EXPECT_EQ(late.error().code, ak::errc::timeout);
    EXPECT_FALSE(late.error().hint.empty());
    // cancel() from another thread ends a wait of ten minutes
    std::promise<void> waiting;
    auto authorize = back.authorize([&](const std::string&) { waiting.set_value(); });
    auto r = std::async(std::launch::async, [&] { return authorize("https://as.example/a?state=s2"); });
    waiting.get_future().wait();
    back.cancel();
    auto cancelled = r.get();
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.error().code, ak::errc::cancelled);
    EXPECT_EQ(back.wait_for("s3", std::chrono::minutes(10)).error().code, ak::errc::cancelled);  // refused at once
    back.reset();
    EXPECT_EQ(back.wait_for("s4", std::chrono::milliseconds(10)).error().code, ak::errc::timeout);
}

TEST(OAuthStore, KeepsTokensAndRegistrationsInAPrivateFileAndIgnoresForeignOnes) {
    const auto dir = fresh_dir("store");
    const auto file = dir / "sub" / "remote.oauth.json";
    {
        mcp::oauth_file_store store(file);
        EXPECT_FALSE(store.stored().tokens);
        mcp::oauth_options o;
        o.redirect_uri = "http://127.0.0.1:4711/callback";
        int chained = 0;
        o.on_tokens = [&](const mcp::oauth_tokens&) { ++chained; };
        store.attach(o);
        mcp::oauth_client_registration c;
        c.client_id = "client-7";
        c.client_secret = "reg-secret";
        c.token_endpoint_auth_method = "client_secret_basic";
        c.redirect_uri = o.redirect_uri;
        o.on_registration("https://as.example", c);
        mcp::oauth_tokens t;
        t.access_token = "at-1";
        t.refresh_token = "rt-1";
        t.scope = "read offline_access";
        t.issuer = "https://as.example";
        t.resource = "https://mcp.example/mcp";
        t.expires_at = std::chrono::system_clock::time_point(std::chrono::seconds(1900000000));
        t.dpop = true;
        o.on_tokens(t);
        EXPECT_EQ(chained, 1);  // the host's own callback still runs
        EXPECT_EQ(store.last_save_error(), "");
    }
    struct stat st {};
    ASSERT_EQ(::stat(file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600U);
    ASSERT_EQ(::stat(file.parent_path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700U);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(file.parent_path()), std::filesystem::directory_iterator{}), 1);

    mcp::oauth_file_store again(file);
    EXPECT_EQ(again.redirect_uri(), "http://127.0.0.1:4711/callback");
    mcp::oauth_options o;
    o.redirect_uri = again.redirect_uri();
    again.attach(o);
    ASSERT_TRUE(o.tokens);
    EXPECT_EQ(o.tokens->access_token, "at-1");
    EXPECT_EQ(o.tokens->refresh_token, "rt-1");
    EXPECT_EQ(o.tokens->scope, "read offline_access");
    EXPECT_EQ(o.tokens->issuer, "https://as.example");
    EXPECT_EQ(o.tokens->resource, "https://mcp.example/mcp");
    EXPECT_TRUE(o.tokens->dpop);  // so the next run does not present it as a Bearer token
    ASSERT_TRUE(o.tokens->expires_at);
    EXPECT_EQ(std::chrono::duration_cast<std::chrono::seconds>(o.tokens->expires_at->time_since_epoch()).count(), 1900000000);
    ASSERT_EQ(o.registrations.count("https://as.example"), 1U);
    EXPECT_EQ(o.registrations["https://as.example"].client_id, "client-7");
    EXPECT_EQ(o.registrations["https://as.example"].client_secret, "reg-secret");
    EXPECT_EQ(o.registrations["https://as.example"].token_endpoint_auth_method, "client_secret_basic");

    // a file that is not a store: ignored with a reason that shows none of its content
    {
        std::ofstream out(file, std::ios::trunc);
        out << R"({"access_token": "someone-elses-token"})";
    }
    mcp::oauth_file_store foreign(file);
    auto loaded = foreign.load();
    ASSERT_FALSE(loaded);
    EXPECT_NE(loaded.error().message.find(file.string()), std::string::npos);
    EXPECT_EQ(loaded.error().to_text().find("someone-elses-token"), std::string::npos);
    EXPECT_FALSE(foreign.stored().tokens);
    ASSERT_TRUE(foreign.clear());
    EXPECT_FALSE(std::filesystem::exists(file));
    std::filesystem::remove_all(dir);
}

TEST(OAuthFlow, AStoredRegistrationAndRefreshTokenSignInTheNextRunWithoutTheUser) {
    fake_world w;
    const auto dir = fresh_dir("runs");
    const auto file = dir / "fake.oauth.json";
    {
        mcp::oauth_file_store store(file);
        auto o = options_for(w);
        store.attach(o);
        auto a = std::make_shared<mcp::oauth_authorizer>(o);
        auto c = connect(w, a);
        ASSERT_TRUE(c) << c.error().to_text();
        (*c)->close();
    }
    ASSERT_EQ(w.registrations.size(), 1U);
    ASSERT_EQ(w.authorizations.size(), 1U);
    {
        std::lock_guard lock(w.mu);
        w.access.clear();  // the stored access token has expired meanwhile
    }
    mcp::oauth_file_store store(file);
    auto o = options_for(w);
    int asked = 0;
    o.authorize = [&](const std::string& url) {
        ++asked;
        return w.authorize(url);
    };
    store.attach(o);
    auto a = std::make_shared<mcp::oauth_authorizer>(o);
    auto c = connect(w, a);
    ASSERT_TRUE(c) << c.error().to_text();
    EXPECT_EQ(asked, 0);                      // no person
    EXPECT_EQ(w.registrations.size(), 1U);    // the client from the first run
    EXPECT_EQ(param(w.token_requests.back(), "grant_type"), "refresh_token");
    EXPECT_EQ(param(w.token_requests.back(), "client_id"), "client-1");
    EXPECT_EQ(store.stored().tokens->access_token, a->tokens().access_token);  // the new token is kept
    (*c)->close();

    // a run listening elsewhere cannot use that registration: it registers again
    mcp::oauth_file_store third(file);
    auto o3 = options_for(w);
    o3.redirect_uri = "http://127.0.0.1:10/callback";
    o3.tokens.reset();
    third.attach(o3);
    o3.tokens.reset();  // no tokens: a sign-in is needed
    auto a3 = std::make_shared<mcp::oauth_authorizer>(o3);
    auto c3 = connect(w, a3);
    ASSERT_TRUE(c3) << c3.error().to_text();
    EXPECT_EQ(w.registrations.size(), 2U);
    EXPECT_EQ(w.registrations[1]["redirect_uris"], json::array({"http://127.0.0.1:10/callback"}));
    (*c3)->close();
    std::filesystem::remove_all(dir);
}

TEST(GatewayConfig, OAuthEntriesAreReadAndMistakesNamedWithoutEchoingSecrets) {
    auto cfg = mcp::parse_servers_config(json::parse(R"({"mcpServers": {
        "a": {"url": "https://a.example/mcp", "oauth": true},
        "b": {"url": "https://b.example/mcp", "oauth": {"client_id": "cid", "client_secret_env": "B_SECRET",
              "scopes": ["read", "write"], "redirect_port": 8976, "client_metadata_url": "https://me.example/client.json"}},
        "c": {"url": "https://c.example/mcp", "oauth": false},
        "d": {"command": "srv"}}})"));
    ASSERT_TRUE(cfg) << cfg.error().to_text();
    ASSERT_EQ(cfg->servers.size(), 4U);
    ASSERT_TRUE(cfg->servers[0].oauth);
    EXPECT_EQ(cfg->servers[0].oauth->redirect_port, 0);
    ASSERT_TRUE(cfg->servers[1].oauth);
    EXPECT_EQ(cfg->servers[1].oauth->client_id, "cid");
    EXPECT_EQ(cfg->servers[1].oauth->client_secret_env, "B_SECRET");
    EXPECT_EQ(cfg->servers[1].oauth->scopes, (std::vector<std::string>{"read", "write"}));
    EXPECT_EQ(cfg->servers[1].oauth->redirect_port, 8976);
    EXPECT_EQ(cfg->servers[1].oauth->client_metadata_url, "https://me.example/client.json");
    EXPECT_FALSE(cfg->servers[2].oauth);
    EXPECT_FALSE(cfg->servers[3].oauth);

    auto bad = [](const char* text) {
        auto r = mcp::parse_servers_config(json::parse(text));
        EXPECT_FALSE(r) << text;
        return r ? std::string() : r.error().to_text();
    };
    EXPECT_NE(bad(R"({"mcpServers": {"s": {"command": "x", "oauth": true}}})").find("needs a \"url\""), std::string::npos);
    EXPECT_NE(bad(R"({"mcpServers": {"s": {"url": "https://s/mcp", "oauth": "yes"}}})").find("is true or an object"), std::string::npos);
    EXPECT_NE(bad(R"({"mcpServers": {"s": {"url": "https://s/mcp", "oauth": {"redirect_port": 70000}}}})").find("redirect_port"), std::string::npos);
    EXPECT_NE(bad(R"({"mcpServers": {"s": {"url": "https://s/mcp", "oauth": {"scopes": "read"}}}})").find("array of strings"), std::string::npos);
    auto wif = mcp::parse_servers_config(json::parse(
        R"({"mcpServers": {"w": {"url": "https://w.example/mcp", "oauth": {"client_id": "wl", "workload_token_file": "/var/run/token"}}}})"));
    ASSERT_TRUE(wif) << wif.error().to_text();
    EXPECT_EQ(wif->servers[0].oauth->workload_token_file, "/var/run/token");
    EXPECT_NE(bad(R"({"mcpServers": {"s": {"url": "https://s/mcp", "oauth": {"workload_token_file": "/t"}}}})").find("needs the \"client_id\""),
              std::string::npos);
    const std::string secret = bad(R"({"mcpServers": {"s": {"url": "https://s/mcp", "oauth": {"client_secret": "p4ssw0rd"}}}})");
    EXPECT_NE(secret.find("client_secret_env"), std::string::npos);
    EXPECT_EQ(secret.find("p4ssw0rd"), std::string::npos);
}

namespace {

/// A fresh private key as PEM (EC P-256 or RSA 2048) and its public half.
std::pair<std::string, std::shared_ptr<EVP_PKEY>> fresh_key(bool ec) {
    EVP_PKEY* k = ec ? EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256") : EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(2048));
    std::shared_ptr<EVP_PKEY> key(k, &EVP_PKEY_free);
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
    PEM_write_bio_PrivateKey(bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &data);
    return {std::string(data, static_cast<std::size_t>(n)), key};
}

std::string unb64url(std::string s) {
    for (char& c : s) c = c == '-' ? '+' : c == '_' ? '/' : c;
    while (s.size() % 4 != 0) s += '=';
    return ak::base64_decode(s).value_or("");
}

/// Verify a compact JWS with `key` (ES256: R || S turned back into DER).
bool verify_jws(const std::string& jws, EVP_PKEY* key, bool ec) {
    const auto dot2 = jws.rfind('.');
    const std::string input = jws.substr(0, dot2);
    std::string sig = unb64url(jws.substr(dot2 + 1));
    if (ec) {
        if (sig.size() != 64) return false;
        ECDSA_SIG* es = ECDSA_SIG_new();
        ECDSA_SIG_set0(es, BN_bin2bn(reinterpret_cast<const unsigned char*>(sig.data()), 32, nullptr),
                       BN_bin2bn(reinterpret_cast<const unsigned char*>(sig.data()) + 32, 32, nullptr));
        unsigned char* der = nullptr;
        const int n = i2d_ECDSA_SIG(es, &der);
        sig.assign(reinterpret_cast<char*>(der), static_cast<std::size_t>(n));
        OPENSSL_free(der);
        ECDSA_SIG_free(es);
    }
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    return EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) == 1 &&
           EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                            reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
}

}  // namespace

TEST(OAuthPieces, ClientAssertionsAreSignedJwtsThatVerifyAndKeysNeverShow) {
    for (const bool ec : {true, false}) {
        auto [pem, key] = fresh_key(ec);
        const json claims{{"iss", "c1"}, {"sub", "c1"}, {"aud", "https://as.example"}};
        auto jws = mcp::detail::sign_jwt(pem, ec ? "ES256" : "RS256", claims);
        ASSERT_TRUE(jws) << jws.error().to_text();
        EXPECT_TRUE(verify_jws(*jws, key.get(), ec)) << (ec ? "ES256" : "RS256");
        const auto dot = jws->find('.');
        EXPECT_EQ(json::parse(unb64url(jws->substr(0, dot))), (json{{"alg", ec ? "ES256" : "RS256"}, {"typ", "JWT"}}));
        EXPECT_EQ(json::parse(unb64url(jws->substr(dot + 1, jws->rfind('.') - dot - 1))), claims);
        // tampered: no longer verifies
        std::string bad = *jws;
        bad[dot + 2] = bad[dot + 2] == 'A' ? 'B' : 'A';
        EXPECT_FALSE(verify_jws(bad, key.get(), ec));
        // the key does not fit the algorithm
        auto wrong = mcp::detail::sign_jwt(pem, ec ? "RS256" : "ES256", claims);
        ASSERT_FALSE(wrong);
        EXPECT_NE(wrong.error().message.find("does not fit"), std::string::npos);
        EXPECT_EQ(wrong.error().to_text().find(pem.substr(40, 30)), std::string::npos);
    }
    auto garbage = mcp::detail::sign_jwt("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n", "ES256", json::object());
    ASSERT_FALSE(garbage);
    EXPECT_EQ(garbage.error().details.value("reason", ""), "no_client");
    EXPECT_FALSE(mcp::detail::sign_jwt("x", "HS256", json::object()));
}

TEST(OAuthFlow, ClientCredentialsGetATokenWithoutAUserWithASecretOrASignedAssertion) {
    for (const bool with_key : {false, true}) {
        fake_world w;
        w.auth_methods = json::array({"client_secret_basic", "private_key_jwt"});
        w.prm_scopes = json::array({"read"});
        auto o = options_for(w);
        int asked = 0;
        o.authorize = [&](const std::string&) -> ak::result<std::string> {
            ++asked;
            return ak::fail(ak::errc::auth_required, "no user here");
        };
        o.client_credentials = true;
        o.client_id = "machine-1";
        auto [pem, key] = fresh_key(true);
        if (with_key) o.private_key_pem = pem;
        else o.client_secret = "machine-secret";
        auto a = std::make_shared<mcp::oauth_authorizer>(o);
        auto c = connect(w, a);
        ASSERT_TRUE(c) << c.error().to_text();
        EXPECT_EQ(asked, 0);
        EXPECT_TRUE(w.registrations.empty());
        ASSERT_EQ(w.token_requests.size(), 1U);
        const auto& t = w.token_requests[0];
        EXPECT_EQ(param(t, "grant_type"), "client_credentials");
        EXPECT_EQ(param(t, "scope"), "read");
        EXPECT_EQ(param(t, "resource"), w.endpoint());
        if (with_key) {
            EXPECT_EQ(param(t, "client_assertion_type"), "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
            const std::string jws = param(t, "client_assertion");
            EXPECT_TRUE(verify_jws(jws, key.get(), true));
            const json claims = json::parse(unb64url(jws.substr(jws.find('.') + 1, jws.rfind('.') - jws.find('.') - 1)));
            EXPECT_EQ(claims.value("iss", ""), "machine-1");
            EXPECT_EQ(claims.value("sub", ""), "machine-1");
            EXPECT_EQ(claims.value("aud", ""), w.issuer());
            EXPECT_GT(claims.value("exp", 0), claims.value("iat", 0));
            EXPECT_EQ(w.token_auth_headers[0], "");
        } else {
            EXPECT_EQ(w.token_auth_headers[0].rfind("Basic ", 0), 0U);  // client_secret_basic
            EXPECT_EQ(param(t, "client_secret"), "(absent)");
        }
        auto r = (*c)->call_tool("echo", json::object());
        ASSERT_TRUE(r) << r.error().to_text();
        (*c)->close();
    }
}

TEST(OAuthPieces, DpopProofsBindMethodUrlTokenAndNonceAndAreFreshEachTime) {
    const auto k = mcp::detail::make_dpop_key();
    ASSERT_TRUE(k.key);
    EXPECT_EQ(k.jwk.value("kty", ""), "EC");
    EXPECT_EQ(k.jwk.value("crv", ""), "P-256");
    EXPECT_EQ(unb64url(k.jwk.value("x", "")).size(), 32u);
    EXPECT_EQ(unb64url(k.jwk.value("y", "")).size(), 32u);
    EXPECT_FALSE(k.jwk.contains("d"));  // never the private part
    const std::string token = "tok-123";
    const std::string proof = mcp::detail::dpop_proof(k, "POST", "https://mcp.example/mcp?session=1#frag", token, "n-42");
    ASSERT_FALSE(proof.empty());
    EXPECT_TRUE(verify_jws(proof, k.key.get(), true));
    const auto dot = proof.find('.');
    const json head = json::parse(unb64url(proof.substr(0, dot)));
    const json claims = json::parse(unb64url(proof.substr(dot + 1, proof.rfind('.') - dot - 1)));
    EXPECT_EQ(head, (json{{"alg", "ES256"}, {"typ", "dpop+jwt"}, {"jwk", k.jwk}}));
    EXPECT_EQ(claims["htm"], "POST");
    EXPECT_EQ(claims["htu"], "https://mcp.example/mcp");  // no query, no fragment (RFC 9449 §4.2)
    EXPECT_EQ(claims["nonce"], "n-42");
    EXPECT_EQ(claims["ath"], mcp::detail::base64url(
                                 [&] {
                                     std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
                                     unsigned int len = 0;
                                     EVP_Digest(token.data(), token.size(), md.data(), &len, EVP_sha256(), nullptr);
                                     return std::string(reinterpret_cast<const char*>(md.data()), len);
                                 }()
                                     .data(),
                                 32));
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    EXPECT_LE(std::abs(claims["iat"].get<std::int64_t>() - now), 5);
    // a token request proof has no ath and no nonce until the server gives one; every proof has its own jti
    const std::string first = mcp::detail::dpop_proof(k, "POST", "https://as.example/token", "", "");
    const std::string second = mcp::detail::dpop_proof(k, "POST", "https://as.example/token", "", "");
    const auto claims_of = [](const std::string& p) {
        const auto d = p.find('.');
        return json::parse(unb64url(p.substr(d + 1, p.rfind('.') - d - 1)));
    };
    EXPECT_FALSE(claims_of(first).contains("ath"));
    EXPECT_FALSE(claims_of(first).contains("nonce"));
    EXPECT_NE(claims_of(first)["jti"], claims_of(second)["jti"]);
    // another key's proof does not verify with this one
    const auto other = mcp::detail::make_dpop_key();
    EXPECT_FALSE(verify_jws(mcp::detail::dpop_proof(other, "GET", "https://mcp.example/mcp", token, ""), k.key.get(), true));
    // the challenge parser reads a DPoP challenge like a Bearer one
    const auto c = mcp::parse_bearer_challenge(R"(DPoP error="use_dpop_nonce", resource_metadata="https://mcp.example/.well-known/x")");
    EXPECT_EQ(c.at("error"), "use_dpop_nonce");
    EXPECT_EQ(c.at("resource_metadata"), "https://mcp.example/.well-known/x");
}

TEST(OAuthPieces, ADpopBoundTokenFromAnEarlierRunIsNotPresentedWithoutItsKey) {
    mcp::oauth_options o;
    mcp::oauth_tokens t;
    t.access_token = "bound-to-a-lost-key";
    t.refresh_token = "r1";
    t.dpop = true;
    o.tokens = t;
    mcp::oauth_authorizer a(o);
    EXPECT_EQ(a.authorization(), "");  // refreshed or signed in again at the server's first 401
    EXPECT_TRUE(a.authorization_headers("POST", "https://mcp.example/mcp").empty());
    EXPECT_EQ(a.tokens().refresh_token, "r1");
    t.dpop = false;
    o.tokens = t;
    mcp::oauth_authorizer bearer(o);
    EXPECT_EQ(bearer.authorization(), "Bearer bound-to-a-lost-key");
    const auto h = bearer.authorization_headers("POST", "https://mcp.example/mcp");
    ASSERT_EQ(h.size(), 1u);  // no proof for a Bearer token
    EXPECT_EQ(h[0].first, "Authorization");
}

TEST(OAuthFlow, AWorkloadTokenIsExchangedWithoutAUserAndARefusalIsNotRetried) {
    fake_world w;
    w.grant_types = json::array({"urn:ietf:params:oauth:grant-type:jwt-bearer"});
    w.prm_scopes = json::array({"read"});
    w.workload_jwt = "header.workload-claims.signature";
    auto o = options_for(w);
    int asked = 0;
    o.authorize = [&](const std::string&) -> ak::result<std::string> {
        ++asked;
        return ak::fail(ak::errc::auth_required, "no user here");
    };
    o.client_id = "workload-1";
    int reads = 0;
    o.jwt_assertion = [&](const mcp::jwt_bearer_context& cx) -> ak::result<std::string> {
        ++reads;
        EXPECT_EQ(cx.issuer, w.issuer());
        EXPECT_EQ(cx.resource, w.endpoint());
        EXPECT_EQ(cx.scope, "read");
        return w.workload_jwt;
    };
    auto c = connect(w, std::make_shared<mcp::oauth_authorizer>(o));
    ASSERT_TRUE(c) << c.error().to_text();
    EXPECT_EQ(asked, 0);
    EXPECT_EQ(reads, 1);
    ASSERT_EQ(w.token_requests.size(), 1U);
    EXPECT_EQ(param(w.token_requests[0], "grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
    EXPECT_EQ(param(w.token_requests[0], "assertion"), w.workload_jwt);
    EXPECT_EQ(param(w.token_requests[0], "client_id"), "workload-1");
    EXPECT_EQ(param(w.token_requests[0], "scope"), "read");
    EXPECT_EQ(param(w.token_requests[0], "resource"), w.endpoint());
    ASSERT_TRUE((*c)->call_tool("echo", json::object()));
    (*c)->close();

    // an assertion the server does not trust: one exchange, reported, no retry, no other grant
    fake_world refused;
    refused.grant_types = json::array({"urn:ietf:params:oauth:grant-type:jwt-bearer", "authorization_code"});
    refused.workload_jwt = "the-trusted-one";
    auto ro = options_for(refused);
    ro.client_id = "workload-1";
    ro.authorize = [&](const std::string&) -> ak::result<std::string> {
        ++asked;
        return ak::fail(ak::errc::auth_required, "no user here");
    };
    ro.jwt_assertion = [](const mcp::jwt_bearer_context&) -> ak::result<std::string> { return std::string("an-untrusted-jwt"); };
    auto bad = connect(refused, std::make_shared<mcp::oauth_authorizer>(ro));
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, ak::errc::auth_required);
    EXPECT_NE(bad.error().message.find("jwt-bearer token exchange"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find("invalid_grant"), std::string::npos) << bad.error().message;
    EXPECT_EQ(bad.error().to_text().find("an-untrusted-jwt"), std::string::npos);  // never printed
    EXPECT_EQ(refused.token_requests.size(), 1U);
    EXPECT_EQ(asked, 0);

    // the platform's token cannot be read: said so, nothing sent
    fake_world unreadable;
    unreadable.grant_types = json::array({"urn:ietf:params:oauth:grant-type:jwt-bearer"});
    auto uo = options_for(unreadable);
    uo.client_id = "workload-1";
    uo.jwt_assertion = [](const mcp::jwt_bearer_context&) -> ak::result<std::string> {
        return ak::fail(ak::errc::not_found, "/var/run/secrets/token: no such file");
    };
    auto none = connect(unreadable, std::make_shared<mcp::oauth_authorizer>(uo));
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().details.value("reason", ""), "assertion_failed");
    EXPECT_NE(none.error().message.find("no such file"), std::string::npos);
    EXPECT_TRUE(unreadable.token_requests.empty());
}

TEST(OAuthFlow, EnterpriseManagedAuthorizationTradesTheUsersIdTokenForAnIdJagThenForAToken) {
    fake_world w;
    w.grant_types = json::array({"urn:ietf:params:oauth:grant-type:jwt-bearer"});
    w.prm_scopes = json::array({"read"});
    w.auth_methods = json::array({"client_secret_basic"});
    w.workload_jwt = "id-jag:" + w.issuer() + "|" + w.endpoint();  // what the AS trusts: an ID-JAG for it and this server
    auto o = options_for(w);
    o.client_id = "xaa-client";
    o.client_secret = "xaa-secret";
    mcp::enterprise_idp idp;
    idp.token_endpoint = w.origin() + "/idp/token";
    idp.client_id = "idp-client";
    idp.id_token = []() -> ak::result<std::string> { return std::string("id-token-of-ada"); };
    o.jwt_assertion = mcp::id_jag_exchange(idp);
    auto c = connect(w, std::make_shared<mcp::oauth_authorizer>(o));
    ASSERT_TRUE(c) << c.error().to_text();
    ASSERT_EQ(w.idp_requests.size(), 1U);
    EXPECT_EQ(param(w.idp_requests[0], "audience"), w.issuer());
    EXPECT_EQ(param(w.idp_requests[0], "resource"), w.endpoint());
    EXPECT_EQ(param(w.idp_requests[0], "scope"), "read");
    EXPECT_EQ(param(w.idp_requests[0], "client_id"), "idp-client");
    ASSERT_EQ(w.token_requests.size(), 1U);
    EXPECT_EQ(param(w.token_requests[0], "grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
    EXPECT_EQ(w.token_auth_headers[0].rfind("Basic ", 0), 0U);  // the client authenticates at the AS
    ASSERT_TRUE((*c)->call_tool("echo", json::object()));
    (*c)->close();

    // the provider refuses the ID token: the reason is named, the AS is never asked
    fake_world no;
    no.grant_types = json::array({"urn:ietf:params:oauth:grant-type:jwt-bearer"});
    auto bo = options_for(no);
    bo.client_id = "xaa-client";
    mcp::enterprise_idp stale = idp;
    stale.token_endpoint = no.origin() + "/idp/token";
    stale.id_token = []() -> ak::result<std::string> { return std::string("an-expired-id-token"); };
    bo.jwt_assertion = mcp::id_jag_exchange(stale);
    auto refused = connect(no, std::make_shared<mcp::oauth_authorizer>(bo));
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("did not give an ID-JAG"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("invalid_grant"), std::string::npos) << refused.error().message;
    EXPECT_EQ(refused.error().to_text().find("an-expired-id-token"), std::string::npos);
    EXPECT_TRUE(no.token_requests.empty());
}

TEST(OAuthFlow, AServerWithoutResourceMetadataIsSignedInToAtItsOriginAsIn2025_03_26) {
    {
        fake_world w;  // its origin serves RFC 8414 metadata
        w.prm_at_path = false;
        w.prm_at_root = false;
        auto c = connect(w, std::make_shared<mcp::oauth_authorizer>(options_for(w)));
        ASSERT_TRUE(c) << c.error().to_text();
        ASSERT_EQ(w.authorizations.size(), 1U);
        EXPECT_EQ(param(w.authorizations[0], "resource"), "(absent)");  // that revision had no resource indicators
        EXPECT_EQ(param(w.authorizations[0], "code_challenge_method"), "S256");
        ASSERT_EQ(w.token_requests.size(), 1U);
        EXPECT_EQ(param(w.token_requests[0], "resource"), "(absent)");
        ASSERT_TRUE((*c)->call_tool("echo", json::object()));
        (*c)->close();
    }
    {
        fake_world w;  // its origin names another issuer: refused, nothing sent further
        w.prm_at_path = false;
        w.prm_at_root = false;
        w.metadata_issuer = "https://attacker.example.com";
        mcp::oauth_authorizer a(options_for(w));
        auto r = a.refused(w.endpoint(), 401, "Bearer", "");
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().details.value("reason", ""), "issuer_mismatch");
        EXPECT_TRUE(w.authorizations.empty());
        EXPECT_TRUE(w.registrations.empty());
    }
}
