// agentkit-bench-browser-batch — issue 4's measures, through the model-facing browser tools:
//
//  (a) batch read: 5 saved real pages (../shared/data/pages/readability, served on 127.0.0.1;
//      every other origin blocked by the policy and unresolvable) read with one browser_batch
//      call against one by one (browser_navigate, whose result carries the page's snapshot,
//      then browser_snapshot). Wall time (median of the runs) and tokens of the results the
//      model sees (agentkit's heuristic counter), and the ratios.
//  (b) the artifact store under a 100-screenshot session: RSS of this process (the browser is
//      another process) before and after 100 browser_take_screenshot calls, and the store's own
//      count and bytes; in memory (the default) and with a directory (--output-dir).
//
//   build-release/bin/agentkit-bench-browser-batch [pages-dir] [runs]
//   (pages-dir defaults to /work/shared/data/pages/readability; $AGENTKIT_CHROMIUM or the
//   default Chromium path)
#include <agentkit/agentkit.hpp>
#include <agentkit/browser/tools.hpp>

#include "support/http_server.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <malloc.h>
#include <unistd.h>

namespace ak = agentkit;
namespace br = agentkit::browser;
namespace fs = std::filesystem;
using ak::json;
using clk = std::chrono::steady_clock;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::size_t rss_kb() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0) return static_cast<std::size_t>(std::strtoull(line.c_str() + 6, nullptr, 10));
    return 0;
}

std::string text_of(const ak::result<ak::tool_output>& r) {
    if (!r) return "ERROR " + r.error().to_text();
    std::string s;
    for (const auto& b : r->content)
        if (b.type == ak::content_block::kind::text) s += b.text;
    return s;
}

double ms_since(clk::time_point t0) { return std::chrono::duration<double, std::milli>(clk::now() - t0).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct session {
    br::browser b;
    br::bounded_artifacts store;
    br::tool_state state;
    decltype(br::browser_tools(std::declval<br::tool_state&>())) tools;
    session(br::browser_options o, br::store_options so)
        : b(std::move(o)), store(std::move(so)), state(b, store), tools(br::browser_tools(state)) {}
    ak::result<ak::tool_output> call(const std::string& name, json args) {
        ak::tool_context ctx;
        return tools.call(name, args, ctx);
    }
};

struct run_result {
    double ms = 0;
    std::size_t tokens = 0;
    std::size_t chars = 0;
    bool ok = true;
};

}  // namespace

int main(int argc, char** argv) {
    const fs::path root = argc > 1 ? argv[1] : "/work/shared/data/pages/readability";
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    // five pages of realistic, different sizes (HTML bytes 62 KB .. 259 KB)
    const std::vector<std::string> names = {"herald-sun-1", "dropbox-blog", "wapo-2", "gmw", "cnn"};
    ak::test::http_server server;
    std::size_t html_bytes = 0;
    for (const auto& n : names) {
        const std::string html = slurp(root / n / "source.html");
        if (html.empty()) {
            std::fprintf(stderr, "no %s under %s\n", (root / n / "source.html").c_str(), root.c_str());
            return 2;
        }
        html_bytes += html.size();
        server.route("/" + n + "/", ak::test::http_response::html(html));
    }
    server.route("/", ak::test::http_response::html("<!doctype html><title>start</title><p>start</p>"));
    std::vector<std::string> urls;
    for (const auto& n : names) urls.push_back(server.url("/" + n + "/"));

    br::browser_options o;
    o.policy.allowed_origins = {server.origin()};
    o.launch.extra_args = {"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"};
    o.network_idle_timeout = std::chrono::milliseconds(1000);
    const ak::token_counter tokens;

    std::printf("agentkit-bench-browser-batch: %zu pages, %zu KB of HTML, %d runs each (median wall time)\n\n", names.size(),
                html_bytes / 1024, runs);

    // ---- (a) batch read vs one by one -------------------------------------------------------
    {
        session s(o, {});
        if (auto w = s.call("browser_navigate", json{{"url", server.url("/")}}); !w) {
            std::fprintf(stderr, "cannot start the browser: %s\n", w.error().to_text().c_str());
            return 1;
        }
        // warm-up: every page once (HTTP and browser caches, code paths)
        for (const auto& u : urls) (void)s.call("browser_navigate", json{{"url", u}});

        auto one_by_one = [&](bool with_snapshot) {
            run_result r;
            const auto t0 = clk::now();
            for (const auto& u : urls) {
                auto nav = s.call("browser_navigate", json{{"url", u}});
                r.ok = r.ok && nav.has_value() && !nav->is_error;
                std::string t = text_of(nav);
                if (with_snapshot) {
                    auto snap = s.call("browser_snapshot", json::object());
                    r.ok = r.ok && snap.has_value();
                    t += text_of(snap);
                }
                if (const char* d = std::getenv("AGENTKIT_BENCH_DUMP"))
                    std::ofstream(fs::path(d) / ("one-" + std::to_string(&u - urls.data()) + (with_snapshot ? "-snap" : "") + ".txt")) << t;
                r.tokens += tokens.count(t);
                r.chars += t.size();
            }
            r.ms = ms_since(t0);
            return r;
        };
        auto batch = [&](int budget) {
            run_result r;
            const auto t0 = clk::now();
            auto res = s.call("browser_batch", json{{"urls", urls}, {"budget", budget}});
            r.ms = ms_since(t0);
            const std::string t = text_of(res);
            if (const char* d = std::getenv("AGENTKIT_BENCH_DUMP"))  // the result, to look at
                std::ofstream(fs::path(d) / ("batch-" + std::to_string(budget) + ".txt")) << t;
            r.ok = res.has_value() && t.find(std::to_string(urls.size()) + " of " + std::to_string(urls.size()) + " pages read") != std::string::npos;
            r.tokens = tokens.count(t);
            r.chars = t.size();
            return r;
        };
        struct row {
            const char* name;
            std::vector<double> ms;
            std::size_t tokens = 0, chars = 0;
            bool ok = true;
        };
        std::vector<row> rows = {{"one by one: navigate + snapshot", {}}, {"one by one: navigate only", {}},
                                 {"browser_batch, budget 8000 (default)", {}}, {"browser_batch, budget 30000 (5 x 6000)", {}}};
        for (int i = 0; i < runs; ++i) {
            const run_result r[4] = {one_by_one(true), one_by_one(false), batch(8000), batch(30000)};
            for (std::size_t k = 0; k < 4; ++k) {
                rows[k].ms.push_back(r[k].ms);
                rows[k].tokens = r[k].tokens;  // deterministic up to live page content; the last run's
                rows[k].chars = r[k].chars;
                rows[k].ok = rows[k].ok && r[k].ok;
            }
        }
        std::printf("(a) reading %zu pages                        wall ms    tokens     chars  ok\n", urls.size());
        for (const auto& r : rows)
            std::printf("    %-40s %8.0f %9zu %9zu  %s\n", r.name, median(r.ms), r.tokens, r.chars, r.ok ? "yes" : "NO");
        const double base_ms = median(rows[0].ms);
        const auto base_tok = static_cast<double>(rows[0].tokens);
        std::printf("    ratios against navigate + snapshot one by one (time, tokens):\n");
        for (std::size_t k = 1; k < rows.size(); ++k)
            std::printf("      %-40s %5.2fx time  %5.2fx tokens\n", rows[k].name, median(rows[k].ms) / base_ms,
                        static_cast<double>(rows[k].tokens) / base_tok);
        std::printf("    (store after (a): %zu artifacts, %zu KB: cut pages kept whole)\n\n", s.store.size(), s.store.bytes() / 1024);
    }

    // ---- (b) the artifact store under a 100-screenshot session -------------------------------
    auto screenshots = [&](const char* label, br::store_options so) {
        session s(o, std::move(so));
        (void)s.call("browser_navigate", json{{"url", urls[0]}});
        (void)s.call("browser_take_screenshot", json::object());  // warm-up (allocator, code paths), then drop it
        s.store.clear();
        ::malloc_trim(0);
        const std::size_t before = rss_kb();
        std::size_t ok = 0, shot_bytes = 0;
        const auto t0 = clk::now();
        for (int i = 0; i < 100; ++i) {
            if (i % 20 == 0) (void)s.call("browser_navigate", json{{"url", urls[static_cast<std::size_t>(i / 20)]}});
            auto r = s.call("browser_take_screenshot", json::object());
            if (r && !r->is_error) ++ok;
            for (const auto& b : r ? r->content : std::vector<ak::content_block>{})
                if (b.type == ak::content_block::kind::artifact) shot_bytes += b.artifact.size;
        }
        const double ms = ms_since(t0);
        const std::size_t after = rss_kb();
        ::malloc_trim(0);
        const std::size_t trimmed = rss_kb();
        std::printf("    %-10s %3zu ok, store %3zu items %7zu KB (evicted %zu), screenshots %6zu KB; RSS %6zu -> %6zu KB (+%zu KB; "
                    "+%zu KB after malloc_trim); %.0f ms/screenshot\n",
                    label, ok, s.store.size(), s.store.bytes() / 1024, s.store.evicted(), shot_bytes / 1024, before, after,
                    after > before ? after - before : 0, trimmed > before ? trimmed - before : 0, ms / 100);
    };
    std::printf("(b) artifact store, 100 viewport screenshots (PNG, 1280x720 default viewport) of the same 5 pages\n");
    screenshots("in memory", {});
    const fs::path dir = fs::temp_directory_path() / ("agentkit-bench-store-" + std::to_string(::getpid()));
    br::store_options on_disk;
    on_disk.dir = dir.string();
    screenshots("directory", on_disk);
    std::error_code ec;
    fs::remove_all(dir, ec);
    return 0;
}
