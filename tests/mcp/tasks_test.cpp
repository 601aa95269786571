// The tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) end to end: agentkit's MCP
// server over Streamable HTTP on 127.0.0.1 and mcp::client on the stateless wire. A call that
// outlives promote_after becomes a task the client follows to its result; input a task asks
// for goes through tasks/get and tasks/update (after an input_required round of the call
// itself); cancelling the call cancels the task and stops its handler; a new connection reads
// a task by its id; a tool that runs only as a task refuses a client without the extension.
// Handlers wait on gates the test opens (never on time), so every outcome is deterministic. Last,
// agentkit-browser-mcp's browser_wait_for as a task from mcp::client (when the apps and Chromium
// are there): followed, cancelled, and read again by id after its connection closed.
#include <agentkit/agentkit.hpp>
#include <agentkit/mcp/http/client.hpp>
#include <agentkit/mcp/http/server.hpp>

#include <gtest/gtest.h>

#include "support/flag.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ak = agentkit;
namespace mcp = agentkit::mcp;
using ak::json;

namespace {

/// A gate a handler waits at (bounded, and ended by its call's stop) until the test opens it.
struct gate {
    std::mutex m;
    std::condition_variable_any cv;
    bool open = false;
    void release() {
        std::lock_guard lock(m);
        open = true;
        cv.notify_all();
    }
    /// True when opened; false when stopped or after 30 s.
    bool wait(std::stop_token stop) {
        std::unique_lock lock(m);
        return cv.wait_for(lock, stop, std::chrono::seconds(30), [&] { return open; });
    }
};

struct word_args {
    std::string word;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(word_args, word, "A word")); }
};

const json name_schema{{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}, {"required", {"name"}}};

mcp::client_options stateless_options(std::string name) {
    mcp::client_options o;
    o.server_name = std::move(name);
    o.protocol_version = "2026-07-28";
    o.task_poll_min = std::chrono::milliseconds(5);
    return o;
}

std::unique_ptr<mcp::client> open_client(const std::string& url, mcp::client_options o) {
    mcp::http_server_endpoint ep;
    ep.url = url;
    auto c = mcp::client::connect(std::make_unique<mcp::http_client_transport>(ep), std::move(o));
    if (!c) ADD_FAILURE() << c.error().to_text();
    return c ? std::move(*c) : nullptr;
}

mcp::server_options fast_tasks() {
    mcp::server_options so;
    so.tasks.promote_after = std::chrono::milliseconds(20);
    so.tasks.poll_interval = std::chrono::milliseconds(10);
    return so;
}

}  // namespace

TEST(McpTasks, ALongCallBecomesATaskTheClientFollowsToItsResult) {
    gate g;
    const auto tools = ak::toolbox{
        ak::tool<"echo_later">("Echo a word once allowed.",
                               [&g](const word_args& a, ak::tool_context& ctx) -> ak::result<std::string> {
                                   if (!g.wait(ctx.stop)) return ak::fail(ak::errc::tool_cancelled, "stopped");
                                   ctx.progress(1, 1, "echoing");
                                   return "echo: " + a.word;
                               },
                               ak::long_running),
        ak::tool<"echo_now">("Echo a word (never a task).", [](const word_args& a) { return "now: " + a.word; }),
    };
    mcp::server srv{mcp::backend_for(tools), fast_tasks()};
    mcp::http_transport http{srv, mcp::http_options{}};
    ASSERT_TRUE(http.start());
    std::string task_id;
    auto o = stateless_options("tasks");
    o.on_task_started = [&](const std::string& id) {
        task_id = id;
        g.release();  // the call became a task before its handler could finish
    };
    auto c = open_client(http.url(), o);
    ASSERT_TRUE(c);
    EXPECT_TRUE(mcp::declares_tasks(json{{"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}}}));
    ASSERT_TRUE(c->server_capabilities().contains("extensions"));
    EXPECT_TRUE(c->server_capabilities()["extensions"].contains("io.modelcontextprotocol/tasks"));
    auto r = c->call_tool("echo_later", {{"word", "hello"}});
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(r->joined_text(), "echo: hello");
    EXPECT_EQ(task_id.size(), 32u);  // 128 random bits
    // the finished task is kept for its ttl: tasks/get shows it completed, result inlined
    auto got = c->request("tasks/get", {{"taskId", task_id}});
    ASSERT_TRUE(got) << got.error().to_text();
    EXPECT_EQ((*got)["status"], "completed");
    EXPECT_EQ((*got)["resultType"], "complete");
    EXPECT_EQ((*got)["result"]["content"][0]["text"], "echo: hello");
    EXPECT_EQ((*got)["result"]["resultType"], "complete");  // the call's own result, as 2026-07-28 shapes it
    EXPECT_EQ((*got)["ttlMs"], 3600000);
    // a quick tool is answered in its request, however the client declares
    task_id.clear();
    auto now = c->call_tool("echo_now", {{"word", "hi"}});
    ASSERT_TRUE(now) << now.error().to_text();
    EXPECT_EQ(now->joined_text(), "now: hi");
    EXPECT_TRUE(task_id.empty());
}

TEST(McpTasks, InputIsAskedInARoundBeforeTheTaskAndThroughTasksUpdateInIt) {
    const auto tools = ak::toolbox{
        ak::tool<"rename">("Ask a name in the call, go on as a task, confirm in the task.",
                           [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
                               auto* rq = mcp::request_of(ctx);
                               if (rq == nullptr) return ak::fail(ak::errc::internal, "not over MCP");
                               auto name = rq->ask(mcp::input::elicit("name", "New name?", name_schema));
                               if (!name) return ak::fail(name.error());
                               if (!rq->start_task()) return ak::fail(ak::errc::internal, "could not become a task");
                               auto sure = rq->ask(mcp::input::elicit(
                                   "sure", "Rename to " + (*name)["content"]["name"].get<std::string>() + "?",
                                   json{{"type", "object"}, {"properties", {{"yes", {{"type", "boolean"}}}}}}));
                               if (!sure) return ak::fail(sure.error());
                               const bool yes = (*sure)["content"].value("yes", false);
                               return std::string(yes ? "renamed to " : "kept, not ") + (*name)["content"]["name"].get<std::string>();
                           },
                           ak::long_running),
    };
    mcp::server_options so = fast_tasks();
    so.tasks.promote_after = std::chrono::milliseconds(0);  // only when the handler asks
    mcp::server srv{mcp::backend_for(tools), so};
    mcp::http_transport http{srv, mcp::http_options{}};
    ASSERT_TRUE(http.start());
    std::vector<std::string> asked;
    std::string task_id;
    auto o = stateless_options("input");
    o.on_task_started = [&](const std::string& id) { task_id = id; };
    o.on_elicitation = [&](const json& p) -> ak::result<json> {
        asked.push_back(p.value("message", ""));
        if (p.value("message", "") == "New name?") return json{{"action", "accept"}, {"content", {{"name", "Ada"}}}};
        return json{{"action", "accept"}, {"content", {{"yes", true}}}};
    };
    auto c = open_client(http.url(), o);
    ASSERT_TRUE(c);
    auto r = c->call_tool("rename", json::object());
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(r->joined_text(), "renamed to Ada");
    EXPECT_FALSE(task_id.empty());
    // each question reached the host once, though the task showed it on every poll meanwhile
    EXPECT_EQ(asked, (std::vector<std::string>{"New name?", "Rename to Ada?"}));
}

/// tasks/get until `pred` holds of the task (bounded: each poll is a round trip, no waiting).
static json poll_until(mcp::client& c, const std::string& id, const std::function<bool(const json&)>& pred) {
    json last;
    for (int i = 0; i < 5000; ++i) {
        auto got = c.request("tasks/get", {{"taskId", id}});
        if (!got) {
            ADD_FAILURE() << got.error().to_text();
            return json();
        }
        last = *got;
        if (pred(last)) return last;
        const std::string st = last.value("status", "");
        if (st == "completed" || st == "failed" || st == "cancelled") break;  // it will not change any more
    }
    ADD_FAILURE() << "the task never reached the state; last: " << last.dump();
    return last;
}

TEST(McpTasks, TasksUpdateTakesOutstandingAnswersRefusesMalformedOnesAndIgnoresTheRest) {
    const auto tools = ak::toolbox{
        ak::tool<"confirm">("Confirm in a task.",
                            [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
                                auto* rq = mcp::request_of(ctx);
                                if (rq == nullptr || !rq->start_task()) return ak::fail(ak::errc::internal, "not a task");
                                auto sure = rq->ask(mcp::input::elicit("sure", "Sure?", json{{"type", "object"}, {"properties", {{"yes", {{"type", "boolean"}}}}}}));
                                if (!sure) return ak::fail(sure.error());
                                return std::string((*sure)["content"].value("yes", false) ? "confirmed" : "declined");
                            },
                            ak::long_running),
    };
    mcp::server srv{mcp::backend_for(tools), fast_tasks()};
    mcp::http_transport http{srv, mcp::http_options{}};
    ASSERT_TRUE(http.start());
    auto o = stateless_options("raw");  // declares elicitation; the test answers by hand
    o.on_elicitation = [](const json&) -> ak::result<json> { return ak::fail(ak::errc::internal, "answered by the test"); };
    auto c = open_client(http.url(), o);
    ASSERT_TRUE(c);
    auto created = c->request("tools/call", {{"name", "confirm"}, {"arguments", json::object()}});
    ASSERT_TRUE(created) << created.error().to_text();
    ASSERT_EQ((*created)["resultType"], "task");
    EXPECT_FALSE(created->contains("result"));
    const std::string id = (*created)["taskId"];
    auto asking = poll_until(*c, id, [](const json& t) { return t.value("status", "") == "input_required"; });
    ASSERT_TRUE(asking["inputRequests"].contains("sure"));
    EXPECT_EQ(asking["inputRequests"]["sure"]["method"], "elicitation/create");
    // an answer that is no ElicitResult is refused, and nothing of that update is taken
    auto bad = c->request("tasks/update", {{"taskId", id}, {"inputResponses", {{"sure", {{"yes", true}}}, {"other", {{"x", 1}}}}}});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().details.value("code", 0), -32602);
    EXPECT_NE(bad.error().message.find("sure"), std::string::npos);
    // keys not outstanding are ignored; the task still waits
    auto ignored = c->request("tasks/update", {{"taskId", id}, {"inputResponses", {{"unknown", {{"action", "accept"}}}}}});
    ASSERT_TRUE(ignored) << ignored.error().to_text();
    EXPECT_EQ(*ignored, json({{"resultType", "complete"}}));
    auto still = c->request("tasks/get", {{"taskId", id}});
    ASSERT_TRUE(still);
    EXPECT_EQ((*still)["status"], "input_required");
    auto ok = c->request("tasks/update", {{"taskId", id}, {"inputResponses", {{"sure", {{"action", "accept"}, {"content", {{"yes", true}}}}}}}});
    ASSERT_TRUE(ok) << ok.error().to_text();
    auto done = poll_until(*c, id, [](const json& t) { return t.value("status", "") == "completed"; });
    EXPECT_EQ(done["result"]["content"][0]["text"], "confirmed");
    EXPECT_FALSE(done.contains("inputRequests"));
}

TEST(McpTasks, CancellingTheCallCancelsTheTaskAndStopsItsHandler) {
    ak::test::flag stopped;
    const auto tools = ak::toolbox{
        ak::tool<"forever">("Run until stopped.",
                            [&stopped](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
                                gate never;
                                (void)never.wait(ctx.stop);
                                if (ctx.cancelled()) stopped.raise();
                                return ak::fail(ak::errc::tool_cancelled, "stopped");
                            },
                            ak::long_running),
    };
    mcp::server srv{mcp::backend_for(tools), fast_tasks()};
    mcp::http_transport http{srv, mcp::http_options{}};
    ASSERT_TRUE(http.start());
    std::stop_source cancel;
    std::string task_id;
    auto o = stateless_options("cancel");
    o.on_task_started = [&](const std::string& id) {
        task_id = id;
        cancel.request_stop();  // the host gives up as soon as the call is a task
    };
    auto c = open_client(http.url(), o);
    ASSERT_TRUE(c);
    ak::tool_context ctx;
    ctx.stop = cancel.get_token();
    auto r = c->call_tool("forever", json::object(), ctx);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::tool_cancelled);
    EXPECT_NE(r.error().message.find(task_id), std::string::npos);
    EXPECT_TRUE(stopped.wait_for(std::chrono::seconds(30))) << "the handler was never told to stop";
    auto got = c->request("tasks/get", {{"taskId", task_id}});
    ASSERT_TRUE(got) << got.error().to_text();
    EXPECT_EQ((*got)["status"], "cancelled");
    // cancelling a finished task again is acknowledged, and changes nothing
    EXPECT_TRUE(c->cancel_task_by_id(task_id));
    EXPECT_EQ((*c->request("tasks/get", {{"taskId", task_id}}))["status"], "cancelled");
}

TEST(McpTasks, ANewConnectionReadsATaskByItsIdAndUnknownIdsAreRefused) {
    gate g;
    const auto tools = ak::toolbox{
        ak::tool<"report">("Write a report once allowed.",
                           [&g](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
                               if (!g.wait(ctx.stop)) return ak::fail(ak::errc::tool_cancelled, "stopped");
                               return std::string("report ready");
                           },
                           ak::long_running),
    };
    mcp::server srv{mcp::backend_for(tools), fast_tasks()};
    mcp::http_transport http{srv, mcp::http_options{}};
    ASSERT_TRUE(http.start());
    std::string task_id;
    ak::test::flag started;
    {
        auto o = stateless_options("first");
        o.on_task_started = [&](const std::string& id) {
            task_id = id;
            started.raise();
        };
        auto c = open_client(http.url(), o);
        ASSERT_TRUE(c);
        std::thread caller([&] {
            auto r = c->call_tool("report", json::object());
            EXPECT_FALSE(r);  // its connection closed under it
        });
        ASSERT_TRUE(started.wait_for(std::chrono::seconds(30)));
        c->close();  // the host loses its connection while the task runs
        caller.join();
    }
    g.release();
    auto c3 = open_client(http.url(), stateless_options("reconnected"));
    ASSERT_TRUE(c3);
    auto r = c3->await_task(task_id);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(r->joined_text(), "report ready");
    auto unknown = c3->await_task("0123456789abcdef0123456789abcdef");
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code, ak::errc::remote_error);
    EXPECT_EQ(unknown.error().details.value("code", 0), -32602);
}

TEST(McpTasks, AToolThatRunsOnlyAsATaskRefusesAClientWithoutTheExtension) {
    const auto tools = ak::toolbox{
        ak::tool<"job">("A job that runs only as a task.", [] { return std::string("job done"); }),
    };
    auto b = mcp::backend_for(tools);
    b.task_support_of = [](std::string_view name) { return name == "job" ? mcp::task_support::required : mcp::task_support::forbidden; };
    mcp::server srv{std::move(b), fast_tasks()};
    mcp::http_transport http{srv, mcp::http_options{}};
    ASSERT_TRUE(http.start());
    auto o = stateless_options("without");
    o.tasks = false;
    auto plain = open_client(http.url(), o);
    ASSERT_TRUE(plain);
    auto refused = plain->call_tool("job", json::object());
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ak::errc::remote_error);
    EXPECT_EQ(refused.error().details.value("code", 0), -32021);
    EXPECT_TRUE(refused.error().details["data"]["requiredCapabilities"]["extensions"].contains("io.modelcontextprotocol/tasks"));
    // tasks/* without the extension: -32021 before any lookup
    auto gated = plain->request("tasks/get", {{"taskId", "x"}});
    ASSERT_FALSE(gated);
    EXPECT_EQ(gated.error().details.value("code", 0), -32021);
    // with it, a call that finished at once is a task already done
    std::string task_id;
    auto o2 = stateless_options("with");
    o2.on_task_started = [&](const std::string& id) { task_id = id; };
    auto with = open_client(http.url(), o2);
    ASSERT_TRUE(with);
    auto done = with->call_tool("job", json::object());
    ASSERT_TRUE(done) << done.error().to_text();
    EXPECT_EQ(done->joined_text(), "job done");
    EXPECT_FALSE(task_id.empty());
    // another principal's task is not found (here: no authentication, so the id is the key)
    auto missing = with->request("tasks/cancel", {{"taskId", task_id + "0"}});
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().details.value("code", 0), -32602);
}

TEST(McpTasks, ARunningTaskDoesNotHoldUpOtherCalls) {
    gate g;
    const auto tools = ak::toolbox{
        ak::tool<"hours">("Runs until allowed.",
                          [&g](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
                              auto* rq = mcp::request_of(ctx);
                              if (rq == nullptr || !rq->start_task()) return ak::fail(ak::errc::internal, "not a task");
                              if (!g.wait(ctx.stop)) return ak::fail(ak::errc::tool_cancelled, "stopped");
                              return std::string("finally");
                          },
                          ak::long_running | ak::parallel_safe),
        ak::tool<"quick">("Answers at once.", [] { return std::string("quick"); }, ak::parallel_safe),
    };
    auto so = fast_tasks();
    so.max_in_flight = 1;  // one worker for requests: the task's must not be it
    mcp::server srv{mcp::backend_for(tools), so};
    mcp::http_transport http{srv, mcp::http_options{}};
    ASSERT_TRUE(http.start());
    auto c = open_client(http.url(), stateless_options("busy"));
    ASSERT_TRUE(c);
    auto created = c->request("tools/call", {{"name", "hours"}, {"arguments", json::object()}});
    ASSERT_TRUE(created) << created.error().to_text();
    ASSERT_EQ((*created)["resultType"], "task");
    auto q = c->call_tool("quick", json::object());  // answered while the task still runs
    ASSERT_TRUE(q) << q.error().to_text();
    EXPECT_EQ(q->joined_text(), "quick");
    g.release();
    auto done = poll_until(*c, (*created)["taskId"], [](const json& t) { return t.value("status", "") == "completed"; });
    EXPECT_EQ(done["result"]["content"][0]["text"], "finally");
}

namespace {
/// One client of an in-process server: its session (with a principal) and what it was sent.
struct peer {
    std::shared_ptr<mcp::session> s;
    std::mutex m;
    std::condition_variable cv;
    std::vector<json> got;
    mcp::reply_fn reply() {
        return [this](const std::string& line, bool) {
            std::lock_guard lock(m);
            got.push_back(json::parse(line));
            cv.notify_all();
        };
    }
    /// The first message `pred` accepts (bounded wait; null when none came).
    json wait_for(const std::function<bool(const json&)>& pred) {
        std::unique_lock lock(m);
        json found;
        cv.wait_for(lock, std::chrono::seconds(10), [&] {
            for (const auto& j : got)
                if (pred(j)) {
                    found = j;
                    return true;
                }
            return false;
        });
        return found;
    }
    json response(int id) {
        return wait_for([id](const json& j) { return j.value("id", json()) == id && (j.contains("result") || j.contains("error")); });
    }
};

json stateless_request(int id, const std::string& method, json params, bool tasks) {
    params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                       {"io.modelcontextprotocol/clientCapabilities",
                        tasks ? json{{"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}}} : json::object()}};
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}
}  // namespace

TEST(McpTasks, ATaskAnswersOnlyToItsPrincipalAndItsListenersHearItsStatus) {
    gate g;
    const auto tools = ak::toolbox{
        ak::tool<"slow">("Finish once allowed.",
                         [&g](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
                             if (!g.wait(ctx.stop)) return ak::fail(ak::errc::tool_cancelled, "stopped");
                             return std::string("slow done");
                         },
                         ak::long_running),
    };
    peer alice, bob, carol;  // before the server: its listeners' last messages reach them as it ends
    auto so = fast_tasks();
    so.stderr_level = "off";
    mcp::server srv{mcp::backend_for(tools), so};
    alice.s = srv.open_session();
    alice.s->set_principal("alice");
    bob.s = srv.open_session();
    bob.s->set_principal("bob");
    carol.s = srv.open_session();
    carol.s->set_principal("alice");
    srv.handle(*alice.s, stateless_request(1, "tools/call", {{"name", "slow"}, {"arguments", json::object()}}, true).dump(), alice.reply());
    const json created = alice.response(1);
    ASSERT_EQ(created["result"]["resultType"], "task") << created.dump();
    const std::string id = created["result"]["taskId"];
    // another principal neither reads, updates, cancels nor hears it: to it, the task does not exist
    for (const char* m : {"tasks/get", "tasks/cancel"}) {
        srv.handle(*bob.s, stateless_request(2, m, {{"taskId", id}}, true).dump(), bob.reply());
        EXPECT_EQ(bob.response(2)["error"]["code"], -32602) << m;
        std::lock_guard lock(bob.m);
        bob.got.clear();
    }
    srv.handle(*bob.s, stateless_request(3, "subscriptions/listen", {{"notifications", {{"taskIds", {id}}}}}, true).dump(), bob.reply());
    const json bob_ack = bob.wait_for([](const json& j) { return j.value("method", "") == "notifications/subscriptions/acknowledged"; });
    EXPECT_EQ(bob_ack["params"]["notifications"]["taskIds"], json::array());
    // the same principal on another session listens; an unknown id is not acknowledged
    srv.handle(*carol.s, stateless_request(4, "subscriptions/listen", {{"notifications", {{"taskIds", {id, "nope"}}}}}, true).dump(), carol.reply());
    const json ack = carol.wait_for([](const json& j) { return j.value("method", "") == "notifications/subscriptions/acknowledged"; });
    EXPECT_EQ(ack["params"]["notifications"]["taskIds"], json::array({id}));
    // a client without the extension may not ask for task notifications
    srv.handle(*carol.s, stateless_request(5, "subscriptions/listen", {{"notifications", {{"taskIds", {id}}}}}, false).dump(), carol.reply());
    const json refused = carol.response(5);
    EXPECT_EQ(refused["error"]["code"], -32021);
    EXPECT_TRUE(refused["error"]["data"]["requiredCapabilities"]["extensions"].contains("io.modelcontextprotocol/tasks"));
    g.release();
    const json note = carol.wait_for([](const json& j) { return j.value("method", "") == "notifications/tasks"; });
    ASSERT_FALSE(note.is_null()) << "no notifications/tasks";
    EXPECT_EQ(note["params"]["taskId"], id);
    EXPECT_EQ(note["params"]["status"], "completed");
    EXPECT_EQ(note["params"]["result"]["content"][0]["text"], "slow done");
    std::lock_guard lock(bob.m);
    for (const auto& j : bob.got) EXPECT_NE(j.value("method", ""), "notifications/tasks");
}

#ifdef AGENTKIT_TEST_BROWSER_MCP
namespace {
/// agentkit-browser-mcp --port 0 in a child process, until destroyed (SIGTERM); `url` is empty
/// when it did not serve.
struct browser_mcp_process {
    pid_t pid = -1;
    std::string url;
    std::string said;  // its stderr up to the URL
    browser_mcp_process() {
        int fds[2];
        if (::pipe(fds) != 0) return;
        pid = ::fork();
        if (pid == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlives a test that aborted
            ::dup2(fds[1], 2);
            ::close(fds[0]);
            ::close(fds[1]);
            const char* argv[] = {AGENTKIT_TEST_BROWSER_MCP, "--headless", "--quiet", "--shared-browser-context", "--port", "0", nullptr};
            ::execv(argv[0], const_cast<char* const*>(argv));
            ::_exit(127);
        }
        ::close(fds[1]);
        char buf[512];
        for (;;) {  // the server says where it serves, on stderr, before anything else matters
            const ssize_t n = ::read(fds[0], buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            said.append(buf, static_cast<std::size_t>(n));
            const auto at = said.find("serving http://");
            if (at != std::string::npos) {
                const auto end = said.find_first_of(" \n", at + 8);
                if (end != std::string::npos) {
                    url = said.substr(at + 8, end - at - 8);
                    break;
                }
            }
        }
        const int rd = fds[0];
        drain = std::thread([rd] {  // the rest of its stderr, read until it exits
            char b[512];
            for (;;) {
                const ssize_t got = ::read(rd, b, sizeof b);
                if (got > 0 || (got < 0 && errno == EINTR)) continue;
                break;
            }
            ::close(rd);
        });
    }
    ~browser_mcp_process() {
        if (pid > 0) {
            ::kill(pid, SIGTERM);
            int status = 0;
            ::waitpid(pid, &status, 0);
        }
        if (drain.joinable()) drain.join();
    }
    std::thread drain;
    browser_mcp_process(const browser_mcp_process&) = delete;
    browser_mcp_process& operator=(const browser_mcp_process&) = delete;
};

bool chromium_found() {
    const char* env = std::getenv("AGENTKIT_CHROMIUM");
    return (env != nullptr && *env != '\0') || std::filesystem::exists("/usr/lib/chromium/chromium");
}
}  // namespace

TEST(McpTasks, TheBrowserServersLongWaitIsATaskFollowedCancelledAndReadAgainById) {
    if (!chromium_found()) GTEST_SKIP() << "no Chromium";
    browser_mcp_process server;
    ASSERT_FALSE(server.url.empty()) << "agentkit-browser-mcp did not serve: " << server.said;
    // 1. a wait past the server's promote_after (1 s) becomes a task the client follows
    std::string task_id;
    auto o = stateless_options("browser");
    o.on_task_started = [&](const std::string& id) { task_id = id; };
    auto c = open_client(server.url, o);
    ASSERT_TRUE(c);
    auto waited = c->call_tool("browser_wait_for", {{"time", 2}});
    ASSERT_TRUE(waited) << waited.error().to_text();
    EXPECT_FALSE(waited->is_error) << waited->joined_text();
    EXPECT_EQ(task_id.size(), 32u);
    // 2. a long wait whose host gives up once it is a task: cancelled, and the browser is free at once
    std::stop_source give_up;
    auto o2 = stateless_options("browser-cancel");
    o2.on_task_started = [&](const std::string&) { give_up.request_stop(); };
    auto c2 = open_client(server.url, o2);
    ASSERT_TRUE(c2);
    ak::tool_context ctx;
    ctx.stop = give_up.get_token();
    auto cancelled = c2->call_tool("browser_wait_for", {{"time", 25}}, ctx);
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.error().code, ak::errc::tool_cancelled);
    auto tabs = c->call_tool("browser_tabs", {{"action", "list"}});
    ASSERT_TRUE(tabs) << tabs.error().to_text();
    // 3. a task whose connection closed under it is read by a new connection, by its id
    std::string handed;
    ak::test::flag started;
    {
        auto o3 = stateless_options("browser-first");
        o3.on_task_started = [&](const std::string& id) {
            handed = id;
            started.raise();
        };
        auto c3 = open_client(server.url, o3);
        ASSERT_TRUE(c3);
        std::thread caller([&] { (void)c3->call_tool("browser_wait_for", {{"time", 2}}); });
        ASSERT_TRUE(started.wait_for(std::chrono::seconds(30)));
        c3->close();
        caller.join();
    }
    auto c4 = open_client(server.url, stateless_options("browser-again"));
    ASSERT_TRUE(c4);
    auto again = c4->await_task(handed);
    ASSERT_TRUE(again) << again.error().to_text();
    EXPECT_FALSE(again->is_error) << again->joined_text();
}
#endif
