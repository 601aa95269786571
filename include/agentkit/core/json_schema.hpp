// agentkit/core/json_schema.hpp — checking a JSON value against a JSON Schema.
//
//   for (const auto& p : agentkit::json_schema_problems(schema, args)) ...  // {"/city", "expected string, got integer 5"}
//   if (auto bad = agentkit::json_schema_violation(schema, args)) ...      // "/city: expected string, got integer 5"
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
#include <agentkit/core/json_words.hpp>
#include <agentkit/core/strings.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

/// Where a schema walk puts what it finds: every problem up to `limit` (1: the first only, as the
/// sub-checks of anyOf, oneOf, not, if and contains need).
struct schema_findings {
    std::vector<json_problem> list;
    std::size_t limit = 1;
    bool truncated = false;
    [[nodiscard]] bool full() const noexcept { return list.size() >= limit; }
    void add(std::string path, std::string message) {
        if (full()) {
            truncated = true;
            return;
        }
        list.push_back({std::move(path), std::move(message)});
    }
};

inline void schema_walk(const json& root, const json& s, const json& v, const std::string& at, std::size_t depth, schema_findings& f);

/// True when `v` passes `s` (nothing recorded).
inline bool schema_passes(const json& root, const json& s, const json& v, const std::string& at, std::size_t depth) {
    schema_findings one;
    schema_walk(root, s, v, at, depth, one);
    return one.list.empty();
}

/// A bound for messages: 3 for 3.0, as a schema author wrote it.
inline std::string bound_text(const json& b) { return b.is_number() ? number_json(b.get<double>()).dump() : b.dump(); }

/// Adds the problems of `v` against `s` (at JSON pointer `at`) to `f`, in parse_as()'s words;
/// stops once `f` is full. A value of the wrong type is not checked further.
inline void schema_walk(const json& root, const json& s, const json& v, const std::string& at, std::size_t depth, schema_findings& f) {
    if (f.full()) return;
    if (!s.is_object() || depth > 64) {
        if (s.is_boolean() && !s.get<bool>()) f.add(at, "no value is allowed here");
        return;
    }
    if (auto r = s.find("$ref"); r != s.end() && r->is_string()) {
        if (const json* target = resolve_schema_ref(root, r->get<std::string>())) schema_walk(root, *target, v, at, depth + 1, f);
    }
    if (auto t = s.find("type"); t != s.end()) {
        bool ok = false;
        std::string wanted;
        if (t->is_string()) {
            ok = type_matches(t->get<std::string>(), v);
            wanted = t->get<std::string>();
        } else if (t->is_array()) {
            for (const auto& e : *t) {
                if (!e.is_string()) continue;
                ok = ok || type_matches(e.get<std::string>(), v);
                wanted += (wanted.empty() ? "" : " or ") + e.get<std::string>();
            }
        } else {
            ok = true;
        }
        if (!ok) {
            f.add(at, "expected " + wanted + ", " + got(v));
            return;
        }
    }
    if (auto e = s.find("enum"); e != s.end() && e->is_array() && std::find(e->begin(), e->end(), v) == e->end()) {
        std::string values;
        for (const auto& x : *e) values += (values.empty() ? "" : ", ") + (x.is_string() ? x.get<std::string>() : x.dump());
        f.add(at, "must be one of: " + values + "; " + got(v));
    }
    if (auto c = s.find("const"); c != s.end() && *c != v) f.add(at, "must be " + preview(*c) + ", got " + preview(v));
    if (v.is_number()) {
        const double d = v.get<double>();
        const auto bound = [&](const char* key, const char* op, auto breaks) {
            if (auto m = s.find(key); m != s.end() && m->is_number() && breaks(d, m->get<double>()))
                f.add(at, std::string("must be ") + op + " " + bound_text(*m) + ", got " + preview(v));
        };
        bound("minimum", ">=", [](double x, double b) { return x < b; });
        bound("maximum", "<=", [](double x, double b) { return x > b; });
        bound("exclusiveMinimum", ">", [](double x, double b) { return x <= b; });
        bound("exclusiveMaximum", "<", [](double x, double b) { return x >= b; });
        if (auto m = s.find("multipleOf"); m != s.end() && m->is_number() && m->get<double>() > 0) {
            const double q = d / m->get<double>();
            if (std::isfinite(q) && std::abs(q - std::round(q)) > 1e-9 * std::max(1.0, std::abs(q)))
                f.add(at, "must be a multiple of " + bound_text(*m) + ", got " + preview(v));
        }
    }
    if (v.is_string()) {
        const auto n = utf8_length(v.get_ref<const std::string&>());  // characters, not bytes
        if (auto m = s.find("minLength"); m != s.end() && count_of(*m) && n < *count_of(*m))
            f.add(at, "must have at least " + count_noun(*count_of(*m), "character"));
        if (auto m = s.find("maxLength"); m != s.end() && count_of(*m) && n > *count_of(*m))
            f.add(at, "must have at most " + count_noun(*count_of(*m), "character"));
    }
    if (v.is_array()) {
        if (auto m = s.find("minItems"); m != s.end() && count_of(*m) && v.size() < *count_of(*m))
            f.add(at, "must have at least " + count_noun(*count_of(*m), "item"));
        if (auto m = s.find("maxItems"); m != s.end() && count_of(*m) && v.size() > *count_of(*m))
            f.add(at, "must have at most " + count_noun(*count_of(*m), "item"));
        if (auto u = s.find("uniqueItems"); u != s.end() && u->is_boolean() && u->get<bool>()) {
            bool dup = false;
            for (std::size_t i = 0; i < v.size() && !dup; ++i)
                for (std::size_t j = i + 1; j < v.size() && !dup; ++j)
                    if (v[i] == v[j]) {
                        f.add(at, "items " + std::to_string(i) + " and " + std::to_string(j) + " are equal");
                        dup = true;
                    }
        }
        if (auto c = s.find("contains"); c != s.end() && (c->is_object() || c->is_boolean())) {
            std::size_t n = 0;
            for (const auto& e : v) n += schema_passes(root, *c, e, at, depth + 1) ? 1U : 0U;
            std::size_t lo = 1;
            if (auto m = s.find("minContains"); m != s.end() && count_of(*m)) lo = *count_of(*m);
            if (n < lo) f.add(at, "too few items match \"contains\"");
            if (auto m = s.find("maxContains"); m != s.end() && count_of(*m) && n > *count_of(*m)) f.add(at, "too many items match \"contains\"");
        }
        std::size_t first = 0;
        if (auto pi = s.find("prefixItems"); pi != s.end() && pi->is_array())
            for (; first < v.size() && first < pi->size(); ++first) schema_walk(root, (*pi)[first], v[first], at + "/" + std::to_string(first), depth + 1, f);
        if (auto it = s.find("items"); it != s.end() && (it->is_object() || it->is_boolean()))
            for (std::size_t i = first; i < v.size(); ++i) schema_walk(root, *it, v[i], at + "/" + std::to_string(i), depth + 1, f);
    }
    if (v.is_object()) {
        const json* props = nullptr;
        if (auto p = s.find("properties"); p != s.end() && p->is_object()) props = &*p;
        const auto child_of = [&](const std::string& k) {
            std::string c = at + "/";
            for (const char ch : k) c += ch == '~' ? std::string("~0") : ch == '/' ? std::string("~1") : std::string(1, ch);
            return c;
        };
        if (auto r = s.find("required"); r != s.end() && r->is_array())
            for (const auto& name : *r)
                if (name.is_string() && !v.contains(name.get<std::string>())) f.add(child_of(name.get<std::string>()), "missing required property");
        if (auto m = s.find("minProperties"); m != s.end() && count_of(*m) && v.size() < *count_of(*m))
            f.add(at, "must have at least " + count_noun(*count_of(*m), "property", "properties"));
        if (auto m = s.find("maxProperties"); m != s.end() && count_of(*m) && v.size() > *count_of(*m))
            f.add(at, "must have at most " + count_noun(*count_of(*m), "property", "properties"));
        if (auto d = s.find("dependentRequired"); d != s.end() && d->is_object())
            for (const auto& [k, needs] : d->items())
                if (v.contains(k) && needs.is_array())
                    for (const auto& name : needs)
                        if (name.is_string() && !v.contains(name.get<std::string>()))
                            f.add(child_of(name.get<std::string>()), "missing property required when \"" + k + "\" is present");
        const auto names = s.find("propertyNames");
        // patternProperties are not run (see the top of this file): a name they may cover is not refused
        const auto patterned = s.find("patternProperties");
        const bool may_match_pattern = patterned != s.end() && patterned->is_object() && !patterned->empty();
        const auto extra = s.find("additionalProperties");
        for (const auto& [k, val] : v.items()) {
            const std::string child = child_of(k);
            if (names != s.end() && (names->is_object() || names->is_boolean())) {
                schema_findings bad;
                schema_walk(root, *names, json(k), child, depth + 1, bad);
                if (!bad.list.empty()) f.add(child, "property name \"" + k + "\" " + bad.list.front().message);
            }
            if (props != nullptr && props->contains(k)) {
                schema_walk(root, (*props)[k], val, child, depth + 1, f);
            } else if (may_match_pattern) {
                continue;
            } else if (extra != s.end()) {
                if (extra->is_boolean() && !extra->get<bool>()) {
                    std::vector<std::string> known;
                    if (props != nullptr)
                        for (const auto& [name, sub] : props->items()) known.push_back(name);
                    std::string msg = "unknown property";
                    if (auto close = closest_names(k, known, 1); !close.empty()) msg += "; did you mean \"" + close.front() + "\"?";
                    else msg += '.';
                    if (!known.empty()) {
                        msg += " Known properties: ";
                        for (std::size_t i = 0; i < known.size(); ++i) msg += (i ? ", " : "") + known[i];
                    }
                    f.add(child, std::move(msg));
                }
                if (extra->is_object()) schema_walk(root, *extra, val, child, depth + 1, f);
            }
        }
    }
    if (auto a = s.find("allOf"); a != s.end() && a->is_array())
        for (const auto& sub : *a) schema_walk(root, sub, v, at, depth + 1, f);
    if (auto a = s.find("anyOf"); a != s.end() && a->is_array() && !a->empty()) {
        bool any = false;
        for (const auto& sub : *a) any = any || schema_passes(root, sub, v, at, depth + 1);
        if (!any) f.add(at, "matches none of anyOf");
    }
    if (auto a = s.find("oneOf"); a != s.end() && a->is_array() && !a->empty()) {
        std::size_t n = 0;
        for (const auto& sub : *a) n += schema_passes(root, sub, v, at, depth + 1) ? 1U : 0U;
        if (n != 1) f.add(at, "must match exactly one of oneOf");
    }
    if (auto n = s.find("not"); n != s.end() && (n->is_object() || n->is_boolean()))
        if (schema_passes(root, *n, v, at, depth + 1)) f.add(at, "must not match the \"not\" schema");
    if (auto c = s.find("if"); c != s.end() && (c->is_object() || c->is_boolean())) {
        const bool holds = schema_passes(root, *c, v, at, depth + 1);
        if (auto branch = s.find(holds ? "then" : "else"); branch != s.end()) {
            schema_findings sub;
            sub.limit = f.limit;
            schema_walk(root, *branch, v, at, depth + 1, sub);
            for (auto& pr : sub.list)
                f.add(pr.path, pr.message + (holds ? " (required by \"then\", as the \"if\" holds)" : " (required by \"else\", as the \"if\" does not hold)"));
        }
    }
}

}  // namespace detail

/// Every problem of `value` against `schema` (the keywords listed at the top of this file;
/// `$ref` resolved within `schema`), up to `limit`, each with its JSON pointer ("" for the value
/// itself) and a message in the words parse_as() uses for a C++ tool's arguments ("missing
/// required property", "expected string, got integer 5", "must be >= 1, got 0"). Empty when the
/// value passes. Never throws; nesting deeper than 64 is not followed.
[[nodiscard]] inline std::vector<json_problem> json_schema_problems(const json& schema, const json& value, std::size_t limit = 50) {
    detail::schema_findings f;
    f.limit = std::max<std::size_t>(limit, 1);
    detail::schema_walk(schema, schema, value, "", 0, f);
    return std::move(f.list);
}

/// The first problem of `value` against `schema` as "<pointer>: <message>" ("/" for the value
/// itself), or nothing when the value passes.
[[nodiscard]] inline std::optional<std::string> json_schema_violation(const json& schema, const json& value) {
    auto all = json_schema_problems(schema, value, 1);
    if (all.empty()) return std::nullopt;
    return (all.front().path.empty() ? std::string("/") : all.front().path) + ": " + all.front().message;
}

}  // namespace agentkit
