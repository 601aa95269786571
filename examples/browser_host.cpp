// The browser from C++: open a page, read its snapshot, act on an element by its ref.
//   agentkit-example-browser_host http://127.0.0.1:8000/
// Chromium: /usr/lib/chromium/chromium or $AGENTKIT_CHROMIUM (as root add --no-sandbox below).
#include <agentkit/browser.hpp>

#include <cstdio>
#include <string>
#include <unistd.h>

namespace br = agentkit::browser;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fputs("usage: agentkit-example-browser_host URL\n", stderr);
        return 2;
    }
    br::browser_options o;
    if (::geteuid() == 0) o.launch.extra_args.emplace_back("--no-sandbox");
    br::browser b{o};
    auto page = b.navigate(argv[1]);  // the page's snapshot, or a structured error
    if (!page) {
        std::fprintf(stderr, "%s\n", page.error().to_text().c_str());
        return 1;
    }
    std::fputs(page->to_text().c_str(), stdout);
    auto snap = b.snapshot();
    if (!snap) return 1;
    for (const auto& line : snap->snap.lines) {  // the first link, by its ref
        if (line.ref.empty() || line.text.rfind("link", 0) != 0) continue;
        auto r = b.click(line.ref);
        std::printf("clicked %s: %s\n", line.ref.c_str(), r ? r->to_text().c_str() : r.error().to_text().c_str());
        break;
    }
    return 0;
}
