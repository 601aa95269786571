#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

namespace ak = agentkit;

TEST(Tokens, HeuristicIsInTheRightRange) {
    ak::heuristic_tokens h;
    EXPECT_EQ(h.count(""), 0U);
    // o200k: "The quick brown fox jumps over the lazy dog." is 10 tokens.
    auto n = h.count("The quick brown fox jumps over the lazy dog.");
    EXPECT_GE(n, 8U);
    EXPECT_LE(n, 12U);
    // Long words split; digits group by three.
    EXPECT_GT(h.count("internationalization"), 1U);
    EXPECT_EQ(h.count("123456"), 2U);
    // CJK counts per character.
    EXPECT_EQ(h.count("\xe4\xbd\xa0\xe5\xa5\xbd"), 2U);
}

TEST(Tokens, CounterIsPluggable) {
    struct per_byte {
        std::size_t count(std::string_view s) const { return s.size(); }
    };
    ak::token_counter exact{per_byte{}};
    EXPECT_EQ(exact.count("abcd"), 4U);
    ak::token_counter def;
    EXPECT_EQ(def.count("abcd"), ak::heuristic_tokens{}.count("abcd"));
    auto fn = ak::token_counter::from_function([](std::string_view s) { return s.size() * 2; });
    EXPECT_EQ(fn.count("ab"), 4U);
}
