// Self-test of the compile_fail mechanism: this must be rejected with the message below.
#include <agentkit/core/result.hpp>

template <class T>
inline constexpr bool false_v = false;

template <class T>
void must_not_instantiate() {
    static_assert(false_v<T>, "agentkit-selftest: this template must never be instantiated");
}

int main() {
    must_not_instantiate<int>();
    return 0;
}
