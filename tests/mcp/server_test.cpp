#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <condition_variable>
#include <latch>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

namespace ak = agentkit;
namespace mcp = agentkit::mcp;
using ak::json;
using namespace std::chrono_literals;

namespace {

struct text_args {
    std::string text;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(text_args, text, "Text", ak::min_length(1)));
    }
};

struct rendezvous {
    std::mutex mu;
    std::condition_variable cv;
    int arrived = 0;
    int concurrent = 0;
    int max_concurrent = 0;
};
rendezvous g_meet;

const auto echo = ak::tool<"echo">("Echo text.", [](const text_args& a) { return a.text; }, ak::read_only);

// Waits (bounded) until cancelled.
const auto wait_cancel = ak::tool<"wait_cancel">("Waits until cancelled.", [](const text_args&, ak::tool_context& ctx) {
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock lock(m);
    const bool stopped = cv.wait_for(lock, ctx.stop, 10s, [] { return false; });
    (void)stopped;
    return std::string(ctx.cancelled() ? "cancelled" : "timed out");
});

const auto progress = ak::tool<"progress">("Reports progress.", [](const text_args&, ak::tool_context& ctx) {
    ctx.progress(1, 3, "one");
    ctx.progress(1, 3, "again");  // not increasing: dropped
    ctx.progress(2, 3, "two");
    return std::string("done");
});

// Two of these meet each other: only possible when they run concurrently.
const auto meet = ak::tool<"meet">(
    "Parallel-safe rendezvous.",
    [](const text_args&) {
        std::unique_lock lock(g_meet.mu);
        ++g_meet.arrived;
        g_meet.cv.notify_all();
        const bool both = g_meet.cv.wait_for(lock, 10s, [] { return g_meet.arrived >= 2; });
        return std::string(both ? "met" : "alone");
    },
    ak::read_only | ak::parallel_safe);

// Records how many run at once.
const auto serial = ak::tool<"serial">("Not parallel-safe.", [](const text_args&) {
    {
        std::lock_guard lock(g_meet.mu);
        g_meet.max_concurrent = std::max(g_meet.max_concurrent, ++g_meet.concurrent);
    }
    std::this_thread::yield();
    std::lock_guard lock(g_meet.mu);
    --g_meet.concurrent;
    return std::string("ok");
});

const ak::toolbox box{echo, wait_cancel, progress, meet, serial};

/// Collects what the server sends; waits (bounded) for messages.
struct client {
    std::mutex mu;  // before srv: its handlers' last lines are written while it is destroyed
    std::condition_variable cv;
    std::vector<json> got;
    std::vector<std::string> lines;  // as written
    mcp::server srv;

    explicit client(mcp::backend b, mcp::server_options o = {}) : srv(std::move(b), std::move(o)) {
        o.stderr_level = "off";
        srv.set_sink([this](const std::string& line) {
            json j = json::parse(line);  // every line must be valid JSON
            std::lock_guard lock(mu);
            got.push_back(std::move(j));
            lines.push_back(line);
            cv.notify_all();
        });
    }
    void send(const json& j) { srv.handle(j.dump()); }
    void raw(std::string_view s) { srv.handle(s); }
    /// The response with this id (waits up to 10 s).
    json response(const json& id) {
        std::unique_lock lock(mu);
        json found;
        cv.wait_for(lock, 10s, [&] {
            for (const auto& m : got)
                if (m.contains("id") && m["id"] == id && (m.contains("result") || m.contains("error"))) {
                    found = m;
                    return true;
                }
            return false;
        });
        return found;
    }
    /// The line that carried the response with this id ("" when none came).
    std::string line_of(const json& id) {
        (void)response(id);
        std::lock_guard lock(mu);
        for (std::size_t i = 0; i < got.size(); ++i)
            if (got[i].contains("id") && got[i]["id"] == id && (got[i].contains("result") || got[i].contains("error"))) return lines[i];
        return {};
    }
    json last() {
        std::unique_lock lock(mu);
        cv.wait_for(lock, 10s, [&] { return !got.empty(); });
        return got.empty() ? json() : got.back();
    }
    std::vector<json> with_method(std::string_view m) {
        std::lock_guard lock(mu);
        std::vector<json> out;
        for (const auto& j : got)
            if (j.value("method", "") == m) out.push_back(j);
        return out;
    }
    json request(int id, std::string method, json params = json::object()) {
        send(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", std::move(method)}, {"params", std::move(params)}});
        return response(id);
    }
    void initialize(std::string version = "2025-11-25") {
        auto r = request(0, "initialize", {{"protocolVersion", version}, {"capabilities", json::object()},
                                           {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
        ASSERT_TRUE(r.contains("result")) << r.dump();
        send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    }
};

mcp::server_options quiet() {
    mcp::server_options o;
    o.stderr_level = "off";
    return o;
}

}  // namespace

TEST(McpServer, InitializeNegotiatesVersions) {
    for (std::string v : {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}) {
        client c(mcp::backend_for(box), quiet());
        auto r = c.request(1, "initialize", {{"protocolVersion", v}, {"capabilities", json::object()}});
        EXPECT_EQ(r["result"]["protocolVersion"], v);
        EXPECT_EQ(r["result"]["capabilities"]["tools"]["listChanged"], true);
        EXPECT_EQ(r["result"]["serverInfo"]["name"], "agentkit");
    }
    client c(mcp::backend_for(box), quiet());
    auto r = c.request(1, "initialize", {{"protocolVersion", "2099-01-01"}, {"capabilities", json::object()}});
    EXPECT_EQ(r["result"]["protocolVersion"], "2025-11-25");
}

TEST(McpServer, InitializeWithoutItsParamsIsAnInvalidParamsErrorAndACorrectOneStillWorks) {
    client c(mcp::backend_for(box), quiet());
    c.send(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}});  // no params at all
    auto none = c.response(1);
    EXPECT_EQ(none["error"]["code"], mcp::code::invalid_params) << none.dump();
    EXPECT_NE(none["error"]["message"].get<std::string>().find("protocolVersion"), std::string::npos) << none.dump();
    int id = 10;
    for (const json& bad : {json{{"capabilities", json::object()}}, json{{"protocolVersion", 20251125}, {"capabilities", json::object()}},
                            json{{"protocolVersion", "2025-11-25"}}, json{{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}, {"clientInfo", "me"}}}) {
        auto r = c.request(++id, "initialize", bad);
        EXPECT_EQ(r["error"]["code"], mcp::code::invalid_params) << bad.dump() << " -> " << r.dump();
    }
    EXPECT_EQ(c.request(3, "tools/list")["error"]["code"], mcp::code::invalid_request);  // still not initialized
    c.initialize();
    EXPECT_TRUE(c.request(4, "tools/list").contains("result"));
}

TEST(McpServer, RequestsBeforeInitializeAreRefused) {
    client c(mcp::backend_for(box), quiet());
    auto r = c.request(1, "tools/list");
    EXPECT_EQ(r["error"]["code"], mcp::code::invalid_request);
    EXPECT_TRUE(c.request(2, "ping").contains("result"));  // ping is always allowed
}

TEST(McpServer, ToolsListIsDeterministicAndPaginated) {
    auto o = quiet();
    o.page_size = 2;
    client c(mcp::backend_for(box), o);
    c.initialize();
    auto p1 = c.request(1, "tools/list");
    ASSERT_EQ(p1["result"]["tools"].size(), 2U);
    EXPECT_EQ(p1["result"]["tools"][0]["name"], "echo");
    EXPECT_EQ(p1["result"]["tools"][0]["annotations"]["readOnlyHint"], true);
    ASSERT_TRUE(p1["result"].contains("nextCursor"));
    std::vector<std::string> names;
    json cursor = p1["result"]["nextCursor"];
    for (auto& t : p1["result"]["tools"]) names.push_back(t["name"]);
    for (int id = 2; !cursor.is_null() && id < 10; ++id) {
        auto p = c.request(id, "tools/list", {{"cursor", cursor}});
        for (auto& t : p["result"]["tools"]) names.push_back(t["name"]);
        cursor = p["result"].value("nextCursor", json());
    }
    EXPECT_EQ(names, (std::vector<std::string>{"echo", "wait_cancel", "progress", "meet", "serial"}));
    auto bad = c.request(20, "tools/list", {{"cursor", "garbage"}});
    EXPECT_EQ(bad["error"]["code"], mcp::code::invalid_params);
}

// Arguments declared out of key order, one of them an object with its own.
struct booking_place {
    std::string street;
    std::string city;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(booking_place, street, ""), AGENTKIT_FIELD(booking_place, city, ""));
    }
};
struct booking_args {
    std::string who;
    int nights = 1;
    booking_place place;
    std::optional<std::string> arrival;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(booking_args, who, "The guest"), AGENTKIT_FIELD(booking_args, nights, ""),
                          AGENTKIT_FIELD(booking_args, place, ""), AGENTKIT_FIELD(booking_args, arrival, ""));
    }
};

TEST(McpServer, AToolsArgumentsAreListedInTheOrderTheyWereDeclared) {
    const ak::toolbox books{ak::tool<"book">("Books a room.", [](const booking_args& a) { return a.who; })};
    client c(mcp::backend_for(books), quiet());
    c.initialize();
    c.send(json{{"jsonrpc", "2.0"}, {"id", 8}, {"method", "tools/list"}, {"params", json::object()}});
    const std::string listed = c.line_of(8);
    ASSERT_FALSE(listed.empty());
    const auto at = [&](const char* name) { return listed.find(std::string("\"") + name + "\":"); };
    for (const char* name : {"who", "nights", "place", "arrival", "street", "city"}) ASSERT_NE(at(name), std::string::npos) << name;
    EXPECT_LT(at("who"), at("nights")) << listed;
    EXPECT_LT(at("nights"), at("place")) << listed;
    EXPECT_LT(at("place"), at("arrival")) << listed;
    EXPECT_LT(at("street"), at("city")) << listed;  // the nested object's too
    // the call still reads its arguments by name
    c.send(json{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "tools/call"},
                {"params", {{"name", "book"}, {"arguments", {{"arrival", "late"}, {"place", {{"city", "Oslo"}, {"street", "A"}}}, {"who", "Ada"}}}}}});
    EXPECT_EQ(c.response(9)["result"]["content"][0]["text"], "Ada");
}

TEST(McpServer, CallsAndTheirErrors) {
    client c(mcp::backend_for(box), quiet());
    c.initialize();
    auto ok = c.request(1, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}});
    EXPECT_EQ(ok["result"]["content"][0]["text"], "hi");
    EXPECT_EQ(ok["result"]["isError"], false);
    auto invalid = c.request(2, "tools/call", {{"name", "echo"}, {"arguments", {{"text", 5}}}});
    EXPECT_EQ(invalid["result"]["isError"], true) << invalid.dump();
    EXPECT_NE(invalid["result"]["content"][0]["text"].get<std::string>().find("args.invalid"), std::string::npos);
    auto unknown = c.request(3, "tools/call", {{"name", "ecko"}, {"arguments", json::object()}});
    EXPECT_EQ(unknown["error"]["code"], mcp::code::invalid_params);
    EXPECT_EQ(unknown["error"]["data"]["error"]["details"]["candidates"][0], "echo");
    // agentkit's message and hint travel with the protocol error: in data, and in the text a model reads
    const json& why = unknown["error"]["data"]["error"];
    EXPECT_EQ(why["code"], "tool.unknown");
    EXPECT_FALSE(why["message"].get<std::string>().empty());
    ASSERT_FALSE(why.value("hint", "").empty()) << unknown.dump();
    EXPECT_EQ(unknown["error"]["message"], "Unknown tool: ecko. " + why["hint"].get<std::string>());
    auto noname = c.request(4, "tools/call", {{"arguments", json::object()}});
    EXPECT_EQ(noname["error"]["code"], mcp::code::invalid_params);
}

TEST(McpServer, AnUnknownResourceOrPromptSaysWhatToDoNext) {
    mcp::backend b = mcp::backend_for(box);
    b.list_resources = [] { return std::vector<mcp::resource_info>{}; };
    b.read_resource = [](std::string_view uri, ak::tool_context&) -> ak::result<std::vector<mcp::resource_contents>> {
        return ak::fail(ak::errc::not_found, "no note at " + std::string(uri));
    };
    b.list_prompts = [] { return std::vector<mcp::prompt_info>{}; };
    b.get_prompt = [](std::string_view name, const json&, ak::tool_context&) -> ak::result<mcp::prompt_result> {
        return ak::fail(ak::errc::not_found, "no prompt named " + std::string(name), "Ask for summary or review.");
    };
    client c(std::move(b), quiet());
    c.initialize();
    auto r = c.request(1, "resources/read", {{"uri", "notes://9"}});
    EXPECT_EQ(r["error"]["code"], mcp::code::invalid_params) << r.dump();
    EXPECT_EQ(r["error"]["data"]["uri"], "notes://9");
    EXPECT_EQ(r["error"]["data"]["error"]["message"], "no note at notes://9");
    EXPECT_EQ(r["error"]["message"], "Resource not found: notes://9. List the resources (resources/list, resources/templates/list) and read one of them");
    auto p = c.request(2, "prompts/get", {{"name", "sumary"}});
    EXPECT_EQ(p["error"]["code"], mcp::code::invalid_params) << p.dump();
    EXPECT_EQ(p["error"]["message"], "Unknown prompt: sumary. Ask for summary or review.");
    EXPECT_EQ(p["error"]["data"]["error"]["message"], "no prompt named sumary");
}

TEST(McpServer, MalformedMessages) {
    client c(mcp::backend_for(box), quiet());
    c.raw("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ");
    auto e = c.last();
    EXPECT_EQ(e["error"]["code"], mcp::code::parse_error);
    EXPECT_TRUE(e["id"].is_null());
    c.raw("[1, 2]");
    EXPECT_EQ(c.last()["error"]["code"], mcp::code::invalid_request);
    c.raw("42");
    EXPECT_EQ(c.last()["error"]["code"], mcp::code::invalid_request);
    c.raw(R"({"id": 7, "method": "ping"})");
    EXPECT_EQ(c.response(7)["error"]["code"], mcp::code::invalid_request);
    c.raw(R"({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"})");
    EXPECT_EQ(c.last()["error"]["code"], mcp::code::invalid_request);
    auto unknown = c.request(8, "no/such/method");
    EXPECT_EQ(unknown["error"]["code"], mcp::code::method_not_found);
    std::string deep(5000, '[');
    c.raw(deep);
    EXPECT_EQ(c.last()["error"]["code"], mcp::code::parse_error);
    c.raw("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\r");  // CRLF line end
    EXPECT_TRUE(c.response(9).contains("result"));
    const std::string bad_utf8 = std::string("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"\xff\"}");
    c.raw(bad_utf8);
    EXPECT_EQ(c.last()["error"]["code"], mcp::code::parse_error);
    // notifications never get an answer, even unknown ones
    const auto before = c.got.size();
    c.raw(R"({"jsonrpc":"2.0","method":"notifications/whatever"})");
    EXPECT_EQ(c.request(11, "ping")["result"], json::object());
    EXPECT_EQ(c.got.size(), before + 1);
}

TEST(McpServer, CancellationStopsTheCallAndSuppressesItsResponse) {
    client c(mcp::backend_for(box), quiet());
    c.initialize();
    c.send(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "wait_cancel"}, {"arguments", {{"text", "x"}}}}}});
    // wait until it is in flight, then cancel
    for (int i = 0; i < 1000 && c.srv.in_flight() == 0; ++i) std::this_thread::yield();
    c.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 1}, {"reason", "test"}}}});
    // cancellation of an unknown request is ignored
    c.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 99}}}});
    EXPECT_TRUE(c.request(2, "ping").contains("result"));
    // the call ends (it observed the stop) and no response for id 1 is ever sent
    for (int i = 0; i < 100000 && c.srv.in_flight() != 0; ++i) std::this_thread::yield();
    c.srv.shutdown(5s);
    EXPECT_EQ(c.srv.in_flight(), 0U);
    std::lock_guard lock(c.mu);
    for (const auto& m : c.got) EXPECT_FALSE(m.contains("id") && m["id"] == 1) << m.dump();
}

TEST(McpServer, ProgressNotificationsIncrease) {
    client c(mcp::backend_for(box), quiet());
    c.initialize();
    auto r = c.request(1, "tools/call", {{"name", "progress"}, {"arguments", {{"text", "x"}}}, {"_meta", {{"progressToken", "tok"}}}});
    EXPECT_EQ(r["result"]["content"][0]["text"], "done");
    auto ps = c.with_method("notifications/progress");
    ASSERT_EQ(ps.size(), 2U);
    EXPECT_EQ(ps[0]["params"]["progressToken"], "tok");
    EXPECT_EQ(ps[0]["params"]["progress"], 1.0);
    EXPECT_EQ(ps[1]["params"]["progress"], 2.0);
    EXPECT_EQ(ps[1]["params"]["total"], 3.0);
}

TEST(McpServer, ParallelSafeCallsRunConcurrentlyOthersOneAtATime) {
    {
        std::lock_guard lock(g_meet.mu);
        g_meet.arrived = 0;
    }
    client c(mcp::backend_for(box), quiet());
    c.initialize();
    c.send(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "meet"}, {"arguments", {{"text", "a"}}}}}});
    c.send(json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"}, {"params", {{"name", "meet"}, {"arguments", {{"text", "b"}}}}}});
    EXPECT_EQ(c.response(1)["result"]["content"][0]["text"], "met");
    EXPECT_EQ(c.response(2)["result"]["content"][0]["text"], "met");
    for (int i = 10; i < 30; ++i)
        c.send(json{{"jsonrpc", "2.0"}, {"id", i}, {"method", "tools/call"}, {"params", {{"name", "serial"}, {"arguments", {{"text", "s"}}}}}});
    for (int i = 10; i < 30; ++i) EXPECT_EQ(c.response(i)["result"]["content"][0]["text"], "ok");
    std::lock_guard lock(g_meet.mu);
    EXPECT_EQ(g_meet.max_concurrent, 1);
}

TEST(McpServer, ACallThatArrivesWhileTheOnlyWorkerIsIdleButWakingGetsAWorkerOfItsOwn) {
    // A worker is idle after the first call. Two rendezvous calls sent back to back must both
    // run: the old rule ("a new worker only when none is idle") counted the one idle worker for
    // both, so the second waited behind the first, which waited for the second (10 s, "alone").
    for (int round = 0; round < 20; ++round) {
        {
            std::lock_guard lock(g_meet.mu);
            g_meet.arrived = 0;
        }
        client c(mcp::backend_for(box), quiet());
        c.initialize();
        EXPECT_EQ(c.request(1, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "warm"}}}})["result"]["content"][0]["text"], "warm");
        c.send(json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"}, {"params", {{"name", "meet"}, {"arguments", {{"text", "a"}}}}}});
        c.send(json{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"}, {"params", {{"name", "meet"}, {"arguments", {{"text", "b"}}}}}});
        ASSERT_EQ(c.response(2)["result"]["content"][0]["text"], "met") << "round " << round;
        ASSERT_EQ(c.response(3)["result"]["content"][0]["text"], "met") << "round " << round;
    }
}

TEST(McpServer, DuplicateIdInFlightIsRejected) {
    client c(mcp::backend_for(box), quiet());
    c.initialize();
    const json call{{"jsonrpc", "2.0"}, {"id", 5}, {"method", "tools/call"}, {"params", {{"name", "wait_cancel"}, {"arguments", {{"text", "x"}}}}}};
    c.send(call);
    for (int i = 0; i < 100000 && c.srv.in_flight() == 0; ++i) std::this_thread::yield();
    c.send(call);
    auto dup = c.response(5);
    EXPECT_EQ(dup["error"]["code"], mcp::code::invalid_request) << dup.dump();
    c.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 5}}}});
    c.srv.shutdown(5s);
}

TEST(McpServer, StatelessEra) {
    client c(mcp::backend_for(box), quiet());
    const json meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                    {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    auto d = c.request(1, "server/discover", {{"_meta", meta}});
    EXPECT_EQ(d["result"]["resultType"], "complete");
    EXPECT_EQ(d["result"]["supportedVersions"][0], "2026-07-28");
    EXPECT_TRUE(d["result"].contains("ttlMs"));
    // no initialize needed
    auto l = c.request(2, "tools/list", {{"_meta", meta}});
    EXPECT_EQ(l["result"]["resultType"], "complete");
    EXPECT_EQ(l["result"]["cacheScope"], "private");
    EXPECT_EQ(l["result"]["tools"].size(), 5U);
    auto call = c.request(3, "tools/call", {{"_meta", meta}, {"name", "echo"}, {"arguments", {{"text", "x"}}}});
    EXPECT_EQ(call["result"]["resultType"], "complete");
    auto bad = c.request(4, "tools/list", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2031-01-01"},
                                                      {"io.modelcontextprotocol/clientCapabilities", json::object()}}}});
    EXPECT_EQ(bad["error"]["code"], mcp::code::unsupported_version);
    EXPECT_EQ(bad["error"]["data"]["supported"][0], "2026-07-28");
}

namespace {
// A tool that needs the client to support elicitation, and says so through its context.
const auto asks = ak::tool<"asks">("Needs elicitation.", [](const text_args&, ak::tool_context& ctx) -> ak::result<std::string> {
    if (!ctx.client_capabilities.is_object() || !ctx.client_capabilities.contains("elicitation"))
        return ak::fail(ak::errc::client_capability_missing, "asks needs the elicitation capability", "",
                        json{{"requiredCapabilities", {{"elicitation", json::object()}}}});
    return std::string("asked");
});
const ak::toolbox asking_box{echo, asks};
}  // namespace

TEST(McpServer, StatelessEraReadsClientCapabilitiesOnEveryRequest) {
    client c(mcp::backend_for(asking_box), quiet());
    const json v{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}};
    // clientCapabilities is required on every request of the revision (server/discover excepted)
    auto missing = c.request(1, "tools/list", {{"_meta", v}});
    EXPECT_EQ(missing["error"]["code"], mcp::code::invalid_params) << missing.dump();
    EXPECT_NE(missing["error"]["message"].get<std::string>().find("clientCapabilities"), std::string::npos);
    json not_object = v;
    not_object["io.modelcontextprotocol/clientCapabilities"] = "all";
    EXPECT_EQ(c.request(2, "tools/call", {{"_meta", not_object}, {"name", "echo"}, {"arguments", {{"text", "x"}}}})["error"]["code"],
              mcp::code::invalid_params);
    json none = v;
    none["io.modelcontextprotocol/clientCapabilities"] = json::object();
    // server/discover too (the conformance suite's server-stateless probes say so)
    EXPECT_EQ(c.request(3, "server/discover", {{"_meta", v}})["error"]["code"], mcp::code::invalid_params);
    EXPECT_EQ(c.request(6, "server/discover", {{"_meta", none}})["result"]["resultType"], "complete");

    // the capability a tool needs, declared on one request only: never inferred for the next
    json with = v;
    with["io.modelcontextprotocol/clientCapabilities"] = json{{"elicitation", json::object()}};
    auto ok = c.request(4, "tools/call", {{"_meta", with}, {"name", "asks"}, {"arguments", {{"text", "x"}}}});
    ASSERT_TRUE(ok.contains("result")) << ok.dump();
    EXPECT_EQ(ok["result"]["content"][0]["text"], "asked");
    auto lacks = c.request(5, "tools/call", {{"_meta", none}, {"name", "asks"}, {"arguments", {{"text", "x"}}}});
    EXPECT_EQ(lacks["error"]["code"], mcp::code::missing_client_capability) << lacks.dump();
    EXPECT_TRUE(lacks["error"]["data"]["requiredCapabilities"].contains("elicitation")) << lacks.dump();

    // the handshake era: the capabilities of initialize apply to every call of the session
    client h(mcp::backend_for(asking_box), quiet());
    auto init = h.request(1, "initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", {{"elicitation", json::object()}}},
                                            {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
    ASSERT_TRUE(init.contains("result")) << init.dump();
    h.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    auto in_session = h.request(2, "tools/call", {{"name", "asks"}, {"arguments", {{"text", "x"}}}});
    EXPECT_EQ(in_session["result"]["content"][0]["text"], "asked") << in_session.dump();
}

namespace {
/// A masker that reveals "serial" after the meta-tool `reveal` is called.
class reveal_masker {
public:
    void bind(const std::vector<ak::tool_info>&) {}
    std::vector<ak::tool_info> meta_tools() const {
        ak::tool_info t;
        t.name = "reveal";
        t.description = "Reveal more tools.";
        t.input_schema = json{{"type", "object"}, {"properties", json::object()}};
        return {t};
    }
    bool is_visible(std::string_view n) const { return n == "reveal" || n == "echo" || (revealed_ && n == "serial"); }
    std::vector<std::string> visible() const { return revealed_ ? std::vector<std::string>{"reveal", "echo", "serial"} : std::vector<std::string>{"reveal", "echo"}; }
    std::string prompt_section() const { return {}; }
    std::string state_message() const { return {}; }
    std::optional<ak::result<ak::tool_output>> handle_meta(std::string_view n, const json&) {
        if (n != "reveal") return std::nullopt;
        revealed_ = true;
        ++version_;
        return ak::tool_output::text("revealed");
    }
    ak::result<ak::tool_output> answer_hidden(std::string_view n) const {
        return ak::fail(ak::errc::tool_masked, std::string(n) + " is hidden", "Call reveal first.");
    }
    void observe_call(std::string_view, const json&, bool ok) { calls_ += ok ? 1 : 0; }
    std::uint64_t version() const { return version_; }
    int calls_ = 0;

private:
    bool revealed_ = false;
    std::uint64_t version_ = 0;
};
static_assert(ak::masker<reveal_masker>);
}  // namespace

TEST(McpServer, MaskedToolsAndListChanged) {
    reveal_masker m;
    client c(mcp::backend_for(box, m), quiet());
    c.initialize();
    auto l = c.request(1, "tools/list");
    ASSERT_EQ(l["result"]["tools"].size(), 2U);
    EXPECT_EQ(l["result"]["tools"][0]["name"], "reveal");
    auto hidden = c.request(2, "tools/call", {{"name", "serial"}, {"arguments", {{"text", "x"}}}});
    EXPECT_EQ(hidden["result"]["isError"], true);
    EXPECT_NE(hidden["result"]["content"][0]["text"].get<std::string>().find("Call reveal first."), std::string::npos);
    EXPECT_TRUE(c.with_method("notifications/tools/list_changed").empty());
    auto rev = c.request(3, "tools/call", {{"name", "reveal"}, {"arguments", json::object()}});
    EXPECT_EQ(rev["result"]["content"][0]["text"], "revealed");
    EXPECT_EQ(c.with_method("notifications/tools/list_changed").size(), 1U);
    EXPECT_EQ(c.request(4, "tools/list")["result"]["tools"].size(), 3U);
    EXPECT_EQ(c.request(5, "tools/call", {{"name", "serial"}, {"arguments", {{"text", "x"}}}})["result"]["isError"], false);
    EXPECT_EQ(m.calls_, 1);
}

TEST(McpServer, AMaskersMetaToolsAreExplainedInItsInstructionsAndSessionOnlyOnesAreNotServed) {
    // A menu: the client's model learns how it works from the instructions (after the host's),
    // in words without the session's complete/message_user or its per-turn state messages.
    ak::menu_runtime menu({ak::menu_mode{"talk", "Echo text back", "", {"echo", "serial"}}}, {}, "", {});
    mcp::server_options o = quiet();
    o.instructions = "The host's own words.";
    client c(mcp::backend_for(box, menu), o);
    auto init = c.request(1, "initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()},
                                             {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
    const std::string text = init["result"].value("instructions", "");
    EXPECT_EQ(text.rfind("The host's own words.\n\n## Tool menu\n", 0), 0U) << text;
    EXPECT_NE(text.find("- talk: Echo text back"), std::string::npos) << text;
    EXPECT_NE(text.find("menu_list tells you the current mode"), std::string::npos) << text;
    for (const char* absent : {"complete", "message_user", "[MENU_STATE]"}) EXPECT_EQ(text.find(absent), std::string::npos) << absent << " in " << text;
    c.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});

    std::vector<std::string> names;
    const json listed = c.request(2, "tools/list");
    for (const auto& t : listed["result"]["tools"]) names.push_back(t["name"].get<std::string>());
    EXPECT_EQ(names, (std::vector<std::string>{"menu_list", "menu_enter", "menu_exit", "think"})) << listed.dump();
    const json done = c.request(3, "tools/call", {{"name", "complete"}, {"arguments", {{"summary", "x"}}}});
    ASSERT_TRUE(done.contains("error")) << done.dump();  // as for any tool the server does not have
    EXPECT_EQ(done["error"]["data"]["error"]["code"], "tool.unknown") << done.dump();
    EXPECT_NE(done["error"]["data"]["error"]["hint"].get<std::string>().find("agent session"), std::string::npos) << done.dump();
    EXPECT_EQ(c.request(4, "tools/call", {{"name", "menu_enter"}, {"arguments", {{"mode", "talk"}}}})["result"]["isError"], false);

    // A router says how tool_search works; a masker without meta-tools adds nothing.
    ak::router<> router;
    client r(mcp::backend_for(box, router), quiet());
    auto ri = r.request(1, "initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}});
    EXPECT_EQ(ri["result"].value("instructions", "").rfind("## Tool search\n", 0), 0U) << ri.dump();
    ak::all_visible all;
    client a(mcp::backend_for(box, all), quiet());
    EXPECT_FALSE(a.request(1, "initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}})["result"].contains("instructions"));
}

TEST(McpServer, ServesAnAgentSessionThroughItsMaskerAndFormatter) {
    // backend_for(session): the session's masker decides what is listed and callable, and its
    // formatter cuts long results into the session's artifact store, as in its own model loop.
    ak::compact_formatter f;
    f.limits.total = 60;  // tokens
    ak::agent_session session(box, reveal_masker{}, f);
    client c(mcp::backend_for(session), quiet());
    c.initialize();
    auto l = c.request(1, "tools/list");
    ASSERT_EQ(l["result"]["tools"].size(), 2U) << l.dump();  // reveal + echo (no built-in complete tool)
    EXPECT_EQ(l["result"]["tools"][0]["name"], "reveal");
    EXPECT_EQ(l["result"]["tools"][1]["name"], "echo");

    auto hidden = c.request(2, "tools/call", {{"name", "serial"}, {"arguments", {{"text", "x"}}}});
    EXPECT_EQ(hidden["result"]["isError"], true) << hidden.dump();
    EXPECT_NE(hidden.dump().find("Call reveal first."), std::string::npos) << hidden.dump();
    auto unknown = c.request(3, "tools/call", {{"name", "nope"}, {"arguments", json::object()}});
    EXPECT_EQ(unknown["result"]["isError"], true) << unknown.dump();

    auto rev = c.request(4, "tools/call", {{"name", "reveal"}, {"arguments", json::object()}});
    EXPECT_EQ(rev["result"]["content"][0]["text"], "revealed") << rev.dump();
    EXPECT_EQ(c.with_method("notifications/tools/list_changed").size(), 1U);
    EXPECT_EQ(c.request(5, "tools/list")["result"]["tools"].size(), 3U);
    EXPECT_EQ(c.request(6, "tools/call", {{"name", "serial"}, {"arguments", {{"text", "x"}}}})["result"]["isError"], false);
    EXPECT_EQ(session.get_masker().calls_, 1);

    // a long result is cut by the session's budget; the whole text is in its store
    const std::string long_text(1000, 'a');
    auto cut = c.request(7, "tools/call", {{"name", "echo"}, {"arguments", {{"text", long_text}}}});
    const std::string shown = cut["result"]["content"][0]["text"].get<std::string>();
    EXPECT_LT(shown.size(), 400U) << shown;
    EXPECT_EQ(shown.find(long_text), std::string::npos);
    ASSERT_EQ(session.artifacts().size(), 1U) << shown;
    EXPECT_NE(shown.find(session.artifacts()[0].id), std::string::npos) << shown;
    auto stored = session.store()->get(session.artifacts()[0].id);
    ASSERT_TRUE(stored.has_value());
    EXPECT_NE(stored->data.find(long_text), std::string::npos);
    // invalid arguments are a tool error the client sees, not an RPC error
    auto bad = c.request(8, "tools/call", {{"name", "echo"}, {"arguments", {{"text", 5}}}});
    EXPECT_EQ(bad["result"]["isError"], true) << bad.dump();
}

TEST(McpServer, DeferredToolAnswersWithTheCapabilityEnvelopeNotAnRpcError) {
    ak::frozen_scope scope({"echo"}, {{.name = "browser_pdf_save",
                                        .reason = "no PDF export yet",
                                        .alternative = "browser_take_screenshot",
                                        .reference = "playwright-mcp:browser_pdf_save",
                                        .since = {},
                                        .description = {}}},
                           {.scope = "browser"});
    client c(mcp::backend_for(box, scope), quiet());
    c.initialize();
    auto l = c.request(1, "tools/list");
    ASSERT_EQ(l["result"]["tools"].size(), 1U);  // the deferred tool is not listed
    auto d = c.request(2, "tools/call", {{"name", "browser_pdf_save"}, {"arguments", json::object()}});
    ASSERT_TRUE(d.contains("result")) << d.dump();  // a normal result, never a JSON-RPC error
    EXPECT_EQ(d["result"]["isError"], false);
    const json& env = d["result"]["structuredContent"];
    EXPECT_EQ(env["error"], "capability.unsupported");
    EXPECT_EQ(env["tool"], "browser_pdf_save");
    EXPECT_EQ(env["reason"], "no PDF export yet");
    EXPECT_EQ(env["alternative"], "browser_take_screenshot");
    EXPECT_EQ(env["reference"], "playwright-mcp:browser_pdf_save");
    EXPECT_EQ(env["scope"], "browser");
    EXPECT_NE(d["result"]["content"][0]["text"].get<std::string>().find("Use instead: browser_take_screenshot"), std::string::npos);
    // a host tool kept out of the scope, and a name nobody knows: still errors
    auto hidden = c.request(3, "tools/call", {{"name", "serial"}, {"arguments", {{"text", "x"}}}});
    EXPECT_TRUE(hidden.contains("error") || hidden["result"]["isError"] == true) << hidden.dump();
    auto unknown = c.request(4, "tools/call", {{"name", "no_such_tool"}, {"arguments", json::object()}});
    EXPECT_EQ(unknown["error"]["code"], mcp::code::invalid_params) << unknown.dump();
}

namespace {
struct reading {
    std::string city;
    double celsius = 0;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(reading, city, "City"), AGENTKIT_FIELD(reading, celsius, "Temperature in Celsius"));
    }
};
const auto measure = ak::tool<"measure">(
    "A typed result.",
    [](const text_args& a) -> ak::result<reading> {
        if (a.text == "nowhere") return ak::fail(ak::errc::not_found, "no station", "Try a city.");
        return reading{a.text, 21.5};
    },
    ak::read_only);
const ak::toolbox typed_box{measure, echo};
}  // namespace

TEST(McpServer, TypedOutputIsListedWithOutputSchemaAndAnsweredWithStructuredContent) {
    client c(mcp::backend_for(typed_box), quiet());
    c.initialize();
    auto l = c.request(1, "tools/list");
    ASSERT_EQ(l["result"]["tools"].size(), 2U) << l.dump();
    const json& m = l["result"]["tools"][0];
    ASSERT_EQ(m["name"], "measure");
    ASSERT_TRUE(m.contains("outputSchema")) << m.dump();
    EXPECT_EQ(m["outputSchema"]["type"], "object");
    EXPECT_EQ(m["outputSchema"]["properties"]["celsius"]["type"], "number");
    EXPECT_FALSE(l["result"]["tools"][1].contains("outputSchema"));  // echo returns text
    auto r = c.request(2, "tools/call", {{"name", "measure"}, {"arguments", {{"text", "Oslo"}}}});
    ASSERT_TRUE(r.contains("result")) << r.dump();
    EXPECT_EQ(r["result"]["isError"], false);
    EXPECT_EQ(r["result"]["structuredContent"]["city"], "Oslo");
    EXPECT_EQ(r["result"]["structuredContent"]["celsius"], 21.5);
    // the same JSON as text, for clients that read only content
    EXPECT_EQ(json::parse(r["result"]["content"][0]["text"].get<std::string>()), r["result"]["structuredContent"]);
    auto e = c.request(3, "tools/call", {{"name", "measure"}, {"arguments", {{"text", "nowhere"}}}});
    EXPECT_EQ(e["result"]["isError"], true);
    EXPECT_FALSE(e["result"].contains("structuredContent"));  // an error carries no typed output
}

TEST(McpServer, LoggingSetLevel) {
    client c(mcp::backend_for(box), quiet());
    c.initialize();
    c.srv.log("info", "test", "before setLevel");  // not sent: the client asked for nothing
    EXPECT_TRUE(c.with_method("notifications/message").empty());
    EXPECT_EQ(c.request(1, "logging/setLevel", {{"level", "nonsense"}})["error"]["code"], mcp::code::invalid_params);
    EXPECT_TRUE(c.request(2, "logging/setLevel", {{"level", "info"}}).contains("result"));
    c.srv.log("debug", "test", "too low");
    c.srv.log("warning", "test", "sent");
    auto ms = c.with_method("notifications/message");
    ASSERT_EQ(ms.size(), 1U);
    EXPECT_EQ(ms[0]["params"]["data"], "sent");
    EXPECT_EQ(ms[0]["params"]["level"], "warning");
}

TEST(McpServer, StdioLoopWritesOnlyProtocolLines) {
    int in[2], out[2];
    ASSERT_EQ(::pipe(in), 0);
    ASSERT_EQ(::pipe(out), 0);
    mcp::server srv(mcp::backend_for(box), quiet());
    std::thread t([&] { mcp::run_stdio(srv, in[0], out[1]); ::close(out[1]); });
    const std::string input =
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}})"
        "\n"
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
        "\nnot json\n"
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\nb"}}})"
        "\n"
        R"({"jsonrpc":"2.0","id":3,"method":"ping"})";  // last line without a newline
    // one message split across two writes
    ASSERT_EQ(::write(in[1], input.data(), 40), 40);
    ASSERT_EQ(::write(in[1], input.data() + 40, input.size() - 40), static_cast<ssize_t>(input.size() - 40));
    ::close(in[1]);
    std::string all;
    char buf[4096];
    for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) all.append(buf, static_cast<std::size_t>(n));
    t.join();
    ::close(in[0]);
    ::close(out[0]);
    std::vector<json> msgs;
    std::size_t start = 0;
    for (std::size_t nl; (nl = all.find('\n', start)) != std::string::npos; start = nl + 1) {
        json j = json::parse(all.substr(start, nl - start), nullptr, false);
        ASSERT_FALSE(j.is_discarded()) << all;
        EXPECT_EQ(j["jsonrpc"], "2.0");
        msgs.push_back(j);
    }
    EXPECT_EQ(start, all.size()) << "trailing bytes that are not a full line";
    ASSERT_EQ(msgs.size(), 4U) << all;
    EXPECT_EQ(msgs[1]["error"]["code"], mcp::code::parse_error);
    bool echoed = false;
    for (const auto& m : msgs)
        if (m.value("id", json()) == 2) echoed = m["result"]["content"][0]["text"] == "a\nb";
    EXPECT_TRUE(echoed);
}

// Every content kind a tool can return, as MCP content blocks: text, image, resource_link (an
// artifact reference) and embedded resources (an artifact carrying its text or its blob).
TEST(McpServer, ContentKindsIncludingEmbeddedResources) {
    const auto media = ak::tool<"media">("Returns one block of each kind.", []() {
        ak::tool_output o = ak::tool_output::text("four blocks follow");
        o.add_image("iVBORw0KGgo=", "image/png");
        ak::artifact_ref log;
        log.id = "a7";
        log.uri = "agentkit://artifacts/a7";
        log.mime_type = "text/plain";
        log.name = "log";
        log.size = 42;
        log.description = "the console log";
        o.add_artifact(std::move(log));
        o.add_resource("agentkit://notes/1", "text/markdown", "# Notes\nline two", "notes");
        o.content.push_back(ak::content_block::make_resource_blob("agentkit://blobs/2", "application/octet-stream", "AAEC"));
        return o;
    });
    const ak::toolbox media_box{media};
    client c(mcp::backend_for(media_box), quiet());
    c.initialize();
    auto r = c.request(1, "tools/call", {{"name", "media"}, {"arguments", json::object()}});
    ASSERT_TRUE(r.contains("result")) << r.dump();
    EXPECT_EQ(r["result"]["isError"], false);
    const json& content = r["result"]["content"];
    ASSERT_EQ(content.size(), 5U) << r.dump();
    EXPECT_EQ(content[0], (json{{"type", "text"}, {"text", "four blocks follow"}}));
    EXPECT_EQ(content[1], (json{{"type", "image"}, {"data", "iVBORw0KGgo="}, {"mimeType", "image/png"}}));
    EXPECT_EQ(content[2], (json{{"type", "resource_link"},
                                {"uri", "agentkit://artifacts/a7"},
                                {"name", "log"},
                                {"mimeType", "text/plain"},
                                {"description", "the console log"},
                                {"size", 42}}));
    EXPECT_EQ(content[3], (json{{"type", "resource"},
                                {"resource", {{"uri", "agentkit://notes/1"}, {"mimeType", "text/markdown"}, {"text", "# Notes\nline two"}}}}));
    EXPECT_EQ(content[4], (json{{"type", "resource"},
                                {"resource", {{"uri", "agentkit://blobs/2"}, {"mimeType", "application/octet-stream"}, {"blob", "AAEC"}}}}));

    // The same blocks elsewhere: an embedded text resource reads as its text, a blob as an artifact.
    ak::tool_output o;
    o.add_resource("agentkit://notes/1", "text/plain", "embedded words");
    EXPECT_EQ(o.joined_text(), "embedded words");
    EXPECT_TRUE(o.content[0].artifact.embedded());
    ak::artifact_ref link;
    link.id = "a1";
    link.uri = "agentkit://artifacts/a1";
    EXPECT_FALSE(ak::content_block::make_artifact(link).artifact.embedded());
    const auto blob = ak::content_block::make_resource_blob("agentkit://b", "image/png", "AAAA");
    EXPECT_EQ(blob.artifact.size, 3U);
    EXPECT_FALSE(blob.artifact.text.has_value());
    ak::tool_output with_blob;
    with_blob.content.push_back(blob);
    EXPECT_EQ(mcp::call_result(with_blob)["content"][0]["resource"]["blob"], "AAAA");
}

// isError is sent always by default, and only when true with server_options::omit_false_is_error
// (as Playwright MCP writes its results; the schema's default is false).
TEST(McpServer, IsErrorLeftOutOfSuccessfulResultsOnlyWhenAsked) {
    const auto ok = ak::tool_output::text("fine");
    auto bad = ak::tool_output::text("broken");
    bad.is_error = true;
    EXPECT_EQ(mcp::call_result(ok)["isError"], false);
    EXPECT_FALSE(mcp::call_result(ok, true).contains("isError"));
    EXPECT_EQ(mcp::call_result(bad, true)["isError"], true);
    EXPECT_EQ(mcp::call_result(bad)["isError"], true);
}

// --- mcp::input_relay: an upstream server's questions during a call, passed to the client ---
namespace {
// The relay the tools below use, and what their stand-in upstream saw: the upstream asks from a
// thread of its own (as an upstream client's callback does) and answers with what it got.
mcp::input_relay* g_relay = nullptr;
struct upstream_seen {
    std::mutex mu;
    std::condition_variable cv;
    int answered = 0;  // questions whose answer (or failure) came back to the upstream
    std::string last;  // the last answer, or why there was none
};
upstream_seen g_up;

// One question, asked from another thread; the name in the answer, or why there is none.
std::string ask_once(const std::string& message) {
    ak::result<json> got = ak::fail(ak::errc::internal, "not asked");
    std::thread t([&] {
        got = g_relay->answer("elicitation/create",
                              json{{"message", message}, {"requestedSchema", {{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}}}});
    });
    t.join();
    std::string said = got ? (*got).value("content", json::object()).value("name", std::string("?")) : got.error().message;
    std::lock_guard lock(g_up.mu);
    ++g_up.answered;
    g_up.last = said;
    g_up.cv.notify_all();
    return said;
}
int upstream_answered() {
    std::lock_guard lock(g_up.mu);
    return g_up.answered;
}
// Wait until the upstream has had more than `n` answers; the last one.
std::string upstream_after(int n) {
    std::unique_lock lock(g_up.mu);
    if (!g_up.cv.wait_for(lock, 10s, [&] { return g_up.answered > n; })) return "no answer reached the upstream";
    return g_up.last;
}

ak::result<std::string> relay_text(ak::tool_context& ctx, std::function<ak::result<ak::tool_output>(ak::tool_context&)> upstream) {
    auto r = g_relay->run(ctx, std::move(upstream));
    if (!r) return ak::fail(r.error());
    return r->joined_text();
}
// parallel_safe: the calls run side by side, as the gateway's do
const auto relayed = ak::tool<"relayed">("An upstream that asks one question.", [](const text_args&, ak::tool_context& ctx) {
    return relay_text(ctx, [](ak::tool_context&) -> ak::result<ak::tool_output> { return ak::tool_output::text("answered: " + ask_once("Name?")); });
}, ak::parallel_safe);
const auto relayed_twice = ak::tool<"relayed_twice">("An upstream that asks two questions, one after the other.", [](const text_args&, ak::tool_context& ctx) {
    return relay_text(ctx, [](ak::tool_context&) -> ak::result<ak::tool_output> {
        const std::string first = ask_once("First?");
        return ak::tool_output::text("answered: " + first + ", " + ask_once("Second?"));
    });
}, ak::parallel_safe);
const ak::toolbox relay_box{echo, relayed, relayed_twice};

json stateless_meta(bool elicitation) {
    return json{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                {"io.modelcontextprotocol/clientCapabilities", elicitation ? json{{"elicitation", json::object()}} : json::object()}};
}
json stateless_call(const std::string& tool) { return json{{"_meta", stateless_meta(true)}, {"name", tool}, {"arguments", {{"text", "x"}}}}; }
std::string text_in(const json& response) {
    if (!response.is_object() || !response.contains("result")) return "no result: " + response.dump();
    const json& c = response["result"]["content"];
    return c.is_array() && !c.empty() ? c[0].value("text", "") : response.dump();
}
// Initialize as a client that answers elicitation (2025-11-25).
void initialize_eliciting(client& c) {
    auto init = c.request(0, "initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", {{"elicitation", json::object()}}},
                                            {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
    ASSERT_TRUE(init.contains("result")) << init.dump();
    c.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
}
// The server's elicitation/create request to the client (waits up to 10 s; null if none).
json question_to(client& c) {
    json question;
    std::unique_lock lock(c.mu);
    c.cv.wait_for(lock, 10s, [&] {
        for (const auto& m : c.got)
            if (m.value("method", "") == "elicitation/create") question = m;
        return !question.is_null();
    });
    return question;
}
}  // namespace

TEST(InputRelay, AStatelessClientAnswersInARoundAndTheParkedCallGoesOn) {
    mcp::input_relay relay{"upstream"};
    g_relay = &relay;
    client c(mcp::backend_for(relay_box), quiet());
    const json call = stateless_call("relayed");
    auto first = c.request(1, "tools/call", call);
    ASSERT_EQ(first["result"]["resultType"], "input_required") << first.dump();
    const json& asked = first["result"]["inputRequests"]["q1"];
    EXPECT_EQ(asked["method"], "elicitation/create");
    EXPECT_EQ(asked["params"]["message"], "Name?");
    EXPECT_EQ(relay.parked_calls(), 1U);  // the upstream call waits for the answer

    json again = call;
    again["inputResponses"] = {{"q1", {{"action", "accept"}, {"content", {{"name", "Ada"}}}}}};
    again["requestState"] = first["result"]["requestState"];
    auto second = c.request(2, "tools/call", again);
    EXPECT_EQ(second["result"]["resultType"], "complete") << second.dump();
    EXPECT_EQ(text_in(second), "answered: Ada");
    EXPECT_EQ(relay.parked_calls(), 0U);

    // the same round once more: the call it belonged to is over
    auto replay = c.request(3, "tools/call", again);
    EXPECT_EQ(replay["result"]["isError"], true) << replay.dump();
    EXPECT_NE(text_in(replay).find("is gone"), std::string::npos) << replay.dump();

    // a client that did not declare elicitation: the upstream hears so, in one round
    auto mute = c.request(4, "tools/call", json{{"_meta", stateless_meta(false)}, {"name", "relayed"}, {"arguments", {{"text", "x"}}}});
    EXPECT_EQ(mute["result"]["resultType"], "complete") << mute.dump();
    EXPECT_NE(text_in(mute).find("did not declare the elicitation capability"), std::string::npos) << mute.dump();
    g_relay = nullptr;
}

TEST(InputRelay, AQuestionAfterAnAnsweredOneIsANewRoundAndTheEarlierAnswerIsKept) {
    mcp::input_relay relay{"upstream"};
    g_relay = &relay;
    client c(mcp::backend_for(relay_box), quiet());
    json call = stateless_call("relayed_twice");
    auto r1 = c.request(1, "tools/call", call);
    ASSERT_EQ(r1["result"]["resultType"], "input_required") << r1.dump();
    EXPECT_EQ(r1["result"]["inputRequests"]["q1"]["params"]["message"], "First?");
    call["inputResponses"] = {{"q1", {{"action", "accept"}, {"content", {{"name", "Ada"}}}}}};
    call["requestState"] = r1["result"]["requestState"];
    auto r2 = c.request(2, "tools/call", call);
    ASSERT_EQ(r2["result"]["resultType"], "input_required") << r2.dump();
    EXPECT_FALSE(r2["result"]["inputRequests"].contains("q1"));
    EXPECT_EQ(r2["result"]["inputRequests"]["q2"]["params"]["message"], "Second?");
    call["inputResponses"] = {{"q2", {{"action", "accept"}, {"content", {{"name", "Grace"}}}}}};
    call["requestState"] = r2["result"]["requestState"];
    auto r3 = c.request(3, "tools/call", call);
    EXPECT_EQ(r3["result"]["resultType"], "complete") << r3.dump();
    EXPECT_EQ(text_in(r3), "answered: Ada, Grace");
    EXPECT_EQ(relay.parked_calls(), 0U);
    g_relay = nullptr;
}

TEST(InputRelay, AQuestionNobodyAnswersInTimeEndsAndItsCallIsForgotten) {
    mcp::input_relay relay{"upstream", std::chrono::milliseconds(50)};
    g_relay = &relay;
    client c(mcp::backend_for(relay_box), quiet());
    const int before = upstream_answered();
    auto first = c.request(1, "tools/call", stateless_call("relayed"));
    ASSERT_EQ(first["result"]["resultType"], "input_required") << first.dump();
    EXPECT_EQ(relay.parked_calls(), 1U);
    // the client never comes back: the upstream's question ends with a timeout of its own
    EXPECT_NE(upstream_after(before).find("did not come back with an answer"), std::string::npos);
    // the next call through the relay clears the given-up one: one parked, its own
    auto again = c.request(2, "tools/call", stateless_call("relayed"));
    EXPECT_EQ(again["result"]["resultType"], "input_required");
    EXPECT_EQ(relay.parked_calls(), 1U);
    g_relay = nullptr;
}

TEST(InputRelay, StopEndsTheParkedCallsAndParksNoMore) {
    mcp::input_relay relay{"upstream"};
    g_relay = &relay;
    client c(mcp::backend_for(relay_box), quiet());
    const int before = upstream_answered();
    auto first = c.request(1, "tools/call", stateless_call("relayed"));
    ASSERT_EQ(first["result"]["resultType"], "input_required") << first.dump();
    relay.stop();
    EXPECT_EQ(relay.parked_calls(), 0U);
    EXPECT_NE(upstream_after(before).find("has ended"), std::string::npos);
    auto after = c.request(2, "tools/call", stateless_call("relayed"));
    EXPECT_EQ(after["result"]["isError"], true) << after.dump();
    EXPECT_NE(text_in(after).find("stopping"), std::string::npos) << after.dump();
    EXPECT_EQ(relay.parked_calls(), 0U);
    g_relay = nullptr;
}

TEST(InputRelay, AHandshakeClientIsAskedOnTheCallsStream) {
    mcp::input_relay relay{"upstream"};
    g_relay = &relay;
    client c(mcp::backend_for(relay_box), quiet());
    initialize_eliciting(c);
    c.send(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "relayed"}, {"arguments", {{"text", "x"}}}}}});
    const json question = question_to(c);
    ASSERT_FALSE(question.is_null());
    EXPECT_EQ(question["params"]["message"], "Name?");
    c.send(json{{"jsonrpc", "2.0"}, {"id", question["id"]}, {"result", {{"action", "accept"}, {"content", {{"name", "Grace"}}}}}});
    EXPECT_EQ(text_in(c.response(1)), "answered: Grace");
    EXPECT_EQ(relay.parked_calls(), 0U);
    // asked while no call runs, or for what the gateway does not relay: refused, naming why
    auto outside = relay.answer("sampling/createMessage", json::object());
    ASSERT_FALSE(outside);
    EXPECT_NE(outside.error().message.find("none does"), std::string::npos) << outside.error().message;
    auto roots = relay.answer("roots/list", json::object());
    ASSERT_FALSE(roots);
    EXPECT_NE(roots.error().message.find("does not pass roots/list"), std::string::npos) << roots.error().message;
    g_relay = nullptr;
}

TEST(InputRelay, ACallNotMadeOverMcpHasNoClientToAsk) {
    mcp::input_relay relay{"upstream"};
    g_relay = &relay;
    ak::tool_context plain;  // a host's own call (an agent session), not an MCP request
    auto r = relay.run(plain, [&](ak::tool_context&) -> ak::result<ak::tool_output> {
        auto got = relay.answer("elicitation/create", json{{"message", "Name?"}});
        return ak::tool_output::text(got ? std::string("asked someone") : got.error().message);
    });
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_NE(r->joined_text().find("not made over MCP"), std::string::npos) << r->joined_text();
    g_relay = nullptr;
}

namespace {
// An upstream call that stays in flight until released, and one that asks on the calling thread
// (as a server does within the call's own exchange).
struct held_call {
    std::mutex mu;
    std::condition_variable cv;
    bool running = false;
    bool release = false;
};
held_call g_hold;
void release_hold() {
    std::lock_guard lock(g_hold.mu);
    g_hold.release = true;
    g_hold.cv.notify_all();
}
const auto hold = ak::tool<"hold">("Stays in flight until released.", [](const text_args&, ak::tool_context& ctx) {
    return relay_text(ctx, [](ak::tool_context&) -> ak::result<ak::tool_output> {
        std::unique_lock lock(g_hold.mu);
        g_hold.running = true;
        g_hold.cv.notify_all();
        g_hold.cv.wait(lock, [] { return g_hold.release; });
        return ak::tool_output::text("released");
    });
}, ak::parallel_safe);
const auto inline_ask = ak::tool<"inline_ask">("Asks on its own thread.", [](const text_args&, ak::tool_context& ctx) {
    return relay_text(ctx, [](ak::tool_context&) -> ak::result<ak::tool_output> {
        auto got = g_relay->answer("elicitation/create", json{{"message", "Inline?"}, {"requestedSchema", {{"type", "object"}}}});
        return ak::tool_output::text(got ? "inline answered" : got.error().message);
    });
}, ak::parallel_safe);
const ak::toolbox hold_box{relayed, hold, inline_ask};
}  // namespace

TEST(InputRelay, WithTwoCallsInFlightOnlyTheCallThatAsksOnItsOwnThreadIsKnown) {
    mcp::input_relay relay{"upstream"};
    g_relay = &relay;
    {
        std::lock_guard lock(g_hold.mu);
        g_hold.running = false;
        g_hold.release = false;
    }
    struct releaser {
        ~releaser() { release_hold(); }  // a failed assertion must not leave the held call running
    } const release_on_exit;
    client c(mcp::backend_for(hold_box), quiet());
    initialize_eliciting(c);
    c.send(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "hold"}, {"arguments", {{"text", "x"}}}}}});
    {
        std::unique_lock lock(g_hold.mu);
        ASSERT_TRUE(g_hold.cv.wait_for(lock, 10s, [] { return g_hold.running; }));
    }
    // asked from another thread (a server over stdio): two calls run, which one asks is unknown
    auto guessed = c.request(2, "tools/call", {{"name", "relayed"}, {"arguments", {{"text", "x"}}}});
    EXPECT_NE(text_in(guessed).find("while 2 of its calls run"), std::string::npos) << guessed.dump();
    // asked on the call's own thread: that call's client is asked
    c.send(json{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"}, {"params", {{"name", "inline_ask"}, {"arguments", {{"text", "x"}}}}}});
    const json question = question_to(c);
    ASSERT_FALSE(question.is_null());
    EXPECT_EQ(question["params"]["message"], "Inline?");
    c.send(json{{"jsonrpc", "2.0"}, {"id", question["id"]}, {"result", {{"action", "decline"}}}});
    EXPECT_EQ(text_in(c.response(3)), "inline answered");
    release_hold();
    EXPECT_EQ(text_in(c.response(1)), "released");
    g_relay = nullptr;
}

// A question that names its task (2025-11-25: _meta related-task) belongs to the call that
// started that task, asked from whatever thread; one naming a task no running call started is
// refused, even though a call is in flight.
TEST(InputRelay, AQuestionThatNamesItsTaskGoesToThatTasksCallOrToNone) {
    mcp::input_relay relay{"upstream"};
    ak::tool_context plain;
    const auto about = [](const std::string& task) {
        return json{{"message", "Topic?"}, {"_meta", {{"io.modelcontextprotocol/related-task", {{"taskId", task}}}}}};
    };
    std::string ours, stranger;
    auto r = relay.run(plain, [&](ak::tool_context&) -> ak::result<ak::tool_output> {
        relay.task_started("task-7");
        // asked from the server's reader thread, as a server over stdio asks
        std::thread([&] {
            auto a = relay.answer("elicitation/create", about("task-7"));
            ours = a ? "asked" : a.error().message;
            auto b = relay.answer("elicitation/create", about("task-9"));
            stranger = b ? "asked" : b.error().message;
        }).join();
        return ak::tool_output::text("done");
    });
    ASSERT_TRUE(r);
    EXPECT_NE(ours.find("not made over MCP"), std::string::npos) << ours;  // found: this call (a host's own)
    EXPECT_NE(stranger.find("task-9, whose call is not running"), std::string::npos) << stranger;
}

TEST(InputRelay, AQuestionJustAfterItsCallTimedOutIsNotGivenToAnotherCall) {
    mcp::input_relay relay{"upstream"};
    g_relay = &relay;
    ak::tool_context plain;
    // the call gives up waiting for its server (a timeout): the server may still ask for it
    auto timed_out = relay.run(plain, [](ak::tool_context&) -> ak::result<ak::tool_output> {
        return ak::fail(ak::errc::tool_timeout, "upstream: no answer to tools/call in 60000 ms");
    });
    ASSERT_FALSE(timed_out);
    auto late = relay.answer("elicitation/create", json{{"message", "Name?"}});
    ASSERT_FALSE(late);
    EXPECT_NE(late.error().message.find("have just ended without an answer"), std::string::npos) << late.error().message;
    // a call the server answered leaves nothing behind
    mcp::input_relay other{"upstream"};
    auto answered = other.run(plain, [](ak::tool_context&) -> ak::result<ak::tool_output> { return ak::tool_output::text("done"); });
    ASSERT_TRUE(answered);
    auto after = other.answer("elicitation/create", json{{"message", "Name?"}});
    ASSERT_FALSE(after);
    EXPECT_NE(after.error().message.find("none does"), std::string::npos) << after.error().message;
    g_relay = nullptr;
}
