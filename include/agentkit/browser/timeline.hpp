// agentkit/browser/timeline.hpp — deprecated: moved to <agentkit/browser/live/timeline.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/browser/live/timeline.hpp>
