// An enum member without JSON names must not compile.
#include <agentkit/tools/toolbox.hpp>

#include <string>

enum class mood { happy, sad };
struct mood_args {
    mood m = mood::happy;
    static constexpr auto agentkit_fields() { return agentkit::fields(AGENTKIT_FIELD(mood_args, m, "Mood")); }
};

int main() { return agentkit::schema_of<mood_args>().empty() ? 1 : 0; }
