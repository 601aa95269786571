// AGENTKIT_ENUM written in a namespace that is neither the enum's nor the global one is not found:
// the error must say where to write it.
#include <agentkit/tools/toolbox.hpp>

namespace shop {
enum class size { s, m, l };
}
namespace elsewhere {
AGENTKIT_ENUM(shop::size, s, m, l);
}
struct shirt_args {
    shop::size fit = shop::size::m;
    static constexpr auto agentkit_fields() { return agentkit::fields(AGENTKIT_FIELD(shirt_args, fit, "Fit")); }
};

int main() { return agentkit::schema_of<shirt_args>().empty() ? 1 : 0; }
