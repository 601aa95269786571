// Helpers the visibility tests share (they compile as one translation unit in the CI presets, so a
// helper lives here once instead of in each file's anonymous namespace).
#pragma once

#include <agentkit/agentkit.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "visibility/coding_agent_toolbox.hpp"

namespace visibility_test {

inline bool has(const std::vector<std::string>& v, std::string_view s) { return std::find(v.begin(), v.end(), s) != v.end(); }

/// The tool names a tool_search result lists (its structured "tools"); none when it has none.
inline std::vector<std::string> found_names(const agentkit::tool_output& o) {
    std::vector<std::string> out;
    if (o.structured && o.structured->contains("tools"))
        for (const auto& t : o.structured->at("tools")) out.push_back(t.at("name").get<std::string>());
    return out;
}
inline std::vector<std::string> found_names(const agentkit::result<agentkit::tool_output>& o) {
    return o ? found_names(*o) : std::vector<std::string>{};
}

/// The coding agent's menu, bound to its toolbox.
inline auto bound_menu(agentkit::menu_options o = {}) {
    auto m = coding_agent::make_menu(std::move(o));
    m.bind(coding_agent::box.infos());
    return m;
}

}  // namespace visibility_test
