// agentkit/net/oauth.hpp — deprecated: moved to <agentkit/mcp/http/oauth.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/mcp/http/oauth.hpp>
