// agentkit/core/json_schema.hpp — checking a JSON value against a JSON Schema.
//
//   if (auto bad = agentkit::json_schema_violation(schema, args)) ... // "/city: expected "string", got integer"
//
// One checker for every schema agentkit meets: its own generated schemas (the MCP server checks
// typed output against outputSchema) and schemas it is handed at run time (a remote MCP server's
// inputSchema, checked before a call leaves the host). The keywords checked: type, properties,
// required, additionalProperties, items, prefixItems, enum, const, minimum/maximum (and the
// exclusive ones), minLength/maxLength, minItems/maxItems, anyOf, oneOf, allOf, not, and `$ref`
// to a place in the same document ("#", "#/$defs/x", "#/definitions/x", any JSON pointer).
// Other keywords (formats, patterns, remote references) are not checked: the server that owns the
// schema still has the last word. Schemas are never expanded or rewritten: `$ref` is resolved
// only while checking.
#pragma once

#include <agentkit/core/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentkit {

namespace detail {

/// The JSON Schema type name of a value ("integer" for whole numbers).
inline const char* json_kind(const json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "boolean";
    if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
    if (v.is_number()) return "number";
    if (v.is_string()) return "string";
    if (v.is_array()) return "array";
    return "object";
}

/// True when `v` is of the JSON Schema type `t` (an integral float is an integer).
inline bool type_matches(std::string_view t, const json& v) {
    if (t == "number") return v.is_number();
    if (t == "integer") {
        if (v.is_number_integer() || v.is_number_unsigned()) return true;
        if (!v.is_number_float()) return false;
        const double d = v.get<double>();
        return d == static_cast<double>(static_cast<std::int64_t>(d));
    }
    return t == json_kind(v);
}

/// The schema a same-document `$ref` ("#", "#/$defs/x") points at in `root`; nullptr otherwise.
inline const json* resolve_schema_ref(const json& root, const std::string& ref) {
    if (ref.empty() || ref[0] != '#') return nullptr;
    if (ref.size() == 1) return &root;
    if (ref[1] != '/') return nullptr;  // anchors ("#name") are not resolved
    std::string pointer;
    // the fragment is URI-encoded: %25 → %, the rest as is (a JSON pointer after that)
    for (std::size_t i = 1; i < ref.size(); ++i) {
        if (ref[i] == '%' && i + 2 < ref.size()) {
            const std::string hex = ref.substr(i + 1, 2);
            if (hex.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos) {
                pointer += static_cast<char>(std::stoi(hex, nullptr, 16));
                i += 2;
                continue;
            }
        }
        pointer += ref[i];
    }
    try {
        const json::json_pointer p(pointer);
        if (!root.contains(p)) return nullptr;
        return &root.at(p);
    } catch (...) {
        return nullptr;
    }
}

inline std::optional<std::string> schema_violation_in(const json& root, const json& s, const json& v, const std::string& at,
                                                      std::size_t depth) {
    if (!s.is_object() || depth > 64) {
        if (s.is_boolean() && !s.get<bool>()) return (at.empty() ? std::string("/") : at) + ": no value is allowed here";
        return std::nullopt;
    }
    const std::string where = at.empty() ? "/" : at;
    if (auto r = s.find("$ref"); r != s.end() && r->is_string()) {
        if (const json* target = resolve_schema_ref(root, r->get<std::string>()))
            if (auto bad = schema_violation_in(root, *target, v, at, depth + 1)) return bad;
    }
    if (auto t = s.find("type"); t != s.end()) {
        bool ok = false;
        if (t->is_string()) ok = type_matches(t->get<std::string>(), v);
        else if (t->is_array())
            for (const auto& e : *t) ok = ok || (e.is_string() && type_matches(e.get<std::string>(), v));
        else ok = true;
        if (!ok) return where + ": expected " + t->dump() + ", got " + json_kind(v);
    }
    if (auto e = s.find("enum"); e != s.end() && e->is_array()) {
        if (std::find(e->begin(), e->end(), v) == e->end()) return where + ": not one of " + e->dump();
    }
    if (auto c = s.find("const"); c != s.end() && *c != v) return where + ": must be " + c->dump();
    if (v.is_number()) {
        const double d = v.get<double>();
        if (auto m = s.find("minimum"); m != s.end() && m->is_number() && d < m->get<double>()) return where + ": below minimum";
        if (auto m = s.find("maximum"); m != s.end() && m->is_number() && d > m->get<double>()) return where + ": above maximum";
        if (auto m = s.find("exclusiveMinimum"); m != s.end() && m->is_number() && d <= m->get<double>()) return where + ": not above exclusiveMinimum";
        if (auto m = s.find("exclusiveMaximum"); m != s.end() && m->is_number() && d >= m->get<double>()) return where + ": not below exclusiveMaximum";
    }
    if (v.is_string()) {
        const auto n = v.get_ref<const std::string&>().size();
        if (auto m = s.find("minLength"); m != s.end() && m->is_number_unsigned() && n < m->get<std::size_t>()) return where + ": too short";
        if (auto m = s.find("maxLength"); m != s.end() && m->is_number_unsigned() && n > m->get<std::size_t>()) return where + ": too long";
    }
    if (v.is_array()) {
        if (auto m = s.find("minItems"); m != s.end() && m->is_number_unsigned() && v.size() < m->get<std::size_t>()) return where + ": too few items";
        if (auto m = s.find("maxItems"); m != s.end() && m->is_number_unsigned() && v.size() > m->get<std::size_t>()) return where + ": too many items";
        std::size_t first = 0;
        if (auto pi = s.find("prefixItems"); pi != s.end() && pi->is_array()) {
            for (; first < v.size() && first < pi->size(); ++first)
                if (auto bad = schema_violation_in(root, (*pi)[first], v[first], at + "/" + std::to_string(first), depth + 1)) return bad;
        }
        if (auto it = s.find("items"); it != s.end() && (it->is_object() || it->is_boolean()))
            for (std::size_t i = first; i < v.size(); ++i)
                if (auto bad = schema_violation_in(root, *it, v[i], at + "/" + std::to_string(i), depth + 1)) return bad;
    }
    if (v.is_object()) {
        const json* props = nullptr;
        if (auto p = s.find("properties"); p != s.end() && p->is_object()) props = &*p;
        if (auto r = s.find("required"); r != s.end() && r->is_array())
            for (const auto& name : *r)
                if (name.is_string() && !v.contains(name.get<std::string>()))
                    return where + ": missing required property \"" + name.get<std::string>() + "\"";
        const auto extra = s.find("additionalProperties");
        for (const auto& [k, val] : v.items()) {
            const std::string child = at + "/" + k;
            if (props != nullptr && props->contains(k)) {
                if (auto bad = schema_violation_in(root, (*props)[k], val, child, depth + 1)) return bad;
            } else if (extra != s.end()) {
                if (extra->is_boolean() && !extra->get<bool>()) return where + ": unexpected property \"" + k + "\"";
                if (extra->is_object())
                    if (auto bad = schema_violation_in(root, *extra, val, child, depth + 1)) return bad;
            }
        }
    }
    if (auto a = s.find("allOf"); a != s.end() && a->is_array())
        for (const auto& sub : *a)
            if (auto bad = schema_violation_in(root, sub, v, at, depth + 1)) return bad;
    if (auto a = s.find("anyOf"); a != s.end() && a->is_array() && !a->empty()) {
        bool any = false;
        for (const auto& sub : *a) any = any || !schema_violation_in(root, sub, v, at, depth + 1);
        if (!any) return where + ": matches none of anyOf";
    }
    if (auto a = s.find("oneOf"); a != s.end() && a->is_array() && !a->empty()) {
        std::size_t n = 0;
        for (const auto& sub : *a) n += schema_violation_in(root, sub, v, at, depth + 1) ? 0U : 1U;
        if (n != 1) return where + ": must match exactly one of oneOf";
    }
    if (auto n = s.find("not"); n != s.end() && (n->is_object() || n->is_boolean()))
        if (!schema_violation_in(root, *n, v, at, depth + 1)) return where + ": must not match the \"not\" schema";
    return std::nullopt;
}

}  // namespace detail

/// Check `value` against `schema` (the keywords listed at the top of this file; `$ref` resolved
/// within `schema`). Returns the first violation, starting with its JSON pointer ("/" for the
/// value itself), or nothing when the value passes. Never throws; nesting deeper than 64 is
/// not followed.
[[nodiscard]] inline std::optional<std::string> json_schema_violation(const json& schema, const json& value) {
    return detail::schema_violation_in(schema, schema, value, "", 0);
}

}  // namespace agentkit
