// agentkit/mcp/backend.hpp — deprecated: moved to <agentkit/mcp/server/backend.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/mcp/server/backend.hpp>
