// agentkit/core/json_words.hpp — the words of argument errors: how a JSON value is named ("got
// integer 5"), one problem ({path, message}), and the one `args.invalid` error listing them all,
// which C++ tools (parse_as), run-time tools and remote tools (their inputSchema) all answer with.
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/strings.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace agentkit {

/// One thing wrong with a JSON value: where (a JSON pointer, "" for the value itself) and what.
struct json_problem {
    std::string path;     ///< JSON pointer of the offending value ("/city", "/items/2"); "" = the whole value
    std::string message;  ///< what is wrong, e.g. "expected string, got integer 5"
};

/// `args.invalid` listing every problem ("<tool>: 2 problems in arguments: /a: ...; /b: ..."),
/// with the hint "Fix every listed argument and call <tool> again." and `details.problems`
/// [{path, message}], so that a model fixes all of them in one retry. `truncated`: more were found
/// than listed.
[[nodiscard]] inline error invalid_arguments(const std::vector<json_problem>& problems, bool truncated = false, std::string_view tool = {}) {
    std::string msg = tool.empty() ? std::string() : std::string(tool) + ": ";
    msg += count_noun(problems.size(), "problem");
    if (truncated) msg += " (more not shown)";
    msg += " in arguments: ";
    json list = json::array();
    for (std::size_t i = 0; i < problems.size(); ++i) {
        const auto& pr = problems[i];
        list.push_back({{"path", pr.path}, {"message", pr.message}});
        if (i > 0) msg += "; ";
        msg += (pr.path.empty() ? std::string("(root)") : pr.path) + ": " + pr.message;
    }
    return error(errc::args_invalid, std::move(msg),
                 tool.empty() ? std::string("Fix every listed argument and call again.")
                              : "Fix every listed argument and call " + std::string(tool) + " again.",
                 json{{"problems", std::move(list)}});
}

}  // namespace agentkit

namespace agentkit::detail {

/// The JSON type of a value as a message names it ("integer" for whole numbers).
inline const char* json_type_name(const json& j) noexcept {
    switch (j.type()) {
        case json::value_t::null: return "null";
        case json::value_t::boolean: return "boolean";
        case json::value_t::number_integer:
        case json::value_t::number_unsigned: return "integer";
        case json::value_t::number_float: return "number";
        case json::value_t::string: return "string";
        case json::value_t::array: return "array";
        case json::value_t::object: return "object";
        default: return "value";
    }
}

/// A short rendering of a JSON value for error messages (never the whole of a large value).
inline std::string preview(const json& j) {
    std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() > 40) {
        s.resize(utf8_safe_prefix(s, 37));
        s += "...";
    }
    return s;
}

/// "got <type> <value>" (no value for objects, arrays and null).
inline std::string got(const json& j) {
    std::string s = "got ";
    s += json_type_name(j);
    if (!j.is_object() && !j.is_array() && !j.is_null()) {
        s += ' ';
        s += preview(j);
    }
    return s;
}

}  // namespace agentkit::detail
