// A mode without tools must not compile.
#include "menu_common.hpp"

int main() {
    auto mode = agentkit::mode<"empty">();
    return static_cast<int>(mode.tools.size());
}
