// libFuzzer target: MCP's Streamable HTTP request path (agentkit/mcp/http/server.hpp) above the
// HTTP parser. The input is one request: a first line "METHOD", then "Name: value" header lines,
// an empty line and the body. The answer must be a valid HTTP status; every body that is JSON
// must be a JSON-RPC message; a POST's streamed body is produced to its end (a GET's client
// leaves after 300 ms). Sessions persist across inputs (one transport per process, bounded at
// 64 sessions), so sequences of requests meet sessions that earlier inputs opened. Nothing may
// crash, hang or leak.
#include <agentkit/agentkit.hpp>
#include <agentkit/mcp/http/server.hpp>

#include "fuzz/fuzz_tools.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace {

agentkit::mcp::http_transport& transport() {
    namespace mcp = agentkit::mcp;
    static mcp::server_options so = [] {
        mcp::server_options o;
        o.stderr_level = "off";
        o.max_message_bytes = 1U << 16U;
        return o;
    }();
    static mcp::server srv(mcp::backend_for(fuzz::box), so);
    static mcp::http_transport t(srv, [] {
        mcp::http_options o;
        o.port = 0;
        o.max_body_bytes = 1U << 16U;
        o.max_sessions = 64;
        o.stream_after = std::chrono::milliseconds(50);
        return o;
    }());
    return t;
}

void check_message(std::string_view text) {
    auto j = agentkit::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || j.value("jsonrpc", "") != "2.0") __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace net = agentkit::net;
    std::string_view in(reinterpret_cast<const char*>(data), size);
    net::http_request r;
    auto line = [&in]() {
        const auto nl = in.find('\n');
        std::string_view l = in.substr(0, nl);
        in.remove_prefix(nl == std::string_view::npos ? in.size() : nl + 1);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        return l;
    };
    r.method = std::string(line());
    r.path = "/mcp";
    r.remote_addr = "127.0.0.1";
    bool host = false;
    for (std::string_view h = line(); !h.empty(); h = line()) {
        const auto colon = h.find(':');
        if (colon == std::string_view::npos) continue;
        std::string_view v = h.substr(colon + 1);
        while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
        host = host || agentkit::iequals_ascii(h.substr(0, colon), "host");
        r.headers.emplace(std::string(h.substr(0, colon)), std::string(v));
    }
    if (!host) r.headers.emplace("Host", "127.0.0.1");  // past the rebinding guard, most of the time
    r.body = std::string(in);

    net::http_response out = transport().handle(r);
    if (out.status < 200 || out.status > 599) __builtin_trap();
    if (out.stream) {
        // A POST's stream must end by itself (its response is due). A GET stream stays open until
        // its client leaves, and libFuzzer learns live session ids from the lookup's comparisons:
        // that client reads for 300 ms, then goes (one that never left hung the target).
        std::string streamed;
        const auto begun = std::chrono::steady_clock::now();
        net::http_stream st([&streamed](std::string_view d) {
            streamed.append(d);
            return streamed.size() < (1U << 22U);
        }, [begun, get = r.method == "GET"] {
            return get && std::chrono::steady_clock::now() - begun > std::chrono::milliseconds(300);
        });
        out.stream(st);
        // SSE: every data line is one JSON-RPC message
        std::size_t at = 0;
        while ((at = streamed.find("data: ", at)) != std::string::npos) {
            const auto end = streamed.find('\n', at);
            check_message(std::string_view(streamed).substr(at + 6, end - at - 6));
            at = end;
        }
    } else if (out.content_type == "application/json" && !out.body.empty() && out.body != "{}") {
        check_message(out.body);
    }
    return 0;
}
