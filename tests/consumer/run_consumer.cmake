# Driver of one consumer test: cmake -DKIND=<kind> -DWORK_DIR=... (see CMakeLists.txt) -P run_consumer.cmake
#
# Every step is echoed; a failing step prints its command line and complete output and stops
# the test, so `ctest --output-on-failure` shows exactly what a user would have seen.
cmake_minimum_required(VERSION 3.20)

foreach(var IN ITEMS KIND WORK_DIR SOURCE_DIR BINARY_DIR CONSUMER_DIR PREFIX CXX GENERATOR VERSION)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
        message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
    endif()
endforeach()

# run(<step> <command...>): run a command, stop the test with its output if it fails.
function(run step)
    list(JOIN ARGN " " shown)
    message(STATUS "[${KIND}] ${step}: ${shown}")
    execute_process(COMMAND ${ARGN}
        RESULT_VARIABLE rc
        OUTPUT_VARIABLE out
        ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "[${KIND}] step '${step}' FAILED (exit ${rc})\n  command: ${shown}\n"
                            "---- output ----\n${out}---- end of output ----")
    endif()
    set(last_output "${out}" PARENT_SCOPE)
endfunction()

function(fresh_dir dir)
    file(REMOVE_RECURSE "${dir}")
    file(MAKE_DIRECTORY "${dir}")
endfunction()

set(generator_args -G "${GENERATOR}")
if(MAKE_PROGRAM)
    list(APPEND generator_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()

# configure_build_run(<project dir> <extra cmake args...>): the consumer project's full cycle.
function(configure_build_run project_dir)
    set(build_dir "${WORK_DIR}/build")
    fresh_dir("${build_dir}")
    run("configure" "${CMAKE_COMMAND}" -S "${project_dir}" -B "${build_dir}" ${generator_args}
        "-DCMAKE_CXX_COMPILER=${CXX}"
        "-DAGENTKIT_EXPECTED_VERSION=${VERSION}"
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
        ${ARGN})
    run("build" "${CMAKE_COMMAND}" --build "${build_dir}" --parallel 2)
    file(GLOB programs LIST_DIRECTORIES false "${build_dir}/consumer*")
    list(FILTER programs EXCLUDE REGEX "\\.(cmake|txt|ninja)$")
    if(NOT programs)
        message(FATAL_ERROR "[${KIND}] the build produced no consumer program in ${build_dir}")
    endif()
    foreach(program IN LISTS programs)
        run("run" "${program}")
        message(STATUS "[${KIND}] ${last_output}")
    endforeach()
endfunction()

# ---------------------------------------------------------------------------------------------
if(KIND STREQUAL "install")
    fresh_dir("${PREFIX}")
    run("install" "${CMAKE_COMMAND}" --install "${BINARY_DIR}" --prefix "${PREFIX}")

    set(expected
        "${INSTALL_INCLUDEDIR}/agentkit/agentkit.hpp"
        "${INSTALL_INCLUDEDIR}/agentkit/version.hpp"
        "${INSTALL_INCLUDEDIR}/agentkit/core/result.hpp"
        "${INSTALL_INCLUDEDIR}/agentkit_single/agentkit/agentkit.hpp"
        "${INSTALL_CMAKEDIR}/agentkitConfig.cmake"
        "${INSTALL_CMAKEDIR}/agentkitConfigVersion.cmake"
        "${INSTALL_CMAKEDIR}/agentkitTargets.cmake"
        "${INSTALL_CMAKEDIR}/AgentkitCompiled.cmake"
        "${INSTALL_PKGCONFIGDIR}/agentkit.pc"
        "${INSTALL_DOCDIR}/LICENSE")
    foreach(file IN LISTS expected)
        if(NOT EXISTS "${PREFIX}/${file}")
            message(FATAL_ERROR "[install] ${file} was not installed into ${PREFIX}")
        endif()
    endforeach()
    # Header-only: nothing architecture-specific may be installed.
    file(GLOB_RECURSE binaries "${PREFIX}/bin/*" "${PREFIX}/lib/*" "${PREFIX}/lib64/*")
    if(binaries)
        message(FATAL_ERROR "[install] a header-only install must not contain ${binaries}")
    endif()
    # Every header of the source tree is installed.
    file(GLOB_RECURSE source_headers RELATIVE "${SOURCE_DIR}/include" "${SOURCE_DIR}/include/*.hpp")
    foreach(header IN LISTS source_headers)
        if(NOT EXISTS "${PREFIX}/${INSTALL_INCLUDEDIR}/${header}")
            message(FATAL_ERROR "[install] ${header} was not installed")
        endif()
    endforeach()
    list(LENGTH source_headers header_count)
    message(STATUS "[install] layout ok: ${header_count} headers, single header, CMake package, agentkit.pc")

    # The version file: ARCH_INDEPENDENT, and 0.x means only the same MAJOR.MINOR is compatible.
    string(REGEX MATCH "^([0-9]+)\\.([0-9]+)\\.([0-9]+)" _ "${VERSION}")
    set(major ${CMAKE_MATCH_1})
    set(minor ${CMAKE_MATCH_2})
    math(EXPR next_minor "${minor} + 1")
    math(EXPR next_major "${major} + 1")
    set(cases
        "${major}.${minor}|TRUE"
        "${VERSION}|TRUE"
        "${major}.${next_minor}|FALSE"
        "${next_major}.0|FALSE")
    if(minor GREATER 0)
        math(EXPR prev_minor "${minor} - 1")
        list(APPEND cases "${major}.${prev_minor}|FALSE")
    endif()
    foreach(case IN LISTS cases)
        string(REPLACE "|" ";" case "${case}")
        list(GET case 0 PACKAGE_FIND_VERSION)
        list(GET case 1 want)
        string(REPLACE "." ";" parts "${PACKAGE_FIND_VERSION}")
        list(LENGTH parts PACKAGE_FIND_VERSION_COUNT)
        list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
        list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
        set(PACKAGE_FIND_VERSION_PATCH 0)
        if(PACKAGE_FIND_VERSION_COUNT GREATER 2)
            list(GET parts 2 PACKAGE_FIND_VERSION_PATCH)
        endif()
        set(CMAKE_SIZEOF_VOID_P 4)  # a 32-bit consumer: an arch-independent package still fits
        unset(PACKAGE_VERSION_COMPATIBLE)
        unset(PACKAGE_VERSION_UNSUITABLE)
        include("${PREFIX}/${INSTALL_CMAKEDIR}/agentkitConfigVersion.cmake")
        if(PACKAGE_VERSION_UNSUITABLE)
            message(FATAL_ERROR "[install] agentkitConfigVersion.cmake is not architecture independent")
        endif()
        if(NOT "${PACKAGE_VERSION_COMPATIBLE}" STREQUAL "${want}")
            message(FATAL_ERROR "[install] find_package(agentkit ${PACKAGE_FIND_VERSION}) against "
                "${PACKAGE_VERSION}: compatible=${PACKAGE_VERSION_COMPATIBLE}, expected ${want}")
        endif()
    endforeach()
    message(STATUS "[install] version file ok: ${VERSION}, SameMinorVersion, ARCH_INDEPENDENT")

elseif(KIND STREQUAL "find_package")
    if(NOT EXISTS "${PREFIX}/${INSTALL_CMAKEDIR}/agentkitConfig.cmake")
        message(FATAL_ERROR "[find_package] no install in ${PREFIX}: run the consumer.install test first")
    endif()
    configure_build_run("${CONSUMER_DIR}/find_package"
        "-DCMAKE_PREFIX_PATH=${PREFIX}"
        "-DAGENTKIT_EXPECTED_PREFIX=${PREFIX}")

elseif(KIND STREQUAL "add_subdirectory" OR KIND STREQUAL "fetchcontent")
    configure_build_run("${CONSUMER_DIR}/add_subdirectory"
        "-DAGENTKIT_CONSUMER_MODE=${KIND}"
        "-DAGENTKIT_SOURCE_DIR=${SOURCE_DIR}"
        "-DFETCHCONTENT_SOURCE_DIR_AGENTKIT=${SOURCE_DIR}"
        -DFETCHCONTENT_FULLY_DISCONNECTED=ON)

elseif(KIND STREQUAL "single_include")
    fresh_dir("${WORK_DIR}")
    set(program "${WORK_DIR}/consumer_single_include")
    # Only single_include/ is on the include path: include/ is not.
    run("compile" "${CXX}" -std=c++20 -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Werror
        "-DAGENTKIT_EXPECTED_VERSION=\"${VERSION}\""
        "-I${SOURCE_DIR}/single_include"
        "${CONSUMER_DIR}/single_include/main.cpp" -o "${program}" -pthread)
    run("run" "${program}")
    message(STATUS "[single_include] ${last_output}")

elseif(KIND STREQUAL "docs")
    if(NOT EXISTS "${PREFIX}/${INSTALL_CMAKEDIR}/agentkitConfig.cmake")
        message(FATAL_ERROR "[docs] no install in ${PREFIX}: run the consumer.install test first")
    endif()
    set(build_dir "${WORK_DIR}/build")
    fresh_dir("${build_dir}")
    run("configure" "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}/docs" -B "${build_dir}" ${generator_args}
        "-DCMAKE_CXX_COMPILER=${CXX}"
        "-DAGENTKIT_EXPECTED_VERSION=${VERSION}"
        "-DAGENTKIT_DOC_MANIFEST=${DOC_MANIFEST}"
        "-DAGENTKIT_PACKAGING_PAGE=${PACKAGING_PAGE}"
        "-DAGENTKIT_CONSUMER_DOCS=$ENV{AGENTKIT_CONSUMER_DOCS}"
        "-DCMAKE_PREFIX_PATH=${PREFIX}"
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
    string(REGEX MATCHALL "agentkit_[a-z_]+: [^\n]*" built "${last_output}")
    list(JOIN built "\n  " built)
    message(STATUS "[docs] ${built}")
    run("build" "${CMAKE_COMMAND}" --build "${build_dir}" --parallel 2)
    # The smallest consumer (docs/packaging.md) runs: the installed headers work, not only compile.
    file(READ "${build_dir}/packaging_program.txt" program)
    run("run" "${program}")
    if(NOT last_output MATCHES "^agentkit ${VERSION}: ")
        message(FATAL_ERROR "[docs] ${program} printed '${last_output}', not 'agentkit ${VERSION}: ...'")
    endif()
    message(STATUS "[docs] ${last_output}")

elseif(KIND STREQUAL "pkg_config")
    if(NOT PKG_CONFIG)
        # Matched by the test's SKIP_REGULAR_EXPRESSION: reported as skipped, not passed.
        message(STATUS "[pkg_config] SKIPPED: pkg-config is not installed")
        return()
    endif()
    if(NOT EXISTS "${PREFIX}/${INSTALL_PKGCONFIGDIR}/agentkit.pc")
        message(FATAL_ERROR "[pkg_config] no agentkit.pc in ${PREFIX}: run the consumer.install test first")
    endif()
    fresh_dir("${WORK_DIR}")
    set(ENV{PKG_CONFIG_PATH} "${PREFIX}/${INSTALL_PKGCONFIGDIR}")
    run("validate" "${PKG_CONFIG}" --validate agentkit)
    run("modversion" "${PKG_CONFIG}" --modversion agentkit)
    string(STRIP "${last_output}" pc_version)
    if(NOT pc_version STREQUAL VERSION)
        message(FATAL_ERROR "[pkg_config] agentkit.pc says version ${pc_version}, expected ${VERSION}")
    endif()
    run("cflags" "${PKG_CONFIG}" --cflags agentkit)
    string(STRIP "${last_output}" cflags)
    run("libs" "${PKG_CONFIG}" --libs agentkit)
    string(STRIP "${last_output}" libs)
    file(REAL_PATH "${PREFIX}/${INSTALL_INCLUDEDIR}" want_include)
    set(found_include FALSE)
    separate_arguments(cflags UNIX_COMMAND "${cflags}")
    separate_arguments(libs UNIX_COMMAND "${libs}")
    foreach(flag IN LISTS cflags)
        if(flag MATCHES "^-I(.+)$")
            file(REAL_PATH "${CMAKE_MATCH_1}" dir)
            if(dir STREQUAL want_include)
                set(found_include TRUE)
            endif()
        endif()
    endforeach()
    if(NOT found_include)
        message(FATAL_ERROR "[pkg_config] --cflags (${cflags}) does not point at ${want_include}")
    endif()
    set(program "${WORK_DIR}/consumer_pkg_config")
    run("compile" "${CXX}" -std=c++20 -Wall -Wextra -Wpedantic -Werror ${cflags}
        "-DAGENTKIT_CONSUMER_KIND=\"pkg-config\"" "-DAGENTKIT_EXPECTED_VERSION=\"${VERSION}\""
        "${CONSUMER_DIR}/common/main.cpp" -o "${program}" ${libs})
    run("run" "${program}")
    message(STATUS "[pkg_config] ${last_output}")

else()
    message(FATAL_ERROR "run_consumer.cmake: unknown KIND '${KIND}'")
endif()
