// core/url.hpp's loopback rule: every spelling the parts meet (a server's bind, a peer address,
// a Host header, a redirect URI, a browser's address) and the near misses it must refuse.
#include <agentkit/core/url.hpp>

#include <gtest/gtest.h>

#include <string>

namespace ak = agentkit;

TEST(LoopbackRule, NamesAndAddressesOfThisMachinesLoopbackInterface) {
    for (const char* h : {"localhost", "LOCALHOST", "localhost.", "app.localhost", "a.b.localhost", "127.0.0.1",
                          "127.255.255.254", "127.0.0.2", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1",
                          "[::FFFF:127.1.2.3]"})
        EXPECT_TRUE(ak::is_loopback_host(h)) << h;
}

TEST(LoopbackRule, RefusesTheUnspecifiedAddressesOtherHostsAndLookAlikes) {
    // 0.0.0.0 and :: listen on every interface when bound; the rest reach other machines or are
    // names that only look like loopback (a resolver could point them anywhere).
    for (const char* h : {"", "0.0.0.0", "::", "[::]", "128.0.0.1", "10.0.0.1", "126.255.255.255", "::2",
                          "::ffff:10.0.0.1", "::ffff:128.0.0.1", "localhost.example.com", "evillocalhost",
                          "notlocalhost", "localhost.evil", "127.0.0.1.nip.io", "127.0.0", "127.0.0.1.2",
                          "127.0.0.256", "0x7f.0.0.1", "2130706433", "[::1", "::1]", "example.com"})
        EXPECT_FALSE(ak::is_loopback_host(h)) << h;
}
