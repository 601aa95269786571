#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace ak = agentkit;
using ak::json;
using ak::provider;

namespace {

struct key_args {
    std::string key;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(key_args, key, "Key", ak::min_length(1))); }
};

std::atomic<int> lookups{0};
std::mutex order_mu;
std::vector<std::string> order;

/// Two callers meet here; each returns whether the other arrived within the timeout (proof
/// that they ran at the same time — no sleeps involved).
struct rendezvous {
    std::mutex mu;
    std::condition_variable cv;
    int arrived = 0;
    bool meet(int expected) {
        std::unique_lock lock(mu);
        ++arrived;
        cv.notify_all();
        return cv.wait_for(lock, std::chrono::seconds(10), [&] { return arrived >= expected; });
    }
};
rendezvous meet_point;

const auto lookup = ak::tool<"lookup">(
    "Look a key up.",
    [](const key_args& a) {
        ++lookups;
        if (a.key == "meet") return std::string(meet_point.meet(2) ? "met" : "alone");
        return "value of " + a.key;
    },
    ak::read_only | ak::parallel_safe);

const auto write = ak::tool<"write">("Write a key.", [](const key_args& a) {
    std::lock_guard lock(order_mu);
    order.push_back(a.key);
    return "Typed \"" + a.key + "\".";
});

const auto broken = ak::tool<"broken">("Always fails.", [](const key_args& a) -> ak::result<std::string> {
    return ak::fail(ak::errc::not_found, "nothing at " + a.key, "Try another key.");
});

const auto big = ak::tool<"read_page">("A long page.", [](const key_args&) {
    std::string s;
    for (int i = 0; i < 2000; ++i) s += "paragraph " + std::to_string(i) + " of a long page\n";
    return s;
}, ak::read_only);

const auto shot = ak::tool<"screenshot">("A screenshot.", [](const key_args&) {
    ak::tool_output o = ak::tool_output::text("shot taken");
    o.add_image(std::string(400, 'A'), "image/png");
    return o;
}, ak::read_only);

const auto secret = ak::tool<"secret">("Hidden until unlocked.", [](const key_args& a) { return "secret " + a.key; });

auto make_tools() { return ak::toolbox{lookup, write, broken, big, shot, secret}; }

/// A small masker: `secret` is hidden until the meta-tool `unlock` is called; one ROOT-style
/// nudge on the first prose answer.
class test_masker {
public:
    ak::exposure preferred = ak::exposure::visible_only;
    bool nudge_enabled = true;
    bool references = false;  ///< unlock's result carries a tool_reference block
    int errors_seen = 0;

    void bind(const std::vector<ak::tool_info>& c) {
        names_.clear();
        for (const auto& t : c) names_.push_back(t.name);
    }
    [[nodiscard]] std::vector<ak::tool_info> meta_tools() const {
        ak::tool_info t;
        t.name = "unlock";
        t.description = "Unlock the secret tool.";
        t.input_schema = json{{"type", "object"}, {"properties", json::object()}};
        return {t};
    }
    [[nodiscard]] bool is_visible(std::string_view n) const {
        if (n == "unlock") return true;
        if (n == "secret") return unlocked_;
        for (const auto& x : names_)
            if (x == n) return true;
        return false;
    }
    [[nodiscard]] std::vector<std::string> visible() const {
        std::vector<std::string> v{"unlock"};
        for (const auto& x : names_)
            if (is_visible(x)) v.push_back(x);
        return v;
    }
    [[nodiscard]] std::string prompt_section() const { return "Call unlock to reach the secret tool."; }
    [[nodiscard]] std::string state_message() const { return unlocked_ ? "[STATE] unlocked" : "[STATE] locked"; }
    [[nodiscard]] std::optional<ak::result<ak::tool_output>> handle_meta(std::string_view n, const json&) {
        if (n != "unlock") return std::nullopt;
        unlocked_ = true;
        ++version_;
        auto o = ak::tool_output::text("unlocked");
        if (references) o.content.push_back(ak::content_block::make_tool_reference("secret"));  // as the menu's menu_enter does
        return ak::result<ak::tool_output>(std::move(o));
    }
    [[nodiscard]] ak::result<ak::tool_output> answer_hidden(std::string_view n) const {
        if (n == "secret") return ak::fail(ak::errc::tool_masked, "secret is locked", "Call unlock first.");
        return ak::fail(ak::errc::tool_unknown, "no tool named \"" + std::string(n) + "\"", "Call one of the listed tools.");
    }
    void observe_call(std::string_view, const json&, bool ok) {
        if (!ok) ++errors_seen;
    }
    [[nodiscard]] std::uint64_t version() const noexcept { return version_; }
    [[nodiscard]] ak::exposure exposure() const noexcept { return preferred; }
    [[nodiscard]] std::optional<std::string> on_prose_answer() {
        if (!nudge_enabled || nudged_) return std::nullopt;
        nudged_ = true;
        return std::string("You answered in prose; call a tool or complete.");
    }
    [[nodiscard]] std::optional<std::string> on_tool_error(std::string_view name, const ak::error&) {
        return "masker says: " + std::string(name) + " failed";
    }

private:
    std::vector<std::string> names_;
    bool unlocked_ = false;
    bool nudged_ = false;
    std::uint64_t version_ = 0;
};
static_assert(ak::masker<test_masker>);

ak::session_options quiet() {
    ak::session_options o;
    o.speculative = true;
    return o;
}

std::string result_text(const ak::message& m, std::size_t i) { return m.results.at(i).output.joined_text(); }

class AllProviders : public ::testing::TestWithParam<provider> {};

}  // namespace

TEST_P(AllProviders, RunsToCompletionAndReports) {
    ak::agent_session s{make_tools(), ak::all_visible{}, ak::compact_formatter{}, quiet()};
    ak::scripted_model m(GetParam(), {
        ak::script::call({{"lookup", {{"key", "alpha"}}}, {"lookup", {{"key", "beta"}}}}),
        ak::script::call({{"complete", {{"result", "alpha and beta looked up"}, {"summary", {"looked up 2 keys"}}}}}),
    });
    auto r = s.run(m, "Look up alpha and beta.");
    ASSERT_EQ(r.reason, ak::stop_reason::completed) << (r.error ? r.error->to_text() : "");
    EXPECT_EQ(r.final_text, "alpha and beta looked up");
    EXPECT_EQ(r.steps, 2u);
    ASSERT_EQ(s.history().size(), 5u);  // task, calls, results, complete, its result
    EXPECT_EQ(result_text(s.history()[2], 0), "value of alpha");
    EXPECT_EQ(result_text(s.history()[2], 1), "value of beta");
    // The second request carries the first turn's results in the provider's own format.
    const std::string second = m.requests().at(1).dump();
    EXPECT_NE(second.find("value of beta"), std::string::npos);
    const char* marker = GetParam() == provider::anthropic     ? "\"tool_result\""
                         : GetParam() == provider::openai_chat ? "\"role\":\"tool\""
                                                               : "function_call_output";
    EXPECT_NE(second.find(marker), std::string::npos);
    const ak::report rep = s.make_report();
    const std::string text = ak::render_report(rep);
    EXPECT_EQ(text.rfind("Result: alpha and beta looked up\nSummary:\n- looked up 2 keys\n- completed after 2 model turns", 0), 0u) << text;
    EXPECT_NE(text.find("session_id: " + s.session_id()), std::string::npos);
    EXPECT_EQ(s.metrics().round_trips, 2u);
    EXPECT_EQ(s.metrics().tool_calls, 3u);
    EXPECT_GT(s.metrics().usage.input_tokens, 0u);
}

TEST_P(AllProviders, FinalAnswerWithoutToolsEndsTheRun) {
    ak::agent_session s{make_tools()};
    ak::scripted_model m(GetParam(), {ak::script::say("It is 42.")});
    auto r = s.run(m, "What is the answer?");
    EXPECT_EQ(r.reason, ak::stop_reason::answered);
    EXPECT_EQ(r.final_text, "It is 42.");
    EXPECT_TRUE(s.done());
    EXPECT_TRUE(s.make_report().answered);
}

TEST_P(AllProviders, MalformedArgumentsBecomeAnErrorResult) {
    ak::agent_session s{make_tools()};
    const int before = lookups.load();
    ak::scripted_model m(GetParam(), {
        ak::script::call({{"lookup", json::object(), std::string("{\"key\": \"unterminated")}}),
        ak::script::say("gave up"),
    });
    auto r = s.run(m, "go");
    EXPECT_EQ(r.reason, ak::stop_reason::answered);
    EXPECT_EQ(lookups.load(), before);  // the tool never ran
    const auto& res = s.history().at(2).results.at(0);
    EXPECT_TRUE(res.output.is_error);
    EXPECT_NE(res.output.joined_text().find("args.malformed"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Providers, AllProviders,
                         ::testing::Values(provider::anthropic, provider::openai_chat, provider::openai_responses),
                         [](const auto& param_info) { return std::string(ak::to_string(param_info.param)); });

TEST(Session, ParallelSafeCallsRunConcurrently) {
    ak::agent_session s{make_tools()};
    meet_point.arrived = 0;
    auto out = s.accept(provider::openai_chat, json::parse(R"({"choices":[{"message":{"role":"assistant","content":null,
        "tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{\"key\":\"meet\"}"}},
                      {"id":"c2","type":"function","function":{"name":"lookup","arguments":"{\"key\":\"meet\"}"}}]},
        "finish_reason":"tool_calls"}]})"));
    ASSERT_TRUE(out);
    const auto& results = s.history().back().results;
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].output.joined_text(), "met");
    EXPECT_EQ(results[1].output.joined_text(), "met");
    EXPECT_TRUE(s.metrics().turns.back().tools[0].parallel);
}

TEST(Session, OtherCallsRunInOrder) {
    ak::session_options o;
    ak::agent_session s{make_tools(), ak::all_visible{}, ak::compact_formatter{}, o};
    {
        std::lock_guard lock(order_mu);
        order.clear();
    }
    ak::scripted_model m(provider::anthropic, {
        ak::script::call({{"write", {{"key", "one"}}}, {"lookup", {{"key", "x"}}}, {"write", {{"key", "two"}}}, {"write", {{"key", "three"}}}}),
        ak::script::say("done"),
    });
    (void)s.run(m, "write");
    EXPECT_EQ(order, (std::vector<std::string>{"one", "two", "three"}));
    EXPECT_EQ(result_text(s.history()[2], 0), "Typed \"one\".");
}

test_masker quiet_masker() {
    test_masker m;
    m.nudge_enabled = false;
    return m;
}

TEST(Session, MetaToolsAndHiddenTools) {
    ak::agent_session s{make_tools(), quiet_masker(), ak::compact_formatter{}};
    ak::scripted_model m(provider::anthropic, {
        ak::script::call({{"secret", {{"key", "k"}}}}),
        ak::script::call({{"unlock"}, {"secret", {{"key", "k"}}}}),
        ak::script::say("secret obtained"),
    });
    auto r = s.run(m, "get the secret");
    EXPECT_EQ(r.reason, ak::stop_reason::answered);
    const auto& first = s.history()[2].results[0];
    EXPECT_TRUE(first.output.is_error);
    EXPECT_NE(first.output.joined_text().find("Call unlock first."), std::string::npos);
    EXPECT_EQ(result_text(s.history()[4], 0), "unlocked");
    EXPECT_EQ(result_text(s.history()[4], 1), "secret k");
    // The state message rides at the end of each request; the masker section is in the system prompt.
    const json& req1 = m.requests()[0];
    EXPECT_EQ(req1["messages"].back()["content"].back()["text"], "[STATE] locked");
    EXPECT_NE(req1["system"][0]["text"].get<std::string>().find("Call unlock to reach the secret tool."), std::string::npos);
    EXPECT_EQ(m.requests()[2]["messages"].back()["content"].back()["text"], "[STATE] unlocked");
    // visible_only: the locked tool is not in the first request, and is in the last.
    EXPECT_EQ(req1.dump().find("\"name\":\"secret\""), std::string::npos);
    EXPECT_NE(m.requests()[2].dump().find("\"name\":\"secret\""), std::string::npos);
}

TEST(Session, ProseNudgeThenAnswer) {
    ak::agent_session s{make_tools(), test_masker{}, ak::compact_formatter{}};
    ak::scripted_model m(provider::openai_chat, {ak::script::say("I cannot browse."), ak::script::say("Actually: 42")});
    auto r = s.run(m, "task");
    EXPECT_EQ(r.reason, ak::stop_reason::answered);
    EXPECT_EQ(r.final_text, "Actually: 42");
    EXPECT_EQ(r.steps, 2u);
    EXPECT_EQ(s.metrics().nudges, 1u);
    EXPECT_NE(m.requests()[1].dump().find("You answered in prose"), std::string::npos);
}

TEST(Session, RetryGuidanceAfterRepeatedFailure) {
    ak::agent_session s{make_tools(), quiet_masker(), ak::compact_formatter{}};
    ak::scripted_model m(provider::anthropic, {
        ak::script::call({{"broken", {{"key", "a"}}}}),
        ak::script::call({{"broken", {{"key", "a"}}}}),
        ak::script::say("stop"),
    });
    (void)s.run(m, "t");
    const std::string once = result_text(s.history()[2], 0);
    const std::string twice = result_text(s.history()[4], 0);
    EXPECT_NE(once.find("error[not_found]: nothing at a Hint: Try another key."), std::string::npos) << once;
    EXPECT_EQ(once.find("Retry guidance"), std::string::npos);
    EXPECT_NE(twice.find("failed 2 times"), std::string::npos) << twice;
    EXPECT_NE(twice.find("masker says: broken failed"), std::string::npos);
    EXPECT_EQ(s.get_masker().errors_seen, 2);
    EXPECT_EQ(s.metrics().tool_errors, 2u);
    EXPECT_NE(ak::render_report(s.make_report()).find("last tool error"), std::string::npos);
}

TEST(Session, SpeculativeExecutionUsesMatchingResults) {
    ak::agent_session s{make_tools()};
    const int before = lookups.load();
    EXPECT_TRUE(s.speculate(provider::anthropic, json::parse(
        R"({"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"lookup","input":{"key":"alpha"}})")));
    // A read-only call that the final response does not contain is discarded.
    EXPECT_TRUE(s.speculate(provider::anthropic, json::parse(R"({"type":"tool_use","id":"toolu_9","name":"lookup","input":{"key":"zzz"}})")));
    auto out = s.accept(provider::anthropic, json::parse(fixtures::anthropic_tool_use));
    ASSERT_TRUE(out);
    EXPECT_EQ(lookups.load(), before + 3);  // alpha once (speculatively), zzz once, beta once
    const auto& tm = s.metrics().turns.back();
    EXPECT_EQ(tm.speculative_used, 1u);
    EXPECT_EQ(tm.speculative_discarded, 1u);
    EXPECT_TRUE(tm.tools[0].speculative);
    EXPECT_FALSE(tm.tools[1].speculative);
    EXPECT_EQ(s.history().back().results[0].output.joined_text(), "value of alpha");
    EXPECT_NE(tm.log_line().find("spec=1/2"), std::string::npos) << tm.log_line();
}

TEST(Session, SpeculationStopsAtTheFirstCallWithEffects) {
    ak::agent_session s{make_tools()};
    EXPECT_FALSE(s.speculate(provider::openai_responses, json::parse(
        R"({"type":"function_call","call_id":"c1","name":"write","arguments":"{\"key\":\"k\"}"})")));
    // After a call with effects, a read-only call must wait: it may depend on the write.
    EXPECT_FALSE(s.speculate(provider::openai_responses, json::parse(
        R"({"type":"function_call","call_id":"c2","name":"lookup","arguments":"{\"key\":\"k\"}"})")));
    ak::agent_session s2{make_tools()};
    EXPECT_FALSE(s2.speculate(provider::openai_chat, json::parse(R"({"id":"c1","type":"function","function":{"name":"lookup","arguments":"{bad"}})")));
}

TEST(Session, StepLimitStopsWithoutAnAnswer) {
    ak::agent_session s{make_tools()};
    ak::scripted_model m(provider::anthropic, {});
    for (int i = 0; i < 10; ++i) m.then(ak::script::call({{"lookup", {{"key", "k" + std::to_string(i)}}}}));
    ak::run_limits lim;
    lim.max_steps = 3;
    auto r = s.run(m, "loop", lim);
    EXPECT_EQ(r.reason, ak::stop_reason::step_limit);
    EXPECT_EQ(r.steps, 3u);
    EXPECT_EQ(m.requests().size(), 3u);
    const std::string rep = ak::render_report(s.make_report());
    EXPECT_EQ(rep.rfind("Result: (no final answer: stopped: step limit)", 0), 0u) << rep;
}

TEST(Session, TokenLimit) {
    ak::agent_session s{make_tools()};
    ak::scripted_model m(provider::openai_chat, {});
    for (int i = 0; i < 10; ++i) m.then(ak::script::call({{"read_page", {{"key", "p"}}}}));
    ak::run_limits lim;
    lim.max_tokens = 5000;
    auto r = s.run(m, "read", lim);
    EXPECT_EQ(r.reason, ak::stop_reason::token_limit);
    EXPECT_LT(r.steps, 10u);
    EXPECT_GE(s.metrics().usage.input_tokens + s.metrics().usage.output_tokens, 5000u);
}

TEST(Session, RetriesRetryableErrorsThenSucceeds) {
    ak::agent_session s{make_tools()};
    ak::scripted_model m(provider::anthropic, {
        ak::script::respond_raw(json::parse(fixtures::anthropic_overloaded)),
        ak::script::fail_with(ak::parse_error(provider::anthropic, 429, fixtures::anthropic_rate_limit)),
        ak::script::say("fine"),
    });
    ak::run_limits lim;
    lim.retry_backoff = std::chrono::milliseconds(0);
    auto r = s.run(m, "go", lim);
    EXPECT_EQ(r.reason, ak::stop_reason::answered);
    EXPECT_EQ(s.metrics().round_trips, 3u);
    EXPECT_EQ(s.metrics().turns.back().round_trips, 3u);
}

TEST(Session, NonRetryableModelErrorStops) {
    ak::agent_session s{make_tools()};
    ak::scripted_model m(provider::openai_chat, {ak::script::fail_with(ak::parse_error(provider::openai_chat, 401, "{}")), ak::script::say("never")});
    auto r = s.run(m, "go");
    EXPECT_EQ(r.reason, ak::stop_reason::model_error);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, ak::errc::provider_auth);
    EXPECT_EQ(m.requests().size(), 1u);
    EXPECT_NE(ak::render_report(s.make_report()).find("provider.auth"), std::string::npos);
}

TEST(Session, MalformedResponseLeavesHistoryUntouched) {
    ak::agent_session s{make_tools()};
    s.add_user("task");
    auto r = s.accept(provider::openai_chat, json::parse("{\"choices\": []}"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::provider_malformed);
    EXPECT_EQ(s.history().size(), 1u);
}

TEST(Session, TruncatedAnswerIsReported) {
    ak::agent_session s{make_tools()};
    s.add_user("task");
    auto r = s.accept(provider::anthropic, json::parse(fixtures::anthropic_max_tokens));
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->truncated);
    EXPECT_TRUE(r->done);
}

TEST(Session, ThrowingModelIsAModelError) {
    struct thrower {
        ak::result<json> complete(const json&) { throw std::runtime_error("boom"); }
    };
    static_assert(ak::model<thrower>);
    ak::agent_session s{make_tools()};
    thrower t;
    ak::run_limits lim;
    lim.max_retries = 0;
    auto r = s.run(t, "go", lim);
    EXPECT_EQ(r.reason, ak::stop_reason::model_error);
}

// ---- the time limit ------------------------------------------------------------------------
// run_limits::max_time is the run's wall-time budget: tools get it as their deadline, and the loop
// checks it before every model call and before every retry pause. A gate that the test never
// opens stands in for work that does not finish: whoever waits on it is released only by a
// deadline, so no test here sleeps to synchronise with another thread.

namespace {
/// A gate the tests keep shut: wait_until() returns at the time point (false), or earlier
/// (true) only if someone opened it - which nobody does here.
struct shut_gate {
    std::mutex mu;
    std::condition_variable cv;
    bool opened = false;
    bool wait_until(std::chrono::steady_clock::time_point t) {
        std::unique_lock lock(mu);
        return cv.wait_until(lock, t, [&] { return opened; });
    }
};
}  // namespace

TEST(SessionTimeLimit, AToolThatOutlastsTheBudgetStopsTheRunWithTimeLimit) {
    using clock = std::chrono::steady_clock;
    shut_gate g;  // the hold call can only end at its deadline
    std::atomic<int> holds{0};
    clock::time_point seen_deadline{};
    const auto hold = ak::tool<"hold">("Waits until released.", [&](const key_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        ++holds;
        seen_deadline = ctx.deadline;
        if (ctx.deadline == clock::time_point::max())
            return ak::fail(ak::errc::internal, "the run's time limit was not handed to the tool");
        if (g.wait_until(ctx.deadline)) return std::string("released");
        return ak::fail(ak::errc::tool_timeout, "gave up at the deadline");
    });
    ak::agent_session s{ak::toolbox{hold}};
    ak::scripted_model m(provider::anthropic, {
        ak::script::call({{"hold", {{"key", "k"}}}}),
        ak::script::say("never reached: the budget is spent"),
    });
    ak::run_limits lim;
    lim.max_steps = 10;
    lim.max_time = std::chrono::milliseconds(50);
    const auto before = clock::now();
    const ak::run_result r = s.run(m, "hold on", lim);
    const auto after = clock::now();

    EXPECT_EQ(r.reason, ak::stop_reason::time_limit);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(ak::to_string(r.reason), "time limit");
    EXPECT_FALSE(r.error) << r.error->to_text();  // a limit, not a failure of the model
    EXPECT_TRUE(r.final_text.empty());
    EXPECT_EQ(r.steps, 1u);
    EXPECT_EQ(holds.load(), 1);
    EXPECT_EQ(m.requests().size(), 1u);  // the second reply was never asked for
    EXPECT_EQ(m.remaining(), 1u);
    EXPECT_FALSE(s.done());
    // the tool's deadline is the run's: start + 50 ms
    EXPECT_GE(seen_deadline, before + lim.max_time);
    EXPECT_LE(seen_deadline, after);
    // the tool's timeout reached the history as an error result
    EXPECT_NE(result_text(s.history()[2], 0).find("tool.timeout"), std::string::npos);
    const std::string rep = ak::render_report(s.make_report());
    EXPECT_EQ(rep.rfind("Result: (no final answer: stopped: time limit)", 0), 0u) << rep;
    EXPECT_NE(rep.find("- stopped by time limit after 1 model turn"), std::string::npos) << rep;
}

TEST(SessionTimeLimit, AModelThatOutlastsTheBudgetStopsTheRunWithTimeLimit) {
    using clock = std::chrono::steady_clock;
    shut_gate g;
    const auto budget = std::chrono::milliseconds(50);
    ak::scripted_model m(provider::openai_chat, {});
    m.then([&](const json&) {
        // The run started before this call, so waiting out `budget` from here spends it.
        (void)g.wait_until(clock::now() + budget);
        return ak::script::call({{"lookup", {{"key", "k"}}}});
    });
    m.then(ak::script::say("never reached"));
    ak::agent_session s{make_tools()};
    ak::run_limits lim;
    lim.max_steps = 10;
    lim.max_time = budget;
    const ak::run_result r = s.run(m, "slow", lim);
    EXPECT_EQ(r.reason, ak::stop_reason::time_limit);
    EXPECT_EQ(r.steps, 1u);
    EXPECT_EQ(m.requests().size(), 1u);
    EXPECT_EQ(m.remaining(), 1u);
    EXPECT_EQ(ak::render_report(s.make_report()).rfind("Result: (no final answer: stopped: time limit)", 0), 0u);
}

TEST(SessionTimeLimit, ARetryPauseBeyondTheBudgetStopsAtOnceWithTheProviderError) {
    ak::agent_session s{make_tools()};
    ak::scripted_model m(provider::anthropic, {
        ak::script::fail_with(ak::parse_error(provider::anthropic, 429, fixtures::anthropic_rate_limit, 5.0)),
        ak::script::say("never reached"),
    });
    ak::run_limits lim;
    lim.max_time = std::chrono::milliseconds(50);
    lim.max_backoff = std::chrono::milliseconds(60000);
    const auto before = std::chrono::steady_clock::now();
    const ak::run_result r = s.run(m, "go", lim);
    // it did not wait out the 5 s Retry-After only to find the budget spent
    EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(4));
    EXPECT_EQ(r.reason, ak::stop_reason::time_limit);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, ak::errc::provider_rate_limited);
    EXPECT_EQ(r.steps, 0u);
    EXPECT_EQ(m.requests().size(), 1u);
    const std::string rep = ak::render_report(s.make_report());
    EXPECT_EQ(rep.rfind("Result: (no final answer: stopped: time limit — error[provider.rate_limited]", 0), 0u) << rep;
}

// ---- requests ----------------------------------------------------------------------------

TEST(Request, AnthropicCacheBreakpoints) {
    ak::agent_session s{make_tools()};
    ak::scripted_model m(provider::anthropic, {
        ak::script::call({{"lookup", {{"key", "a"}}}}),
        ak::script::call({{"screenshot", {{"key", "b"}}}, {"broken", {{"key", "c"}}}}),
        ak::script::say("ok"),
    });
    (void)s.run(m, "go");
    const json& req = m.requests().back();
    std::size_t marks = 0;
    const std::string dump = req.dump();
    for (std::size_t p = dump.find("cache_control"); p != std::string::npos; p = dump.find("cache_control", p + 1)) ++marks;
    EXPECT_EQ(marks, 3u);
    EXPECT_TRUE(req["tools"].back().contains("cache_control"));
    EXPECT_TRUE(req["system"][0].contains("cache_control"));
    // Only the newest tool result carries the third breakpoint.
    const json& msgs = req["messages"];
    const json& newest = msgs[msgs.size() - 1]["content"];
    EXPECT_TRUE(newest.back().contains("cache_control"));
    EXPECT_EQ(newest.back()["is_error"], true);
    EXPECT_FALSE(msgs[2]["content"][0].contains("cache_control"));
    // The screenshot went in as an image block inside the tool_result.
    EXPECT_EQ(newest[0]["content"][1]["type"], "image");
    EXPECT_EQ(newest[0]["content"][1]["source"]["media_type"], "image/png");
    EXPECT_EQ(req["max_tokens"], 4096);
}

TEST(Request, OpenAiChatShapes) {
    ak::session_options o;
    o.model = "gpt-4.1";
    o.cache_key = "tenant-7";
    ak::agent_session s{make_tools(), ak::all_visible{}, ak::compact_formatter{}, o};
    ak::scripted_model m(provider::openai_chat, {ak::script::call({{"screenshot", {{"key", "b"}}}}, "x"), ak::script::say("ok")});
    (void)s.run(m, "go");
    const json& req = m.requests().back();
    EXPECT_EQ(req["prompt_cache_key"], "tenant-7");
    EXPECT_EQ(req["messages"][0]["role"], "system");
    EXPECT_EQ(req["messages"][2]["role"], "assistant");
    EXPECT_EQ(req["messages"][2]["content"], "x");
    EXPECT_EQ(req["messages"][3]["role"], "tool");
    EXPECT_EQ(req["messages"][3]["content"], "shot taken");
    // Chat tool messages are text: the image follows as a user message.
    EXPECT_EQ(req["messages"][4]["role"], "user");
    EXPECT_EQ(req["messages"][4]["content"][1]["type"], "image_url");
    EXPECT_EQ(req["messages"][4]["content"][1]["image_url"]["url"].get<std::string>().rfind("data:image/png;base64,", 0), 0u);
    EXPECT_EQ(req["tools"][0]["type"], "function");
    EXPECT_FALSE(req.contains("tool_choice"));
}

TEST(Request, AllowedToolsKeepsTheToolListStable) {
    for (auto p : {provider::openai_chat, provider::openai_responses}) {
        test_masker tm;
        tm.preferred = ak::exposure::allowed_tools;
        ak::agent_session s{make_tools(), std::move(tm), ak::compact_formatter{}};
        s.add_user("t");
        const json r1 = s.request(p);
        ASSERT_TRUE(s.accept(p, p == provider::openai_chat
            ? json::parse(R"({"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"unlock","arguments":"{}"}}]},"finish_reason":"tool_calls"}]})")
            : json::parse(R"({"status":"completed","output":[{"type":"function_call","id":"fc","call_id":"c1","name":"unlock","arguments":"{}"}]})")));
        const json r2 = s.request(p);
        EXPECT_EQ(r1["tools"], r2["tools"]);  // byte-identical prefix
        EXPECT_NE(r1["tools"].dump().find("\"secret\""), std::string::npos);
        ASSERT_TRUE(r1.contains("tool_choice"));
        EXPECT_EQ(r1["tool_choice"]["type"], "allowed_tools");
        const std::string c1 = r1["tool_choice"].dump();
        EXPECT_EQ(c1.find("\"secret\""), std::string::npos);
        // Once unlocked, everything is visible again: no restriction needed.
        EXPECT_FALSE(r2.contains("tool_choice"));
        const json& mode = p == provider::openai_chat ? r1["tool_choice"]["allowed_tools"]["mode"] : r1["tool_choice"]["mode"];
        EXPECT_EQ(mode, "auto");
    }
}

TEST(Request, AnthropicDeferredLoadingAndToolReferences) {
    test_masker tm = quiet_masker();
    tm.preferred = ak::exposure::deferred_loading;
    ak::agent_session s{make_tools(), std::move(tm), ak::compact_formatter{}};
    ak::scripted_model m(provider::anthropic, {ak::script::call({{"unlock"}}), ak::script::call({{"secret", {{"key", "z"}}}}), ak::script::say("ok")});
    auto r = s.run(m, "go");
    EXPECT_EQ(r.reason, ak::stop_reason::answered);
    const json& r1 = m.requests()[0];
    const json& r3 = m.requests()[2];
    EXPECT_EQ(r1["tools"], r3["tools"]);
    bool deferred_secret = false;
    for (const auto& t : r1["tools"])
        if (t["name"] == "secret") deferred_secret = t.value("defer_loading", false);
    EXPECT_TRUE(deferred_secret);
    EXPECT_FALSE(r1["tools"].back().contains("defer_loading"));
    EXPECT_TRUE(r1["tools"].back().contains("cache_control"));
    EXPECT_EQ(ak::required_headers(provider::anthropic, r1).size(), 2u);
    // The unlock result loads the deferred tool with a tool_reference block.
    const std::string second = m.requests()[1].dump();
    EXPECT_NE(second.find(R"({"tool_name":"secret","type":"tool_reference"})"), std::string::npos) << second;
    EXPECT_EQ(result_text(s.history()[4], 0), "secret z");
}

TEST(Request, AnthropicVisibleOnlySendsNoToolReferenceBlocks) {
    // tool_reference blocks load tools sent with defer_loading (a beta); a request that sends
    // only the visible tools must not carry them, even when a meta-tool's result has one.
    test_masker tm = quiet_masker();
    tm.references = true;
    ak::agent_session s{make_tools(), std::move(tm), ak::compact_formatter{}};
    ak::scripted_model m(provider::anthropic, {ak::script::call({{"unlock"}}), ak::script::call({{"secret", {{"key", "z"}}}}), ak::script::say("ok")});
    auto r = s.run(m, "go");
    EXPECT_EQ(r.reason, ak::stop_reason::answered);
    ASSERT_EQ(m.requests().size(), 3u);
    for (const auto& req : m.requests()) {
        EXPECT_EQ(req.dump().find("tool_reference"), std::string::npos) << req.dump();
        EXPECT_EQ(req.dump().find("defer_loading"), std::string::npos);
    }
    // the unlock result still reaches the model as text
    EXPECT_NE(m.requests()[1].dump().find("unlocked"), std::string::npos);
    EXPECT_EQ(result_text(s.history()[4], 0), "secret z");
}

TEST(Request, ResponsesEchoesOutputItems) {
    ak::agent_session s{make_tools()};
    s.add_user("t");
    ASSERT_TRUE(s.accept(provider::openai_responses, json::parse(fixtures::responses_calls)));
    const json req = s.request(provider::openai_responses);
    const json& in = req["input"];
    EXPECT_EQ(in[0]["role"], "user");
    EXPECT_EQ(in[1]["type"], "reasoning");
    EXPECT_EQ(in[3]["type"], "function_call");
    EXPECT_EQ(in[5]["type"], "function_call_output");
    EXPECT_EQ(in[5]["call_id"], "call_12345xyz");
    EXPECT_EQ(in[5]["output"], "value of alpha");
    EXPECT_NE(req["instructions"].get<std::string>().find("call complete"), std::string::npos);
    EXPECT_EQ(req["max_output_tokens"], 4096);
}

TEST(Request, CompatServerFallsBack) {
    ak::session_options o;
    o.openai_compat = true;
    o.exposure = ak::exposure::allowed_tools;
    ak::agent_session s{make_tools(), test_masker{}, ak::compact_formatter{}, o};
    s.add_user("t");
    const json req = s.request(provider::openai_chat);
    EXPECT_TRUE(req.contains("max_tokens"));
    EXPECT_FALSE(req.contains("prompt_cache_key"));
    EXPECT_FALSE(req.contains("tool_choice"));
    // the whole catalogue (a stable prefix); what is callable now is said in the state message
    EXPECT_NE(req["tools"].dump().find("\"secret\""), std::string::npos);
    const std::string state = req["messages"].back()["content"].get<std::string>();
    EXPECT_NE(state.find("Tools you may call now: "), std::string::npos) << state;
    EXPECT_EQ(state.find("secret"), std::string::npos) << state;
    // a masked call is still refused by the masker
    ak::scripted_model m(provider::openai_chat, {ak::script::call({{"secret", json::object()}}), ak::script::say("ok")});
    (void)s.run(m, "t");
    bool refused = false;
    for (const auto& msg : s.history())
        for (const auto& r : msg.results) refused = refused || (r.name == "secret" && r.output.is_error);
    EXPECT_TRUE(refused);
}

TEST(Metrics, LogLineAndTotals) {
    ak::agent_session s{make_tools()};
    s.add_user("t");
    ASSERT_TRUE(s.accept(provider::anthropic, json::parse(fixtures::anthropic_tool_use), 850.0));
    const auto& tm = s.metrics().turns.back();
    const std::string line = tm.log_line();
    EXPECT_NE(line.find("[turn 1 anthropic] in=5120 (fresh=512 cache_read=4608 write=0 hit=90.0%) out=74"), std::string::npos) << line;
    EXPECT_NE(line.find("model=850ms"), std::string::npos);
    ASSERT_EQ(tm.tools.size(), 2u);
    EXPECT_EQ(tm.tools[0].result_chars, std::string("value of alpha").size());
    EXPECT_GT(tm.tools[0].result_tokens, 0u);
    EXPECT_NE(s.metrics().log_line().find("hit=90.0%"), std::string::npos);
}

TEST(Session, OnTurnCallbackMayThrow) {
    ak::session_options o;
    int calls = 0;
    o.on_turn = [&](const ak::turn_metrics&) {
        ++calls;
        throw std::runtime_error("logger broke");
    };
    ak::agent_session s{make_tools(), ak::all_visible{}, ak::compact_formatter{}, o};
    ak::scripted_model m(provider::anthropic, {ak::script::say("a")});
    EXPECT_EQ(s.run(m, "t").reason, ak::stop_reason::answered);
    EXPECT_EQ(calls, 1);
}

TEST(Session, BudgetedResultsPointAtTheStore) {
    ak::agent_session s{make_tools()};
    ak::scripted_model m(provider::anthropic, {ak::script::call({{"read_page", {{"key", "p"}}}}), ak::script::say("ok")});
    (void)s.run(m, "read");
    const std::string text = result_text(s.history()[2], 0);
    EXPECT_LE(text.size(), 6000u);
    ASSERT_EQ(s.artifacts().size(), 1u);
    EXPECT_NE(text.find("artifact " + s.artifacts()[0].id), std::string::npos);
    ASSERT_NE(s.store(), nullptr);
    EXPECT_GT(s.store()->get(s.artifacts()[0].id)->data.size(), 6000u);
    EXPECT_NE(ak::render_report(s.make_report()).find("1 text"), std::string::npos);
}

TEST(Session, AResultItsToolAlreadyFittedReachesTheModelWhole) {
    // A browser snapshot is fitted by the engine, its controls kept first; the session's
    // character cap for snapshots must not cut it again by prefix (it dropped the last controls).
    const auto fitted_snapshot = ak::tool<"page_snapshot">("A fitted snapshot.", [](const key_args& a) {
        std::string s;
        for (int i = 0; i < 400; ++i) s += "- paragraph " + std::to_string(i) + " of the page\n";
        s += "- button \"Buy\" [ref=e401]";
        ak::tool_output o = ak::tool_output::text(std::move(s));
        o.fitted = a.key == "fitted";
        return o;
    }, ak::read_only);
    ak::agent_session s{ak::toolbox{fitted_snapshot}, ak::all_visible{}, ak::compact_formatter{}, quiet()};
    ak::scripted_model m(provider::anthropic, {ak::script::call({{"page_snapshot", {{"key", "fitted"}}}}),
                                               ak::script::call({{"page_snapshot", {{"key", "plain"}}}}), ak::script::say("ok")});
    (void)s.run(m, "look");
    const std::string whole = result_text(s.history()[2], 0);
    EXPECT_GT(ak::token_counter{}.count(whole), ak::budgets{}.snapshot);
    EXPECT_NE(whole.find("button \"Buy\" [ref=e401]"), std::string::npos);
    const std::string cut = result_text(s.history()[4], 0);
    EXPECT_LE(ak::token_counter{}.count(cut), ak::budgets{}.snapshot);
    EXPECT_EQ(cut.find("[ref=e401]"), std::string::npos);
    EXPECT_EQ(s.artifacts().size(), 1u);  // only the plain result's rest was stored
}

TEST(Session, CutNotesAndTheReportNameTheArtifactReaderTheHostHas) {
    // with read_artifact in the toolbox, the cut note and the report name it, and it reads the
    // stored text back where the note says the rest starts
    ak::memory_artifacts store;
    ak::agent_session s{ak::toolbox{big, ak::artifact_reader(store)}, ak::all_visible{}, ak::compact_formatter{}, {},
                        ak::artifact_sink_ref(store)};
    ak::scripted_model m(provider::anthropic, {ak::script::call({{"read_page", {{"key", "p"}}}})});
    m.then([&](const json&) {
        const std::string note = result_text(s.history()[2], 0);
        const std::string id = s.artifacts().at(0).id;
        const auto at = note.find("the rest: read_artifact {\"id\": \"" + id + "\", \"offset\": ");
        EXPECT_NE(at, std::string::npos) << note;
        const int offset = std::stoi(note.substr(note.find("\"offset\": ", at) + 10));
        return ak::script::call({{"read_artifact", {{"id", id}, {"offset", offset}, {"length", 50}}}});
    });
    m.then(ak::script::say("done"));
    (void)s.run(m, "read");
    const std::string slice = result_text(s.history()[4], 0);
    const std::string whole = store.get(s.artifacts().at(0).id)->data;
    EXPECT_NE(whole.find(slice.substr(0, 50)), std::string::npos) << slice;
    EXPECT_NE(slice.find("more characters: offset"), std::string::npos) << slice;
    const std::string report = ak::render_report(s.make_report());
    EXPECT_NE(report.find("read_artifact(id=\"" + s.artifacts().at(0).id + "\")"), std::string::npos) << report;

    // without a reader, neither names a tool the host does not have
    ak::agent_session bare{ak::toolbox{big}};
    ak::scripted_model m2(provider::anthropic, {ak::script::call({{"read_page", {{"key", "p"}}}}), ak::script::say("ok")});
    (void)bare.run(m2, "read");
    const std::string note = result_text(bare.history()[2], 0);
    EXPECT_EQ(note.find("read_artifact"), std::string::npos) << note;
    const std::string bare_report = ak::render_report(bare.make_report());
    EXPECT_EQ(bare_report.find("get_artifact"), std::string::npos) << bare_report;
    EXPECT_NE(bare_report.find("agentkit://artifacts/"), std::string::npos) << bare_report;
}

TEST(SessionMenu, TheDefaultExposureIsCacheStable) {
    // no session option, a masker without a preference: the whole catalogue every turn, the
    // visible set through each provider's own mechanism (masked, not removed)
    auto box = make_tools();
    auto menu = ak::menu_for<decltype(box)>(ak::mode<"keys">(lookup, ak::tool_ref<"write">, broken, big, shot, secret).describe("Key store"));
    ak::agent_session s{box, std::move(menu), ak::compact_formatter{}, quiet()};
    EXPECT_EQ(s.exposure_for(provider::anthropic), ak::exposure::deferred_loading);
    EXPECT_EQ(s.exposure_for(provider::openai_responses), ak::exposure::allowed_tools);
    s.add_user("t");
    const json oa = s.request(provider::openai_responses);
    EXPECT_NE(oa["tools"].dump().find("\"lookup\""), std::string::npos);  // at ROOT, hidden but sent
    ASSERT_TRUE(oa.contains("tool_choice"));
    EXPECT_EQ(oa["tool_choice"]["type"], "allowed_tools");
    const json an = s.request(provider::anthropic);
    bool deferred_lookup = false;
    for (const auto& t : an["tools"]) deferred_lookup = deferred_lookup || (t["name"] == "lookup" && t.value("defer_loading", false));
    EXPECT_TRUE(deferred_lookup) << an["tools"].dump();
    // visible_only stays available on request
    ak::session_options o = quiet();
    o.exposure = ak::exposure::visible_only;
    auto menu2 = ak::menu_for<decltype(box)>(ak::mode<"keys">(lookup, ak::tool_ref<"write">, broken, big, shot, secret).describe("Key store"));
    ak::agent_session v{box, std::move(menu2), ak::compact_formatter{}, o};
    v.add_user("t");
    EXPECT_EQ(v.request(provider::openai_responses)["tools"].dump().find("\"lookup\""), std::string::npos);
}

TEST(SessionMenu, TheMenusCompleteToolFinishesTheRunWithItsSummary) {
    auto box = make_tools();
    auto menu = ak::menu_for<decltype(box)>(ak::mode<"keys">(lookup, ak::tool_ref<"write">, broken, big, shot, secret).describe("Key store"));
    ak::agent_session s{box, std::move(menu), ak::compact_formatter{}, quiet()};
    // the menu owns `complete`: no built-in one is added next to it
    std::size_t completes = 0;
    for (const auto& t : s.catalogue()) completes += t.name == "complete" ? 1U : 0U;
    EXPECT_EQ(completes, 1u);
    ak::scripted_model m(provider::anthropic, {
        ak::script::call({{"menu_enter", {{"mode", "keys"}}}}),
        ak::script::call({{"lookup", {{"key", "alpha"}}}}),
        ak::script::call({{"complete", {{"summary", "alpha is value of alpha"}}}}),
        ak::script::say("never reached"),
    });
    auto r = s.run(m, "Look up alpha.");
    ASSERT_EQ(r.reason, ak::stop_reason::completed) << (r.error ? r.error->to_text() : "");
    EXPECT_EQ(r.final_text, "alpha is value of alpha");
    EXPECT_EQ(r.steps, 3u);
    EXPECT_EQ(m.remaining(), 1u);
    EXPECT_EQ(s.get_masker().current_mode(), "keys");
    const std::string text = ak::render_report(s.make_report());
    EXPECT_EQ(text.rfind("Result: alpha is value of alpha\n", 0), 0u) << text;
}

namespace {
/// A streaming model whose first answer streams words and then does not parse; the second is fine.
struct words_then_garbage_model {
    int calls = 0;
    [[nodiscard]] ak::provider provider() const { return ak::provider::anthropic; }
    ak::result<json> complete(const json& r) { return complete(r, {}, {}); }
    ak::result<json> complete(const json& r, const std::function<void(const json&)>& on_tool_call) { return complete(r, on_tool_call, {}); }
    ak::result<json> complete(const json&, const std::function<void(const json&)>& on_tool_call, const ak::stream_delta_fn& on_delta) {
        ++calls;
        on_tool_call(json::object());  // called unchecked: the session always passes a callable
        const std::string words = calls == 1 ? "Half an ans" : "All done.";
        if (on_delta) {
            ak::stream_delta d;
            d.text = words;
            on_delta(d);
        }
        if (calls == 1) return json{{"type", "message"}, {"role", "assistant"}, {"content", "not a list of blocks"}};
        return json{{"id", "msg_1"}, {"type", "message"}, {"role", "assistant"}, {"model", "m"},
                    {"content", json::array({json{{"type", "text"}, {"text", words}}})}, {"stop_reason", "end_turn"},
                    {"usage", {{"input_tokens", 10}, {"output_tokens", 3}}}};
    }
};
static_assert(ak::delta_streaming_model<words_then_garbage_model>);
}  // namespace

TEST(SessionStream, AStreamedAnswerThatDoesNotParseIsDiscardedBeforeTheRetry) {
    std::vector<ak::stream_delta> told;
    ak::session_options o = quiet();
    o.speculative = false;  // the model gets a callable on_tool_call all the same
    o.on_delta = [&](const ak::stream_delta& d) { told.push_back(d); };
    ak::agent_session s{make_tools(), ak::all_visible{}, ak::compact_formatter{}, o};
    words_then_garbage_model m;
    ak::run_limits limits;
    limits.retry_backoff = std::chrono::milliseconds(1);
    const auto r = s.run(m, "Answer.", limits);
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->to_text() : std::string(ak::to_string(r.reason)));
    EXPECT_EQ(r.final_text, "All done.");
    EXPECT_EQ(m.calls, 2);
    ASSERT_EQ(told.size(), 3U);
    EXPECT_EQ(told[0].text, "Half an ans");
    EXPECT_EQ(told[1].what, ak::stream_delta::kind::discard);  // the host un-shows it before the retry speaks
    EXPECT_EQ(told[2].text, "All done.");
}
