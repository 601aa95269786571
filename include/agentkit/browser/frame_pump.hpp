// agentkit/browser/frame_pump.hpp — deprecated: moved to <agentkit/browser/live/frame_pump.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/browser/live/frame_pump.hpp>
