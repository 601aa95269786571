// A tool name longer than 64 characters must not compile.
#include <agentkit/tools/toolbox.hpp>

#include <string>

int main() {
    auto t = agentkit::tool<"a_name_that_is_far_too_long_for_any_provider_to_accept_as_a_tool_name">(
        "Too long.", [] { return std::string("x"); });
    return t.name.empty() ? 1 : 0;
}
