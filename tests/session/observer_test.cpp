// What an agent_session reports to session_options::on_event (core/observer.hpp), and the two
// adapters over it: a log (core/logging.hpp) and trace spans (core/spans.hpp).
#include <agentkit/agentkit.hpp>
#include <agentkit/core/logging.hpp>
#include <agentkit/core/spans.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "resume_tools.hpp"
#include "support/event_recorder.hpp"

namespace ak = agentkit;
using ak::event_kind;
using ak::json;
using ak::provider;

// The unity-built twin (agentkit_tests_session_single) puts this file beside session_test.cpp,
// whose file-local tools share these names: the tests and their helpers live in a namespace of
// their own.
namespace {
namespace observer_tests {

using resume_fixture::key_args;
const auto lookup = ak::tool<"lookup">("Look a key up.", [](const key_args& a) { return "value of " + a.key; },
                                       ak::read_only | ak::parallel_safe);
const auto& broken = resume_fixture::broken;
const auto& big = resume_fixture::page;
// Reports the parent event its context carries (what a tool that reports events of its own reads).
std::atomic<std::uint64_t> seen_parent{0};
const auto probe = ak::tool<"probe">("Reads its context.", [](const key_args&, ak::tool_context& ctx) {
    seen_parent = ctx.parent_event;
    return std::string("probed");
});

using recorder = agentkit::test::event_recorder;

/// A masker with one locked tool, opened by the meta-tool `unlock`.
class lock_masker {
public:
    void bind(const std::vector<ak::tool_info>& tools) {
        for (const auto& t : tools) names_.push_back(t.name);
    }
    [[nodiscard]] std::vector<ak::tool_info> meta_tools() const {
        ak::tool_info t;
        t.name = "unlock";
        t.description = "Unlock the locked tools.";
        t.input_schema = json{{"type", "object"}, {"properties", json::object()}};
        return {t};
    }
    [[nodiscard]] bool is_visible(std::string_view n) const { return n == "unlock" || n != "broken" || unlocked_; }
    [[nodiscard]] std::vector<std::string> visible() const {
        std::vector<std::string> v{"unlock"};
        for (const auto& x : names_)
            if (is_visible(x)) v.push_back(x);
        return v;
    }
    [[nodiscard]] std::string prompt_section() const { return {}; }
    [[nodiscard]] std::string state_message() const { return {}; }
    [[nodiscard]] std::optional<ak::result<ak::tool_output>> handle_meta(std::string_view n, const json&) {
        if (n != "unlock") return std::nullopt;
        unlocked_ = true;
        ++version_;
        return ak::result<ak::tool_output>(ak::tool_output::text("unlocked"));
    }
    [[nodiscard]] ak::result<ak::tool_output> answer_hidden(std::string_view n) const {
        return ak::fail(ak::errc::tool_masked, std::string(n) + " is locked", "Call unlock first.");
    }
    void observe_call(std::string_view, const json&, bool) {}
    [[nodiscard]] std::uint64_t version() const noexcept { return version_; }

private:
    std::vector<std::string> names_;
    bool unlocked_ = false;
    std::uint64_t version_ = 0;
};
static_assert(ak::masker<lock_masker>);

TEST(Observer, ARunReportsItsModelCallsAndToolCallsNestedInTheRun) {
    recorder rec;
    ak::session_options o;
    o.on_event = rec.observer();
    o.session_id = "s-observed";
    ak::agent_session s{ak::toolbox{lookup, broken, big}, ak::all_visible{}, ak::compact_formatter{}, o};
    ak::scripted_model m(provider::anthropic, {
        ak::script::call({{"lookup", {{"key", "alpha"}}}, {"broken", {{"key", "k"}}}, {"read_page", {{"key", "p"}}}}),
        ak::script::say("done"),
    });
    auto r = s.run(m, "go");
    ASSERT_EQ(r.reason, ak::stop_reason::answered);

    std::lock_guard lock(rec.mu);
    const auto& ev = rec.events;
    ASSERT_GE(ev.size(), 2u);
    EXPECT_EQ(ev.front().kind, event_kind::run_started);
    EXPECT_EQ(ev.back().kind, event_kind::run_ended);
    const std::uint64_t run = ev.front().id;
    EXPECT_NE(run, 0u);
    EXPECT_EQ(ev.back().id, run);
    EXPECT_EQ(ev.back().data["reason"], "answered");
    EXPECT_EQ(ev.back().data["steps"], 2);
    EXPECT_FALSE(ev.back().failed());
    for (const auto& e : ev) {
        EXPECT_EQ(e.part, "session");
        EXPECT_EQ(e.scope, "s-observed");
    }

    // Two requests, each answered, in order, with the tokens the session counted.
    std::vector<const ak::event*> model;
    for (const auto& e : ev)
        if (e.kind == event_kind::model_request || e.kind == event_kind::model_response) model.push_back(&e);
    ASSERT_EQ(model.size(), 4u);
    for (std::size_t t = 0; t < 2; ++t) {
        const ak::event& rq = *model[2 * t];
        const ak::event& rs = *model[2 * t + 1];
        EXPECT_EQ(rq.kind, event_kind::model_request);
        EXPECT_EQ(rs.kind, event_kind::model_response);
        EXPECT_EQ(rq.parent, run);
        EXPECT_EQ(rs.id, rq.id);
        EXPECT_EQ(rq.name, "claude-sonnet-4-5");
        EXPECT_EQ(rq.attempt, 1u);
        EXPECT_EQ(rq.data["provider"], "anthropic");
        const auto& u = s.metrics().turns.at(t).usage;
        EXPECT_EQ(rs.input_tokens, u.input_tokens);
        EXPECT_EQ(rs.output_tokens, u.output_tokens);
        EXPECT_EQ(rs.cache_read_tokens, u.cache_read_tokens);
        EXPECT_GT(rs.input_tokens, 0u);
        EXPECT_GE(rs.ms, 0.0);
    }

    // Three calls, each started and ended inside the run, between the first answer and the second request.
    std::map<std::uint64_t, const ak::event*> started;
    std::map<std::string, const ak::event*> ended;
    for (const auto& e : ev) {
        if (e.kind == event_kind::tool_started) started[e.id] = &e;
        if (e.kind == event_kind::tool_ended) {
            ASSERT_EQ(started.count(e.id), 1u) << e.name << " ended before it started";
            ended[e.name] = &e;
        }
    }
    ASSERT_EQ(started.size(), 3u);
    ASSERT_EQ(ended.size(), 3u);
    for (std::size_t k = 0; k < ev.size(); ++k)
        if (ev[k].kind == event_kind::tool_started || ev[k].kind == event_kind::tool_ended) {
            EXPECT_GT(&ev[k], model[1]) << ev[k].name << " before the first answer";
            EXPECT_LT(&ev[k], model[2]) << ev[k].name << " after the second request";
        }
    const auto& metrics = s.metrics().turns.at(0).tools;
    for (const auto& [id, e] : started) {
        EXPECT_EQ(e->parent, run);
        const ak::event& end = *ended.at(e->name);
        EXPECT_EQ(end.detail, e->detail);  // the call id
        EXPECT_FALSE(e->detail.empty());
        const auto it = std::find_if(metrics.begin(), metrics.end(), [name = e->name](const ak::tool_metric& t) { return t.name == name; });
        ASSERT_NE(it, metrics.end());
        EXPECT_EQ(end.result_tokens, it->result_tokens);
        EXPECT_DOUBLE_EQ(end.ms, it->ms);
    }
    EXPECT_FALSE(ended.at("lookup")->failed());
    EXPECT_EQ(ended.at("broken")->error_code, "not_found");
    EXPECT_EQ(ended.at("broken")->error_message, "nothing at k");
    EXPECT_GT(ended.at("read_page")->result_tokens, 0u);

    // The long page was cut: its text went to the artifact store, reported with its size.
    std::vector<const ak::event*> stored;
    for (const auto& e : ev)
        if (e.kind == event_kind::artifact_stored) stored.push_back(&e);
    ASSERT_EQ(stored.size(), s.artifacts().size());
    ASSERT_FALSE(stored.empty());
    EXPECT_EQ(stored[0]->name, s.artifacts()[0].uri);
    EXPECT_EQ(stored[0]->bytes, s.artifacts()[0].size);
    EXPECT_EQ(stored[0]->parent, run);
}

TEST(Observer, ARetriedModelCallReportsEachAttemptAndTheRetry) {
    recorder rec;
    ak::session_options o;
    o.on_event = rec.observer();
    ak::agent_session s{ak::toolbox{lookup}, ak::all_visible{}, ak::compact_formatter{}, o};
    ak::scripted_model m(provider::anthropic, {
        ak::script::respond_raw(json::parse(fixtures::anthropic_overloaded)),
        ak::script::fail_with(ak::parse_error(provider::anthropic, 429, fixtures::anthropic_rate_limit)),
        ak::script::say("fine"),
    });
    ak::run_limits lim;
    lim.retry_backoff = std::chrono::milliseconds(0);
    ASSERT_EQ(s.run(m, "go", lim).reason, ak::stop_reason::answered);

    const auto responses = rec.of(event_kind::model_response);
    ASSERT_EQ(responses.size(), 3u);
    EXPECT_EQ(responses[0].attempt, 1u);
    EXPECT_EQ(responses[0].error_code, "provider.overloaded");
    EXPECT_EQ(responses[1].attempt, 2u);
    EXPECT_EQ(responses[1].error_code, "provider.rate_limited");
    EXPECT_EQ(responses[2].attempt, 3u);
    EXPECT_FALSE(responses[2].failed());
    const auto retries = rec.of(event_kind::retry);
    ASSERT_EQ(retries.size(), 2u);
    EXPECT_EQ(retries[0].attempt, 1u);
    EXPECT_EQ(retries[0].error_code, responses[0].error_code);
    EXPECT_EQ(retries[1].error_code, responses[1].error_code);
    EXPECT_EQ(retries[0].data["pause_ms"], 0);
    const auto requests = rec.of(event_kind::model_request);
    ASSERT_EQ(requests.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(requests[i].id, responses[i].id);
}

TEST(Observer, AModelErrorThatEndsTheRunIsTheRunsError) {
    recorder rec;
    ak::session_options o;
    o.on_event = rec.observer();
    ak::agent_session s{ak::toolbox{lookup}, ak::all_visible{}, ak::compact_formatter{}, o};
    ak::scripted_model m(provider::anthropic, {ak::script::fail_with(ak::error(ak::errc::provider_auth, "bad key"))});
    ASSERT_EQ(s.run(m, "go").reason, ak::stop_reason::model_error);
    const auto end = rec.of(event_kind::run_ended);
    ASSERT_EQ(end.size(), 1u);
    EXPECT_EQ(end[0].error_code, "provider.auth");
    EXPECT_EQ(end[0].data["reason"], "model error");
    EXPECT_EQ(ak::level_of(end[0]), ak::log_level::error);
}

TEST(Observer, TheMaskersChangesOfWhatIsCallableAreReported) {
    recorder rec;
    ak::session_options o;
    o.on_event = rec.observer();
    ak::agent_session s{ak::toolbox{lookup, broken}, lock_masker{}, ak::compact_formatter{}, o};
    ak::scripted_model m(provider::anthropic, {
        ak::script::call({{"lookup", {{"key", "a"}}}}),  // changes nothing
        ak::script::call({{"unlock"}}),
        ak::script::say("done"),
    });
    ASSERT_TRUE(s.run(m, "go").ok());
    const auto changes = rec.of(event_kind::masker_changed);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].data["added"], json::array({"broken"}));
    EXPECT_EQ(changes[0].data["removed"], json::array());
    EXPECT_EQ(changes[0].data["visible"], 3);
    // The meta-tool call is a tool call like any other.
    const auto ended = rec.of(event_kind::tool_ended);
    ASSERT_EQ(ended.size(), 2u);
    EXPECT_EQ(ended[1].name, "unlock");
}

TEST(Observer, AToolSeesItsOwnCallsEventAsTheParentOfWhatItReports) {
    recorder rec;
    ak::session_options o;
    o.on_event = rec.observer();
    ak::agent_session s{ak::toolbox{probe}, ak::all_visible{}, ak::compact_formatter{}, o};
    ak::scripted_model m(provider::openai_chat, {ak::script::call({{"probe", {{"key", "a"}}}}), ak::script::say("done")});
    seen_parent = 0;
    ASSERT_TRUE(s.run(m, "go").ok());
    const auto started = rec.of(event_kind::tool_started);
    ASSERT_EQ(started.size(), 1u);
    EXPECT_EQ(seen_parent.load(), started[0].id);
    EXPECT_EQ(rec.of(event_kind::model_request).at(0).data["provider"], "openai");

    // Served over MCP: the server's request is the call's parent, and the tool's parent is the call.
    seen_parent = 0;
    ak::tool_context ctx;
    ctx.call_id = "7";
    ctx.parent_event = 4242;
    ASSERT_TRUE(s.serve_call("probe", json{{"key", "b"}}, ctx));
    EXPECT_EQ(ctx.parent_event, 4242u);  // given back as it came
    const auto served = rec.of(event_kind::tool_started);
    ASSERT_EQ(served.size(), 2u);
    EXPECT_EQ(served[1].parent, 4242u);
    EXPECT_EQ(served[1].detail, "7");
    EXPECT_EQ(seen_parent.load(), served[1].id);
    const auto ended = rec.of(event_kind::tool_ended);
    ASSERT_EQ(ended.size(), 2u);
    EXPECT_EQ(ended[1].id, served[1].id);
    EXPECT_GT(ended[1].result_tokens, 0u);
}

TEST(Observer, ASpeculativeCallThatIsNotUsedEndsAsDiscarded) {
    recorder rec;
    ak::session_options o;
    o.on_event = rec.observer();
    ak::agent_session s{ak::toolbox{lookup}, ak::all_visible{}, ak::compact_formatter{}, o};
    ak::tool_call c;
    c.id = "spec-1";
    c.name = "lookup";
    c.arguments = json{{"key", "early"}};
    ASSERT_TRUE(s.speculate(c));
    // The response asks for something else: the early call is thrown away.
    auto out = s.accept(provider::anthropic, json::parse(fixtures::anthropic_final));
    ASSERT_TRUE(out);
    const auto ended = rec.of(event_kind::tool_ended);
    ASSERT_EQ(ended.size(), 1u);
    EXPECT_EQ(ended[0].detail, "spec-1");
    EXPECT_EQ(ended[0].data["discarded"], true);
    EXPECT_FALSE(ended[0].failed());
    // accept() outside run(): its response is reported once, with the tokens it carried.
    const auto responses = rec.of(event_kind::model_response);
    ASSERT_EQ(responses.size(), 1u);
    EXPECT_EQ(responses[0].output_tokens, 12u);
    EXPECT_EQ(responses[0].parent, 0u);
}

TEST(Observer, ASpeculativeCallThatIsUsedIsStartedOnceAndEndsAsSpeculative) {
    recorder rec;
    ak::session_options o;
    o.on_event = rec.observer();
    ak::agent_session s{ak::toolbox{lookup}, ak::all_visible{}, ak::compact_formatter{}, o};
    const json body = json::parse(fixtures::anthropic_tool_use);  // lookup alpha, lookup beta
    ASSERT_TRUE(s.speculate(provider::anthropic, body["content"][1]));
    auto out = s.accept(provider::anthropic, body);
    ASSERT_TRUE(out);
    const auto started = rec.of(event_kind::tool_started);
    const auto ended = rec.of(event_kind::tool_ended);
    ASSERT_EQ(started.size(), 2u);  // alpha once (when speculated), beta
    ASSERT_EQ(ended.size(), 2u);
    EXPECT_EQ(started[0].detail, "toolu_01A09q90qw90lq917835lq9");
    EXPECT_EQ(started[0].data["speculative"], true);
    const auto alpha = std::find_if(ended.begin(), ended.end(), [&](const ak::event& e) { return e.id == started[0].id; });
    ASSERT_NE(alpha, ended.end());
    EXPECT_EQ(alpha->data["speculative"], true);
    EXPECT_FALSE(alpha->data.contains("discarded"));
    EXPECT_EQ(s.metrics().turns.back().speculative_used, 1u);
}

TEST(Observer, AnObserverThatThrowsDoesNotDisturbTheRun) {
    ak::session_options o;
    int told = 0;
    o.on_event = [&](const ak::event&) {
        ++told;
        throw std::runtime_error("observer bug");
    };
    ak::agent_session s{ak::toolbox{lookup}, ak::all_visible{}, ak::compact_formatter{}, o};
    ak::scripted_model m(provider::anthropic, {ak::script::call({{"lookup", {{"key", "a"}}}}), ak::script::say("done")});
    auto r = s.run(m, "go");
    EXPECT_EQ(r.reason, ak::stop_reason::answered);
    EXPECT_EQ(r.final_text, "done");
    EXPECT_GE(told, 8);
}

TEST(Logging, EachEventIsOneLineAtItsLevel) {
    std::vector<std::pair<ak::log_level, std::string>> lines;
    ak::session_options o;
    o.session_id = "s-log";
    o.on_event = ak::log_observer([&](ak::log_level l, std::string_view line) { lines.emplace_back(l, std::string(line)); },
                                  ak::log_level::info);
    ak::agent_session s{ak::toolbox{lookup, broken}, ak::all_visible{}, ak::compact_formatter{}, o};
    ak::scripted_model m(provider::anthropic, {
        ak::script::call({{"lookup", {{"key", "a"}}}, {"broken", {{"key", "b"}}}}),
        ak::script::say("done"),
    });
    ASSERT_TRUE(s.run(m, "go").ok());
    // info and above only: no starts (debug).
    for (const auto& [l, line] : lines) {
        EXPECT_GE(l, ak::log_level::info) << line;
        EXPECT_EQ(line.find('\n'), std::string::npos);
        EXPECT_EQ(line.rfind("[session s-log] ", 0), 0u) << line;
    }
    auto find = [&](std::string_view needle) {
        return std::find_if(lines.begin(), lines.end(), [&](const auto& x) { return x.second.find(needle) != std::string::npos; });
    };
    auto ok = find("tool_ended lookup");
    ASSERT_NE(ok, lines.end());
    EXPECT_EQ(ok->first, ak::log_level::info);
    EXPECT_NE(ok->second.find(" ms, "), std::string::npos);
    EXPECT_NE(ok->second.find("result tokens"), std::string::npos);
    auto bad = find("tool_ended broken");
    ASSERT_NE(bad, lines.end());
    EXPECT_EQ(bad->first, ak::log_level::warn);
    EXPECT_NE(bad->second.find(": not_found: nothing at b"), std::string::npos);
    auto answer = find("model_response claude-sonnet-4-5");
    ASSERT_NE(answer, lines.end());
    EXPECT_NE(answer->second.find(" in ("), std::string::npos);
    auto end = find("run_ended");
    ASSERT_NE(end, lines.end());
    EXPECT_NE(end->second.find(", answered"), std::string::npos);
    EXPECT_EQ(find("tool_started"), lines.end());

    // debug shows the starts too
    lines.clear();
    const auto dbg = ak::log_observer([&](ak::log_level l, std::string_view line) { lines.emplace_back(l, std::string(line)); },
                                      ak::log_level::debug);
    ak::event e;
    e.kind = event_kind::tool_started;
    e.part = "session";
    e.name = "lookup";
    e.detail = "c1";
    dbg(e);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].first, ak::log_level::debug);
    EXPECT_EQ(lines[0].second, "[session] tool_started lookup (c1)");
}

TEST(Spans, ARunIsOneTraceOfNestedSpansWithGenAiAttributes) {
    ak::span_recorder trace;
    ak::session_options o;
    o.session_id = "s-trace";
    o.on_event = trace.observer();
    ak::agent_session s{ak::toolbox{lookup, broken, big}, lock_masker{}, ak::compact_formatter{}, o};
    ak::scripted_model m(provider::anthropic, {
        ak::script::call({{"lookup", {{"key", "a"}}}, {"read_page", {{"key", "p"}}}, {"broken", {{"key", "b"}}}}),
        ak::script::call({{"unlock"}, {"broken", {{"key", "b"}}}}),
        ak::script::say("done"),
    });
    ASSERT_TRUE(s.run(m, "go").ok());
    EXPECT_EQ(trace.open(), 0u);
    const auto spans = trace.spans();
    // 1 run + 3 chats + 5 tool calls
    ASSERT_EQ(spans.size(), 9u);
    const ak::span& root = spans.back();  // ends last
    EXPECT_EQ(root.name, "invoke_agent");
    EXPECT_TRUE(root.parent_span_id.empty());
    EXPECT_EQ(root.trace_id.size(), 32u);
    EXPECT_EQ(root.span_id.size(), 16u);
    EXPECT_EQ(root.attributes["gen_ai.conversation.id"], "s-trace");
    EXPECT_EQ(root.attributes["agentkit.stop_reason"], "answered");
    std::set<std::string> ids;
    std::size_t chats = 0, tools = 0;
    std::set<std::string> errors;
    for (const auto& sp : spans) {
        ids.insert(sp.span_id);
        EXPECT_EQ(sp.trace_id, root.trace_id);
        EXPECT_LE(sp.start_unix_nano, sp.end_unix_nano);
        if (&sp == &root) continue;
        EXPECT_EQ(sp.parent_span_id, root.span_id) << sp.name;
        EXPECT_GE(sp.start_unix_nano, root.start_unix_nano);
        EXPECT_LE(sp.end_unix_nano, root.end_unix_nano);
        if (sp.name == "chat claude-sonnet-4-5") {
            ++chats;
            EXPECT_EQ(sp.kind, ak::span::kind_t::client);
            EXPECT_EQ(sp.attributes["gen_ai.operation.name"], "chat");
            EXPECT_EQ(sp.attributes["gen_ai.provider.name"], "anthropic");
            EXPECT_GT(sp.attributes["gen_ai.usage.input_tokens"].get<std::size_t>(), 0u);
        } else {
            ++tools;
            EXPECT_EQ(sp.name.rfind("execute_tool ", 0), 0u) << sp.name;
            EXPECT_EQ(sp.attributes["gen_ai.tool.name"], sp.name.substr(13));
            EXPECT_EQ(sp.error, sp.name == "execute_tool broken") << sp.name;
            if (sp.error) errors.insert(sp.attributes["error.type"].get<std::string>() + " " + sp.status_message);
        }
    }
    EXPECT_EQ(chats, 3u);
    EXPECT_EQ(tools, 5u);
    // broken, locked at first, then failing on its own
    EXPECT_EQ(errors, (std::set<std::string>{"not_found not_found: nothing at b", "tool.masked tool.masked: broken is locked"}));
    EXPECT_EQ(ids.size(), spans.size());
    // The artifact and the masker change are events of the run's span.
    std::set<std::string> points;
    for (const auto& ev : root.events) points.insert(ev["name"].get<std::string>());
    EXPECT_EQ(points, (std::set<std::string>{"artifact_stored", "masker_changed"}));

    // OTLP/JSON: one resource, one scope, the spans with hex ids and string nanoseconds.
    const json otlp = trace.to_otlp_json("observer-test");
    const json& rs = otlp["resourceSpans"].at(0);
    EXPECT_EQ(rs["resource"]["attributes"].at(0)["key"], "service.name");
    EXPECT_EQ(rs["resource"]["attributes"].at(0)["value"]["stringValue"], "observer-test");
    const json& out = rs["scopeSpans"].at(0)["spans"];
    ASSERT_EQ(out.size(), spans.size());
    const json& last = out.back();
    EXPECT_EQ(last["traceId"], root.trace_id);
    EXPECT_FALSE(last.contains("parentSpanId"));
    EXPECT_TRUE(last["startTimeUnixNano"].is_string());
    EXPECT_EQ(last["kind"], 1);
    bool has_steps = false;
    for (const auto& a : last["attributes"])
        if (a["key"] == "agentkit.steps") has_steps = a["value"]["intValue"] == "3";
    EXPECT_TRUE(has_steps);
    const auto failed = std::find_if(out.begin(), out.end(), [](const json& j) { return j["name"] == "execute_tool broken"; });
    ASSERT_NE(failed, out.end());
    EXPECT_EQ((*failed)["status"]["code"], 2);

    // A second run is a second trace.
    (void)trace.take();
    ak::scripted_model m2(provider::anthropic, {ak::script::say("again")});
    ASSERT_TRUE(s.run(m2, "more").ok());
    const auto again = trace.spans();
    ASSERT_EQ(again.size(), 2u);
    EXPECT_NE(again.back().trace_id, root.trace_id);
}

TEST(Spans, ACommandReportedOnceIsASpanAndOrphanPointsAreDropped) {
    std::vector<ak::span> handed;
    ak::span_recorder::options so;
    so.on_span = [&](const ak::span& s) { handed.push_back(s); };
    ak::span_recorder trace(so);
    const auto obs = trace.observer();
    ak::event start;
    start.kind = event_kind::tool_started;
    start.part = "session";
    start.id = ak::next_event_id();
    start.name = "browser_click";
    obs(start);
    ak::event cdp;
    cdp.kind = event_kind::cdp_command;
    cdp.part = "browser";
    cdp.id = ak::next_event_id();
    cdp.parent = start.id;
    cdp.name = "Input.dispatchMouseEvent";
    cdp.ms = 2.5;
    obs(cdp);
    ak::event blocked;
    blocked.kind = event_kind::request_blocked;
    blocked.part = "browser";
    blocked.parent = 999999999;  // no open span: dropped
    obs(blocked);
    ak::event end = start;
    end.kind = event_kind::tool_ended;
    end.ms = 10;
    obs(end);
    ASSERT_EQ(handed.size(), 2u);
    EXPECT_TRUE(trace.spans().empty());  // handed on, not kept
    EXPECT_EQ(handed[0].name, "Input.dispatchMouseEvent");
    EXPECT_EQ(handed[0].parent_span_id, handed[1].span_id);
    EXPECT_EQ(handed[0].trace_id, handed[1].trace_id);
    EXPECT_EQ(handed[0].end_unix_nano - handed[0].start_unix_nano, 2500000u);
    EXPECT_TRUE(handed[1].events.empty());
}

TEST(Observer, FanOutTellsEachAndSkipsTheEmpty) {
    int a = 0, b = 0;
    const auto both = ak::fan_out({[&](const ak::event&) { ++a; }, ak::observer{}, [&](const ak::event&) {
                                       ++b;
                                       throw 1;
                                   }, [&](const ak::event&) { ++a; }});
    ak::event e;
    both(e);
    EXPECT_EQ(a, 2);
    EXPECT_EQ(b, 1);
    EXPECT_FALSE(ak::fan_out({ak::observer{}}));
}

}  // namespace observer_tests
}  // namespace
