// agentkit-demo — placeholder until the real demo lands: prints the library version.
#include <agentkit/agentkit.hpp>

#include <cstdio>

int main() {
    std::printf("agentkit %s\n", agentkit::version.string);
    return 0;
}
