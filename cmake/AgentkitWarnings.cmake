# Internal: warning and sanitizer flags for agentkit's own tests, examples and benchmarks.
add_library(agentkit_dev INTERFACE)
target_compile_options(agentkit_dev INTERFACE
    -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Werror)
if(AGENTKIT_SANITIZE)
    target_compile_options(agentkit_dev INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    target_link_options(agentkit_dev INTERFACE -fsanitize=address,undefined)
endif()
target_link_libraries(agentkit_dev INTERFACE agentkit::agentkit)
