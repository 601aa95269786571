// Readable-mode benchmark on ../shared/data/pages/readability: for each page, serve source.html
// on 127.0.0.1, load it in headless Chromium, render the readable view, and report its tokens
// (agentkit's heuristic counter) and the share of the words of expected.html (the page's main
// content) that it keeps.
//
//   g++ -std=c++20 -O2 -Iinclude -Itests bench/browser/readable_bench.cpp -o /tmp/readable_bench -pthread
//   /tmp/readable_bench /work/shared/data/pages/readability
#include <agentkit/agentkit.hpp>

#include "support/http_server.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace br = agentkit::browser;
namespace fs = std::filesystem;

static std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

static std::map<std::string, int> words(const std::string& text, bool strip_tags) {
    std::map<std::string, int> out;
    std::string w;
    bool in_tag = false;
    auto flush = [&] {
        if (w.size() >= 2) ++out[w];
        w.clear();
    };
    for (char ch : text) {
        if (strip_tags && ch == '<') { in_tag = true; flush(); continue; }
        if (strip_tags && ch == '>') { in_tag = false; continue; }
        if (in_tag) continue;
        const auto u = static_cast<unsigned char>(ch);
        if (std::isalnum(u) || u >= 0x80) w += static_cast<char>(std::tolower(u));
        else flush();
    }
    flush();
    return out;
}

int main(int argc, char** argv) {
    const fs::path root = argc > 1 ? argv[1] : "/work/shared/data/pages/readability";
    agentkit::test::http_server server;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(root))
        if (fs::exists(e.path() / "source.html")) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const auto& n : names)
        server.route("/" + n + "/", agentkit::test::http_response::html(slurp(root / n / "source.html")));
    br::browser_options o;
    o.launch.extra_args = {"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--blink-settings=imagesEnabled=false"};
    o.network_idle_timeout = std::chrono::milliseconds(500);
    br::browser b(o);
    double sum_share = 0;
    std::size_t sum_tokens = 0, count = 0;
    std::printf("%-28s %8s %8s %7s %s\n", "page", "tokens", "snap_tok", "kept", "article_like");
    for (const auto& n : names) {
        auto nav = b.navigate(server.url("/" + n + "/"));
        if (!nav) { std::printf("%-28s navigate failed: %s\n", n.c_str(), nav.error().message.c_str()); continue; }
        auto r = b.readable({.token_budget = 0, .min_paragraph_chars = 25});
        if (!r) { std::printf("%-28s readable failed: %s\n", n.c_str(), r.error().message.c_str()); continue; }
        auto expected = words(slurp(root / n / "expected.html"), true);
        auto got = words(r->snap.text, false);
        std::size_t total = 0, kept = 0;
        for (const auto& [w, c] : expected) {
            total += static_cast<std::size_t>(c);
            auto it = got.find(w);
            kept += static_cast<std::size_t>(std::min(c, it == got.end() ? 0 : it->second));
        }
        const double share = total == 0 ? 0 : static_cast<double>(kept) / static_cast<double>(total);
        auto snap = b.snapshot();
        std::printf("%-28s %8zu %8zu %6.1f%% %s\n", n.c_str(), r->snap.tokens, snap ? snap->snap.total_tokens : 0, 100 * share,
                    r->article_like ? "yes" : "no");
        std::fflush(stdout);
        sum_share += share;
        sum_tokens += r->snap.tokens;
        ++count;
    }
    if (count > 0)
        std::printf("pages %zu  mean readable tokens %.0f  mean kept %.1f%%\n", count,
                    static_cast<double>(sum_tokens) / static_cast<double>(count), 100 * sum_share / static_cast<double>(count));
}
