// Load and soak under the sanitizers and valgrind (issue 8): the driver of agentkit-bench-soak
// (bench/soak/soak.hpp) with a small load against real headless Chromium. It fails on any
// unexpected result (a good call failing, a bad call not failing with its error code, a result
// without its own session's page); the sanitizers (ASan/UBSan, LeakSanitizer at exit) and
// valgrind (tests/soak/CMakeLists.txt) fail the process on their own findings.
//
// Load: AGENTKIT_SOAK_SESSIONS / AGENTKIT_SOAK_CALLS, else the build's defaults
// (AGENTKIT_SOAK_DEFAULT_SESSIONS / AGENTKIT_SOAK_DEFAULT_CALLS from CMake).
#include "soak.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <unistd.h>

namespace {

long env_or(const char* name, long fallback) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return fallback;
    const long n = std::strtol(v, nullptr, 10);
    return n > 0 ? n : fallback;
}

}  // namespace

TEST(Soak, ConcurrentSessionsHaveNoUnexpectedResults) {
    const std::string exe = agentkit::cdp::resolve_executable({});
    if (::access(exe.c_str(), X_OK) != 0) GTEST_SKIP() << "no Chromium at " << exe << " (set AGENTKIT_CHROMIUM)";
    agentkit::soak::options o;
    o.sessions = static_cast<int>(env_or("AGENTKIT_SOAK_SESSIONS", AGENTKIT_SOAK_DEFAULT_SESSIONS));
    o.calls = static_cast<std::size_t>(env_or("AGENTKIT_SOAK_CALLS", AGENTKIT_SOAK_DEFAULT_CALLS));
    o.quiet = true;
    const auto rep = agentkit::soak::run(o);
    const std::string text = agentkit::soak::to_text(rep, o);
    std::printf("%s", text.c_str());
    ASSERT_TRUE(rep.setup_error.empty()) << rep.setup_error;
    EXPECT_EQ(rep.calls, o.calls) << text;  // every call was made (no session gave up early)
    EXPECT_EQ(rep.unexpected(), 0U) << text;
    EXPECT_GT(rep.ok, rep.calls / 2) << text;
    // the deliberately bad calls ran and failed the way they should
    EXPECT_GT(rep.expected(), 0U) << text;
    EXPECT_EQ(rep.ok + rep.expected() + rep.unexpected(), rep.calls) << text;
}
