// agentkit/mcp/server.hpp — deprecated: moved to <agentkit/mcp/server/server.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/mcp/server/server.hpp>
