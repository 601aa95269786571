// agentkit/core/serialize.hpp — write described values (and every supported type) as JSON, and
// the defaults a described type's fields take when an argument leaves them out.
//
// Which fields are optional, and with what default (one rule, used by the schema in
// core/schema.hpp and by the parser in core/parse.hpp):
//   - std::optional<T>: optional, no default (an absent field is std::nullopt);
//   - a field with `default_value(v)`: optional, the schema says `"default": v` and an absent
//     field is set to v;
//   - a field whose default member initializer gives it a value other than its type's zero
//     (`int quantity = 1;`, `std::string unit = "c";`, `bool headless = true;`): optional, the
//     schema says that value as its `default`, and an absent field keeps it;
//   - any other field is required. An initializer equal to the zero value (`= 0`, `= false`,
//     `= ""`, the first enumerator) cannot be told apart from none at run time: write
//     `default_value(0)` (or use std::optional) to make such a field optional.
#pragma once

#include <agentkit/core/describe.hpp>
#include <agentkit/core/json.hpp>

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace agentkit {

namespace detail {

template <class T>
json write(const T& v) {
    if constexpr (std::is_same_v<T, bool> || is_integer_v<T> || std::is_floating_point_v<T> ||
                  std::is_same_v<T, std::string> || std::is_same_v<T, json>) {
        return json(v);
    } else if constexpr (std::is_enum_v<T>) {
        if constexpr (!named_enum<T>) {
            require_describable<T>();  // its message first, no other error beside it
            return json();
        } else {
            return json(std::string(enum_to_string(v)));
        }
    } else if constexpr (is_optional<T>::value) {
        return v ? write(*v) : json(nullptr);
    } else if constexpr (is_vector<T>::value) {
        json a = json::array();
        for (const auto& e : v) a.push_back(write(e));
        return a;
    } else if constexpr (is_string_map<T>::value) {
        json o = json::object();
        for (const auto& [k, e] : v) o[k] = write(e);
        return o;
    } else {
        require_describable<T>();
        json o = json::object();
        std::apply(
            [&](const auto&... f) {
                (
                    [&] {
                        const auto& m = v.*(f.ptr);
                        if constexpr (is_optional<std::decay_t<decltype(m)>>::value) {
                            if (!m) return;
                        }
                        o[std::string(f.name)] = write(m);
                    }(),
                    ...);
            },
            fields_of<T>());
        return o;
    }
}

/// The JSON of a `default_value(...)` constraint.
[[nodiscard]] inline json default_json(const constraint::default_t& c) {
    switch (c.k) {
        case constraint::default_t::kind::boolean: return json(c.b);
        case constraint::default_t::kind::integer: return json(c.i);
        case constraint::default_t::kind::number: return json(c.d);
        case constraint::default_t::kind::string: return json(std::string(c.s));
    }
    return json(nullptr);
}

/// The `default_value(...)` among a field's constraints, as JSON; null when it has none.
template <class F>
[[nodiscard]] json declared_default(const F& f) {
    json out(nullptr);
    std::apply(
        [&](const auto&... c) {
            (
                [&] {
                    if constexpr (is_default_v<std::decay_t<decltype(c)>>) out = default_json(c);
                }(),
                ...);
        },
        f.constraints);
    return out;
}

/// The default of each field of T, by field index (null: the field has none, see the top of
/// this header). Computed once per type; thread-safe.
template <class T>
[[nodiscard]] const std::vector<json>& field_defaults() {
    static const std::vector<json> defaults = [] {
        std::vector<json> out;
        const auto fs = fields_of<T>();
        if constexpr (std::is_default_constructible_v<T>) {
            const T probe{};
            std::apply(
                [&](const auto&... f) {
                    (
                        [&] {
                            using M = typename std::decay_t<decltype(f)>::member_type;
                            json d = declared_default(f);
                            if constexpr (!is_optional<M>::value) {
                                if (d.is_null()) {
                                    json v = write(probe.*(f.ptr));
                                    if (v != write(M{})) d = std::move(v);
                                }
                            }
                            out.push_back(std::move(d));
                        }(),
                        ...);
                },
                fs);
        } else {
            std::apply([&](const auto&... f) { (out.push_back(declared_default(f)), ...); }, fs);
        }
        return out;
    }();
    return defaults;
}

}  // namespace detail

/// Serialize a described value (or any supported type) to JSON; empty optionals are omitted.
template <class T>
[[nodiscard]] json to_json_value(const T& v) {
    return detail::write(v);
}

}  // namespace agentkit
