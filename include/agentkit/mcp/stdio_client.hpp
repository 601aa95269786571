// agentkit/mcp/stdio_client.hpp — deprecated: moved to <agentkit/mcp/client/stdio.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/mcp/client/stdio.hpp>
