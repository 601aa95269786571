// libFuzzer target: the MCP server's message handler. The input is a stream of lines (one
// JSON-RPC message each, as on stdio). Every line the server writes must be one valid JSON
// object carrying "jsonrpc":"2.0"; nothing may crash, hang or leak.
#include <agentkit/agentkit.hpp>

#include "fuzz/fuzz_tools.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace mcp = agentkit::mcp;
    mcp::server_options o;
    o.stderr_level = "off";
    o.max_message_bytes = 1U << 16U;
    mcp::server srv(mcp::backend_for(fuzz::box), o);
    srv.set_sink([](const std::string& line) {
        auto j = agentkit::json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (j.is_discarded() || !j.is_object() || j.value("jsonrpc", "") != "2.0") __builtin_trap();
        if (line.find('\n') != std::string::npos) __builtin_trap();  // one message, one line
    });
    std::string_view in(reinterpret_cast<const char*>(data), size);
    while (!in.empty()) {
        const auto nl = in.find('\n');
        srv.handle(in.substr(0, nl));
        if (nl == std::string_view::npos) break;
        in.remove_prefix(nl + 1);
    }
    return 0;
}
