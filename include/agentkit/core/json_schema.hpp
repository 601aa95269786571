// agentkit/core/json_schema.hpp — checking a JSON value against a JSON Schema.
//
//   if (auto bad = agentkit::json_schema_violation(schema, args)) ... // "/city: expected "string", got integer"
//
// One checker for every schema agentkit meets: its own generated schemas (the MCP server checks
// typed output against outputSchema) and schemas it is handed at run time (a remote MCP server's
// inputSchema, checked before a call leaves the host). The keywords checked: type, properties,
// required, additionalProperties, items, prefixItems, enum, const, minimum/maximum (and the
// exclusive ones), multipleOf, minLength/maxLength, minItems/maxItems, uniqueItems, contains
// (with minContains/maxContains), minProperties/maxProperties, dependentRequired, propertyNames
// (its non-pattern keywords), anyOf, oneOf, allOf, not, if/then/else, and `$ref` to a place in
// the same document ("#", "#/$defs/x", "#/definitions/x", any JSON pointer, or a plain-name
// anchor "#name" declared with `$anchor`).
// Never a false refusal: what is not checked is let through — formats, `pattern`, remote
// references, unevaluatedProperties/Items, and the properties a `patternProperties` may cover
// (additionalProperties does not refuse them, since the patterns are not run; a server's regular
// expression is never run here). The server that owns the schema still has the last word.
// Schemas are never expanded or rewritten: `$ref` is resolved only while checking.
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/strings.hpp>

#include <algorithm>
#include <cmath>
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

/// A schema's count keyword (maxLength, minItems, ...) as a size: a non-negative whole number,
/// however the JSON holds it (parsed text gives unsigned, C++ literals signed); nothing otherwise.
inline std::optional<std::size_t> count_of(const json& k) {
    if (k.is_number_unsigned()) return k.get<std::size_t>();
    if (k.is_number_integer() && k.get<std::int64_t>() >= 0) return static_cast<std::size_t>(k.get<std::int64_t>());
    if (k.is_number_float() && k.get<double>() >= 0 && k.get<double>() == std::floor(k.get<double>()) && k.get<double>() < 1e18)
        return static_cast<std::size_t>(k.get<double>());
    return std::nullopt;
}

/// The subschema of `s` (searched depth first, at most 64 deep) that declares `$anchor: name`.
inline const json* find_schema_anchor(const json& s, std::string_view name, std::size_t depth = 0) {
    if (depth > 64) return nullptr;
    if (s.is_object()) {
        if (auto a = s.find("$anchor"); a != s.end() && a->is_string() && a->get_ref<const std::string&>() == name) return &s;
        for (const auto& [k, v] : s.items()) {
            if (k == "enum" || k == "const" || k == "default" || k == "examples") continue;  // values, not schemas
            if (const json* f = find_schema_anchor(v, name, depth + 1)) return f;
        }
    } else if (s.is_array()) {
        for (const auto& v : s)
            if (const json* f = find_schema_anchor(v, name, depth + 1)) return f;
    }
    return nullptr;
}

/// The schema a same-document `$ref` ("#", "#/$defs/x", "#anchor") points at in `root`; nullptr otherwise.
inline const json* resolve_schema_ref(const json& root, const std::string& ref) {
    if (ref.empty() || ref[0] != '#') return nullptr;
    if (ref.size() == 1) return &root;
    if (ref[1] != '/') return find_schema_anchor(root, std::string_view(ref).substr(1));
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
        if (auto m = s.find("multipleOf"); m != s.end() && m->is_number() && m->get<double>() > 0) {
            const double q = d / m->get<double>();
            if (std::isfinite(q) && std::abs(q - std::round(q)) > 1e-9 * std::max(1.0, std::abs(q)))
                return where + ": not a multiple of " + m->dump();
        }
    }
    if (v.is_string()) {
        const auto n = utf8_length(v.get_ref<const std::string&>());  // characters, not bytes
        if (auto m = s.find("minLength"); m != s.end() && count_of(*m) && n < *count_of(*m)) return where + ": too short";
        if (auto m = s.find("maxLength"); m != s.end() && count_of(*m) && n > *count_of(*m)) return where + ": too long";
    }
    if (v.is_array()) {
        if (auto m = s.find("minItems"); m != s.end() && count_of(*m) && v.size() < *count_of(*m)) return where + ": too few items";
        if (auto m = s.find("maxItems"); m != s.end() && count_of(*m) && v.size() > *count_of(*m)) return where + ": too many items";
        if (auto u = s.find("uniqueItems"); u != s.end() && u->is_boolean() && u->get<bool>())
            for (std::size_t i = 0; i < v.size(); ++i)
                for (std::size_t j = i + 1; j < v.size(); ++j)
                    if (v[i] == v[j]) return where + ": items " + std::to_string(i) + " and " + std::to_string(j) + " are equal";
        if (auto c = s.find("contains"); c != s.end() && (c->is_object() || c->is_boolean())) {
            std::size_t n = 0;
            for (const auto& e : v) n += schema_violation_in(root, *c, e, at, depth + 1) ? 0U : 1U;
            std::size_t lo = 1;
            if (auto m = s.find("minContains"); m != s.end() && count_of(*m)) lo = *count_of(*m);
            if (n < lo) return where + ": too few items match \"contains\"";
            if (auto m = s.find("maxContains"); m != s.end() && count_of(*m) && n > *count_of(*m))
                return where + ": too many items match \"contains\"";
        }
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
        if (auto m = s.find("minProperties"); m != s.end() && count_of(*m) && v.size() < *count_of(*m)) return where + ": too few properties";
        if (auto m = s.find("maxProperties"); m != s.end() && count_of(*m) && v.size() > *count_of(*m)) return where + ": too many properties";
        if (auto d = s.find("dependentRequired"); d != s.end() && d->is_object())
            for (const auto& [k, needs] : d->items())
                if (v.contains(k) && needs.is_array())
                    for (const auto& name : needs)
                        if (name.is_string() && !v.contains(name.get<std::string>()))
                            return where + ": \"" + k + "\" needs property \"" + name.get<std::string>() + "\"";
        const auto names = s.find("propertyNames");
        // patternProperties are not run (see the top of this file): a name they may cover is not refused
        const auto patterned = s.find("patternProperties");
        const bool may_match_pattern = patterned != s.end() && patterned->is_object() && !patterned->empty();
        const auto extra = s.find("additionalProperties");
        for (const auto& [k, val] : v.items()) {
            const std::string child = at + "/" + k;
            if (names != s.end() && (names->is_object() || names->is_boolean()))
                if (auto bad = schema_violation_in(root, *names, json(k), child, depth + 1)) return where + ": property name \"" + k + "\": " + *bad;
            if (props != nullptr && props->contains(k)) {
                if (auto bad = schema_violation_in(root, (*props)[k], val, child, depth + 1)) return bad;
            } else if (may_match_pattern) {
                continue;
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
    if (auto c = s.find("if"); c != s.end() && (c->is_object() || c->is_boolean())) {
        const bool holds = !schema_violation_in(root, *c, v, at, depth + 1);
        if (auto branch = s.find(holds ? "then" : "else"); branch != s.end())
            if (auto bad = schema_violation_in(root, *branch, v, at, depth + 1))
                return *bad + (holds ? " (required by \"then\", as the \"if\" holds)" : " (required by \"else\", as the \"if\" does not hold)");
    }
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
