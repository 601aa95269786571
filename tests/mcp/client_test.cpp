// mcp::client over stdio: against a scriptable fake server (every bad day on request), against
// agentkit's own MCP server, and against @modelcontextprotocol/server-everything from npm (when
// AGENTKIT_SERVER_EVERYTHING names its dist/index.js). Remote tools in a runtime_toolbox, under
// a masker and in an agent_session.
#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace ak = agentkit;
namespace mcp = agentkit::mcp;
using ak::json;

namespace {

mcp::stdio_server fake(const std::string& mode = "normal") {
    mcp::stdio_server s;
    s.command = AGENTKIT_TEST_PYTHON;
    s.args = {AGENTKIT_TEST_FAKE_SERVER, mode};
    return s;
}

mcp::stdio_server program(std::string command, std::vector<std::string> args = {}) {
    mcp::stdio_server s;
    s.command = std::move(command);
    s.args = std::move(args);
    return s;
}

mcp::client_options named(std::string name) {
    mcp::client_options o;
    o.server_name = std::move(name);
    return o;
}

std::shared_ptr<mcp::client> connect_fake(const std::string& mode = "normal", mcp::client_options o = {}) {
    if (o.server_name.empty()) o.server_name = "fake";
    auto c = mcp::client::connect(std::make_unique<mcp::stdio_client_transport>(fake(mode)), std::move(o));
    if (!c) {
        ADD_FAILURE() << c.error().to_text();
        return nullptr;
    }
    return std::shared_ptr<mcp::client>(std::move(*c));
}

std::string text_of(const ak::result<ak::tool_output>& r) { return r ? r->joined_text() : r.error().to_text(); }

}  // namespace

TEST(McpClient, HandshakeListsEveryPageAndCalls) {
    auto c = connect_fake();
    ASSERT_TRUE(c);
    EXPECT_EQ(c->protocol_version(), "2025-11-25");
    EXPECT_EQ(c->server_info().value("name", ""), "fake");
    EXPECT_EQ(c->instructions(), "Test server.");
    EXPECT_TRUE(c->server_supports("tools"));
    auto tools = c->list_tools();
    ASSERT_TRUE(tools) << tools.error().to_text();
    ASSERT_EQ(tools->size(), 11u);  // four pages of three
    EXPECT_EQ(tools->front().name, "echo");
    EXPECT_TRUE(tools->front().traits.is_read_only());
    EXPECT_TRUE(tools->front().traits.is_parallel_safe());
    EXPECT_EQ(c->call_tool("echo", {{"message", "hi"}})->joined_text(), "hi");
    auto sum = c->call_tool("add", {{"a", 2}, {"b", 3}});
    ASSERT_TRUE(sum);
    ASSERT_TRUE(sum->structured.has_value());
    EXPECT_EQ((*sum->structured)["sum"], 5);
    auto failed = c->call_tool("fail", json::object());
    ASSERT_TRUE(failed);  // a tool's own failure is a result the model sees
    EXPECT_TRUE(failed->is_error);
    EXPECT_EQ(failed->joined_text(), "it broke");
    auto unknown = c->call_tool("nope", json::object());
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code, ak::errc::remote_error);
    EXPECT_NE(unknown.error().message.find("fake"), std::string::npos);
    EXPECT_EQ(unknown.error().details["code"], -32602);
    EXPECT_TRUE(c->ping());
}

namespace {
// the arguments of the fake server's "add", as a C++ tool would declare them
struct add_args {
    double a = 0;
    double b = 0;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(add_args, a, "A"), AGENTKIT_FIELD(add_args, b, "B")); }
};
}  // namespace

TEST(McpClient, RemoteToolsAreCheckedAgainstTheServersSchema) {
    auto c = connect_fake();
    ASSERT_TRUE(c);
    auto box = mcp::remote_tools(c);
    ASSERT_TRUE(box) << box.error().to_text();
    EXPECT_EQ(box->size(), 11u);
    ASSERT_TRUE(box->contains("weird_name_with_spaces"));  // made a valid name, called by its own
    EXPECT_EQ(text_of(box->call("weird_name_with_spaces", json::object())), "weird ok");
    // the inputSchema keeps its $ref; the check resolves it
    EXPECT_TRUE(box->infos()[1].input_schema["properties"]["a"].contains("$ref"));
    auto bad = box->call("add", {{"a", "two"}, {"b", 3}});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, ak::errc::args_invalid);
    EXPECT_NE(bad.error().message.find("/a"), std::string::npos) << bad.error().message;
    // every problem, in the words and with the hint of a C++ tool taking the same arguments
    const json two_bad{{"a", "two"}, {"b", true}};
    auto remote = box->call("add", two_bad);
    const auto local_add = ak::tool<"add">("Add two numbers.", [](const add_args& x) { return std::to_string(x.a + x.b); });
    auto local = ak::toolbox{local_add}.call("add", two_bad);
    ASSERT_FALSE(remote);
    ASSERT_FALSE(local);
    EXPECT_EQ(remote.error().message, "add: 2 problems in arguments: /a: expected number, got string \"two\"; /b: expected number, got boolean true");
    EXPECT_EQ(remote.error().message, local.error().message);
    EXPECT_EQ(remote.error().hint, local.error().hint);
    EXPECT_EQ(remote.error().details, local.error().details);
    auto missing = box->call("echo", json::object());
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("message"), std::string::npos);
    EXPECT_EQ(text_of(box->call("add", {{"a", 1}, {"b", 2}})), "3");
    // a second server with the same names: prefixed with its name
    auto c2 = connect_fake("normal", named("other"));
    ASSERT_TRUE(c2);
    mcp::remote_tool_options only_echo;
    only_echo.only = {"echo"};
    auto added = mcp::add_remote_tools(*box, c2, only_echo);
    ASSERT_TRUE(added) << added.error().to_text();
    ASSERT_EQ(added->size(), 1u);
    EXPECT_EQ(added->front(), "other_echo");
    EXPECT_EQ(text_of(box->call("other_echo", {{"message", "two"}})), "two");
}

TEST(McpClient, ARemoteToolListKeepsItsServersOrderWhenServedAgain) {
    auto c = connect_fake("ordered");
    ASSERT_TRUE(c);
    auto box = mcp::remote_tools(c);
    ASSERT_TRUE(box) << box.error().to_text();
    ASSERT_EQ(box->size(), 1u);
    const json& schema = box->infos()[0].input_schema;
    EXPECT_EQ(ak::declared_order(schema["properties"]), (std::vector<std::string>{"query", "limit", "where", "a/b~c", "after"}));
    EXPECT_EQ(ak::declared_order(schema["properties"]["where"]["properties"]), (std::vector<std::string>{"zeta", "alpha"}));
    // served again (as agentkit-mcp-gateway does): the server's order, not the keys'
    mcp::server_options o;
    o.stderr_level = "off";
    mcp::server srv(mcp::backend_for(*box), o);
    std::mutex mu;
    std::condition_variable cv;
    std::string listed;
    srv.set_sink([&](const std::string& line) {
        std::lock_guard lock(mu);
        if (line.find("\"tools\":[") != std::string::npos) listed = line;
        cv.notify_all();
    });
    srv.handle(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                    {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}, {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}}
                   .dump());
    srv.handle(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump());
    srv.handle(json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}}.dump());
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return !listed.empty(); }));
    std::size_t at = 0;
    for (const char* name : {"query", "limit", "where", "zeta", "alpha", "a/b~c", "after"}) {
        const std::size_t found = listed.find(std::string("\"") + name + "\":", at);
        ASSERT_NE(found, std::string::npos) << name << " not after the one before in " << listed;
        at = found;
    }
}

TEST(McpClient, ProgressReachesTheCallersContext) {
    auto c = connect_fake();
    ASSERT_TRUE(c);
    std::vector<std::string> seen;
    ak::tool_context ctx;
    ctx.on_progress = [&](double done, std::optional<double> total, std::string_view msg) {
        seen.push_back(std::to_string(static_cast<int>(done)) + "/" + std::to_string(static_cast<int>(total.value_or(0))) + " " +
                       std::string(msg));
    };
    auto r = c->call_tool("progress", json::object(), ctx);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(r->joined_text(), "done");
    EXPECT_EQ(seen, (std::vector<std::string>{"1/3 step 1", "2/3 step 2", "3/3 step 3"}));
}

TEST(McpClient, StopTokenCancelsTheRemoteCall) {
    auto c = connect_fake();
    ASSERT_TRUE(c);
    std::stop_source stop;
    ak::tool_context ctx;
    ctx.stop = stop.get_token();
    ctx.on_progress = [&](double, std::optional<double>, std::string_view) { stop.request_stop(); };  // the server has the call
    auto r = c->call_tool("hang", json::object(), ctx);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::tool_cancelled);
    // the server was told (notifications/cancelled is sent before the next request)
    auto ids = json::parse(c->call_tool("cancelled_ids", json::object())->joined_text());
    EXPECT_EQ(ids.size(), 1u);
    EXPECT_TRUE(c->ping());  // the connection goes on
}

TEST(McpClient, DeadlineTimesOutAndCancels) {
    auto c = connect_fake();
    ASSERT_TRUE(c);
    ak::tool_context ctx;
    ctx.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    auto r = c->call_tool("hang", json::object(), ctx);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::tool_timeout);
    EXPECT_NE(r.error().message.find("fake"), std::string::npos);
    EXPECT_FALSE(r.error().hint.empty());
    auto ids = json::parse(c->call_tool("cancelled_ids", json::object())->joined_text());
    EXPECT_EQ(ids.size(), 1u);
}

TEST(McpClient, ServerRequestsAreAnsweredByTheHost) {
    mcp::client_options o;
    o.roots = {{.uri = "file:///work/project", .name = "project"}};
    o.on_sampling = [](const json& params) -> ak::result<json> {
        EXPECT_EQ(params["maxTokens"], 10);
        return json{{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "sampled"}}}, {"model", "test-model"}};
    };
    o.on_elicitation = [](const json& params) -> ak::result<json> {
        EXPECT_EQ(params["message"], "Your name?");
        return json{{"action", "accept"}, {"content", {{"name", "Ada"}}}};
    };
    auto c = connect_fake("normal", std::move(o));
    ASSERT_TRUE(c);
    auto r = c->call_tool("ask", json::object());
    ASSERT_TRUE(r) << r.error().to_text();
    const json answers = json::parse(r->joined_text());
    EXPECT_EQ(answers["sampling"]["content"]["text"], "sampled");
    EXPECT_EQ(answers["elicitation"]["content"]["name"], "Ada");
    EXPECT_EQ(answers["roots"]["roots"][0]["uri"], "file:///work/project");
}

// URL-mode elicitation (2025-11-25) is declared only when the host asks for it; a request in a
// mode the client did not declare is refused with -32602 and never reaches the host.
TEST(McpClient, UrlModeElicitationIsDeclaredOnRequestAndAModeNotDeclaredIsRefused) {
    for (const bool url : {false, true}) {
        SCOPED_TRACE(url ? "URL mode declared" : "form mode only");
        auto asked = std::make_shared<std::vector<json>>();
        mcp::client_options o;
        o.url_elicitation = url;
        o.on_elicitation = [asked](const json& params) -> ak::result<json> {
            asked->push_back(params);
            return json{{"action", "accept"}};
        };
        auto c = connect_fake("urls", std::move(o));
        ASSERT_TRUE(c);
        auto r = c->call_tool("ask_url", json::object());
        ASSERT_TRUE(r) << r.error().to_text();
        if (url) {
            ASSERT_EQ(asked->size(), 1u);
            EXPECT_EQ((*asked)[0]["mode"], "url");
            EXPECT_EQ((*asked)[0]["url"].get<std::string>().rfind("https://auth.example.test/ask/", 0), 0u);
            EXPECT_EQ(r->joined_text(), R"(answer: {"action": "accept"})");
        } else {
            EXPECT_TRUE(asked->empty());
            EXPECT_NE(r->joined_text().find("-32602"), std::string::npos) << r->joined_text();
            EXPECT_NE(r->joined_text().find("did not declare url-mode elicitation"), std::string::npos) << r->joined_text();
        }
    }
}

// A server's -32042 reaches the host as remote.error with the elicitations to complete, and its
// notifications/elicitation/complete reach on_elicitation_complete.
TEST(McpClient, AUrlElicitationRequiredErrorAndItsCompletionNoticeReachTheHost) {
    auto done = std::make_shared<std::vector<std::string>>();
    mcp::client_options o;
    o.url_elicitation = true;
    o.on_elicitation = [](const json&) -> ak::result<json> { return json{{"action", "accept"}}; };
    o.on_elicitation_complete = [done](const json& params) { done->push_back(params.value("elicitationId", "")); };
    auto c = connect_fake("urls", std::move(o));
    ASSERT_TRUE(c);
    auto r = c->call_tool("connect", json::object());
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().is(ak::errc::remote_error)) << r.error().to_text();
    EXPECT_EQ(r.error().details["code"], -32042);
    EXPECT_EQ(r.error().details["message"], "This request requires more information.");
    const json els = r.error().details["data"]["elicitations"];
    ASSERT_EQ(els.size(), 1u);
    const std::string id = els[0]["elicitationId"].get<std::string>();
    // the notice comes before the answer to the call that sends it
    ASSERT_TRUE(c->call_tool("complete", json{{"id", id}}));
    EXPECT_EQ(*done, std::vector<std::string>{id});
}

// A person takes longer to answer than the server is given to answer a call: the time the host
// spends answering the server's own request does not count against that call.
TEST(McpClient, TheTimeTheHostSpendsAnsweringTheServerIsNotTheServersDelay) {
    mcp::client_options o;
    o.request_timeout = std::chrono::milliseconds(300);
    o.roots = {{.uri = "file:///work/project", .name = "project"}};
    o.on_sampling = [](const json&) -> ak::result<json> {
        return json{{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "sampled"}}}, {"model", "test-model"}};
    };
    o.on_elicitation = [](const json&) -> ak::result<json> {
        std::this_thread::sleep_for(std::chrono::milliseconds(900));  // a person thinking, not a synchronisation
        return json{{"action", "accept"}, {"content", {{"name", "Ada"}}}};
    };
    auto c = connect_fake("normal", std::move(o));
    ASSERT_TRUE(c);
    auto r = c->call_tool("ask", json::object());
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(json::parse(r->joined_text())["elicitation"]["content"]["name"], "Ada");
    // and a server that does not answer at all still times out
    auto hung = c->call_tool("hang", json::object());
    ASSERT_FALSE(hung);
    EXPECT_EQ(hung.error().code, ak::errc::tool_timeout) << hung.error().to_text();
}

TEST(McpClient, UndeclaredServerRequestsAreRefused) {
    auto c = connect_fake();  // no callbacks, no roots
    ASSERT_TRUE(c);
    auto r = c->call_tool("ask", json::object());
    ASSERT_TRUE(r) << r.error().to_text();
    const json answers = json::parse(r->joined_text());
    EXPECT_EQ(answers["sampling"]["code"], -32601);
    EXPECT_EQ(answers["elicitation"]["code"], -32601);
    EXPECT_EQ(answers["roots"]["code"], -32601);
}

TEST(McpClient, ListChangedReachesTheHost) {
    std::atomic<int> changed{0};
    auto o = named("fake");
    o.on_tools_changed = [&] { ++changed; };
    auto c = connect_fake("normal", o);
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->call_tool("change", json::object()));
    EXPECT_EQ(changed.load(), 1);  // the notification came before the answer, in order
    EXPECT_EQ(c->list_tools()->size(), 12u);
}

// ---- bad days ---------------------------------------------------------------------------

// Tasks (2025-11-25): a tool the server marks taskSupport "required" is called as a task and
// polled to its result; the host sees an ordinary call.
TEST(McpClientTasks, RequiredTaskToolsArePolledToTheirResult) {
    auto started = std::make_shared<std::vector<std::pair<std::string, std::thread::id>>>();
    mcp::client_options o;
    o.on_task_started = [started](const std::string& id) { started->emplace_back(id, std::this_thread::get_id()); };
    auto c = connect_fake("tasks", std::move(o));
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->server_runs_tool_tasks());
    auto tools = c->list_tools();
    ASSERT_TRUE(tools) << tools.error().to_text();
    std::vector<std::string> seen;
    ak::tool_context ctx;
    ctx.on_progress = [&](double done, std::optional<double>, std::string_view msg) {
        seen.push_back(std::to_string(static_cast<int>(done)) + " " + std::string(msg));
    };
    auto r = c->call_tool("research", {{"topic", "moths"}}, ctx);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_FALSE(r->is_error);
    EXPECT_EQ(r->joined_text(), "report on moths");
    // the host heard which task the call became, on the calling thread
    ASSERT_EQ(started->size(), 1u);
    EXPECT_EQ((*started)[0].first, "task-1");
    EXPECT_EQ((*started)[0].second, std::this_thread::get_id());
    // the server's progress for the task's token reached the call after tools/call had answered
    EXPECT_EQ(seen, (std::vector<std::string>{"1 poll 1", "2 poll 2"}));
    // an optional tool is called directly; an ordinary tool too
    EXPECT_EQ(text_of(c->call_tool("either", json::object())), "either, without a task");
    EXPECT_EQ(text_of(c->call_tool("echo", {{"message", "plain"}})), "plain");
    const json log = json::parse(c->call_tool("task_log", json::object())->joined_text());
    EXPECT_EQ(log, json({"research as a task", "result task-1", "either called", "task_log called"}));
}

TEST(McpClientTasks, TheToolListIsReadWhenTheHostCallsFirst) {
    auto c = connect_fake("tasks");  // the host never lists the tools
    ASSERT_TRUE(c);
    EXPECT_EQ(text_of(c->call_tool("research", {{"topic", "bees"}})), "report on bees");
}

TEST(McpClientTasks, InputRequiredIsAnsweredThroughTasksResult) {
    mcp::client_options o;
    o.on_elicitation = [](const json& params) -> ak::result<json> {
        EXPECT_EQ(params["message"], "Which topic?");
        EXPECT_EQ(params["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], "task-1");
        return json{{"action", "accept"}, {"content", {{"topic", "owls"}}}};
    };
    auto c = connect_fake("tasks", std::move(o));
    ASSERT_TRUE(c);
    auto r = c->call_tool("clarify", json::object());
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(r->joined_text(), "clarified: {\"topic\": \"owls\"}");
}

TEST(McpClientTasks, AFailedTaskNamesTheToolAndTheTask) {
    auto c = connect_fake("tasks");
    ASSERT_TRUE(c);
    auto r = c->call_tool("doomed", json::object());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::remote_error);
    EXPECT_NE(r.error().message.find("doomed (task task-1, failed) failed"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("the research broke"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().details["task"], "task-1");
    EXPECT_TRUE(c->ping());
}

TEST(McpClientTasks, StopAndDeadlineCancelTheTask) {
    auto c = connect_fake("tasks");
    ASSERT_TRUE(c);
    {
        std::stop_source stop;
        ak::tool_context ctx;
        ctx.stop = stop.get_token();
        // the first status message means the task exists on the server: stop then
        ctx.on_progress = [&](double, std::optional<double>, std::string_view) { stop.request_stop(); };
        auto r = c->call_tool("endless", json::object(), ctx);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, ak::errc::tool_cancelled);
        EXPECT_EQ(r.error().details["task"], "task-1");
    }
    {
        ak::tool_context ctx;
        ctx.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
        auto r = c->call_tool("endless", json::object(), ctx);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, ak::errc::tool_timeout);
        EXPECT_FALSE(r.error().hint.empty());
    }
    const json log = json::parse(c->call_tool("task_log", json::object())->joined_text());
    EXPECT_EQ(log, json({"endless as a task", "cancel task-1", "endless as a task", "cancel task-2", "task_log called"}));
}

TEST(McpClientBadDays, ServerThatCrashesOnStartNamesItselfAndItsStderr) {
    auto c = mcp::client::connect(std::make_unique<mcp::stdio_client_transport>(fake("crash")), named("crashy"));
    ASSERT_FALSE(c);
    const ak::error& e = c.error();
    EXPECT_EQ(e.code, ak::errc::transport_closed);
    EXPECT_NE(e.message.find("crashy"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("exited with status 3"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("EXAMPLE_API_KEY is not set"), std::string::npos) << e.message;
    EXPECT_FALSE(e.hint.empty());
}

TEST(McpClientBadDays, MissingProgramIsReportedWithWhatToDo) {
    auto c = mcp::client::connect(std::make_unique<mcp::stdio_client_transport>(program("/nonexistent/mcp-server")), named("ghost"));
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, ak::errc::transport_io);
    EXPECT_NE(c.error().message.find("ghost"), std::string::npos);
    EXPECT_NE(c.error().hint.find("command"), std::string::npos);
}

TEST(McpClientBadDays, ServerThatNeverAnswersInitializeTimesOut) {
    auto o = named("sleepy");
    o.initialize_timeout = std::chrono::milliseconds(300);
    auto c = mcp::client::connect(std::make_unique<mcp::stdio_client_transport>(fake("hang")), o);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, ak::errc::timeout);
    EXPECT_NE(c.error().message.find("sleepy"), std::string::npos);
    EXPECT_NE(c.error().message.find("initialize"), std::string::npos);
}

TEST(McpClientBadDays, NonProtocolBytesOnStdoutAreSkipped) {
    auto c = connect_fake("noise");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->call_tool("echo", {{"message", "still here"}})->joined_text(), "still here");
    auto& t = dynamic_cast<mcp::stdio_client_transport&>(c->transport());
    EXPECT_GE(t.noise_lines(), 2u);
}

TEST(McpClientBadDays, MalformedAnswerTimesOutAloneAndTheConnectionGoesOn) {
    auto o = named("fake");
    o.request_timeout = std::chrono::milliseconds(300);
    auto c = connect_fake("malformed", o);
    ASSERT_TRUE(c);
    auto r = c->list_tools();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::timeout);
    EXPECT_GE(c->noise(), 1u);
    EXPECT_TRUE(c->ping());
}

TEST(McpClientBadDays, NotificationFloodDoesNotStopTheAnswers) {
    std::atomic<int> logs{0};
    auto o = named("fake");
    o.on_log = [&](const json&) { ++logs; };
    auto c = connect_fake("flood", o);
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->ping());
    EXPECT_EQ(logs.load(), 20000);  // delivered in order, before the ping's answer
    EXPECT_EQ(c->call_tool("echo", {{"message", "ok"}})->joined_text(), "ok");
}

TEST(McpClientBadDays, HugeResultFailsOnlyItsOwnCall) {
    auto server = fake();
    server.max_message_bytes = std::size_t{1} << 20U;
    auto c = mcp::client::connect(std::make_unique<mcp::stdio_client_transport>(server), named("big"));
    ASSERT_TRUE(c) << c.error().to_text();
    auto r = (*c)->call_tool("big", {{"bytes", 3 << 20}});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::budget_exceeded);
    EXPECT_NE(r.error().message.find("big"), std::string::npos);
    EXPECT_EQ((*c)->call_tool("big", {{"bytes", 5}})->joined_text(), "xxxxx");
}

TEST(McpClientBadDays, ServerThatDiesFailsPendingCallsAndLaterOnes) {
    std::atomic<int> closes{0};
    auto o = named("fake");
    o.on_close = [&](const ak::error&) { ++closes; };
    auto c = connect_fake("normal", o);
    ASSERT_TRUE(c);
    auto r = c->call_tool("die", json::object());  // the server exits while the call waits
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::transport_closed);
    EXPECT_NE(r.error().message.find("fake"), std::string::npos);
    EXPECT_NE(r.error().message.find("exited with status 1"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("dying on request"), std::string::npos) << r.error().message;  // its stderr
    EXPECT_EQ(closes.load(), 1);  // on_close ran before the waiting call failed
    EXPECT_FALSE(c->connected());
    auto again = c->call_tool("echo", {{"message", "x"}});
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().code, ak::errc::transport_closed);
    EXPECT_FALSE(again.error().hint.empty());
}

// ---- remote tools beside compile-time tools, under maskers and in a session ----------------

namespace {
struct note_args {
    std::string text;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(note_args, text, "The note")); }
};
}  // namespace

TEST(McpClientRemoteTools, BesideLocalToolsUnderAMenuAndInASession) {
    auto c = connect_fake();
    ASSERT_TRUE(c);
    ak::runtime_toolbox box;
    ASSERT_TRUE(box.add_all(ak::toolbox{ak::tool<"note">("Keep a note.", [](const note_args& a) { return "noted " + a.text; })}));
    mcp::remote_tool_options ro;
    ro.prefix = "fake_";
    ro.only = {"echo", "add"};
    ASSERT_TRUE(mcp::add_remote_tools(box, c, ro));
    EXPECT_EQ(box.names(), (std::vector<std::string>{"note", "fake_echo", "fake_add"}));
    ak::runtime_tool same;
    same.info = box.infos()[0];
    same.handler = [](const json&, ak::tool_context&) -> ak::result<ak::tool_output> { return ak::tool_output::text("x"); };
    auto dup = box.add(same);
    ASSERT_FALSE(dup);
    EXPECT_EQ(dup.error().code, ak::errc::tool_name_taken);

    // a run-time menu: one mode per server
    ak::menu_runtime menu({{.name = "local", .description = "Notes", .intent = "notes", .tools = {"note"}},
                           {.name = "fake", .description = "The fake server", .intent = "echo, sums", .tools = {"fake_echo", "fake_add"}}},
                          {}, "", {});
    auto backend = mcp::backend_for(box, menu);
    std::set<std::string> visible;
    for (const auto& t : backend.list_tools()) visible.insert(t.name);
    EXPECT_EQ(visible.count("fake_echo"), 0u);
    EXPECT_EQ(visible.count("menu_enter"), 1u);
    ak::tool_context ctx;
    ASSERT_TRUE(backend.call_tool("menu_enter", {{"mode", "fake"}}, ctx));
    EXPECT_EQ(text_of(backend.call_tool("fake_add", {{"a", 20}, {"b", 22}}, ctx)), "42");

    // an agent session over the same toolbox
    ak::agent_session s{box};
    ak::scripted_model m(ak::provider::anthropic, {
                                                      ak::script::call({{"fake_echo", {{"message", "from the model"}}}, {"note", {{"text", "n"}}}}),
                                                      ak::script::say("Done."),
                                                  });
    auto r = s.run(m, "Echo something.");
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->to_text() : "");
    ASSERT_GE(s.history().size(), 3u);
    EXPECT_EQ(s.history()[2].results.at(0).output.joined_text(), "from the model");
    EXPECT_EQ(s.history()[2].results.at(1).output.joined_text(), "noted n");
}

// ---- agentkit's own server, and server-everything from npm ---------------------------------

TEST(McpClientAgainstServers, AgentkitServer) {
    auto c = mcp::client::connect(std::make_unique<mcp::stdio_client_transport>(program(AGENTKIT_TEST_AGENTKIT_SERVER)), named("agentkit-test"));
    ASSERT_TRUE(c) << c.error().to_text();
    std::shared_ptr<mcp::client> sc(std::move(*c));
    EXPECT_EQ(sc->server_info().value("name", ""), "agentkit-test");
    auto box = mcp::remote_tools(sc);
    ASSERT_TRUE(box) << box.error().to_text();
    EXPECT_EQ(box->names(), (std::vector<std::string>{"greet", "count_steps"}));
    EXPECT_EQ(text_of(box->call("greet", {{"name", "Ada"}})), "Hello, Ada!");
    auto empty = box->call("greet", {{"name", ""}});  // minLength from the server's schema
    ASSERT_FALSE(empty);
    EXPECT_EQ(empty.error().code, ak::errc::args_invalid);
    int progress = 0;
    ak::tool_context ctx;
    ctx.on_progress = [&](double, std::optional<double>, std::string_view) { ++progress; };
    EXPECT_EQ(text_of(box->call("count_steps", {{"steps", 4}}, ctx)), "counted 4");
    EXPECT_EQ(progress, 4);
}

// agentkit-mcp-gateway in front of server-everything, its client speaking the stateless protocol
// (2026-07-28): the server's questions during a call come back as input_required rounds, the
// client's answers go to the call parked between them.
// URL mode through the gateway for a stateless client (2026-07-28, which has no -32042): a URL
// question comes in an input_required round; a server's -32042 becomes a tool error naming the URL.
TEST(McpClientAgainstServers, TheGatewayPassesUrlModeToAStatelessClientAndNeverA32042) {
#ifndef AGENTKIT_TEST_GATEWAY
    GTEST_SKIP() << "built without the apps (agentkit-mcp-gateway)";
#else
    std::string dir = (std::filesystem::temp_directory_path() / "agentkit-relay-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    struct remove_dir {
        const std::string& dir;
        ~remove_dir() { std::filesystem::remove_all(dir); }
    } const cleanup{dir};
    const std::string file = dir + "/servers.json";
    std::ofstream(file) << json{{"mcpServers", {{"urls", {{"command", AGENTKIT_TEST_PYTHON}, {"args", {AGENTKIT_TEST_FAKE_SERVER, "urls"}}}}}}}.dump();
    auto asked = std::make_shared<std::vector<json>>();
    mcp::client_options o = named("gateway");
    o.protocol_version = "2026-07-28";
    o.url_elicitation = true;
    o.on_elicitation = [asked](const json& p) -> ak::result<json> {
        asked->push_back(p);
        return json{{"action", "accept"}};
    };
    auto c = mcp::client::connect(
        std::make_unique<mcp::stdio_client_transport>(program(AGENTKIT_TEST_GATEWAY, {"--config", file, "--mask", "none", "--log-dir", dir})), std::move(o));
    ASSERT_TRUE(c) << c.error().to_text();
    ASSERT_TRUE((*c)->stateless());
    auto q = (*c)->call_tool("ask_url", json::object());
    ASSERT_TRUE(q) << q.error().to_text();
    EXPECT_EQ(q->joined_text(), R"(answer: {"action": "accept"})");
    ASSERT_EQ(asked->size(), 1u);
    EXPECT_EQ((*asked)[0]["mode"], "url");
    auto r = (*c)->call_tool("connect", json::object());
    ASSERT_TRUE(r) << r.error().to_text();  // a tool error, not a JSON-RPC error
    EXPECT_TRUE(r->is_error);
    EXPECT_NE(r->joined_text().find("https://auth.example.test/connect/"), std::string::npos) << r->joined_text();
    EXPECT_NE(r->joined_text().find("call the tool again"), std::string::npos) << r->joined_text();
#endif
}

TEST(McpClientAgainstServers, TheGatewayPassesAServersQuestionsToAStatelessClient) {
#ifndef AGENTKIT_TEST_GATEWAY
    GTEST_SKIP() << "built without the apps (agentkit-mcp-gateway)";
#else
    const char* entry = std::getenv("AGENTKIT_SERVER_EVERYTHING");
    if (entry == nullptr || *entry == '\0') GTEST_SKIP() << "AGENTKIT_SERVER_EVERYTHING is not set";
    std::string dir = (std::filesystem::temp_directory_path() / "agentkit-relay-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    struct remove_dir {
        const std::string& dir;
        ~remove_dir() { std::filesystem::remove_all(dir); }  // also when an assertion ends the test
    } const cleanup{dir};
    const std::string file = dir + "/servers.json";
    std::ofstream(file) << json{{"mcpServers", {{"everything", {{"command", "node"}, {"args", {entry, "stdio"}}}}}}}.dump();
    std::string relayed_task;  // a long relayed call becomes the gateway's task (tasks extension)
    auto connect = [&](bool answers, int& elicited, int& sampled) -> std::shared_ptr<mcp::client> {
        mcp::client_options o = named("gateway");
        o.protocol_version = "2026-07-28";
        o.on_task_started = [&relayed_task](const std::string& id) { relayed_task = id; };
        if (answers) {
            o.on_elicitation = [&elicited](const json& p) -> ak::result<json> {
                ++elicited;
                EXPECT_EQ(p.value("message", ""), "Please provide inputs for the following fields:");
                return json{{"action", "accept"}, {"content", {{"name", "Ada Lovelace"}, {"check", true}}}};
            };
            o.on_sampling = [&sampled](const json& p) -> ak::result<json> {
                ++sampled;
                const std::string asked = p["messages"][0]["content"].value("text", "");
                return json{{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "stateless answer to <" + asked + ">"}}}, {"model", "scripted"}};
            };
        }
        auto c = mcp::client::connect(std::make_unique<mcp::stdio_client_transport>(program(AGENTKIT_TEST_GATEWAY, {"--config", file, "--mask", "none", "--log-dir", dir})),
                                      std::move(o));
        if (!c) {
            ADD_FAILURE() << c.error().to_text();
            return nullptr;
        }
        return std::shared_ptr<mcp::client>(std::move(*c));
    };
    int elicited = 0, sampled = 0;
    auto c = connect(true, elicited, sampled);
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->stateless());
    auto tools = c->list_tools();
    ASSERT_TRUE(tools) << tools.error().to_text();
    std::set<std::string> names;
    for (const auto& t : *tools) names.insert(t.name);
    ASSERT_TRUE(names.count("trigger-elicitation-request") && names.count("trigger-sampling-request"));

    auto e = c->call_tool("trigger-elicitation-request", json::object());
    ASSERT_TRUE(e) << e.error().to_text();
    EXPECT_FALSE(e->is_error) << e->joined_text();
    EXPECT_NE(e->joined_text().find("Ada Lovelace"), std::string::npos) << e->joined_text();
    EXPECT_EQ(elicited, 1);

    auto s = c->call_tool("trigger-sampling-request", json{{"prompt", "tide pools"}, {"maxTokens", 20}});
    ASSERT_TRUE(s) << s.error().to_text();
    EXPECT_FALSE(s->is_error) << s->joined_text();
    EXPECT_NE(s->joined_text().find("stateless answer to <Resource trigger-sampling-request context: tide pools>"), std::string::npos)
        << s->joined_text();
    EXPECT_EQ(sampled, 1);

    // a relayed call that runs past the gateway's promote_after (1 s) is answered with a task,
    // which the client follows to the server's result
    ASSERT_TRUE(names.count("trigger-long-running-operation"));
    auto longer = c->call_tool("trigger-long-running-operation", json{{"duration", 2}, {"steps", 2}});
    ASSERT_TRUE(longer) << longer.error().to_text();
    EXPECT_FALSE(longer->is_error) << longer->joined_text();
    EXPECT_NE(longer->joined_text().find("completed"), std::string::npos) << longer->joined_text();
    EXPECT_EQ(relayed_task.size(), 32u);
    // a call without questions is answered in one round, as before
    EXPECT_NE(text_of(c->call_tool("echo", json{{"message", "plain"}})).find("plain"), std::string::npos);

    // a stateless client that declares neither: the server is told so, and its tool says it
    int unused1 = 0, unused2 = 0;
    auto plain = connect(false, unused1, unused2);
    ASSERT_TRUE(plain);
    auto refused = plain->call_tool("trigger-elicitation-request", json::object());
    const std::string said = refused ? refused->joined_text() : refused.error().to_text();
    EXPECT_TRUE(!refused || refused->is_error) << said;
    EXPECT_NE(said.find("did not declare the elicitation capability"), std::string::npos) << said;
    EXPECT_NE(text_of(plain->call_tool("echo", json{{"message", "still here"}})).find("still here"), std::string::npos);
    c->close();
    plain->close();
#endif
}

TEST(McpClientAgainstServers, ServerEverythingFromNpm) {
    const char* entry = std::getenv("AGENTKIT_SERVER_EVERYTHING");
    if (entry == nullptr || *entry == '\0') GTEST_SKIP() << "AGENTKIT_SERVER_EVERYTHING is not set";
    mcp::client_options o;
    o.server_name = "everything";
    o.roots = {{.uri = "file:///tmp", .name = "tmp"}};
    o.on_sampling = [](const json&) -> ak::result<json> {
        return json{{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "a sampled answer"}}}, {"model", "test"}};
    };
    // The tools that depend on the client's capabilities are registered after initialize and
    // announced with tools/list_changed.
    std::mutex mu;
    std::condition_variable cv;
    bool changed = false;
    o.on_tools_changed = [&] {
        std::lock_guard lock(mu);
        changed = true;
        cv.notify_all();
    };
    auto c = mcp::client::connect(std::make_unique<mcp::stdio_client_transport>(program("node", {entry, "stdio"})),
                                  std::move(o));
    ASSERT_TRUE(c) << c.error().to_text();
    std::shared_ptr<mcp::client> sc(std::move(*c));
    auto box = mcp::remote_tools(sc);
    ASSERT_TRUE(box) << box.error().to_text();
    if (!box->contains("trigger-sampling-request")) {
        std::unique_lock lock(mu);
        ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return changed; }));
        lock.unlock();
        box = mcp::remote_tools(sc);
        ASSERT_TRUE(box) << box.error().to_text();
    }
    ASSERT_TRUE(box->contains("echo"));
    ASSERT_TRUE(box->contains("get-sum"));
    ASSERT_TRUE(box->contains("trigger-long-running-operation"));
    ASSERT_TRUE(box->contains("trigger-sampling-request"));
    EXPECT_NE(text_of(box->call("echo", {{"message", "hello npm"}})).find("hello npm"), std::string::npos);
    {
        auto bad = box->call("get-sum", {{"a", "one"}, {"b", 2}});
        ASSERT_FALSE(bad);
        EXPECT_EQ(bad.error().code, ak::errc::args_invalid);
        EXPECT_NE(text_of(box->call("get-sum", {{"a", 1}, {"b", 2}})).find('3'), std::string::npos);
    }
    {
        int progress = 0;
        ak::tool_context ctx;
        ctx.on_progress = [&](double, std::optional<double>, std::string_view) { ++progress; };
        auto r = box->call("trigger-long-running-operation", {{"duration", 1}, {"steps", 3}}, ctx);
        ASSERT_TRUE(r) << r.error().to_text();
        EXPECT_EQ(progress, 3);
    }
    {
        auto r = box->call("trigger-sampling-request", {{"prompt", "hi"}});
        ASSERT_TRUE(r) << r.error().to_text();
        EXPECT_NE(r->joined_text().find("a sampled answer"), std::string::npos) << r->joined_text();
    }
    if (box->contains("simulate-research-query")) {  // a task tool (execution.taskSupport "required")
        std::vector<std::string> stages;
        ak::tool_context ctx;
        ctx.on_progress = [&](double, std::optional<double>, std::string_view msg) { stages.emplace_back(msg); };
        auto r = box->call("simulate-research-query", {{"topic", "tide pools"}}, ctx);
        ASSERT_TRUE(r) << r.error().to_text();
        EXPECT_FALSE(r->is_error) << r->joined_text();
        EXPECT_NE(r->joined_text().find("Research Report: tide pools"), std::string::npos) << r->joined_text();
        EXPECT_FALSE(stages.empty());  // its status messages, as progress
    }
    auto resources = sc->list_resources();
    ASSERT_TRUE(resources) << resources.error().to_text();
    if (!resources->empty()) {
        auto read = sc->read_resource((*resources)[0]["uri"].get<std::string>());
        ASSERT_TRUE(read) << read.error().to_text();
        EXPECT_FALSE(read->empty());
    }
    auto prompts = sc->list_prompts();
    ASSERT_TRUE(prompts) << prompts.error().to_text();
    for (const auto& p : *prompts)
        if (p.value("name", "") == "simple-prompt") {
            auto got = sc->get_prompt("simple-prompt");
            ASSERT_TRUE(got) << got.error().to_text();
            EXPECT_TRUE((*got)["messages"].is_array());
        }
}
