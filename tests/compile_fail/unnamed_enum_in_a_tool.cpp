// A tool whose argument has an enum without JSON names: the first error the compiler prints is
// agentkit's own message saying what to write, not an error from inside agentkit's headers.
#include <agentkit/tools/toolbox.hpp>

#include <string>

enum class colour { red, green };
struct paint_args {
    colour c = colour::red;
    static constexpr auto agentkit_fields() { return agentkit::fields(AGENTKIT_FIELD(paint_args, c, "Colour")); }
};
const auto paint = agentkit::tool<"paint">("Paint.", [](const paint_args&) { return std::string("ok"); });

int main() {
    agentkit::toolbox box{paint};
    return static_cast<int>(box.size());
}
