// start_in naming a mode that is not declared must not compile.
#include "menu_common.hpp"

int main() {
    agentkit::toolbox box{cf_navigate, cf_click, cf_bash};
    auto m = agentkit::menu_for<decltype(box)>(agentkit::mode<"browser">(cf_navigate, cf_click),
                                               agentkit::mode<"swe">(cf_bash), agentkit::start_in<"sew">);
    return static_cast<int>(m.modes().size());
}
