# Runs agentkit-demo and checks its output.
#   cmake -DDEMO=<binary> [-DPROVIDER=anthropic] [-DMODE=browser|tools|no_chromium|usage] -P check_demo.cmake
if(NOT DEMO)
    message(FATAL_ERROR "pass -DDEMO=<path to agentkit-demo>")
endif()
if(NOT PROVIDER)
    set(PROVIDER anthropic)
endif()
if(NOT MODE)
    set(MODE browser)
endif()

function(expect what pattern)
    if(NOT out MATCHES "${pattern}")
        message(FATAL_ERROR "agentkit-demo: expected ${what} (/${pattern}/) in its output:\n${out}\n--- stderr ---\n${err}")
    endif()
endfunction()

if(MODE STREQUAL "usage")
    execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=ANTHROPIC_API_KEY --unset=OPENAI_API_KEY ${DEMO} --help
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "agentkit-demo --help: expected exit status 0, got '${rc}'\n${out}\n${err}")
    endif()
    expect("the usage line" "^Usage: agentkit-demo \\[options\\]\n")
    foreach(word --provider openai_compatible --model --base-url --no-stream --mode --chromium --exposure ANTHROPIC_API_KEY
                 OPENAI_API_KEY "never printed" "Exit status")
        expect("${word} documented" "${word}")
    endforeach()
    execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=ANTHROPIC_API_KEY --unset=OPENAI_API_KEY ${DEMO} --provider gemini
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
    set(out "${err}")
    if(NOT rc EQUAL 2)
        message(FATAL_ERROR "agentkit-demo --provider gemini: expected exit status 2, got '${rc}'\n${err}")
    endif()
    expect("the bad value named" "unknown provider \"gemini\"")
    execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=ANTHROPIC_API_KEY --unset=OPENAI_API_KEY --unset=OPENAI_BASE_URL
                            ${DEMO} --provider openai_compatible
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
    set(out "${err}")
    if(NOT rc EQUAL 2)
        message(FATAL_ERROR "agentkit-demo --provider openai_compatible without a base URL: expected exit status 2, got '${rc}'\n${err}")
    endif()
    expect("the missing base URL named" "needs --base-url")
    return()
endif()

# The default exposure (the whole catalogue every turn, a stable prefix) against visible_only: the
# same run, a higher cache hit rate; a bad value is a usage error.
if(MODE STREQUAL "exposure")
    set(rates "")
    foreach(exposure visible_only stable)
        execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=ANTHROPIC_API_KEY --unset=OPENAI_API_KEY ${DEMO} --provider ${PROVIDER}
                                --exposure ${exposure}
                        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 90)
        if(NOT rc EQUAL 0)
            message(FATAL_ERROR "agentkit-demo --exposure ${exposure} exited with '${rc}'\n${out}\n${err}")
        endif()
        expect("the answer read from the page" "is EUR 36\\.75")
        if(NOT out MATCHES "cache hit ([0-9]+)\\.([0-9])%")
            message(FATAL_ERROR "agentkit-demo --exposure ${exposure}: no cache hit rate in the report\n${out}")
        endif()
        list(APPEND rates "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
        message(STATUS "exposure ${exposure}: cache hit ${CMAKE_MATCH_1}.${CMAKE_MATCH_2}%")
    endforeach()
    list(GET rates 0 visible_only)
    list(GET rates 1 stable)
    if(NOT stable GREATER visible_only)
        message(FATAL_ERROR "the stable exposure should hit the cache more often than visible_only: ${stable} vs ${visible_only} (per mille)")
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=ANTHROPIC_API_KEY --unset=OPENAI_API_KEY ${DEMO} --exposure everything
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
    set(out "${err}")
    if(NOT rc EQUAL 2)
        message(FATAL_ERROR "agentkit-demo --exposure everything: expected exit status 2, got '${rc}'\n${err}")
    endif()
    expect("the bad value named" "unknown exposure \"everything\"")
    return()
endif()

if(MODE STREQUAL "no_chromium")
    execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=ANTHROPIC_API_KEY --unset=OPENAI_API_KEY ${DEMO} --chromium /nonexistent/agentkit-no-chromium
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
    if(NOT rc EQUAL 3)
        message(FATAL_ERROR "agentkit-demo without Chromium: expected exit status 3, got '${rc}'\n${out}\n${err}")
    endif()
    set(out "${err}")
    expect("a clear message" "cannot start headless Chromium")
    expect("what to do" "AGENTKIT_CHROMIUM")
    return()
endif()

# No key in the environment, whatever the caller's: the scripted agent runs.
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=ANTHROPIC_API_KEY --unset=OPENAI_API_KEY ${DEMO} --mode ${MODE} --provider ${PROVIDER}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 90)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "agentkit-demo --mode ${MODE} --provider ${PROVIDER} exited with '${rc}'\n${out}\n--- stderr ---\n${err}")
endif()

expect("the Summary section" "\nSummary:\n(- [^\n]*\n)*- completed after [0-9]+ model turns?")
expect("the Artifacts section" "\nArtifacts:\n- session_id: s-[0-9a-f]+")
expect("the session metrics" "\\[session\\] turns=[0-9]+ rt=[0-9]+ in=[1-9][0-9]* out=[1-9]")
expect("no failed tool call" "calls=[0-9]+ errors=0")
if(MODE STREQUAL "browser")
    # The quote the bundled server computes for Ada Lovelace, 2.5 kg to Lisbon, express:
    # (12.00 + 5.00 x 2.5) x 1.5 = 36.75 - only reachable by really submitting the form.
    expect("the answer read from the page" "\nResult: The express quote for a 2.5 kg parcel to Lisbon is EUR 36\\.75 \\(quote Q-[0-9A-F][0-9A-F][0-9A-F][0-9A-F]\\)\\.\n")
    expect("a start at the menu's ROOT" "menu starts at ROOT")
    expect("menu_enter as the first call" "\\[turn 1 [a-z_]+\\][^\n]*\\[menu_enter [^\n]* ok\\]")
    expect("the form filled and submitted in one call" "\\[turn 3 [a-z_]+\\][^\n]*calls=1 \\[browser_fill_form [^\n]* ok\\]")
    expect("the screenshot kept out of band" "- stored: 1 screenshot")
    expect("browser metrics" "\\[browser\\] calls=3 ")
    expect("exactly one form submission" "quote_requests=1")
    if(out MATCHES "data:image|base64")
        message(FATAL_ERROR "agentkit-demo: an image was inlined in the output:\n${out}")
    endif()
else()
    expect("the tools-mode answer" "\nResult: Ada Lovelace is registered")
endif()
