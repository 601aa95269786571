// agentkit-demo — a scripted agent over agentkit's session layer and a real browser; no API key.
//
//   build/bin/agentkit-demo [--provider anthropic|openai_chat|openai_responses] [--requests]
//                           [--mode browser|tools] [--chromium PATH]
//
// The default run (browser mode): the agent starts at the tool menu's ROOT, enters the browser
// mode, opens a parcel-quote form this program serves on 127.0.0.1, in headless Chromium, fills
// and submits it in one compound call (browser_fill_form with `submit`), reads the quote from
// the page, and completes. Then it prints the Result / Summary / Artifacts report and the
// metrics. The scripted model picks every element ref from the tool results it is sent, as a
// model would. Exit status: 0 when the quote was read, 1 when the run failed, 3 when Chromium
// could not start (set AGENTKIT_CHROMIUM or pass --chromium).
//
// `--mode tools` runs the same loop on the non-browser demo tools (two parallel lookups, one
// compound form fill, a read, complete). --requests also prints every request body sent to the
// (scripted) model.
#include <agentkit/agentkit.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "../common/browser_loop.hpp"
#include "../common/demo_tools.hpp"

namespace ak = agentkit;

namespace {

enum class demo_mode { browser, tools };

struct cli {
    ak::provider provider = ak::provider::anthropic;
    demo_mode mode = demo_mode::browser;
    bool show_requests = false;
    std::string chromium;
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
            const std::string_view m = argv[++i];
            if (m == "browser") c.mode = demo_mode::browser;
            else if (m == "tools") c.mode = demo_mode::tools;
            else c.ok = false;
        } else if (a == "--chromium" && i + 1 < argc) {
            c.chromium = argv[++i];
        } else {
            c.ok = false;
        }
    }
    return c;
}

// ---- browser mode ------------------------------------------------------------------------
// The composition (bundled site, headless Chromium, browser tools behind the menu, session) and
// the scripted agent live in apps/common/browser_loop.hpp: agentkit-bot runs the same loop
// with a real model.

int run_browser_mode(const cli& c) {
    const auto t0 = std::chrono::steady_clock::now();
    demo::browser_loop_options lo;
    lo.chromium = c.chromium;
    lo.session.model = c.provider == ak::provider::anthropic ? "claude-sonnet-4-5" : "gpt-4.1";
    lo.session.on_turn = [](const ak::turn_metrics& t) { std::printf("%s\n", t.log_line().c_str()); };
    demo::browser_loop loop(std::move(lo));
    if (auto up = loop.start(); !up) {
        if (up.error().is(ak::errc::internal)) {
            std::fprintf(stderr, "agentkit-demo: %s\n", up.error().message.c_str());
            return 1;
        }
        std::fprintf(stderr,
                     "agentkit-demo: cannot start headless Chromium: %s\n"
                     "  Install Chromium, or point AGENTKIT_CHROMIUM (or --chromium PATH) at a Chromium/Chrome binary.\n"
                     "  `agentkit-demo --mode tools` runs the demo without a browser.\n",
                     up.error().to_text().c_str());
        return 3;
    }
    demo::scripted_quote_model model(c.provider, loop.url());
    const std::string task = demo::with_url(demo::quote_task, loop.url());
    std::printf("agentkit %s demo · provider %s · menu starts at %s\ntask: %s\n\n", ak::version.string,
                std::string(ak::to_string(c.provider)).c_str(), std::string(loop.session().get_masker().current_mode()).c_str(),
                task.c_str());
    ak::run_limits limits;
    limits.max_steps = 8;
    limits.max_time = std::chrono::seconds(60);
    const ak::run_result r = loop.run(model, task, limits);

    if (c.show_requests) {
        for (std::size_t i = 0; i < model.requests().size(); ++i)
            std::printf("\n--- request %zu ---\n%s\n", i + 1, model.requests()[i].dump(2).c_str());
    }
    std::printf("\n%s\n\n%s\n", ak::render_report(loop.session().make_report()).c_str(),
                loop.session().metrics().log_line().c_str());
    std::printf("%s\n", loop.browser_line().c_str());
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[demo] wall=%.2fs pages_served=%zu quote_requests=%zu\n", wall, loop.pages_served(), loop.quote_requests());
    loop.close();
    if (!r.ok() || model.answer().empty()) {
        std::fprintf(stderr, "agentkit-demo: the agent did not read the quote (%s%s)\n",
                     std::string(ak::to_string(r.reason)).c_str(), r.error ? (": " + r.error->to_text()).c_str() : "");
        return 1;
    }
    return 0;
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
        std::fprintf(stderr, "usage: agentkit-demo [--provider anthropic|openai_chat|openai_responses] [--mode browser|tools] "
                     "[--chromium PATH] [--requests]\n");
        return 2;
    }
    switch (c.mode) {
        case demo_mode::browser: return run_browser_mode(c);
        case demo_mode::tools: return run_tools_mode(c);
    }
    return 2;
}
