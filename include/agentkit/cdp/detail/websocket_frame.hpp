// agentkit/cdp/detail/websocket_frame.hpp — the WebSocket frame codec under its old name: it
// moved to core/websocket_frame.hpp (agentkit::ws) when the dashboard's server side began to
// share it. One rule in one place; this alias keeps the client's spelling.
#pragma once

#include <agentkit/core/websocket_frame.hpp>

namespace agentkit::cdp::detail {
namespace ws = agentkit::ws;
}  // namespace agentkit::cdp::detail
