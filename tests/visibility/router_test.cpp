#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "visibility/coding_agent_toolbox.hpp"

namespace ak = agentkit;
using ak::json;

namespace {
bool has(const std::vector<std::string>& v, std::string_view s) { return std::find(v.begin(), v.end(), s) != v.end(); }

ak::router_options opts(std::size_t k, std::vector<std::string> pinned = {}, std::size_t max_visible = 24) {
    ak::router_options o;
    o.k = k;
    o.pinned = std::move(pinned);
    o.max_visible = max_visible;
    return o;
}

std::vector<std::string> found_names(const ak::tool_output& o) {
    std::vector<std::string> out;
    for (const auto& t : o.structured->at("tools")) out.push_back(t.at("name").get<std::string>());
    return out;
}
}  // namespace

static_assert(ak::masker<ak::router<>>);
static_assert(ak::masker<ak::router<ak::hashed_ngram_embedder>>);

TEST(Router, SearchSurfacesToolsForTheFollowingTurns) {
    ak::router<> r(opts(3, {"TodoRead"}));
    r.bind(coding_agent::box.infos());
    EXPECT_EQ(r.visible(), (std::vector<std::string>{"tool_search", "TodoRead"}));
    EXPECT_FALSE(r.is_visible("git_create_pr"));
    const auto v0 = r.version();
    auto out = r.handle_meta("tool_search", json{{"query", "open a pull request"}});
    ASSERT_TRUE(out && out->has_value()) << out->error().to_text();
    auto names = found_names(**out);
    ASSERT_EQ(names.size(), 3U);
    EXPECT_EQ(names[0], "git_create_pr");
    EXPECT_TRUE(r.is_visible("git_create_pr"));
    EXPECT_GT(r.version(), v0);
    std::size_t refs = 0;
    for (const auto& b : (*out)->content) refs += b.type == ak::content_block::kind::tool_reference ? 1 : 0;
    EXPECT_EQ(refs, 3U);
    EXPECT_NE(r.state_message().find("git_create_pr"), std::string::npos);
}

TEST(Router, FindsSeedToolsFromNaturalRequests) {
    ak::router<> r;
    r.bind(coding_agent::box.infos());
    auto first = [&](std::string q) {
        auto o = r.search(q, 3);
        return o.has_value() && o->structured ? found_names(*o) : std::vector<std::string>{};
    };
    EXPECT_TRUE(has(first("take a screenshot of the page"), "browser_screenshot"));
    EXPECT_TRUE(has(first("roll back the last release"), "rollback"));
    EXPECT_TRUE(has(first("translate this paragraph to German"), "translate_text"));
    EXPECT_TRUE(has(first("run sql on a csv file"), "csv_query"));
    EXPECT_TRUE(has(first("show CI logs of the failing job"), "git_ci_job_logs"));
}

TEST(Router, ExactToolNameGoesFirst) {
    ak::router<> r(opts(2));
    r.bind(coding_agent::box.infos());
    auto o = r.search("fs_copy", 2);
    ASSERT_TRUE(o.has_value());
    EXPECT_EQ(found_names(*o)[0], "fs_copy");
}

TEST(Router, VisibleSetIsBoundedLeastRecentlyUsedFirstOut) {
    ak::router<> r(opts(3, {}, 4));
    r.bind(coding_agent::box.infos());
    ASSERT_TRUE(r.search("git commit", 3).has_value());
    ASSERT_TRUE(r.search("deploy the service", 3).has_value());
    EXPECT_EQ(r.surfaced().size(), 4U);
    EXPECT_EQ(r.visible().size(), 5U);
    r.observe_call(r.surfaced().back(), json::object(), true);  // a used tool moves to the front
    const auto used = r.surfaced().front();
    ASSERT_TRUE(r.search("translate text", 3).has_value());
    EXPECT_TRUE(r.is_visible(used));
}

TEST(Router, LearnsFromSuccessfulCalls) {
    ak::router<> r(opts(1));
    r.bind(coding_agent::box.infos());
    const std::string q = "tell me whether prod is healthy";
    auto before = r.search(q, 1);
    ASSERT_TRUE(before.has_value());
    const bool already = before->structured && !found_names(*before).empty() && found_names(*before)[0] == "deploy_status";
    ASSERT_FALSE(already);
    // the model searched differently, found deploy_status and used it successfully
    auto o = r.search("deployment state", 3);
    ASSERT_TRUE(o.has_value());
    ASSERT_TRUE(has(found_names(*o), "deploy_status"));
    r.observe_call("deploy_status", json{{"id", "api"}}, true);
    r.observe_call("deploy_status", json{{"id", "api"}}, true);  // credited once
    EXPECT_EQ(r.examples().at("deploy_status").size(), 1U);
    // a failed call teaches nothing
    r.observe_call("rollback", json::object(), false);
    EXPECT_EQ(r.examples().count("rollback"), 0U);
    r.learn("deploy_status", q);
    auto after = r.search(q, 1);
    ASSERT_TRUE(after.has_value());
    EXPECT_EQ(found_names(*after)[0], "deploy_status");
}

TEST(Router, PersistedExamplesRouteBetterFromTheStart) {
    ak::router<> cold;
    cold.bind(coding_agent::box.infos());
    ak::router_options o;
    o.examples["visual_checker"] = {"does the page look right", "check the layout looks correct"};
    ak::router<> warm(o);
    warm.bind(coding_agent::box.infos());
    const std::string q = "does the layout look right";
    auto c = cold.search(q, 1);
    auto w = warm.search(q, 1);
    ASSERT_TRUE(w.has_value());
    EXPECT_EQ(found_names(*w)[0], "visual_checker");
    EXPECT_TRUE(!c->structured || found_names(*c)[0] != "visual_checker");
}

TEST(Router, HiddenAndInvalidCalls) {
    ak::router<> r;
    r.bind(coding_agent::box.infos());
    auto h = r.answer_hidden("git_log");
    ASSERT_FALSE(h.has_value());
    EXPECT_EQ(h.error().code, ak::errc::tool_masked);
    EXPECT_NE(h.error().hint.find("tool_search"), std::string::npos);
    auto u = r.answer_hidden("git_lgo");
    ASSERT_FALSE(u.has_value());
    EXPECT_EQ(u.error().code, ak::errc::tool_unknown);
    auto bad = r.handle_meta("tool_search", json{{"query", "  "}});
    ASSERT_TRUE(bad.has_value());
    EXPECT_FALSE(bad->has_value());
    auto nothing = r.search("xylophone zeppelin", 3);
    ASSERT_TRUE(nothing.has_value());
    EXPECT_NE(nothing->joined_text().find("No tool matches"), std::string::npos);
    auto k = r.handle_meta("tool_search", json{{"query", "git"}, {"k", 1000}});
    ASSERT_TRUE(k && k->has_value());
    EXPECT_LE(found_names(**k).size(), r.options().max_k);
    ak::router<> unbound;
    EXPECT_FALSE(unbound.search("x", 1).has_value());
}

TEST(Router, HybridRouterWorksAsAMasker) {
    ak::router<ak::hashed_ngram_embedder> r(opts(3), ak::hashed_ngram_embedder(128));
    r.bind(coding_agent::box.infos());
    auto o = r.search("screenshoot the page", 3);  // misspelled
    ASSERT_TRUE(o.has_value());
    EXPECT_TRUE(has(found_names(*o), "browser_screenshot"));
}
