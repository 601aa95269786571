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
#include <agentkit/browser/tools.hpp>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "../../tests/support/http_server.hpp"
#include "../common/browser_agent.hpp"
#include "../common/demo_tools.hpp"
#include "site.hpp"

namespace ak = agentkit;

namespace {

namespace br = agentkit::browser;

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

constexpr const char* browser_task =
    "Get a shipping quote on the parcel-quote page at {url} for Ada Lovelace (ada@example.com): a 2.5 kg "
    "parcel to Lisbon, express delivery. Report the total price and the quote id.";

/// The quote as read from the page: "EUR 36.75", "Q-1A2B" and the sentence around them.
struct quote_seen {
    std::string total;
    std::string id;
};

std::optional<quote_seen> read_quote(std::string_view text) {
    const std::size_t t = text.find("Total: EUR ");
    const std::size_t q = text.find("Quote Q-");
    if (t == std::string_view::npos || q == std::string_view::npos) return std::nullopt;
    auto digits = [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; };
    quote_seen s;
    s.total = "EUR ";
    for (std::size_t i = t + 11; i < text.size(); ++i) {
        const bool dot_then_digit = text[i] == '.' && i + 1 < text.size() && digits(text[i + 1]);
        if (!digits(text[i]) && !dot_then_digit) break;
        s.total += text[i];
    }
    s.id = "Q-";
    for (std::size_t k = q + 8; k < text.size() && s.id.size() < 6 && std::isxdigit(static_cast<unsigned char>(text[k])) != 0; ++k)
        s.id += text[k];
    if (s.total.size() <= 4 || s.id.size() < 6) return std::nullopt;
    return s;
}

/// The scripted agent: each step reads the newest tool results from the request it is sent and
/// decides, the way a model would, what to call next. Refs come only from those results.
class quote_agent {
public:
    quote_agent(ak::provider p, std::string url) : provider_(p), url_(std::move(url)) {}

    ak::scripted_reply operator()(const ak::json& request) {
        if (!entered_) {
            entered_ = true;
            return ak::call({{"menu_enter", {{"mode", "browser"}}}});
        }
        if (!navigated_) {
            navigated_ = true;
            return ak::call({{"browser_navigate", {{"url", url_}}}});
        }
        const std::string seen = demo::last_tool_results(provider_, request);
        if (auto q = read_quote(seen)) {
            answer_ = "The express quote for a 2.5 kg parcel to Lisbon is " + q->total + " (quote " + q->id + ").";
            // a screenshot of the answer for the record, and complete, in one response
            return ak::call({{"browser_take_screenshot", ak::json::object()}, {"complete", {{"summary", answer_}}}});
        }
        if (!submitted_) {
            auto name = demo::find_ref(seen, "textbox", "Name");
            auto email = demo::find_ref(seen, "textbox", "Email");
            auto weight = demo::find_ref(seen, "textbox", "Weight");
            auto dest = demo::find_ref(seen, "combobox", "Destination");
            auto express = demo::find_ref(seen, "checkbox", "Express");
            auto button = demo::find_ref(seen, "button", "Get quote");
            if (name && email && weight && dest && express && button) {
                submitted_ = true;
                ak::json fields = ak::json::array({
                    {{"name", "Name"}, {"type", "textbox"}, {"ref", *name}, {"value", "Ada Lovelace"}},
                    {{"name", "Email"}, {"type", "textbox"}, {"ref", *email}, {"value", "ada@example.com"}},
                    {{"name", "Weight in kg"}, {"type", "textbox"}, {"ref", *weight}, {"value", "2.5"}},
                    {{"name", "Destination"}, {"type", "combobox"}, {"ref", *dest}, {"value", "Lisbon"}},
                    {{"name", "Express delivery"}, {"type", "checkbox"}, {"ref", *express}, {"value", "true"}},
                });
                return ak::call({{"browser_fill_form", {{"fields", std::move(fields)}, {"submit", *button}}}});
            }
        }
        if (snapshots_ < 1) {  // the result did not show what is needed: look at the whole page once
            ++snapshots_;
            return ak::call({{"browser_snapshot", ak::json::object()}});
        }
        return ak::say(submitted_ ? "I submitted the form but the page shows no quote."
                                  : "I could not find the form's fields on the page.");
    }

    [[nodiscard]] const std::string& answer() const noexcept { return answer_; }

private:
    ak::provider provider_;
    std::string url_;
    bool entered_ = false, navigated_ = false, submitted_ = false;
    int snapshots_ = 0;
    std::string answer_;
};

/// The menu over the browser toolbox: page work in `browser`, the rest in `devtools`.
template <class Box>
auto make_menu() {
    using ak::tool_ref;
    return ak::menu_for<Box>(
        ak::mode<"browser">(tool_ref<"browser_navigate">, tool_ref<"browser_navigate_back">, tool_ref<"browser_snapshot">,
                            tool_ref<"browser_click">, tool_ref<"browser_type">, tool_ref<"browser_fill_form">,
                            tool_ref<"browser_select_option">, tool_ref<"browser_press_key">, tool_ref<"browser_hover">,
                            tool_ref<"browser_wait_for">, tool_ref<"browser_interact">, tool_ref<"browser_extract">,
                            tool_ref<"browser_take_screenshot">, tool_ref<"browser_artifact">)
            .describe("A real browser: open pages, read them, fill forms, click")
            .when("Web browsing, forms, reading pages, UI checks"),
        ak::mode<"devtools">(tool_ref<"browser_drag">, tool_ref<"browser_file_upload">, tool_ref<"browser_handle_dialog">,
                             tool_ref<"browser_evaluate">, tool_ref<"browser_console_messages">,
                             tool_ref<"browser_network_requests">, tool_ref<"browser_tabs">, tool_ref<"browser_resize">,
                             tool_ref<"browser_close">, tool_ref<"browser_metrics">, tool_ref<"browser_batch">,
                             tool_ref<"browser_recording_start">, tool_ref<"browser_recording_stop">)
            .describe("Browser internals: tabs, console, network, uploads, dialogs, recordings")
            .when("Debugging a page, tabs, uploads, recordings"));
}

int run_browser_mode(const cli& c) {
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<agentkit::test::http_server> server;
    try {
        server = std::make_unique<agentkit::test::http_server>();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "agentkit-demo: cannot serve the bundled page on 127.0.0.1: %s\n", e.what());
        return 1;
    }
    server->route("/", agentkit::test::http_response::html(std::string(demo::site::form_page)));
    server->route("/quote", [](const agentkit::test::http_request& r) {
        auto [status, body] = demo::site::quote_page(r.query);
        auto resp = agentkit::test::http_response::html(std::move(body));
        resp.status = status;
        return resp;
    });
    const std::string url = server->url("/");

    br::browser_options bo;
    if (!c.chromium.empty()) bo.launch.executable = c.chromium;
    bo.policy.allowed_origins.push_back(server->origin());  // the agent may reach the demo site only
    br::browser browser{bo};
    if (auto started = browser.start(); !started) {
        std::fprintf(stderr,
                     "agentkit-demo: cannot start headless Chromium: %s\n"
                     "  Install Chromium, or point AGENTKIT_CHROMIUM (or --chromium PATH) at a Chromium/Chrome binary.\n"
                     "  `agentkit-demo --mode tools` runs the demo without a browser.\n",
                     started.error().to_text().c_str());
        return 3;
    }
    using store_t = std::remove_reference_t<decltype(std::declval<br::tool_state&>().store)>;
    store_t store{};
    br::tool_state state{browser, store};
    auto tools = br::browser_tools(state);
    auto menu = make_menu<decltype(tools)>();

    ak::session_options o;
    o.model = c.provider == ak::provider::anthropic ? "claude-sonnet-4-5" : "gpt-4.1";
    o.on_turn = [](const ak::turn_metrics& t) { std::printf("%s\n", t.log_line().c_str()); };
    ak::agent_session session{std::move(tools), std::move(menu), ak::compact_formatter{}, o, ak::artifact_sink_ref(store)};

    quote_agent agent(c.provider, url);
    ak::scripted_model model(c.provider, {});
    for (int i = 0; i < 8; ++i) model.then([&agent](const ak::json& req) { return agent(req); });

    std::string task = browser_task;
    task.replace(task.find("{url}"), 5, url);
    std::printf("agentkit %s demo · provider %s · menu starts at %s\ntask: %s\n\n", ak::version.string,
                std::string(ak::to_string(c.provider)).c_str(), std::string(session.get_masker().current_mode()).c_str(),
                task.c_str());
    ak::run_limits limits;
    limits.max_steps = 8;
    limits.max_time = std::chrono::seconds(60);
    const ak::run_result r = session.run(model, task, limits);

    if (c.show_requests) {
        for (std::size_t i = 0; i < model.requests().size(); ++i)
            std::printf("\n--- request %zu ---\n%s\n", i + 1, model.requests()[i].dump(2).c_str());
    }
    std::printf("\n%s\n\n%s\n", ak::render_report(session.make_report()).c_str(), session.metrics().log_line().c_str());
    std::printf("[browser] calls=%zu result_bytes=%zu result_tokens~%zu browser_ms=%lld mode=%s\n", state.calls,
                state.total_bytes, state.total_tokens, static_cast<long long>(state.total_ms),
                std::string(session.get_masker().current_mode()).c_str());
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[demo] wall=%.2fs pages_served=%zu quote_requests=%zu\n", wall, server->hits("/"), server->hits("/quote"));
    browser.close();
    server.reset();
    if (!r.ok() || agent.answer().empty()) {
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
