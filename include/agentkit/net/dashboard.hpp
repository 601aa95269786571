// agentkit/net/dashboard.hpp — deprecated: moved to <agentkit/browser/live/dashboard.hpp>.
// This forwarding header goes in 0.2; include the new path.
#pragma once

#include <agentkit/browser/live/dashboard.hpp>

namespace agentkit::net {
/// Deprecated: agentkit::browser::dashboard_options.
using dashboard_options [[deprecated("agentkit::browser::dashboard_options")]] = browser::dashboard_options;
/// Deprecated: agentkit::browser::dashboard_stats.
using dashboard_stats [[deprecated("agentkit::browser::dashboard_stats")]] = browser::dashboard_stats;
/// Deprecated: agentkit::browser::dashboard.
using dashboard [[deprecated("agentkit::browser::dashboard")]] = browser::dashboard;
}  // namespace agentkit::net
