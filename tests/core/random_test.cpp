// core/random.hpp: the shapes of what it draws, and that draws differ.
#include <agentkit/core/random.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>

namespace ak = agentkit;

TEST(Random, HexIsTwoDigitsPerByteAndDrawsDiffer) {
    std::set<std::string> seen;
    for (int i = 0; i < 64; ++i) {
        const std::string h = ak::random_hex(16);
        ASSERT_EQ(h.size(), 32u);
        EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos) << h;
        seen.insert(h);
    }
    EXPECT_EQ(seen.size(), 64u);  // 128-bit draws: a repeat means a broken source
    EXPECT_EQ(ak::random_hex(0), "");
}

TEST(Random, Base64UrlIsUrlSafeWithoutPadding) {
    for (const std::size_t n : {1u, 2u, 16u, 32u}) {
        const std::string t = ak::random_base64url(n);
        EXPECT_EQ(t.size(), (4 * n + 2) / 3) << n;  // unpadded: ceil(4n/3)
        EXPECT_EQ(t.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"), std::string::npos) << t;
    }
    EXPECT_NE(ak::random_base64url(32), ak::random_base64url(32));
}

TEST(Random, BytesFillTheWholeBuffer) {
    // 4 KiB with no zero byte run longer than 64: a source that stopped part way leaves zeros
    std::array<unsigned char, 4096> b{};
    ASSERT_TRUE(ak::random_bytes(b.data(), b.size()));
    std::size_t run = 0;
    std::size_t longest = 0;
    for (const unsigned char c : b) {
        run = c == 0 ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    EXPECT_LT(longest, 64u);
    EXPECT_TRUE(ak::random_bytes(b.data(), 0));
}
