// A mode naming a tool the toolbox does not have must not compile.
#include "menu_common.hpp"

int main() {
    agentkit::toolbox box{cf_navigate, cf_bash};
    auto m = agentkit::menu_for<decltype(box)>(agentkit::mode<"browser">(cf_navigate, cf_click),
                                               agentkit::mode<"swe">(cf_bash));
    return static_cast<int>(m.modes().size());
}
