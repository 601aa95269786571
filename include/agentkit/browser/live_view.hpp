// agentkit/browser/live_view.hpp — deprecated: moved to <agentkit/browser/live/live_view.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/browser/live/live_view.hpp>
