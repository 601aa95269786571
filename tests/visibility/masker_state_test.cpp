// Saving and restoring the built-in maskers' conversational state (masker_with_state): a masker
// driven into some state, saved, sent through JSON text and restored into a fresh masker of the
// same configuration behaves as the original did; anything else is refused and changes nothing.
#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include "intent_fixture.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "visibility/coding_agent_toolbox.hpp"
#include "visibility/support.hpp"

namespace ak = agentkit;
using visibility_test::bound_menu;
using visibility_test::found_names;
using ak::json;

namespace {

using menu_t = decltype(coding_agent::make_menu());

static_assert(ak::masker_with_state<menu_t>);
static_assert(ak::masker_with_state<ak::menu_runtime>);
static_assert(ak::masker_with_state<ak::intent_classes<>>);
static_assert(ak::masker_with_state<ak::intent_classes<ak::function_classifier>>);
static_assert(ak::masker_with_state<ak::router<>>);
static_assert(ak::masker_with_state<ak::router<ak::hashed_ngram_embedder>>);
// No conversational state: no hooks.
static_assert(!ak::masker_with_state<ak::all_visible>);
static_assert(!ak::masker_with_state<ak::frozen_scope>);

// What a session would write to disk and read back in another process.
json through_text(const json& j) { return json::parse(j.dump()); }

// A meta-tool result, comparable: its error, or its blocks and structured output.
json outcome(const std::optional<ak::result<ak::tool_output>>& r) {
    if (!r) return "not a meta-tool";
    if (!*r) return json{{"error", r->error().to_json()}};
    json blocks = json::array();
    for (const auto& b : (*r)->content) blocks.push_back(json{{"type", static_cast<int>(b.type)}, {"text", b.text}});
    return json{{"blocks", std::move(blocks)}, {"structured", (*r)->structured ? *(*r)->structured : json()},
                {"is_error", (*r)->is_error}};
}

template <class M>
void expect_same_state(const M& a, const M& b) {
    EXPECT_EQ(a.visible(), b.visible());
    EXPECT_EQ(a.state_message(), b.state_message());
    EXPECT_EQ(a.prompt_section(), b.prompt_section());
    EXPECT_EQ(a.save_state(), b.save_state());
}

// The next meta-tool call gives the same answer on both and leaves them in the same state.
template <class M>
void expect_same_next_call(M& a, M& b, std::string_view name, const json& args) {
    const auto ra = a.handle_meta(name, args);
    const auto rb = b.handle_meta(name, args);
    ASSERT_TRUE(ra.has_value()) << name;
    EXPECT_EQ(outcome(ra), outcome(rb)) << name << " " << args.dump();
    expect_same_state(a, b);
}

// A refused restore: args.invalid, and the masker exactly as it was.
template <class M>
void expect_refused(M& m, const json& saved, std::string_view in_message) {
    const auto visible = m.visible();
    const auto state = m.save_state();
    const auto message = m.state_message();
    const auto version = m.version();
    const auto r = m.restore_state(saved);
    ASSERT_FALSE(r.has_value()) << saved.dump();
    EXPECT_TRUE(r.error().is(ak::errc::args_invalid)) << r.error().to_text();
    EXPECT_NE(r.error().message.find(in_message), std::string::npos) << r.error().message;
    EXPECT_FALSE(r.error().hint.empty());
    EXPECT_EQ(m.visible(), visible);
    EXPECT_EQ(m.save_state(), state);
    EXPECT_EQ(m.state_message(), message);
    EXPECT_EQ(m.version(), version);
}

// A fresh masker's state restored into another fresh one changes nothing, not even the version.
template <class M>
void expect_fresh_round_trip_is_a_no_op(M& a, M& b) {
    const auto v = b.version();
    const auto before = b.visible();
    const auto r = b.restore_state(through_text(a.save_state()));
    ASSERT_TRUE(r.has_value()) << r.error().to_text();
    EXPECT_EQ(b.version(), v);
    EXPECT_EQ(b.visible(), before);
    expect_same_state(a, b);
}


// --- intent_classes fixtures (as in intent_test.cpp) ------------------------------------------
const auto intent_catalogue = intent_fixture::catalogue;
const auto intent_classes_def = intent_fixture::classes;

ak::intent_classes<> bound_intent() {
    ak::intent_options o;
    o.fallback = {"chat"};
    o.always = {"think_hard"};
    ak::intent_classes<> m(intent_classes_def(), o);
    m.bind(intent_catalogue());
    return m;
}

// --- router fixtures --------------------------------------------------------------------------
ak::router_options router_opts() {
    ak::router_options o;
    o.k = 3;
    o.pinned = {"TodoRead"};
    o.learn_from_user_messages = true;
    return o;
}

ak::router<> bound_router(ak::router_options o = router_opts()) {
    ak::router<> r(std::move(o));
    r.bind(coding_agent::box.infos());
    return r;
}


const std::string vague_query = "is the thing we shipped alive";

// A router that learned (from a call) that deploy_status answers vague_query, and surfaced more.
ak::router<> used_router() {
    auto r = bound_router();
    r.on_user_message("check the release");
    auto s = r.handle_meta("tool_search", json{{"query", "deployment status: " + vague_query}});
    EXPECT_TRUE(s && s->has_value());
    EXPECT_EQ(found_names(*s).at(0), "deploy_status");
    r.observe_call("deploy_status", json::object(), true);
    r.on_user_message("now open a PR for it");
    auto pr = r.handle_meta("tool_search", json{{"query", "open a pull request"}});
    EXPECT_TRUE(pr && pr->has_value());
    EXPECT_EQ(found_names(*pr).at(0), "git_create_pr");
    return r;
}

}  // namespace

// --- menu ------------------------------------------------------------------------------------

TEST(MaskerState, MenuComesBackInItsModeAndBehavesTheSame) {
    auto a = bound_menu();
    ASSERT_TRUE(a.handle_meta("menu_enter", json{{"mode", "git"}})->has_value());
    const json saved = through_text(a.save_state());
    EXPECT_EQ(saved, json::parse(R"({"masker":"menu","mode":"git","nudges":0})"));

    auto b = bound_menu();
    std::vector<std::uint64_t> told;
    b.set_on_change([&](std::uint64_t v) { told.push_back(v); });
    const auto v = b.version();
    ASSERT_NE(b.visible(), a.visible());
    const auto r = b.restore_state(saved);
    ASSERT_TRUE(r.has_value()) << r.error().to_text();
    EXPECT_EQ(b.current_mode(), "git");
    EXPECT_GT(b.version(), v);  // the visible set changed: list_changed
    EXPECT_EQ(told, std::vector<std::uint64_t>{b.version()});
    expect_same_state(a, b);
    EXPECT_TRUE(b.is_visible("git_create_pr"));
    // the next calls behave the same: already in git, then back to ROOT
    expect_same_next_call(a, b, "menu_enter", json{{"mode", "git"}});
    expect_same_next_call(a, b, "menu_list", json::object());
    expect_same_next_call(a, b, "menu_exit", json::object());
    EXPECT_EQ(b.current_mode(), "ROOT");
}

TEST(MaskerState, MenuRestoredToRootLeavesTheModeAndMovesTheVersion) {
    auto a = bound_menu();
    auto b = bound_menu();
    ASSERT_TRUE(b.enter("swe").has_value());
    const auto v = b.version();
    ASSERT_TRUE(b.restore_state(through_text(a.save_state())).has_value());
    EXPECT_EQ(b.current_mode(), "ROOT");
    EXPECT_GT(b.version(), v);
    expect_same_state(a, b);
    // the same mode again: no change, no list_changed
    const auto v2 = b.version();
    ASSERT_TRUE(b.restore_state(through_text(a.save_state())).has_value());
    EXPECT_EQ(b.version(), v2);
}

TEST(MaskerState, MenuKeepsTheSpentRootNudges) {
    auto a = bound_menu();
    ASSERT_TRUE(a.dead_end_nudge().has_value());
    ASSERT_TRUE(a.dead_end_nudge().has_value());
    ASSERT_FALSE(a.dead_end_nudge().has_value());  // the budget (2) is spent
    const json saved = through_text(a.save_state());
    EXPECT_EQ(saved.at("nudges"), 2);

    auto b = bound_menu();
    ASSERT_TRUE(b.restore_state(saved).has_value());
    expect_same_state(a, b);
    EXPECT_FALSE(b.dead_end_nudge().has_value());  // a fresh menu would nudge here
    EXPECT_TRUE(bound_menu().dead_end_nudge().has_value());

    auto half = bound_menu();
    ASSERT_TRUE(half.restore_state(json{{"masker", "menu"}, {"mode", "ROOT"}, {"nudges", 1}}).has_value());
    EXPECT_TRUE(half.dead_end_nudge().has_value());
    EXPECT_FALSE(half.dead_end_nudge().has_value());
}

TEST(MaskerState, MenuFreshRoundTripIsANoOp) {
    auto a = bound_menu();
    auto b = bound_menu();
    expect_fresh_round_trip_is_a_no_op(a, b);
    EXPECT_EQ(b.current_mode(), "ROOT");
}

TEST(MaskerState, MenuRefusesAnotherMaskersMalformedOrUnknownState) {
    auto m = bound_menu();
    ASSERT_TRUE(m.enter("data").has_value());
    expect_refused(m, json{{"masker", "router"}, {"mode", "git"}, {"nudges", 0}}, "\"router\"");
    expect_refused(m, bound_router().save_state(), "\"router\" masker's state");
    expect_refused(m, json{{"mode", "git"}, {"nudges", 0}}, "\"masker\"");
    expect_refused(m, json::array({"menu", "git"}), "object");
    expect_refused(m, json{{"masker", "menu"}, {"mode", 3}, {"nudges", 0}}, "\"mode\"");
    expect_refused(m, json{{"masker", "menu"}, {"mode", "git"}}, "\"nudges\"");
    expect_refused(m, json{{"masker", "menu"}, {"mode", "git"}, {"nudges", -1}}, "\"nudges\"");
    expect_refused(m, json{{"masker", "menu"}, {"mode", "git"}, {"nudges", "2"}}, "\"nudges\"");
    expect_refused(m, json{{"masker", "menu"}, {"mode", "gti"}, {"nudges", 0}}, "no mode named \"gti\"");
    expect_refused(m, json{{"masker", "menu"}, {"mode", "GIT"}, {"nudges", 0}}, "\"GIT\"");  // names are exact
    EXPECT_EQ(m.current_mode(), "data");

    // a mode the host left out is not offered, even though it is declared
    ak::menu_options o;
    o.omitted_modes = {"deploy"};
    auto without = bound_menu(o);
    expect_refused(without, json{{"masker", "menu"}, {"mode", "deploy"}, {"nudges", 0}}, "not offered");
}

// --- intent_classes --------------------------------------------------------------------------

TEST(MaskerState, IntentClassesComeBackWithTheirClassesWideningsAndScores) {
    auto a = bound_intent();
    a.on_user_message("open https://example.com/news");
    ASSERT_EQ(a.active_classes(), std::vector<std::string>{"browser"});
    ASSERT_TRUE(a.handle_meta("request_tools", json{{"tools", json::array({"shell_exec"})}})->has_value());
    ASSERT_TRUE(a.handle_meta("request_tools", json{{"classes", json::array({"chat"})}})->has_value());
    const json saved = through_text(a.save_state());
    EXPECT_EQ(saved.at("masker"), "intent_classes");
    EXPECT_EQ(saved.at("active"), json::array({"browser"}));
    EXPECT_EQ(saved.at("extra"), json::array({"chat"}));
    EXPECT_EQ(saved.at("extra_tools"), json::array({"shell_exec"}));
    EXPECT_EQ(saved.at("last_scores").size(), 3U);

    auto b = bound_intent();
    const auto v = b.version();
    ASSERT_NE(b.visible(), a.visible());
    const auto r = b.restore_state(saved);
    ASSERT_TRUE(r.has_value()) << r.error().to_text();
    EXPECT_GT(b.version(), v);
    expect_same_state(a, b);
    EXPECT_EQ(b.active_classes(), a.active_classes());
    EXPECT_EQ(b.last_scores(), a.last_scores());
    EXPECT_TRUE(b.is_visible("shell_exec"));
    EXPECT_FALSE(b.is_visible("file_read"));
    // the next request loads the same tools on both; so does the next message (widening is sticky)
    expect_same_next_call(a, b, "request_tools", json{{"classes", json::array({"local"})}});
    a.on_user_message("tell me a joke");
    b.on_user_message("tell me a joke");
    expect_same_state(a, b);
    expect_same_next_call(a, b, "request_tools", json{{"tools", json::array({"browser_click"})}});
}

TEST(MaskerState, IntentClassesFreshRoundTripIsANoOp) {
    auto a = bound_intent();
    auto b = bound_intent();
    expect_fresh_round_trip_is_a_no_op(a, b);
    EXPECT_EQ(b.active_classes(), std::vector<std::string>{"chat"});
}

TEST(MaskerState, IntentClassesRefuseAnotherMaskersMalformedOrUnknownState) {
    auto m = bound_intent();
    m.on_user_message("read ./notes/todo.md");
    ASSERT_EQ(m.active_classes(), std::vector<std::string>{"local"});
    json good = m.save_state();
    ASSERT_TRUE(bound_intent().restore_state(good).has_value());  // the control: the unchanged state is taken

    expect_refused(m, bound_menu().save_state(), "\"menu\" masker's state");
    auto with = [&](const char* key, json v) {
        json j = good;
        j[key] = std::move(v);
        return j;
    };
    expect_refused(m, with("active", "browser"), "\"active\"");
    expect_refused(m, with("active", json::array({"browser", 1})), "\"active\"");
    expect_refused(m, with("extra", json::array({"chat", "chat"})), "twice");
    expect_refused(m, with("last_scores", json::array({json::array({"chat"})})), "last_scores");
    expect_refused(m, with("last_scores", json::object()), "last_scores");
    json missing = good;
    missing.erase("extra_tools");
    expect_refused(m, missing, "\"extra_tools\"");
    expect_refused(m, with("active", json::array({"browsr"})), "no class named \"browsr\"");
    expect_refused(m, with("extra", json::array({"email"})), "no class named \"email\"");
    expect_refused(m, with("extra_tools", json::array({"file_delete"})), "no tool named \"file_delete\"");
    EXPECT_EQ(m.active_classes(), std::vector<std::string>{"local"});
}

// --- router ----------------------------------------------------------------------------------

TEST(MaskerState, RouterComesBackWithWhatItSurfacedSearchedAndLearned) {
    auto a = used_router();
    const json saved = through_text(a.save_state());
    EXPECT_EQ(saved.at("masker"), "router");
    EXPECT_EQ(saved.at("surfaced").at(0), "git_create_pr");  // most recently used first
    EXPECT_EQ(saved.at("learned").at("deploy_status"),
              json::array({"deployment status: " + vague_query, "check the release"}));
    EXPECT_EQ(saved.at("searches").size(), 2U);
    EXPECT_EQ(saved.at("searches").at(0).at("credited"), json::array({"deploy_status"}));
    EXPECT_EQ(saved.at("last_user_message"), "now open a PR for it");

    auto b = bound_router();
    std::size_t told = 0;
    b.set_on_change([&](std::uint64_t) { ++told; });
    const auto v = b.version();
    const auto r = b.restore_state(saved);
    ASSERT_TRUE(r.has_value()) << r.error().to_text();
    EXPECT_GT(b.version(), v);
    EXPECT_EQ(told, 1U);
    expect_same_state(a, b);
    EXPECT_EQ(b.surfaced(), a.surfaced());
    EXPECT_EQ(b.learned(), a.learned());
    EXPECT_EQ(b.examples(), a.examples());

    // What was learned ranks the same: the vague query finds deploy_status on both (a fresh
    // router does not rank it first).
    auto fresh = bound_router();
    const auto cold = fresh.search(vague_query, 1);
    ASSERT_TRUE(cold.has_value());
    ASSERT_TRUE(found_names(cold).empty() || found_names(cold)[0] != "deploy_status");
    expect_same_next_call(a, b, "tool_search", json{{"query", vague_query}, {"k", 1}});
    EXPECT_EQ(b.surfaced().at(0), "deploy_status");  // what that search found

    // The restored searches are credited as the original's: a call of the tool the PR search
    // found teaches that query and the user's message of the moment, on both.
    a.observe_call("git_create_pr", json::object(), true);
    b.observe_call("git_create_pr", json::object(), true);
    ASSERT_EQ(b.learned().count("git_create_pr"), 1U);
    EXPECT_EQ(b.learned().at("git_create_pr"), (std::vector<std::string>{"open a pull request", "now open a PR for it"}));
    expect_same_state(a, b);
    EXPECT_EQ(b.examples(), a.examples());
}

TEST(MaskerState, RouterDoesNotLearnTwiceWhatTheHostGaveBackAsExamples) {
    auto a = used_router();
    // The host kept what on_learn told it (a usage_log) and gives it back to the next router.
    auto o = router_opts();
    for (const auto& [tool, texts] : a.learned()) o.examples[tool] = texts;
    std::vector<std::string> relearned;
    o.on_learn = [&](const std::string&, const std::string& q) { relearned.push_back(q); };
    auto b = bound_router(o);
    ASSERT_TRUE(b.restore_state(through_text(a.save_state())).has_value());
    EXPECT_EQ(b.examples(), a.examples());  // each example once
    EXPECT_EQ(b.learned(), a.learned());
    EXPECT_TRUE(relearned.empty());  // a restore is not learning
}

TEST(MaskerState, RouterRestoreReplacesWhatItHadLearned) {
    auto a = bound_router();
    auto b = used_router();
    ASSERT_FALSE(b.learned().empty());
    ASSERT_TRUE(b.restore_state(through_text(a.save_state())).has_value());
    EXPECT_TRUE(b.learned().empty());
    EXPECT_EQ(b.examples(), a.examples());
    EXPECT_TRUE(b.surfaced().empty());
    expect_same_state(a, b);
    expect_same_next_call(a, b, "tool_search", json{{"query", vague_query}, {"k", 2}});
}

TEST(MaskerState, RouterFreshRoundTripIsANoOp) {
    auto a = bound_router();
    auto b = bound_router();
    expect_fresh_round_trip_is_a_no_op(a, b);
    EXPECT_EQ(b.visible(), (std::vector<std::string>{"tool_search", "TodoRead"}));
}

TEST(MaskerState, RouterRefusesAnotherMaskersMalformedOrUnknownState) {
    auto m = used_router();
    const json good = m.save_state();
    ASSERT_TRUE(bound_router().restore_state(good).has_value());  // the control

    expect_refused(m, bound_intent().save_state(), "\"intent_classes\" masker's state");
    expect_refused(m, json("router"), "object");
    auto with = [&](const char* key, json v) {
        json j = good;
        j[key] = std::move(v);
        return j;
    };
    expect_refused(m, with("surfaced", "git_create_pr"), "\"surfaced\"");
    expect_refused(m, with("last_user_message", nullptr), "\"last_user_message\"");
    expect_refused(m, with("learned", json::array()), "\"learned\"");
    expect_refused(m, with("learned", json{{"deploy_status", "x"}}), "\"deploy_status\"");
    expect_refused(m, with("learned", json{{"deploy_status", json::array({"  "})}}), "empty example");
    expect_refused(m, with("searches", json::array({json{{"query", "q"}, {"user_message", ""}, {"hits", json::array()}}})),
                   "\"credited\"");
    expect_refused(m, with("searches", json::array({"q"})), "searches[0]");
    expect_refused(m, with("surfaced", json::array({"git_create_pr", "git_push_force"})), "\"git_push_force\"");
    expect_refused(m, with("learned", json{{"git_push_force", json::array({"push it"})}}), "\"git_push_force\"");
    json bad_hit = good;
    bad_hit["searches"][1]["hits"].push_back("git_push_force");
    expect_refused(m, bad_hit, "searches[1]");
    EXPECT_EQ(m.surfaced().at(0), "git_create_pr");
}

// --- other instantiations ------------------------------------------------------------------------

TEST(MaskerState, HybridRouterAndHostClassifierRoundTripToo) {
    auto make_hybrid = [] {
        ak::router<ak::hashed_ngram_embedder> r(router_opts(), {});
        r.bind(coding_agent::box.infos());
        return r;
    };
    auto a = make_hybrid();
    ASSERT_TRUE(a.handle_meta("tool_search", json{{"query", "open a pull request"}})->has_value());
    a.observe_call("git_create_pr", json::object(), true);
    auto b = make_hybrid();
    ASSERT_TRUE(b.restore_state(through_text(a.save_state())).has_value());
    expect_same_state(a, b);
    EXPECT_EQ(b.examples(), a.examples());
    expect_same_next_call(a, b, "tool_search", json{{"query", "open a pull request"}});

    auto make_intent = [] {
        ak::intent_options o;
        o.fallback = {"chat"};
        ak::intent_classes<ak::function_classifier> m(
            intent_classes_def(), o, ak::function_classifier([](std::string_view t) {
                return t.find("file") != std::string_view::npos ? std::vector<std::string>{"local"} : std::vector<std::string>{};
            }));
        m.bind(intent_catalogue());
        return m;
    };
    auto x = make_intent();
    x.on_user_message("read the file");
    auto y = make_intent();
    ASSERT_NE(y.visible(), x.visible());
    ASSERT_TRUE(y.restore_state(through_text(x.save_state())).has_value());
    expect_same_state(x, y);
    EXPECT_TRUE(y.is_visible("file_read"));
}
