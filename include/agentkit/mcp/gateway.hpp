// agentkit/mcp/gateway.hpp — deprecated: moved to <agentkit/mcp/gateway/gateway.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/mcp/gateway/gateway.hpp>
