// libFuzzer target: the CDP connection's handling of what a browser sends. The input is split
// at NUL bytes (the pipe transport's framing) into messages delivered to a connection with a
// request in flight: responses, events, errors and garbage must never crash it, and the
// request ends with a result or an error.
#include <agentkit/agentkit.hpp>

#include "cdp/fake_transport.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace cdp = agentkit::cdp;
    auto b = std::make_shared<agentkit::test::fake_browser>();
    cdp::connection_options o;
    o.default_timeout = std::chrono::milliseconds(2000);
    cdp::connection conn(cdp::any_transport(agentkit::test::fake_transport(b)), o);
    auto sub = conn.on("Page.loadEventFired", [](const cdp::event&) {});
    auto pending = conn.call_async("Page.navigate", agentkit::json{{"url", "http://127.0.0.1/"}});  // id 1
    {
        std::string_view in(reinterpret_cast<const char*>(data), size);
        std::lock_guard lock(b->mu);
        while (!in.empty()) {
            const auto nul = in.find('\0');
            b->to_client.emplace_back(in.substr(0, nul));
            if (nul == std::string_view::npos) break;
            in.remove_prefix(nul + 1);
        }
        b->terminal = agentkit::error(agentkit::errc::transport_closed, "end of input");  // then the browser is gone
        b->cv.notify_all();
    }
    auto r = pending.get();  // a response, a CDP error, or the transport's end: never a hang
    if (!r && r.error().message.empty()) __builtin_trap();
    conn.close();
    return 0;
}
