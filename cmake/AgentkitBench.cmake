# Benchmarks (Google Benchmark, Debian libbenchmark-dev), used from bench/CMakeLists.txt:
#
#   agentkit_add_benchmark(<name> SOURCES <files...> [LINK_LIBRARIES <libs...>])
#
# builds <build>/bin/<name> linked with benchmark::benchmark_main. Benchmarks are always
# optimised as a Release build is (the compiler's CMAKE_CXX_FLAGS_RELEASE, -O3 -DNDEBUG with
# g++ and clang++, appended so they win over a Debug build's -O0): numbers from an unoptimised
# build mean nothing, and CI's default build thereby checks that the engine, the maskers and
# the session compile warning-free when optimised. They are not registered with ctest; run them
# by hand.
include_guard(GLOBAL)

find_package(benchmark REQUIRED)

function(agentkit_add_benchmark name)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LINK_LIBRARIES")
    if(NOT ARG_SOURCES)
        message(FATAL_ERROR "agentkit_add_benchmark(${name}): SOURCES is required")
    endif()
    add_executable(${name} ${ARG_SOURCES})
    target_link_libraries(${name} PRIVATE agentkit_dev benchmark::benchmark benchmark::benchmark_main
        ${ARG_LINK_LIBRARIES})
    separate_arguments(release_flags UNIX_COMMAND "${CMAKE_CXX_FLAGS_RELEASE}")
    target_compile_options(${name} PRIVATE ${release_flags})
endfunction()
