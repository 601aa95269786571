// agentkit-bench-live-view — the live view's costs in one run (see CMakeLists.txt).
//
//   build/bin/agentkit-bench-live-view [--seconds S] [--runs N] [--fps F (the dashboard's cap, 0: none; default 15)]
//
// The agent's browser and the viewer's are both headless Chromium; the viewer opens the
// dashboard page like a person would, and acknowledges each frame once its <img> loaded it.
#include <agentkit/browser.hpp>
#include <agentkit/browser/live_view.hpp>
#include <agentkit/net/dashboard.hpp>
#include <agentkit/net/http_server.hpp>
#include "support/snapshot_refs.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

namespace ak = agentkit;
namespace br = agentkit::browser;
using namespace std::chrono_literals;

namespace {

double cpu_seconds() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
    return v[i];
}

using agentkit::test::ref_on;

/// The form-fill workflow: navigate, fill five fields and submit, through the tools.
template <class Tools>
double form_fill(Tools& tools, br::browser& b, const std::string& url) {
    const auto t0 = std::chrono::steady_clock::now();
    (void)tools.call("browser_navigate", ak::json{{"url", url}});
    auto snap = b.snapshot();
    if (!snap) return -1;
    ak::json fields = ak::json::array();
    for (const char* name : {"First name", "Last name", "Email", "City", "Phone"})
        fields.push_back(ak::json{{"ref", ref_on(snap->snap.text, name)}, {"name", name}, {"type", "textbox"}, {"value", std::string("x ") + name}});
    (void)tools.call("browser_fill_form", ak::json{{"fields", fields}});
    (void)tools.call("browser_click", ak::json{{"ref", ref_on(snap->snap.text, "Send")}, {"element", "Send"}});
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    int seconds = 5, runs = 10;
    double fps = 15;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--fps") == 0) fps = std::atof(argv[++i]);
        else if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--runs") == 0) runs = std::atoi(argv[++i]);
    }
    ak::net::http_server site;
    site.route("/idle", ak::net::http_response::html("<title>Idle</title><h1>Nothing moves here</h1>"));
    site.route("/busy", ak::net::http_response::html(
                            "<title>Busy</title><style>#b{width:200px;height:200px;background:#c33;animation:s 1s linear infinite}"
                            "@keyframes s{from{transform:rotate(0)}to{transform:rotate(360deg)}}</style><div id=b></div>"
                            "<p id=t></p><script>let n=0;setInterval(()=>{document.getElementById('t').textContent='tick '+(++n)},50)</script>"));
    site.route("/form", ak::net::http_response::html(
                            "<title>Form</title><form onsubmit='event.preventDefault();document.body.append(\"sent\")'>"
                            "<label>First name <input></label><label>Last name <input></label><label>Email <input></label>"
                            "<label>City <input></label><label>Phone <input></label><button>Send</button></form>"));
    if (!site.start()) return 1;

    br::browser agent;
    br::session_store store;
    br::tool_state state(agent, store);
    auto tools = br::browser_tools(state);
    br::live_view live(state, "bench");
    ak::net::dashboard_options dopt;
    dopt.max_fps = fps;  // --fps 0: no cap
    ak::net::dashboard dash(dopt);
    dash.add(live);
    if (!dash.start()) return 1;

    // form fill without any viewer (the live view installed, nobody watching)
    (void)form_fill(tools, agent, site.url("/form"));  // warm-up
    std::vector<double> without, with;
    for (int i = 0; i < runs; ++i) without.push_back(form_fill(tools, agent, site.url("/form")));

    // CPU on the busy page without a viewer
    (void)tools.call("browser_navigate", ak::json{{"url", site.url("/busy")}});
    double c0 = cpu_seconds();
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    const double cpu_without = (cpu_seconds() - c0) / seconds;

    // the viewer opens the dashboard
    br::browser_options vo;
    vo.allow_evaluate = true;
    vo.viewport.width = 1600;
    vo.viewport.height = 1000;
    br::browser viewer(vo);
    if (!viewer.navigate(dash.url())) return 1;
    (void)viewer.evaluate("new Promise((res) => { const f = () => { if (window.agentkitLive && window.agentkitLive.frames > 0) res(true); "
                          "else setTimeout(f, 20); }; f(); })");

    auto window = [&](const std::string& page) {
        (void)tools.call("browser_navigate", ak::json{{"url", site.url(page)}});
        std::this_thread::sleep_for(1s);  // settle
        const auto s0 = dash.stats();
        const double cpu0 = cpu_seconds();
        const auto t0 = std::chrono::steady_clock::now();
        std::this_thread::sleep_for(std::chrono::seconds(seconds));
        const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const auto s1 = dash.stats();
        std::vector<double> lat(s1.latency_ms.begin() + static_cast<std::ptrdiff_t>(std::min(s0.latency_ms.size(), s1.latency_ms.size())),
                                s1.latency_ms.end());
        std::printf("%-5s with a viewer: %6.1f frames/s shown, %9.0f bytes/s, latency p50 %6.1f ms p99 %6.1f ms (%zu frames), CPU %5.1f%%\n",
                    page.c_str() + 1, static_cast<double>(s1.frames_shown - s0.frames_shown) / dt,
                    static_cast<double>(s1.frame_bytes - s0.frame_bytes) / dt, percentile(lat, 0.5), percentile(lat, 0.99), lat.size(),
                    100.0 * (cpu_seconds() - cpu0) / dt);
        return 100.0 * (cpu_seconds() - cpu0) / dt;
    };
    (void)window("/idle");
    const double cpu_with = window("/busy");
    std::printf("busy  CPU of this process: %5.1f%% without a viewer, %5.1f%% with one\n", 100.0 * cpu_without, cpu_with);

    for (int i = 0; i < runs; ++i) with.push_back(form_fill(tools, agent, site.url("/form")));
    const double p50_without = percentile(without, 0.5), p50_with = percentile(with, 0.5);
    std::printf("form fill (navigate, fill 5 fields, submit), %d runs: p50 %.1f ms without a viewer, %.1f ms with one (%+.1f%%)\n", runs,
                p50_without, p50_with, 100.0 * (p50_with - p50_without) / p50_without);
    const auto f = live.frames().stats();
    std::printf("pump: %llu offered, %llu acked, %llu sent, %llu superseded, %llu unwatched\n",
                static_cast<unsigned long long>(f.offered), static_cast<unsigned long long>(f.acked),
                static_cast<unsigned long long>(f.sent), static_cast<unsigned long long>(f.superseded),
                static_cast<unsigned long long>(f.unwatched));
    viewer.close();
    dash.remove(live);
    return 0;
}
