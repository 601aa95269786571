# Internal targets for agentkit's own tests, examples and benchmarks (never installed):
#
#   agentkit_warnings     warning flags (errors unless AGENTKIT_WERROR=OFF) and, with
#                         AGENTKIT_SANITIZE, the ASan+UBSan compile and link flags
#   agentkit_dev          agentkit_warnings + agentkit::agentkit        (include/)
#   agentkit_dev_single   agentkit_warnings + agentkit::single_header   (single_include/ only)
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

add_library(agentkit_dev INTERFACE)
target_link_libraries(agentkit_dev INTERFACE agentkit_warnings agentkit::agentkit)

add_library(agentkit_dev_single INTERFACE)
target_link_libraries(agentkit_dev_single INTERFACE agentkit_warnings agentkit::single_header)
