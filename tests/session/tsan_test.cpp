// The thread-safety statement (docs/session.md, "What is thread-safe") under ThreadSanitizer:
// many sessions at once over one toolbox of local and remote tools, one mcp::client, one artifact
// store, one observer and one span recorder, while the MCP server on the far side serves a
// session of its own to the client's concurrent calls. Built with -fsanitize=thread
// (agentkit_tests_tsan); a data race fails the test (TSAN_OPTIONS=halt_on_error=1).
#include <agentkit/agentkit.hpp>
#include <agentkit/core/logging.hpp>
#include <agentkit/core/spans.hpp>
#include <agentkit/mcp/client/client.hpp>
#include <agentkit/mcp/client/remote_tools.hpp>
#include <agentkit/mcp/server/server.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "resume_tools.hpp"
#include "support/in_process_mcp.hpp"

namespace ak = agentkit;
using ak::json;

namespace {

using resume_fixture::key_args;

std::atomic<int> far_calls{0};
const auto remote_lookup = ak::tool<"far_lookup">("Look a key up far away.", [](const key_args& a) {
    ++far_calls;
    return "far value of " + a.key;
}, ak::read_only | ak::parallel_safe);
const auto page = ak::tool<"read_page">("A long page.", [](const key_args& a) {
    std::string s;
    for (int i = 0; i < 1500; ++i) s += "line " + std::to_string(i) + " of " + a.key + "\n";
    return s;
}, ak::read_only | ak::parallel_safe);

}  // namespace

TEST(ThreadSafety, ManySessionsOverOneToolboxOneClientOneStoreAndOneObserver) {
    // one observer for everything: a count, a log line built, a span recorder
    std::atomic<std::size_t> events{0};
    ak::span_recorder trace;
    const ak::observer shared = ak::fan_out({
        [&](const ak::event& e) {
            events.fetch_add(1, std::memory_order_relaxed);
            (void)ak::event_line(e);
        },
        trace.observer(),
    });

    // the far side: a session served over MCP, called concurrently (its serve_call reports too)
    ak::session_options far_opts;
    far_opts.on_event = shared;
    ak::agent_session far{ak::toolbox{remote_lookup}, ak::all_visible{}, ak::compact_formatter{}, far_opts};
    ak::mcp::server_options so;
    so.max_in_flight = 8;
    so.on_event = shared;
    ak::mcp::server srv{ak::mcp::backend_for(far), so};

    ak::mcp::client_options co;
    co.on_event = shared;
    auto connected = ak::mcp::client::connect(std::make_unique<agentkit::test::in_process_mcp>(srv), co);
    ASSERT_TRUE(connected) << connected.error().to_text();
    std::shared_ptr<ak::mcp::client> client = std::move(*connected);

    // one toolbox: a local tool and the remote one
    ak::runtime_toolbox box;
    ASSERT_TRUE(box.add_all(ak::toolbox{page}));
    ASSERT_TRUE(ak::mcp::add_remote_tools(box, client));
    ak::memory_artifacts store;  // shared by every session

    constexpr int threads = 8;
    constexpr int rounds = 3;
    std::atomic<int> answered{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            for (int r = 0; r < rounds; ++r) {
                ak::session_options o;
                o.on_event = shared;
                o.max_parallel = 3;
                ak::agent_session s{box, ak::all_visible{}, ak::compact_formatter{}, o, store};
                const std::string k = std::to_string(t) + "-" + std::to_string(r);
                ak::scripted_model m(t % 2 == 0 ? ak::provider::anthropic : ak::provider::openai_chat, {
                    ak::script::call({{"far_lookup", {{"key", "a" + k}}}, {"far_lookup", {{"key", "b" + k}}}, {"read_page", {{"key", k}}}}),
                    ak::script::call({{"far_lookup", {{"key", "c" + k}}}}),
                    ak::script::say("done " + k),
                });
                auto result = s.run(m, "look " + k);
                if (result.ok() && result.final_text == "done " + k) ++answered;
                (void)s.save();
            }
        });
    }
    // meanwhile: the server's own session is asked what it serves, and the trace is read
    std::thread watcher([&] {
        for (int i = 0; i < 50; ++i) {
            (void)far.served_tools();
            (void)far.serve_version();
            (void)trace.spans();
        }
    });
    for (auto& th : pool) th.join();
    watcher.join();
    client->close();

    EXPECT_EQ(answered.load(), threads * rounds);
    EXPECT_EQ(far_calls.load(), threads * rounds * 3);
    EXPECT_GE(store.size(), static_cast<std::size_t>(threads * rounds));  // every page was cut into the one store
    EXPECT_GT(events.load(), static_cast<std::size_t>(threads * rounds * 10));
    EXPECT_EQ(trace.open(), 0u);
}
