# Install rules: headers, the single header, the CMake package and the pkg-config file.
#
#   <prefix>/include/agentkit/...                       the multi-header library
#   <prefix>/include/agentkit_single/agentkit/agentkit.hpp   the amalgamated header
#   <prefix>/share/cmake/agentkit/agentkit{Config,ConfigVersion,Targets}.cmake, AgentkitCompiled.cmake
#   <prefix>/share/pkgconfig/agentkit.pc
#   <prefix>/share/doc/agentkit/LICENSE
#
# Header-only, so everything goes under share/ (architecture independent), like nlohmann_json.
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

set(AGENTKIT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_DATADIR}/cmake/agentkit"
    CACHE STRING "Where agentkitConfig.cmake is installed (relative to the prefix)")
set(AGENTKIT_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_DATADIR}/pkgconfig"
    CACHE STRING "Where agentkit.pc is installed (relative to the prefix)")

install(TARGETS agentkit agentkit_single_header EXPORT agentkitTargets)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
    FILES_MATCHING PATTERN "*.hpp")
install(FILES "${PROJECT_SOURCE_DIR}/single_include/agentkit/agentkit.hpp"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/agentkit_single/agentkit")
install(EXPORT agentkitTargets
    NAMESPACE agentkit::
    FILE agentkitTargets.cmake
    DESTINATION "${AGENTKIT_INSTALL_CMAKEDIR}")

configure_package_config_file(
    "${PROJECT_SOURCE_DIR}/cmake/agentkitConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/agentkitConfig.cmake"
    INSTALL_DESTINATION "${AGENTKIT_INSTALL_CMAKEDIR}"
    NO_SET_AND_CHECK_MACRO)
# 0.x: a minor bump may break the API, so only the same MAJOR.MINOR is compatible.
write_basic_package_version_file(
    "${PROJECT_BINARY_DIR}/agentkitConfigVersion.cmake"
    VERSION "${PROJECT_VERSION}"
    COMPATIBILITY SameMinorVersion
    ARCH_INDEPENDENT)
install(FILES
    "${PROJECT_BINARY_DIR}/agentkitConfig.cmake"
    "${PROJECT_BINARY_DIR}/agentkitConfigVersion.cmake"
    "${PROJECT_SOURCE_DIR}/cmake/AgentkitCompiled.cmake"
    DESTINATION "${AGENTKIT_INSTALL_CMAKEDIR}")

# pkg-config: relocatable (prefix computed from the .pc file's own location) when the
# directories are relative, as they are by default.
if(IS_ABSOLUTE "${AGENTKIT_INSTALL_PKGCONFIGDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
    set(AGENTKIT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
    set(AGENTKIT_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
    string(REGEX REPLACE "[^/]+" ".." _agentkit_pc_up "${AGENTKIT_INSTALL_PKGCONFIGDIR}")
    set(AGENTKIT_PC_PREFIX "\${pcfiledir}/${_agentkit_pc_up}")
    set(AGENTKIT_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/agentkit.pc.in" "${PROJECT_BINARY_DIR}/agentkit.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/agentkit.pc" DESTINATION "${AGENTKIT_INSTALL_PKGCONFIGDIR}")

install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
