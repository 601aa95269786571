// agentkit/cdp/detail/sha1_base64.hpp — SHA-1 and the WebSocket accept key under their old
// names: they moved to core/sha1.hpp when the dashboard's server side began to share them.
#pragma once

#include <agentkit/core/sha1.hpp>
#include <agentkit/core/base64.hpp>

namespace agentkit::cdp::detail {
using agentkit::base64_encode;
using agentkit::sha1;
using agentkit::sha1_digest;
using agentkit::to_hex;
using agentkit::websocket_accept;
}  // namespace agentkit::cdp::detail
