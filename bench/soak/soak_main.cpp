// agentkit-bench-soak — load and soak (issue 8): N sessions (one browser context each) in one
// local Chromium, driven through the browser tools by name with JSON arguments until TOTAL
// calls (or SECONDS) are spent. Prints throughput, latency (overall and per tool), errors by
// kind and the RSS of this process and of Chromium over time. Exit 1 on any unexpected result
// (a call that should work failing, a bad call not failing with its error code, a result
// without its session's page), 2 when it cannot start.
//
//   build-rel/bin/agentkit-bench-soak [--sessions N] [--calls TOTAL | --seconds S] [--no-policy] [--quiet]
#include "soak.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
    agentkit::soak::options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--sessions") o.sessions = std::max(1, std::atoi(value()));
        else if (a == "--calls") o.calls = static_cast<std::size_t>(std::max(1LL, std::atoll(value())));
        else if (a == "--seconds") o.seconds = std::atof(value());
        else if (a == "--no-policy") o.policy = false;
        else if (a == "--quiet") o.quiet = true;
        else {
            std::fprintf(stderr, "usage: %s [--sessions N (16)] [--calls TOTAL (10000) | --seconds S] [--no-policy] [--quiet]\n", argv[0]);
            return a == "--help" || a == "-h" ? 0 : 2;
        }
    }
    const auto rep = agentkit::soak::run(o);
    std::fputs(agentkit::soak::to_text(rep, o).c_str(), stdout);
    if (!rep.setup_error.empty()) return 2;
    return rep.unexpected() == 0 ? 0 : 1;
}
