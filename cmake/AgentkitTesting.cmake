# Test helpers for every folder under tests/.
#
#   agentkit_add_gtest(<name> SOURCES <files...> [LABELS <labels...>]
#                      [LINK_LIBRARIES <libs...>] [COMPILE_DEFINITIONS <defs...>]
#                      [TIMEOUT <seconds>] [RELEASE_TWIN] [NO_PCH] [BUILD_WITHOUT_E2E] [CPU_BOUND]
#                      [SERIAL_TESTS <Suite.Test...>])
#       One GoogleTest executable per area (build/bin/<name>); every TEST() becomes its own
#       ctest test. With RELEASE_TWIN and AGENTKIT_TEST_SINGLE_INCLUDE, a second executable
#       <name>_single is built from the same sources against single_include/ only (include/ is
#       NOT on its path) and optimised as a Release build is (the compiler's
#       CMAKE_CXX_FLAGS_RELEASE, -O3 -DNDEBUG with g++ and clang++): one twin checks both that
#       the amalgamated header works and that an optimised build compiles warning-free (g++
#       reports some warnings, -Wrestrict and -Wstringop-overflow among them, only when it
#       inlines at -O3). Its tests are named "single.<Suite>.<Test>" and labelled
#       single_include. Tests may include <agentkit/agentkit.hpp> or any public header: in the
#       _single build every public header path is a generated shim that includes the
#       amalgamated header. The unit-test areas have twins; the Chromium ones do not (their
#       code is the same engine, and a twin costs a whole optimised compile).
#       Each kind of executable reuses one precompiled header (nlohmann/json, tl/expected,
#       gtest, the standard library and agentkit) unless AGENTKIT_PCH=OFF or NO_PCH (for a
#       target whose libraries add compile definitions the header was not built with, such
#       as agentkit::net's cpp-httplib).
#       An executable labelled e2e is not built when AGENTKIT_TEST_E2E is OFF (the default
#       preset: it never runs them, the asan preset builds and runs them), unless
#       BUILD_WITHOUT_E2E says another test runs it there (the soak under valgrind).
#       CPU_BOUND: its tests are bound by agentkit's own CPU work; under the sanitizers it is
#       compiled at -O1 (agentkit_optimise_under_sanitizers) without the -O0 precompiled header.
#
#   agentkit_add_doc_program(<target> DOC <file.md> [SECTION <heading>] [LINK_LIBRARIES <libs...>])
#       The program a documentation page shows: its first ```cpp block that defines main()
#       (the first after the line SECTION, when given), written to the build tree and compiled
#       as <target> like the tests (warnings as errors). The page is a configure dependency, so
#       an edited page is extracted again. The caller adds the tests that run it. Every doc
#       program is also recorded (global property AGENTKIT_DOC_PROGRAMS) for the consumer test
#       that builds them all against the installed package (tests/consumer, consumer.docs).
#
#   agentkit_add_compile_fail_test(<name> FILE <cpp> REGEX <regex> [LABELS <labels...>])
#       ctest test compile_fail.<name>: compiles <cpp> with -fsyntax-only, the build's
#       compiler, C++ standard, warning flags and the include paths of agentkit and its
#       dependencies. It passes only when compilation FAILS and the compiler's output matches
#       <regex> (CMake regex syntax). Label compile_fail.
include_guard(GLOBAL)

find_package(GTest REQUIRED)
include(GoogleTest)

set(AGENTKIT_TEST_GEN_DIR "${PROJECT_BINARY_DIR}/agentkit_test_gen")

# The Release twins' flags: the compiler's Release flags after the build type's own (the last
# -O wins), and no debug info (nobody debugs a twin: a failure reproduces in <name>).
function(_agentkit_release_twin_flags target)
    separate_arguments(release_flags UNIX_COMMAND "${CMAKE_CXX_FLAGS_RELEASE}")
    target_compile_options(${target} PRIVATE ${release_flags})
    if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
        target_compile_options(${target} PRIVATE -g0)
    endif()
endfunction()

# ---------------------------------------------------------------------------------------------
# Precompiled header shared by every unit-test executable (REUSE_FROM): built once per build
# tree, it saves parsing nlohmann/json, gtest and the standard library in every test TU.
# It also holds <agentkit/agentkit.hpp> itself: parsing agentkit's headers is most of a test
# TU's cost, and a missing include in a public header cannot hide behind it because the header
# check (cmake/AgentkitHeaderCheck.cmake) compiles every header on its own, without any PCH.
# The single-header twins get their own PCH, built from single_include/ only.
if(AGENTKIT_PCH)
    file(CONFIGURE OUTPUT "${AGENTKIT_TEST_GEN_DIR}/pch_host.cpp"
        CONTENT "// Generated: host translation unit of the unit tests' precompiled header.\n")
    add_library(agentkit_test_pch OBJECT "${AGENTKIT_TEST_GEN_DIR}/pch_host.cpp")
    target_link_libraries(agentkit_test_pch PRIVATE
        agentkit_warnings GTest::gtest nlohmann_json::nlohmann_json tl::expected Threads::Threads)
    target_compile_features(agentkit_test_pch PRIVATE cxx_std_20)
    set(_agentkit_pch_headers
        <nlohmann/json.hpp> <tl/expected.hpp> <gtest/gtest.h>
        <algorithm> <array> <atomic> <chrono> <cmath> <concepts> <condition_variable> <cstddef>
        <cstdint> <cstring> <exception> <functional> <future> <limits> <map> <memory> <mutex>
        <optional> <regex> <set> <sstream> <stdexcept> <stop_token> <string> <string_view>
        <thread> <tuple> <type_traits> <unordered_map> <unordered_set> <utility> <variant>
        <vector>)
    if(TARGET GTest::gmock)
        target_link_libraries(agentkit_test_pch PRIVATE GTest::gmock)
        list(APPEND _agentkit_pch_headers <gmock/gmock.h>)
    endif()
    if(AGENTKIT_TEST_SINGLE_INCLUDE)
        file(CONFIGURE OUTPUT "${AGENTKIT_TEST_GEN_DIR}/pch_host_single.cpp"
            CONTENT "// Generated: host translation unit of the single-header tests' precompiled header.\n")
        add_library(agentkit_test_pch_single OBJECT "${AGENTKIT_TEST_GEN_DIR}/pch_host_single.cpp")
        target_link_libraries(agentkit_test_pch_single PRIVATE agentkit_dev_single GTest::gtest)
        if(TARGET GTest::gmock)
            target_link_libraries(agentkit_test_pch_single PRIVATE GTest::gmock)
        endif()
        target_compile_features(agentkit_test_pch_single PRIVATE cxx_std_20)
        _agentkit_release_twin_flags(agentkit_test_pch_single)  # as the twins
        target_precompile_headers(agentkit_test_pch_single PRIVATE ${_agentkit_pch_headers} <agentkit/agentkit.hpp>)
    endif()
    target_link_libraries(agentkit_test_pch PRIVATE agentkit::agentkit)
    if(AGENTKIT_SEPARATE_COMPILATION)  # as every test that reuses it (agentkit_dev)
        target_compile_definitions(agentkit_test_pch PRIVATE AGENTKIT_SEPARATE_COMPILATION)
    endif()
    target_precompile_headers(agentkit_test_pch PRIVATE ${_agentkit_pch_headers} <agentkit/agentkit.hpp>)
endif()

# ---------------------------------------------------------------------------------------------
# Shim include directory for the single-header test builds: <agentkit/core/error.hpp> etc.
# all forward to the amalgamated <agentkit/agentkit.hpp> (found in single_include/).
set(AGENTKIT_SINGLE_SHIM_DIR "${AGENTKIT_TEST_GEN_DIR}/single_include_shim")
if(AGENTKIT_TEST_SINGLE_INCLUDE)
    file(GLOB_RECURSE _agentkit_public_headers CONFIGURE_DEPENDS
        RELATIVE "${PROJECT_SOURCE_DIR}/include" "${PROJECT_SOURCE_DIR}/include/agentkit/*.hpp")
    foreach(_header IN LISTS _agentkit_public_headers)
        if(NOT _header STREQUAL "agentkit/agentkit.hpp")
            file(CONFIGURE OUTPUT "${AGENTKIT_SINGLE_SHIM_DIR}/${_header}" CONTENT
"// Generated shim for agentkit's single-header test builds: <${_header}> is part of the
// amalgamated header, so including it means including that.
#pragma once
#include <agentkit/agentkit.hpp>
")
        endif()
    endforeach()
endif()

function(_agentkit_gtest_executable target dev_target test_prefix labels timeout serial pch)
    add_executable(${target} ${ARGN})
    target_link_libraries(${target} PRIVATE ${dev_target} GTest::gtest GTest::gtest_main)
    target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/tests")
    if(AGENTKIT_PCH AND pch)
        if(dev_target STREQUAL "agentkit_dev_single")
            target_precompile_headers(${target} REUSE_FROM agentkit_test_pch_single)
        else()
            target_precompile_headers(${target} REUSE_FROM agentkit_test_pch)
        endif()
    endif()
    # gtest_discover_tests flattens list-valued PROPERTIES (LABELS "unit;single_include" would
    # read as LABELS unit, single_include TIMEOUT, ...), so labels are set by an include file
    # that ctest reads after discovery, from the discovered test lists.
    set(label_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake")
    set(label_script "")
    if(serial)
        # Tests that load the machine (huge pages, a renderer spinning a core) run alone, so a
        # parallel ctest neither slows them past their bounds nor is slowed by them.
        string(REPLACE ";" ":" filter "${serial}")
        gtest_discover_tests(${target}
            TEST_PREFIX "${test_prefix}"
            TEST_FILTER "-${filter}"
            TEST_LIST ${target}_TESTS
            DISCOVERY_MODE PRE_TEST
            DISCOVERY_TIMEOUT 60
            PROPERTIES TIMEOUT ${timeout})
        gtest_discover_tests(${target}
            TEST_PREFIX "${test_prefix}"
            TEST_FILTER "${filter}"
            TEST_LIST ${target}_SERIAL_TESTS
            DISCOVERY_MODE PRE_TEST
            DISCOVERY_TIMEOUT 60
            PROPERTIES TIMEOUT ${timeout} RUN_SERIAL TRUE)
        string(APPEND label_script
            "if(${target}_SERIAL_TESTS)\n"
            "  set_tests_properties(\${${target}_SERIAL_TESTS} PROPERTIES LABELS \"${labels};serial\")\n"
            "endif()\n")
    else()
        gtest_discover_tests(${target}
            TEST_PREFIX "${test_prefix}"
            TEST_LIST ${target}_TESTS
            DISCOVERY_MODE PRE_TEST
            DISCOVERY_TIMEOUT 60
            PROPERTIES TIMEOUT ${timeout})
    endif()
    string(APPEND label_script
        "if(${target}_TESTS)\n"
        "  set_tests_properties(\${${target}_TESTS} PROPERTIES LABELS \"${labels}\")\n"
        "endif()\n")
    file(WRITE "${label_file}" "${label_script}")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${label_file}")
endfunction()

# A test executable compiled as one translation unit (a unity build). Every test TU pays a fixed
# cost whatever it tests: g++ instantiates, at the end of each TU, every template that the inline
# functions of the headers it includes use (with the tests' precompiled header, the whole
# library's: ~20 of a small test file's 35 s at -O0), and each TU generates its own copy of the
# inline functions it calls. One TU per area pays that once. The test files of an area therefore
# keep their file-local names distinct (anonymous namespaces and statics share the one TU).
function(_agentkit_one_translation_unit target)
    get_target_property(sources ${target} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.(cpp|cc|cxx)$")
    list(LENGTH sources count)
    if(count LESS 2)
        return()
    endif()
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE BATCH UNITY_BUILD_BATCH_SIZE 0)
    # (the unity TU #includes the test files, and g++ then takes a fixture in a file's anonymous
    # namespace for one declared in a header: -Wsubobject-linkage)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
    endif()
endfunction()

function(agentkit_add_gtest name)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "RELEASE_TWIN;NO_PCH;BUILD_WITHOUT_E2E;CPU_BOUND" "TIMEOUT"
        "SOURCES;LABELS;LINK_LIBRARIES;COMPILE_DEFINITIONS;SERIAL_TESTS")
    if(ARG_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "agentkit_add_gtest(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
    endif()
    if(NOT ARG_SOURCES)
        message(FATAL_ERROR "agentkit_add_gtest(${name}): SOURCES is required")
    endif()
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT 120)
    endif()
    if("e2e" IN_LIST ARG_LABELS AND NOT AGENTKIT_TEST_E2E AND NOT ARG_BUILD_WITHOUT_E2E)
        return()
    endif()

    set(targets ${name})
    if(ARG_NO_PCH OR (ARG_CPU_BOUND AND AGENTKIT_SANITIZE))
        set(pch OFF)
    else()
        set(pch ON)
    endif()
    # Twinned areas in the default preset (AGENTKIT_TEST_TWINNED_DEBUG off): only the twin. Its
    # g++ -O3 build reports every warning the -O0 one would (g++'s front end warns the same at any
    # level) and runs the same tests; the asan preset builds and runs the multi-header one.
    if(ARG_RELEASE_TWIN AND AGENTKIT_TEST_SINGLE_INCLUDE AND NOT AGENTKIT_TEST_TWINNED_DEBUG)
        set(targets "")
    else()
        _agentkit_gtest_executable(${name} agentkit_dev "" "${ARG_LABELS}" ${ARG_TIMEOUT} "${ARG_SERIAL_TESTS}" ${pch} ${ARG_SOURCES})
        if(AGENTKIT_TEST_UNITY)
            _agentkit_one_translation_unit(${name})
        endif()
        if(ARG_CPU_BOUND)
            agentkit_optimise_under_sanitizers(${name})
        endif()
    endif()
    if(AGENTKIT_TEST_SINGLE_INCLUDE AND ARG_RELEASE_TWIN)
        _agentkit_gtest_executable(${name}_single agentkit_dev_single "single."
            "${ARG_LABELS};single_include" ${ARG_TIMEOUT} "${ARG_SERIAL_TESTS}" ${pch} ${ARG_SOURCES})
        # The target's own include directories come before those of linked targets, and the
        # shim directory has no agentkit/agentkit.hpp, so that one resolves to single_include/.
        target_include_directories(${name}_single PRIVATE "${AGENTKIT_SINGLE_SHIM_DIR}")
        _agentkit_release_twin_flags(${name}_single)
        # One TU per twin (a unity build): at -O3 every TU optimises its own copy of each inline
        # function it uses, so the twin of tests/core cost 201 CPU-s as five TUs and 74 s as one.
        _agentkit_one_translation_unit(${name}_single)
        list(APPEND targets ${name}_single)
    endif()
    foreach(target IN LISTS targets)
        if(ARG_LINK_LIBRARIES)
            target_link_libraries(${target} PRIVATE ${ARG_LINK_LIBRARIES})
        endif()
        if(ARG_COMPILE_DEFINITIONS)
            target_compile_definitions(${target} PRIVATE ${ARG_COMPILE_DEFINITIONS})
        endif()
    endforeach()
    # For callers that need to adjust both executables: ${<name>_TARGETS}.
    set(${name}_TARGETS ${targets} PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------------------------
# Programs shown in documentation pages.
function(agentkit_add_doc_program target)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "" "DOC;SECTION" "LINK_LIBRARIES")
    if(NOT ARG_DOC OR ARG_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "usage: agentkit_add_doc_program(<target> DOC <file.md> [SECTION <heading>] [LINK_LIBRARIES ...])")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${ARG_DOC}")
    file(READ "${ARG_DOC}" text)
    if(ARG_SECTION)
        string(FIND "${text}" "${ARG_SECTION}\n" at)
        if(at LESS 0)
            message(FATAL_ERROR "${ARG_DOC} has no line '${ARG_SECTION}'")
        endif()
        string(SUBSTRING "${text}" ${at} -1 text)
    endif()
    set(code "")
    while(code STREQUAL "")
        string(FIND "${text}" "```cpp\n" open)
        if(open LESS 0)
            message(FATAL_ERROR "${ARG_DOC}: no ```cpp block with a main() (after '${ARG_SECTION}')")
        endif()
        math(EXPR open "${open} + 7")
        string(SUBSTRING "${text}" ${open} -1 text)
        string(FIND "${text}" "```" close)
        string(SUBSTRING "${text}" 0 ${close} block)
        string(SUBSTRING "${text}" ${close} -1 text)
        string(FIND "${block}" "int main(" has_main)
        if(has_main GREATER_EQUAL 0)
            set(code "${block}")
        endif()
    endwhile()
    set(source "${CMAKE_CURRENT_BINARY_DIR}/${target}.cpp")
    file(CONFIGURE OUTPUT "${source}" CONTENT "${code}" @ONLY)  # rewritten only when it changed
    add_executable(${target} "${source}")
    target_link_libraries(${target} PRIVATE agentkit_dev ${ARG_LINK_LIBRARIES})
    # target|page|extracted source|libraries (comma-separated)
    list(JOIN ARG_LINK_LIBRARIES "," libs)
    set_property(GLOBAL APPEND PROPERTY AGENTKIT_DOC_PROGRAMS "${target}|${ARG_DOC}|${source}|${libs}")
endfunction()

# ---------------------------------------------------------------------------------------------
# Compile-error tests.
set(AGENTKIT_COMPILE_FAIL_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/agentkit_compile_fail.cmake")

function(agentkit_add_compile_fail_test name)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "FIRST_ERROR" "FILE;REGEX" "LABELS")
    if(ARG_UNPARSED_ARGUMENTS OR NOT ARG_FILE OR "${ARG_REGEX}" STREQUAL "")
        message(FATAL_ERROR "usage: agentkit_add_compile_fail_test(<name> FILE <cpp> REGEX <regex> [FIRST_ERROR] [LABELS ...])")
    endif()
    get_filename_component(source "${ARG_FILE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${source}")
        message(FATAL_ERROR "agentkit_add_compile_fail_test(${name}): ${source} does not exist")
    endif()

    # Everything the runner needs goes into a generated per-test file, so that regexes and
    # flags never pass through command-line quoting.
    set(flags "${CMAKE_CXX_FLAGS}")
    if(CMAKE_BUILD_TYPE)
        string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
        string(APPEND flags " ${CMAKE_CXX_FLAGS_${config}}")
    endif()
    separate_arguments(flags UNIX_COMMAND "${flags}")
    list(APPEND flags ${CMAKE_CXX20_STANDARD_COMPILE_OPTION})

    set(case_file "${CMAKE_CURRENT_BINARY_DIR}/compile_fail/${name}.cmake")
    set(tgt agentkit)
    file(GENERATE OUTPUT "${case_file}" CONTENT
"# Generated by agentkit_add_compile_fail_test(${name}).
set(AK_NAME [==[${name}]==])
set(AK_SOURCE [==[${source}]==])
set(AK_REGEX [==[${ARG_REGEX}]==])
set(AK_FIRST_ERROR ${ARG_FIRST_ERROR})
set(AK_CXX [==[${CMAKE_CXX_COMPILER}]==])
set(AK_FLAGS [==[${flags}]==])
set(AK_OPTIONS [==[$<TARGET_PROPERTY:agentkit_warnings,INTERFACE_COMPILE_OPTIONS>;$<TARGET_PROPERTY:${tgt},INTERFACE_COMPILE_OPTIONS>]==])
set(AK_DEFINES [==[$<TARGET_PROPERTY:${tgt},INTERFACE_COMPILE_DEFINITIONS>]==])
set(AK_INCLUDES [==[$<TARGET_PROPERTY:${tgt},INTERFACE_INCLUDE_DIRECTORIES>]==])
set(AK_OWN_INCLUDES [==[${PROJECT_SOURCE_DIR}/include;${PROJECT_SOURCE_DIR}/tests]==])
set(AK_IMPLICIT_INCLUDES [==[${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES}]==])
")
    add_test(NAME compile_fail.${name}
        COMMAND "${CMAKE_COMMAND}" "-DAK_CASE=${case_file}" -P "${AGENTKIT_COMPILE_FAIL_SCRIPT}")
    set_tests_properties(compile_fail.${name} PROPERTIES
        LABELS "compile_fail;${ARG_LABELS}" TIMEOUT 180)
endfunction()
