#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ak = agentkit;
using ak::json;

namespace {
ak::message turn_calls(const std::string& id) {
    ak::tool_call c;
    c.id = id;
    c.name = "read";
    return ak::message::assistant("", {c});
}
ak::message turn_results(const std::string& id, std::string text, bool image = false) {
    ak::message m;
    m.role = ak::role::user;
    ak::tool_result r;
    r.call_id = id;
    r.name = "read";
    r.output = ak::tool_output::text(std::move(text));
    if (image) r.output.add_image(std::string(1000, 'A'), "image/png");
    m.results.push_back(std::move(r));
    return m;
}
std::vector<ak::message> history(std::size_t turns, std::size_t chars, bool images = false) {
    std::vector<ak::message> h{ak::message::user("the task")};
    for (std::size_t i = 0; i < turns; ++i) {
        std::string id = "c";  // appends only: g++ 12 at -O3 reports a false -Wstringop-overflow on "c" + ...
        id += std::to_string(i);
        h.push_back(turn_calls(id));
        h.push_back(turn_results(id, std::string(chars, static_cast<char>('a' + i % 26)), images));
    }
    return h;
}
}  // namespace

TEST(Context, OlderResultsCompressedNewestKeptWhole) {
    const auto h = history(4, 5000);
    ak::context_stats st;
    const auto out = ak::prepare_context(h, {}, ak::token_counter{}, &st);
    ASSERT_EQ(out.size(), h.size());
    EXPECT_EQ(st.compressed_results, 3u);
    for (std::size_t i = 2; i < 8; i += 2) {
        const std::string& t = out[i].results[0].output.content[0].text;
        EXPECT_LT(t.size(), 2100u);
        EXPECT_NE(t.find("chars omitted"), std::string::npos);
        EXPECT_EQ(t.substr(0, 1400), h[i].results[0].output.content[0].text.substr(0, 1400));
    }
    EXPECT_EQ(out.back().results[0].output.content[0].text.size(), 5000u);
    EXPECT_LT(st.tokens_after, st.tokens_before);
    // The original history is untouched.
    EXPECT_EQ(h[2].results[0].output.content[0].text.size(), 5000u);
}

TEST(Context, KeepWholeAndHeadTailAreConfigurable) {
    ak::context_options o;
    o.keep_whole = 2;
    o.head = 100;
    o.tail = 50;
    const auto out = ak::prepare_context(history(3, 3000), o, ak::token_counter{});
    EXPECT_LT(out[2].results[0].output.content[0].text.size(), 250u);
    EXPECT_EQ(out[4].results[0].output.content[0].text.size(), 3000u);
    EXPECT_EQ(out[6].results[0].output.content[0].text.size(), 3000u);
}

TEST(Context, OldImagesBecomeOneLine) {
    ak::context_stats st;
    const auto out = ak::prepare_context(history(2, 10, true), {}, ak::token_counter{}, &st);
    EXPECT_EQ(st.stripped_images, 1u);
    const auto& old = out[2].results[0].output;
    for (const auto& b : old.content) EXPECT_NE(b.type, ak::content_block::kind::image);
    EXPECT_NE(old.joined_text().find("[image image/png from read, omitted from an older result]"), std::string::npos);
    EXPECT_EQ(out[4].results[0].output.content[1].type, ak::content_block::kind::image);
}

TEST(Context, TrimsOldestTurnsKeepingPairs) {
    const auto h = history(10, 4000);
    ak::context_options o;
    o.keep_whole = 10;  // no compression: trimming alone must fit the budget
    o.token_budget = 3000;
    ak::context_stats st;
    ak::token_counter tc;
    const auto out = ak::prepare_context(h, o, tc, &st);
    EXPECT_GT(st.dropped_turns, 0u);
    EXPECT_EQ(out.front().role, ak::role::user);
    EXPECT_NE(out.front().text.find("earlier turns removed"), std::string::npos);
    // Alternation and pairing hold: every assistant call is answered by the next message.
    for (std::size_t i = 1; i < out.size(); ++i) {
        if (out[i].role == ak::role::assistant) {
            ASSERT_LT(i + 1, out.size());
            ASSERT_EQ(out[i + 1].results.size(), out[i].calls.size());
            EXPECT_EQ(out[i + 1].results[0].call_id, out[i].calls[0].id);
        }
    }
    EXPECT_EQ(out.back().results[0].call_id, "c9");  // the newest turn survives
    std::size_t total = 0;
    for (const auto& m : out) total += ak::message_tokens(m, tc);
    EXPECT_LE(total, 3000u);
    EXPECT_EQ(total, st.tokens_after);
}

TEST(Context, NewestTurnSurvivesEvenOverBudget) {
    ak::context_options o;
    o.token_budget = 10;
    const auto out = ak::prepare_context(history(3, 4000), o, ak::token_counter{});
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[1].calls[0].id, "c2");
}

TEST(Context, TokenAccountingUsesThePluggableCounter) {
    const auto counter = ak::token_counter::from_function([](std::string_view s) { return s.size(); });
    const ak::message m = ak::message::user("abcdef");
    EXPECT_EQ(ak::message_tokens(m, counter), 4u + 6u);
    auto r = turn_results("c", "xyz", true);
    EXPECT_EQ(ak::message_tokens(r, counter, 100), 4u + 6u + 3u + 100u);
}
