// agentkit-web-eval — an MCP stdio server that delegates a web task to an agent and answers with
// its result first (Result / Summary / Artifacts), pixels only on request.
//
//   { "command": "build/bin/agentkit-web-eval", "args": [] }
//
// Tools:
//   web_eval_agent(url, task, headless_browser?, max_steps?)
//       Runs an agent loop (agent_session over the browser tools, in a fresh headless Chromium)
//       on `task` at `url` and returns one text: the Result / Summary / Artifacts contract —
//       the final answer first, bounded bullets, then the session id, artifact counts and how
//       to fetch them. Screenshots are kept out of band: one per acting step ("agent_step").
//   get_screenshots(session_id, last_n?)
//       The screenshots of a run, as images (the opt-in path for pixels).
//   get_run_events(session_id, kinds?, since?, max_tokens?)
//       The run's timeline (each browser call: arguments with secrets redacted, the head of its
//       result, time, tokens, errors, artifacts), and the console and network events of its
//       tab, oldest first, in pages within a token budget: `since` is the last event number
//       read (the answer says where the next page starts).
//
// --dashboard[=PORT] serves the live view of every run on 127.0.0.1 (the URL, with its token,
// on stderr): watch the agent's screen and steps, pause it, take control.
//
// The model: `model_factory` builds one per run. With ANTHROPIC_API_KEY or OPENAI_API_KEY set
// (or --provider openai_compatible and a base URL) it is a real model (agentkit::model_client,
// streamed; --provider, --model, --base-url as agentkit-bot reads them); without a key it is the
// scripted "page reader" (navigate, read the snapshot, answer from the text that best matches
// the task), and the report's Summary says first that no model ran, so nobody takes its text
// match for an agent's answer. stdout carries only MCP messages; logs go to stderr (the key is
// never printed).
#include <agentkit/agentkit.hpp>
#include <agentkit/browser/tools.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <agentkit/browser/live/timeline.hpp>
#if AGENTKIT_APP_HAS_NET
#include <agentkit/browser/live/live_view.hpp>
#include <agentkit/browser/live/dashboard.hpp>
#endif

#include "../common/browser_agent.hpp"
#include "../common/model_flags.hpp"
#if AGENTKIT_APP_HAS_CURL
#include "../common/real_model.hpp"
#endif

namespace ak = agentkit;
namespace br = agentkit::browser;

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

using store_t = std::remove_reference_t<decltype(std::declval<br::tool_state&>().store)>;

// ---- the scripted model ------------------------------------------------------------------

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// Words of the task worth looking for on the page (4+ letters, lower case).
std::vector<std::string> keywords(std::string_view task) {
    static const std::vector<std::string> stop{"what", "which", "find", "page", "this", "that", "with", "from",
                                               "tell", "there", "where", "does", "give", "report", "check", "about"};
    std::vector<std::string> out;
    std::string w;
    auto flush = [&] {
        if (w.size() >= 4 && std::find(stop.begin(), stop.end(), w) == stop.end() &&
            std::find(out.begin(), out.end(), w) == out.end())
            out.push_back(w);
        w.clear();
    };
    for (char c : task) {
        if (std::isalnum(static_cast<unsigned char>(c)) != 0) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else flush();
    }
    flush();
    return out;
}

/// The page reader: opens the URL, then answers from the snapshot line that matches the task
/// best. Every fact in its answer comes from the tool results it is sent.
class page_reader {
public:
    page_reader(ak::provider p, std::string url, std::string task) : p_(p), url_(std::move(url)), task_(std::move(task)) {}

    ak::scripted_reply operator()(const ak::json& request) {
        if (!navigated_) {
            navigated_ = true;
            return ak::script::call({{"browser_navigate", {{"url", url_}}}});
        }
        const std::string seen = demo::last_tool_results(p_, request);
        if (seen.find("error[") != std::string::npos || seen.find("title:") == std::string::npos) {  // no page: it failed
            return ak::script::call({{"complete",
                              {{"result", "The page could not be opened: " + first_line(seen)},
                               {"summary", ak::json::array({"navigation to " + url_ + " failed"})}}}});
        }
        const std::string title = demo::line_after(seen, "title:").value_or("");
        const std::string heading = demo::line_after(seen, "h1 \"").value_or("");
        const auto words = keywords(task_);
        std::string best;
        std::size_t best_hits = 0;
        std::size_t refs = 0;
        for (std::size_t pos = 0; pos < seen.size();) {
            std::size_t end = seen.find('\n', pos);
            if (end == std::string::npos) end = seen.size();
            std::string line = seen.substr(pos, end - pos);
            pos = end + 1;
            while (!line.empty() && line.front() == ' ') line.erase(line.begin());
            if (line.find("[ref=") != std::string::npos) ++refs;
            if (line.empty() || line.rfind("<<", 0) == 0 || line.rfind("title:", 0) == 0 || line.rfind("navigated", 0) == 0)
                continue;
            const std::string l = lower(line);
            std::size_t hits = 0;
            for (const auto& w : words) hits += l.find(w) != std::string::npos ? 1U : 0U;
            if (hits > best_hits) {
                best_hits = hits;
                best = line;
            }
        }
        std::string answer = "The page \"" + title + "\"";
        if (!heading.empty()) answer += " (main heading \"" + heading + "\")";
        answer += best.empty() ? " shows nothing that matches the task." : " says: " + best;
        ak::json summary = ak::json::array();
        summary.push_back("opened " + url_);
        summary.push_back(std::to_string(refs) + " elements to act on in the snapshot");
        summary.push_back(best.empty() ? std::string("no text on the page matched the task")
                                       : "answer taken from the page text matching " + std::to_string(best_hits) +
                                             " of the task's " + std::to_string(words.size()) + " keywords");
        return ak::script::call({{"complete", {{"result", answer}, {"summary", std::move(summary)}}}});
    }

private:
    static std::string first_line(const std::string& s) {
        const auto nl = s.find('\n');
        return s.substr(0, nl == std::string::npos ? s.size() : std::min<std::size_t>(nl, 300));
    }
    ak::provider p_;
    std::string url_;
    std::string task_;
    bool navigated_ = false;
};

/// Builds the model of one run.
using model_factory = std::function<demo::any_model(const std::string& url, const std::string& task)>;

/// The model every run uses, as the session and the report need to know it.
struct model_setup {
    model_factory factory;
    bool real = false;           ///< false: the scripted page reader
    std::string name;            ///< sent as the request's "model"
    bool openai_compat = false;  ///< an OpenAI-compatible server
    std::string summary_line;    ///< the report's first Summary bullet: which model ran, or that none did
};

/// The line the Summary starts with when no model ran.
inline constexpr const char* no_model_line =
    "no model ran: scripted page reader (the answer is the page text that best matches the task's words; set "
    "ANTHROPIC_API_KEY or OPENAI_API_KEY for a real model)";

model_factory scripted_factory(ak::provider p) {
    return [p](const std::string& url, const std::string& task) {
        struct holder {
            page_reader reader;
            ak::scripted_model model;
        };
        auto h = std::make_shared<holder>(holder{page_reader(p, url, task), ak::scripted_model(p, {})});
        for (int i = 0; i < 4; ++i) h->model.then([h_ = h.get()](const ak::json& r) { return h_->reader(r); });
        return demo::any_model(p, [h](const ak::json& r) { return h->model.complete(r); });
    };
}

// ---- the service -------------------------------------------------------------------------

struct web_eval_args {
    std::string url;
    std::string task;
    std::optional<bool> headless_browser;
    std::optional<int> max_steps;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(web_eval_args, url, "The page to start from (http:// or https://)", ak::min_length(1)),
                          AGENTKIT_FIELD(web_eval_args, task, "What to do or find out there, in plain words", ak::min_length(1)),
                          AGENTKIT_FIELD(web_eval_args, headless_browser, "Run the browser without a window (default true)"),
                          AGENTKIT_FIELD(web_eval_args, max_steps, "Most model turns (default 12)", ak::range(1, 50)));
    }
};

struct screenshots_args {
    std::string session_id;
    std::optional<int> last_n;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(screenshots_args, session_id, "The session_id from web_eval_agent's Artifacts", ak::min_length(1)),
                          AGENTKIT_FIELD(screenshots_args, last_n, "Only the newest N screenshots (default 5)", ak::range(1, 50)));
    }
};

struct run_events_args {
    std::string session_id;
    std::optional<std::vector<std::string>> kinds;
    std::optional<int> since;
    std::optional<int> max_tokens;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(run_events_args, session_id, "The session_id from web_eval_agent's Artifacts", ak::min_length(1)),
                          AGENTKIT_FIELD(run_events_args, kinds, "Which events: step, console, network (default all)"),
                          AGENTKIT_FIELD(run_events_args, since, "Only events after this number (the last one read; default 0)",
                                         ak::range(0, 1000000)),
                          AGENTKIT_FIELD(run_events_args, max_tokens, "Budget of this page (default 2000)", ak::range(50, 20000)));
    }
};

/// What a run leaves besides its report: its artifacts and its events (numbered from 1).
struct run_record {
    std::shared_ptr<store_t> store;
    std::vector<std::pair<std::string, std::string>> events;  // (kind, one line)
};

/// One line of a timeline step.
std::string step_line(const br::call_record& r) {
    std::string line = r.tool + " " + r.args.dump() + " — " + (r.metrics.ok && r.error.empty() ? "ok" : "error") + ", " +
                       std::to_string(r.metrics.ms) + " ms, ~" + std::to_string(r.metrics.tokens) + " tokens";
    std::string head = r.error.empty() ? r.head : r.error;
    for (auto& c : head)
        if (c == '\n') c = ' ';
    if (head.size() > 160) head = head.substr(0, ak::utf8_safe_prefix(head, 160)) + "…";
    if (!head.empty()) line += ": " + head;
    if (!r.artifacts.empty()) {
        line += " [artifacts:";
        for (const auto& a : r.artifacts) line += " " + a;
        line += "]";
    }
    return line;
}

class web_eval_service {
public:
    web_eval_service(br::browser_options bo, model_setup m, bool log) : bo_(std::move(bo)), model_(std::move(m)), log_(log) {}
#if AGENTKIT_APP_HAS_NET
    /// Show every run in this dashboard (--dashboard).
    void show_in(ak::browser::dashboard* d) { dashboard_ = d; }
#endif

    ak::result<ak::tool_output> run(const web_eval_args& a, ak::tool_context& ctx) {
        if (a.url.rfind("http://", 0) != 0 && a.url.rfind("https://", 0) != 0)
            return ak::fail(ak::errc::args_invalid, "url must start with http:// or https://", "Pass the page's full URL.");
        br::browser_options bo = bo_;
        bo.launch.headless = a.headless_browser.value_or(true);
        br::browser browser{bo};
        if (auto started = browser.start(); !started) {
            ak::error e = started.error();
            e.message = "cannot start the browser: " + e.message;
            return ak::fail(std::move(e));
        }

        auto store = std::make_shared<store_t>();
        br::tool_state state{browser, *store};
        auto tools = br::browser_tools(state);
        auto record = std::make_shared<run_record>();
        record->store = store;
        std::mutex record_mu;
        state.options.on_record = [&](const br::call_record& r) {
            std::lock_guard lock(record_mu);
            record->events.emplace_back("step", step_line(r));
        };
#if AGENTKIT_APP_HAS_NET
        std::unique_ptr<br::live_view> live;
        struct unshow {
            ak::browser::dashboard* d;
            std::unique_ptr<br::live_view>& v;
            ~unshow() {
                if (d != nullptr && v) d->remove(*v);
            }
        } unshow_live{dashboard_, live};
        if (dashboard_ != nullptr) {
            live = std::make_unique<br::live_view>(state, "run-" + std::to_string(++runs_));
            dashboard_->add(*live);
        }
#endif

        ak::session_options o;
        o.model = model_.name;
        o.openai_compat = model_.openai_compat;
        using session_t = ak::agent_session<decltype(tools), ak::all_visible, ak::compact_formatter>;
        session_t* sp = nullptr;
        o.on_turn = [&](const ak::turn_metrics& t) {
            if (log_) std::fprintf(stderr, "[web_eval] %s\n", t.log_line().c_str());
            // an "agent_step" screenshot after every turn that acted on the page (kept out of band)
            bool acted = false;
            for (const auto& x : t.tools)
                acted = acted || (x.name.rfind("browser_", 0) == 0 && x.name != "browser_take_screenshot" &&
                                  x.name != "browser_artifact" && x.name != "browser_metrics");
            if (!acted || sp == nullptr) return;
            auto shot = browser.screenshot();
            if (!shot) return;
            (void)sp->sink().put({shot->mime_type, "agent_step " + std::to_string(t.turn),
                                  "screenshot after turn " + std::to_string(t.turn), shot->base64, true});
        };
        session_t session{std::move(tools), ak::all_visible{}, ak::compact_formatter{}, o, ak::artifact_sink_ref(*store)};
        sp = &session;

        demo::any_model model = model_.factory(a.url, a.task);
        ak::run_limits limits;
        limits.max_steps = static_cast<std::size_t>(a.max_steps.value_or(12));
        limits.max_time = std::chrono::seconds(120);
        if (ctx.deadline != std::chrono::steady_clock::time_point::max()) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(ctx.deadline - std::chrono::steady_clock::now());
            limits.max_time = std::min<std::chrono::milliseconds>(limits.max_time, std::max<std::chrono::milliseconds>(left, std::chrono::milliseconds(1)));
        }
        const std::string task = "Task: " + a.task + "\nStart at: " + a.url +
                                 "\nWhen you have the answer, call complete with it as `result`.";
        const ak::run_result run = session.run(model, task, limits);
        // the tab's console and network, after the steps (the browser's API returns them redacted)
        if (auto msgs = browser.console_messages())
            for (const auto& m : *msgs)
                record->events.emplace_back("console", "[" + m.level + "] " + m.text +
                                                           (m.url.empty() ? "" : " (" + m.url + ":" + std::to_string(m.line) + ")"));
        if (auto reqs = browser.network_requests())
            for (const auto& n : *reqs)
                record->events.emplace_back("network", n.method + " " + n.url + " " +
                                                           (n.status ? std::to_string(n.status) : std::string("-")) + " " + n.resource_type +
                                                           (n.error.empty() ? "" : " (" + n.error + ")"));
#if AGENTKIT_APP_HAS_NET
        if (live && dashboard_ != nullptr) dashboard_->remove(*live);
        live.reset();
#endif
        browser.close();

        ak::report rep = session.make_report();
        rep.summary.insert(rep.summary.begin(), model_.summary_line);
        if (model_.real && !run.ok() && run.error) rep.summary.push_back("model error: " + run.error->to_text());
        rep.summary.push_back("browser: " + std::to_string(state.total.calls) + " calls, " + std::to_string(state.total.ms) + " ms");
        keep(session.session_id(), record);
        // the report is read by this server's client: it names this server's tools only (the
        // inner session's browser_artifact is not one of them)
        rep.artifact_tool.clear();
        ak::report_options ro;
        ro.screenshots_tool = "get_screenshots";
        return ak::tool_output::text(ak::render_report(rep, ro));
    }

    ak::result<ak::tool_output> screenshots(const screenshots_args& a) {
        std::shared_ptr<store_t> store;
        {
            std::lock_guard lock(mu_);
            if (auto it = stores_.find(a.session_id); it != stores_.end()) store = it->second->store;
        }
        if (!store)
            return ak::fail(ak::errc::not_found, "no session \"" + a.session_id + "\"",
                            "Use the session_id from web_eval_agent's Artifacts section; the newest " +
                                std::to_string(max_sessions) + " sessions are kept.");
        std::vector<ak::artifact_ref> shots;
        for (const auto& r : store->list())
            if (r.mime_type.rfind("image/", 0) == 0) shots.push_back(r);
        const auto n = static_cast<std::size_t>(a.last_n.value_or(5));
        if (shots.size() > n) shots.erase(shots.begin(), shots.end() - static_cast<std::ptrdiff_t>(n));
        ak::tool_output out;
        std::string line = std::to_string(shots.size()) + " screenshot" + (shots.size() == 1 ? "" : "s") + " of session " + a.session_id;
        for (const auto& r : shots) line += "\n- " + r.id + ": " + r.name;
        out.add_text(line);
        for (const auto& r : shots)
            if (auto blob = store->get(r.id)) out.add_image(blob->data, blob->mime_type);
        return out;
    }

    ak::result<ak::tool_output> run_events(const run_events_args& a) {
        std::shared_ptr<run_record> rec;
        {
            std::lock_guard lock(mu_);
            if (auto it = stores_.find(a.session_id); it != stores_.end()) rec = it->second;
        }
        if (!rec)
            return ak::fail(ak::errc::not_found, "no session \"" + a.session_id + "\"",
                            "Use the session_id from web_eval_agent's Artifacts section; the newest " +
                                std::to_string(max_sessions) + " sessions are kept.");
        std::vector<std::string> kinds = a.kinds.value_or(std::vector<std::string>{"step", "console", "network"});
        for (const auto& k : kinds)
            if (k != "step" && k != "console" && k != "network")
                return ak::fail(ak::errc::args_invalid, "unknown kind \"" + k + "\"", "Use step, console or network.");
        const std::size_t since = static_cast<std::size_t>(a.since.value_or(0));
        const std::size_t budget = static_cast<std::size_t>(a.max_tokens.value_or(2000));
        ak::token_counter tokens;
        std::string out;
        std::size_t shown = 0, used = 0, last = since, matching = 0;
        bool cut = false;
        for (std::size_t i = since; i < rec->events.size(); ++i) {
            const auto& [kind, line] = rec->events[i];
            if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) continue;
            ++matching;
            if (cut) continue;
            const std::string entry = std::to_string(i + 1) + " " + kind + " " + line + "\n";
            const std::size_t t = tokens.count(entry);
            if (shown > 0 && used + t > budget) {
                cut = true;
                continue;
            }
            out += entry;
            used += t;
            ++shown;
            last = i + 1;
        }
        std::string head = std::to_string(shown) + " of " + std::to_string(matching) + " events after " + std::to_string(since) +
                           " of session " + a.session_id + " (" + std::to_string(rec->events.size()) + " in all)\n";
        if (cut) out += "… " + std::to_string(matching - shown) + " more: call get_run_events with since=" + std::to_string(last) + "\n";
        return ak::tool_output::text(head + out);
    }

    static constexpr std::size_t max_sessions = 8;

private:
    void keep(const std::string& id, std::shared_ptr<run_record> rec) {
        std::lock_guard lock(mu_);
        stores_[id] = std::move(rec);
        order_.push_back(id);
        while (order_.size() > max_sessions) {
            stores_.erase(order_.front());
            order_.pop_front();
        }
    }

    br::browser_options bo_;
    model_setup model_;
    bool log_;
    std::mutex mu_;
    std::map<std::string, std::shared_ptr<run_record>> stores_;
    std::deque<std::string> order_;
#if AGENTKIT_APP_HAS_NET
    ak::browser::dashboard* dashboard_ = nullptr;
    std::atomic<int> runs_{0};
#endif
};

const char* const kUsageHead = R"(Usage: agentkit-web-eval [options]

An MCP server (stdio) with web_eval_agent(url, task) and get_screenshots(session_id). Each
web_eval_agent call runs an agent in a fresh headless Chromium: a real model when ANTHROPIC_API_KEY
or OPENAI_API_KEY is set (or --provider openai_compatible with a base URL), else the scripted page
reader, whose report says "no model ran" first.

Options:
  --executable-path PATH
                        browser binary (default: $AGENTKIT_CHROMIUM or /usr/lib/chromium/chromium)
  --quiet               no per-turn log lines on stderr
  --dashboard[=PORT]    serve the live view of every run on 127.0.0.1 (0 or no PORT: any free
                        port); the URL with its token goes to stderr, never stdout
  --version, --help
)";

const char* const kUsageEnv = R"(
Environment:
)";

}  // namespace

int main(int argc, char** argv) {
    br::browser_options bo;
    demo::model_flags flags;
    bool quiet = false;
    std::optional<int> dashboard_port;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        std::string error;
        if (a == "--help" || a == "-h") {
            std::fputs(kUsageHead, stderr);
            std::fputs(demo::model_flags_help, stderr);
            std::fputs(kUsageEnv, stderr);
            std::fputs(demo::model_env_help, stderr);
            return 0;
        } else if (a == "--version") {
            std::fprintf(stderr, "agentkit-web-eval %s\n", ak::version.string);
            return 0;
        } else if (a == "--quiet") {
            quiet = true;
        } else if (a == "--dashboard" || a.rfind("--dashboard=", 0) == 0) {
            const std::string_view v = a.size() > 12 ? a.substr(12) : std::string_view("0");
            int p = -1;
            if (std::from_chars(v.data(), v.data() + v.size(), p).ptr != v.data() + v.size() || p < 0 || p > 65535) {
                std::fprintf(stderr, "agentkit-web-eval: --dashboard takes a port from 0 to 65535 (--dashboard=PORT)\n");
                return 2;
            }
            dashboard_port = p;
        } else if (a == "--executable-path" && i + 1 < argc) {
            bo.launch.executable = argv[++i];
        } else if (demo::parse_model_flag(argc, argv, i, flags, error)) {
            if (!error.empty()) {
                std::fprintf(stderr, "agentkit-web-eval: %s (see --help)\n", error.c_str());
                return 2;
            }
        } else {
            std::fprintf(stderr, "agentkit-web-eval: unknown option %s (see --help)\n", argv[i]);
            return 2;
        }
    }

    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    model_setup setup;
    setup.factory = scripted_factory(flags.scripted_format());
    setup.name = "scripted";
    setup.summary_line = no_model_line;
#if AGENTKIT_APP_HAS_CURL
    const demo::model_choice choice = demo::choose_model(flags, /*strict=*/false);
    if (!choice.error.empty()) {
        std::fprintf(stderr, "agentkit-web-eval: %s (see --help)\n", choice.error.c_str());
        return 2;
    }
    if (choice.real) {
        auto client = std::make_shared<ak::model_client>(choice.options);  // shared by every run (thread-safe)
        setup.factory = [client](const std::string&, const std::string&) { return demo::any_model(client); };
        setup.real = true;
        setup.name = choice.model_name;
        setup.openai_compat = choice.openai_compat;
        setup.summary_line = "model: " + choice.model_name + " (" + std::string(ak::to_string(client->api())) + " at " +
                             ak::net::redact_url(client->endpoint()) + ")";
        std::fprintf(stderr, "agentkit-web-eval: %s: %s\n", choice.why.c_str(), setup.summary_line.c_str());
    } else {
        std::fprintf(stderr, "agentkit-web-eval: %s: the scripted page reader answers (no model)\n", choice.why.c_str());
    }
#else
    std::fprintf(stderr, "agentkit-web-eval: built without libcurl: the scripted page reader answers (no model)\n");
#endif
    web_eval_service svc{bo, std::move(setup), !quiet};
#if AGENTKIT_APP_HAS_NET
    std::unique_ptr<ak::browser::dashboard> dash;
    if (dashboard_port) {
        ak::browser::dashboard_options dopt;
        dopt.port = *dashboard_port;
        dash = std::make_unique<ak::browser::dashboard>(dopt);
        if (auto up = dash->start(); !up) {
            std::fprintf(stderr, "agentkit-web-eval: --dashboard: %s\n", up.error().message.c_str());
            return 2;
        }
        svc.show_in(dash.get());
        std::fprintf(stderr, "agentkit-web-eval: live view at %s\n", dash->url().c_str());
    }
#else
    if (dashboard_port) {
        std::fprintf(stderr, "agentkit-web-eval: --dashboard needs the HTTP server (this build has no cpp-httplib)\n");
        return 2;
    }
#endif
    auto web_eval = ak::tool<"web_eval_agent">(
        "Delegate a web task: an agent opens `url` in a real browser, works on `task`, and returns Result (the "
        "answer), Summary (bullets) and Artifacts (session_id and how to fetch screenshots). Screenshots are not "
        "inlined; fetch them with get_screenshots.",
        [&svc](const web_eval_args& a, ak::tool_context& ctx) { return svc.run(a, ctx); }, ak::open_world);
    auto get_screenshots = ak::tool<"get_screenshots">(
        "The screenshots of a web_eval_agent session (one per acting step), as images.",
        [&svc](const screenshots_args& a) { return svc.screenshots(a); }, ak::read_only);
    auto get_run_events = ak::tool<"get_run_events">(
        "The events of a web_eval_agent session, oldest first, in pages within a token budget: each browser step "
        "(arguments, result head, time, tokens, errors, artifacts) and the console and network of its tab.",
        [&svc](const run_events_args& a) { return svc.run_events(a); }, ak::read_only);
    ak::toolbox tools{web_eval, get_screenshots, get_run_events};

    ak::mcp::server_options so;
    so.name = "agentkit-web-eval";
    so.title = "agentkit web eval";
    so.version = ak::version.string;
    so.instructions =
        "web_eval_agent runs a browser agent on a task and returns its answer first. Screenshots stay on the server: "
        "call get_screenshots with the session_id when you need to see them.";
    ak::mcp::server srv{ak::mcp::backend_for(tools), so};
    return ak::mcp::run_stdio(srv, 0, 1, &g_stop);
}
