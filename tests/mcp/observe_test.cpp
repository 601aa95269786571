// What the MCP client and server report to their observers (core/observer.hpp), end to end in
// one process: a host session calls a remote tool through mcp::client, which reaches an
// mcp::server serving another agent_session. Every hop reports, nested by parent ids.
#include <agentkit/agentkit.hpp>
#include <agentkit/core/spans.hpp>
#include <agentkit/mcp/client/client.hpp>
#include <agentkit/mcp/client/remote_tools.hpp>
#include <agentkit/mcp/server/server.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "support/event_recorder.hpp"
#include "support/in_process_mcp.hpp"

namespace ak = agentkit;
using ak::event_kind;
using ak::json;

namespace {

struct key_args {
    std::string key;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(key_args, key, "Key", ak::min_length(1))); }
};
const auto lookup = ak::tool<"lookup">("Look a key up.", [](const key_args& a) { return "value of " + a.key; }, ak::read_only);

using recorder = agentkit::test::event_recorder;

}  // namespace

TEST(McpObserve, ARemoteCallIsReportedAtEveryHopAndNestsUnderTheCallingTool) {
    recorder rec;
    // The far side: a session served over MCP.
    ak::session_options far_opts;
    far_opts.session_id = "far";
    far_opts.on_event = rec.observer();
    ak::agent_session far{ak::toolbox{lookup}, ak::all_visible{}, ak::compact_formatter{}, far_opts};
    ak::mcp::server_options so;
    so.name = "lookups";
    so.on_event = rec.observer();
    ak::mcp::server srv{ak::mcp::backend_for(far), so};

    // The near side: a client, its tools in a host session.
    ak::mcp::client_options co;
    co.server_name = "lookups";
    co.on_event = rec.observer();
    auto connected = ak::mcp::client::connect(std::make_unique<agentkit::test::in_process_mcp>(srv), co);
    ASSERT_TRUE(connected) << connected.error().to_text();
    std::shared_ptr<ak::mcp::client> c = std::move(*connected);
    ak::runtime_toolbox remote_box;
    ASSERT_TRUE(ak::mcp::add_remote_tools(remote_box, c));
    ak::session_options near_opts;
    near_opts.session_id = "near";
    near_opts.on_event = rec.observer();
    ak::agent_session near{remote_box, ak::all_visible{}, ak::compact_formatter{}, near_opts};
    ak::scripted_model m(ak::provider::anthropic, {ak::script::call({{"lookup", {{"key", "k"}}}}), ak::script::say("done")});
    ASSERT_TRUE(near.run(m, "go").ok());
    c->close();

    // near: execute_tool lookup → client: tools/call lookup (parent: that tool call)
    const auto started = rec.of(event_kind::tool_started);
    ASSERT_EQ(started.size(), 2u);  // near's call, then far's
    const ak::event& near_call = started[0].scope == "near" ? started[0] : started[1];
    const ak::event& far_call = started[0].scope == "far" ? started[0] : started[1];
    ASSERT_EQ(near_call.scope, "near");
    ASSERT_EQ(far_call.scope, "far");
    std::vector<ak::event> sent;
    for (const auto& e : rec.of(event_kind::mcp_request_sent))
        if (e.name == "tools/call") sent.push_back(e);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].part, "mcp.client");
    EXPECT_EQ(sent[0].scope, "lookups");
    EXPECT_EQ(sent[0].detail, "lookup");
    EXPECT_EQ(sent[0].parent, near_call.id);
    const auto got = rec.of(event_kind::mcp_response_received);
    const auto answer = std::find_if(got.begin(), got.end(), [&](const ak::event& e) { return e.id == sent[0].id; });
    ASSERT_NE(answer, got.end());
    EXPECT_FALSE(answer->failed());
    EXPECT_GT(answer->ms, 0.0);

    // server: tools/call received → far's tool call (parent: the server's request) → answered
    std::vector<ak::event> received;
    for (const auto& e : rec.of(event_kind::mcp_request_received))
        if (e.name == "tools/call") received.push_back(e);
    ASSERT_EQ(received.size(), 1u);
    EXPECT_EQ(received[0].part, "mcp.server");
    EXPECT_EQ(received[0].scope, "lookups");
    EXPECT_EQ(received[0].detail, "lookup");
    EXPECT_EQ(far_call.parent, received[0].id);
    const auto answered = rec.of(event_kind::mcp_response_sent);
    const auto reply = std::find_if(answered.begin(), answered.end(), [&](const ak::event& e) { return e.id == received[0].id; });
    ASSERT_NE(reply, answered.end());
    EXPECT_FALSE(reply->failed());
    // the handshake was reported too
    EXPECT_FALSE(rec.of(event_kind::mcp_request_received).empty());
    EXPECT_TRUE(std::any_of(answered.begin(), answered.end(), [](const ak::event& e) { return e.name == "initialize"; }));
}

TEST(McpObserve, AnErrorAnswerCarriesItsJsonRpcCode) {
    recorder rec;
    ak::toolbox tools{lookup};
    ak::mcp::server_options so;
    so.on_event = rec.observer();
    ak::mcp::server srv{ak::mcp::backend_for(tools), so};
    std::mutex mu;
    std::vector<std::string> out;
    srv.set_sink([&](const std::string& m) {
        std::lock_guard lock(mu);
        out.push_back(m);
    });
    srv.handle(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
    srv.handle(R"({"jsonrpc":"2.0","id":2,"method":"no/such/method"})");
    const auto answered = rec.of(event_kind::mcp_response_sent);
    ASSERT_EQ(answered.size(), 2u);
    EXPECT_EQ(answered[0].name, "initialize");
    EXPECT_FALSE(answered[0].failed());
    EXPECT_EQ(answered[1].name, "no/such/method");
    EXPECT_EQ(answered[1].error_code, "-32601");
    EXPECT_NE(answered[1].error_message.find("no/such/method"), std::string::npos);
    EXPECT_EQ(answered[1].data["request_id"], 2);
}

TEST(McpObserve, TheClientsSpansAreChildrenOfTheToolCallThatMadeThem) {
    ak::span_recorder trace;
    ak::toolbox tools{lookup};
    ak::mcp::server srv{ak::mcp::backend_for(tools)};
    ak::mcp::client_options co;
    co.on_event = trace.observer();
    auto connected = ak::mcp::client::connect(std::make_unique<agentkit::test::in_process_mcp>(srv), co);
    ASSERT_TRUE(connected);
    std::shared_ptr<ak::mcp::client> c = std::move(*connected);
    ak::runtime_toolbox remote_box;
    ASSERT_TRUE(ak::mcp::add_remote_tools(remote_box, c));
    ak::session_options o;
    o.on_event = trace.observer();
    ak::agent_session s{remote_box, ak::all_visible{}, ak::compact_formatter{}, o};
    (void)trace.take();  // the handshake and the listing: a trace of their own
    ak::scripted_model m(ak::provider::anthropic, {ak::script::call({{"lookup", {{"key", "k"}}}}), ak::script::say("done")});
    ASSERT_TRUE(s.run(m, "go").ok());
    c->close();
    const auto spans = trace.spans();
    const auto find = [&](std::string_view name) {
        return std::find_if(spans.begin(), spans.end(), [&](const ak::span& x) { return x.name == name; });
    };
    const auto tool = find("execute_tool lookup");
    const auto call = find("tools/call lookup");
    const auto run = find("invoke_agent");
    ASSERT_NE(tool, spans.end());
    ASSERT_NE(call, spans.end());
    ASSERT_NE(run, spans.end());
    EXPECT_EQ(call->parent_span_id, tool->span_id);
    EXPECT_EQ(call->trace_id, run->trace_id);
    EXPECT_EQ(call->kind, ak::span::kind_t::client);
    EXPECT_EQ(call->attributes["mcp.method.name"], "tools/call");
    EXPECT_EQ(call->attributes["gen_ai.tool.name"], "lookup");
}
