// agentkit/browser/artifacts.hpp — the browser tools keep screenshots, recordings, logs and cut
// text in agentkit's artifact store (format/artifacts.hpp); these are its names in this namespace.
#pragma once

#include <agentkit/format/artifacts.hpp>

namespace agentkit::browser {

using agentkit::artifact_slice;
using agentkit::eviction;
using agentkit::read_options;
using agentkit::bounded_artifacts;
using agentkit::store_options;
/// Deprecated (removed in 0.2): the artifact store's old name.
using session_store [[deprecated("agentkit::bounded_artifacts")]] = agentkit::bounded_artifacts;

}  // namespace agentkit::browser
