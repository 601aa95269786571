// Compiled as C++17 on purpose: the first error must be agentkit saying what to do.
#include <agentkit/core.hpp>

int main() { return 0; }
