// The program every consumer test builds: it exercises a little of the core API and checks the
// version it was built against. What it includes is what it uses (core, and the browser engine
// when it checks that agentkit::compiled links), not the umbrella: the umbrella costs a consumer
// ~16 s of compile time, and what it would prove is proved elsewhere (every header compiles on its
// own in the header check, consumer.install finds every header installed, consumer.docs builds
// the guide pages' programs against the installed headers). The single-header build includes the
// one header there is.
#if defined(AGENTKIT_CONSUMER_SINGLE_HEADER)
#include <agentkit/agentkit.hpp>
#else
#include <agentkit/core.hpp>
#if defined(AGENTKIT_SEPARATE_COMPILATION)
#include <agentkit/browser/browser.hpp>
#endif
#endif

#include <cstdio>
#include <cstring>
#include <string>

#ifndef AGENTKIT_CONSUMER_KIND
#define AGENTKIT_CONSUMER_KIND "unknown"
#endif

int main() {
    agentkit::result<int> good = 7;
    agentkit::result<int> bad = agentkit::fail(agentkit::errc::args_invalid, "limit must be positive",
                                               "pass a limit of at least 1");
    if (!good || *good != 7) return 1;
    if (bad || !bad.error().is(agentkit::errc::args_invalid)) return 2;
    const agentkit::json j = bad.error().to_json();
    if (j.at("code") != "args.invalid") return 3;
#ifdef AGENTKIT_EXPECTED_VERSION
    if (std::strcmp(agentkit::version.string, AGENTKIT_EXPECTED_VERSION) != 0) {
        std::fprintf(stderr, "version mismatch: header says %s, build expects %s\n", agentkit::version.string,
                     AGENTKIT_EXPECTED_VERSION);
        return 4;
    }
#endif
    std::string how = "header-only";
#if defined(AGENTKIT_SEPARATE_COMPILATION)
    // agentkit::compiled: the browser engine's definitions are in that library, not in this
    // translation unit, so taking a member's address links only when the library is linked.
    const auto click = &agentkit::browser::browser::click;
    unsigned char bytes[sizeof click];
    std::memcpy(bytes, &click, sizeof click);
    unsigned sum = 0;
    for (const unsigned char b : bytes) sum += b;
    if (sum == 0) return 5;
    how = "compiled once";
#endif
    std::printf("agentkit %s via %s (%s): ok (%s)\n", agentkit::version.string, AGENTKIT_CONSUMER_KIND,
                how.c_str(), bad.error().to_text().c_str());
    return 0;
}
