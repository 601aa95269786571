#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace ak = agentkit;
using ak::json;

namespace {
std::string lines(std::size_t n, std::string_view prefix = "line") {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += std::string(prefix) + " " + std::to_string(i) + " of the page text\n";
    return s;
}
}  // namespace

// ---- compact strings -------------------------------------------------------------------

TEST(Compact, StepLists) {
    std::vector<ak::compact::step> st{{"click"}, {"type"}, {"wait", true, "", 120}, {"click", false, "element.covered"},
                                      {"type", true, "", -1, true}};
    EXPECT_EQ(ak::compact::steps(st), "click:ok type:ok wait:120ms click:fail(element.covered) type:skip");
}

TEST(Compact, SearchAndForms) {
    const std::string s = ak::compact::search_results("c++ json", {{"nlohmann", "JSON for Modern C++", "https://github.com/nlohmann/json"}});
    EXPECT_EQ(s, "\"c++ json\" results:\n1. nlohmann - JSON for Modern C++ (https://github.com/nlohmann/json)");
    EXPECT_EQ(ak::compact::search_results("zzz", {}), "\"zzz\" no results.");
    EXPECT_EQ(ak::compact::filled({{"Name"}, {"Email"}}), "fill:2/2 ok");
    EXPECT_EQ(ak::compact::filled({{"Name"}, {"Email", false, "element.not_visible"}}), "fill:1/2 (Email: element.not_visible)");
}

TEST(Compact, ShortenedLabelsStayValidUtf8) {
    std::string label;
    for (int i = 0; i < 60; ++i) label += "é";  // 120 bytes: longer than a quoted query (80)
    const std::string s = ak::compact::search_results(label, {});  // the query is quoted and shortened
    // No split code point: every 0xC3 lead byte is followed by its continuation byte.
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (static_cast<unsigned char>(s[i]) == 0xC3) {
            ASSERT_LT(i + 1, s.size());
            EXPECT_EQ(static_cast<unsigned char>(s[i + 1]) & 0xC0U, 0x80U);
        }
    }
    EXPECT_NE(s.find("…"), std::string::npos);
}

// ---- budgets -----------------------------------------------------------------------------

TEST(Budget, ShortTextIsUntouched) {
    ak::cut_report cut;
    EXPECT_EQ(ak::cap_text("short", 100, "x", {}, &cut), "short");
    EXPECT_FALSE(cut.cut);
}

TEST(Budget, CapIsHardAndSaysWhatItCut) {
    const std::string text = lines(2000);
    ak::cut_report cut;
    const std::string s = ak::cap_text(text, 6000, "page text", {}, &cut);
    EXPECT_LE(s.size(), 6000u);
    EXPECT_TRUE(cut.cut);
    EXPECT_EQ(cut.original_chars, text.size());
    EXPECT_NE(s.find("of " + ak::group_digits(text.size()) + " chars of page text"), std::string::npos) << s.substr(s.size() - 200);
    EXPECT_NE(s.find("narrow the request"), std::string::npos);
    EXPECT_EQ(s.rfind("line 0 ", 0), 0u);
}

TEST(Budget, CutTextGoesToTheArtifactStore) {
    ak::memory_artifacts store;
    const std::string text = lines(3000);
    ak::cut_report cut;
    const std::string s = ak::cap_text(text, 4000, "extraction", store, &cut);
    ASSERT_TRUE(cut.artifact.has_value());
    EXPECT_LE(s.size(), 4000u);
    EXPECT_NE(s.find("artifact " + cut.artifact->id), std::string::npos);
    auto blob = store.get(cut.artifact->id);
    ASSERT_TRUE(blob.has_value());
    EXPECT_EQ(blob->data, text);
    EXPECT_EQ(blob->mime_type, "text/plain");
}

TEST(Budget, TinyCapStillHonoured) {
    const std::string text(500, 'a');
    EXPECT_EQ(ak::cap_text(text, 10).size(), 10u);
}

TEST(Budget, TokenCapCountsTheNoteInAndCutsAtALineInTheLastPart) {
    const ak::token_counter tokens;
    std::string text;
    for (int i = 0; i < 600; ++i) text += "line " + std::to_string(i) + " says something about the page\n";
    ASSERT_GT(tokens.count(text), 3000U);
    EXPECT_EQ(ak::token_prefix(text, tokens.count(text), tokens), text.size());
    EXPECT_EQ(ak::token_prefix(text, 0, tokens), 0U);
    const std::size_t p = ak::token_prefix(text, 500, tokens);
    EXPECT_LE(tokens.count(text.substr(0, p)), 500U);
    EXPECT_GT(tokens.count(text.substr(0, p + 8)), 500U);  // the longest: a few bytes more do not fit
    ak::memory_artifacts store;
    ak::cut_report cut;
    const std::string s = ak::cap_tokens(text, 500, tokens, "page text", store, &cut, {}, "read_artifact");
    EXPECT_LE(tokens.count(s), 500U);
    EXPECT_GT(tokens.count(s), 400U);  // the cap is used, not wasted
    EXPECT_TRUE(cut.cut);
    const auto note = s.rfind("\n[cut: showing ");
    ASSERT_NE(note, std::string::npos) << s;
    EXPECT_EQ(s[note - 1], '\n');  // whole lines
    EXPECT_NE(s.find("chars of page text; the rest: read_artifact {\"id\": \"a1\", \"offset\": " + std::to_string(note) + "}]"),
              std::string::npos)
        << s.substr(note);
    EXPECT_EQ(store.get("a1")->data, text);
    EXPECT_EQ(ak::cap_tokens("short", 100, tokens), "short");
}

TEST(Budget, HeadTail) {
    const std::string text = lines(500);
    const std::string s = ak::head_tail(text, 1400, 500);
    EXPECT_LT(s.size(), 2100u);
    EXPECT_EQ(s.substr(0, 20), text.substr(0, 20));
    EXPECT_EQ(s.substr(s.size() - 100), text.substr(text.size() - 100));
    EXPECT_NE(s.find("chars omitted"), std::string::npos);
    EXPECT_EQ(ak::head_tail("small", 1400, 500), "small");
}

TEST(Budget, GroupDigits) {
    EXPECT_EQ(ak::group_digits(0), "0");
    EXPECT_EQ(ak::group_digits(999), "999");
    EXPECT_EQ(ak::group_digits(1000), "1,000");
    EXPECT_EQ(ak::group_digits(1234567), "1,234,567");
}

TEST(Budget, PerKindCapsNeverExceedTotal) {
    ak::budgets b;
    b.total = 1200;
    EXPECT_EQ(b.cap(ak::result_kind::snapshot), 1200u);
    EXPECT_EQ(b.cap(ak::result_kind::extraction), 1000u);
    EXPECT_EQ(b.cap(ak::result_kind::generic), 1200u);
}

// ---- artifacts ---------------------------------------------------------------------------

TEST(Artifacts, StoreIsBoundedAndEvictsOldest) {
    ak::memory_artifacts store(100);
    auto a = store.put({"text/plain", "a", "", std::string(60, 'a')});
    auto b = store.put({"text/plain", "b", "", std::string(60, 'b')});
    ASSERT_TRUE(a && b);
    EXPECT_FALSE(store.get(a->id).has_value());
    EXPECT_TRUE(store.get(b->id).has_value());
    EXPECT_EQ(store.evicted(), 1u);
    auto too_big = store.put({"text/plain", "c", "", std::string(200, 'c')});
    ASSERT_FALSE(too_big);
    EXPECT_EQ(too_big.error().code, ak::errc::budget_exceeded);
}

TEST(Artifacts, AnImagesSizeIsItsBytesNotItsBase64Text) {
    // "iVBORw0KGgo=" is the 8-byte PNG signature; in memory and on disk alike the ref says 8
    ak::memory_artifacts mem;
    auto a = mem.put({"image/png", "shot", "", "iVBORw0KGgo=", true});
    ASSERT_TRUE(a.has_value());
    EXPECT_EQ(a->size, 8U);
    EXPECT_EQ(ak::base64_decoded_size("iVBORw0KGgo="), ak::base64_decode("iVBORw0KGgo=")->size());
    EXPECT_EQ(ak::base64_decoded_size("YWJj\nZA"), 4U);  // "abcd", a line break, no padding
    auto text = mem.put({"text/plain", "t", "", "hello", false});
    ASSERT_TRUE(text.has_value());
    EXPECT_EQ(text->size, 5U);
}

TEST(Artifacts, ConcurrentPutsGetUniqueIds) {
    ak::memory_artifacts store;
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; ++t)
        ts.emplace_back([&] {
            for (int i = 0; i < 50; ++i) (void)store.put({"text/plain", "x", "", "data"});
        });
    for (auto& t : ts) t.join();
    auto all = store.list();
    ASSERT_EQ(all.size(), 200u);
    std::set<std::string> ids;
    for (const auto& r : all) ids.insert(r.id);
    EXPECT_EQ(ids.size(), 200u);
}

TEST(Artifacts, EmptySinkRefReportsNotFound) {
    ak::artifact_sink_ref none;
    EXPECT_FALSE(none);
    auto r = none.put({"text/plain", "x", "", "d"});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::not_found);
}

// ---- formatter ---------------------------------------------------------------------------

TEST(Formatter, KindsFromNamesAndOverrides) {
    ak::compact_formatter f;
    EXPECT_EQ(f.kind_of("browser_snapshot"), ak::result_kind::snapshot);
    EXPECT_EQ(f.kind_of("extract_table"), ak::result_kind::extraction);
    EXPECT_EQ(f.kind_of("read_page"), ak::result_kind::page_text);
    EXPECT_EQ(f.kind_of("web_search"), ak::result_kind::search);
    EXPECT_EQ(f.kind_of("click"), ak::result_kind::generic);
    f.set_kind("click", ak::result_kind::snapshot);
    EXPECT_EQ(f.kind_of("click"), ak::result_kind::snapshot);
}

TEST(Formatter, SnapshotCapAppliesAndStoresFullText) {
    ak::compact_formatter f;
    ak::memory_artifacts store;
    const std::string snap = lines(1000, "- button");
    ak::format_context c;
    c.tool = "browser_snapshot";
    c.artifacts = store;
    auto out = f.format(ak::tool_output::text(snap), c);
    ASSERT_EQ(out.content.size(), 1u);
    EXPECT_LE(f.tokens.count(out.content[0].text), f.limits.snapshot);
    EXPECT_NE(out.content[0].text.find("snapshot of browser_snapshot"), std::string::npos);
    ASSERT_EQ(store.size(), 1u);
    EXPECT_EQ(store.get(store.list()[0].id)->data, snap);
}

TEST(Formatter, AResultItsToolFittedKeepsItsTextButItsImagesFollowThePolicy) {
    // A browser tool fits its snapshot to its own budget in its own priority order; a second,
    // prefix cut by the formatter's cap would drop what the tool kept (the last lines).
    ak::compact_formatter f;
    f.images = ak::image_policy::drop;
    ak::memory_artifacts store;
    ak::format_context c;
    c.tool = "browser_snapshot";
    c.artifacts = store;
    const std::string snap = lines(1000, "- text") + "- button \"Last\" [ref=e999]";
    ASSERT_GT(f.tokens.count(snap), f.limits.snapshot);
    ak::tool_output fitted = ak::tool_output::text(snap);
    fitted.add_image(std::string(400, 'A'), "image/png");
    fitted.fitted = true;
    auto kept = f.format(fitted, c);
    ASSERT_EQ(kept.content.size(), 2u);
    EXPECT_EQ(kept.content[0].text, snap);
    EXPECT_NE(kept.content[1].type, ak::content_block::kind::image);
    EXPECT_TRUE(kept.fitted);
    EXPECT_EQ(store.size(), 0u);
    // the same text from a tool that leaves fitting to the host is cut, its rest stored
    auto cut = f.format(ak::tool_output::text(snap), c);
    EXPECT_LE(f.tokens.count(cut.content[0].text), f.limits.snapshot);
    EXPECT_EQ(cut.content[0].text.find("[ref=e999]"), std::string::npos);
    EXPECT_EQ(store.size(), 1u);
}

TEST(Formatter, TotalCapCoversAllBlocks) {
    ak::compact_formatter f;
    f.limits.total = 600;  // tokens; the five blocks count 1,000
    ak::tool_output o;
    for (int i = 0; i < 5; ++i) o.add_text(std::string(1000, static_cast<char>('a' + i)));
    o.content.push_back(ak::content_block::make_tool_reference("later_tool"));
    ak::format_context c;
    c.tool = "dump";
    auto out = f.format(std::move(o), c);
    std::size_t tokens = 0;
    bool has_ref = false;
    for (const auto& b : out.content) {
        if (b.type == ak::content_block::kind::text) tokens += f.tokens.count(b.text);
        if (b.type == ak::content_block::kind::tool_reference) has_ref = true;
    }
    EXPECT_TRUE(has_ref);
    EXPECT_LE(tokens + f.tokens.count("[tool later_tool is now available]"), 600u);
}

TEST(Formatter, ImagePolicies) {
    ak::tool_output o = ak::tool_output::text("shot");
    for (int i = 0; i < 3; ++i) o.add_image(std::string(4000, 'A'), "image/png");
    ak::memory_artifacts store;
    ak::format_context c;
    c.tool = "screenshot";
    c.artifacts = store;

    ak::compact_formatter keep;  // keeps 2, stores the third
    auto k = keep.format(o, c);
    int images = 0;
    for (const auto& b : k.content) images += b.type == ak::content_block::kind::image;
    EXPECT_EQ(images, 2);
    EXPECT_EQ(store.size(), 1u);

    ak::compact_formatter drop;
    drop.images = ak::image_policy::drop;
    auto d = drop.format(o, c);
    for (const auto& b : d.content) EXPECT_NE(b.type, ak::content_block::kind::image);
    EXPECT_NE(d.joined_text().find("not shown"), std::string::npos);
    EXPECT_EQ(store.size(), 1u);  // drop stores nothing

    ak::compact_formatter st;
    st.images = ak::image_policy::store;
    auto s = st.format(o, c);
    EXPECT_EQ(store.size(), 4u);
    EXPECT_NE(s.joined_text().find("stored as artifact"), std::string::npos);
}

// ---- report ------------------------------------------------------------------------------

TEST(Report, ThreeSectionsBoundedNoImages) {
    ak::report r;
    r.answered = true;
    r.result = "The total is $42.10.\nPaid by card.";
    for (int i = 0; i < 12; ++i) r.summary.push_back("bullet " + std::to_string(i) + std::string(400, '.'));
    r.session_id = "s-1";
    r.artifacts.push_back({"a1", "agentkit://artifacts/a1", "image/png", "step 1", 1000, "", std::nullopt, std::nullopt});
    r.artifacts.push_back({"a2", "agentkit://artifacts/a2", "text/plain", "page text", 5000, "", std::nullopt, std::nullopt});
    r.images.push_back(ak::content_block::make_image("AAAA", "image/png"));
    ak::report_options ro;
    ro.screenshots_tool = "get_screenshots";
    r.artifact_tool = "read_artifact";
    const std::string s = ak::render_report(r, ro);
    EXPECT_EQ(s.rfind("Result: The total is $42.10.\n  Paid by card.\nSummary:\n- bullet 0", 0), 0u) << s;
    EXPECT_NE(s.find("(+4 more)"), std::string::npos);
    EXPECT_NE(s.find("Artifacts:\n- session_id: s-1"), std::string::npos);
    EXPECT_NE(s.find("1 screenshot, 1 text (6,000 bytes)"), std::string::npos) << s;
    EXPECT_NE(s.find("get_screenshots(session_id=\"s-1\")"), std::string::npos);
    EXPECT_NE(s.find("read_artifact(id=\"a2\")"), std::string::npos);
    // a report names only tools its reader has: without them, ids and URIs
    r.artifact_tool.clear();
    const std::string bare = ak::render_report(r);
    EXPECT_EQ(bare.find("get_screenshots"), std::string::npos) << bare;
    EXPECT_EQ(bare.find("(id="), std::string::npos) << bare;
    EXPECT_NE(bare.find("- ids: a1 (agentkit://artifacts/a1) for step 1 · a2 (agentkit://artifacts/a2) for page text"), std::string::npos) << bare;
    EXPECT_EQ(s.find("AAAA"), std::string::npos);
    auto out = ak::report_output(r);
    ASSERT_EQ(out.content.size(), 1u);
    EXPECT_EQ(out.content[0].type, ak::content_block::kind::text);
    ak::report_options with_images;
    with_images.inline_images = true;
    EXPECT_EQ(ak::report_output(r, with_images).content.size(), 2u);
}

TEST(Report, NoAnswerSaysWhy) {
    ak::report r;
    r.no_answer_reason = "stopped: step limit";
    const std::string s = ak::render_report(r);
    EXPECT_EQ(s.rfind("Result: (no final answer: stopped: step limit)", 0), 0u) << s;
    EXPECT_NE(s.find("- stored: none"), std::string::npos);
}

TEST(Report, HardCap) {
    ak::report r;
    r.answered = true;
    r.result = std::string(50000, 'x');
    ak::report_options o;
    o.max_chars = 2000;
    EXPECT_LE(ak::render_report(r, o).size(), 2000u);
}
