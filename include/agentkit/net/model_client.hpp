// agentkit/net/model_client.hpp — deprecated: moved to <agentkit/session/model_client.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/session/model_client.hpp>
