// agentkit/mcp/remote_tools.hpp — deprecated: moved to <agentkit/mcp/client/remote_tools.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/mcp/client/remote_tools.hpp>
