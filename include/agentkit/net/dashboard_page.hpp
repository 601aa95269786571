// agentkit/net/dashboard_page.hpp — deprecated: moved to <agentkit/browser/live/dashboard_page.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/browser/live/dashboard_page.hpp>
