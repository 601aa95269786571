# Benchmarks, used from bench/CMakeLists.txt:
#
#   agentkit_add_benchmark(<name> SOURCES <files...> [LINK_LIBRARIES <libs...>])
#       builds <build>/bin/<name> linked with benchmark::benchmark_main (Google Benchmark,
#       Debian libbenchmark-dev), optimised as below.
#
#   agentkit_optimise_benchmark(<target>)
#       for the plain benchmark programs (they print a table): optimised as below.
#
# Benchmarks are optimised as a Release build is (the compiler's CMAKE_CXX_FLAGS_RELEASE, -O3
# -DNDEBUG with g++ and clang++, appended so they win over a Debug build's -O0): numbers from an
# unoptimised build mean nothing. AGENTKIT_BENCH_OPTIMISE=OFF builds them with the build type's
# own flags instead: the default preset does, since CI only checks that they compile and
# optimising seven whole-engine programs cost it ~4 minutes of its 2 cores (the optimised-build
# warning check is the unit tests' Release twins). They are never run by ctest; run them by
# hand from an optimised build (bench/README.md).
include_guard(GLOBAL)

option(AGENTKIT_BENCH_OPTIMISE "Compile the benchmarks optimised (Release flags) whatever the build type" ON)

function(agentkit_optimise_benchmark target)
    if(AGENTKIT_BENCH_OPTIMISE)
        separate_arguments(release_flags UNIX_COMMAND "${CMAKE_CXX_FLAGS_RELEASE}")
        target_compile_options(${target} PRIVATE ${release_flags})
    endif()
endfunction()

find_package(benchmark REQUIRED)

function(agentkit_add_benchmark name)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LINK_LIBRARIES")
    if(NOT ARG_SOURCES)
        message(FATAL_ERROR "agentkit_add_benchmark(${name}): SOURCES is required")
    endif()
    add_executable(${name} ${ARG_SOURCES})
    target_link_libraries(${name} PRIVATE agentkit_dev benchmark::benchmark benchmark::benchmark_main
        ${ARG_LINK_LIBRARIES})
    agentkit_optimise_benchmark(${name})
endfunction()
