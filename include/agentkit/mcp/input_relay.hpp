// agentkit/mcp/input_relay.hpp — deprecated: moved to <agentkit/mcp/gateway/input_relay.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/mcp/gateway/input_relay.hpp>
