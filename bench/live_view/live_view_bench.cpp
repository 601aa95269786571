// agentkit-bench-live-view — the live view's costs in one run (see CMakeLists.txt).
//
//   build-rel/bin/agentkit-bench-live-view [--seconds S] [--runs N] [--fps F] [--viewer bare|agentkit|inproc]
//                                           [--max-width W] [--max-height H] [--quality Q]
//                                           [--capture spare-calls|always] [--call-interval MS] [--settle MS]
//                                           [--think MS] [--form plain|busy]
//
//   --seconds  length of each idle/busy window (5)
//   --runs     form-fill A/B pairs (10): each pair fills the form once without a viewer and
//              once with one, in alternating order, so load from elsewhere falls on both
//   --fps      the dashboard's max_fps (15, its default; 0: no cap)
//   --max-width, --max-height, --quality: the live view's screencast_options (800, 600, 60)
//   --capture  when the agent's browser captures while a viewer watches: spare-calls (the
//              default: hardly during a burst of the agent's calls, always once it is quiet; see
//              browser/capture_rule.hpp) or always (the capture runs through the calls)
//   --call-interval  during a burst of calls, one frame each this many ms (500; 0: none)
//   --settle   a call this soon after the last one continues its burst (100 ms; 0: each call's
//              end state is captured at once, the rule before bursts)
//   --think    wait this many ms between the fill's calls, as a model thinks between steps
//              (0); the waits are not counted in the fill's time, so it reads what the calls
//              cost while the viewer is shown each step in the gaps
//   --form     the form filled: plain (a static page but for the agent's actions, the default)
//              or busy (the same form beside the busy page's animation and 50 ms tick)
//   --viewer   who watches: a headless Chromium driven over a bare CDP connection that only
//              opens the page and reads its counters, as a person's browser (bare, the
//              default), or one driven by agentkit's browser engine (agentkit), whose own
//              instrumentation of the viewer's page (Network, DOM, Runtime events parsed in
//              this process) adds to what is measured, or no browser at all (inproc): a thread
//              of this process takes each frame from the live view's pump and acknowledges it
//              at once, so only the agent's browser's capture and encoding is measured (the
//              viewer's Chromium, which competes for the same cores, is not running)
//
// The viewer's Chromium starts once; "with a viewer" means its page is open on the dashboard
// (WebSocket connected, the screencast running, the page settled after its load: no change
// for 200 ms), "without" that it is on about:blank (no WebSocket, no screencast). The viewer acknowledges each frame once its <img> loaded it.
// CPU is counted per process tree from /proc: this process (the agent's client, the
// dashboard, the viewer's client), the agent's Chromium, the viewer's Chromium. The machine's
// load average is printed at the start and the end: on a shared machine the A/B ratio, not the
// absolute times, is what to read.
#include <agentkit/browser.hpp>
#include <agentkit/browser/live/live_view.hpp>
#include <agentkit/cdp/connection.hpp>
#include <agentkit/cdp/pipe_transport.hpp>
#include <agentkit/browser/live/dashboard.hpp>
#include <agentkit/net/http_server.hpp>
#include "support/snapshot_refs.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

namespace ak = agentkit;
namespace br = agentkit::browser;
using namespace std::chrono_literals;

namespace {

double self_cpu() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/// (parent pid, CPU seconds) of every process, from /proc/PID/stat.
std::map<int, std::pair<int, double>> processes() {
    std::map<int, std::pair<int, double>> out;
    DIR* d = ::opendir("/proc");
    if (d == nullptr) return out;
    const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
    while (auto* e = ::readdir(d)) {
        const int pid = std::atoi(e->d_name);
        if (pid <= 0) continue;
        std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
        std::string s((std::istreambuf_iterator<char>(f)), {});
        const auto r = s.rfind(')');
        if (r == std::string::npos || r + 2 >= s.size()) continue;
        std::istringstream in(s.substr(r + 2));
        std::vector<std::string> v;
        for (std::string x; in >> x && v.size() < 13;) v.push_back(x);
        if (v.size() < 13) continue;
        out[pid] = {std::atoi(v[1].c_str()), (std::atof(v[11].c_str()) + std::atof(v[12].c_str())) / tick};
    }
    ::closedir(d);
    return out;
}

/// CPU seconds of `root` and its descendants (0 for pid <= 0).
double tree_cpu(int root) {
    if (root <= 0) return 0;
    const auto ps = processes();
    std::set<int> in{root};
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& [pid, p] : ps)
            if (in.count(pid) == 0 && in.count(p.first) != 0) grew = in.insert(pid).second;
    }
    double t = 0;
    for (int pid : in)
        if (auto it = ps.find(pid); it != ps.end()) t += it->second.second;
    return t;
}

std::string loadavg() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    f >> a >> b >> c;
    return a + " " + b + " " + c;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

using agentkit::test::ref_on;

/// The model's thinking between the fill's steps (--think): not counted in its time.
std::chrono::milliseconds think_time{0};

/// The form-fill workflow: navigate, fill five fields and submit, through the tools; with
/// --think, a wait between the steps, not counted.
template <class Tools>
double form_fill(Tools& tools, br::browser& b, const std::string& url) {
    std::chrono::steady_clock::duration thought{};
    const auto think = [&] {
        if (think_time.count() == 0) return;
        const auto s = std::chrono::steady_clock::now();
        std::this_thread::sleep_for(think_time);  // stands for a model's latency, synchronises nothing
        thought += std::chrono::steady_clock::now() - s;
    };
    const auto t0 = std::chrono::steady_clock::now();
    (void)tools.call("browser_navigate", ak::json{{"url", url}});
    auto snap = b.snapshot();
    if (!snap) return -1;
    ak::json fields = ak::json::array();
    for (const char* name : {"First name", "Last name", "Email", "City", "Phone"})
        fields.push_back(ak::json{{"ref", ref_on(snap->snap.text, name)}, {"name", name}, {"type", "textbox"}, {"value", std::string("x ") + name}});
    think();
    (void)tools.call("browser_fill_form", ak::json{{"fields", fields}});
    think();
    (void)tools.call("browser_click", ak::json{{"ref", ref_on(snap->snap.text, "Send")}, {"element", "Send"}});
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0 - thought).count();
}

/// The person's browser: opens a page, evaluates a promise in it.
class viewer {
public:
    virtual ~viewer() = default;
    virtual bool open(const std::string& url) = 0;
    virtual ak::json eval(const std::string& js) = 0;
    virtual int pid() = 0;
};

/// A headless Chromium over a bare CDP connection: Page and Runtime only, nothing enabled that
/// would send this process an event per request or DOM change.
class bare_viewer final : public viewer {
public:
    bool start() {
        auto t = ak::cdp::pipe_transport::launch({});
        if (!t) return false;
        pid_ = t->pid();
        conn_ = std::make_unique<ak::cdp::connection>(std::move(*t));
        auto target = conn_->call("Target.createTarget", ak::json{{"url", "about:blank"}});
        if (!target) return false;
        auto sid = conn_->attach_to_target((*target)["targetId"].get<std::string>());
        if (!sid) return false;
        page_ = std::make_unique<ak::cdp::session>(*conn_, *sid);
        (void)page_->call("Emulation.setDeviceMetricsOverride",
                          ak::json{{"width", 1600}, {"height", 1000}, {"deviceScaleFactor", 1}, {"mobile", false}});
        return static_cast<bool>(page_->call("Page.enable"));
    }
    bool open(const std::string& url) override {
        auto loaded = page_->expect("Page.loadEventFired");
        if (!page_->call("Page.navigate", ak::json{{"url", url}})) return false;
        return static_cast<bool>(loaded.wait(20s));
    }
    ak::json eval(const std::string& js) override {
        auto r = page_->call("Runtime.evaluate", ak::json{{"expression", js}, {"awaitPromise", true}, {"returnByValue", true}}, 30s);
        return r ? (*r)["result"].value("value", ak::json()) : ak::json();
    }
    int pid() override { return pid_; }

private:
    int pid_ = -1;
    std::unique_ptr<ak::cdp::connection> conn_;
    std::unique_ptr<ak::cdp::session> page_;
};

/// A headless Chromium driven by agentkit's browser engine.
class agentkit_viewer final : public viewer {
public:
    agentkit_viewer() : b_([] {
        br::browser_options vo;
        vo.allow_evaluate = true;
        vo.viewport.width = 1600;
        vo.viewport.height = 1000;
        return vo;
    }()) {}
    bool open(const std::string& url) override { return static_cast<bool>(b_.navigate(url)); }
    ak::json eval(const std::string& js) override {
        auto r = b_.evaluate(js);
        return r ? r->value : ak::json();
    }
    int pid() override { return b_.browser_pid(); }

private:
    br::browser b_;
};

/// A viewer in this process: takes each frame the pump offers it and shows it at once (no
/// browser, no WebSocket), paced like a dashboard viewer.
class inproc_viewer {
public:
    explicit inproc_viewer(br::live_view& v, std::chrono::steady_clock::duration interval) : v_(v), interval_(interval) {}
    ~inproc_viewer() { leave(); }
    /// Attach and wait for the first frame.
    bool watch() {
        leave();
        stop_ = false;
        frames_ = 0;
        id_ = v_.attach_viewer(
            [this] {
                std::lock_guard l(mu_);
                woken_ = true;
                cv_.notify_all();
            },
            interval_);
        th_ = std::thread([this] { run(); });
        std::unique_lock l(mu_);
        return cv_.wait_for(l, 20s, [&] { return frames_ > 0; });
    }
    void leave() {
        if (!th_.joinable()) return;
        {
            std::lock_guard l(mu_);
            stop_ = true;
            cv_.notify_all();
        }
        th_.join();
        v_.detach_viewer(id_);
    }
    std::uint64_t frames() {
        std::lock_guard l(mu_);
        return frames_;
    }

private:
    void run() {
        std::unique_lock l(mu_);
        while (!stop_) {
            l.unlock();
            if (auto f = v_.frames().take(id_)) {
                v_.frames().viewer_ack(id_);
                l.lock();
                ++frames_;
                cv_.notify_all();
                continue;
            }
            const auto due = v_.frames().due(id_);
            l.lock();
            if (stop_) break;
            if (woken_) {
                woken_ = false;
                continue;
            }
            if (due) cv_.wait_until(l, *due);
            else cv_.wait(l, [&] { return stop_ || woken_; });
        }
    }
    br::live_view& v_;
    std::chrono::steady_clock::duration interval_;
    std::uint64_t id_ = 0;
    std::thread th_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false, woken_ = false;
    std::uint64_t frames_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
    int seconds = 5, runs = 10;
    double fps = 15;
    std::string who = "bare", form_name = "form";
    br::live_view_options lo;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::printf("agentkit-bench-live-view [--seconds S] [--runs N] [--fps F] [--viewer bare|agentkit|inproc]\n"
                        "    [--max-width W] [--max-height H] [--quality Q] [--capture spare-calls|always] [--call-interval MS] [--settle MS] [--think MS] [--form plain|busy]\n"
                        "(bench/live_view/live_view_bench.cpp says what each measures)\n");
            return 0;
        }
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--fps") == 0) fps = std::atof(argv[++i]);
        else if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--runs") == 0) runs = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--viewer") == 0) who = argv[++i];
        else if (std::strcmp(argv[i], "--form") == 0) form_name = std::strcmp(argv[++i], "busy") == 0 ? "busyform" : "form";
        else if (std::strcmp(argv[i], "--max-width") == 0) lo.screencast.max_width = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--max-height") == 0) lo.screencast.max_height = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--quality") == 0) lo.screencast.quality = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--capture") == 0) lo.capture.spare_calls = std::strcmp(argv[++i], "always") != 0;
        else if (std::strcmp(argv[i], "--call-interval") == 0) lo.capture.call_interval = std::chrono::milliseconds(std::atoi(argv[++i]));
        else if (std::strcmp(argv[i], "--settle") == 0) lo.capture.settle = std::chrono::milliseconds(std::atoi(argv[++i]));
        else if (std::strcmp(argv[i], "--think") == 0) think_time = std::chrono::milliseconds(std::atoi(argv[++i]));
    }
    std::printf("load average at the start: %s (%ld CPUs)\n", loadavg().c_str(), ::sysconf(_SC_NPROCESSORS_ONLN));
    ak::net::http_server site;
    site.route("/idle", ak::net::http_response::html("<title>Idle</title><h1>Nothing moves here</h1>"));
    site.route("/busy", ak::net::http_response::html(
                            "<title>Busy</title><style>#b{width:200px;height:200px;background:#c33;animation:s 1s linear infinite}"
                            "@keyframes s{from{transform:rotate(0)}to{transform:rotate(360deg)}}</style><div id=b></div>"
                            "<p id=t></p><script>let n=0;setInterval(()=>{document.getElementById('t').textContent='tick '+(++n)},50)</script>"));
    site.route("/busyform", ak::net::http_response::html(  // the same form beside the busy page's animation and tick
                                "<title>Form</title><style>#b{width:200px;height:200px;background:#c33;animation:s 1s linear infinite}"
                                "@keyframes s{from{transform:rotate(0)}to{transform:rotate(360deg)}}</style><div id=b></div><p id=t></p>"
                                "<script>let n=0;setInterval(()=>{document.getElementById('t').textContent='tick '+(++n)},50)</script>"
                                "<form onsubmit='event.preventDefault();document.body.append(\"sent\")'>"
                                "<label>First name <input></label><label>Last name <input></label><label>Email <input></label>"
                                "<label>City <input></label><label>Phone <input></label><button>Send</button></form>"));
    site.route("/form", ak::net::http_response::html(
                            "<title>Form</title><form onsubmit='event.preventDefault();document.body.append(\"sent\")'>"
                            "<label>First name <input></label><label>Last name <input></label><label>Email <input></label>"
                            "<label>City <input></label><label>Phone <input></label><button>Send</button></form>"));
    if (!site.start()) return 1;

    br::browser agent;
    br::bounded_artifacts store;
    br::tool_state state(agent, store);
    auto tools = br::browser_tools(state);
    br::live_view live(state, "bench", lo);
    ak::browser::dashboard_options dopt;
    dopt.max_fps = fps;  // --fps 0: no cap
    ak::browser::dashboard dash(dopt);
    dash.add(live);
    if (!dash.start()) return 1;

    std::unique_ptr<viewer> person;
    std::unique_ptr<inproc_viewer> inproc;
    if (who == "inproc") {
        inproc = std::make_unique<inproc_viewer>(live, std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                           std::chrono::duration<double>(fps > 0 ? 1.0 / fps : 0.0)));
    } else if (who == "agentkit") {
        person = std::make_unique<agentkit_viewer>();
        (void)person->open("about:blank");
    } else {
        auto b = std::make_unique<bare_viewer>();
        if (!b->start()) return 1;
        person = std::move(b);
    }
    const std::string first_frame =
        "new Promise((res) => { const t0 = Date.now(); const f = () => { if (window.agentkitLive && window.agentkitLive.frames > 0) res(true); "
        "else if (Date.now() - t0 > 20000) res(false); else setTimeout(f, 10); }; f(); })";
    // the dashboard page loaded and settled (no change announced for 200 ms, at most 3 s): what a
    // person who watches pays is the page's steady state, not its load in each timed fill
    const std::string settled =
        "new Promise((res) => { let last = Date.now(); const t0 = last; document.addEventListener('agentkit:update', () => { last = Date.now(); });"
        " const f = () => { const now = Date.now(); if (now - last >= 200 || now - t0 > 3000) requestIdleCallback(() => res(true), {timeout: 500});"
        " else setTimeout(f, 20); }; f(); })";
    const auto watch = [&] {
        if (inproc) return inproc->watch();
        if (!person->open(dash.url())) return false;
        if (person->eval(first_frame) != true) return false;
        return person->eval(settled) == true;
    };
    const auto leave = [&] {
        if (inproc) return inproc->leave();
        (void)person->open("about:blank");
        for (int i = 0; i < 2000 && live.frames().viewers() > 0; ++i) std::this_thread::sleep_for(5ms);  // the server saw it go
    };

    (void)tools.call("browser_navigate", ak::json{{"url", site.url("/idle")}});  // the agent's browser is up
    const std::string form_page = "/" + form_name;
    (void)form_fill(tools, agent, site.url(form_page));  // warm-up, both ways
    if (!watch()) {
        std::fprintf(stderr, "the viewer saw no frame\n");
        return 1;
    }
    (void)form_fill(tools, agent, site.url(form_page));
    leave();

    // idle and busy windows, without and with a viewer
    const int agent_pid = agent.browser_pid(), viewer_pid = person ? person->pid() : -1;
    struct window_result {
        double fps = 0, bytes = 0, p50 = 0, p99 = 0, self = 0, agent = 0, viewer = 0;
        std::size_t frames = 0;
    };
    const auto window = [&](const std::string& page, bool watched) {
        (void)tools.call("browser_navigate", ak::json{{"url", site.url(page)}});
        if (watched && !watch()) std::fprintf(stderr, "the viewer saw no frame\n");
        std::this_thread::sleep_for(1s);  // settle
        const auto s0 = dash.stats();
        const std::uint64_t in0 = inproc ? inproc->frames() : 0;
        const double c0 = self_cpu(), a0 = tree_cpu(agent_pid), v0 = tree_cpu(viewer_pid);
        const auto t0 = std::chrono::steady_clock::now();
        std::this_thread::sleep_for(std::chrono::seconds(seconds));
        const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const auto s1 = dash.stats();
        const std::uint64_t in1 = inproc ? inproc->frames() : 0;
        window_result w;
        w.self = 100 * (self_cpu() - c0) / dt;
        w.agent = 100 * (tree_cpu(agent_pid) - a0) / dt;
        w.viewer = 100 * (tree_cpu(viewer_pid) - v0) / dt;
        const std::vector<double> lat(s1.latency_ms.begin() + static_cast<std::ptrdiff_t>(std::min(s0.latency_ms.size(), s1.latency_ms.size())),
                                      s1.latency_ms.end());
        w.fps = static_cast<double>(inproc ? in1 - in0 : s1.frames_shown - s0.frames_shown) / dt;
        w.bytes = static_cast<double>(s1.frame_bytes - s0.frame_bytes) / dt;
        w.p50 = percentile(lat, 0.5);
        w.p99 = percentile(lat, 0.99);
        w.frames = lat.size();
        if (watched) leave();
        return w;
    };
    for (const std::string page : {"/idle", "/busy"}) {
        const auto off = window(page, false);
        const auto on = window(page, true);
        std::printf("%-4s with a viewer: %5.1f frames/s shown, %8.0f bytes/s, latency p50 %6.1f ms p99 %6.1f ms (%zu frames)\n", page.c_str() + 1,
                    on.fps, on.bytes, on.p50, on.p99, on.frames);
        std::printf("%-4s CPU without / with a viewer: this process %5.1f%% / %5.1f%%, agent's Chromium %5.1f%% / %5.1f%%, viewer's Chromium "
                    "%5.1f%% / %5.1f%%\n",
                    page.c_str() + 1, off.self, on.self, off.agent, on.agent, off.viewer, on.viewer);
    }

    // the form fill in A/B pairs, the order alternating
    std::vector<double> without, with, ratio;
    double cpu_agent[2] = {0, 0}, cpu_viewer[2] = {0, 0}, cpu_self[2] = {0, 0};  // CPU s over the fills, [without, with]
    std::uint64_t during_fill = 0;    // frames the browser sent during the watched fills
    std::vector<double> end_state_ms;  // fill's end to the first frame after it (polled: ±5 ms)
    for (int i = 0; i < runs; ++i) {
        double a = 0, b = 0;
        for (int k = 0; k < 2; ++k) {
            const bool watched = (k == 0) == (i % 2 == 1);
            if (watched && !watch()) std::fprintf(stderr, "the viewer saw no frame\n");
            const double a0 = tree_cpu(agent_pid), v0 = tree_cpu(viewer_pid), s0 = self_cpu();
            const auto offered0 = live.frames().stats().offered;
            (watched ? b : a) = form_fill(tools, agent, site.url(form_page));
            const auto fill_end = std::chrono::steady_clock::now();
            const auto offered1 = live.frames().stats().offered;
            cpu_agent[watched ? 1 : 0] += tree_cpu(agent_pid) - a0;
            cpu_viewer[watched ? 1 : 0] += tree_cpu(viewer_pid) - v0;
            cpu_self[watched ? 1 : 0] += self_cpu() - s0;
            if (watched) {
                during_fill += offered1 - offered0;
                // the fill's end state reaches the viewer after it (outside the fill's time, as
                // in a model's thinking): how long after
                for (int w = 0; w < 600 && live.frames().stats().offered == offered1; ++w) std::this_thread::sleep_for(5ms);
                if (live.frames().stats().offered > offered1)
                    end_state_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - fill_end).count());
                leave();
            }
        }
        without.push_back(a);
        with.push_back(b);
        ratio.push_back(b / a);
    }
    const double p50_without = percentile(without, 0.5), p50_with = percentile(with, 0.5);
    std::printf("form fill (%s: navigate, fill 5 fields, submit), %d A/B pairs: p50 %.1f ms without a viewer, %.1f ms with one (%+.1f%%); "
                "median of the pairs' ratios %.3f (min %.3f, max %.3f)\n",
                form_name.c_str(), runs, p50_without, p50_with, 100.0 * (p50_with - p50_without) / p50_without, percentile(ratio, 0.5), percentile(ratio, 0),
                percentile(ratio, 1));
    // CPU time is less sensitive than wall time to what else the machine runs: read it beside the ratio
    std::printf("form fill CPU ms per fill without / with a viewer: agent's Chromium %.1f / %.1f, viewer's Chromium %.1f / %.1f, "
                "this process %.1f / %.1f\n",
                1000 * cpu_agent[0] / runs, 1000 * cpu_agent[1] / runs, 1000 * cpu_viewer[0] / runs, 1000 * cpu_viewer[1] / runs,
                1000 * cpu_self[0] / runs, 1000 * cpu_self[1] / runs);
    std::printf("watched fills: %.1f frames per fill during the fill; the end state's frame %zu of %d times, p50 %.0f ms after the fill "
                "(max %.0f)\n",
                runs ? static_cast<double>(during_fill) / runs : 0.0, end_state_ms.size(), runs, percentile(end_state_ms, 0.5),
                percentile(end_state_ms, 1));
    const auto f = live.frames().stats();
    std::printf("pump: %llu offered, %llu acked, %llu sent, %llu superseded, %llu unwatched\n", static_cast<unsigned long long>(f.offered),
                static_cast<unsigned long long>(f.acked), static_cast<unsigned long long>(f.sent),
                static_cast<unsigned long long>(f.superseded), static_cast<unsigned long long>(f.unwatched));
    std::printf("load average at the end: %s\n", loadavg().c_str());
    person.reset();
    inproc.reset();
    dash.remove(live);
    return 0;
}
