// agentkit/core/json.hpp — the JSON type agentkit speaks everywhere.
#pragma once

#include <nlohmann/json.hpp>

namespace agentkit {

/// The JSON value type used across agentkit (nlohmann::json, ordered by key).
using json = nlohmann::json;

}  // namespace agentkit
