// mcp::client over Streamable HTTP (mcp/http/client.hpp): against agentkit's own HTTP MCP
// server on 127.0.0.1 (sessions, JSON and SSE answers, progress, a bearer token), and against a
// small Python server that breaks an SSE answer before its response (Last-Event-ID resumption)
// and ends a session (404).
#include <agentkit/agentkit.hpp>
#include <agentkit/mcp/http/client.hpp>
#include <agentkit/mcp/http/server.hpp>

#include <gtest/gtest.h>

#include "support/flag.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace ak = agentkit;
namespace mcp = agentkit::mcp;
using ak::json;

namespace {

struct greet_args {
    std::string name;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(greet_args, name, "Who", ak::min_length(1))); }
};

const auto& test_tools() {
    static const auto tools = ak::toolbox{
        ak::tool<"greet">("Greet someone.", [](const greet_args& a) { return "Hello, " + a.name + "!"; }, ak::read_only),
        ak::tool<"count">("Count to three with progress.",
                          [](const ak::no_args&, ak::tool_context& ctx) {
                              for (int i = 1; i <= 3; ++i) ctx.progress(i, 3, "step");
                              return std::string("counted");
                          }),
    };
    return tools;
}

mcp::http_server_endpoint endpoint(std::string url) {
    mcp::http_server_endpoint ep;
    ep.url = std::move(url);
    return ep;
}

mcp::client_options named(std::string name) {
    mcp::client_options o;
    o.server_name = std::move(name);
    return o;
}

// The scripted 2025-11-25 SSE server (fixtures): started with popen, it prints its port and
// exits 0 once a client ended its session with DELETE. `url` is empty when it did not start.
struct sse_server {
    FILE* pipe = nullptr;
    std::string url;
    sse_server() {
        const std::string cmd = std::string(AGENTKIT_TEST_PYTHON) + " " + AGENTKIT_TEST_SSE_SERVER;
        pipe = ::popen(cmd.c_str(), "r");
        char line[64] = {};
        if (pipe != nullptr && std::fgets(line, sizeof line, pipe) != nullptr)
            url = "http://127.0.0.1:" + std::string(line).substr(0, std::string(line).find('\n')) + "/mcp";
    }
    /// Its exit status (0: the session was ended as it expects).
    int wait() {
        const int rc = pipe != nullptr ? ::pclose(pipe) : -1;
        pipe = nullptr;
        return rc;
    }
    ~sse_server() {
        if (pipe != nullptr) (void)::pclose(pipe);
    }
    sse_server(const sse_server&) = delete;
    sse_server& operator=(const sse_server&) = delete;
};

}  // namespace

TEST(McpClientHttp, AgentkitServerSessionJsonAndSse) {
    mcp::server srv{mcp::backend_for(test_tools())};
    mcp::http_options ho;
    mcp::http_transport http{srv, ho};
    ASSERT_TRUE(http.start());
    auto t = std::make_unique<mcp::http_client_transport>(endpoint(http.url()));
    auto* tp = t.get();
    auto c = mcp::client::connect(std::move(t), named("local-http"));
    ASSERT_TRUE(c) << c.error().to_text();
    std::shared_ptr<mcp::client> sc(std::move(*c));
    EXPECT_EQ(sc->protocol_version(), "2025-11-25");
    EXPECT_EQ(tp->session_id().size(), 32u);
    EXPECT_EQ(http.sessions(), 1u);
    auto box = mcp::remote_tools(sc);
    ASSERT_TRUE(box) << box.error().to_text();
    EXPECT_EQ(box->names(), (std::vector<std::string>{"greet", "count"}));
    auto hi = box->call("greet", {{"name", "Ada"}});
    ASSERT_TRUE(hi) << hi.error().to_text();
    EXPECT_EQ(hi->joined_text(), "Hello, Ada!");
    int progress = 0;
    ak::tool_context ctx;
    ctx.on_progress = [&](double, std::optional<double>, std::string_view) { ++progress; };
    auto counted = box->call("count", json::object(), ctx);  // progress first: an SSE answer
    ASSERT_TRUE(counted) << counted.error().to_text();
    EXPECT_EQ(counted->joined_text(), "counted");
    EXPECT_EQ(progress, 3);
    EXPECT_TRUE(sc->ping());
    sc->close();  // DELETE ends the session
    EXPECT_EQ(http.sessions(), 0u);
}

TEST(McpClientHttp, BearerTokenRequiredAndNeverShown) {
    mcp::server srv{mcp::backend_for(test_tools())};
    mcp::http_options ho;
    ho.bearer_token = "s3cret-token-value";
    mcp::http_transport http{srv, ho};
    ASSERT_TRUE(http.start());
    auto without = mcp::client::connect(std::make_unique<mcp::http_client_transport>(endpoint(http.url())), named("guarded"));
    ASSERT_FALSE(without);
    EXPECT_EQ(without.error().code, ak::errc::auth_required);
    EXPECT_NE(without.error().message.find("guarded"), std::string::npos);
    EXPECT_NE(without.error().hint.find("headers"), std::string::npos);
    auto ep = endpoint(http.url());
    ep.headers = {{"Authorization", "Bearer s3cret-token-value"}};
    auto with = mcp::client::connect(std::make_unique<mcp::http_client_transport>(ep), named("guarded"));
    ASSERT_TRUE(with) << with.error().to_text();
    auto r = (*with)->call_tool("nope", json::object());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().to_json().dump().find("s3cret"), std::string::npos);
    EXPECT_EQ((*with)->transport().describe().find("s3cret"), std::string::npos);
}

TEST(McpClientHttp, UnreachableServerNamesItself) {
    auto c = mcp::client::connect(std::make_unique<mcp::http_client_transport>(endpoint("http://127.0.0.1:1/mcp")), named("gone"));
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, ak::errc::transport_io);
    EXPECT_NE(c.error().message.find("gone"), std::string::npos);
    EXPECT_FALSE(c.error().hint.empty());
    auto bad = mcp::client::connect(std::make_unique<mcp::http_client_transport>(endpoint("ftp://example.com/x")), named("ftp"));
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, ak::errc::request_invalid);
}

TEST(McpClientHttp, BrokenSseStreamIsResumedWithLastEventId) {
    sse_server server;
    ASSERT_FALSE(server.url.empty()) << "the SSE fixture server did not start";
    const std::string& url = server.url;
    {
        auto t = std::make_unique<mcp::http_client_transport>(endpoint(url));
        auto* tp = t.get();
        std::atomic<int> closes{0};
        auto o = named("resume");
        o.on_close = [&](const ak::error&) { ++closes; };
        auto c = mcp::client::connect(std::move(t), o);
        ASSERT_TRUE(c) << c.error().to_text();
        EXPECT_EQ(tp->session_id(), "a1b2c3");
        int progress = 0;
        ak::tool_context ctx;
        ctx.on_progress = [&](double, std::optional<double>, std::string_view) { ++progress; };
        auto r = (*c)->call_tool("slow", json::object(), ctx);
        ASSERT_TRUE(r) << r.error().to_text();
        EXPECT_EQ(r->joined_text(), "resumed; versions 2025-11-25");  // MCP-Protocol-Version sent after initialize
        EXPECT_EQ(progress, 1);
        EXPECT_EQ(tp->resumptions(), 1u);
        auto gone = (*c)->call_tool("expire", json::object());
        ASSERT_FALSE(gone);
        EXPECT_EQ(gone.error().code, ak::errc::transport_closed);
        EXPECT_NE(gone.error().message.find("resume"), std::string::npos);
        EXPECT_EQ(closes.load(), 1);
    }  // close: DELETE stops the server
    EXPECT_EQ(server.wait(), 0);
}

// The 2026-07-28 wire against agentkit's own server: no handshake and no session; a tool that
// needs the user's input makes the server answer input_required, which the client answers
// through on_elicitation and retries with the server's requestState.
TEST(McpClientHttp, StatelessWireDiscoversAndAnswersInputRequired) {
    struct ask_args {
        std::string question;
        static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(ask_args, question, "What to ask")); }
    };
    const auto tools = ak::toolbox{
        ak::tool<"ask_name">("Ask the user's name.",
                             [](const ask_args& a, ak::tool_context& ctx) -> ak::result<std::string> {
                                 auto* rq = mcp::request_of(ctx);
                                 if (rq == nullptr) return std::string("no client");
                                 auto answer = rq->ask(mcp::input::elicit(
                                     "name", a.question, json{{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}}));
                                 if (!answer) return ak::fail(answer.error());
                                 return "Hello, " + (*answer)["content"]["name"].get<std::string>() + "!";
                             }),
    };
    mcp::server srv{mcp::backend_for(tools)};
    mcp::http_options ho;
    mcp::http_transport http{srv, ho};
    ASSERT_TRUE(http.start());
    auto t = std::make_unique<mcp::http_client_transport>(endpoint(http.url()));
    auto* tp = t.get();
    auto o = named("stateless");
    o.protocol_version = "2026-07-28";
    int asked = 0;
    o.on_elicitation = [&](const json& params) -> ak::result<json> {
        ++asked;
        EXPECT_EQ(params.value("message", ""), "Your name?");
        return json{{"action", "accept"}, {"content", {{"name", "Ada"}}}};
    };
    auto c = mcp::client::connect(std::move(t), o);
    ASSERT_TRUE(c) << c.error().to_text();
    EXPECT_TRUE((*c)->stateless());
    EXPECT_EQ((*c)->protocol_version(), "2026-07-28");
    EXPECT_TRUE((*c)->server_supports("tools"));
    EXPECT_TRUE(tp->session_id().empty());
    auto listed = (*c)->list_tools();
    ASSERT_TRUE(listed) << listed.error().to_text();
    ASSERT_EQ(listed->size(), 1u);
    auto r = (*c)->call_tool("ask_name", json{{"question", "Your name?"}});
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(r->joined_text(), "Hello, Ada!");
    EXPECT_EQ(asked, 1);
    // Without a host answer for elicitation the call fails and says what to give.
    auto o2 = named("stateless-mute");
    o2.protocol_version = "2026-07-28";
    auto mute = mcp::client::connect(std::make_unique<mcp::http_client_transport>(endpoint(http.url())), o2);
    ASSERT_TRUE(mute) << mute.error().to_text();
    auto refused = (*mute)->call_tool("ask_name", json{{"question", "Your name?"}});
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().code == ak::errc::input_required || refused.error().code == ak::errc::remote_error) << refused.error().to_text();
    (*mute)->close();
    (*c)->close();
}

TEST(McpClientHttp, StatelessClientListensForListChangedAndOpensAnEndedStreamAgain) {
    mcp::server srv{mcp::backend_for(test_tools())};
    mcp::http_options ho;
    mcp::http_transport http{srv, ho};
    ASSERT_TRUE(http.start());
    auto o = named("listening");
    o.protocol_version = "2026-07-28";
    o.listen_retry = std::chrono::milliseconds(20);
    std::atomic<int> changes{0};
    ak::test::flag first_change;
    ak::test::flag reopened_change;
    o.on_tools_changed = [&] {
        if (++changes == 1) first_change.raise();
        else reopened_change.raise();
    };
    auto c = mcp::client::connect(std::make_unique<mcp::http_client_transport>(endpoint(http.url())), o);
    ASSERT_TRUE(c) << c.error().to_text();
    ASSERT_TRUE((*c)->stateless());
    ASSERT_TRUE((*c)->wait_listening(std::chrono::seconds(10)));  // acknowledged: nothing is missed from here on
    EXPECT_EQ(srv.listeners(), 1u);
    EXPECT_EQ(changes.load(), 0);
    srv.notify_tools_changed();
    ASSERT_TRUE(first_change.wait_for(std::chrono::seconds(10)));
    EXPECT_EQ((*c)->listen_reopened(), 0u);
    // the server ends every listen stream (it shuts down): the client opens one again and, since
    // changes meanwhile are not replayed, tells the host to list again
    srv.shutdown(std::chrono::milliseconds(100));
    ASSERT_TRUE(reopened_change.wait_for(std::chrono::seconds(10)));
    EXPECT_GE((*c)->listen_reopened(), 1u);
    (*c)->close();  // ends the listening thread at once, whatever its backoff
    EXPECT_FALSE((*c)->listening());
}

TEST(McpClientHttp, AStatelessClientWithoutListChangedCallbacksOpensNoStream) {
    mcp::server srv{mcp::backend_for(test_tools())};
    mcp::http_options ho;
    mcp::http_transport http{srv, ho};
    ASSERT_TRUE(http.start());
    auto o = named("quiet");
    o.protocol_version = "2026-07-28";
    auto c = mcp::client::connect(std::make_unique<mcp::http_client_transport>(endpoint(http.url())), o);
    ASSERT_TRUE(c) << c.error().to_text();
    ASSERT_TRUE((*c)->list_tools());
    EXPECT_FALSE((*c)->listening());
    EXPECT_FALSE((*c)->wait_listening(std::chrono::milliseconds(10)));
    EXPECT_EQ(srv.listeners(), 0u);
    (*c)->close();
}

TEST(McpClientHttp, StatelessClientFallsBackToTheHandshakeWithAnOlderServer) {
    sse_server server;
    ASSERT_FALSE(server.url.empty()) << "the SSE fixture server did not start";
    const std::string& url = server.url;
    {
        auto o = named("older");
        o.protocol_version = "2026-07-28";
        auto c = mcp::client::connect(std::make_unique<mcp::http_client_transport>(endpoint(url)), o);
        ASSERT_TRUE(c) << c.error().to_text();
        EXPECT_FALSE((*c)->stateless());
        EXPECT_EQ((*c)->protocol_version(), "2025-11-25");
        auto tools = (*c)->list_tools();
        ASSERT_TRUE(tools) << tools.error().to_text();
    }  // close: DELETE stops the server
    EXPECT_EQ(server.wait(), 0);
}

TEST(McpClientHttp, ParameterHeadersAreValidated) {
    auto ok = mcp::parameter_headers(json::parse(R"({"type":"object","properties":{
        "region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},"q":{"type":"string"}}})"));
    ASSERT_TRUE(ok);
    ASSERT_EQ(ok->size(), 2u);
    EXPECT_EQ((*ok)[0].property, "n");  // properties in key order
    EXPECT_EQ((*ok)[1].header, "Region");
    for (const char* bad : {R"({"properties":{"v":{"type":"string","x-mcp-header":""}}})",
                            R"({"properties":{"v":{"type":"object","x-mcp-header":"V"}}})",
                            R"({"properties":{"v":{"type":"number","x-mcp-header":"V"}}})",
                            R"({"properties":{"v":{"type":"string","x-mcp-header":"My Region"}}})",
                            R"({"properties":{"v":{"type":"string","x-mcp-header":"A:B"}}})",
                            R"({"properties":{"a":{"type":"string","x-mcp-header":"Same"},"b":{"type":"string","x-mcp-header":"same"}}})"})
        EXPECT_FALSE(mcp::parameter_headers(json::parse(bad))) << bad;
    EXPECT_TRUE(mcp::parameter_headers(json::object()));
}
