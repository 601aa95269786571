// agentkit/net/jose.hpp — deprecated: moved to <agentkit/mcp/http/jose.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/mcp/http/jose.hpp>
