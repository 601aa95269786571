// agentkit/version.hpp — the library version, the single source of truth.
//
// CMake (project VERSION), the Conan recipe and the consistency test of the vcpkg
// manifests all read these three numbers; change them here and nowhere else.
#pragma once

/// The major version number (MAJOR of MAJOR.MINOR.PATCH).
#define AGENTKIT_VERSION_MAJOR 0
/// The minor version number.
#define AGENTKIT_VERSION_MINOR 1
/// The patch version number.
#define AGENTKIT_VERSION_PATCH 0

/// MAJOR * 10000 + MINOR * 100 + PATCH, for `#if AGENTKIT_VERSION >= 100`.
#define AGENTKIT_VERSION (AGENTKIT_VERSION_MAJOR * 10000 + AGENTKIT_VERSION_MINOR * 100 + AGENTKIT_VERSION_PATCH)

/// agentkit: every public name is in this namespace or one nested in it (browser, cdp, mcp,
/// net, ...); names in a nested `detail` namespace are implementation and may change.
namespace agentkit {

/// The version agentkit was built from, as numbers and as "MAJOR.MINOR.PATCH".
struct version_info {
    int major;           ///< AGENTKIT_VERSION_MAJOR
    int minor;           ///< AGENTKIT_VERSION_MINOR
    int patch;           ///< AGENTKIT_VERSION_PATCH
    const char* string;  ///< "MAJOR.MINOR.PATCH"
};

#define AGENTKIT_DETAIL_STR2(x) #x
#define AGENTKIT_DETAIL_STR(x) AGENTKIT_DETAIL_STR2(x)

/// The version of these headers.
inline constexpr version_info version{
    AGENTKIT_VERSION_MAJOR, AGENTKIT_VERSION_MINOR, AGENTKIT_VERSION_PATCH,
    AGENTKIT_DETAIL_STR(AGENTKIT_VERSION_MAJOR) "." AGENTKIT_DETAIL_STR(AGENTKIT_VERSION_MINOR) "." AGENTKIT_DETAIL_STR(
        AGENTKIT_VERSION_PATCH)};

#undef AGENTKIT_DETAIL_STR
#undef AGENTKIT_DETAIL_STR2

}  // namespace agentkit
