# Self-contained header check: every public header compiles on its own.
#
# At configure time every include/agentkit/**/*.hpp gets one generated translation unit that
# includes only that header (twice, to prove #pragma once works). They are compiled as the
# OBJECT library agentkit_header_check, part of the default build, with the project's warnings
# as errors and deliberately WITHOUT precompiled headers: a header that forgets an #include
# fails here instead of in a user's build. New headers are picked up on the next build
# (CONFIGURE_DEPENDS re-globs). The amalgamated header gets the same check against
# single_include/ alone (agentkit_single_header_check).
#
# Umbrella headers (nothing but #include lines and comments: agentkit.hpp, core.hpp, browser.hpp,
# ...) are not given a TU of their own: each header they include is checked alone here, and the
# whole set compiles together in every test (the tests' precompiled header is agentkit.hpp) and
# in the single-header check. Their TUs cost ~100 s of CPU per CI run for no failure the others
# would miss.
#
# A header another checked header includes first (before any other line but comments and
# `#pragma once`) is checked inside that header's TU: there nothing comes before it, so it must
# compile on its own there as it would in a TU of its own. Headers therefore put first the one
# agentkit header they would prove this way (CONTRIBUTING.md, "Headers"); this halves the check's
# cost (77 of 136 headers had no TU of their own when it was written). Every header still needs
# `#pragma once` (checked at configure time: the TUs of covered headers include them once).
include_guard(GLOBAL)

function(agentkit_add_header_check)
    set(include_root "${PROJECT_SOURCE_DIR}/include")
    set(out_dir "${PROJECT_BINARY_DIR}/header_check")
    file(GLOB_RECURSE headers CONFIGURE_DEPENDS RELATIVE "${include_root}" "${include_root}/agentkit/*.hpp")
    # impl/ headers are parts of the header that includes them at its end (browser.hpp), and
    # browser/tools/ headers the parts of browser/tools.hpp: each is checked through the header it
    # belongs to (each would cost a whole browser compile of its own). net/ headers need an
    # optional library (cpp-httplib: agentkit::net; libcurl: agentkit::curl; mcp/http/oauth.hpp and
    # mcp/http/oauth_store.hpp both; mcp/http/jose.hpp OpenSSL's libcrypto, which agentkit::net brings; net/sse.hpp none)
    # and are checked with it.
    # agentkit/src.hpp is the compile-once definitions (AGENTKIT_SEPARATE_COMPILATION only): checked
    # as agentkit::compiled's source, below.
    list(FILTER headers EXCLUDE REGEX "/impl/|^agentkit/browser/tools/|^agentkit/src\\.hpp$")
    if(NOT TARGET agentkit_net)
        list(FILTER headers EXCLUDE REGEX "^agentkit/(net/http_server|mcp/http/(server|oauth|oauth_loopback|oauth_store|jose))\\.hpp$")
    endif()
    if(NOT TARGET agentkit_curl)
        list(FILTER headers EXCLUDE REGEX "^agentkit/(net/http_client|session/model_client|mcp/http/(oauth|oauth_store))\\.hpp$")
    endif()
    # Deprecated forwarding headers (first line "... deprecated: moved to <agentkit/...>") are
    # compiled together in one TU, each whose new header is checked here (its optional library
    # is there); they are not checked alone (they include one header, checked alone itself).
    set(forwarding "")
    set(moved_includes "")
    foreach(header IN LISTS headers)
        file(STRINGS "${include_root}/${header}" first_line LIMIT_COUNT 1 ENCODING UTF-8)
        if(first_line MATCHES "deprecated: moved to <(agentkit/[^>]+)>")
            list(APPEND forwarding "${header}")
            list(APPEND moved_includes "${CMAKE_MATCH_1}")
        endif()
    endforeach()
    set(moved_tu_lines "")
    foreach(header target IN ZIP_LISTS forwarding moved_includes)
        if(target IN_LIST headers)
            string(APPEND moved_tu_lines "#include <${header}>\n")
        endif()
    endforeach()
    if(forwarding)
        list(REMOVE_ITEM headers ${forwarding})
    endif()

    set(umbrellas "")
    foreach(header IN LISTS headers)
        file(STRINGS "${include_root}/${header}" lines ENCODING UTF-8)
        set(umbrella ON)
        foreach(line IN LISTS lines)
            if(NOT line MATCHES "^[ \t]*(//.*|#[ \t]*include[ \t]+<agentkit/[^>]+>[ \t]*(//.*)?|#[ \t]*pragma[ \t]+once[ \t]*)?$")
                set(umbrella OFF)
                break()
            endif()
        endforeach()
        if(umbrella)
            list(APPEND umbrellas "${header}")
        endif()
    endforeach()
    if(umbrellas)
        list(REMOVE_ITEM headers ${umbrellas})
    endif()
    list(SORT headers)

    # Which headers are compiled first inside another header's TU (see the top of this file).
    set(covered "")
    foreach(header IN LISTS headers)
        file(STRINGS "${include_root}/${header}" lines ENCODING UTF-8)
        set(has_pragma OFF)
        set(first "")
        foreach(line IN LISTS lines)
            if(line MATCHES "^[ \t]*#[ \t]*pragma[ \t]+once[ \t]*$")
                set(has_pragma ON)
            elseif(line MATCHES "^[ \t]*(//.*)?$")
            elseif(line MATCHES "^[ \t]*#[ \t]*include[ \t]+<(agentkit/[^>]+)>")
                set(first "${CMAKE_MATCH_1}")
                break()
            else()
                break()
            endif()
        endforeach()
        if(NOT has_pragma)
            file(STRINGS "${include_root}/${header}" pragma_lines REGEX "^[ \t]*#[ \t]*pragma[ \t]+once")
            if(NOT pragma_lines)
                message(FATAL_ERROR "agentkit: include/${header} has no `#pragma once`")
            endif()
        endif()
        if(first AND NOT first STREQUAL header)
            list(APPEND covered "${first}")
        endif()
    endforeach()
    list(REMOVE_DUPLICATES covered)
    set(roots ${headers})
    if(covered)
        list(REMOVE_ITEM roots ${covered})
    endif()

    set(sources "")
    foreach(header IN LISTS roots)
        string(MAKE_C_IDENTIFIER "${header}" id)
        set(tu "${out_dir}/${id}.cpp")
        # file(CONFIGURE) rewrites only when the content changes, so nothing rebuilds needlessly.
        file(CONFIGURE OUTPUT "${tu}" CONTENT
"// Generated by cmake/AgentkitHeaderCheck.cmake: <${header}> must compile on its own.
#include <${header}>
#include <${header}>
")
        list(APPEND sources "${tu}")
    endforeach()
    if(NOT sources)
        message(FATAL_ERROR "agentkit: no headers found under ${include_root}/agentkit")
    endif()
    if(moved_tu_lines)
        set(tu "${out_dir}/moved_headers.cpp")
        file(CONFIGURE OUTPUT "${tu}" CONTENT
"// Generated by cmake/AgentkitHeaderCheck.cmake: the deprecated forwarding headers still compile.
${moved_tu_lines}")
        list(APPEND sources "${tu}")
    endif()

    add_library(agentkit_header_check OBJECT ${sources})
    target_link_libraries(agentkit_header_check PRIVATE agentkit_dev)
    if(TARGET agentkit_net)
        target_link_libraries(agentkit_header_check PRIVATE agentkit_net)
    endif()
    if(TARGET agentkit_curl)
        target_link_libraries(agentkit_header_check PRIVATE agentkit_curl)
    endif()
    # The objects are never linked: skip debug info, it is most of the cost of these TUs.
    if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
        target_compile_options(agentkit_header_check PRIVATE -g0)
    endif()
    # The compile-once definitions must compile as agentkit::compiled compiles them; with
    # AGENTKIT_SEPARATE_COMPILATION the tests link that library and it is built anyway.
    if(NOT AGENTKIT_SEPARATE_COMPILATION)
        get_target_property(compiled_sources agentkit_compiled SOURCES)
        add_library(agentkit_src_check OBJECT ${compiled_sources})
        target_link_libraries(agentkit_src_check PRIVATE agentkit_dev)
        target_compile_definitions(agentkit_src_check PRIVATE AGENTKIT_SEPARATE_COMPILATION)
        if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
            target_compile_options(agentkit_src_check PRIVATE -g0)
        endif()
    endif()
    list(LENGTH headers count)
    list(LENGTH sources tu_count)
    list(LENGTH umbrellas umbrella_count)
    message(STATUS "agentkit: self-contained header check over ${count} headers in ${tu_count} TUs (the others first in another's; ${umbrella_count} umbrella headers checked through their parts)")

    # With the twins (AGENTKIT_TEST_SINGLE_INCLUDE) the amalgamated header is compiled by each of
    # them, and on its own by consumer.single_include: no TU of its own here.
    if(AGENTKIT_TEST_SINGLE_INCLUDE)
        return()
    endif()
    set(single_tu "${out_dir}/single_include_agentkit_hpp.cpp")
    file(CONFIGURE OUTPUT "${single_tu}" CONTENT
"// Generated by cmake/AgentkitHeaderCheck.cmake: the amalgamated header must compile on its own.
#include <agentkit/agentkit.hpp>
#include <agentkit/agentkit.hpp>
")
    add_library(agentkit_single_header_check OBJECT "${single_tu}")
    target_link_libraries(agentkit_single_header_check PRIVATE agentkit_dev_single)
    if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
        target_compile_options(agentkit_single_header_check PRIVATE -g0)
    endif()
endfunction()
