// agentkit/src.hpp — the definitions agentkit compiles once under AGENTKIT_SEPARATE_COMPILATION.
//
// Include this header in exactly one .cpp of a program whose translation units are all compiled
// with AGENTKIT_SEPARATE_COMPILATION defined; the others then compile declarations only (the
// browser engine and the calls of the browser's tools, today: docs/browser.md's program then
// compiles in about a third of the time, and every further translation unit saves that again).
// CMake's agentkit::compiled target is this .cpp and the definition. docs/packaging.md, "Compile
// once" has both set-ups and the numbers.
#pragma once

#if !defined(AGENTKIT_SEPARATE_COMPILATION)
#error "<agentkit/src.hpp> is for programs built with AGENTKIT_SEPARATE_COMPILATION defined in every translation unit (docs/packaging.md, section Compile once); a header-only program does not include it"
#endif

#include <agentkit/browser/browser.hpp>
#include <agentkit/browser/impl/all.hpp>
#include <agentkit/browser/tools.hpp>

AGENTKIT_INSTANTIATE_TOOLBOX(agentkit::browser::detail::compiled_toolbox);
