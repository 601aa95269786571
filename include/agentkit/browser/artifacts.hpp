// agentkit/browser/artifacts.hpp — the browser tools keep screenshots, recordings, logs and cut
// text in agentkit's artifact store (format/artifacts.hpp); these are its names in this namespace.
#pragma once

#include <agentkit/format/artifacts.hpp>

namespace agentkit::browser {

using agentkit::artifact_slice;
using agentkit::eviction;
using agentkit::read_options;
using agentkit::session_store;
using agentkit::store_options;

}  // namespace agentkit::browser
