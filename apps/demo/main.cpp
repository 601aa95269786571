// agentkit-demo — an agent over agentkit's session layer and a real browser: the scripted agent
// without an API key, a real model (agentkit::model_client) with one. See `agentkit-demo --help`.
//
//   build/bin/agentkit-demo [--provider anthropic|openai_chat|openai_responses|openai_compatible]
//                           [--model NAME] [--base-url URL] [--no-stream] [--requests]
//                           [--mode browser|tools] [--chromium PATH]
//
// The default run (browser mode): the agent starts at the tool menu's ROOT, enters the browser
// mode, opens a parcel-quote form this program serves on 127.0.0.1, in headless Chromium, fills
// and submits it in one compound call (browser_fill_form with `submit`), reads the quote from
// the page, and completes. Then it prints the Result / Summary / Artifacts report and the
// metrics. The scripted model picks every element ref from the tool results it is sent, as a
// model would. Exit status: 0 when the quote was read (scripted) or the model answered (real),
// 1 when the run failed, 2 on bad usage, 3 when Chromium could not start (set AGENTKIT_CHROMIUM
// or pass --chromium).
//
// `--mode tools` runs the same loop on the non-browser demo tools (two parallel lookups, one
// compound form fill, a read, complete). --requests also prints every request body sent to the
// scripted model.
#include <agentkit/agentkit.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "../common/browser_loop.hpp"
#include "../common/demo_tools.hpp"
#include "../common/model_flags.hpp"
#if AGENTKIT_APP_HAS_CURL
#include "../common/real_model.hpp"
#endif

namespace ak = agentkit;

namespace {

constexpr const char* usage_head = R"(Usage: agentkit-demo [options]

A whole agent on a bundled parcel-quote page in headless Chromium (or, with --mode tools, on the
demo's non-browser tools). Without an API key the scripted agent runs (no network beyond
127.0.0.1); with ANTHROPIC_API_KEY or OPENAI_API_KEY set (or --provider openai_compatible and a
base URL), a real model does.

Options:
)";

constexpr const char* usage_rest = R"(  --mode browser|tools  browser (default), or the demo's non-browser tools (no Chromium needed)
  --exposure stable|visible_only
                        how the tool list reaches the model: the whole catalogue every turn with
                        visibility through the provider's own mechanism (stable, the default: a
                        cacheable prefix), or only the tools callable now (visible_only). The
                        report's "cache hit" line shows the difference
  --chromium PATH       the Chromium binary (default: $AGENTKIT_CHROMIUM, else /usr/lib/chromium/chromium)
  --requests            also print every request body sent to the scripted model
  -h, --help            this text

Environment:
)";

constexpr const char* usage_tail = R"(  AGENTKIT_CHROMIUM     the Chromium binary (--chromium wins)

Exit status: 0 the quote was read (scripted) or the model answered (real); 1 the run failed;
2 bad usage; 3 Chromium could not start.
)";

enum class demo_mode { browser, tools };

struct cli {
    demo::model_flags model;
    demo_mode mode = demo_mode::browser;
    std::optional<ak::exposure> exposure;  ///< unset: the session's default (stable)
    bool show_requests = false;
    std::string chromium;
    bool help = false;
    std::string error;  ///< non-empty: bad usage
};

cli parse(int argc, char** argv) {
    cli c;
    for (int i = 1; i < argc && c.error.empty(); ++i) {
        const std::string_view a = argv[i];
        if (a == "-h" || a == "--help") {
            c.help = true;
        } else if (a == "--requests") {
            c.show_requests = true;
        } else if (demo::parse_model_flag(argc, argv, i, c.model, c.error)) {
            // --provider, --model, --base-url, --no-stream
        } else if (a == "--mode" && i + 1 < argc) {
            const std::string_view m = argv[++i];
            if (m == "browser") c.mode = demo_mode::browser;
            else if (m == "tools") c.mode = demo_mode::tools;
            else c.error = "unknown mode \"" + std::string(m) + "\" (browser, tools)";
        } else if (a == "--chromium" && i + 1 < argc) {
            c.chromium = argv[++i];
        } else if (a == "--exposure" && i + 1 < argc) {
            const std::string_view e = argv[++i];
            if (e == "stable") c.exposure.reset();
            else if (e == "visible_only") c.exposure = ak::exposure::visible_only;
            else c.error = "unknown exposure \"" + std::string(e) + "\" (stable, visible_only)";
        } else {
            c.error = "unknown option or missing value: " + std::string(a);
        }
    }
    return c;
}

/// The model a run uses: the scripted one (`real` null) or a model_client.
struct chosen {
    ak::provider provider = ak::provider::anthropic;
    std::string model_name;
    bool openai_compat = false;
    std::string banner;  ///< "scripted agent" or "model NAME (API at URL)"
#if AGENTKIT_APP_HAS_CURL
    std::unique_ptr<ak::model_client> real;
#endif
    [[nodiscard]] bool is_real() const noexcept {
#if AGENTKIT_APP_HAS_CURL
        return real != nullptr;
#else
        return false;
#endif
    }
};

/// Pick the model; false (after saying why on stderr) on bad usage.
bool choose(const cli& c, chosen& out) {
    out.provider = c.model.scripted_format();
    out.model_name = out.provider == ak::provider::anthropic ? "claude-sonnet-4-5" : "gpt-4.1";
    out.banner = "scripted agent";
#if AGENTKIT_APP_HAS_CURL
    demo::model_choice m = demo::choose_model(c.model, /*strict=*/false);
    if (!m.error.empty()) {
        std::fprintf(stderr, "agentkit-demo: %s\n", m.error.c_str());
        return false;
    }
    if (m.real) {
        out.provider = m.provider;
        out.model_name = m.model_name;
        out.openai_compat = m.openai_compat;
        out.real = std::make_unique<ak::model_client>(m.options);
        out.banner = "model " + m.model_name + " (" + std::string(ak::to_string(out.real->api())) + " at " +
                     ak::net::redact_url(out.real->endpoint()) + ", " + m.why + ")";
    } else if (m.why != "no ANTHROPIC_API_KEY or OPENAI_API_KEY") {
        std::fprintf(stderr, "agentkit-demo: %s: running the scripted agent\n", m.why.c_str());
    }
#else
    if (std::getenv("ANTHROPIC_API_KEY") != nullptr || std::getenv("OPENAI_API_KEY") != nullptr)
        std::fprintf(stderr, "agentkit-demo: built without libcurl (agentkit::curl): running the scripted agent\n");
#endif
    return true;
}

ak::run_limits limits_for(const chosen& m) {
    ak::run_limits limits;
    limits.max_steps = m.is_real() ? 16 : 8;
    limits.max_time = m.is_real() ? std::chrono::seconds(300) : std::chrono::seconds(60);
    return limits;
}

/// Run `session_run(model)` with the chosen model.
template <class Scripted, class Run>
ak::run_result run_with(chosen& m, Scripted& scripted, Run&& session_run) {
#if AGENTKIT_APP_HAS_CURL
    if (m.real) return session_run(*m.real);
#else
    (void)m;
#endif
    return session_run(scripted);
}

// ---- browser mode ------------------------------------------------------------------------
// The composition (bundled site, headless Chromium, browser tools behind the menu, session) and
// the scripted agent live in apps/common/browser_loop.hpp: agentkit-bot runs the same loop.

int run_browser_mode(const cli& c, chosen& m) {
    const auto t0 = std::chrono::steady_clock::now();
    demo::browser_loop_options lo;
    lo.chromium = c.chromium;
    lo.session.model = m.model_name;
    lo.session.openai_compat = m.openai_compat;
    lo.session.exposure = c.exposure;
    lo.session.on_turn = [](const ak::turn_metrics& t) { std::printf("%s\n", t.log_line().c_str()); };
    lo.session.on_delta = demo::print_words(stdout);  // a real model's words as they come
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
    demo::scripted_quote_model model(m.provider, loop.url());
    const std::string task = demo::with_url(demo::quote_task, loop.url());
    std::printf("agentkit %s demo · provider %s · %s · menu starts at %s\ntask: %s\n\n", ak::version.string,
                std::string(ak::to_string(m.provider)).c_str(), m.banner.c_str(),
                std::string(loop.session().get_masker().current_mode()).c_str(), task.c_str());
    const ak::run_result r = run_with(m, model, [&](auto& any) { return loop.run(any, task, limits_for(m)); });

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
    if (!r.ok() || (!m.is_real() && model.answer().empty())) {
        std::fprintf(stderr, "agentkit-demo: the agent did not %s (%s%s)\n", m.is_real() ? "answer" : "read the quote",
                     std::string(ak::to_string(r.reason)).c_str(), r.error ? (": " + r.error->to_text()).c_str() : "");
        return 1;
    }
    return 0;
}

int run_tools_mode(const cli& c, chosen& m) {
    ak::session_options o;
    o.model = m.model_name;
    o.openai_compat = m.openai_compat;
    o.exposure = c.exposure;
    o.on_turn = [](const ak::turn_metrics& t) { std::printf("%s\n", t.log_line().c_str()); };
    o.on_delta = demo::print_words(stdout);  // a real model's words as they come
    ak::agent_session session{demo::make_toolbox(), ak::all_visible{}, ak::compact_formatter{}, o};

    ak::scripted_model model(m.provider, demo::script());
    model.then(demo::final_step());

    std::printf("agentkit %s demo · provider %s · %s · task: %s\n\n", ak::version.string,
                std::string(ak::to_string(m.provider)).c_str(), m.banner.c_str(), demo::task);
    const ak::run_result r = run_with(m, model, [&](auto& any) { return session.run(any, demo::task, limits_for(m)); });

    if (c.show_requests) {
        for (std::size_t i = 0; i < model.requests().size(); ++i)
            std::printf("\n--- request %zu ---\n%s\n", i + 1, model.requests()[i].dump(2).c_str());
    }
    std::printf("\n%s\n\n%s\n", ak::render_report(session.make_report()).c_str(), session.metrics().log_line().c_str());
    if (!r.ok() && r.error) std::fprintf(stderr, "agentkit-demo: %s\n", r.error->to_text().c_str());
    return r.ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    const cli c = parse(argc, argv);
    if (auto exit_code = demo::answer_usage("agentkit-demo", c.help, c.error, usage_head, usage_rest, usage_tail)) return *exit_code;
    chosen m;
    if (!choose(c, m)) return 2;
    switch (c.mode) {
        case demo_mode::browser: return run_browser_mode(c, m);
        case demo_mode::tools: return run_tools_mode(c, m);
    }
    return 2;
}
