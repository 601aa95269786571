# tools.toolbox_compiled_once: the object of toolbox_once_test.cpp refers to the toolbox's tool
# calls and descriptions (agentkit::detail::call_tool_at, tool_infos) without defining them, and
# the object of toolbox_once_instantiate.cpp defines both. Run with -DNM=<nm> -DOBJECTS=<a;b>.
foreach(object IN LISTS OBJECTS)
    execute_process(COMMAND "${NM}" "${object}" OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${NM} ${object} failed (${rc})")
    endif()
    foreach(fn call_tool_at tool_infos)
        string(LENGTH "${fn}" length)  # as the Itanium ABI mangles a name: its length, then it
        string(REGEX MATCH "[ \t]U [^\n]*N8agentkit6detail${length}${fn}I[^\n]*" used "${symbols}")
        string(REGEX MATCH "[ \t][TWtw] [^\n]*N8agentkit6detail${length}${fn}I[^\n]*" defined "${symbols}")
        if(object MATCHES "toolbox_once_test")
            if(defined OR NOT used)
                message(FATAL_ERROR "${object}: expected a reference to agentkit::detail::${fn} and no definition "
                                    "(AGENTKIT_EXTERN_TOOLBOX did not keep it out of this translation unit)")
            endif()
        elseif(object MATCHES "toolbox_once_instantiate")
            if(NOT defined)
                message(FATAL_ERROR "${object}: expected a definition of agentkit::detail::${fn} (AGENTKIT_INSTANTIATE_TOOLBOX)")
            endif()
        endif()
    endforeach()
endforeach()
message(STATUS "the toolbox's calls and descriptions are compiled once, in toolbox_once_instantiate.cpp")
