// A tool name outside [A-Za-z0-9_.-]{1,64} must not compile.
#include <agentkit/tools/toolbox.hpp>

#include <string>

int main() {
    auto t = agentkit::tool<"get weather!">("Bad name.", [] { return std::string("x"); });
    return t.name.empty() ? 1 : 0;
}
