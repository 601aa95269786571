// Snapshot rendering on recorded Chromium output (tests/browser/fixtures/form.*: the page
// form.html, captured with Accessibility.getFullAXTree and DOMSnapshot.captureSnapshot).
#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace ak = agentkit;
namespace br = agentkit::browser;
using ak::json;

namespace {

json load(const std::string& name) {
    std::ifstream in(std::string(AGENTKIT_BROWSER_FIXTURES) + "/" + name);
    EXPECT_TRUE(in.good()) << name;
    return json::parse(in);
}

struct form_page {
    std::vector<br::ax_frame> frames;
    std::map<std::string, br::dom_index> dom;
    form_page(const std::string& loader = "L1") {
        json ax = load("form.ax.json");
        json ds = load("form.ds.json");
        br::ax_frame f;
        f.frame_id = "main";
        f.loader_id = loader;
        f.url = "http://127.0.0.1:8765/page.html";
        f.nodes = ax["nodes"];
        frames.push_back(std::move(f));
        dom.emplace("", br::parse_dom_snapshot(ds));
    }
};

bool has_line(const std::string& text, const std::string& line) {
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l))
        if (l == line) return true;
    return false;
}

}  // namespace

TEST(Snapshot, RendersRolesNamesStatesAndRefs) {
    form_page p;
    br::ref_registry refs;
    auto s = br::render_snapshot(p.frames, p.dom, refs, {});
    EXPECT_TRUE(has_line(s.text, "h1 \"Sign up\"")) << s.text;
    EXPECT_TRUE(has_line(s.text, " link \"Home\" /home [ref=e1]")) << s.text;
    EXPECT_TRUE(has_line(s.text, "form [ref=e3]")) << s.text;  // a handle for extraction within the form
    EXPECT_TRUE(has_line(s.text, " textbox \"Name\" = \"Ann\" [ref=e4]")) << s.text;
    EXPECT_TRUE(has_line(s.text, " textbox \"Email\" placeholder=\"you@example.com\" [ref=e5]")) << s.text;
    EXPECT_TRUE(has_line(s.text, " checkbox \"Subscribe\" checked [ref=e6]")) << s.text;
    EXPECT_TRUE(has_line(s.text, " combobox = \"Two\" options: One|Two [ref=e7]")) << s.text;
    EXPECT_TRUE(has_line(s.text, " button \"Close\" [ref=e10]")) << s.text;      // aria-label on an icon button
    EXPECT_TRUE(has_line(s.text, " button \"Settings\" [ref=e11]")) << s.text;  // title on an icon button
    EXPECT_TRUE(has_line(s.text, "Some paragraph text that is plain.")) << s.text;
    EXPECT_TRUE(has_line(s.text, "button \"Shadow btn\" [ref=e14]")) << s.text;  // open shadow root
    EXPECT_FALSE(s.truncated());
    EXPECT_EQ(s.tokens, ak::heuristic_tokens{}.count(s.text));
}

TEST(Snapshot, NonSemanticClickableElementsGetRefs) {
    form_page p;
    br::ref_registry refs;
    auto s = br::render_snapshot(p.frames, p.dom, refs, {});
    // a span with cursor:pointer + onclick, and a div with an addEventListener('click') listener
    EXPECT_TRUE(has_line(s.text, "clickable \"Click me\" [ref=e12]")) << s.text;
    EXPECT_TRUE(has_line(s.text, "clickable \"Listener div\" [ref=e13]")) << s.text;
    // label text is not repeated as a separate line
    EXPECT_FALSE(has_line(s.text, " Name")) << s.text;
    EXPECT_FALSE(has_line(s.text, " Email")) << s.text;
}

TEST(Snapshot, RefsAreStableAcrossSnapshotsOfTheSameDocument) {
    form_page p;
    br::ref_registry refs;
    auto a = br::render_snapshot(p.frames, p.dom, refs, {});
    auto b = br::render_snapshot(p.frames, p.dom, refs, {});
    EXPECT_EQ(a.text, b.text);
    auto t = refs.resolve("e4");
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->role, "textbox");
    EXPECT_EQ(t->name, "Name");
    EXPECT_EQ(t->backend_node_id, 5);
    EXPECT_TRUE(refs.resolve("[ref=e4]").has_value());
}

TEST(Snapshot, NavigationRetiresRefsAndNeverRebindsThem) {
    br::ref_registry refs;
    form_page before("L1");
    (void)br::render_snapshot(before.frames, before.dom, refs, {});
    refs.frame_navigated("main", "L2");
    auto stale = refs.resolve("e4");
    ASSERT_FALSE(stale.has_value());
    EXPECT_EQ(stale.error().code, ak::errc::ref_stale);
    EXPECT_NE(stale.error().message.find("textbox \"Name\""), std::string::npos) << stale.error().message;
    EXPECT_NE(stale.error().hint.find("new snapshot"), std::string::npos);
    // The same page loaded again: same nodes, new document, new refs.
    form_page after("L2");
    auto s = br::render_snapshot(after.frames, after.dom, refs, {});
    EXPECT_FALSE(has_line(s.text, " textbox \"Name\" = \"Ann\" [ref=e4]")) << s.text;
    EXPECT_TRUE(has_line(s.text, " textbox \"Name\" = \"Ann\" [ref=b4]")) << s.text;  // the next prefix, counted anew
    EXPECT_FALSE(refs.resolve("e4").has_value());
    auto fresh = refs.resolve("b4");
    ASSERT_TRUE(fresh.has_value()) << fresh.error().to_text();
    EXPECT_EQ(fresh->loader_id, "L2");
    auto unknown = refs.resolve("e999");
    ASSERT_FALSE(unknown.has_value());
    EXPECT_EQ(unknown.error().code, ak::errc::ref_unknown);
    EXPECT_EQ(refs.resolve("bogus").error().code, ak::errc::ref_unknown);
}

// Refs are numbered per document (short) yet never name a node of another document: over 200
// documents of 240 refs each, prefixes are reused many times, no ref text is issued twice, every
// ref of a navigated document fails closed with ref.stale, and over the first 60 documents every
// ref is a letter and at most 3 digits (2 o200k tokens).
TEST(Refs, StayShortOverManyDocumentsAndNeverResolveAcrossThem) {
    br::ref_registry refs;
    constexpr int docs = 200, per_doc = 240;
    std::set<std::string> issued;
    std::vector<std::string> first_of_doc;
    std::size_t reused = 0;
    for (int d = 0; d < docs; ++d) {
        std::string loader = "L";  // appended, not "L" + to_string: g++ 12 -O3 warns falsely on that (stringop-overflow)
        loader += std::to_string(d);
        std::vector<std::string> mine;
        for (int n = 1; n <= per_doc; ++n) {
            std::string name = "b";
            name += std::to_string(n);
            auto ref = refs.ref_for("S", "main", loader, n, "button", name);
            EXPECT_TRUE(issued.insert(ref).second) << ref << " issued twice (document " << d << ")";
            if (d < 60) {
                EXPECT_LE(ref.size(), 4U) << ref << " (document " << d << ")";
            }
            EXPECT_EQ(refs.ref_for("S", "main", loader, n, "button", "x"), ref);  // stable within the document
            mine.push_back(std::move(ref));
        }
        for (int n = 0; n < per_doc; n += 37) {
            auto t = refs.resolve(mine[static_cast<std::size_t>(n)]);
            ASSERT_TRUE(t.has_value()) << t.error().to_text();
            EXPECT_EQ(t->loader_id, loader);
            EXPECT_EQ(t->backend_node_id, n + 1);
        }
        if (d > 0 && mine[0][0] == first_of_doc[0][0]) ++reused;  // the first document's prefix again
        first_of_doc.push_back(mine[0]);
        refs.frame_navigated("main", std::string("L").append(std::to_string(d + 1)));
        EXPECT_EQ(refs.size(), 0U);
    }
    EXPECT_EQ(first_of_doc[0], "e1");
    EXPECT_EQ(first_of_doc[1], "b1");
    EXPECT_GT(reused, 3U);  // the prefix of the first document did come back
    // every ref of every earlier document fails closed, whatever its prefix serves now
    for (const auto& ref : issued) {
        auto r = refs.resolve(ref);
        ASSERT_FALSE(r.has_value()) << ref << " resolved to " << r->loader_id;
        EXPECT_EQ(r.error().code, ak::errc::ref_stale) << ref;
        EXPECT_NE(r.error().hint.find("new snapshot"), std::string::npos);
    }
    // a prefix's numbers not yet issued are unknown, not stale; letters that are no prefix too
    EXPECT_EQ(refs.resolve("e999999").error().code, ak::errc::ref_unknown);
    EXPECT_EQ(refs.resolve("h1").error().code, ak::errc::ref_unknown);
    EXPECT_EQ(refs.resolve("l1").error().code, ak::errc::ref_unknown);
    EXPECT_EQ(refs.resolve("a1").error().code, ak::errc::ref_unknown);  // an artifact id, never a ref
    EXPECT_EQ(refs.resolve("e").error().code, ak::errc::ref_unknown);
    EXPECT_EQ(refs.resolve("E1").error().code, ak::errc::ref_unknown);
}

// The documents of a page's frames are numbered apart: each has its own prefix, resolves to its
// own frame, and navigating one frame retires only its refs; its next document gets a prefix of
// its own.
TEST(Refs, EachFrameDocumentHasItsOwnPrefixAndRetiresAlone) {
    br::ref_registry refs;
    const auto top = refs.ref_for("S", "main", "L1", 10, "link", "Home");
    const auto inner = refs.ref_for("S", "inner", "L7", 10, "button", "Inner");  // same backend id, other document
    const auto cross = refs.ref_for("C", "cross", "L8", 3, "button", "Cross");   // an out-of-process frame
    EXPECT_EQ(top, "e1");
    EXPECT_EQ(inner, "b1");
    EXPECT_EQ(cross, "c1");
    EXPECT_EQ(refs.ref_for("S", "main", "L1", 11, "link", "About"), "e2");
    EXPECT_EQ(refs.resolve(inner)->frame_id, "inner");
    EXPECT_EQ(refs.resolve(cross)->session_id, "C");
    refs.frame_navigated("inner", "L9");
    EXPECT_EQ(refs.resolve(inner).error().code, ak::errc::ref_stale);
    EXPECT_TRUE(refs.resolve(top).has_value());
    EXPECT_TRUE(refs.resolve(cross).has_value());
    const auto next = refs.ref_for("S", "inner", "L9", 10, "button", "Inner");
    EXPECT_EQ(next, "d1");  // not a live document's prefix, the least counted
    EXPECT_EQ(refs.resolve(next)->loader_id, "L9");
    refs.retire_frames({"cross"});
    EXPECT_EQ(refs.resolve(cross).error().code, ak::errc::ref_stale);
    refs.retire_all();
    EXPECT_EQ(refs.resolve(top).error().code, ak::errc::ref_stale);
    EXPECT_EQ(refs.resolve(next).error().code, ak::errc::ref_stale);
}

TEST(Snapshot, BudgetKeepsControlsBeforeTextAndSaysWhatItCut) {
    form_page p;
    br::ref_registry refs;
    br::snapshot_options o;
    o.token_budget = 120;
    auto s = br::render_snapshot(p.frames, p.dom, refs, o);
    EXPECT_TRUE(s.truncated());
    EXPECT_LE(s.tokens, 120U) << s.text;
    EXPECT_GT(s.total_tokens, s.tokens);
    EXPECT_NE(s.text.find("lines of snapshot ("), std::string::npos);
    // the text line goes before any control
    EXPECT_FALSE(has_line(s.text, "Some paragraph text that is plain.")) << s.text;
    EXPECT_TRUE(has_line(s.text, " link \"Home\" /home [ref=e1]")) << s.text;
    // nothing is lost: the full text has every line
    EXPECT_NE(s.full_text.find("Some paragraph text that is plain."), std::string::npos);
}

TEST(Snapshot, InteractiveOnlyAndSubtree) {
    form_page p;
    br::ref_registry refs;
    br::snapshot_options o;
    o.interactive_only = true;
    auto s = br::render_snapshot(p.frames, p.dom, refs, o);
    EXPECT_EQ(s.text.find("Some paragraph"), std::string::npos);
    // headings are the context of the controls after them; landmarks and containers are left out
    EXPECT_TRUE(has_line(s.text, "h1 \"Sign up\"")) << s.text;
    EXPECT_EQ(s.text.find("navigation"), std::string::npos) << s.text;
    EXPECT_EQ(s.text.find("form"), std::string::npos) << s.text;
    // each control's ref leads its line, not indented under a landmark; no ref marks at line ends
    EXPECT_TRUE(has_line(s.text, "e1 link \"Home\"")) << s.text;
    EXPECT_EQ(s.text.find("[ref="), std::string::npos) << s.text;
    EXPECT_NE(s.text.find("\ne13 "), std::string::npos) << s.text;
    {  // every line is a heading or starts with the ref of its control, the refs the snapshot lists
        std::istringstream in(s.text);
        std::size_t next = 0;
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("h1 ", 0) == 0) continue;
            ASSERT_LT(next, s.refs.size()) << line;
            EXPECT_EQ(line.rfind(s.refs[next] + " ", 0), 0u) << line;
            ++next;
        }
        EXPECT_EQ(next, s.refs.size());
    }
    // terse: a named link without its URL (the full snapshot has it), states only when set
    EXPECT_EQ(s.text.find("/home"), std::string::npos) << s.text;
    EXPECT_NE(s.text.find(" checkbox \"Subscribe\" checked\n"), std::string::npos) << s.text;
    br::ref_registry refs2;
    auto full = br::render_snapshot(p.frames, p.dom, refs2, br::snapshot_options{});
    EXPECT_NE(full.text.find("link \"Home\" /home [ref="), std::string::npos) << full.text;
}

TEST(Snapshot, ANameThePageDoubledIsShownOnce) {
    using agentkit::browser::detail::undoubled;
    EXPECT_EQ(undoubled("Bridge opens after ten years of work Bridge opens after ten years of work"),
              "Bridge opens after ten years of work");
    EXPECT_EQ(undoubled("Bye Bye"), "Bye Bye");  // short names may repeat on purpose
    EXPECT_EQ(undoubled("New York, New York"), "New York, New York");
    EXPECT_EQ(undoubled("Bridge opens after ten years of work Bridge opens after ten years of wor"),
              "Bridge opens after ten years of work Bridge opens after ten years of wor");
    EXPECT_EQ(undoubled("Bridge opens after ten years of workXBridge opens after ten years of work"),
              "Bridge opens after ten years of workXBridge opens after ten years of work");
    EXPECT_EQ(undoubled(""), "");
    // odd length, a space in the middle, halves that differ
    EXPECT_EQ(undoubled("Bridge opens after ten years of work Bridge opens after ten years of worx"),
              "Bridge opens after ten years of work Bridge opens after ten years of worx");
    // the shortest halves that count (20 characters) and one shorter
    EXPECT_EQ(undoubled("abcdefghijklmnopqrst abcdefghijklmnopqrst"), "abcdefghijklmnopqrst");
    EXPECT_EQ(undoubled("abcdefghijklmnopqrs abcdefghijklmnopqrs"), "abcdefghijklmnopqrs abcdefghijklmnopqrs");
}

TEST(Snapshot, DeltaReportsAddedRemovedChanged) {
    std::vector<br::snapshot_line> before{{0, "button \"Send\" [ref=e1]", "e1", true, false, static_cast<std::size_t>(-1)},
                                          {0, "checkbox \"A\" unchecked [ref=e2]", "e2", true, false, static_cast<std::size_t>(-1)},
                                          {0, "Old text", "", false, false, static_cast<std::size_t>(-1)}};
    std::vector<br::snapshot_line> after{{0, "button \"Send\" [ref=e1]", "e1", true, false, static_cast<std::size_t>(-1)},
                                         {0, "checkbox \"A\" checked [ref=e2]", "e2", true, false, static_cast<std::size_t>(-1)},
                                         {0, "Thanks!", "", false, false, static_cast<std::size_t>(-1)}};
    auto d = br::diff_snapshots(before, after);
    ASSERT_EQ(d.changed.size(), 1U);
    EXPECT_EQ(d.changed[0].second, "checkbox \"A\" checked [ref=e2]");
    EXPECT_EQ(d.added, std::vector<std::string>{"Thanks!"});
    EXPECT_EQ(d.removed, std::vector<std::string>{"Old text"});
    auto text = br::format_delta(d);
    EXPECT_NE(text.find("~ checkbox \"A\" checked [ref=e2] (was unchecked)\n"), std::string::npos) << text;
    EXPECT_NE(text.find("+ Thanks!"), std::string::npos);
    EXPECT_EQ(br::format_delta(br::diff_snapshots(after, after)), "no visible change");
}

// A layer that opens hides the page behind it: what appeared is listed whole, what is gone up to
// max_removed_lines, then counted on one line.
TEST(Snapshot, LinesGoneAreListedUpToACapAndTheRestCounted) {
    auto line = [](std::string text, std::string ref) {
        return br::snapshot_line{0, std::move(text), std::move(ref), true, false, static_cast<std::size_t>(-1)};
    };
    std::vector<br::snapshot_line> before, after;
    for (int i = 1; i <= 20; ++i) {
        std::string ref = "e";
        ref += std::to_string(i);
        std::string text = "button \"B";
        text += std::to_string(i);
        text += "\" [ref=" + ref + "]";
        before.push_back(line(text, ref));
    }
    after.push_back(line("option \"Over 30\" [ref=e21]", "e21"));
    const auto d = br::diff_snapshots(before, after);
    ASSERT_EQ(d.removed.size(), 20U);
    const std::string text = br::format_delta(d);
    EXPECT_NE(text.find("+ option \"Over 30\" [ref=e21]\n"), std::string::npos) << text;
    EXPECT_NE(text.find("- button \"B8\" [ref=e8]\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("B9\""), std::string::npos) << text;
    EXPECT_NE(text.find("- (12 more lines gone)\n"), std::string::npos) << text;
    // at the cap, every line is listed and nothing is counted
    before.resize(br::max_removed_lines);
    const std::string all = br::format_delta(br::diff_snapshots(before, after));
    EXPECT_NE(all.find("- button \"B8\" [ref=e8]\n"), std::string::npos) << all;
    EXPECT_EQ(all.find("more lines gone"), std::string::npos) << all;
}

TEST(Snapshot, ChangedLinesSayOnlyWhatDifferedAndFocusLeavingIsNoChange) {
    auto line = [](std::string text, std::string ref) {
        return br::snapshot_line{0, std::move(text), std::move(ref), true, false, static_cast<std::size_t>(-1)};
    };
    std::vector<br::snapshot_line> before{line("textbox \"Full name *\" required focused = \"Ada\" [ref=e1]", "e1"),
                                          line("checkbox \"Subscribe to the news\" unchecked [ref=e2]", "e2"),
                                          line("button \"Play \\\"live\\\"\" [ref=e3]", "e3"),
                                          line("textbox \"Email\" placeholder=\"you@x y\" [ref=e4]", "e4"),
                                          line("link \"Next\" /p/2 [ref=e5]", "e5")};
    std::vector<br::snapshot_line> after{line("textbox \"Full name *\" required = \"Ada\" [ref=e1]", "e1"),
                                         line("checkbox \"Subscribe to the news\" checked focused [ref=e2]", "e2"),
                                         line("button \"Pause \\\"live\\\"\" [ref=e3]", "e3"),
                                         line("textbox \"Email\" focused = \"a@x\" [ref=e4]", "e4"),
                                         line("link \"Next\" focused /p/2 [ref=e5]", "e5")};
    const auto d = br::diff_snapshots(before, after);
    ASSERT_EQ(d.changed.size(), 4U);  // e1 only lost its focus
    EXPECT_EQ(br::format_delta(d),
              "~ checkbox \"Subscribe to the news\" checked focused [ref=e2] (was unchecked)\n"
              "~ button \"Pause \\\"live\\\"\" [ref=e3] (was \"Play \\\"live\\\"\")\n"
              "~ textbox \"Email\" focused = \"a@x\" [ref=e4] (was placeholder=\"you@x y\")\n"
              "~ link \"Next\" focused /p/2 [ref=e5]\n");  // gained focus: nothing of the old line differs
    // losing the focus and changing otherwise is a change
    EXPECT_FALSE(br::detail::only_lost_focus("textbox \"A\" focused = \"x\" [ref=e1]", "textbox \"A\" = \"y\" [ref=e1]"));
    EXPECT_TRUE(br::detail::only_lost_focus("textbox \"A\" focused [ref=e1]", "textbox \"A\" [ref=e1]"));
    EXPECT_FALSE(br::detail::only_lost_focus("textbox \"focused\" [ref=e1]", "textbox [ref=e1]"));
    // focus that went where the snapshot shows no focused element (Escape, a plain element): news
    {
        std::vector<br::snapshot_line> b1{line("textbox \"A\" focused [ref=e1]", "e1"), line("button \"B\" [ref=e2]", "e2")};
        std::vector<br::snapshot_line> a1{line("textbox \"A\" [ref=e1]", "e1"), line("button \"B\" [ref=e2]", "e2")};
        EXPECT_EQ(br::format_delta(br::diff_snapshots(b1, a1)), "~ textbox \"A\" [ref=e1] (was focused)\n");
    }
    // a bracketed label is one unit: a word "focused" inside it is the label's, not the state
    EXPECT_FALSE(br::detail::only_lost_focus("checkbox [Keep focused mode] [ref=e1]", "checkbox [Keep mode] [ref=e1]"));
    EXPECT_EQ(br::detail::line_words("checkbox [Keep focused mode] focused [ref=e1]"),
              (std::vector<std::string_view>{"checkbox", "[Keep focused mode]", "focused", "[ref=e1]"}));
    // a changed line of unbalanced quotes is still shown whole
    EXPECT_EQ(br::detail::describe_change("text \"a b", "text \"a c"), "~ text \"a c (was \"a b)");
}

TEST(Snapshot, MalformedInputNeverCrashes) {
    br::ref_registry refs;
    std::map<std::string, br::dom_index> dom{{"", br::parse_dom_snapshot(json{{"documents", 3}})}};
    std::vector<br::ax_frame> frames(1);
    frames[0].nodes = json::array({json{{"nodeId", "1"}, {"childIds", {"2", "3", 4}}, {"role", {{"value", 7}}}},
                                   json{{"nodeId", "2"}, {"parentId", "1"}, {"role", {{"value", "button"}}}},
                                   json{{"nodeId", 3}}});
    auto s = br::render_snapshot(frames, dom, refs, {});
    EXPECT_NE(s.text.find("button [unlabeled #1]"), std::string::npos) << s.text;
}

namespace {
json ax_node(std::string id, std::string role, std::string name, std::vector<std::string> kids, std::string parent = {},
             json props = json::array(), int backend = 0) {
    json n{{"nodeId", id}, {"role", {{"type", "role"}, {"value", role}}}, {"name", {{"type", "computedString"}, {"value", name}}},
           {"childIds", kids}, {"properties", props}, {"ignored", false}};
    if (!parent.empty()) n["parentId"] = parent;
    if (backend != 0) n["backendDOMNodeId"] = backend;
    return n;
}
}  // namespace

TEST(Snapshot, UnnamedControlsTakeTheTextBesideThem) {
    br::ref_registry refs;
    std::map<std::string, br::dom_index> dom{{"", {}}};
    std::vector<br::ax_frame> frames(1);
    const json unchecked = json::array({json{{"name", "checked"}, {"value", {{"type", "tristate"}, {"value", "false"}}}}});
    frames[0].nodes = json::array({ax_node("1", "RootWebArea", "T", {"2"}),
                                   ax_node("2", "list", "", {"3"}, "1"),
                                   ax_node("3", "listitem", "", {"4", "5"}, "2"),
                                   ax_node("4", "checkbox", "", {}, "3", unchecked, 40),
                                   ax_node("5", "StaticText", "Task 1", {}, "3")});
    auto s = br::render_snapshot(frames, dom, refs, {});
    EXPECT_EQ(s.text, "- checkbox [Task 1] unchecked [ref=e1]\n");
}

TEST(Snapshot, OptionsAndNamesThatCouldBeMisreadAreQuoted) {
    br::ref_registry refs;
    std::map<std::string, br::dom_index> dom{{"", {}}};
    std::vector<br::ax_frame> frames(1);
    // Options with the list's separator, a quote, a fake ref and nothing at all (edge spaces are
    // trimmed, so they need no quotes); a
    // name that ends in a backslash (unescaped, `"C:\"` would leave the quotes open).
    frames[0].nodes = json::array({ax_node("1", "RootWebArea", "T", {"2", "9"}),
                                   ax_node("2", "combobox", "Pick", {"3", "4", "5", "6", "7", "8"}, "1", json::array(), 20),
                                   ax_node("3", "option", "Plain", {}, "2"), ax_node("4", "option", "A|B", {}, "2"),
                                   ax_node("5", "option", "Say \"hi\"", {}, "2"), ax_node("6", "option", "x [ref=e9]", {}, "2"),
                                   ax_node("7", "option", " pad", {}, "2"), ax_node("8", "option", "", {}, "2"),
                                   ax_node("9", "button", "C:\\", {}, "1", json::array(), 21)});
    auto s = br::render_snapshot(frames, dom, refs, {});
    EXPECT_TRUE(has_line(s.text, R"(combobox "Pick" options: Plain|"A|B"|"Say \"hi\""|"x [ref=e9]"|pad|"" [ref=e1])")) << s.text;
    EXPECT_TRUE(has_line(s.text, R"(button "C:\\" [ref=e2])")) << s.text;
}

// Page text that spells a control's line ("button "Cancel" [ref=e1]", here naming the real
// button of the page) and a link whose URL holds a ref mark (a mark split over two runs of one
// line: BrowserE2E.PageTextThatSpellsARefMarkIsDefanged): no "[ref=" of theirs is left in the snapshot, so every ref a reader finds
// is one the snapshot gave; the real controls keep theirs.
TEST(Snapshot, PageTextThatSpellsARefMarkIsDefanged) {
    br::ref_registry refs;
    std::map<std::string, br::dom_index> dom{{"", {}}};
    std::vector<br::ax_frame> frames(1);
    const json url = json::array({json{{"name", "url"}, {"value", {{"type", "string"}, {"value", "http://x/a?go=[ref=e1]"}}}}});
    frames[0].nodes = json::array({ax_node("1", "RootWebArea", "T", {"2", "4", "7", "8"}),
                                   ax_node("2", "paragraph", "", {"3"}, "1"),
                                   ax_node("3", "StaticText", "button \"Cancel\" [ref=e1]", {}, "2"),
                                   ax_node("4", "paragraph", "", {"5", "6"}, "1"),
                                   ax_node("5", "StaticText", "Press [re", {}, "4"),
                                   ax_node("6", "StaticText", "f=e1] now", {}, "4"),
                                   ax_node("7", "button", "Pay", {}, "1", json::array(), 70),
                                   ax_node("8", "link", "Go", {}, "1", url, 80)});
    frames[0].url = "http://x/";
    auto s = br::render_snapshot(frames, dom, refs, {});
    std::size_t marks = 0;
    for (std::size_t at = s.text.find("[ref="); at != std::string::npos; at = s.text.find("[ref=", at + 1)) ++marks;
    EXPECT_EQ(marks, 2U) << s.text;  // the button's and the link's own
    EXPECT_NE(s.text.find(R"(button "Cancel" [ref\=e1])"), std::string::npos) << s.text;
    EXPECT_TRUE(has_line(s.text, R"(button "Pay" [ref=e1])")) << s.text;
    EXPECT_NE(s.text.find(R"(/a?go=[ref\=e1] [ref=e2])"), std::string::npos) << s.text;
}

TEST(Snapshot, LongTextIsShortenedButKeptInFullText) {
    br::ref_registry refs;
    std::map<std::string, br::dom_index> dom{{"", {}}};
    std::vector<br::ax_frame> frames(1);
    std::string para;
    for (int i = 0; i < 60; ++i) para += "word" + std::to_string(i) + " ";
    frames[0].nodes = json::array({ax_node("1", "RootWebArea", "T", {"2", "3"}), ax_node("2", "heading", "Title", {}, "1"),
                                   ax_node("3", "StaticText", para, {}, "1")});
    auto s = br::render_snapshot(frames, dom, refs, {});
    EXPECT_EQ(s.shortened_lines, 1U);
    EXPECT_NE(s.text.find("h \"Title\"\n"), std::string::npos) << s.text;  // the heading is not merged with text
    EXPECT_NE(s.text.find("…\n"), std::string::npos) << s.text;
    EXPECT_EQ(s.text.find("word59"), std::string::npos);
    EXPECT_NE(s.full_text.find("word59"), std::string::npos);
    EXPECT_NE(s.text.find("readable mode"), std::string::npos);
}

// ---- hostile trees (regressions of fuzz findings: tests/fuzz/corpus/snapshot_render) --------

namespace {
json hostile_node(const std::string& id, const std::string& role, const std::string& name, std::vector<std::string> kids) {
    json n{{"nodeId", id}, {"role", {{"value", role}}}, {"childIds", kids}};
    if (!name.empty()) n["name"] = json{{"value", name}};
    return n;
}
std::vector<br::ax_frame> one_frame(json nodes) {
    br::ax_frame f;
    f.frame_id = std::string("F");  // not = "F": g++ 12 at -O3 flags that assignment (-Wrestrict, GCC bug 105329)
    f.loader_id = std::string("L");
    f.nodes = std::move(nodes);
    std::vector<br::ax_frame> frames;
    frames.push_back(std::move(f));
    return frames;
}
}  // namespace

TEST(SnapshotHostileTree, CyclesAndSelfChildrenRenderEachNodeOnce) {
    // 1 -> 2 -> 1 (a cycle), 2 -> 2 twice (self), 2 -> 3 twice (a duplicate child)
    auto frames = one_frame(json::array({hostile_node("1", "RootWebArea", "T", {"2"}), hostile_node("2", "generic", "", {"1", "2", "2", "3", "3"}),
                                         hostile_node("3", "button", "Go", {})}));
    br::ref_registry refs;
    auto s = br::render_snapshot(frames, {}, refs, {});  // used to overflow the stack
    std::size_t buttons = 0;
    for (std::size_t p = s.text.find("button \"Go\""); p != std::string::npos; p = s.text.find("button \"Go\"", p + 1)) ++buttons;
    EXPECT_EQ(buttons, 1U) << s.text;
    auto r = br::render_readable(frames, {}, refs, {});  // used to take exponential time
    (void)r;
    EXPECT_FALSE(br::classify_page(frames).article_like());
}

TEST(SnapshotHostileTree, AListboxOrALabelThatIsItsOwnChildStillRendersOnce) {
    // The walks beside the renderer's own met the same loops: the list box 2 is its own child (its
    // options were walked forever: a fuzz finding, corpus listbox-own-child.json), and so is 5, the
    // text after the unnamed checkbox 4 (the walk that marks a label's text as used has its guard).
    json nodes = json::array({hostile_node("1", "RootWebArea", "T", {"2", "6"}), hostile_node("2", "listbox", "Size", {"2", "3"}),
                              hostile_node("3", "option", "Large", {}), hostile_node("6", "generic", "", {"4", "5"}),
                              hostile_node("4", "checkbox", "", {}), hostile_node("5", "StaticText", "Agree", {"5"})});
    for (auto& n : nodes) n["backendDOMNodeId"] = std::stoi(n["nodeId"].get<std::string>());
    for (const auto& [child, parent] : std::map<std::size_t, std::string>{{1, "1"}, {2, "2"}, {3, "1"}, {4, "6"}, {5, "6"}})
        nodes[child]["parentId"] = parent;
    auto frames = one_frame(std::move(nodes));
    br::ref_registry refs;
    auto s = br::render_snapshot(frames, {}, refs, {});
    EXPECT_NE(s.text.find("listbox \"Size\""), std::string::npos) << s.text;
    EXPECT_NE(s.text.find("options: Large"), std::string::npos) << s.text;
    EXPECT_EQ(s.text.find("Agree"), s.text.rfind("Agree")) << s.text;  // once (a loop below a label reads as "maybe a control")
    EXPECT_NE(s.text.find("Agree"), std::string::npos) << s.text;
    br::snapshot_options io;
    io.interactive_only = true;
    auto i = br::render_snapshot(frames, {}, refs, io);
    EXPECT_NE(i.text.find("Large"), std::string::npos) << i.text;
    (void)br::render_readable(frames, {}, refs, {});
}

TEST(SnapshotHostileTree, DeepNestingIsCutWithANoteInsteadOfOverflowingTheStack) {
    json nodes = json::array();
    constexpr int depth = 20000;  // a page of 20,000 nested elements
    for (int i = 0; i < depth; ++i)
        nodes.push_back(hostile_node(std::to_string(i), i == 0 ? "RootWebArea" : "generic", "", {std::to_string(i + 1)}));
    nodes.push_back(hostile_node(std::to_string(depth), "button", "Deep", {}));
    auto frames = one_frame(std::move(nodes));
    br::ref_registry refs;
    auto s = br::render_snapshot(frames, {}, refs, {});
    EXPECT_NE(s.text.find("nested more than 256 levels deep are not shown"), std::string::npos) << s.text;
    EXPECT_EQ(s.text.find("Deep"), std::string::npos);
    (void)br::render_readable(frames, {}, refs, {});
}

TEST(SnapshotHostileTree, WrongTypesGiveAnEmptyOrPartialResultNeverAnException) {
    json bad_dom = {{"strings", {"DIV"}}, {"documents", {{{"nodes", {{"backendNodeId", {"x", 2}}, {"nodeName", json::object()}}},
                                                         {"layout", {{"nodeIndex", {"a", 0}}, {"bounds", {{"1", 2, 3, 4}}}}}}}}};
    EXPECT_NO_THROW((void)br::parse_dom_snapshot(bad_dom));
    EXPECT_NO_THROW((void)br::parse_dom_snapshot(json{{"strings", 5}, {"documents", "no"}}));
    auto frames = one_frame(json::array({json{{"nodeId", "1"}, {"role", {{"value", "RootWebArea"}}}, {"childIds", {"2"}}},
                                         json{{"nodeId", "2"}, {"role", {{"value", "generic"}}}, {"childIds", {"3"}}, {"backendDOMNodeId", "7"}},
                                         json{{"nodeId", "3"}, {"role", {{"value", "button"}}}, {"name", {{"value", "Ok"}}}, {"backendDOMNodeId", 3}}}));
    std::map<std::string, br::dom_index> dom;
    dom.emplace("", br::parse_dom_snapshot(bad_dom));
    br::ref_registry refs;
    br::snapshot s;
    EXPECT_NO_THROW(s = br::render_snapshot(frames, dom, refs, {}));
    EXPECT_NE(s.text.find("button \"Ok\""), std::string::npos) << s.text;
    EXPECT_NO_THROW((void)br::render_readable(frames, dom, refs, {}));
}

// ---- a site's chrome shown once (detail/repeated_regions.hpp) ----------------------------------

namespace {
std::string site_page(const std::string& p, const std::string& main_text, const std::string& footer_extra = "") {
    return "banner\n link \"Shop\" /home [ref=" + p + "1]\n navigation \"Main\" [ref=" + p + "2]\n  - link \"Kitchen\" /k [ref=" + p +
           "3]\n  - link \"Garden\" /g [ref=" + p + "4]\nmain [ref=" + p + "5]\n h1 \"" + main_text + "\"\n text of " + main_text +
           "\ncontentinfo\n - link \"Privacy\" /privacy [ref=" + p + "6]\n - link \"Terms\" /terms [ref=" + p + "7]\n (c) Shop" + footer_extra +
           "\n";
}

// A snapshot's lines from its text: indentation is depth, a trailing " [ref=…]" makes a control,
// a line with deeper lines after it is a container (the parent of the lines it holds).
std::vector<br::snapshot_line> lines_of(const std::string& text) {
    std::vector<br::snapshot_line> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        br::snapshot_line l;
        while (l.depth < line.size() && line[l.depth] == ' ') ++l.depth;
        l.text = line.substr(l.depth);
        if (const auto r = l.text.rfind(" [ref="); r != std::string::npos && l.text.back() == ']')
            l.ref = l.text.substr(r + 6, l.text.size() - r - 7);
        l.interactive = !l.ref.empty();
        if (l.text.size() > 3 && l.text[0] == 'h' && l.text[1] >= '1' && l.text[1] <= '6' && l.text[2] == ' ')
            l.heading = l.text[1] - '0';
        for (std::size_t p = out.size(); p-- > 0;)
            if (out[p].depth < l.depth) {
                l.parent = p;
                out[p].structural = true;  // a container (a landmark may have a ref: it is no control)
                out[p].interactive = false;
                break;
            }
        out.push_back(std::move(l));
    }
    for (auto& l : out) l.text_run = !l.interactive && !l.structural && l.heading == 0;
    return out;
}

// Every indented line of a snapshot's text stands under the line that holds it: the nearest line
// before it with less indentation has exactly one level less.
bool containers_kept(const std::string& text) {
    std::vector<std::size_t> depths;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::size_t d = 0;
        while (d < line.size() && line[d] == ' ') ++d;
        if (d > 0) {
            std::size_t p = depths.size();
            while (p > 0 && depths[p - 1] >= d) --p;
            if (p == 0 || depths[p - 1] != d - 1) return false;
        }
        depths.push_back(d);
    }
    return true;
}

// What a browser shows of a page an action led to (browser::show_new_page, without a browser):
// the regions the memory knows as one line each, then the budget (0: none); the page is then
// remembered as shown. `n`: the regions collapsed.
std::string show(const std::string& text, const std::string& origin, agentkit::browser::detail::region_memory& m,
                 std::size_t* n, std::size_t budget = 0) {
    namespace d = agentkit::browser::detail;
    br::snapshot s;
    s.lines = lines_of(text);
    auto collapsed = d::collapse_repeated_regions(s.lines, origin, m);
    const auto keys = std::move(collapsed.keys);
    *n = keys.size();
    if (!keys.empty()) s.lines = std::move(collapsed.lines);
    br::snapshot_options o;
    o.token_budget = budget;
    d::fit_to_budget(s, o, ak::token_counter{});
    d::remember_regions(m, origin, s.text, keys);
    return s.text;
}
}  // namespace

TEST(RepeatedRegions, ANewPageOfTheSameSiteShowsItsRepeatedChromeAsOneLineEach) {
    namespace d = agentkit::browser::detail;
    d::region_memory m;
    std::size_t n = 99;
    const auto first = show(site_page("j", "Kettles"), "http://shop.test", m, &n);
    EXPECT_EQ(n, 0U);
    EXPECT_EQ(first, site_page("j", "Kettles")) << "the first page is shown whole";
    const auto second = show(site_page("k", "Blue Kettle"), "http://shop.test", m, &n);
    EXPECT_EQ(n, 2U);
    EXPECT_EQ(second,
              "banner: as on the previous page (4 refs)\nmain [ref=k5]\n h1 \"Blue Kettle\"\n text of Blue Kettle\n"
              "contentinfo: as on the previous page (2 refs)\n");
    EXPECT_NE(d::collapsed_note(2).find("browser_snapshot"), std::string::npos);
}

TEST(RepeatedRegions, AChangedRegionAnotherOriginOrASmallRegionIsShownWhole) {
    namespace d = agentkit::browser::detail;
    d::region_memory m;
    std::size_t n = 0;
    (void)show(site_page("j", "A"), "http://shop.test", m, &n);
    // the footer gained a word: shown whole; the banner did not change
    auto b = show(site_page("k", "B", " 2026"), "http://shop.test", m, &n);
    EXPECT_EQ(n, 1U);
    EXPECT_NE(b.find(" - link \"Privacy\" /privacy [ref=k6]"), std::string::npos) << b;
    EXPECT_NE(b.find("banner: as on the previous page"), std::string::npos) << b;
    // the same page on another origin: nothing is "as before"
    auto c = show(site_page("l", "C", " 2026"), "http://other.test", m, &n);
    EXPECT_EQ(n, 0U);
    EXPECT_EQ(c, site_page("l", "C", " 2026"));
    // a region of fewer than 3 lines stays (its one line would save nothing)
    d::region_memory m2;
    const std::string small = "navigation\n - link \"Home\" / [ref=e1]\nmain\n x\n";
    (void)show(small, "http://a.test", m2, &n);
    EXPECT_EQ(show(small, "http://a.test", m2, &n), small);
    EXPECT_EQ(n, 0U);
    // the page's main content is never collapsed, nor an unknown origin (about:blank, data:)
    d::region_memory m3;
    const std::string same_main = "main\n a\n b\n c\n";
    (void)show(same_main, "http://a.test", m3, &n);
    EXPECT_EQ(show(same_main, "http://a.test", m3, &n), same_main);
    d::region_memory m4;
    (void)show(site_page("j", "A"), "", m4, &n);
    EXPECT_EQ(show(site_page("k", "A"), "", m4, &n), site_page("k", "A"));
}

// The regions are collapsed before the budget: on a page the budget cuts, what the site's menu
// took goes to the page's own text. A region the budget cut is not remembered whole, so the next
// page shows it again.
TEST(RepeatedRegions, WhatACollapsedRegionTookOfTheBudgetGoesToTheRestOfThePage) {
    namespace d = agentkit::browser::detail;
    auto page = [](const std::string& p, const std::string& story) {
        std::string t = "banner\n navigation \"Departments\"\n";
        for (int i = 0; i < 20; ++i)
            t += "  - link \"Department number " + std::to_string(i) + "\" /dept/" + std::to_string(i) + " [ref=" + p +
                 std::to_string(i) + "]\n";
        t += "main\n h1 \"" + story + "\"\n";
        for (int i = 0; i < 20; ++i) t += " Paragraph " + std::to_string(i) + " of " + story + ", with a few more words.\n";
        t += " The last line of " + story + ".\n";
        return t;
    };
    const ak::token_counter tokens;
    const std::size_t budget = 500;
    ASSERT_GT(tokens.count(page("j", "Story A")), budget + 100) << "the page does not fit whole";
    d::region_memory m;
    std::size_t n = 0;
    const auto a = show(page("j", "Story A"), "http://news.test", m, &n, budget);
    EXPECT_EQ(n, 0U);
    EXPECT_NE(a.find("link \"Department number 19\""), std::string::npos) << "the menu whole, the story cut:\n" << a;
    EXPECT_EQ(a.find("Paragraph 19 of Story A"), std::string::npos) << a;
    EXPECT_NE(a.find("lines of snapshot (~500 tokens;"), std::string::npos) << a;
    const auto b = show(page("k", "Story B"), "http://news.test", m, &n, budget);
    EXPECT_EQ(n, 1U);
    EXPECT_NE(b.find("banner: as on the previous page (20 refs)"), std::string::npos) << b;
    EXPECT_NE(b.find(" Paragraph 19 of Story B"), std::string::npos) << "the story fits once the menu is one line:\n" << b;
    EXPECT_NE(b.find(" The last line of Story B.\n"), std::string::npos) << b;
    EXPECT_EQ(b.find("lines of snapshot ("), std::string::npos) << b;
    EXPECT_LE(tokens.count(b), budget);
    // the collapsed banner is still known: the third page collapses it too
    const auto c = show(page("l", "Story C"), "http://news.test", m, &n, budget);
    EXPECT_EQ(n, 1U);
    EXPECT_NE(c.find(" Paragraph 19 of Story C"), std::string::npos) << c;

    // a footer the budget cut short is not "as before": the next page shows it (as far as it fits)
    auto footed = [](const std::string& p, const std::string& story) {
        std::string t = "main\n h1 \"" + story + "\"\n";
        for (int i = 0; i < 10; ++i) t += " Line " + std::to_string(i) + " of " + story + ".\n";
        t += "contentinfo\n";
        for (int i = 0; i < 60; ++i)
            t += " - link \"Sitemap entry " + std::to_string(i) + "\" /map/" + std::to_string(i) + " [ref=" + p + std::to_string(i) + "]\n";
        return t;
    };
    d::region_memory f;
    (void)show(footed("j", "A"), "http://docs.test", f, &n, 400);
    const auto fb = show(footed("k", "B"), "http://docs.test", f, &n, 400);
    EXPECT_EQ(n, 0U) << fb;
    EXPECT_NE(fb.find("link \"Sitemap entry 0\" /map/0 [ref=k0]"), std::string::npos) << fb;
    // shown whole (no budget), it is remembered and the next page collapses it
    (void)show(footed("l", "C"), "http://docs.test", f, &n);
    const auto fd = show(footed("m", "D"), "http://docs.test", f, &n, 400);
    EXPECT_EQ(n, 1U);
    EXPECT_NE(fd.find("contentinfo: as on the previous page (60 refs)"), std::string::npos) << fd;
    EXPECT_NE(fd.find(" Line 9 of D.\n"), std::string::npos) << fd;

    // still over budget once collapsed: the region's line first, the page cut under its containers
    auto busy = [](const std::string& p) {
        std::string t = "banner\n navigation \"Departments\"\n";
        for (int i = 0; i < 20; ++i) t += "  - link \"Department " + std::to_string(i) + "\" /d/" + std::to_string(i) + " [ref=" + p + "d" + std::to_string(i) + "]\n";
        t += "main [ref=" + p + "m]\n h1 \"Offers\"\n region \"Today\"\n";
        for (int i = 0; i < 40; ++i)
            t += "  - link \"Offer number " + std::to_string(i) + "\" /o/" + std::to_string(i) + " [ref=" + p + "o" + std::to_string(i) + "]\n";
        for (int i = 0; i < 20; ++i) t += "  Small print " + std::to_string(i) + ".\n";
        return t;
    };
    d::region_memory g;
    (void)show(busy("j"), "http://shop.test", g, &n);
    const auto over = show(busy("k"), "http://shop.test", g, &n, 200);
    EXPECT_EQ(n, 1U);
    EXPECT_EQ(over.rfind("banner: as on the previous page (20 refs)\nmain [ref=km]\n", 0), 0U)
        << "the region's line kept first, though the offers alone fill the budget:\n" << over;
    EXPECT_NE(over.find(" region \"Today\"\n  - link \"Offer number 0\" /o/0 [ref=ko0]\n"), std::string::npos) << over;
    EXPECT_NE(over.find("lines of snapshot (~200 tokens;"), std::string::npos) << over;
    EXPECT_EQ(over.find("Department"), std::string::npos) << over;
    EXPECT_TRUE(containers_kept(over)) << over;
    EXPECT_LE(ak::token_counter{}.count(over), 200U);
}

TEST(RepeatedRegions, RefsAreLeftOutOfTheComparisonButAPageThatSpellsOneIsNot) {
    namespace d = agentkit::browser::detail;
    std::size_t refs = 0;
    EXPECT_EQ(d::without_refs("link \"A\" /a [ref=k12]", refs), "link \"A\" /a");
    EXPECT_EQ(refs, 1U);
    refs = 0;
    EXPECT_EQ(d::without_refs("text [ref\\=k12] and [ref=] and [ref=K1]", refs), "text [ref\\=k12] and [ref=] and [ref=K1]");
    EXPECT_EQ(refs, 0U);
    // a region whose only difference is a defanged mark in its text is not the same region
    d::region_memory m;
    std::size_t n = 0;
    (void)show("banner\n a\n b [ref=e1]\n c\n", "http://a.test", m, &n);
    (void)show("banner\n a\n b [ref\\=e1]\n c\n", "http://a.test", m, &n);
    EXPECT_EQ(n, 0U);
    // remember_regions takes what an explicit snapshot showed: the next page collapses against it
    d::region_memory r;
    d::remember_regions(r, "http://shop.test", site_page("j", "A"));
    EXPECT_NE(show(site_page("k", "B"), "http://shop.test", r, &n).find("as on the previous page"), std::string::npos);
    EXPECT_EQ(n, 2U);
}

// ---- the part of a large page a snapshot reads (browser/detail/page_part.hpp) ------------------
namespace {
// A document in DOM-snapshot order: #document, a doctype, <html>, <head>, <body>, then under the
// body `blocks` divs each holding a <p> with text and a whitespace text node between blocks.
// Backend ids are 1000 + position.
struct order_builder {
    br::dom_order o;
    std::size_t add(std::uint32_t parent, std::uint8_t type, bool minor = false, std::uint64_t hash = 0) {
        o.id.push_back(1000 + static_cast<std::int64_t>(o.id.size()));
        o.parent.push_back(parent);
        o.type.push_back(type);
        o.minor.push_back(minor);
        o.hash.push_back(hash == 0 ? o.id.size() * 7919 : hash);
        return o.id.size() - 1;
    }
};
br::dom_order blocks_order(std::size_t blocks, std::size_t* body_at = nullptr) {
    order_builder b;
    const auto doc = b.add(br::dom_order::no_parent, 9);
    b.add(static_cast<std::uint32_t>(doc), 10);
    const auto html = b.add(static_cast<std::uint32_t>(doc), 1);
    b.add(static_cast<std::uint32_t>(html), 1);  // head
    const auto body = b.add(static_cast<std::uint32_t>(html), 1);
    if (body_at != nullptr) *body_at = body;
    for (std::size_t i = 0; i < blocks; ++i) {
        const auto div = b.add(static_cast<std::uint32_t>(body), 1);
        const auto p = b.add(static_cast<std::uint32_t>(div), 1);
        b.add(static_cast<std::uint32_t>(p), 3);
        b.add(static_cast<std::uint32_t>(body), 3, true);  // "\n" between blocks
        b.add(static_cast<std::uint32_t>(body), 8);  // a comment
    }
    return b.o;
}
}  // namespace

TEST(PagePart, ReadsTheFirstNodesAsWholeSubtreesUnderTheAncestorsOfWhereItEnds) {
    std::size_t body = 0;
    const auto o = blocks_order(100, &body);
    ASSERT_EQ(o.size(), 5u + 100 * 5);
    // a part that would cover the page is the page
    EXPECT_TRUE(br::detail::plan_page_part(o, o.size()).whole());
    EXPECT_TRUE(br::detail::plan_page_part(o, 10000).whole());

    // position 52 is block 9's text: the end moves out of the smallest subtree around it that
    // the atom allows, block 9's div; blocks 0..9 and the head are read whole, the document,
    // <html> and <body> alone
    const auto p2 = br::detail::plan_page_part(o, 52);
    ASSERT_FALSE(p2.whole());
    EXPECT_EQ(p2.ancestors, (std::vector<std::int64_t>{o.id[0], o.id[2], o.id[body]}));
    std::vector<std::int64_t> units{o.id[3]};  // the head
    for (std::size_t i = 0; i < 10; ++i) units.push_back(o.id[5 + 5 * i]);  // divs, no text or comment
    EXPECT_EQ(p2.units, units);
    EXPECT_EQ(p2.boundary_pos, 53u) << "block 9's whitespace follows its div";
    EXPECT_EQ(p2.nodes, p2.boundary_pos);
    EXPECT_EQ(p2.total, o.size());
    EXPECT_EQ(p2.boundary, o.id[53]);
    // an atom as large as <html>: nothing is split, the page is read whole
    EXPECT_TRUE(br::detail::plan_page_part(o, 52, 1000).whole());
    // an end on a block's own element splits nothing: blocks before it are read
    const auto at_div = br::detail::plan_page_part(o, 10);
    EXPECT_EQ(at_div.boundary_pos, 10u);
    EXPECT_EQ(at_div.units, (std::vector<std::int64_t>{o.id[3], o.id[5]}));

    // read to the same node again: the same part
    const auto again = br::detail::plan_page_part(o, 1, 256, p2.boundary);
    EXPECT_EQ(again.units, p2.units);
    EXPECT_EQ(again.ancestors, p2.ancestors);
    EXPECT_EQ(again.tail_digest, p2.tail_digest);
    // a node that is gone: the whole page
    EXPECT_TRUE(br::detail::plan_page_part(o, 1, 256, 999999).whole());
}

TEST(PagePart, TheTailDigestSeesChangesBeyondThePartOnly) {
    auto o = blocks_order(100);
    const auto before = br::detail::plan_page_part(o, 60);
    ASSERT_FALSE(before.whole());
    auto inside = o;
    inside.hash[6] ^= 1;  // a node within the part
    EXPECT_EQ(br::detail::plan_page_part(inside, 1, 256, before.boundary).tail_digest, before.tail_digest);
    auto beyond = o;
    beyond.hash[o.size() - 2] ^= 1;  // a node near the end
    EXPECT_NE(br::detail::plan_page_part(beyond, 1, 256, before.boundary).tail_digest, before.tail_digest);
}

TEST(PagePart, AShadowHostIsReadWholeAPseudoElementIsASubtreeAndBrokenOrdersAreReadWhole) {
    order_builder b;
    const auto doc = b.add(br::dom_order::no_parent, 9);
    const auto html = b.add(static_cast<std::uint32_t>(doc), 1);
    const auto body = b.add(static_cast<std::uint32_t>(html), 1);
    const auto host = b.add(static_cast<std::uint32_t>(body), 1);
    const auto shadow = b.add(static_cast<std::uint32_t>(host), 11);
    for (int i = 0; i < 400; ++i) b.add(static_cast<std::uint32_t>(shadow), 1);
    for (int i = 0; i < 400; ++i) b.add(static_cast<std::uint32_t>(body), 1);
    // the end falls inside the host's shadow tree: the host is read whole (its shadow content
    // only comes through it)
    const auto part = br::detail::plan_page_part(b.o, 100);
    ASSERT_FALSE(part.whole());
    EXPECT_EQ(part.units, std::vector<std::int64_t>{b.o.id[host]});
    EXPECT_EQ(part.boundary_pos, host + 1 + 1 + 400);

    // a pseudo-element (a list item's ::marker) is read as a subtree of its own: its parent splits
    order_builder c;
    const auto d2 = c.add(br::dom_order::no_parent, 9);
    const auto h2 = c.add(static_cast<std::uint32_t>(d2), 1);
    const auto list = c.add(static_cast<std::uint32_t>(h2), 1);
    const auto marker = c.add(static_cast<std::uint32_t>(list), 1);  // ::marker
    for (int i = 0; i < 1000; ++i) c.add(static_cast<std::uint32_t>(list), 1);
    const auto in_list = br::detail::plan_page_part(c.o, 100);
    ASSERT_FALSE(in_list.whole());
    EXPECT_EQ(in_list.ancestors, (std::vector<std::int64_t>{c.o.id[d2], c.o.id[h2], c.o.id[list]}));
    ASSERT_FALSE(in_list.units.empty());
    EXPECT_EQ(in_list.units.front(), c.o.id[marker]);
    EXPECT_EQ(in_list.units.size(), 100u - 3u);

    // not one tree (a second root): read whole
    auto broken = blocks_order(100);
    broken.parent[7] = br::dom_order::no_parent;
    EXPECT_TRUE(br::detail::plan_page_part(broken, 50).whole());
    EXPECT_TRUE(br::detail::plan_page_part(br::dom_order{}, 50).whole());
}
