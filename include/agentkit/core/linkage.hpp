// agentkit/core/linkage.hpp — AGENTKIT_DECL: how a definition that can be compiled once is declared.
//
// agentkit is header-only by default: every definition is `inline` and a program needs nothing
// but the headers. A program that defines AGENTKIT_SEPARATE_COMPILATION (in every translation
// unit, e.g. with CMake's agentkit::compiled) compiles those definitions once instead, in the
// one .cpp that includes <agentkit/src.hpp>; the other translation units see declarations only.
// docs/packaging.md, "Compile once" says when that pays and how to set it up.
#pragma once

#if defined(AGENTKIT_SEPARATE_COMPILATION)
/// Declares a definition compiled once (in the translation unit that includes <agentkit/src.hpp>).
#  define AGENTKIT_DECL
#else
/// Declares a definition of the header-only build: inline, in every translation unit that uses it.
#  define AGENTKIT_DECL inline
#endif

#if defined(AGENTKIT_SEPARATE_COMPILATION) && defined(AGENTKIT_SINGLE_HEADER)
#  error "the single header (single_include/) is header-only; AGENTKIT_SEPARATE_COMPILATION needs the headers of include/ and <agentkit/src.hpp> (docs/packaging.md, section Compile once)"
#endif
