# Internal targets for agentkit's own tests, examples and benchmarks (never installed):
#
#   agentkit_warnings     warning flags (errors with AGENTKIT_WERROR=ON, as the CI presets set it) and, with
#                         AGENTKIT_SANITIZE, the ASan+UBSan compile and link flags
#   agentkit_dev          agentkit_warnings + agentkit::agentkit        (include/); with
#                         AGENTKIT_SEPARATE_COMPILATION also agentkit::compiled (the definitions
#                         compiled once, cmake/AgentkitCompiled.cmake)
#   agentkit_dev_single   agentkit_warnings + agentkit::single_header   (single_include/ only)
#
#   agentkit_optimise_under_sanitizers(<target>)
#                         with AGENTKIT_SANITIZE, compiles <target> at -O1. The asan preset
#                         builds at -O0: three times cheaper to compile than -O1 (a browser test
#                         TU 49 s instead of 154 s of CPU), which is most of that build. Targets
#                         whose tests are bound by agentkit's own CPU work (the 20,000- and
#                         50,000-node pages, the event floods) and agentkit::compiled (the engine
#                         every e2e test runs) take -O1 (at -O0 the 50,000-node page took 103 s
#                         instead of 25 s). The fuzzers stay at -O0 (tests/fuzz/CMakeLists.txt).
#
# Third-party headers (nlohmann, tl, gtest, benchmark) come through imported targets or the
# compiler's default search path, so they are system headers and their warnings never fail us.
include_guard(GLOBAL)

add_library(agentkit_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(agentkit_warnings INTERFACE
        -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow
        $<$<BOOL:${AGENTKIT_WERROR}>:-Werror>)
    if(AGENTKIT_SANITIZE)
        target_compile_options(agentkit_warnings INTERFACE
            -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
        target_link_options(agentkit_warnings INTERFACE -fsanitize=address,undefined)
    endif()
elseif(MSVC)
    target_compile_options(agentkit_warnings INTERFACE /W4 /permissive- $<$<BOOL:${AGENTKIT_WERROR}>:/WX>)
    if(AGENTKIT_SANITIZE)
        target_compile_options(agentkit_warnings INTERFACE /fsanitize=address)
    endif()
endif()

function(agentkit_optimise_under_sanitizers target)
    if(AGENTKIT_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
        target_compile_options(${target} PRIVATE -O1)
    endif()
endfunction()

add_library(agentkit_dev INTERFACE)
target_link_libraries(agentkit_dev INTERFACE agentkit_warnings agentkit::agentkit)
if(AGENTKIT_SEPARATE_COMPILATION)
    # The library compiled once: with our warnings (and sanitizers), and at -O1 under the
    # sanitizers, since every e2e test runs the engine's code from it.
    target_link_libraries(agentkit_compiled PRIVATE agentkit_warnings)
    agentkit_optimise_under_sanitizers(agentkit_compiled)
    target_link_libraries(agentkit_dev INTERFACE agentkit_compiled)
endif()

add_library(agentkit_dev_single INTERFACE)
target_link_libraries(agentkit_dev_single INTERFACE agentkit_warnings agentkit::single_header)
