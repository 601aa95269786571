// agentkit/net/mcp_client_http.hpp — deprecated: moved to <agentkit/mcp/http/client.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/mcp/http/client.hpp>
