// Control case: a menu that covers its toolbox compiles.
#include "menu_common.hpp"

int main() {
    agentkit::toolbox box{cf_navigate, cf_click, cf_bash};
    auto m = agentkit::menu_for<decltype(box)>(agentkit::mode<"browser">(cf_navigate, cf_click),
                                               agentkit::mode<"swe">(cf_bash), agentkit::start_in<"swe">);
    static_assert(agentkit::check_masker<decltype(box), decltype(m)>());
    return m.modes().size() == 2 ? 0 : 1;
}
