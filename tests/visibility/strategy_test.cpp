#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "visibility/coding_agent_toolbox.hpp"

namespace ak = agentkit;
using ak::json;

namespace {

constexpr std::string_view host_prompt = "You are a careful engineering agent.";

struct step {
    const char* tool;
    json args;
};

// A scripted 10-turn session with mode switches: each turn the "model" makes one call.
std::vector<step> script() {
    return {{"menu_enter", {{"mode", "swe"}}},     {"Read", {{"path", "src/main.cpp"}}},
            {"menu_enter", {{"mode", "git"}}},     {"git_commit", {{"message", "fix"}}},
            {"menu_exit", json::object()},         {"menu_enter", {{"mode", "browser"}}},
            {"browser_click", {{"ref", "e12"}}},   {"menu_enter", {{"mode", "deploy"}}},
            {"menu_list", json::object()},         {"complete", {{"summary", "done"}}}};
}

// Run the script against masker `m`, returning per turn: the prefix bytes, the tool_choice and
// the visible set the turn was built with.
struct turn_view {
    std::string prefix;
    json tool_choice;
    std::vector<std::string> visible;
};

template <class M>
std::vector<turn_view> run_script(M& m, ak::dialect d, ak::exposure e) {
    ak::exposure_plan plan(m, coding_agent::box.infos(), d, e);
    std::vector<turn_view> turns;
    for (const auto& s : script()) {
        turn_view t;
        t.prefix = plan.prefix_for(m, ak::system_prompt_with(m, host_prompt));
        t.tool_choice = plan.tool_choice_for(m);
        t.visible = m.visible();
        turns.push_back(std::move(t));
        if (auto meta = m.handle_meta(s.tool, s.args)) {
            EXPECT_TRUE(meta->has_value()) << s.tool;
        } else {
            EXPECT_TRUE(m.is_visible(s.tool)) << s.tool << " called while hidden";
            auto out = coding_agent::box.call(s.tool, s.args);
            EXPECT_TRUE(out.has_value()) << s.tool;
            m.observe_call(s.tool, s.args, out.has_value());
        }
    }
    return turns;
}

std::size_t distinct_prefixes(const std::vector<turn_view>& t) {
    std::set<std::string> s;
    for (const auto& x : t) s.insert(x.prefix);
    return s.size();
}

}  // namespace

TEST(Strategy, AllowedToolsKeepsThePrefixByteIdentical) {
    for (auto d : {ak::dialect::openai_responses, ak::dialect::openai_chat}) {
        auto m = coding_agent::make_menu();
        m.bind(coding_agent::box.infos());
        auto turns = run_script(m, d, ak::exposure::allowed_tools);
        ASSERT_EQ(turns.size(), 10U);
        for (std::size_t i = 1; i < turns.size(); ++i) EXPECT_EQ(turns[i].prefix, turns[0].prefix) << "turn " << i;
        // the restriction moves into tool_choice, which lists exactly the visible tools
        std::set<std::string> choices;
        for (const auto& t : turns) {
            ASSERT_EQ(t.tool_choice["type"], "allowed_tools");
            const json& tools = d == ak::dialect::openai_chat ? t.tool_choice["allowed_tools"]["tools"] : t.tool_choice["tools"];
            EXPECT_EQ(d == ak::dialect::openai_chat ? t.tool_choice["allowed_tools"]["mode"] : t.tool_choice["mode"], "auto");
            ASSERT_EQ(tools.size(), t.visible.size());
            for (std::size_t i = 0; i < tools.size(); ++i)
                EXPECT_EQ(d == ak::dialect::openai_chat ? tools[i]["function"]["name"] : tools[i]["name"], t.visible[i]);
            choices.insert(t.tool_choice.dump());
        }
        EXPECT_GE(choices.size(), 4U);  // ROOT, swe, git, browser, deploy
        // every tool is in the prefix: meta-tools and all 91 host tools
        EXPECT_NE(turns[0].prefix.find("\"discover_tools\""), std::string::npos);
        EXPECT_NE(turns[0].prefix.find("\"menu_enter\""), std::string::npos);
    }
}

TEST(Strategy, AnthropicDeferredLoadingKeepsThePrefixByteIdentical) {
    auto m = coding_agent::make_menu();
    m.bind(coding_agent::box.infos());
    ak::exposure_plan plan(m, coding_agent::box.infos(), ak::dialect::anthropic, ak::exposure::deferred_loading);
    const json tools = plan.tools_for(m);
    ASSERT_EQ(tools.size(), 6U + coding_agent::box.size());
    for (const auto& t : tools) {
        const bool meta = ak::detail::contains_name(ak::menu_meta_tool_names, t["name"].get<std::string>());
        EXPECT_EQ(t.contains("defer_loading"), !meta) << t["name"];
    }
    auto turns = run_script(m, ak::dialect::anthropic, ak::exposure::deferred_loading);
    for (std::size_t i = 1; i < turns.size(); ++i) EXPECT_EQ(turns[i].prefix, turns[0].prefix) << "turn " << i;
    for (const auto& t : turns) EXPECT_TRUE(t.tool_choice.is_null());
    // menu_enter loads a mode through tool_reference blocks, kept for this strategy
    auto out = m.enter("data");
    ASSERT_TRUE(out.has_value());
    const auto n = out->content.size();
    plan.adapt(*out);
    EXPECT_EQ(out->content.size(), n);
    EXPECT_EQ(ak::anthropic_tool_reference("fs_copy"), json::parse(R"({"type":"tool_reference","tool_name":"fs_copy"})"));
}

TEST(Strategy, VisibleOnlyChangesThePrefixAndDropsReferences) {
    auto m = coding_agent::make_menu();
    m.bind(coding_agent::box.infos());
    auto turns = run_script(m, ak::dialect::anthropic, ak::exposure::visible_only);
    EXPECT_GE(distinct_prefixes(turns), 4U);
    for (const auto& t : turns) EXPECT_TRUE(t.tool_choice.is_null());
    ak::exposure_plan plan(m, coding_agent::box.infos(), ak::dialect::openai_chat, ak::exposure::visible_only);
    auto out = m.enter("ai");
    ASSERT_TRUE(out.has_value());
    plan.adapt(*out);
    for (const auto& b : out->content) EXPECT_NE(b.type, ak::content_block::kind::tool_reference);
    EXPECT_EQ(plan.tools_for(m).size(), m.visible().size());
}

TEST(Strategy, EffectiveStrategyFollowsTheDialect) {
    using P = ak::exposure_plan;
    EXPECT_EQ(P::effective_for(ak::exposure::deferred_loading, ak::dialect::openai_chat), ak::exposure::allowed_tools);
    EXPECT_EQ(P::effective_for(ak::exposure::allowed_tools, ak::dialect::anthropic), ak::exposure::deferred_loading);
    EXPECT_EQ(P::effective_for(ak::exposure::allowed_tools, ak::dialect::mcp), ak::exposure::visible_only);
    EXPECT_EQ(P::effective_for(ak::exposure::visible_only, ak::dialect::openai_responses), ak::exposure::visible_only);
    EXPECT_EQ(ak::to_string(ak::exposure::allowed_tools), "allowed_tools");
}

TEST(Strategy, OtherMaskersAreStableToo) {
    // The router: searches change the visible set, not the prefix.
    ak::router_options ro;
    ro.k = 3;
    ak::router<> r(ro);
    r.bind(coding_agent::box.infos());
    ak::exposure_plan plan(r, coding_agent::box.infos(), ak::dialect::openai_responses, ak::exposure::allowed_tools);
    const std::string p0 = plan.prefix_for(r, ak::system_prompt_with(r, host_prompt));
    const json c0 = plan.tool_choice_for(r);
    ASSERT_TRUE(r.search("open a pull request", 3).has_value());
    ASSERT_TRUE(r.search("deploy to staging", 3).has_value());
    EXPECT_EQ(plan.prefix_for(r, ak::system_prompt_with(r, host_prompt)), p0);
    EXPECT_NE(plan.tool_choice_for(r), c0);
    // The frozen scope never changes anything.
    ak::frozen_scope f({"Read", "grep"});
    f.bind(coding_agent::box.infos());
    ak::exposure_plan fp(f, coding_agent::box.infos(), ak::dialect::anthropic, ak::exposure::visible_only);
    EXPECT_EQ(fp.tools_for(f).size(), 2U);
}

TEST(Strategy, CataloguesAndSystemPrompt) {
    auto m = coding_agent::make_menu();
    m.bind(coding_agent::box.infos());
    auto all = ak::full_catalogue(m, coding_agent::box.infos());
    EXPECT_EQ(all.size(), 6U + coding_agent::box.size());
    EXPECT_EQ(all[0].name, "menu_list");
    EXPECT_EQ(ak::visible_catalogue(m, coding_agent::box.infos()).size(), 6U);
    const auto sp = ak::system_prompt_with(m, "Host.");
    EXPECT_EQ(sp.rfind("Host.\n\n## Tool menu", 0), 0U);
    EXPECT_EQ(ak::system_prompt_with(ak::all_visible{}, "Host."), "Host.");
    EXPECT_NE(ak::stable_prefix(json::array(), "x"), ak::stable_prefix(json::array({1}), "x"));
}
