#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ak = agentkit;
using ak::json;

namespace {
ak::frozen_scope_options fopts(std::string scope, bool is_error = false, bool describe = false) {
    ak::frozen_scope_options o;
    o.scope = std::move(scope);
    o.deferred_is_error = is_error;
    o.describe_deferred_in_prompt = describe;
    return o;
}
std::vector<ak::tool_info> frozen_catalogue() {
    std::vector<ak::tool_info> c(3);
    c[0].name = "browser_snapshot";
    c[1].name = "browser_click_ref";
    c[2].name = "browser_evaluate";  // implemented but not in the frozen surface
    return c;
}
ak::frozen_scope scope() {
    return ak::frozen_scope({"browser_snapshot", "browser_click_ref"},
                            {{"browser_navigate", "CLI already covers this; an MCP duplicate adds attack surface",
                              "agbrowse navigate <url>", "playwright-mcp:browser_navigate", "phase22", ""},
                             {"browser_type_ref", "input validation surface still hardening", "agbrowse type <ref> --text \"...\"",
                              "playwright-mcp:browser_type", "", ""}},
                            fopts("browser"));
}
}  // namespace

TEST(FrozenScope, ExposesAFixedSet) {
    auto s = scope();
    s.bind(frozen_catalogue());
    EXPECT_EQ(s.visible(), (std::vector<std::string>{"browser_snapshot", "browser_click_ref"}));
    EXPECT_FALSE(s.is_visible("browser_evaluate"));
    EXPECT_TRUE(s.meta_tools().empty());
    const auto v = s.version();
    EXPECT_FALSE(s.handle_meta("browser_snapshot", json::object()).has_value());
    EXPECT_EQ(s.version(), v);
    EXPECT_TRUE(s.problems().empty());
}

TEST(FrozenScope, DeferredToolAnswersWithTheEnvelopeAsANormalResult) {
    auto s = scope();
    s.bind(frozen_catalogue());
    auto r = s.answer_hidden("browser_navigate");
    ASSERT_TRUE(r.has_value()) << "a deferred tool is a normal result, not an error";
    EXPECT_FALSE(r->is_error);
    const json& j = *r->structured;
    EXPECT_EQ(j["error"], "capability.unsupported");
    EXPECT_EQ(j["error"], std::string(ak::errc::capability_unsupported));
    EXPECT_EQ(j["ok"], false);
    EXPECT_EQ(j["tool"], "browser_navigate");
    EXPECT_EQ(j["alternative"], "agbrowse navigate <url>");
    EXPECT_EQ(j["reference"], "playwright-mcp:browser_navigate");
    EXPECT_EQ(j["since"], "phase22");
    EXPECT_EQ(j["scope"], "browser");
    const std::string text = r->content.front().text;
    EXPECT_EQ(text.rfind("capability.unsupported: browser_navigate", 0), 0U);
    EXPECT_NE(text.find("Use instead: agbrowse navigate <url>."), std::string::npos);
    EXPECT_EQ(r->content.size(), 2U);
    EXPECT_EQ(r->content[1].type, ak::content_block::kind::structured);
}

TEST(FrozenScope, OtherHiddenNamesAreUnknown) {
    auto s = scope();
    s.bind(frozen_catalogue());
    auto r = s.answer_hidden("browser_evaluate");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ak::errc::tool_unknown);
    auto close = s.answer_hidden("browser_snapshto");
    ASSERT_FALSE(close.has_value());
    EXPECT_EQ(close.error().details["candidates"][0], "browser_snapshot");
}

TEST(FrozenScope, OptionsAndDecisionRecord) {
    ak::frozen_scope s({"browser_snapshot", "ghost"}, {{"browser_snapshot", "x", "y", "z", "", ""}},
                       fopts("", true, true));
    s.bind(frozen_catalogue());
    EXPECT_EQ(s.problems().size(), 2U);  // ghost unknown; snapshot both exposed and deferred
    EXPECT_NE(s.prompt_section().find("browser_snapshot: y"), std::string::npos);
    auto env = ak::capability_unsupported(s.deferred()[0], "", true);
    EXPECT_TRUE(env.is_error);
    EXPECT_FALSE(env.structured->contains("scope"));
    EXPECT_EQ(scope().deferred_json().size(), 2U);
    EXPECT_EQ(scope().deferred_json()[1]["tool"], "browser_type_ref");
}
