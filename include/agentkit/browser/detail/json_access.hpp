// agentkit/browser/detail/json_access.hpp — tolerant reads of CDP answers: a missing or
// mistyped field reads as the default, never throws.
#pragma once

#include <agentkit/core/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace agentkit::browser::detail {

inline std::string jstr(const json& j, std::string_view key) {
    if (!j.is_object()) return {};
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
inline double jnum(const json& j, std::string_view key, double dflt = 0) {
    if (!j.is_object()) return dflt;
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : dflt;
}
inline std::int64_t jint(const json& j, std::string_view key, std::int64_t dflt = 0) {
    if (!j.is_object()) return dflt;
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? static_cast<std::int64_t>(it->get<double>()) : dflt;
}
inline const json& jobj(const json& j, std::string_view key) {
    static const json empty = json::object();
    if (!j.is_object()) return empty;
    auto it = j.find(key);
    return it != j.end() && it->is_object() ? *it : empty;
}
inline const json& jarr(const json& j, std::string_view key) {
    static const json empty = json::array();
    if (!j.is_object()) return empty;
    auto it = j.find(key);
    return it != j.end() && it->is_array() ? *it : empty;
}
inline bool jbool(const json& j, std::string_view key, bool dflt = false) {
    if (!j.is_object()) return dflt;
    auto it = j.find(key);
    return it != j.end() && it->is_boolean() ? it->get<bool>() : dflt;
}

/// The text of a console call's arguments (Runtime.consoleAPICalled "args": RemoteObjects).
inline std::string args_text(const json& args) {
    std::string s;
    if (!args.is_array()) return s;
    for (const auto& a : args) {
        if (!s.empty()) s += ' ';
        if (a.contains("value")) {
            const json& v = a["value"];
            s += v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, json::error_handler_t::replace);
        } else if (a.contains("description")) {
            s += jstr(a, "description");
        } else if (a.contains("unserializableValue")) {
            s += jstr(a, "unserializableValue");
        } else {
            s += jstr(a, "type");
        }
    }
    return s;
}

}  // namespace agentkit::browser::detail
