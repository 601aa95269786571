// libFuzzer target: snapshot and readable-text rendering from arbitrary accessibility trees and
// DOM snapshots (what a hostile or broken page can make Chromium report). The input is JSON:
// {"nodes": [AX nodes...], "dom": DOMSnapshot.captureSnapshot result, "budget": n}. Rendering
// must terminate, respect the budget, and never crash.
#include <agentkit/agentkit.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace br = agentkit::browser;
    using agentkit::json;
    auto j = json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return 0;
    br::ax_frame f;
    f.frame_id = "F";
    f.loader_id = "L";
    f.url = "http://127.0.0.1/";
    f.nodes = j.contains("nodes") ? j["nodes"] : json::array();
    std::vector<br::ax_frame> frames{f};
    std::map<std::string, br::dom_index> dom;
    if (j.contains("dom")) dom.emplace("", br::parse_dom_snapshot(j["dom"]));
    br::ref_registry refs;
    br::snapshot_options o;
    o.token_budget = 0;
    if (auto b = j.find("budget"); b != j.end() && b->is_number_unsigned()) o.token_budget = b->get<std::size_t>() % 4000;
    const agentkit::heuristic_tokens counter;
    auto s = br::render_snapshot(frames, dom, refs, o);
    if (o.token_budget > 0 && s.tokens > o.token_budget + 64) __builtin_trap();  // the budget holds (64: the cut notice)
    o.interactive_only = true;
    o.viewport_only = true;
    auto s2 = br::render_snapshot(frames, dom, refs, o);
    (void)br::format_delta(br::diff_snapshots(s.lines, s2.lines), 200);
    (void)br::render_readable(frames, dom, refs, br::readable_options{});
    (void)br::classify_page(frames);
    (void)counter;
    return 0;
}
