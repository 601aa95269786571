// agentkit/core/schema.hpp — JSON Schema (draft 2020-12 subset) generated from described types.
#pragma once

#include <agentkit/core/declared_order.hpp>
#include <agentkit/core/describe.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/serialize.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace agentkit {

namespace detail {

inline void apply_schema(json& s, const constraint::minimum_t& c) {
    s[c.exclusive ? "exclusiveMinimum" : "minimum"] = number_json(c.value);
}
inline void apply_schema(json& s, const constraint::maximum_t& c) {
    s[c.exclusive ? "exclusiveMaximum" : "maximum"] = number_json(c.value);
}
inline void apply_schema(json& s, const constraint::min_length_t& c) { s["minLength"] = c.value; }
inline void apply_schema(json& s, const constraint::max_length_t& c) { s["maxLength"] = c.value; }
inline void apply_schema(json& s, const constraint::pattern_t& c) { s["pattern"] = std::string(c.regex); }
inline void apply_schema(json& s, const constraint::format_t& c) { s["format"] = std::string(c.name); }
inline void apply_schema(json& s, const constraint::min_items_t& c) { s["minItems"] = c.value; }
inline void apply_schema(json& s, const constraint::max_items_t& c) { s["maxItems"] = c.value; }
template <std::size_t N>
void apply_schema(json& s, const constraint::one_of_t<N>& c) {
    json e = json::array();
    for (auto v : c.values) e.push_back(std::string(v));
    s["enum"] = std::move(e);
}
inline void apply_schema(json& s, const constraint::default_t& c) {
    switch (c.k) {
        case constraint::default_t::kind::boolean: s["default"] = c.b; break;
        case constraint::default_t::kind::integer: s["default"] = c.i; break;
        case constraint::default_t::kind::number: s["default"] = number_json(c.d); break;
        case constraint::default_t::kind::string: s["default"] = std::string(c.s); break;
    }
}
inline void apply_schema(json&, const constraint::hidden_t&) {}
inline void apply_schema(json& s, const constraint::example_t& c) {
    json v = json::parse(c.json_text, nullptr, false);
    if (v.is_discarded()) v = std::string(c.json_text);
    s["examples"].push_back(std::move(v));
}

/// Unwrap std::optional<T> to T for the schema of a property.
template <class T>
struct strip_optional { using type = T; };
template <class T>
struct strip_optional<std::optional<T>> { using type = T; };

template <class T>
json make_schema();

template <class T>
json make_object_schema() {
    json props = json::object();
    std::vector<std::string> order;  // the fields' declared order, which props (ordered by key) loses
    json required = json::array();
    const std::vector<json>& defaults = field_defaults<T>();  // which fields are optional: core/serialize.hpp
    std::size_t index = 0;
    std::apply(
        [&](const auto&... f) {
            (
                [&] {
                    using M = typename std::decay_t<decltype(f)>::member_type;
                    using V = typename strip_optional<M>::type;
                    json p = make_schema<V>();
                    if (!f.description.empty()) p["description"] = std::string(f.description);
                    std::apply([&](const auto&... c) { (apply_schema(p, c), ...); }, f.constraints);
                    const json& d = defaults[index++];
                    if (!d.is_null()) p["default"] = d;
                    if constexpr (field_hidden<std::decay_t<decltype(f)>>()) {
                        static_assert(!field_required<std::decay_t<decltype(f)>>() || is_optional<M>::value,
                                      "agentkit: a hidden() field must be optional (std::optional or default_value)");
                        return;  // accepted by the parser, not advertised
                    }
                    props[std::string(f.name)] = std::move(p);
                    order.emplace_back(f.name);
                    if (!is_optional<M>::value && d.is_null()) required.push_back(std::string(f.name));
                }(),
                ...);
        },
        fields_of<T>());
    json s = json::object();
    s["type"] = "object";
    if constexpr (requires { describe<T>::description; })
        s["description"] = std::string(describe<T>::description);
    else if constexpr (requires { T::agentkit_description; })
        s["description"] = std::string(T::agentkit_description);
    remember_declared_order(props, std::move(order));
    s["properties"] = std::move(props);
    if (!required.empty()) s["required"] = std::move(required);
    s["additionalProperties"] = false;
    return s;
}

template <class T>
json make_schema() {
    require_describable<T>();
    if constexpr (std::is_same_v<T, bool>) {
        return json{{"type", "boolean"}};
    } else if constexpr (is_integer_v<T>) {
        json s{{"type", "integer"}};
        if constexpr (std::is_unsigned_v<T>) s["minimum"] = 0;
        return s;
    } else if constexpr (std::is_floating_point_v<T>) {
        return json{{"type", "number"}};
    } else if constexpr (std::is_same_v<T, std::string>) {
        return json{{"type", "string"}};
    } else if constexpr (std::is_same_v<T, json>) {
        return json::object();  // any JSON value
    } else if constexpr (std::is_enum_v<T>) {
        if constexpr (!named_enum<T>) {
            require_describable<T>();  // its message first, no other error beside it
            return json();
        } else {
            json e = json::array();
            for (const auto& [value, name] : enum_values<T>) e.push_back(std::string(name));
            return json{{"type", "string"}, {"enum", std::move(e)}};
        }
    } else if constexpr (is_optional<T>::value) {
        return make_schema<typename is_optional<T>::value_type>();
    } else if constexpr (is_vector<T>::value) {
        return json{{"type", "array"}, {"items", make_schema<typename is_vector<T>::value_type>()}};
    } else if constexpr (is_string_map<T>::value) {
        return json{{"type", "object"}, {"additionalProperties", make_schema<typename is_string_map<T>::mapped_type>()}};
    } else {
        return make_object_schema<T>();
    }
}

}  // namespace detail

/// The JSON Schema of T, generated once and cached. Thread-safe.
template <class T>
[[nodiscard]] const json& schema_of() {
    static const json s = detail::make_schema<T>();
    return s;
}

}  // namespace agentkit
