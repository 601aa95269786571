// agentkit/net/oauth_loopback.hpp — deprecated: moved to <agentkit/mcp/http/oauth_loopback.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/mcp/http/oauth_loopback.hpp>
