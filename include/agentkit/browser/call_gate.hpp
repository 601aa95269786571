// agentkit/browser/call_gate.hpp — deprecated: moved to <agentkit/browser/live/call_gate.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/browser/live/call_gate.hpp>
