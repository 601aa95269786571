// agentkit/mcp/features.hpp — deprecated: moved to <agentkit/mcp/server/features.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/mcp/server/features.hpp>
