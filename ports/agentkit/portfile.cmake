# vcpkg port of agentkit (header-only), meant as an overlay port from this repository:
#
#   vcpkg install agentkit --overlay-ports=<agentkit>/ports
#
# It builds nothing: it runs agentkit's own CMake install with tests, examples and benchmarks
# off, then lets vcpkg move the CMake package (share/cmake/agentkit -> share/agentkit) and fix
# the pkg-config file. For a registry, replace the SOURCE_PATH line by vcpkg_from_github(...)
# pointing at a release tag.
set(VCPKG_BUILD_TYPE release)  # header-only: one configuration is enough

get_filename_component(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)

vcpkg_cmake_configure(
    SOURCE_PATH "${SOURCE_PATH}"
    OPTIONS
        -DAGENTKIT_BUILD_TESTS=OFF
        -DAGENTKIT_BUILD_EXAMPLES=OFF
        -DAGENTKIT_BUILD_BENCH=OFF
        -DAGENTKIT_INSTALL=ON
)
vcpkg_cmake_install()
vcpkg_cmake_config_fixup(PACKAGE_NAME agentkit CONFIG_PATH share/cmake/agentkit)
vcpkg_fixup_pkgconfig()

file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}/debug" "${CURRENT_PACKAGES_DIR}/share/doc")
file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
