// Two tools with one name in a toolbox must not compile.
#include <agentkit/tools/toolbox.hpp>

#include <string>

struct q_args {
    std::string q;
    static constexpr auto agentkit_fields() { return agentkit::fields(AGENTKIT_FIELD(q_args, q, "Query")); }
};

int main() {
    auto a = agentkit::tool<"search">("Search A.", [](const q_args&) { return std::string("a"); });
    auto b = agentkit::tool<"search">("Search B.", [](const q_args&) { return std::string("b"); });
    agentkit::toolbox box{a, b};
    return static_cast<int>(box.size());
}
