// agentkit/visibility/tool_doc.hpp — what the retrieval index knows about one tool: its name,
// description, argument names and descriptions (from its input schema) and example requests.
//
//   auto docs = agentkit::tool_docs_from(box.infos());   // then tool_index::build(docs)
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/tools/tool.hpp>

#include <string>
#include <vector>

namespace agentkit {

/// What the retrieval index knows about one tool.
struct tool_doc {
    std::string name;                   ///< the tool name
    std::string description;            ///< "title. description", or the description when there is no title
    std::vector<std::string> arg_names;  ///< argument names from the input schema (nested ones included)
    std::vector<std::string> arg_descriptions;  ///< argument descriptions from the input schema
    std::vector<std::string> examples;  ///< example requests (declared or learned)
};

namespace detail {
inline void collect_schema_args(const json& schema, tool_doc& d, int depth) {
    if (depth > 4 || !schema.is_object()) return;
    if (auto p = schema.find("properties"); p != schema.end() && p->is_object()) {
        for (auto it = p->begin(); it != p->end(); ++it) {
            d.arg_names.push_back(it.key());
            if (it->is_object()) {
                if (auto ds = it->find("description"); ds != it->end() && ds->is_string())
                    d.arg_descriptions.push_back(ds->get<std::string>());
                collect_schema_args(*it, d, depth + 1);
            }
        }
    }
    if (auto items = schema.find("items"); items != schema.end()) collect_schema_args(*items, d, depth + 1);
    for (const char* key : {"anyOf", "oneOf", "allOf"})
        if (auto a = schema.find(key); a != schema.end() && a->is_array())
            for (const auto& s : *a) collect_schema_args(s, d, depth + 1);
}
}  // namespace detail

/// A tool_doc from a tool_info: argument names and descriptions come from its input schema
/// (nested objects and arrays included).
[[nodiscard]] inline tool_doc tool_doc_from(const tool_info& t) {
    tool_doc d;
    d.name = t.name;
    d.description = t.title.empty() ? t.description : t.title + ". " + t.description;
    detail::collect_schema_args(t.input_schema, d, 0);
    d.examples = t.examples;
    return d;
}

/// What a tool does, on one line, as a list of tools shows it: its title, then the first
/// sentence of its description (first_sentence: "Get Sum Tool — Adds two numbers."); without a
/// title (or with the name as its title), the first sentence alone. White space (line breaks too) is one space;
/// at most `max` bytes, cut on a character boundary with "...".
[[nodiscard]] inline std::string tool_summary(const tool_info& t, std::size_t max = 160) {
    const std::string flat(first_sentence(collapse_whitespace(t.description)));
    return clip_ellipsis(t.title.empty() || t.title == t.name ? flat : flat.empty() ? t.title : t.title + " — " + flat, max);
}

/// tool_doc_from() of every tool, in order.
[[nodiscard]] inline std::vector<tool_doc> tool_docs_from(const std::vector<tool_info>& tools) {
    std::vector<tool_doc> out;
    out.reserve(tools.size());
    for (const auto& t : tools) out.push_back(tool_doc_from(t));
    return out;
}

}  // namespace agentkit
