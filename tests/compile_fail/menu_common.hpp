// Shared tools for the menu compile-fail cases.
#pragma once
#include <agentkit/tools/toolbox.hpp>
#include <agentkit/visibility/menu.hpp>

#include <string>

struct menu_cf_args {
    std::string q;
    static constexpr auto agentkit_fields() { return agentkit::fields(AGENTKIT_FIELD(menu_cf_args, q, "Query")); }
};
inline const auto cf_navigate = agentkit::tool<"browser_navigate">("Open a URL.", [](const menu_cf_args& a) { return a.q; });
inline const auto cf_click = agentkit::tool<"browser_click">("Click.", [](const menu_cf_args& a) { return a.q; });
inline const auto cf_bash = agentkit::tool<"bash">("Run a command.", [](const menu_cf_args& a) { return a.q; });
