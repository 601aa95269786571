// agentkit/core/json.hpp — the JSON type agentkit speaks everywhere. Every agentkit header
// includes it, so it also says, first, when the compiler is not in C++20 mode.
#pragma once

#if defined(_MSVC_LANG) ? _MSVC_LANG < 202002L : __cplusplus < 202002L
#error "agentkit needs C++20: compile with -std=c++20 (CMake: target_compile_features(<target> PRIVATE cxx_std_20); Conan: a profile with compiler.cppstd=20 or gnu20)"
#endif

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>

namespace agentkit {

/// The JSON value type used across agentkit (nlohmann::json, ordered by key).
using json = nlohmann::json;

namespace detail {
/// A number for a reader: a whole one as an integer ("100", not "100.0"), as schemas and error
/// messages write bounds (a host that passes a schema on as it came would show "100.0").
inline json number_json(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) <= 9007199254740992.0) return static_cast<std::int64_t>(v);
    return v;
}
}  // namespace detail

}  // namespace agentkit
