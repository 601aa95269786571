// libFuzzer target: the WebSocket frame reader (RFC 6455 header decoding, masking, close
// payloads) over an arbitrary byte stream, as the client reads it from a server.
#include <agentkit/cdp/detail/websocket_frame.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace ws = agentkit::cdp::detail::ws;
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    constexpr std::uint64_t limit = 1U << 20U;
    std::size_t at = 0;
    while (at < all.size()) {
        const std::string_view avail = all.substr(at);
        auto h = ws::decode_header(avail, limit);
        if (!h) {
            if (h.error().message.empty()) __builtin_trap();
            break;  // a protocol error ends the stream
        }
        if (!*h) break;  // needs more bytes
        const auto& f = **h;
        if (f.payload_size > limit) __builtin_trap();  // the limit holds
        if (f.payload_offset > f.frame_size()) __builtin_trap();
        if (avail.size() < f.frame_size()) break;
        std::string payload(avail.substr(f.payload_offset, static_cast<std::size_t>(f.payload_size)));
        if (f.masked) ws::apply_mask(payload.data(), payload.size(), f.mask);
        if (f.op == ws::opcode::close) (void)ws::parse_close_payload(payload);
        // what the client would send back: a pong or a close echo, re-decoded
        const std::string back = ws::encode_frame(ws::opcode::pong, payload.substr(0, 125));
        auto rh = ws::decode_header(back, limit);
        if (!rh || !*rh || (*rh)->payload_size != std::min<std::size_t>(payload.size(), 125)) __builtin_trap();
        at += static_cast<std::size_t>(f.frame_size());
    }
    return 0;
}
