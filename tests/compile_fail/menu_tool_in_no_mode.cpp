// A tool of the toolbox that is in no mode must not compile (every tool must be reachable from ROOT).
#include "menu_common.hpp"

int main() {
    agentkit::toolbox box{cf_navigate, cf_click, cf_bash};
    auto m = agentkit::menu_for<decltype(box)>(agentkit::mode<"browser">(cf_navigate, cf_click));  // bash: no mode
    return static_cast<int>(m.modes().size());
}
