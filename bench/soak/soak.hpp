// bench/soak/soak.hpp — the load-and-soak driver (issue 8), shared by the program
// agentkit-bench-soak (bench/soak/soak_main.cpp) and the ctest tests in tests/soak.
//
// One local Chromium, launched with --remote-debugging-port; N sessions, each an
// agentkit::browser connected to it by endpoint (so each has its own browser context) with its
// own artifact store and browser tools, each driven on its own thread through the toolbox by
// tool name with JSON argument text (parsing, validation, dispatch and formatting included).
// Every call is classified against what it should do: a call that should work and does not, a
// deliberately bad call that does not fail with the right error code, a result that lacks the
// text it must carry (its session's own page: cross-talk between contexts shows here) are
// unexpected. Latency is measured around each toolbox call; the RSS of this process and of the
// Chromium process group is sampled every second.
#pragma once

#include <agentkit/agentkit.hpp>
#include <agentkit/browser/tools.hpp>

#include "support/http_server.hpp"
#include "support/snapshot_refs.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace agentkit::soak {

struct options {
    int sessions = 16;
    std::size_t calls = 10000;  ///< total tool calls over all sessions (ignored when seconds > 0)
    double seconds = 0;         ///< > 0: time-bounded soak instead of a call count
    bool policy = true;         ///< --allowed-origins set to the page server (request interception)
    bool quiet = false;         ///< no progress lines on stderr
    std::chrono::milliseconds sample_every{1000};
};

struct rss_sample {
    double t_s = 0;
    std::size_t calls = 0;
    std::size_t self_kb = 0;
    std::size_t chromium_rss_kb = 0;  ///< summed over the process group (shared pages counted in each)
    std::size_t chromium_pss_kb = 0;  ///< proportional set size, summed (shared pages split)
    int chromium_procs = 0;
};

struct latency_stats {
    std::size_t n = 0;
    double p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0;
};

struct report {
    int sessions = 0;
    std::size_t calls = 0;
    std::size_t ok = 0;
    std::map<std::string, std::size_t> expected_errors;    ///< error code → count
    std::map<std::string, std::size_t> unexpected_errors;  ///< "tool: what" → count
    std::vector<std::string> unexpected_samples;           ///< the first few, whole
    double wall_s = 0;
    latency_stats overall;
    std::map<std::string, latency_stats> per_tool;
    std::vector<rss_sample> samples;
    std::string setup_error;  ///< non-empty: the soak could not start

    [[nodiscard]] std::size_t unexpected() const {
        std::size_t n = 0;
        for (const auto& [k, v] : unexpected_errors) n += v;
        return n;
    }
    [[nodiscard]] std::size_t expected() const {
        std::size_t n = 0;
        for (const auto& [k, v] : expected_errors) n += v;
        return n;
    }
};

namespace detail {

using clk = std::chrono::steady_clock;

inline std::string page(const std::string& title, const std::string& body) {
    return "<!doctype html><html><head><meta charset=utf-8><title>" + title + "</title></head><body>" + body +
           "</body></html>";
}

/// The value of `key` in a query string ("" when absent). Values here are digits only.
inline std::string query_value(const std::string& q, const std::string& key) {
    std::size_t i = 0;
    while (i < q.size()) {
        auto amp = q.find('&', i);
        if (amp == std::string::npos) amp = q.size();
        const std::string kv = q.substr(i, amp - i);
        if (kv.rfind(key + "=", 0) == 0) {
            std::string v = kv.substr(key.size() + 1);
            v.erase(std::remove_if(v.begin(), v.end(), [](char c) { return !(c >= '0' && c <= '9'); }), v.end());
            return v;
        }
        i = amp + 1;
    }
    return {};
}

/// The pages: a form, a list whose message appears after a short timer, a page of links, items.
/// Every title carries the session (and round) that asked, so a result showing another
/// session's page is caught.
inline void add_routes(test::http_server& server) {
    using test::http_request;
    using test::http_response;
    server.route("/form", [](const http_request& r) {
        const std::string tag = query_value(r.query, "s") + "-" + query_value(r.query, "r");
        return http_response::html(page("Form " + tag, R"HTML(
<h1>Order</h1>
<form action="/result" method="get">
  <input type="hidden" name="s" value=")HTML" + query_value(r.query, "s") + R"HTML(">
  <label>Name <input name="name"></label>
  <label>Email <input type="email" name="email"></label>
  <label>Size <select name="size"><option value="s">Small</option><option value="m">Medium</option><option value="l">Large</option></select></label>
  <label><input type="checkbox" name="subscribe" value="yes"> Subscribe</label>
  <label>Notes <textarea name="notes"></textarea></label>
  <button type="submit">Send</button>
</form>)HTML"));
    });
    server.route("/result", [](const http_request& r) {
        return http_response::html(page("Result " + query_value(r.query, "s"),
                                        "<h1>Thanks</h1><p>size " + std::string(r.query.find("size=m") != std::string::npos ? "medium" : "other") +
                                            "</p>"));
    });
    server.route("/list", [](const http_request& r) {
        const std::string s = query_value(r.query, "s");
        std::string items;
        for (int i = 1; i <= 30; ++i)
            items += "<li><a href=\"/item?id=" + std::to_string(i) + "&s=" + s + "\">Entry " + std::to_string(i) + "</a> costs " +
                     std::to_string(i * 3) + "</li>";
        return http_response::html(page("List " + s, "<h1>Entries</h1><button id=show>Show message</button><div id=out></div><ul>" +
                                                         items +
                                                         "</ul><script>document.getElementById('show').onclick=()=>"
                                                         "setTimeout(()=>{document.getElementById('out').textContent='Ready now'},30);"
                                                         "</script>"));
    });
    server.route("/links", [](const http_request& r) {
        const std::string s = query_value(r.query, "s");
        std::string links;
        for (int i = 1; i <= 8; ++i)
            links += "<p><a href=\"/item?id=" + std::to_string(i) + "&s=" + s + "\">Item " + std::to_string(i) + "</a></p>";
        return http_response::html(page("Links " + s, "<h1>Links</h1><nav><a href=\"/form?s=" + s + "\">Order form</a> <a href=\"/list?s=" + s +
                                                          "\">Entries</a></nav>" + links));
    });
    server.route("/item", [](const http_request& r) {
        const std::string id = query_value(r.query, "id");
        return http_response::html(page("Item " + id + " " + query_value(r.query, "s"),
                                        "<h1>Item " + id + "</h1><p>Details of item " + id + ".</p><a href=\"/links?s=" +
                                            query_value(r.query, "s") + "\">Back to links</a>"));
    });
}

/// The ref on the first line of `text` containing `needle` ("" when none).
using agentkit::test::ref_on;

inline std::size_t status_kb(const std::string& path, const char* key) {
    std::ifstream in(path);
    const std::size_t klen = std::char_traits<char>::length(key);
    for (std::string line; std::getline(in, line);)
        if (line.compare(0, klen, key) == 0) return static_cast<std::size_t>(std::strtoull(line.c_str() + klen, nullptr, 10));
    return 0;
}

/// Process group of a pid from /proc/<pid>/stat (-1 when gone).
inline long pgrp_of(const std::string& pid) {
    std::ifstream in("/proc/" + pid + "/stat");
    std::string s;
    std::getline(in, s);
    const auto close = s.rfind(')');
    if (close == std::string::npos) return -1;
    std::istringstream rest(s.substr(close + 2));
    std::string state;
    long ppid = 0, pgrp = -1;
    rest >> state >> ppid >> pgrp;
    return pgrp;
}

inline rss_sample sample_now(long chromium_pgrp) {
    rss_sample s;
    s.self_kb = status_kb("/proc/self/status", "VmRSS:");
    if (chromium_pgrp <= 0) return s;
    DIR* d = ::opendir("/proc");
    if (d == nullptr) return s;
    while (dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        if (pgrp_of(name) != chromium_pgrp) continue;
        ++s.chromium_procs;
        s.chromium_rss_kb += status_kb("/proc/" + name + "/status", "VmRSS:");
        s.chromium_pss_kb += status_kb("/proc/" + name + "/smaps_rollup", "Pss:");
    }
    ::closedir(d);
    return s;
}

// printf into `out` (the report's lines)
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
inline void appendf(std::string& out, const char* fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    out += line;
}

inline latency_stats stats_of(std::vector<double> v) {
    latency_stats st;
    st.n = v.size();
    if (v.empty()) return st;
    std::sort(v.begin(), v.end());
    auto at = [&](double q) {
        const auto i = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
        return v[std::min(i, v.size() - 1)];
    };
    st.p50 = at(0.50);
    st.p90 = at(0.90);
    st.p99 = at(0.99);
    st.max = v.back();
    double sum = 0;
    for (double x : v) sum += x;
    st.mean = sum / static_cast<double>(v.size());
    return st;
}

/// Calls left to claim, shared by the sessions (a count or a deadline).
class budget {
public:
    budget(std::size_t calls, double seconds)
        : left_(seconds > 0 ? SIZE_MAX / 2 : calls),
          deadline_(seconds > 0 ? clk::now() + std::chrono::duration_cast<clk::duration>(std::chrono::duration<double>(seconds))
                                : clk::time_point::max()) {}
    bool claim() {
        if (clk::now() >= deadline_) return false;
        std::size_t cur = left_.load();
        while (cur > 0)
            if (left_.compare_exchange_weak(cur, cur - 1)) return true;
        return false;
    }
    void stop() { left_.store(0); }

private:
    std::atomic<std::size_t> left_;
    clk::time_point deadline_;
};

struct call_record {
    std::string tool;
    double ms = 0;
};

/// One session: a browser (its own context in the shared Chromium), a store, the tools.
class session {
public:
    session(int id, browser::browser_options o, test::http_server& server, budget& b, std::atomic<std::size_t>& done)
        : id_(id), b_(std::move(o)), store_(browser::store_options{}), state_(b_, store_), tools_(browser::browser_tools(state_)),
          server_(server), budget_(b), done_(done), rng_(static_cast<std::uint32_t>(0x9e3779b9U * static_cast<unsigned>(id + 1))) {}

    std::vector<call_record> records;
    std::size_t ok = 0;
    std::map<std::string, std::size_t> expected;
    std::map<std::string, std::size_t> unexpected;
    std::vector<std::string> unexpected_samples;

    /// Rounds of a realistic mix until the budget is spent.
    void run() {
        for (int round = 0;; ++round)
            if (!one_round(round)) return;
    }

    void close() { b_.close(); }

private:
    struct outcome {
        bool claimed = false;
        bool ok = false;
        std::string code;  ///< error code when !ok
        std::string text;  ///< result text (or the error's)
    };

    // One toolbox call by name with JSON argument text; false when the budget is spent.
    outcome call(const std::string& tool, const std::string& args_json) {
        outcome o;
        if (!budget_.claim()) return o;
        o.claimed = true;
        tool_context ctx;
        const auto t0 = clk::now();
        auto r = tools_.call(tool, std::string_view(args_json), ctx);
        const double ms = std::chrono::duration<double, std::milli>(clk::now() - t0).count();
        records.push_back({tool, ms});
        done_.fetch_add(1, std::memory_order_relaxed);
        if (!r) {
            o.code = r.error().code;
            o.text = r.error().to_text();
            return o;
        }
        for (const auto& blk : r->content)
            if (blk.type == content_block::kind::text) o.text += blk.text;
        if (r->is_error) {
            o.code = std::string(errc::tool_failed);
            if (r->structured && r->structured->contains("error") && (*r->structured)["error"].contains("code") &&
                (*r->structured)["error"]["code"].is_string())
                o.code = (*r->structured)["error"]["code"].get<std::string>();
            return o;
        }
        o.ok = true;
        return o;
    }

    void unexpected_(const std::string& tool, const std::string& what, const std::string& detail) {
        ++unexpected[tool + ": " + what];
        if (unexpected_samples.size() < 5)
            unexpected_samples.push_back("session " + std::to_string(id_) + " " + tool + ": " + what + ": " + detail.substr(0, 600));
    }

    // A call that must work and whose result must contain `must` (when given).
    bool good(const std::string& tool, const std::string& args, outcome* out = nullptr, const std::string& must = {}) {
        outcome o = call(tool, args);
        if (!o.claimed) return false;
        if (!o.ok) unexpected_(tool, "error " + o.code, o.text);
        else if (!must.empty() && o.text.find(must) == std::string::npos) unexpected_(tool, "result lacks \"" + must + "\"", o.text);
        else ++ok;
        if (out != nullptr) *out = std::move(o);
        return true;
    }

    // A deliberately bad call: it must fail with one of `codes`.
    bool bad(const std::string& tool, const std::string& args, std::initializer_list<std::string_view> codes) {
        outcome o = call(tool, args);
        if (!o.claimed) return false;
        if (o.ok) {
            unexpected_(tool, "bad call succeeded", args + " → " + o.text);
        } else if (std::find(codes.begin(), codes.end(), o.code) == codes.end()) {
            unexpected_(tool, "bad call failed with " + o.code, args + " → " + o.text);
        } else {
            ++expected[o.code];
        }
        return true;
    }

    std::string url(const std::string& path) const { return server_.url(path); }

    static std::string jarg(const json& j) { return j.dump(); }

    bool one_round(int round) {
        const std::string s = std::to_string(id_);
        const std::string tag = s + "-" + std::to_string(round);
        outcome o;

        // -- the list: a ref to go stale, a timed message, wait_for
        if (!good("browser_navigate", jarg({{"url", url("/list?s=" + s)}}), &o, "title: List " + s)) return false;
        const std::string stale = ref_on(o.text, "button \"Show message\"");
        const std::string show = stale;
        if (show.empty()) unexpected_("browser_navigate", "no \"Show message\" button in the snapshot", o.text);
        else if (!good("browser_click", jarg({{"ref", show}}))) return false;
        if (!good("browser_wait_for", jarg({{"text", "Ready now"}, {"timeout", 10}}))) return false;
        if (round % 3 == 0 && !good("browser_snapshot", jarg({{"interactive_only", true}}), nullptr, "Entry 30")) return false;

        // -- the form: type, select, check, submit
        if (!good("browser_navigate", jarg({{"url", url("/form?s=" + s + "&r=" + std::to_string(round))}}), &o, "title: Form " + tag))
            return false;
        const std::string name = ref_on(o.text, "textbox \"Name\"");
        const std::string email = ref_on(o.text, "textbox \"Email\"");
        const std::string size = ref_on(o.text, "combobox \"Size\"");
        const std::string sub = ref_on(o.text, "checkbox \"Subscribe\"");
        const std::string send = ref_on(o.text, "button \"Send\"");
        if (name.empty() || email.empty() || size.empty() || sub.empty() || send.empty()) {
            unexpected_("browser_navigate", "form refs missing", o.text);
            return true;
        }
        // the list's button is not on this page: a stale (or unknown) ref
        if (!stale.empty() && stale != name && stale != email && stale != size && stale != sub && stale != send &&
            !bad("browser_click", jarg({{"ref", stale}}), {errc::ref_stale, errc::ref_unknown}))
            return false;
        if (!good("browser_type", jarg({{"ref", name}, {"text", "User " + tag}}))) return false;
        if (!good("browser_type", jarg({{"target", "[ref=" + email + "]"}, {"text", "u" + s + "@example.test"}}))) return false;
        if (!good("browser_select_option", jarg({{"ref", size}, {"values", {"Medium"}}}))) return false;
        if (round % 2 == 0 && !good("browser_press_key", jarg({{"key", "Tab"}}))) return false;
        if (!good("browser_click", jarg({{"ref", sub}, {"element", "Subscribe checkbox"}}))) return false;
        if (!good("browser_snapshot", "{}", &o, "User " + tag)) return false;
        if (round % 4 == 1 && !good("browser_take_screenshot", jarg({{"type", round % 8 == 1 ? "png" : "jpeg"}}), nullptr, "artifact"))
            return false;
        if (!good("browser_click", jarg({{"ref", send}}), nullptr, "Thanks")) return false;

        // -- the links: follow one, back
        if (!good("browser_navigate", jarg({{"url", url("/links?s=" + s)}}), &o, "title: Links " + s)) return false;
        const int item = 1 + static_cast<int>(rng_() % 8U);
        const std::string link = ref_on(o.text, "link \"Item " + std::to_string(item) + "\"");
        if (link.empty()) unexpected_("browser_navigate", "no link to item " + std::to_string(item), o.text);
        else if (!good("browser_click", jarg({{"ref", link}}), nullptr, "Item " + std::to_string(item))) return false;
        if (!good("browser_navigate_back", "{}", nullptr, "Links " + s)) return false;

        // -- tabs: list every round; open, switch and close a tab now and then
        if (!good("browser_tabs", jarg({{"action", "list"}}))) return false;
        if (round % 4 == 2) {
            if (!good("browser_tabs", jarg({{"action", "new"}, {"url", url("/item?id=99&s=" + s)}}), nullptr, "Item 99")) return false;
            if (!good("browser_tabs", jarg({{"action", "select"}, {"index", 0}}))) return false;
            if (!good("browser_tabs", jarg({{"action", "close"}, {"index", 1}}))) return false;
        }

        // -- now and then the session closes its browser (its context is disposed, the connection
        //    closed); the next call connects again and makes a new context
        if (round % 6 == 5 && !good("browser_close", "{}", nullptr, "browser closed")) return false;

        // -- deliberately bad calls, one or two a round, rotating
        switch (round % 8) {
            case 0: return bad("browser_snapshot", jarg({{"budget", 5}}), {errc::args_invalid});
            case 1: return bad("browser_tabs", jarg({{"action", "explode"}}), {errc::args_invalid});
            case 2: return bad("browser_navigate", "{}", {errc::args_invalid});
            case 3: return bad("browser_click", "{}", {errc::args_invalid}) &&
                           bad("browser_click", jarg({{"ref", "e999999"}}), {errc::ref_unknown, errc::ref_stale});
            case 4: return bad("browser_nope", "{}", {errc::tool_unknown});
            case 5: return bad("browser_type", "{\"ref\": \"e1\", \"text\": ", {errc::args_malformed});
            case 6: return bad("browser_wait_for", jarg({{"time", 99}}), {errc::args_invalid});
            default: return bad("browser_evaluate", jarg({{"function", "() => 1"}}), {errc::policy_blocked});
        }
    }

    int id_;
    browser::browser b_;
    browser::bounded_artifacts store_;
    browser::tool_state state_;
    decltype(browser::browser_tools(std::declval<browser::tool_state&>())) tools_;
    test::http_server& server_;
    budget& budget_;
    std::atomic<std::size_t>& done_;
    std::minstd_rand rng_;
};

}  // namespace detail

/// Run the soak; the report says what happened (setup_error when it could not start).
inline report run(const options& opt) {
    report rep;
    rep.sessions = opt.sessions;
    test::http_server server;
    detail::add_routes(server);

    cdp::launch_options lo;
    lo.extra_args = {"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"};
    auto chromium = cdp::websocket_transport::launch(lo);
    if (!chromium) {
        rep.setup_error = chromium.error().to_text();
        return rep;
    }
    const long pgrp = chromium->pid();

    browser::browser_options bo;
    bo.cdp_endpoint = "http://127.0.0.1:" + std::to_string(chromium->port());
    if (opt.policy) bo.policy.allowed_origins = {server.origin()};
    bo.network_idle_timeout = std::chrono::milliseconds(1000);

    detail::budget budget(opt.calls, opt.seconds);
    std::atomic<std::size_t> done{0};
    std::vector<std::unique_ptr<detail::session>> sessions;
    for (int i = 0; i < opt.sessions; ++i)
        sessions.push_back(std::make_unique<detail::session>(i, bo, server, budget, done));

    // the sampler: every sample_every, until the sessions are done
    std::mutex mu;
    std::condition_variable cv;
    bool finished = false;
    const auto t0 = detail::clk::now();
    std::thread sampler([&] {
        std::unique_lock lock(mu);
        auto next = t0;
        for (;;) {
            next += opt.sample_every;  // a fixed schedule: reading /proc takes time of its own
            lock.unlock();
            rss_sample s = detail::sample_now(pgrp);
            s.t_s = std::chrono::duration<double>(detail::clk::now() - t0).count();
            s.calls = done.load();
            if (!opt.quiet)
                std::fprintf(stderr, "  t=%6.1fs calls=%6zu self=%6zu KB chromium=%7zu KB (pss %7zu KB, %d procs)\n", s.t_s, s.calls,
                             s.self_kb, s.chromium_rss_kb, s.chromium_pss_kb, s.chromium_procs);
            lock.lock();
            rep.samples.push_back(s);
            if (cv.wait_until(lock, std::max(next, detail::clk::now()), [&] { return finished; })) return;
        }
    });

    std::vector<std::thread> threads;
    threads.reserve(sessions.size());
    for (auto& s : sessions) threads.emplace_back([&s] { s->run(); });
    for (auto& t : threads) t.join();
    rep.wall_s = std::chrono::duration<double>(detail::clk::now() - t0).count();
    {
        std::lock_guard lock(mu);
        finished = true;
    }
    cv.notify_all();
    sampler.join();
    rss_sample last = detail::sample_now(pgrp);  // after the last call, before the sessions close
    last.t_s = rep.wall_s;
    last.calls = done.load();
    rep.samples.push_back(last);

    std::vector<double> all;
    std::map<std::string, std::vector<double>> by_tool;
    for (auto& s : sessions) {
        for (const auto& r : s->records) {
            all.push_back(r.ms);
            by_tool[r.tool].push_back(r.ms);
        }
        rep.calls += s->records.size();
        rep.ok += s->ok;
        for (const auto& [k, v] : s->expected) rep.expected_errors[k] += v;
        for (const auto& [k, v] : s->unexpected) rep.unexpected_errors[k] += v;
        for (const auto& u : s->unexpected_samples)
            if (rep.unexpected_samples.size() < 10) rep.unexpected_samples.push_back(u);
    }
    rep.overall = detail::stats_of(std::move(all));
    for (auto& [k, v] : by_tool) rep.per_tool[k] = detail::stats_of(std::move(v));
    for (auto& s : sessions) s->close();
    sessions.clear();
    return rep;
}

/// The report as text.
inline std::string to_text(const report& r, const options& opt) {
    std::string out;
    if (!r.setup_error.empty()) return "soak could not start: " + r.setup_error + "\n";
    detail::appendf(out, "agentkit soak: %d sessions (one browser context each, one Chromium), %zu calls in %.1f s%s\n", r.sessions, r.calls, r.wall_s,
        opt.policy ? "" : " (no origin policy)");
    detail::appendf(out, "  throughput      %.1f calls/s\n", r.wall_s > 0 ? static_cast<double>(r.calls) / r.wall_s : 0.0);
    detail::appendf(out, "  ok              %zu\n", r.ok);
    detail::appendf(out, "  expected errors %zu", r.expected());
    std::string sep = " (";
    for (const auto& [k, v] : r.expected_errors) {
        detail::appendf(out, "%s%s %zu", sep.c_str(), k.c_str(), v);
        sep = ", ";
    }
    out += r.expected_errors.empty() ? "\n" : ")\n";
    detail::appendf(out, "  UNEXPECTED      %zu\n", r.unexpected());
    for (const auto& [k, v] : r.unexpected_errors) detail::appendf(out, "    %6zu  %s\n", v, k.c_str());
    for (const auto& s : r.unexpected_samples) out += "    e.g. " + s + "\n";
    detail::appendf(out, "\n  latency ms              calls     p50     p90     p99     max    mean\n");
    auto row = [&](const std::string& name, const latency_stats& s) {
        detail::appendf(out, "  %-22s %6zu %7.1f %7.1f %7.1f %7.1f %7.1f\n", name.c_str(), s.n, s.p50, s.p90, s.p99, s.max, s.mean);
    };
    row("all", r.overall);
    for (const auto& [k, s] : r.per_tool) row(k, s);
    detail::appendf(out, "\n  RSS over time (KB)     t s    calls      self  chromium rss  chromium pss  procs\n");
    // at most ~24 rows: every k-th sample, and always the last
    const std::size_t n = r.samples.size();
    const std::size_t step = n > 24 ? (n + 23) / 24 : 1;
    std::size_t peak_self = 0, peak_rss = 0, peak_pss = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const auto& s = r.samples[i];
        peak_self = std::max(peak_self, s.self_kb);
        peak_rss = std::max(peak_rss, s.chromium_rss_kb);
        peak_pss = std::max(peak_pss, s.chromium_pss_kb);
        if (i % step == 0 || i + 1 == n)
            detail::appendf(out, "                       %6.1f %8zu %9zu %13zu %13zu %6d\n", s.t_s, s.calls, s.self_kb, s.chromium_rss_kb, s.chromium_pss_kb,
                s.chromium_procs);
    }
    detail::appendf(out, "  peak                                 %9zu %13zu %13zu\n", peak_self, peak_rss, peak_pss);
    return out;
}

}  // namespace agentkit::soak
