// agentkit/mcp/client_transport.hpp — deprecated: moved to <agentkit/mcp/client/transport.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/mcp/client/transport.hpp>
