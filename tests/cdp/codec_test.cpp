// Pure codecs of the CDP driver: SHA-1, base64, WebSocket frames, URLs, HTTP heads.
#include <agentkit/cdp/detail/sha1_base64.hpp>
#include <agentkit/cdp/detail/websocket_frame.hpp>
#include <agentkit/cdp/detail/net.hpp>

#include <gtest/gtest.h>

#include <string>

namespace d = agentkit::cdp::detail;
namespace ws = agentkit::cdp::detail::ws;
namespace errc = agentkit::errc;

namespace {

std::string sha1_hex(std::string_view s) {
    const auto dg = d::sha1_digest(s);
    return d::to_hex(dg.data(), dg.size());
}

std::string bytes(std::initializer_list<unsigned> b) {
    std::string s;
    for (auto v : b) s += static_cast<char>(v);
    return s;
}

}  // namespace

// FIPS 180 / RFC 3174 test vectors.
TEST(CdpSha1, StandardVectors) {
    EXPECT_EQ(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    EXPECT_EQ(sha1_hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
    EXPECT_EQ(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    EXPECT_EQ(sha1_hex("The quick brown fox jumps over the lazy dog"), "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12");
}

TEST(CdpSha1, MillionAsIncrementallyInOddChunks) {
    d::sha1 h;
    const std::string chunk(997, 'a');
    std::size_t left = 1000000;
    while (left > 0) {
        const std::size_t n = std::min(left, chunk.size());
        h.update(chunk.data(), n);
        left -= n;
    }
    const auto dg = h.finish();
    EXPECT_EQ(d::to_hex(dg.data(), dg.size()), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST(CdpSha1, PaddingBoundaries) {
    // 55, 56 and 64 bytes straddle the length field; compare against known digests.
    EXPECT_EQ(sha1_hex(std::string(55, 'a')), "c1c8bbdc22796e28c0e15163d20899b65621d65a");
    EXPECT_EQ(sha1_hex(std::string(56, 'a')), "c2db330f6083854c99d4b5bfb6e8f29f201be699");
    EXPECT_EQ(sha1_hex(std::string(64, 'a')), "0098ba824b5c16427bd7a1122a5a442a25ec644d");
}

// RFC 4648 §10.
TEST(CdpBase64, Rfc4648Vectors) {
    EXPECT_EQ(d::base64_encode(""), "");
    EXPECT_EQ(d::base64_encode("f"), "Zg==");
    EXPECT_EQ(d::base64_encode("fo"), "Zm8=");
    EXPECT_EQ(d::base64_encode("foo"), "Zm9v");
    EXPECT_EQ(d::base64_encode("foob"), "Zm9vYg==");
    EXPECT_EQ(d::base64_encode("fooba"), "Zm9vYmE=");
    EXPECT_EQ(d::base64_encode("foobar"), "Zm9vYmFy");
    EXPECT_EQ(d::base64_encode(bytes({0xFF, 0xFE, 0xFD})), "//79");
}

// RFC 6455 §1.3 example.
TEST(CdpWebSocket, AcceptKeyFromRfc) {
    EXPECT_EQ(d::websocket_accept("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

// RFC 6455 §5.7 examples.
TEST(CdpWebSocketFrame, EncodesRfcExamples) {
    EXPECT_EQ(ws::encode_frame(ws::opcode::text, "Hello"), bytes({0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f}));
    EXPECT_EQ(ws::encode_frame(ws::opcode::text, "Hello", true, ws::mask_key{0x37, 0xfa, 0x21, 0x3d}),
              bytes({0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}));
    EXPECT_EQ(ws::encode_frame(ws::opcode::text, "Hel", false), bytes({0x01, 0x03, 0x48, 0x65, 0x6c}));
    EXPECT_EQ(ws::encode_frame(ws::opcode::continuation, "lo", true), bytes({0x80, 0x02, 0x6c, 0x6f}));
    EXPECT_EQ(ws::encode_frame(ws::opcode::ping, "Hello"), bytes({0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f}));
}

TEST(CdpWebSocketFrame, LengthEncodings) {
    const std::string b256(256, 'x');
    const auto f256 = ws::encode_frame(ws::opcode::binary, b256);
    EXPECT_EQ(f256.substr(0, 4), bytes({0x82, 0x7E, 0x01, 0x00}));
    EXPECT_EQ(f256.size(), 4U + 256U);
    const std::string b64k(65536, 'y');
    const auto f64k = ws::encode_frame(ws::opcode::binary, b64k);
    EXPECT_EQ(f64k.substr(0, 10), bytes({0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00}));
    EXPECT_EQ(f64k.size(), 10U + 65536U);
    // 125 stays in the 7-bit form, 126 switches to 16 bits.
    EXPECT_EQ(static_cast<unsigned char>(ws::encode_frame(ws::opcode::text, std::string(125, 'a'))[1]), 125U);
    EXPECT_EQ(static_cast<unsigned char>(ws::encode_frame(ws::opcode::text, std::string(126, 'a'))[1]), 126U);
}

TEST(CdpWebSocketFrame, DecodesMaskedRfcExample) {
    const auto frame = bytes({0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58});
    auto h = ws::decode_header(frame, 1000);
    ASSERT_TRUE(h.has_value());
    ASSERT_TRUE(h->has_value());
    const auto& f = **h;
    EXPECT_TRUE(f.fin);
    EXPECT_EQ(f.op, ws::opcode::text);
    EXPECT_TRUE(f.masked);
    EXPECT_EQ(f.payload_offset, 6U);
    EXPECT_EQ(f.payload_size, 5U);
    std::string payload = frame.substr(f.payload_offset);
    ws::apply_mask(payload.data(), payload.size(), f.mask);
    EXPECT_EQ(payload, "Hello");
}

TEST(CdpWebSocketFrame, MaskRoundTripOnLargeUnalignedPayload) {
    std::string payload;
    for (int i = 0; i < 100003; ++i) payload += static_cast<char>(i * 7 + 3);
    const ws::mask_key key{0xde, 0xad, 0xbe, 0xef};
    const auto frame = ws::encode_frame(ws::opcode::binary, payload, true, key);
    auto h = ws::decode_header(frame, 1U << 20U);
    ASSERT_TRUE(h && *h);
    std::string back = frame.substr((*h)->payload_offset);
    ASSERT_EQ(back.size(), payload.size());
    EXPECT_NE(back, payload);
    // Unmask in two uneven pieces to exercise the offset handling.
    ws::apply_mask(back.data(), 13, key, 0);
    ws::apply_mask(back.data() + 13, back.size() - 13, key, 13);
    EXPECT_EQ(back, payload);
}

TEST(CdpWebSocketFrame, IncompleteHeadersNeedMoreBytes) {
    const auto full = ws::encode_frame(ws::opcode::binary, std::string(70000, 'z'), true, ws::mask_key{1, 2, 3, 4});
    for (std::size_t n : {0U, 1U, 2U, 5U, 9U, 13U}) {
        auto h = ws::decode_header(std::string_view(full).substr(0, n), 1U << 20U);
        ASSERT_TRUE(h.has_value()) << n;
        EXPECT_FALSE(h->has_value()) << "a header prefix of " << n << " bytes must ask for more";
    }
    auto h = ws::decode_header(std::string_view(full).substr(0, 14), 1U << 20U);
    ASSERT_TRUE(h && *h);
    EXPECT_EQ((*h)->frame_size(), full.size());
}

TEST(CdpWebSocketFrame, RejectsProtocolViolations) {
    const auto expect_error = [](const std::string& frame, std::string_view what) {
        auto h = ws::decode_header(frame, 1000);
        ASSERT_FALSE(h.has_value()) << what;
        EXPECT_EQ(h.error().code, errc::protocol_error) << what;
    };
    expect_error(bytes({0xC1, 0x00}), "RSV1 set");
    expect_error(bytes({0x83, 0x00}), "reserved opcode 3");
    expect_error(bytes({0x8B, 0x00}), "reserved control opcode 0xB");
    expect_error(bytes({0x09, 0x00}), "fragmented ping");
    expect_error(bytes({0x89, 0x7E, 0x00, 0x7E}), "ping longer than 125");
    expect_error(bytes({0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0}), "64-bit length with the top bit");
    expect_error(bytes({0x82, 0x7E, 0x03, 0xE9}), "1001 bytes over a 1000-byte limit");
}

TEST(CdpWebSocketFrame, ClosePayload) {
    const auto p = ws::close_payload(1001, "bye");
    EXPECT_EQ(p, bytes({0x03, 0xE9, 'b', 'y', 'e'}));
    const auto [code, reason] = ws::parse_close_payload(p);
    EXPECT_EQ(code, 1001);
    EXPECT_EQ(reason, "bye");
    EXPECT_EQ(ws::parse_close_payload("").first, 1005);
}

TEST(CdpUrl, ParsesWebSocketAndHttpUrls) {
    auto u = d::parse_url("ws://127.0.0.1:9222/devtools/browser/abc-def");
    ASSERT_TRUE(u) << u.error().to_text();
    EXPECT_EQ(u->scheme, "ws");
    EXPECT_EQ(u->host, "127.0.0.1");
    EXPECT_EQ(u->port, 9222);
    EXPECT_EQ(u->path, "/devtools/browser/abc-def");
    EXPECT_EQ(u->host_header(), "127.0.0.1:9222");

    auto v = d::parse_url("HTTP://localhost");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->scheme, "http");
    EXPECT_EQ(v->port, 80);
    EXPECT_EQ(v->path, "/");

    auto w = d::parse_url("ws://[::1]:9229?x=1#frag");
    ASSERT_TRUE(w);
    EXPECT_EQ(w->host, "::1");
    EXPECT_EQ(w->port, 9229);
    EXPECT_EQ(w->path, "/?x=1");
    EXPECT_EQ(w->host_header(), "[::1]:9229");
}

TEST(CdpUrl, RejectsBadUrlsWithHints) {
    for (const char* bad : {"127.0.0.1:9222", "ftp://x/", "ws://:80/", "ws://h:0/", "ws://h:70000/", "ws://h:/",
                            "ws://user:pw@h/", "ws://[::1/"}) {
        auto u = d::parse_url(bad);
        EXPECT_FALSE(u) << bad;
        if (!u) {
            EXPECT_EQ(u.error().code, errc::request_invalid) << bad;
            EXPECT_FALSE(u.error().hint.empty()) << bad;
        }
    }
    auto tls = d::parse_url("wss://farm.example/devtools");
    ASSERT_FALSE(tls);
    EXPECT_NE(tls.error().message.find("TLS"), std::string::npos);
}

TEST(CdpHttp, ParsesResponseHeads) {
    auto h = d::parse_http_head("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nconnection:Upgrade\r\n");
    ASSERT_TRUE(h) << h.error().to_text();
    EXPECT_EQ(h->status, 101);
    EXPECT_EQ(h->reason, "Switching Protocols");
    EXPECT_EQ(h->header("UPGRADE").value_or(""), "websocket");
    EXPECT_EQ(h->header("Connection").value_or(""), "Upgrade");
    EXPECT_FALSE(h->header("Missing"));
    EXPECT_FALSE(d::parse_http_head("SSH-2.0-OpenSSH\r\n"));
    EXPECT_FALSE(d::parse_http_head("HTTP/1.1 20x OK\r\n"));
    EXPECT_FALSE(d::parse_http_head("HTTP/1.1 200 OK\r\nno colon here\r\n"));
}

TEST(CdpHttp, DecodesChunkedBodies) {
    EXPECT_EQ(d::decode_chunked("4\r\nWiki\r\n6;ext=1\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\n\r\n").value_or("?"),
              "Wikipedia in \r\n\r\nchunks.");
    EXPECT_FALSE(d::decode_chunked("4\r\nWi"));
    EXPECT_FALSE(d::decode_chunked("zz\r\n"));
}
