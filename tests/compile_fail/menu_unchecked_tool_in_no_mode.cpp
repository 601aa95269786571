// agentkit::menu{...} built without its toolbox is checked when composed with one.
#include "menu_common.hpp"

int main() {
    agentkit::toolbox box{cf_navigate, cf_click, cf_bash};
    agentkit::menu m{agentkit::mode<"browser">(cf_navigate, cf_click)};
    static_assert(agentkit::check_masker<decltype(box), decltype(m)>());
    return static_cast<int>(m.modes().size());
}
