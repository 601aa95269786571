// A described struct whose member is an undescribed struct must not compile.
#include <agentkit/tools/toolbox.hpp>

#include <string>

struct inner {
    int x = 0;
};
struct outer_args {
    inner where;
    static constexpr auto agentkit_fields() { return agentkit::fields(AGENTKIT_FIELD(outer_args, where, "Where")); }
};

int main() {
    auto t = agentkit::tool<"nested">("Nested.", [](const outer_args&) { return std::string("x"); });
    return agentkit::schema_of<outer_args>().empty() ? 1 : 0;
}
