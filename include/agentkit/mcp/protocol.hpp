// agentkit/mcp/protocol.hpp — MCP wire vocabulary: protocol revisions, error codes, log levels,
// and the JSON shapes of content blocks and tool results.
//
// Content blocks (agentkit::content_block) map to MCP content as follows: text → text; image →
// image, or audio when its MIME type is audio/* (audio_block() makes one); an artifact with
// embedded contents → an embedded resource; an artifact without → a resource_link; structured
// JSON → text; a tool reference → a line of text.
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/json_schema.hpp>
#include <agentkit/tools/output.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::mcp {

/// Protocol revisions this server speaks, newest first.
inline constexpr std::array<std::string_view, 5> supported_versions{"2026-07-28", "2025-11-25", "2025-06-18",
                                                                     "2025-03-26", "2024-11-05"};
/// The first revision of the stateless era (per-request `_meta`, server/discover).
inline constexpr std::string_view stateless_version = "2026-07-28";
/// The newest revision negotiated through initialize.
inline constexpr std::string_view latest_handshake_version = "2025-11-25";

/// `_meta` keys of the stateless era.
namespace meta_key {
inline constexpr const char* protocol_version = "io.modelcontextprotocol/protocolVersion";  ///< the revision a request is made in
inline constexpr const char* client_capabilities = "io.modelcontextprotocol/clientCapabilities";  ///< what the client can do, per request
inline constexpr const char* client_info = "io.modelcontextprotocol/clientInfo";  ///< the client's name and version, per request
inline constexpr const char* log_level = "io.modelcontextprotocol/logLevel";  ///< the least severe log level the client wants on this request
inline constexpr const char* server_info = "io.modelcontextprotocol/serverInfo";  ///< the server's name and version (server/discover)
inline constexpr const char* subscription_id = "io.modelcontextprotocol/subscriptionId";  ///< the subscription a notification or subscriptions/listen answer belongs to
}  // namespace meta_key

/// JSON-RPC and MCP error codes.
namespace code {
inline constexpr int parse_error = -32700;  ///< JSON-RPC: the message could not be read (not JSON, too large, too deep)
inline constexpr int invalid_request = -32600;            ///< JSON-RPC: not a valid request object
inline constexpr int method_not_found = -32601;           ///< JSON-RPC: no such method
inline constexpr int invalid_params = -32602;  ///< JSON-RPC: bad parameters (also unknown tools, prompts and resources)
inline constexpr int internal_error = -32603;             ///< JSON-RPC: the server failed
inline constexpr int url_elicitation_required = -32042;   ///< 2025-11-25: data.elicitations (URL mode) to complete before a retry
inline constexpr int header_mismatch = -32020;            ///< 2026-07-28 HTTP: headers disagree with the body
inline constexpr int missing_client_capability = -32021;  ///< 2026-07-28: data.requiredCapabilities
inline constexpr int unsupported_version = -32022;        ///< data.supported, data.requested
}  // namespace code

/// The params field a stateless-era request names in its Mcp-Name header (tools/call and
/// prompts/get: "name"; resources/read: "uri"; the tasks extension's tasks/get, tasks/update and
/// tasks/cancel: "taskId", which routes a task to the server holding it); nullptr for the others.
[[nodiscard]] inline const char* mcp_name_field(std::string_view method) noexcept {
    if (method == "tools/call" || method == "prompts/get") return "name";
    if (method == "resources/read") return "uri";
    if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel") return "taskId";
    return nullptr;
}

/// The tasks extension (2026-07-28; the server's side in mcp/server/tasks.hpp): its identifier,
/// whether a client's capabilities declare it, the -32021 data naming it.
inline constexpr std::string_view tasks_extension = "io.modelcontextprotocol/tasks";

/// True when a client's capabilities declare the tasks extension.
[[nodiscard]] inline bool declares_tasks(const json& caps) {
    if (!caps.is_object()) return false;
    const auto ext = caps.find("extensions");
    if (ext == caps.end() || !ext->is_object()) return false;
    const auto t = ext->find(std::string(tasks_extension));
    return t != ext->end() && t->is_object();
}

/// The -32021 error data naming the extension a request needs.
[[nodiscard]] inline json tasks_required_capabilities() {
    return json{{"requiredCapabilities", {{"extensions", {{std::string(tasks_extension), json::object()}}}}}};
}


/// The elicitation mode of an elicitation/create's params: "url" or "form" (the default when
/// `mode` is absent, as before 2025-11-25); anything else is returned as given.
[[nodiscard]] inline std::string elicitation_mode(const json& params) {
    if (!params.is_object() || !params.contains("mode")) return "form";
    const json& m = params["mode"];
    return m.is_string() ? m.get<std::string>() : m.dump();
}

/// True when client capabilities `caps` declare elicitation in `mode` ("form" or "url"); an
/// empty elicitation object means form mode only (2025-11-25, for older clients).
[[nodiscard]] inline bool elicitation_mode_declared(const json& caps, std::string_view mode) {
    if (!caps.is_object() || !caps.contains("elicitation")) return false;
    const json& e = caps["elicitation"];
    if (!e.is_object()) return false;
    if (e.empty() || (!e.contains("form") && !e.contains("url"))) return mode == "form";
    return e.contains(std::string(mode)) && !e[std::string(mode)].is_null();
}

/// True for a revision this server speaks.
[[nodiscard]] inline bool is_supported_version(std::string_view v) noexcept {
    return std::find(supported_versions.begin(), supported_versions.end(), v) != supported_versions.end();
}

/// True for a revision negotiated through initialize (the handshake era).
[[nodiscard]] inline bool is_handshake_version(std::string_view v) noexcept {
    return is_supported_version(v) && v != stateless_version;
}

/// One tool parameter an HTTP client mirrors into a header (SEP-2243, the 2026-07-28 wire): the
/// inputSchema property `property` annotated "x-mcp-header": `header` travels as Mcp-Param-<header>.
struct parameter_header {
    std::string property;  ///< the argument's name in inputSchema.properties
    std::string header;    ///< the x-mcp-header value (the header is "Mcp-Param-" + header)
};

/// The x-mcp-header annotations of a tool's inputSchema, or nothing when one is invalid (then the
/// tool must not be used): a name that is empty, not an HTTP token (space, colon, non-ASCII,
/// control characters) or used twice ignoring case, or an annotation on a property whose type is
/// not string, integer or boolean.
[[nodiscard]] inline std::optional<std::vector<parameter_header>> parameter_headers(const json& input_schema) {
    std::vector<parameter_header> out;
    if (!input_schema.is_object() || !input_schema.contains("properties") || !input_schema["properties"].is_object()) return out;
    for (const auto& [prop, def] : input_schema["properties"].items()) {
        if (!def.is_object() || !def.contains("x-mcp-header")) continue;
        const json& h = def["x-mcp-header"];
        if (!h.is_string() || h.get_ref<const std::string&>().empty()) return std::nullopt;
        const std::string& name = h.get_ref<const std::string&>();
        for (char ch : name) {
            const auto c = static_cast<unsigned char>(ch);
            const bool token = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                               std::string_view("!#$%&'*+-.^_`|~").find(ch) != std::string_view::npos;
            if (!token) return std::nullopt;
        }
        if (def.contains("type")) {
            const json& t = def["type"];
            if (!t.is_string() || (t != "string" && t != "integer" && t != "boolean")) return std::nullopt;
        }
        for (const auto& seen : out) {
            if (seen.header.size() != name.size()) continue;
            bool same = true;
            for (std::size_t i = 0; i < name.size() && same; ++i)
                same = (seen.header[i] | 0x20) == (name[i] | 0x20);
            if (same) return std::nullopt;
        }
        out.push_back({prop, name});
    }
    return out;
}

/// Log levels of notifications/message, lowest first.
inline constexpr std::array<std::string_view, 8> log_levels{"debug", "info",     "notice", "warning",
                                                            "error", "critical", "alert",  "emergency"};

/// The rank of a log level (debug 0 … emergency 7), -1 for an unknown one.
[[nodiscard]] inline int level_rank(std::string_view l) noexcept {
    for (std::size_t i = 0; i < log_levels.size(); ++i)
        if (log_levels[i] == l) return static_cast<int>(i);
    return -1;
}

/// Audio content (MCP `{"type": "audio"}`): an image-kind block whose MIME type is audio/*.
[[nodiscard]] inline content_block audio_block(std::string base64, std::string mime_type) {
    return content_block::make_image(std::move(base64), std::move(mime_type));
}

namespace detail {

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
        case content_block::kind::image: {
            const bool audio = b.mime_type.rfind("audio/", 0) == 0;
            return json{{"type", audio ? "audio" : "image"}, {"data", b.text}, {"mimeType", b.mime_type}};
        }
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

/// The JSON Schema check (moved to core/json_schema.hpp; kept here under its old name).
inline std::optional<std::string> schema_violation(const json& s, const json& v) { return agentkit::json_schema_violation(s, v); }

/// A page of `total` items after `cursor` ("o<offset>"; null or absent for the first page).
struct page {
    std::size_t start = 0;
    std::size_t count = 0;
    bool ok = true;
    std::optional<std::string> next;
};

inline page page_of(const json& params, std::size_t total, std::size_t page_size) {
    page p;
    if (params.is_object() && params.contains("cursor") && !params["cursor"].is_null()) {
        const json& c = params["cursor"];
        p.ok = c.is_string();
        if (p.ok) {
            const std::string s = c.get<std::string>();
            p.ok = s.size() > 1 && s.size() < 12 && s[0] == 'o' && s.find_first_not_of("0123456789", 1) == std::string::npos;
            if (p.ok) p.start = static_cast<std::size_t>(std::stoull(s.substr(1)));
            p.ok = p.ok && p.start <= total;
        }
        if (!p.ok) return p;
    }
    p.count = page_size == 0 ? total - p.start : std::min(page_size, total - p.start);
    if (p.start + p.count < total) p.next = "o" + std::to_string(p.start + p.count);
    return p;
}


/// What an MCP request is about, for reports: a tools/call's or prompts/get's name, a
/// resources/read's URI; "" for other methods.
[[nodiscard]] inline std::string request_target(std::string_view method, const json& params) {
    if (!params.is_object()) return {};
    const char* key = method == "tools/call" || method == "prompts/get" ? "name" : method == "resources/read" ? "uri" : nullptr;
    if (key == nullptr) return {};
    auto it = params.find(key);
    return it != params.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace detail

/// The tools/call result for a tool output (content, structuredContent, isError;
/// `omit_false_is_error`: isError only when true).
[[nodiscard]] inline json call_result(const tool_output& out, bool omit_false_is_error = false) {
    json content = json::array();
    for (const auto& b : out.content) content.push_back(detail::content_json(b));
    json r{{"content", std::move(content)}};
    if (out.is_error || !omit_false_is_error) r["isError"] = out.is_error;
    if (out.structured && !out.is_error) r["structuredContent"] = *out.structured;
    return r;
}

}  // namespace agentkit::mcp
