// agentkit-conformance-client: mcp::client driven by the official MCP conformance kit's client
// scenarios (npm @modelcontextprotocol/conformance). The kit starts a scenario server, runs
//
//   MCP_CONFORMANCE_SCENARIO=<scenario> agentkit-conformance-client <server URL>
//
// and scores what reaches its server. This client does what a host would: connect over
// Streamable HTTP at the revision the kit names (MCP_CONFORMANCE_PROTOCOL_VERSION; 2026-07-28 is
// the stateless wire, else the initialize handshake), list the tools, call the ones the
// scenario's context names (toolCalls, with their arguments) or else each with arguments made
// from its inputSchema (numbers 1, 2, ...; strings "x"; booleans true; the JSON Schema
// preservation scenario: the kept schema handed back to its echo tool), answer elicitation by
// accepting the schema's defaults, and close the session. A server that asks for authorization (the auth/* scenarios) gets MCP's
// OAuth 2.1 flow (mcp/http/oauth.hpp) with this client's identity: pre-registered credentials from
// MCP_CONFORMANCE_CONTEXT when the scenario gives them (a secret, or a private key for
// private_key_jwt; an authorization server that only offers client_credentials gets that grant,
// the client credentials extension; a workload JWT, or an ID-JAG the identity provider gives
// for the user's ID token, is exchanged with the jwt-bearer grant: the workload identity and
// enterprise-managed authorization extensions), else the client ID metadata document URL
// the kit expects, else dynamic registration; the authorization page is fetched headless and its
// redirect is followed by hand (the kit's authorization server approves at once). Exit status 0
// when every step succeeded; what happened goes to stderr (never a token).
#include <agentkit/agentkit.hpp>
#include <agentkit/net/http_client.hpp>
#include <agentkit/mcp/http/client.hpp>
#include <agentkit/mcp/http/oauth.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace ak = agentkit;
namespace mcp = agentkit::mcp;
using ak::json;

namespace {

/// Arguments for a tool from its inputSchema: the required properties (all of them when none are
/// required), each a simple value of its type (its default when it has one).
json arguments_for(const json& schema) {
    json args = json::object();
    if (!schema.is_object() || !schema.contains("properties") || !schema["properties"].is_object()) return args;
    int n = 0;
    for (const auto& [name, p] : schema["properties"].items()) {
        if (p.contains("default")) {
            args[name] = p["default"];
            continue;
        }
        const std::string type = p.is_object() && p.contains("type") && p["type"].is_string() ? p["type"].get<std::string>() : "string";
        if (type == "number" || type == "integer") args[name] = ++n;
        else if (type == "boolean") args[name] = true;
        else if (type == "array") args[name] = json::array();
        else if (type == "object") args[name] = json::object();
        else if (p.contains("enum") && p["enum"].is_array() && !p["enum"].empty()) args[name] = p["enum"][0];
        else args[name] = "x";
    }
    return args;
}

/// Accept an elicitation with the requested schema's defaults.
ak::result<json> accept_defaults(const json& params) {
    json content = json::object();
    const json schema = params.value("requestedSchema", json::object());
    if (schema.contains("properties") && schema["properties"].is_object())
        for (const auto& [name, p] : schema["properties"].items())
            if (p.is_object() && p.contains("default")) content[name] = p["default"];
    return json{{"action", "accept"}, {"content", std::move(content)}};
}

/// The user agent, headless: fetch the authorization URL without following its redirect and
/// return where it sends the user back (the kit's authorization server approves at once).
ak::result<std::string> follow_authorization(const std::string& url) {
    ak::net::http_client http;
    ak::net::client_request rq;
    rq.url = url;
    rq.timeout = std::chrono::seconds(10);
    auto r = http.perform(rq);
    if (!r) return ak::fail(std::move(r).error());
    const std::string location = r->header("location");
    if (r->status / 100 != 3 || location.empty())
        return ak::fail(ak::errc::auth_required, "the authorization page answered HTTP " + std::to_string(r->status) + " without a redirect");
    return location;
}

/// OAuth for the auth/* scenarios (see the file comment).
std::shared_ptr<mcp::oauth_authorizer> authorizer() {
    mcp::oauth_options oo;
    oo.client_name = "agentkit-conformance-client";
    oo.redirect_uri = "http://localhost:3000/callback";
    oo.client_metadata_url = "https://conformance-test.local/client-metadata.json";
    oo.authorize = follow_authorization;
    if (const char* ctx = std::getenv("MCP_CONFORMANCE_CONTEXT")) {
        const json c = json::parse(ctx, nullptr, false);
        if (c.is_object() && c.contains("client_id") && c["client_id"].is_string()) {
            oo.client_id = c["client_id"].get<std::string>();
            oo.client_secret = c.value("client_secret", "");
            // the client credentials extension's private_key_jwt scenario gives a key instead
            oo.private_key_pem = c.value("private_key_pem", "");
            oo.signing_algorithm = c.value("signing_algorithm", "ES256");
            // the workload identity scenario gives the workload's JWT, as a platform would
            if (c.contains("valid_jwt") && c["valid_jwt"].is_string())
                oo.jwt_assertion = [jwt = c["valid_jwt"].get<std::string>()](const mcp::jwt_bearer_context&) -> ak::result<std::string> {
                    return jwt;
                };
            // the enterprise-managed scenario: the user's ID token from its identity provider
            if (c.contains("idp_token_endpoint") && c.contains("idp_id_token") && c["idp_id_token"].is_string()) {
                mcp::enterprise_idp idp;
                idp.token_endpoint = c.value("idp_token_endpoint", "");
                idp.client_id = c.value("idp_client_id", "");
                idp.id_token = [t = c["idp_id_token"].get<std::string>()]() -> ak::result<std::string> { return t; };
                oo.jwt_assertion = mcp::id_jag_exchange(std::move(idp));
            }
        }
    }
    return std::make_shared<mcp::oauth_authorizer>(std::move(oo));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: MCP_CONFORMANCE_SCENARIO=<scenario> agentkit-conformance-client <server URL>\n");
        return 2;
    }
    const char* scenario_env = std::getenv("MCP_CONFORMANCE_SCENARIO");
    const std::string scenario = scenario_env != nullptr ? scenario_env : "";
    mcp::http_server_endpoint ep;
    ep.url = argv[argc - 1];
    ep.authorizer = authorizer();
    mcp::client_options o;
    o.server_name = "conformance:" + scenario;
    o.client_name = "agentkit-conformance-client";
    o.on_elicitation = accept_defaults;
    o.on_sampling = [](const json&) -> ak::result<json> {
        return json{{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "A sampled answer."}}}, {"model", "agentkit-conformance"}};
    };
    o.roots_enabled = true;
    // The revision the kit runs the scenario at: "2026-07-28" is the stateless wire.
    if (const char* v = std::getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"); v != nullptr && std::string(v) == mcp::stateless_version)
        o.protocol_version = v;
    auto c = mcp::client::connect(std::make_unique<mcp::http_client_transport>(ep), o);
    if (!c) {
        std::fprintf(stderr, "%s\n", c.error().to_text().c_str());
        return 1;
    }
    int failures = 0;
    auto tools = (*c)->list_tools();
    if (!tools) {
        std::fprintf(stderr, "%s\n", tools.error().to_text().c_str());
        return 1;
    }
    std::fprintf(stderr, "scenario %s: %zu tools\n", scenario.c_str(), tools->size());
    // These scenarios' servers only list tools (json-schema-ref-no-deref: that listing never
    // fetches a $ref's URL).
    // The calls a scenario asks for (its context's toolCalls: name and arguments), else each tool.
    json calls = json::array();
    if (const char* ctx = std::getenv("MCP_CONFORMANCE_CONTEXT")) {
        const json context = json::parse(ctx, nullptr, false);
        if (context.is_object() && context.contains("toolCalls") && context["toolCalls"].is_array()) calls = context["toolCalls"];
    }
    for (const auto& call : calls) {
        const std::string name = call.value("name", "");
        auto r = (*c)->call_tool(name, call.value("arguments", json::object()));
        if (!r) ++failures;
        std::fprintf(stderr, "%s: %s\n", name.c_str(), r ? r->joined_text().substr(0, 200).c_str() : r.error().to_text().c_str());
    }
    // json-schema-2020-12-preservation: the kit's server offers a tool whose inputSchema uses the
    // 2020-12 vocabulary and an echo tool; the client passes back the schema it kept, as a host
    // would show it to a model (every keyword as the server sent it).
    if (scenario == "json-schema-2020-12-preservation") {
        const ak::tool_info* focal = nullptr;
        for (const auto& t : *tools)
            if (t.name != "json_schema_echo") focal = &t;
        if (focal == nullptr) {
            std::fprintf(stderr, "json-schema-2020-12-preservation: the server listed no tool to echo\n");
            return 1;
        }
        auto r = (*c)->call_tool("json_schema_echo", json{{"schema", focal->input_schema}});
        std::fprintf(stderr, "json_schema_echo: %s\n", r ? r->joined_text().substr(0, 200).c_str() : r.error().to_text().c_str());
        (*c)->close();
        return r && !r->is_error ? 0 : 1;
    }
    if (calls.empty() && scenario != "initialize" && scenario != "json-schema-ref-no-deref")
        for (const auto& t : *tools) {
            auto r = (*c)->call_tool(t.name, arguments_for(t.input_schema));
            if (!r) {
                ++failures;
                std::fprintf(stderr, "%s: %s\n", t.name.c_str(), r.error().to_text().c_str());
            } else {
                std::fprintf(stderr, "%s: %s%s\n", t.name.c_str(), r->is_error ? "(error) " : "", r->joined_text().substr(0, 200).c_str());
            }
        }
    (*c)->close();
    return failures == 0 ? 0 : 1;
}
