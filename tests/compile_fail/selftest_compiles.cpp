// Self-test of the compile_fail mechanism: this compiles cleanly, so a compile_fail test
// over it must FAIL (the test is registered with WILL_FAIL).
#include <agentkit/core/result.hpp>

int main() {
    agentkit::result<int> r = 42;
    return r ? 0 : 1;
}
