// A string constraint on a number must not compile.
#include <agentkit/tools/toolbox.hpp>

#include <string>

struct n_args {
    int n = 0;
    static constexpr auto agentkit_fields() {
        return agentkit::fields(AGENTKIT_FIELD(n_args, n, "A number", agentkit::min_length(1)));
    }
};

int main() { return agentkit::parse_as<n_args>(agentkit::json::object()).has_value() ? 0 : 1; }
