// The one translation unit that compiles the tool calls and descriptions of once_box.hpp's
// toolbox (AGENTKIT_INSTANTIATE_TOOLBOX); toolbox_once_test.cpp only declares them.
#include "once_box.hpp"

AGENTKIT_INSTANTIATE_TOOLBOX(once_test::box_type);
