#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "visibility/coding_agent_toolbox.hpp"
#include "visibility/support.hpp"

namespace ak = agentkit;
using visibility_test::has;
using visibility_test::bound_menu;
using ak::json;

static_assert(ak::masker<decltype(coding_agent::make_menu())>);
static_assert(ak::observable_masker<decltype(coding_agent::make_menu())>);
static_assert(ak::nudging_masker<decltype(coding_agent::make_menu())>);
static_assert(ak::check_masker<coding_agent::box_t, decltype(coding_agent::make_menu())>());

TEST(Menu, RootShowsOnlyTheSixMetaTools) {
    auto m = bound_menu();
    EXPECT_EQ(m.current_mode(), "ROOT");
    EXPECT_EQ(m.visible(), (std::vector<std::string>{"menu_list", "menu_enter", "menu_exit", "complete", "think", "message_user"}));
    EXPECT_FALSE(m.is_visible("bash"));
    EXPECT_TRUE(m.is_visible("menu_enter"));
    EXPECT_TRUE(m.problems().empty());
    auto meta = m.meta_tools();
    ASSERT_EQ(meta.size(), 6U);
    // menu_enter's schema lists the modes in declared order.
    const auto& e = meta[1].input_schema["properties"]["mode"]["enum"];
    EXPECT_EQ(e, json::parse(R"(["swe","library","browser","search","git","data","deploy","ai","integrations"])"));
}

TEST(Menu, EnterShowsTheModeToolsPlusCrossCutting) {
    auto m = bound_menu();
    auto r = m.handle_meta("menu_enter", json{{"mode", "git"}});
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(r->has_value()) << r->error().to_text();
    EXPECT_EQ(m.current_mode(), "git");
    EXPECT_TRUE(m.is_visible("git_create_pr"));
    EXPECT_TRUE(m.is_visible("browser_navigate"));  // in_every_mode
    EXPECT_FALSE(m.is_visible("bash"));
    auto v = m.visible();
    EXPECT_EQ(v.size(), 6U + 21U + 2U);
    // tool_reference blocks for every tool of the mode
    std::size_t refs = 0;
    for (const auto& b : (*r)->content)
        if (b.type == ak::content_block::kind::tool_reference) ++refs;
    EXPECT_EQ(refs, 23U);
    EXPECT_EQ((*r)->structured->at("mode"), "git");
    // visible(): meta-tools first, then host tools in catalogue order
    EXPECT_EQ(v[6], "git_status");
    EXPECT_EQ(v.back(), "browser_view");
}

TEST(Menu, CrossCuttingToolAppearsInSeveralModes) {
    auto m = bound_menu();
    EXPECT_EQ(m.modes_of("bash"), (std::vector<std::string>{"swe", "data", "deploy"}));
    EXPECT_EQ(m.modes_of("web_search"), (std::vector<std::string>{"swe", "library", "search", "ai"}));
    for (auto mode : {"swe", "data", "deploy"}) {
        ASSERT_TRUE(m.enter(mode).has_value());
        EXPECT_TRUE(m.is_visible("bash")) << mode;
    }
}

TEST(Menu, UnknownModeIsAnsweredWithTheModes) {
    auto m = bound_menu();
    auto r = m.enter("brwoser");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ak::errc::args_invalid);
    EXPECT_NE(r.error().hint.find("browser"), std::string::npos);
    EXPECT_EQ(r.error().details["modes"].size(), 9U);
    EXPECT_EQ(m.current_mode(), "ROOT");
    // missing argument: the same list
    auto r2 = m.handle_meta("menu_enter", json::object());
    ASSERT_FALSE(r2->has_value());
    EXPECT_EQ(r2->error().details["modes"].size(), 9U);
    // case-insensitive match is accepted
    EXPECT_TRUE(m.enter("GIT").has_value());
    EXPECT_EQ(m.current_mode(), "git");
}

TEST(Menu, HiddenCallNamesTheModes) {
    auto m = bound_menu();
    auto r = m.answer_hidden("git_commit");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ak::errc::tool_masked);
    EXPECT_EQ(r.error().details["modes"], json::parse(R"(["swe","git"])"));
    EXPECT_NE(r.error().hint.find("menu_enter"), std::string::npos);
    EXPECT_NE(r.error().hint.find("\"swe\""), std::string::npos);
    auto u = m.answer_hidden("git_comit");
    ASSERT_FALSE(u.has_value());
    EXPECT_EQ(u.error().code, ak::errc::tool_unknown);
    EXPECT_TRUE(has(u.error().details["candidates"].get<std::vector<std::string>>(), "git_commit"));
}

TEST(Menu, ExitReturnsToRoot) {
    auto m = bound_menu();
    ASSERT_TRUE(m.enter("browser").has_value());
    auto r = m.handle_meta("menu_exit", json::object());
    ASSERT_TRUE(r->has_value());
    EXPECT_TRUE(m.at_root());
    auto again = m.exit();
    ASSERT_TRUE(again.has_value());
    EXPECT_NE(again->joined_text().find("Already at ROOT"), std::string::npos);
}

TEST(Menu, PromptSectionIsStableAndTeachesTheMenu) {
    auto m = bound_menu();
    const std::string p = m.prompt_section();
    EXPECT_NE(p.find("menu_enter"), std::string::npos);
    EXPECT_NE(p.find("First action rule"), std::string::npos);
    EXPECT_NE(p.find("- browser: Web browsing, clicking, forms"), std::string::npos);
    // intent lines in declared order
    EXPECT_LT(p.find("- swe:"), p.find("- library:"));
    EXPECT_LT(p.find("- ai:"), p.find("- integrations:"));
    ASSERT_TRUE(m.enter("deploy").has_value());
    EXPECT_EQ(m.prompt_section(), p);  // state lives in [MENU_STATE], never in the prompt
}

TEST(Menu, StateMessageShowsModeAndCounts) {
    auto m = bound_menu();
    auto s = m.state_message();
    EXPECT_EQ(s.rfind("[MENU_STATE] mode: ROOT", 0), 0U);
    EXPECT_NE(s.find("swe (32)"), std::string::npos);
    EXPECT_NE(s.find("integrations (5)"), std::string::npos);
    ASSERT_TRUE(m.enter("integrations").has_value());
    s = m.state_message();
    EXPECT_NE(s.find("mode: integrations (5 tools: mcp_tool, list_secrets, discover_tools, browser_navigate, browser_view)"),
              std::string::npos);
    EXPECT_EQ(s.find("integrations (5),"), std::string::npos);  // not listed among "other modes"
}

TEST(Menu, StartInAMode) {
    ak::toolbox small{coding_agent::Read, coding_agent::Edit, coding_agent::Write, coding_agent::bash};
    auto m = ak::menu_for<decltype(small)>(ak::mode<"swe">(coding_agent::Read, coding_agent::Edit).when("code"),
                                           ak::mode<"rest">(ak::tool_ref<"Write">, ak::tool_ref<"bash">), ak::start_in<"swe">);
    static_assert(ak::check_masker<decltype(small), decltype(m)>());
    m.bind(small.infos());
    EXPECT_EQ(m.current_mode(), "swe");
    EXPECT_TRUE(m.is_visible("Read"));
    EXPECT_NE(m.prompt_section().find("You start in mode swe"), std::string::npos);
    ASSERT_TRUE(m.exit().has_value());
    m.bind(small.infos());  // a re-bind restarts in the start mode
    EXPECT_EQ(m.current_mode(), "swe");
}

TEST(Menu, RootNudgeIsConfigurableAndBounded) {
    ak::menu_options o;
    o.root_nudge = "Pick a mode from {modes}.";
    o.max_nudges = 1;
    auto m = bound_menu(std::move(o));
    auto n = m.dead_end_nudge();
    ASSERT_TRUE(n.has_value());
    EXPECT_EQ(n->rfind("Pick a mode from swe, library, browser", 0), 0U);
    EXPECT_FALSE(m.on_prose_answer().has_value());  // budget spent
    ASSERT_TRUE(m.enter("ai").has_value());
    EXPECT_FALSE(m.dead_end_nudge().has_value());   // not at ROOT
    ASSERT_TRUE(m.exit().has_value());
    EXPECT_TRUE(ak::dead_end_nudge(m).has_value()); // budget reset by leaving ROOT
}

TEST(Menu, VersionAndCallbackTrackVisibleSetChanges) {
    auto m = coding_agent::make_menu();
    std::vector<std::uint64_t> seen;
    ASSERT_TRUE(ak::on_visibility_change(m, [&](std::uint64_t v) { seen.push_back(v); }));
    m.bind(coding_agent::box.infos());
    const auto v0 = m.version();
    ASSERT_TRUE(m.enter("git").has_value());
    ASSERT_TRUE(m.enter("git").has_value());  // no change
    ASSERT_TRUE(m.handle_meta("menu_list", json::object())->has_value());  // no change
    ASSERT_TRUE(m.exit().has_value());
    EXPECT_EQ(m.version(), v0 + 2);
    EXPECT_EQ(seen.back(), m.version());
    // a throwing callback never escapes
    m.set_on_change([](std::uint64_t) { throw std::runtime_error("boom"); });
    EXPECT_NO_THROW((void)m.enter("ai"));
    EXPECT_EQ(m.version(), v0 + 3);
}

TEST(Menu, CompleteThinkAndMessageUser) {
    std::string completed, messaged;
    ak::menu_options o;
    o.on_complete = [&](std::string_view s) { completed = s; };
    o.on_message_user = [&](std::string_view s) {
        messaged = s;
        throw std::runtime_error("host bug");  // swallowed
    };
    auto m = bound_menu(std::move(o));
    auto c = m.handle_meta("complete", json{{"summary", "fixed the bug"}});
    ASSERT_TRUE(c->has_value());
    EXPECT_EQ(completed, "fixed the bug");
    EXPECT_EQ((*c)->structured->at("complete"), true);
    auto t = m.handle_meta("think", json{{"thought", "hmm"}});
    ASSERT_TRUE(t->has_value());
    auto mu = m.handle_meta("message_user", json{{"message", "hello"}});
    ASSERT_TRUE(mu->has_value());
    EXPECT_EQ(messaged, "hello");
    auto bad = m.handle_meta("message_user", json::array());
    ASSERT_FALSE(bad->has_value());
    EXPECT_FALSE(m.handle_meta("bash", json::object()).has_value());  // not a meta-tool
}

TEST(Menu, MenuListDescribesEveryMode) {
    auto m = bound_menu();
    auto r = m.list();
    ASSERT_TRUE(r.has_value());
    const auto text = r->joined_text();
    EXPECT_NE(text.find("Current mode: ROOT"), std::string::npos);
    EXPECT_NE(text.find("- deploy — Deployment and CI/CD"), std::string::npos);
    EXPECT_NE(text.find("In every mode: browser_navigate, browser_view"), std::string::npos);
    EXPECT_EQ(r->structured->at("modes").size(), 9U);
}

TEST(Menu, EveryModeToolsAtRootOption) {
    ak::menu_options o;
    o.every_mode_tools_at_root = true;
    auto m = bound_menu(std::move(o));
    EXPECT_TRUE(m.is_visible("browser_navigate"));
    EXPECT_FALSE(m.is_visible("browser_click"));
    EXPECT_EQ(m.visible().size(), 8U);
}

TEST(Menu, UncheckedMenuReportsBindingProblems) {
    ak::menu m{ak::mode<"a">(ak::tool_ref<"x">, ak::tool_ref<"y">)};
    std::vector<ak::tool_info> cat(2);
    cat[0].name = "x";
    cat[1].name = "z";
    m.bind(cat);
    ASSERT_EQ(m.problems().size(), 2U);
    EXPECT_NE(m.problems()[0].find("unknown tool \"y\""), std::string::npos);
    EXPECT_NE(m.problems()[1].find("\"z\" is in no mode"), std::string::npos);
}

// A mode the host leaves out (a capability it has not turned on): not in menu_enter's schema,
// menu_list or the prompt; entering it or calling a tool only it holds answers
// capability.unsupported with the host's hint; a tool another mode also holds stays reachable.
TEST(Menu, OmittedModesAreNeitherListedNorEnteredNorCalled) {
    ak::menu_options o;
    o.omitted_modes = {"deploy"};
    o.omitted_hint = "Start the agent with --deploy to use it.";
    auto m = bound_menu(o);
    EXPECT_TRUE(m.problems().empty()) << m.problems().front();  // deploy's own tools are not "in no mode"
    const auto meta = m.meta_tools();
    const auto& e = meta[1].input_schema["properties"]["mode"]["enum"];
    EXPECT_EQ(e.size(), 8U);
    EXPECT_EQ(std::find(e.begin(), e.end(), "deploy"), e.end());
    auto listed = m.list();
    ASSERT_TRUE(listed.has_value());
    EXPECT_EQ(listed->structured->at("modes").size(), 8U);
    EXPECT_EQ(m.prompt_section().find("deploy"), std::string::npos);

    auto in = m.enter("Deploy");
    ASSERT_FALSE(in.has_value());
    EXPECT_EQ(in.error().code, ak::errc::capability_unsupported);
    EXPECT_NE(in.error().hint.find("--deploy"), std::string::npos);
    EXPECT_NE(in.error().hint.find("menu_enter with one of: swe"), std::string::npos);
    EXPECT_EQ(m.current_mode(), "ROOT");

    auto call = m.answer_hidden("rollback");  // only in deploy
    ASSERT_FALSE(call.has_value());
    EXPECT_EQ(call.error().code, ak::errc::capability_unsupported);
    EXPECT_EQ(call.error().hint, o.omitted_hint);
    auto shared = m.answer_hidden("git_pr_checks");  // deploy and git
    ASSERT_FALSE(shared.has_value());
    EXPECT_EQ(shared.error().code, ak::errc::tool_masked);
    EXPECT_EQ(shared.error().details["modes"], json::parse(R"(["git"])"));
    EXPECT_TRUE(m.enter("git").has_value());
    EXPECT_TRUE(m.is_visible("git_pr_checks"));
    EXPECT_FALSE(m.is_visible("rollback"));

    // a start mode that is omitted starts at ROOT; an unknown omitted name is a binding problem
    ak::menu_options bad;
    bad.omitted_modes = {"deploy", "nope"};
    auto b = bound_menu(bad);
    ASSERT_EQ(b.problems().size(), 1U);
    EXPECT_EQ(b.problems()[0], "omitted mode \"nope\" is not a mode");
}
