// Conan test_package: the installed package compiles, links and runs.
#include <agentkit/agentkit.hpp>

#include <cstdio>

int main() {
    agentkit::result<int> ok = 1;
    agentkit::result<int> bad = agentkit::fail(agentkit::errc::tool_unknown, "no tool named 'x'", "list the tools");
    std::printf("agentkit %s: %s / %s\n", agentkit::version.string, ok ? "ok" : "?", bad.error().to_text().c_str());
    return ok && !bad ? 0 : 1;
}
