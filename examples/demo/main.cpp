// agentkit-demo — a scripted agent over agentkit's session layer; no API key needed.
//
//   build/bin/agentkit-demo [--provider anthropic|openai_chat|openai_responses] [--requests]
//
// It runs the agent loop (two parallel lookups, one compound form fill, a read, complete),
// prints each turn's metrics line, the Result / Summary / Artifacts report and the session
// totals. --requests also prints every request body sent to the (scripted) model.
//
// Modes: `tools` runs on the non-browser demo tools. A `browser` mode (menu ROOT → browser,
// a bundled page on 127.0.0.1 in headless Chromium) plugs in here once the browser tools land.
#include <agentkit/agentkit.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "../common/demo_tools.hpp"

namespace ak = agentkit;

namespace {

enum class demo_mode { tools };

struct cli {
    ak::provider provider = ak::provider::anthropic;
    demo_mode mode = demo_mode::tools;
    bool show_requests = false;
    bool ok = true;
};

cli parse(int argc, char** argv) {
    cli c;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--requests") {
            c.show_requests = true;
        } else if (a == "--provider" && i + 1 < argc) {
            const std::string_view p = argv[++i];
            if (p == "anthropic") c.provider = ak::provider::anthropic;
            else if (p == "openai_chat") c.provider = ak::provider::openai_chat;
            else if (p == "openai_responses") c.provider = ak::provider::openai_responses;
            else c.ok = false;
        } else if (a == "--mode" && i + 1 < argc) {
            if (std::string_view(argv[++i]) != "tools") c.ok = false;  // browser mode: not yet
        } else {
            c.ok = false;
        }
    }
    return c;
}

int run_tools_mode(const cli& c) {
    ak::session_options o;
    o.model = c.provider == ak::provider::anthropic ? "claude-sonnet-4-5" : "gpt-4.1";
    o.on_turn = [](const ak::turn_metrics& t) { std::printf("%s\n", t.log_line().c_str()); };
    ak::agent_session session{demo::make_toolbox(), ak::all_visible{}, ak::compact_formatter{}, o};

    ak::scripted_model model(c.provider, demo::script());
    model.then(demo::final_step());

    std::printf("agentkit %s demo · provider %s · task: %s\n\n", ak::version.string,
                std::string(ak::to_string(c.provider)).c_str(), demo::task);
    ak::run_limits limits;
    limits.max_steps = 8;
    const ak::run_result r = session.run(model, demo::task, limits);

    if (c.show_requests) {
        for (std::size_t i = 0; i < model.requests().size(); ++i)
            std::printf("\n--- request %zu ---\n%s\n", i + 1, model.requests()[i].dump(2).c_str());
    }
    std::printf("\n%s\n\n%s\n", ak::render_report(session.make_report()).c_str(), session.metrics().log_line().c_str());
    return r.ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    const cli c = parse(argc, argv);
    if (!c.ok) {
        std::fprintf(stderr, "usage: agentkit-demo [--provider anthropic|openai_chat|openai_responses] [--mode tools] [--requests]\n");
        return 2;
    }
    switch (c.mode) {
        case demo_mode::tools: return run_tools_mode(c);
    }
    return 2;
}
