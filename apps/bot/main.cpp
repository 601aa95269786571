// agentkit-bot — agentkit-demo's agent loop with a real model (agentkit::model_client, over
// libcurl), or with the demo's scripted agent when no API key is set. See `agentkit-bot --help`.
//
// The loop is agentkit-demo's (apps/common/browser_loop.hpp): the agent starts at the tool
// menu's ROOT, enters the browser mode and works in headless Chromium on a parcel-quote page
// this program serves on 127.0.0.1. `--mode tools` runs the demo's non-browser tools instead.
// The report goes to stdout, progress and errors to stderr.
#include <agentkit/agentkit.hpp>
#include <agentkit/session/model_client.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../common/browser_loop.hpp"
#include "../common/demo_tools.hpp"
#include "../common/real_model.hpp"

namespace ak = agentkit;

namespace {

constexpr const char* usage_head = R"(Usage: agentkit-bot [options] [TASK]

agentkit-demo's agent loop with a real model. The agent starts at the tool menu's ROOT, enters
the browser mode and works in headless Chromium on a parcel-quote form this program serves on
127.0.0.1. With ANTHROPIC_API_KEY or OPENAI_API_KEY set (or --provider openai_compatible and a
base URL), a real model drives it (agentkit::model_client, streamed); without a key, the demo's
scripted agent does (no network beyond 127.0.0.1). Naming a --provider whose key is not set is
a usage error.

TASK      what to ask (default: get a shipping quote on the bundled page). "{url}" in TASK is
          replaced by the bundled page's address. The browser may open only the bundled site
          unless --allow-origin adds more. The scripted agent always does the quote task.

Options:
)";

constexpr const char* usage_rest = R"(  --scripted            use the scripted agent even when an API key is set
  --mode browser|tools  browser (default), or the demo's non-browser tools (no Chromium needed)
  --chromium PATH       the Chromium binary (default: $AGENTKIT_CHROMIUM, else /usr/lib/chromium/chromium)
  --allow-origin ORIGIN also let the browser open ORIGIN, e.g. https://example.org (repeatable)
  --max-steps N         most model turns (default 12)
  --max-time SECONDS    wall-time limit of the run (default 300)
  -h, --help            this text

Environment:
)";

constexpr const char* usage_tail = R"(  AGENTKIT_CHROMIUM     the Chromium binary (--chromium wins)

Exit status: 0 the agent answered; 1 the run failed (provider error, limit reached, no answer);
2 bad usage; 3 Chromium could not start.
)";

enum class bot_mode { browser, tools };

struct cli {
    demo::model_flags model;
    bool scripted = false;
    bot_mode mode = bot_mode::browser;
    std::string chromium;
    std::vector<std::string> origins;
    std::size_t max_steps = 12;
    long max_time_s = 300;
    std::optional<std::string> task;
    bool help = false;
    std::string error;  ///< non-empty: bad usage
};

std::optional<long> positive_number(std::string_view s) {
    if (s.empty() || s.size() > 9) return std::nullopt;
    long v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + (c - '0');
    }
    if (v <= 0) return std::nullopt;
    return v;
}

cli parse(int argc, char** argv) {
    cli c;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const bool has_value = i + 1 < argc;
        auto need_value = [&](std::string_view opt) {
            if (!has_value) c.error = std::string(opt) + " needs a value";
            return has_value;
        };
        if (a == "-h" || a == "--help") {
            c.help = true;
        } else if (a == "--scripted") {
            c.scripted = true;
        } else if (demo::parse_model_flag(argc, argv, i, c.model, c.error)) {
            // --provider, --model, --base-url, --no-stream
        } else if (a == "--mode") {
            if (!need_value(a)) break;
            const std::string_view m = argv[++i];
            if (m == "browser") c.mode = bot_mode::browser;
            else if (m == "tools") c.mode = bot_mode::tools;
            else c.error = std::string("unknown mode \"") + argv[i] + "\" (browser, tools)";
        } else if (a == "--chromium") {
            if (!need_value(a)) break;
            c.chromium = argv[++i];
        } else if (a == "--allow-origin") {
            if (!need_value(a)) break;
            c.origins.emplace_back(argv[++i]);
        } else if (a == "--max-steps") {
            if (!need_value(a)) break;
            if (auto n = positive_number(argv[++i])) c.max_steps = static_cast<std::size_t>(*n);
            else c.error = std::string("--max-steps wants a positive number, not \"") + argv[i] + "\"";
        } else if (a == "--max-time") {
            if (!need_value(a)) break;
            if (auto n = positive_number(argv[++i])) c.max_time_s = *n;
            else c.error = std::string("--max-time wants a positive number of seconds, not \"") + argv[i] + "\"";
        } else if (a.size() > 1 && a.front() == '-') {
            c.error = "unknown option " + std::string(a);
        } else if (c.task) {
            c.error = "give TASK as one argument (quote it)";
        } else {
            c.task = std::string(a);
        }
        if (!c.error.empty()) break;
    }
    return c;
}

/// The model: the scripted agent with --scripted, else what the flags and keys choose.
demo::model_choice choose_model(const cli& c) {
    if (c.scripted) {
        demo::model_choice m;
        m.provider = c.model.scripted_format();
        m.model_name = !c.model.model.empty() ? c.model.model : "scripted";
        m.why = "--scripted";
        return m;
    }
    return demo::choose_model(c.model, /*strict=*/true);
}

ak::session_options session_options_for(const demo::model_choice& m) {
    ak::session_options o;
    o.provider = m.provider;
    o.model = m.model_name;
    o.openai_compat = m.openai_compat;
    o.on_turn = [](const ak::turn_metrics& t) { std::fprintf(stderr, "%s\n", t.log_line().c_str()); };
    o.on_delta = demo::print_words(stderr);  // a real model's words as they come
    return o;
}

ak::run_limits limits_for(const cli& c) {
    ak::run_limits l;
    l.max_steps = c.max_steps;
    l.max_time = std::chrono::seconds(c.max_time_s);
    return l;
}

/// One clear line on stderr for a run that did not end with an answer.
void explain_failure(const ak::run_result& r) {
    if (r.ok()) return;
    if (r.reason == ak::stop_reason::model_error && r.error) {
        std::fprintf(stderr, "agentkit-bot: the model call failed: %s\n", r.error->to_text().c_str());
        return;
    }
    std::fprintf(stderr, "agentkit-bot: the run stopped without an answer: %s%s%s\n", std::string(ak::to_string(r.reason)).c_str(),
                 r.error ? " — " : "", r.error ? r.error->to_text().c_str() : "");
}

template <class Model>
int run_browser(const cli& c, const demo::model_choice& choice, Model* real_model) {
    demo::browser_loop_options lo;
    lo.chromium = c.chromium;
    lo.extra_origins = c.origins;
    lo.session = session_options_for(choice);
    demo::browser_loop loop{lo};
    if (auto up = loop.start(); !up) {
        if (up.error().is(ak::errc::internal)) {
            std::fprintf(stderr, "agentkit-bot: %s\n", up.error().to_text().c_str());
            return 1;
        }
        std::fprintf(stderr,
                     "agentkit-bot: cannot start headless Chromium: %s\n"
                     "  Install Chromium, or point AGENTKIT_CHROMIUM (or --chromium PATH) at a Chromium/Chrome binary.\n"
                     "  `agentkit-bot --mode tools` runs the loop without a browser.\n",
                     up.error().to_text().c_str());
        return 3;
    }
    const std::string url = loop.url();
    const std::string task = demo::with_url(c.task.value_or(demo::quote_task), url);
    std::fprintf(stderr, "agentkit %s bot · %s · menu starts at %s · bundled page %s\ntask: %s\n", ak::version.string,
                 !choice.real ? "scripted agent" : ("model " + choice.model_name).c_str(),
                 std::string(loop.session().get_masker().current_mode()).c_str(), url.c_str(), task.c_str());

    ak::run_result r;
    std::string scripted_answer;
    if (real_model != nullptr) {
        r = loop.run(*real_model, task, limits_for(c));
    } else {
        demo::scripted_quote_model model(choice.provider, url);
        r = loop.run(model, task, limits_for(c));
        scripted_answer = model.answer();
    }
    std::printf("%s\n\n%s\n%s\n[site] pages_served=%zu quote_requests=%zu\n",
                ak::render_report(loop.session().make_report()).c_str(), loop.session().metrics().log_line().c_str(),
                loop.browser_line().c_str(), loop.pages_served(), loop.quote_requests());
    std::fflush(stdout);
    loop.close();
    explain_failure(r);
    if (!r.ok()) return 1;
    if (!choice.real && scripted_answer.empty()) {
        std::fprintf(stderr, "agentkit-bot: the scripted agent did not read the quote from the page\n");
        return 1;
    }
    return 0;
}

template <class Model>
int run_tools(const cli& c, const demo::model_choice& choice, Model* real_model) {
    ak::agent_session session{demo::make_toolbox(), ak::all_visible{}, ak::compact_formatter{}, session_options_for(choice)};
    const std::string task = c.task.value_or(demo::task);
    std::fprintf(stderr, "agentkit %s bot · %s · demo tools\ntask: %s\n", ak::version.string,
                 !choice.real ? "scripted agent" : ("model " + choice.model_name).c_str(), task.c_str());
    ak::run_result r;
    if (real_model != nullptr) {
        r = session.run(*real_model, task, limits_for(c));
    } else {
        ak::scripted_model model(choice.provider, demo::script());
        model.then(demo::final_step());
        r = session.run(model, task, limits_for(c));
    }
    std::printf("%s\n\n%s\n", ak::render_report(session.make_report()).c_str(), session.metrics().log_line().c_str());
    std::fflush(stdout);
    explain_failure(r);
    return r.ok() ? 0 : 1;
}

template <class Model>
int run_mode(const cli& c, const demo::model_choice& choice, Model* real_model) {
    return c.mode == bot_mode::browser ? run_browser(c, choice, real_model) : run_tools(c, choice, real_model);
}

}  // namespace

int main(int argc, char** argv) {
    const cli c = parse(argc, argv);
    if (auto exit_code = demo::answer_usage("agentkit-bot", c.help, c.error, usage_head, usage_rest, usage_tail)) return *exit_code;
    const demo::model_choice choice = choose_model(c);
    if (!choice.error.empty()) {
        std::fprintf(stderr, "agentkit-bot: %s\n", choice.error.c_str());
        return 2;
    }
    if (!choice.real) {
        std::fprintf(stderr, "agentkit-bot: %s: running the scripted agent (%s format)\n", choice.why.c_str(),
                     std::string(ak::to_string(choice.provider)).c_str());
        return run_mode<ak::model_client>(c, choice, nullptr);
    }
    ak::model_client_options o = choice.options;
    // one HTTP request may take the whole run's time, never more
    o.timeout = std::chrono::seconds(std::min(c.max_time_s, 300L));
    ak::model_client model{std::move(o)};
    std::fprintf(stderr, "agentkit-bot: %s: %s %s at %s%s\n", choice.why.c_str(), std::string(ak::to_string(model.api())).c_str(),
                 choice.model_name.c_str(), ak::net::redact_url(model.endpoint()).c_str(), choice.options.stream ? " (streamed)" : "");
    return run_mode(c, choice, &model);
}
