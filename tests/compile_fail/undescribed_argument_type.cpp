// An argument struct without a description must not compile.
#include <agentkit/tools/toolbox.hpp>

#include <string>

struct plain_args {
    std::string city;
};

int main() {
    auto t = agentkit::tool<"weather">("Weather.", [](const plain_args& a) { return a.city; });
    return t.name.empty() ? 1 : 0;
}
