// A host tool named like a menu meta-tool must not compile when a menu is used.
#include "menu_common.hpp"

int main() {
    const auto think = agentkit::tool<"think">("Host thinking tool.", [](const menu_cf_args& a) { return a.q; });
    agentkit::toolbox box{cf_bash, think};
    auto m = agentkit::menu_for<decltype(box)>(agentkit::mode<"swe">(cf_bash, think));
    return static_cast<int>(m.modes().size());
}
