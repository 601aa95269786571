// "ROOT" (any case) is the menu's top level and cannot name a mode.
#include "menu_common.hpp"

int main() {
    auto mode = agentkit::mode<"root">(cf_bash);
    return static_cast<int>(mode.tools.size());
}
