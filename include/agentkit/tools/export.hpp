// agentkit/tools/export.hpp — tool definitions in the three dialects models and clients speak:
// MCP (tools/list), Anthropic Messages `tools`, OpenAI function tools (Chat Completions and
// Responses), with OpenAI's strict mode.
#pragma once

#include <agentkit/core/declared_order.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/tools/tool.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit {

/// The tool-definition format: MCP tools/list, Anthropic Messages, OpenAI Chat Completions or Responses.
enum class dialect { mcp, anthropic, openai_chat, openai_responses };

/// How tools are exported to the OpenAI dialects.
struct export_options {
    /// OpenAI strict function calling (Structured Outputs). When a schema cannot be made strict
    /// (maps or untyped values), the tool is exported with `strict: false`.
    bool strict = true;
};

namespace detail {

/// Keywords OpenAI's strict mode rejects; they are dropped (the validator still enforces them
/// on our side) and said in the property's description instead (dropped_keywords_note).
inline bool strict_unsupported_keyword(std::string_view k) noexcept {
    return k == "default" || k == "examples" || k == "minLength" || k == "maxLength";
}

inline result<json> strictify(const json& s, std::string_view path);

/// What the dropped keywords said, for the description: `default: "celsius"; 1 to 40
/// characters; e.g. "Oslo"` (empty when nothing was dropped).
inline std::string dropped_keywords_note(const json& s) {
    std::vector<std::string> parts;
    if (auto d = s.find("default"); d != s.end()) parts.push_back("default: " + d->dump());
    const auto bound = [&](const char* k) -> std::optional<std::size_t> {
        auto v = s.find(k);
        if (v == s.end() || !v->is_number_integer() || v->get<long long>() < 0) return std::nullopt;
        return static_cast<std::size_t>(v->get<long long>());
    };
    const auto lo = bound("minLength"), hi = bound("maxLength");
    if (lo && hi) parts.push_back(std::to_string(*lo) + " to " + count_noun(*hi, "character"));
    else if (lo) parts.push_back("at least " + count_noun(*lo, "character"));
    else if (hi) parts.push_back("at most " + count_noun(*hi, "character"));
    if (auto e = s.find("examples"); e != s.end() && e->is_array() && !e->empty()) {
        std::string ex;
        for (const auto& x : *e) ex += (ex.empty() ? "" : ", ") + x.dump();
        parts.push_back("e.g. " + ex);
    }
    return join(parts, "; ");
}

inline result<json> strict_nullable(json s) {
    // Make an optional property nullable: add "null" to its type (and to its enum).
    if (s.contains("type") && s["type"].is_string() && s["type"] != "object" && s["type"] != "array") {
        std::string t = s["type"].get<std::string>();
        s["type"] = json::array({t, "null"});
        if (s.contains("enum") && s["enum"].is_array()) s["enum"].push_back(nullptr);
        return s;
    }
    return json{{"anyOf", json::array({std::move(s), json{{"type", "null"}}})}};
}

inline result<json> strictify(const json& s, std::string_view path) {
    if (!s.is_object() || s.empty() || !s.contains("type"))
        return fail(errc::internal, std::string(path) + ": untyped value cannot be strict");
    json out = json::object();
    for (auto it = s.begin(); it != s.end(); ++it)
        if (!strict_unsupported_keyword(it.key())) out[it.key()] = *it;
    // what strict mode does not take is said in words, so the model still knows it
    if (const std::string note = dropped_keywords_note(s); !note.empty()) {
        const std::string desc = out.value("description", std::string());
        out["description"] = desc.empty() ? note : desc + " (" + note + ")";
    }
    const json& type = s["type"];
    if (type == "object") {
        if (!s.contains("properties")) return fail(errc::internal, std::string(path) + ": a map cannot be strict");
        json req = s.value("required", json::array());
        json props = json::object();
        json all = req;  // the declared required ones first, in their order; then the rest, in declared order
        const std::vector<std::string> names = declared_order(s["properties"]);
        for (const std::string& name : names) {
            auto sub = strictify(s["properties"][name], std::string(path) + "/" + name);
            if (!sub) return sub;
            bool required = false;
            for (const auto& r : req)
                if (r == name) required = true;
            if (!required) {
                auto n = strict_nullable(std::move(*sub));
                if (!n) return n;
                props[name] = std::move(*n);
                all.push_back(name);
            } else {
                props[name] = std::move(*sub);
            }
        }
        remember_declared_order(props, names);  // its content changed: its order is said again
        out["properties"] = std::move(props);
        out["required"] = std::move(all);
        out["additionalProperties"] = false;
    } else if (type == "array" && s.contains("items")) {
        auto sub = strictify(s["items"], std::string(path) + "/items");
        if (!sub) return sub;
        out["items"] = std::move(*sub);
    }
    return out;
}

}  // namespace detail

/// The schema rewritten for OpenAI strict mode: every object closed (additionalProperties
/// false), every property required, optional ones nullable. Fails for maps and untyped values.
[[nodiscard]] inline result<json> strict_schema(const json& schema) { return detail::strictify(schema, ""); }

namespace detail {
/// The schema as a model is shown it outside OpenAI's strict mode: without
/// `additionalProperties: false`, which costs tokens in every tool and changes nothing, since
/// the parser rejects an unknown property anyway (args.invalid, with the closest known name).
inline json advertised_schema(json s) {
    if (s.is_object()) {
        if (auto a = s.find("additionalProperties"); a != s.end() && a->is_boolean() && !a->get<bool>()) s.erase(a);
        for (auto& [k, v] : s.items()) v = advertised_schema(std::move(v));
    } else if (s.is_array()) {
        for (auto& v : s) v = advertised_schema(std::move(v));
    }
    return s;
}
}  // namespace detail

/// An MCP tool definition (tools/list entry).
[[nodiscard]] inline json to_mcp(const tool_info& t) {
    json j = json::object();
    j["name"] = t.name;
    if (!t.title.empty()) j["title"] = t.title;
    j["description"] = t.description;
    j["inputSchema"] = t.schema_as_sent ? t.input_schema : detail::advertised_schema(t.input_schema);
    if (t.output_schema) j["outputSchema"] = *t.output_schema;
    if (t.icons.is_array() && !t.icons.empty()) j["icons"] = t.icons;
    // Only what the traits promise beyond the spec's defaults (tools/traits.hpp): an absent hint
    // means readOnly false, destructive true, idempotent false, openWorld true, so a tool that
    // promises nothing, or only what the defaults already say, has no annotations at all.
    json ann = json::object();
    if (!t.title.empty()) ann["title"] = t.title;
    const traits& tr = t.traits;
    if (tr.is_read_only()) {
        ann["readOnlyHint"] = true;  // destructive and idempotent mean nothing for a read-only tool
    } else {
        if (tr.is_non_destructive() && !tr.is_destructive()) ann["destructiveHint"] = false;
        if (tr.is_idempotent()) ann["idempotentHint"] = true;
    }
    if (tr.is_closed_world()) ann["openWorldHint"] = false;
    if (!ann.empty()) j["annotations"] = std::move(ann);
    return j;
}

/// An Anthropic Messages API tool.
[[nodiscard]] inline json to_anthropic(const tool_info& t) {
    return json{{"name", t.name}, {"description", t.description},
                {"input_schema", t.schema_as_sent ? t.input_schema : detail::advertised_schema(t.input_schema)}};
}

namespace detail {
inline void openai_parameters(json& target, const tool_info& t, const export_options& o) {
    if (o.strict) {
        if (auto s = strict_schema(t.input_schema)) {
            target["parameters"] = std::move(*s);
            target["strict"] = true;
            return;
        }
    }
    target["parameters"] = t.input_schema;
    target["strict"] = false;
}
}  // namespace detail

/// An OpenAI Chat Completions function tool: {"type":"function","function":{...}}.
[[nodiscard]] inline json to_openai_chat(const tool_info& t, const export_options& o = {}) {
    json fn{{"name", t.name}, {"description", t.description}};
    detail::openai_parameters(fn, t, o);
    return json{{"type", "function"}, {"function", std::move(fn)}};
}

/// An OpenAI Responses API function tool: {"type":"function","name":...,"parameters":...}.
[[nodiscard]] inline json to_openai_responses(const tool_info& t, const export_options& o = {}) {
    json j{{"type", "function"}, {"name", t.name}, {"description", t.description}};
    detail::openai_parameters(j, t, o);
    return j;
}

/// One tool in the given dialect.
[[nodiscard]] inline json export_tool(const tool_info& t, dialect d, const export_options& o = {}) {
    switch (d) {
        case dialect::mcp: return to_mcp(t);
        case dialect::anthropic: return to_anthropic(t);
        case dialect::openai_chat: return to_openai_chat(t, o);
        case dialect::openai_responses: return to_openai_responses(t, o);
    }
    return json();
}

/// Every tool of a list in the given dialect, as a JSON array.
[[nodiscard]] inline json export_tools(const std::vector<tool_info>& tools, dialect d, const export_options& o = {}) {
    json a = json::array();
    for (const auto& t : tools) a.push_back(export_tool(t, d, o));
    return a;
}

}  // namespace agentkit
