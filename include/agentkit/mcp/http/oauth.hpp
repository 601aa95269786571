// agentkit/mcp/http/oauth.hpp — OAuth 2.1 for mcp::client over Streamable HTTP, as the MCP
// authorization specification (revision 2025-11-25) describes it: an http_authorizer
// (mcp/http/client.hpp) that finds the authorization server, identifies the client to it,
// runs the authorization code flow with PKCE through the host, and keeps the tokens fresh.
// Needs agentkit::curl (HTTP) and OpenSSL's libcrypto (SHA-256; agentkit::net brings it);
// random values (PKCE, state, jti) come from the kernel (core/random.hpp).
//
//   agentkit::mcp::oauth_options oo;
//   oo.redirect_uri = "http://127.0.0.1:8976/callback";            // where the host listens
//   oo.authorize = [](const std::string& url) -> agentkit::result<std::string> {
//       open_browser(url);                                         // the user signs in
//       return wait_for_redirect();                                // the URL the browser came back to
//   };
//   oo.on_tokens = [](const agentkit::mcp::oauth_tokens& t) { keyring_save(t); };   // optional
//   agentkit::mcp::http_server_endpoint ep;
//   ep.url = "https://mcp.example.com/mcp";
//   ep.authorizer = std::make_shared<agentkit::mcp::oauth_authorizer>(oo);
//
// refused() runs under the authorizer's lock (the host's authorize callback included), so
// concurrent refusals lead to one flow; the others find the new token and are sent again.
//
// What happens when the server answers 401 (no token, or a token it no longer takes):
//   1. Protected resource metadata (RFC 9728): the URL in WWW-Authenticate's resource_metadata,
//      else /.well-known/oauth-protected-resource/<path of the MCP URL>, else
//      /.well-known/oauth-protected-resource at the root. Its `resource` must name this server
//      (same origin, the endpoint's path under its path), else nothing is sent anywhere. A server
//      with none is taken as revision 2025-03-26 had it (oauth_options::legacy_discovery): its
//      origin is the authorization server, with metadata at its root or the default endpoints
//      /authorize, /token and /register, and no `resource` is sent.
//   2. Authorization server metadata, in the specification's order: for an issuer with a path
//      /.well-known/oauth-authorization-server/<path>, /.well-known/openid-configuration/<path>,
//      <path>/.well-known/openid-configuration; without one the first two at the root. Its
//      `issuer` must be the issuer asked for, and it must offer PKCE S256.
//   3. The client: pre-registered credentials (client_id/client_secret) when given; else a
//      client ID metadata document (client_metadata_url) when the server supports them; else
//      dynamic client registration (RFC 7591). Credentials belong to one authorization server
//      and are never shown to another.
//   4. Scopes: those the challenge names (on a step-up, together with those asked for before),
//      else the resource's scopes_supported, else none; offline_access too when the
//      authorization server lists it (for a refresh token).
//   5. The authorization request (PKCE S256, state, `resource` exactly as the metadata gives it)
//      goes to the host's `authorize` callback, which returns the URL the user agent was sent
//      back to; its state must match, an `iss` must equal the issuer (and must be present when
//      the server says it sends one).
//   6. The token request (authorization_code, the verifier, `resource`), authenticating the client
//      as registered: none, client_secret_basic or client_secret_post.
// An identity from elsewhere (RFC 7523 jwt-bearer): with oauth_options::jwt_assertion and an
// authorization server offering the jwt-bearer grant, steps 5 and 6 are one exchange of a JWT,
// reported and not retried when refused: a workload's identity token (workload identity
// federation, io.modelcontextprotocol/auth/wif) or an ID-JAG its enterprise identity provider
// issued for the user (enterprise-managed authorization; id_jag_exchange() gets it with an
// RFC 8693 token exchange of the user's ID token).
// Machine-to-machine (the OAuth client credentials extension, io.modelcontextprotocol/
// oauth-client-credentials): with oauth_options::client_credentials, or when the authorization
// server offers the client_credentials grant and not authorization_code and a client_id with a
// secret or a private key is configured, steps 5 and 6 are one token request with
// grant_type=client_credentials (no user, no authorize callback); the client authenticates with
// its secret, or with a JWT assertion signed with private_key_pem (RFC 7523 private_key_jwt,
// ES256 or RS256, audience the issuer).
//
// DPoP (RFC 9449, MCP's DPoP extension): when the authorization server offers ES256 proofs and
// oauth_options::dpop is on (the default), tokens are bound to a P-256 key made for this
// authorizer: token requests and MCP requests carry a fresh proof (htm, htu without query, iat,
// jti, ath of the token, the server's nonce after a use_dpop_nonce answer, one retry), and the
// token is presented as "DPoP <token>" (a server that still issues a Bearer token gets Bearer).
//
// A token the server stops taking is refreshed (refresh_token grant) when a refresh token is
// held and the authorization server is unchanged; otherwise the flow runs again. A token about to
// expire (refresh_ahead) is refreshed before a request is sent with it. A 403 with
// error="insufficient_scope" asks for the challenged scopes (step-up) unless they were granted
// already; at most max_authorizations flows run for one refusal streak.
//
// Every failure is `auth.required` with details.reason naming the step (metadata_missing,
// resource_mismatch, issuer_mismatch, pkce_unsupported, no_client, registration_failed,
// no_authorize_callback, authorization_denied, state_mismatch, iss_mismatch, token_failed,
// insufficient_scope, forbidden (a 403 that is not about scopes), too_many_authorizations) and a hint saying what the host can do. Tokens,
// codes, verifiers and client secrets never appear in a message, a detail or a log; URLs are
// shown through net::redact_url().
#pragma once

#include <agentkit/mcp/http/client.hpp>
#include <agentkit/core/base64.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/http.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/core/url.hpp>
#include <agentkit/net/http_client.hpp>
#include <agentkit/mcp/http/jose.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::mcp {

/// The tokens an authorization server issued (never printed; persist them through on_tokens).
struct oauth_tokens {
    std::string access_token;   ///< sent as "Bearer <access_token>" (or "DPoP <access_token>", see `dpop`)
    /// The token is DPoP-bound (token_type DPoP, RFC 9449): it is sent with a proof made with the
    /// authorizer's key, which lives as long as the authorizer; a later run cannot use it and
    /// refreshes or signs in again.
    bool dpop = false;
    std::string refresh_token;  ///< empty: none was issued
    std::string scope;          ///< the scopes granted (or asked for, when the server did not say)
    std::string issuer;         ///< the authorization server that issued them
    std::string resource;       ///< the protected resource they are for (RFC 8707)
    /// When the access token expires (system clock); unset: the server did not say.
    std::optional<std::chrono::system_clock::time_point> expires_at;
};

/// How the client identifies itself to an authorization server (what registration gave).
struct oauth_client_registration {
    std::string client_id;      ///< the client's id (a URL for a client ID metadata document)
    std::string client_secret;  ///< empty for a public client; never printed
    /// How the token endpoint authenticates the client: "none", "client_secret_basic" or "client_secret_post".
    std::string token_endpoint_auth_method = "none";
    std::string redirect_uri;   ///< the redirect URI registered with it (dynamic registration)
};

/// What a JWT-bearer assertion is for (oauth_options::jwt_assertion).
struct jwt_bearer_context {
    std::string issuer;    ///< the authorization server that will take the assertion (its audience)
    std::string resource;  ///< the MCP server's resource (RFC 8707), as its metadata names it
    std::string scope;     ///< the scopes asked for, space-separated ("" for none)
};

/// What the host gives the OAuth flow.
struct oauth_options {
    /// The redirect URI registered for this client (the host's loopback listener or app URL).
    std::string redirect_uri = "http://127.0.0.1:8976/callback";
    /// Opens the authorization URL for the user (a browser) and returns the URL the user agent was
    /// redirected back to (with code, state and maybe iss). Unset: authorization fails with
    /// reason no_authorize_callback (a host with tokens only can still refresh them).
    std::function<result<std::string>(const std::string& authorization_url)> authorize;
    /// Pre-registered client id (and secret): used in place of any registration.
    std::string client_id;
    std::string client_secret;  ///< the pre-registered client's secret; never printed
    /// A private key (PEM) of the pre-registered client for private_key_jwt (RFC 7523): the token
    /// endpoint gets an assertion signed with it instead of a secret. Never printed.
    std::string private_key_pem;
    std::string signing_algorithm = "ES256";  ///< for private_key_pem: ES256 (an EC P-256 key) or RS256 (an RSA key)
    /// Get tokens with the client_credentials grant (no user; see the file comment). Also chosen
    /// when the authorization server offers client_credentials but not authorization_code.
    bool client_credentials = false;
    /// The JWT-bearer grant (RFC 7523): returns the assertion to exchange for a token at the
    /// authorization server named in the context, with no user, when that server offers the
    /// grant (grant_type urn:ietf:params:oauth:grant-type:jwt-bearer). For workload identity
    /// federation (MCP's WIF extension) it returns the workload's JWT as its platform issued it (a
    /// mounted token file, a metadata service); for enterprise-managed authorization, an ID-JAG
    /// from the enterprise's identity provider (id_jag_exchange()). Called again for each
    /// exchange, so a rotated token is read fresh. A refused exchange is reported, not retried,
    /// and no other grant is tried. Never printed.
    std::function<result<std::string>(const jwt_bearer_context&)> jwt_assertion;
    /// A server without protected resource metadata is treated as revision 2025-03-26 said: its
    /// own origin is the authorization server (metadata at the root, else /authorize, /token and
    /// /register there). false: such a server fails with metadata_missing.
    bool legacy_discovery = true;
    /// DPoP (RFC 9449; MCP's DPoP extension): when the authorization server offers ES256 proofs
    /// (dpop_signing_alg_values_supported), bind tokens to a P-256 key made for this authorizer
    /// and prove it on every token and MCP request, so a stolen token is useless elsewhere.
    /// false: Bearer tokens only.
    bool dpop = true;
    /// The authorization server the pre-registered credentials belong to; empty: any.
    std::string client_issuer;
    /// An https URL where the host publishes its client ID metadata document; used as the
    /// client_id when the authorization server supports such documents.
    std::string client_metadata_url;
    std::string client_name = "agentkit";  ///< client_name in dynamic registration
    /// Scopes to ask for when neither the challenge nor the resource metadata names any.
    std::vector<std::string> scopes;
    bool offline_access = true;  ///< ask for offline_access when the authorization server lists it
    /// On a step-up, ask for the scopes asked for before as well as the challenged ones.
    bool keep_scopes_on_step_up = true;
    int max_authorizations = 3;  ///< authorization flows per refusal streak (a request that passes ends it)
    /// Refresh a token this long before the expiry the server gave (expires_in), before sending a
    /// request with it, rather than waiting for a 401.
    std::chrono::seconds refresh_ahead{30};
    std::chrono::milliseconds http_timeout{30000};  ///< each metadata, registration and token request
    std::optional<oauth_tokens> tokens;  ///< tokens from an earlier run (used until refused)
    /// Called (under the authorizer's lock) whenever new tokens arrive: persist them here.
    std::function<void(const oauth_tokens&)> on_tokens;
    /// Client registrations from an earlier run, by issuer (what on_registration saw): a refresh
    /// token stays usable across runs only with the client it was issued to. A registration whose
    /// redirect URI differs from `redirect_uri` is not used (the server would refuse it).
    std::map<std::string, oauth_client_registration> registrations;
    /// Called (under the authorizer's lock) when dynamic registration gave a new client, with the
    /// issuer: persist it beside the tokens (it may hold a client secret: never print it).
    std::function<void(const std::string& issuer, const oauth_client_registration&)> on_registration;
};

namespace detail {

// query strings are read with agentkit::query_params (core/url.hpp)
using agentkit::form_decode;
using agentkit::query_params;

/// `scope` split at spaces.
[[nodiscard]] inline std::vector<std::string> split_scopes(std::string_view scope) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < scope.size()) {
        while (i < scope.size() && scope[i] == ' ') ++i;
        std::size_t j = i;
        while (j < scope.size() && scope[j] != ' ') ++j;
        if (j > i) out.emplace_back(scope.substr(i, j - i));
        i = j;
    }
    return out;
}

/// Add the scopes of `more` that `to` lacks, keeping the order.
inline void add_scopes(std::vector<std::string>& to, const std::vector<std::string>& more) {
    for (const auto& s : more)
        if (std::find(to.begin(), to.end(), s) == to.end()) to.push_back(s);
}

/// "scheme://host[:port]" of a parsed URL.
[[nodiscard]] inline std::string origin_of(const url_parts& u) {
    return u.scheme + "://" + u.host_text() + (u.explicit_port ? ":" + std::to_string(u.port) : std::string());
}

}  // namespace detail

/// The parameters of a Bearer (or DPoP) challenge in a WWW-Authenticate header (lower-case
/// names: resource_metadata, scope, error, error_description, realm); empty when there is none.
[[nodiscard]] inline std::map<std::string, std::string> parse_bearer_challenge(std::string_view h) {
    std::map<std::string, std::string> out;
    std::size_t i = 0;
    bool in_bearer = false;
    auto skip = [&](std::string_view chars) {
        while (i < h.size() && chars.find(h[i]) != std::string_view::npos) ++i;
    };
    while (i < h.size()) {
        skip(" \t,");
        std::size_t start = i;
        while (i < h.size() && h[i] != '=' && h[i] != ' ' && h[i] != '\t' && h[i] != ',') ++i;
        const std::string token = ascii_lower(h.substr(start, i - start));
        if (token.empty()) {
            if (i < h.size()) ++i;
            continue;
        }
        skip(" \t");
        if (i < h.size() && h[i] == '=') {  // a parameter (or token68 padding)
            ++i;
            skip(" \t");
            std::string value;
            if (i < h.size() && h[i] == '"') {
                ++i;
                while (i < h.size() && h[i] != '"') {
                    if (h[i] == '\\' && i + 1 < h.size()) ++i;
                    value += h[i++];
                }
                if (i < h.size()) ++i;
            } else {
                start = i;
                while (i < h.size() && h[i] != ',' && h[i] != ' ' && h[i] != '\t') ++i;
                value = std::string(h.substr(start, i - start));
            }
            if (in_bearer && !out.contains(token)) out[token] = value;
        } else {  // a new scheme
            if (in_bearer) break;
            in_bearer = token == "bearer" || token == "dpop";
        }
    }
    return out;
}

/// PKCE (RFC 7636) S256: the code challenge of `verifier`, base64url(SHA-256(verifier)).
[[nodiscard]] inline std::string pkce_challenge(std::string_view verifier) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    if (EVP_Digest(verifier.data(), verifier.size(), md.data(), &len, EVP_sha256(), nullptr) != 1) return {};
    return detail::base64url(md.data(), len);
}

/// A fresh PKCE code verifier: 32 random bytes, base64url (43 characters); empty on failure.
[[nodiscard]] inline std::string pkce_verifier() { return agentkit::random_base64url(32); }

/// The authorization server metadata URLs to try for `issuer`, in the specification's order
/// (RFC 8414 first, then OpenID Connect Discovery). Empty when `issuer` is not an http(s) URL.
[[nodiscard]] inline std::vector<std::string> authorization_server_metadata_urls(std::string_view issuer) {
    auto u = parse_url(issuer);
    if (!u || (u->scheme != "http" && u->scheme != "https")) return {};
    const std::string origin = detail::origin_of(*u);
    std::string path = u->path;
    while (!path.empty() && path.back() == '/') path.pop_back();
    if (path.empty())
        return {origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"};
    return {origin + "/.well-known/oauth-authorization-server" + path, origin + "/.well-known/openid-configuration" + path,
            origin + path + "/.well-known/openid-configuration"};
}

/// The protected resource metadata URLs to try for the MCP endpoint `server_url` (RFC 9728):
/// `from_challenge` (WWW-Authenticate's resource_metadata) first when given, then the
/// path-based well-known URL, then the root one.
[[nodiscard]] inline std::vector<std::string> protected_resource_metadata_urls(std::string_view server_url,
                                                                              std::string_view from_challenge = {}) {
    std::vector<std::string> out;
    if (!from_challenge.empty()) out.emplace_back(from_challenge);
    auto u = parse_url(server_url);
    if (!u || (u->scheme != "http" && u->scheme != "https")) return out;
    const std::string origin = detail::origin_of(*u);
    std::string path = u->path;
    while (!path.empty() && path.back() == '/') path.pop_back();
    if (!path.empty()) out.push_back(origin + "/.well-known/oauth-protected-resource" + path);
    out.push_back(origin + "/.well-known/oauth-protected-resource");
    return out;
}

/// True when the protected resource `resource` (from its metadata) covers the MCP endpoint
/// `server_url`: same scheme, host and port, and the endpoint's path is the resource's path or
/// under it.
[[nodiscard]] inline bool resource_covers(std::string_view resource, std::string_view server_url) {
    auto r = parse_url(resource);
    auto s = parse_url(server_url);
    if (!r || !s || r->has_fragment || r->scheme != s->scheme || r->host != s->host || r->port != s->port) return false;
    std::string rp = r->path;
    while (!rp.empty() && rp.back() == '/') rp.pop_back();
    const std::string& sp = s->path;
    if (rp.empty()) return true;
    return sp == rp || (sp.size() > rp.size() && sp.compare(0, rp.size(), rp) == 0 && sp[rp.size()] == '/');
}

/// MCP's OAuth 2.1 client (see the file comment): an http_authorizer for http_client_transport.
class oauth_authorizer final : public http_authorizer {
public:
    /// An authorizer with these options (nothing is sent before the server refuses a request).
    explicit oauth_authorizer(oauth_options o) : o_(std::move(o)) {
        if (o_.tokens) tokens_ = *o_.tokens;
        if (tokens_.dpop) tokens_.access_token.clear();  // bound to an earlier run's key: refresh or sign in again
        for (const auto& [issuer, c] : o_.registrations)
            if (!c.client_id.empty() && (c.redirect_uri.empty() || c.redirect_uri == o_.redirect_uri)) clients_[issuer] = c;
    }

    /// "Bearer <access token>" once there is one, else "". A token that expires within
    /// oauth_options::refresh_ahead is refreshed first when a refresh token and the authorization
    /// server's metadata from this run are held (one try per token: a refused refresh leaves the
    /// server's 401 to start the full path).
    [[nodiscard]] std::string authorization() override {
        std::lock_guard lock(mu_);
        if (tokens_.expires_at && !tokens_.refresh_token.empty() && last_ && last_->issuer == tokens_.issuer &&
            refresh_tried_for_ != tokens_.access_token && std::chrono::system_clock::now() + o_.refresh_ahead >= *tokens_.expires_at) {
            refresh_tried_for_ = tokens_.access_token;
            if (auto c = client_for(*last_))
                (void)token_request(*last_, *c,
                                    {{"grant_type", "refresh_token"}, {"refresh_token", tokens_.refresh_token}, {"resource", last_->resource}},
                                    tokens_.scope, "refreshing the token");
        }
        return presented();
    }

    /// The Authorization header and, for a DPoP-bound token, its proof for this request.
    [[nodiscard]] std::vector<std::pair<std::string, std::string>> authorization_headers(std::string_view method, std::string_view url) override {
        std::string a = authorization();
        if (a.empty()) return {};
        std::vector<std::pair<std::string, std::string>> h{{"Authorization", std::move(a)}};
        std::lock_guard lock(mu_);
        if (tokens_.dpop && dpop_.key) h.emplace_back("DPoP", detail::dpop_proof(dpop_, method, url, tokens_.access_token, rs_nonce_));
        return h;
    }

    /// The MCP server's DPoP nonce, for the next proofs (see http_authorizer::server_nonce).
    void server_nonce(std::string_view nonce) override {
        std::lock_guard lock(mu_);
        rs_nonce_ = std::string(nonce.substr(0, 512));
    }

    /// See http_authorizer::refused and the file comment.
    [[nodiscard]] result<void> refused(const std::string& url, int status, const std::string& www_authenticate,
                                       const std::string& sent) override {
        std::lock_guard lock(mu_);
        const std::string current = presented();
        if (current != sent && !current.empty()) return {};  // another request renewed them meanwhile
        const auto challenge = parse_bearer_challenge(www_authenticate);
        auto param = [&](const char* k) {
            auto it = challenge.find(k);
            return it == challenge.end() ? std::string() : it->second;
        };
        const std::string error_code = param("error");
        // the server wants its nonce in the proof (RFC 9449 §9): server_nonce() has it; send again
        if (status == 401 && error_code == "use_dpop_nonce" && tokens_.dpop && !rs_nonce_.empty() && rs_nonce_ != nonce_retried_) {
            nonce_retried_ = rs_nonce_;
            return {};
        }
        std::vector<std::string> challenged = detail::split_scopes(param("scope"));
        if (status == 403) {
            if (error_code != "insufficient_scope")
                return fail_auth("forbidden", "the server refused the token (HTTP 403" + (error_code.empty() ? std::string() : ", " + error_code) + ")",
                                 "The signed-in account lacks access to this server; sign in with another account or ask its owner for access.");
            const auto granted = detail::split_scopes(tokens_.scope);
            if (!challenged.empty() && std::all_of(challenged.begin(), challenged.end(), [&](const std::string& s) {
                    return std::find(granted.begin(), granted.end(), s) != granted.end();
                }))
                return fail_auth("insufficient_scope",
                                 "the server asks for scopes (" + param("scope") + ") that the token was already granted",
                                 "The authorization server grants these scopes but the server still refuses: ask the server's owner; "
                                 "authorizing again would not help.");
            std::vector<std::string> want;
            if (o_.keep_scopes_on_step_up) want = requested_scopes_;
            detail::add_scopes(want, challenged);
            return authorize_flow(url, param("resource_metadata"), want, true);
        }
        // 401: find the authorization server again (it may have changed), then refresh or authorize.
        return authorize_flow(url, param("resource_metadata"), challenged, false);
    }

    /// A request with the current token passed: the refusal streak ends.
    void accepted() override {
        std::lock_guard lock(mu_);
        streak_ = 0;
    }

    /// The tokens held now (empty access_token: none yet). Never print them.
    [[nodiscard]] oauth_tokens tokens() const {
        std::lock_guard lock(mu_);
        return tokens_;
    }

    /// Authorization flows run so far (each asked the host's authorize callback).
    [[nodiscard]] int authorizations() const {
        std::lock_guard lock(mu_);
        return authorizations_total_;
    }

private:
    /// The Authorization value of the current token ("" without one). Under mu_.
    [[nodiscard]] std::string presented() const {
        if (tokens_.access_token.empty()) return {};
        return (tokens_.dpop ? "DPoP " : "Bearer ") + tokens_.access_token;
    }

    struct discovered {
        json resource_metadata;  // protected resource metadata
        std::string resource;    // its `resource`, exactly as given
        std::string issuer;
        json as;                 // authorization server metadata
    };

    [[nodiscard]] static error auth_error(std::string reason, std::string message, std::string hint, json more = json::object()) {
        json d = std::move(more);
        d["reason"] = std::move(reason);
        return error(errc::auth_required, std::move(message), std::move(hint), std::move(d));
    }
    [[nodiscard]] static result<void> fail_auth(std::string reason, std::string message, std::string hint, json more = json::object()) {
        return fail(auth_error(std::move(reason), std::move(message), std::move(hint), std::move(more)));
    }

    /// GET a JSON object; nothing on a non-200 or non-object answer (`why` says what came back).
    std::optional<json> get_json(const std::string& url, std::string& why) {
        net::client_request rq;
        rq.method = "GET";
        rq.url = url;
        rq.timeout = o_.http_timeout;
        rq.headers = {{"Accept", "application/json"}, {"MCP-Protocol-Version", "2025-11-25"}};
        rq.max_response_bytes = std::size_t{1} << 20U;
        auto r = http_.perform(rq);
        if (!r) {
            why = r.error().message;
            return std::nullopt;
        }
        if (r->status != 200) {
            why = "HTTP " + std::to_string(r->status) + " from " + net::redact_url(url);
            return std::nullopt;
        }
        json j = json::parse(r->body, nullptr, false);
        if (!j.is_object()) {
            why = "not a JSON object from " + net::redact_url(url);
            return std::nullopt;
        }
        return j;
    }

    /// POST a form (or JSON) and read a JSON object answer; `status` gets the HTTP status.
    result<json> post(const std::string& url, std::string body, std::string content_type,
                      std::vector<std::pair<std::string, std::string>> headers, int& status, std::string* dpop_nonce = nullptr) {
        net::client_request rq;
        rq.method = "POST";
        rq.url = url;
        rq.timeout = o_.http_timeout;
        rq.headers = std::move(headers);
        rq.headers.emplace_back("Content-Type", std::move(content_type));
        rq.headers.emplace_back("Accept", "application/json");
        rq.body = std::move(body);
        rq.max_response_bytes = std::size_t{1} << 20U;
        auto r = http_.perform(rq);
        if (!r) return fail(std::move(r).error());
        status = r->status;
        if (dpop_nonce != nullptr) *dpop_nonce = r->header("dpop-nonce").substr(0, 512);
        json j = json::parse(r->body, nullptr, false);
        return j.is_object() ? j : json::object();
    }

    result<discovered> discover(const std::string& url, const std::string& metadata_hint) {
        discovered d;
        std::string why;
        std::string tried;
        for (const auto& u : protected_resource_metadata_urls(url, metadata_hint)) {
            auto j = get_json(u, why);
            tried += (tried.empty() ? "" : ", ") + net::redact_url(u);
            if (j && j->contains("authorization_servers") && (*j)["authorization_servers"].is_array() &&
                !(*j)["authorization_servers"].empty() && (*j)["authorization_servers"][0].is_string()) {
                d.resource_metadata = std::move(*j);
                break;
            }
        }
        if (d.resource_metadata.is_null() && o_.legacy_discovery) return discover_legacy(url, tried);
        if (d.resource_metadata.is_null())
            return fail(auth_error("metadata_missing",
                                   "the server at " + net::redact_url(url) +
                                       " asks for authorization but publishes no protected resource metadata naming an authorization server (tried " +
                                       tried + ")",
                                   "Give the server's token in its \"headers\" instead, or ask its owner to publish "
                                   "/.well-known/oauth-protected-resource."));
        d.resource = d.resource_metadata.value("resource", "");
        if (d.resource.empty() || !resource_covers(d.resource, url))
            return fail(auth_error("resource_mismatch",
                                   "the protected resource metadata of " + net::redact_url(url) + " is for another resource (" +
                                       net::redact_url(d.resource) + "); no credentials were requested for it",
                                   "Check the server's URL: the metadata it points to describes a different server.",
                                   json{{"resource", net::redact_url(d.resource)}}));
        d.issuer = d.resource_metadata["authorization_servers"][0].get<std::string>();
        for (const auto& u : authorization_server_metadata_urls(d.issuer)) {
            auto j = get_json(u, why);
            if (!j) continue;
            const std::string issuer = j->value("issuer", "");
            std::string want = d.issuer;
            std::string got = issuer;
            if (got != want) {
                while (!want.empty() && want.back() == '/') want.pop_back();
                if (got != want)
                    return fail(auth_error("issuer_mismatch",
                                           "the authorization server metadata at " + net::redact_url(u) + " names issuer \"" +
                                               net::redact_url(issuer) + "\", not the \"" + net::redact_url(d.issuer) + "\" it was fetched for",
                                           "The metadata may be forged or misconfigured: do not sign in; tell the server's owner.",
                                           json{{"issuer", net::redact_url(d.issuer)}}));
            }
            d.issuer = issuer;
            d.as = std::move(*j);
            break;
        }
        if (d.as.is_null())
            return fail(auth_error("metadata_missing",
                                   "no authorization server metadata found for " + net::redact_url(d.issuer) + " (RFC 8414 and OpenID Connect locations)",
                                   "Check that the authorization server named by the server's metadata is reachable.",
                                   json{{"issuer", net::redact_url(d.issuer)}}));
        const json methods = d.as.value("code_challenge_methods_supported", json::array());
        if (!methods.is_array() || std::find(methods.begin(), methods.end(), json("S256")) == methods.end())
            return fail(auth_error("pkce_unsupported",
                                   "the authorization server " + net::redact_url(d.issuer) + " does not offer PKCE with S256",
                                   "Authorization without PKCE is unsafe and is refused; ask the server's owner to enable S256.",
                                   json{{"issuer", net::redact_url(d.issuer)}}));
        if (!d.as.value("authorization_endpoint", json()).is_string() || !d.as.value("token_endpoint", json()).is_string())
            return fail(auth_error("metadata_missing", "the authorization server " + net::redact_url(d.issuer) + " names no authorization or token endpoint",
                                   "Tell the server's owner: its authorization server metadata is incomplete."));
        return d;
    }

    /// Discovery as revision 2025-03-26 had it, for a server without protected resource metadata:
    /// the MCP server's origin is the authorization server; its RFC 8414 metadata at the root,
    /// else the default endpoints /authorize, /token and /register there (PKCE S256 assumed, as
    /// that revision required it). No `resource` is sent.
    result<discovered> discover_legacy(const std::string& url, const std::string& tried) {
        const auto u = parse_url(url);
        if (!u)
            return fail(auth_error("metadata_missing", "the server URL " + net::redact_url(url) + " cannot be read", "Check the server's URL."));
        discovered d;
        d.issuer = detail::origin_of(*u);
        d.resource_metadata = json::object();
        std::string why;
        if (auto j = get_json(d.issuer + "/.well-known/oauth-authorization-server", why)) {
            std::string got = j->value("issuer", "");
            while (!got.empty() && got.back() == '/') got.pop_back();
            if (got != d.issuer)
                return fail(auth_error("issuer_mismatch",
                                       "the authorization server metadata at " + net::redact_url(d.issuer) + " names issuer \"" + net::redact_url(got) +
                                           "\", not the server's own origin",
                                       "The metadata may be forged or misconfigured: do not sign in; tell the server's owner.",
                                       json{{"issuer", net::redact_url(d.issuer)}}));
            d.as = std::move(*j);
            if (!d.as.contains("code_challenge_methods_supported")) d.as["code_challenge_methods_supported"] = json::array({"S256"});
        } else {
            d.as = json{{"issuer", d.issuer},
                        {"authorization_endpoint", d.issuer + "/authorize"},
                        {"token_endpoint", d.issuer + "/token"},
                        {"registration_endpoint", d.issuer + "/register"},
                        {"code_challenge_methods_supported", json::array({"S256"})}};
        }
        const json methods = d.as.value("code_challenge_methods_supported", json::array());
        if (!methods.is_array() || std::find(methods.begin(), methods.end(), json("S256")) == methods.end())
            return fail(auth_error("pkce_unsupported", "the authorization server " + net::redact_url(d.issuer) + " does not offer PKCE with S256",
                                   "Authorization without PKCE is unsafe and is refused; ask the server's owner to enable S256.",
                                   json{{"issuer", net::redact_url(d.issuer)}}));
        if (!d.as.value("authorization_endpoint", json()).is_string() || !d.as.value("token_endpoint", json()).is_string())
            return fail(auth_error("metadata_missing",
                                   "the server at " + net::redact_url(url) + " publishes no protected resource metadata (tried " + tried +
                                       ") and its origin's authorization server metadata names no authorization or token endpoint",
                                   "Tell the server's owner: its authorization metadata is incomplete."));
        return d;
    }

    /// The client identity at `d`'s authorization server: pre-registered, a metadata document, or registered now.
    result<oauth_client_registration> client_for(const discovered& d) {
        if (!o_.client_id.empty() && (o_.client_issuer.empty() || o_.client_issuer == d.issuer)) {
            oauth_client_registration c;
            c.client_id = o_.client_id;
            c.client_secret = o_.client_secret;
            c.token_endpoint_auth_method = !o_.private_key_pem.empty() ? "private_key_jwt" : o_.client_secret.empty() ? "none" : secret_method(d.as);
            return c;
        }
        if (auto it = clients_.find(d.issuer); it != clients_.end()) return it->second;
        if (!o_.client_metadata_url.empty() && d.as.value("client_id_metadata_document_supported", false)) {
            oauth_client_registration c;
            c.client_id = o_.client_metadata_url;
            clients_[d.issuer] = c;
            return c;
        }
        const std::string endpoint = d.as.value("registration_endpoint", "");
        if (endpoint.empty())
            return fail(auth_error("no_client",
                                   "the authorization server " + net::redact_url(d.issuer) +
                                       " offers no dynamic registration and no client id was configured for it",
                                   "Register a client with the authorization server and give its client_id (and client_secret) in oauth_options, "
                                   "or publish a client ID metadata document (client_metadata_url).",
                                   json{{"issuer", net::redact_url(d.issuer)}}));
        const json supported = d.as.value("token_endpoint_auth_methods_supported", json::array({"client_secret_basic"}));
        auto offers = [&](const char* m) { return supported.is_array() && std::find(supported.begin(), supported.end(), json(m)) != supported.end(); };
        const std::string method = offers("none") ? "none" : offers("client_secret_basic") ? "client_secret_basic" : offers("client_secret_post") ? "client_secret_post" : "none";
        const auto redirect = parse_url(o_.redirect_uri);
        const bool native = redirect && (redirect->scheme != "https" || is_loopback_host(redirect->host));
        json body{{"client_name", o_.client_name},
                  {"redirect_uris", json::array({o_.redirect_uri})},
                  {"grant_types", json::array({"authorization_code", "refresh_token"})},
                  {"response_types", json::array({"code"})},
                  {"token_endpoint_auth_method", method},
                  {"application_type", native ? "native" : "web"}};
        int status = 0;
        auto r = post(endpoint, body.dump(), "application/json", {}, status);
        if (!r || (status != 200 && status != 201) || !r->value("client_id", json()).is_string())
            return fail(auth_error("registration_failed",
                                   "dynamic client registration at " + net::redact_url(endpoint) + " failed" +
                                       (r ? " with HTTP " + std::to_string(status) + oauth_error_text(*r) : ": " + r.error().message),
                                   "Register a client with the authorization server by hand and give its client_id in oauth_options.",
                                   json{{"issuer", net::redact_url(d.issuer)}}));
        oauth_client_registration c;
        c.client_id = (*r)["client_id"].get<std::string>();
        c.client_secret = r->value("client_secret", "");
        c.token_endpoint_auth_method = r->value("token_endpoint_auth_method", c.client_secret.empty() ? std::string("none") : method == "none" ? secret_method(d.as) : method);
        c.redirect_uri = o_.redirect_uri;
        clients_[d.issuer] = c;
        if (o_.on_registration) o_.on_registration(d.issuer, c);
        return c;
    }

    /// Scopes: the challenge's (`want` as given), else the resource's scopes_supported, else the host's.
    void default_scopes(const discovered& d, std::vector<std::string>& want) const {
        if (want.empty() && d.resource_metadata.contains("scopes_supported") && d.resource_metadata["scopes_supported"].is_array())
            for (const auto& sc : d.resource_metadata["scopes_supported"])
                if (sc.is_string()) want.push_back(sc.get<std::string>());
        if (want.empty()) want = o_.scopes;
    }

    /// RFC 7523's grant type: a JWT exchanged for an access token.
    static constexpr std::string_view jwt_bearer_grant = "urn:ietf:params:oauth:grant-type:jwt-bearer";

    /// True when the authorization server lists `grant` in grant_types_supported.
    [[nodiscard]] static bool offers_grant(const json& as, std::string_view grant) {
        const json grants = as.value("grant_types_supported", json());
        return grants.is_array() && std::find(grants.begin(), grants.end(), json(std::string(grant))) != grants.end();
    }

    /// True when tokens come from the client_credentials grant (see the file comment).
    [[nodiscard]] bool uses_client_credentials(const json& as) const {
        if (o_.client_credentials) return true;
        if (o_.client_id.empty() || (o_.client_secret.empty() && o_.private_key_pem.empty())) return false;
        const json grants = as.value("grant_types_supported", json());
        if (!grants.is_array()) return false;
        auto offers = [&](const char* g) { return std::find(grants.begin(), grants.end(), json(g)) != grants.end(); };
        return offers("client_credentials") && !offers("authorization_code");
    }

    /// How to send a client secret to this authorization server: basic unless only post is offered.
    [[nodiscard]] static std::string secret_method(const json& as) {
        const json supported = as.value("token_endpoint_auth_methods_supported", json::array({"client_secret_basic"}));
        auto offers = [&](const char* m) { return supported.is_array() && std::find(supported.begin(), supported.end(), json(m)) != supported.end(); };
        if (offers("client_secret_basic")) return "client_secret_basic";
        if (offers("client_secret_post")) return "client_secret_post";
        return "client_secret_basic";
    }

    /// ": <error> (<error_description>)" from an OAuth error answer, "" when it has none.
    [[nodiscard]] static std::string oauth_error_text(const json& j) {
        const std::string e = j.value("error", json()).is_string() ? j["error"].get<std::string>() : "";
        if (e.empty()) return {};
        const std::string desc = j.value("error_description", json()).is_string() ? j["error_description"].get<std::string>() : "";
        return ": " + e + (desc.empty() ? "" : " (" + desc.substr(0, 200) + ")");
    }

    /// POST to the token endpoint with the client's authentication; new tokens or an error.
    result<void> token_request(const discovered& d, const oauth_client_registration& c, std::vector<std::pair<std::string, std::string>> form,
                               const std::string& asked_scope, const std::string& what) {
        // DPoP: a proof on the token request binds the token to this authorizer's key; the
        // server may ask for its nonce first (RFC 9449 §8): one more try with it.
        const bool use_dpop = o_.dpop && offers_dpop(d.as) && (dpop_.key || (dpop_ = detail::make_dpop_key()).key);
        for (int attempt = 0;; ++attempt) {
            std::string nonce;
            auto r = token_request_once(d, c, form, use_dpop, nonce, what);
            if (!r) return fail(std::move(r).error());
            auto& [status, answer] = *r;
            if (use_dpop && !nonce.empty()) as_nonce_ = nonce;
            if (use_dpop && attempt == 0 && status == 400 && answer.value("error", json()) == "use_dpop_nonce" && !nonce.empty()) continue;
            return take_tokens(d, status, answer, use_dpop, asked_scope, what);
        }
    }

    /// True when the authorization server takes ES256 DPoP proofs.
    [[nodiscard]] static bool offers_dpop(const json& as) {
        const auto a = as.find("dpop_signing_alg_values_supported");
        return a != as.end() && a->is_array() && std::find(a->begin(), a->end(), json("ES256")) != a->end();
    }

    /// One POST to the token endpoint with the client's authentication (and a DPoP proof):
    /// the HTTP status and the JSON answer; `nonce` gets a DPoP-Nonce it sent.
    result<std::pair<int, json>> token_request_once(const discovered& d, const oauth_client_registration& c,
                                                    std::vector<std::pair<std::string, std::string>> form, bool use_dpop, std::string& nonce,
                                                    const std::string& what) {
        std::vector<std::pair<std::string, std::string>> headers;
        if (c.token_endpoint_auth_method == "private_key_jwt") {
            const auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
            const std::string jti = agentkit::random_base64url(16);
            if (jti.empty())
                return fail(auth_error("token_failed", "the random generator failed: no client assertion was made",
                                       "Check that the kernel offers getrandom or /dev/urandom."));
            auto assertion = detail::sign_jwt(o_.private_key_pem, o_.signing_algorithm,
                                              json{{"iss", c.client_id},
                                                   {"sub", c.client_id},
                                                   {"aud", d.issuer},
                                                   {"jti", jti},
                                                   {"iat", now},
                                                   {"exp", now + 300}});
            if (!assertion) return fail(std::move(assertion).error());
            form.emplace_back("client_id", c.client_id);
            form.emplace_back("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
            form.emplace_back("client_assertion", std::move(*assertion));
        } else if (c.token_endpoint_auth_method == "client_secret_basic" && !c.client_secret.empty()) {
            headers.emplace_back("Authorization", "Basic " + base64_encode(net::form_encode(c.client_id) + ":" + net::form_encode(c.client_secret)));
        } else {
            form.emplace_back("client_id", c.client_id);
            if (c.token_endpoint_auth_method == "client_secret_post" && !c.client_secret.empty()) form.emplace_back("client_secret", c.client_secret);
        }
        std::string body;
        for (const auto& [k, v] : form)
            if (k != "resource" || !v.empty())  // no resource: a server of the 2025-03-26 era (legacy discovery)
                body += (body.empty() ? "" : "&") + net::form_encode(k) + "=" + net::form_encode(v);
        const std::string endpoint = d.as["token_endpoint"].get<std::string>();
        if (use_dpop) {
            std::string proof = detail::dpop_proof(dpop_, "POST", endpoint, "", as_nonce_);
            if (proof.empty())
                return fail(auth_error("token_failed", "cannot make a DPoP proof for the token request (OpenSSL refused to sign, or no random source)",
                                       "Set oauth_options::dpop = false to use Bearer tokens, or check the OpenSSL installation."));
            headers.emplace_back("DPoP", std::move(proof));
        }
        int status = 0;
        auto r = post(endpoint, std::move(body), "application/x-www-form-urlencoded", std::move(headers), status, &nonce);
        if (!r)
            return fail(auth_error("token_failed", what + " at " + net::redact_url(endpoint) + " failed: " + r.error().message,
                                   "Check that the authorization server is reachable, then try again."));
        return std::pair<int, json>{status, std::move(*r)};
    }

    /// Take the tokens of a token endpoint's answer, or say why there are none.
    result<void> take_tokens(const discovered& d, int status, const json& answer, bool used_dpop, const std::string& asked_scope,
                             const std::string& what) {
        const json* r = &answer;
        const std::string endpoint = d.as["token_endpoint"].get<std::string>();
        last_token_error_ = r->value("error", json()).is_string() ? (*r)["error"].get<std::string>() : std::string();
        const std::string type = r->value("token_type", json()).is_string() ? (*r)["token_type"].get<std::string>() : "";
        const bool dpop_bound = used_dpop && iequals_ascii(type, "dpop");
        if (status != 200 || !r->value("access_token", json()).is_string() || !(iequals_ascii(type, "bearer") || dpop_bound))
            return fail_auth("token_failed",
                             what + " at " + net::redact_url(endpoint) + " was refused" + (status != 200 ? " with HTTP " + std::to_string(status) : "") +
                                 (oauth_error_text(*r).empty() ? (status == 200 ? ": no Bearer access_token in the answer" : "") : oauth_error_text(*r)),
                             "Authorize again; if it keeps failing, the client registration may be wrong (client_id, client_secret).",
                             json{{"issuer", net::redact_url(d.issuer)}});
        oauth_tokens t;
        t.access_token = (*r)["access_token"].get<std::string>();
        t.dpop = dpop_bound;
        t.refresh_token = r->value("refresh_token", json()).is_string() ? (*r)["refresh_token"].get<std::string>()
                          : tokens_.issuer == d.issuer                   ? tokens_.refresh_token
                                                                         : std::string();
        t.scope = r->value("scope", json()).is_string() ? (*r)["scope"].get<std::string>() : asked_scope;
        t.issuer = d.issuer;
        t.resource = d.resource;
        if (r->value("expires_in", json()).is_number())
            t.expires_at = std::chrono::system_clock::now() + std::chrono::seconds(r->value("expires_in", std::int64_t{0}));
        tokens_ = std::move(t);
        if (o_.on_tokens) o_.on_tokens(tokens_);
        return {};
    }

    result<void> authorize_flow(const std::string& url, const std::string& metadata_hint, std::vector<std::string> want, bool step_up) {
        auto d = discover(url, metadata_hint);
        if (!d) return fail(std::move(d).error());
        last_ = *d;  // for refreshing ahead of expiry (authorization())
        // A held refresh token from the same authorization server: try it first (not on a step-up).
        if (!step_up && !tokens_.refresh_token.empty() && tokens_.issuer == d->issuer) {
            auto c = client_for(*d);
            if (c) {
                const std::string sent = tokens_.access_token;
                auto refreshed = token_request(*d, *c, {{"grant_type", "refresh_token"}, {"refresh_token", tokens_.refresh_token}, {"resource", d->resource}},
                                               tokens_.scope, "refreshing the token");
                if (refreshed && tokens_.access_token != sent) return {};
                tokens_.refresh_token.clear();  // refused: fall through to a new authorization
                // a client the server no longer knows (a registration kept from an earlier run):
                // register again rather than authorize with it
                if (last_token_error_ == "invalid_client" && o_.client_id.empty()) clients_.erase(d->issuer);
            }
        }
        if (streak_ >= o_.max_authorizations)
            return fail_auth("too_many_authorizations",
                             "the server kept refusing after " + std::to_string(streak_) + " authorizations",
                             "Stop retrying: the account may lack access; ask the server's owner.");
        if (o_.jwt_assertion && offers_grant(d->as, jwt_bearer_grant)) {  // an identity from elsewhere: no user, one exchange
            auto c = client_for(*d);
            if (!c) return fail(std::move(c).error());
            default_scopes(*d, want);
            const std::string scope = join(want, " ");
            auto jwt = o_.jwt_assertion(jwt_bearer_context{d->issuer, d->resource, scope});
            if (!jwt || jwt->empty())
                return fail_auth("assertion_failed",
                                 "no assertion for the jwt-bearer grant" + (jwt ? std::string(": it is empty") : ": " + jwt.error().message),
                                 !jwt && !jwt.error().hint.empty() ? jwt.error().hint
                                                                  : "Check where the identity comes from (the workload's token file, the "
                                                                    "identity provider), then try again.");
            ++streak_;
            requested_scopes_ = want;
            std::vector<std::pair<std::string, std::string>> form{
                {"grant_type", std::string(jwt_bearer_grant)}, {"assertion", std::move(*jwt)}, {"resource", d->resource}};
            if (!scope.empty()) form.emplace_back("scope", scope);
            return token_request(*d, *c, std::move(form), scope, "the jwt-bearer token exchange");
        }
        if (uses_client_credentials(d->as)) {  // machine-to-machine: no user, one token request
            auto c = client_for(*d);
            if (!c) return fail(std::move(c).error());
            default_scopes(*d, want);
            const std::string scope = join(want, " ");
            ++streak_;
            requested_scopes_ = want;
            std::vector<std::pair<std::string, std::string>> form{{"grant_type", "client_credentials"}, {"resource", d->resource}};
            if (!scope.empty()) form.emplace_back("scope", scope);
            return token_request(*d, *c, std::move(form), scope, "the client credentials token request");
        }
        if (!o_.authorize)
            return fail_auth("no_authorize_callback", "the server at " + net::redact_url(url) + " needs an OAuth authorization and no authorize callback was given",
                             "Set oauth_options::authorize to open the authorization URL for the user, or give a token in the server's headers.");
        auto c = client_for(*d);
        if (!c) return fail(std::move(c).error());
        default_scopes(*d, want);
        const json as_scopes = d->as.value("scopes_supported", json::array());
        if (o_.offline_access && as_scopes.is_array() && std::find(as_scopes.begin(), as_scopes.end(), json("offline_access")) != as_scopes.end())
            detail::add_scopes(want, {"offline_access"});
        const std::string scope = join(want, " ");
        const std::string verifier = pkce_verifier();
        const std::string state = agentkit::random_base64url(16);
        if (verifier.empty() || state.empty())
            return fail_auth("internal", "the random generator failed", "Check that the kernel offers getrandom or /dev/urandom.");
        std::string auth_url = d->as["authorization_endpoint"].get<std::string>();
        auth_url += auth_url.find('?') == std::string::npos ? '?' : '&';
        auth_url += "response_type=code&client_id=" + net::form_encode(c->client_id) + "&redirect_uri=" + net::form_encode(o_.redirect_uri) +
                    "&code_challenge=" + pkce_challenge(verifier) + "&code_challenge_method=S256&state=" + state +
                    (d->resource.empty() ? "" : "&resource=" + net::form_encode(d->resource)) + (scope.empty() ? "" : "&scope=" + net::form_encode(scope));
        ++streak_;
        ++authorizations_total_;
        requested_scopes_ = want;
        auto back = o_.authorize(auth_url);
        if (!back)
            return fail_auth("authorization_denied", "the authorization was not completed: " + back.error().message,
                             "Sign in and approve the request when the authorization page opens, then try again.");
        const auto bu = parse_url(*back);
        const auto params = detail::query_params(bu ? std::string_view(bu->query) : std::string_view());
        auto one = [&](const char* k) -> std::optional<std::string> {
            if (params.count(k) != 1) return std::nullopt;
            return params.find(k)->second;
        };
        if (auto e = one("error"))
            return fail_auth("authorization_denied",
                             "the authorization server answered " + *e + (one("error_description") ? " (" + one("error_description")->substr(0, 200) + ")" : ""),
                             *e == "access_denied" ? "The user declined; authorize again to use this server." : "Try the authorization again.");
        if (one("state") != state)
            return fail_auth("state_mismatch", "the authorization response does not carry the state that was sent",
                             "The response may be forged or stale: authorize again, from this client.");
        const auto iss = one("iss");
        if (params.count("iss") > 1 || (iss && *iss != d->issuer))
            return fail_auth("iss_mismatch", "the authorization response names another issuer than " + net::redact_url(d->issuer),
                             "The response may come from another authorization server (a mix-up attack): do not retry with it.");
        if (!iss && d->as.value("authorization_response_iss_parameter_supported", false))
            return fail_auth("iss_mismatch", "the authorization response lacks the iss parameter that " + net::redact_url(d->issuer) + " says it sends",
                             "The response may come from another authorization server (a mix-up attack): do not retry with it.");
        const auto code = one("code");
        if (!code || code->empty())
            return fail_auth("authorization_denied", "the authorization response carries no code", "Authorize again.");
        return token_request(*d, *c,
                             {{"grant_type", "authorization_code"},
                              {"code", *code},
                              {"redirect_uri", o_.redirect_uri},
                              {"code_verifier", verifier},
                              {"resource", d->resource}},
                             scope, "the token request");
    }

    oauth_options o_;
    net::http_client http_;
    mutable std::mutex mu_;
    oauth_tokens tokens_;
    std::map<std::string, oauth_client_registration> clients_;  // by issuer
    std::string last_token_error_;  // the OAuth `error` of the last token answer ("" when none)
    std::optional<discovered> last_;  // the metadata of the last flow (refresh ahead of expiry)
    std::string refresh_tried_for_;   // the access token a refresh ahead was tried for
    detail::dpop_key dpop_;           // made at the first token request to a server offering DPoP
    std::string as_nonce_;            // the authorization server's last DPoP-Nonce
    std::string rs_nonce_;            // the MCP server's last DPoP-Nonce
    std::string nonce_retried_;       // the MCP server nonce a refused request was last sent again for
    std::vector<std::string> requested_scopes_;
    int streak_ = 0;
    int authorizations_total_ = 0;
};

/// An enterprise's identity provider that issues ID-JAGs (enterprise-managed authorization:
/// MCP's extension of the identity assertion authorization grant).
struct enterprise_idp {
    std::string token_endpoint;  ///< the identity provider's token endpoint
    std::string client_id;       ///< this client at the identity provider
    std::string client_secret;   ///< its secret there (sent with HTTP Basic); empty: none. Never printed.
    /// The signed-in user's ID token from the provider (single sign-on); asked for at each exchange.
    std::function<result<std::string>()> id_token;
    std::chrono::milliseconds timeout{30000};  ///< the exchange's HTTP request
};

/// A source of JWT-bearer assertions (oauth_options::jwt_assertion) for enterprise-managed
/// authorization: exchanges the user's ID token at the identity provider (RFC 8693 token
/// exchange, requested_token_type urn:ietf:params:oauth:token-type:id-jag) for an ID-JAG whose
/// audience is the MCP server's authorization server and whose resource is the MCP server; the
/// authorization server then trades it for an access token. Errors (`auth.required`, reason
/// token_exchange_failed) name the provider's answer, never a token.
[[nodiscard]] inline std::function<result<std::string>(const jwt_bearer_context&)> id_jag_exchange(enterprise_idp idp) {
    return [idp = std::move(idp)](const jwt_bearer_context& cx) -> result<std::string> {
        auto bad = [&](const std::string& why) {
            return fail(errc::auth_required, "the identity provider did not give an ID-JAG: " + why,
                        "Sign in to the enterprise identity provider again, or ask its administrator to allow this client for " +
                            net::redact_url(cx.resource) + ".",
                        json{{"reason", "token_exchange_failed"}});
        };
        if (!idp.id_token) return bad("no ID token source was given (enterprise_idp::id_token)");
        auto id_token = idp.id_token();
        if (!id_token) return bad("the ID token could not be had: " + id_token.error().message);
        std::vector<std::pair<std::string, std::string>> form{{"grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"},
                                                               {"requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"},
                                                               {"subject_token", *id_token},
                                                               {"subject_token_type", "urn:ietf:params:oauth:token-type:id_token"},
                                                               {"audience", cx.issuer},
                                                               {"resource", cx.resource}};
        if (!cx.scope.empty()) form.emplace_back("scope", cx.scope);
        net::client_request rq;
        rq.method = "POST";
        rq.url = idp.token_endpoint;
        rq.timeout = idp.timeout;
        rq.max_response_bytes = std::size_t{1} << 20U;
        if (idp.client_secret.empty()) form.emplace_back("client_id", idp.client_id);
        else rq.headers.emplace_back("Authorization", "Basic " + base64_encode(net::form_encode(idp.client_id) + ":" + net::form_encode(idp.client_secret)));
        for (const auto& [k, v] : form) rq.body += (rq.body.empty() ? "" : "&") + net::form_encode(k) + "=" + net::form_encode(v);
        rq.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
        rq.headers.emplace_back("Accept", "application/json");
        net::http_client http;
        auto r = http.perform(rq);
        if (!r) return bad("the token exchange at " + net::redact_url(idp.token_endpoint) + " failed: " + r.error().message);
        const json j = json::parse(r->body, nullptr, false);
        const std::string err = j.is_object() && j.value("error", json()).is_string() ? j["error"].get<std::string>() : "";
        if (r->status != 200 || !j.is_object() || !j.value("access_token", json()).is_string())
            return bad("the token exchange at " + net::redact_url(idp.token_endpoint) + " answered HTTP " + std::to_string(r->status) +
                       (err.empty() ? std::string() : ": " + err));
        if (j.value("issued_token_type", json()) != "urn:ietf:params:oauth:token-type:id-jag")
            return bad("the token exchange answered a token that is not an ID-JAG (issued_token_type)");
        return j["access_token"].get<std::string>();
    };
}

}  // namespace agentkit::mcp
