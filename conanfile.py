"""Conan 2 recipe for agentkit (header-only).

    conan create . --build=missing

The package has the same layout as `cmake --install` (see cmake/AgentkitInstall.cmake):
include/agentkit/..., include/agentkit_single/agentkit/agentkit.hpp and the license. Conan's
CMakeDeps generates the CMake package itself, named like ours: find_package(agentkit) and the
target agentkit::agentkit.
"""

import os
import re

from conan import ConanFile
from conan.errors import ConanException
from conan.tools.build import check_min_cppstd
from conan.tools.files import copy, load

required_conan_version = ">=2.0"


class AgentkitConan(ConanFile):
    name = "agentkit"
    description = "Header-only C++20 SDK: a fast, token-thrifty, safe tool layer for LLM agents"
    license = "MIT"
    topics = ("llm", "agents", "tools", "mcp", "cdp", "header-only")
    package_type = "header-library"
    # Settings only to validate C++20 when the profile names a standard; the package id ignores
    # them (header-only). A default profile (gnu17) is accepted: the consumer's own build
    # chooses C++20 (test_package: cxx_std_20), and the headers stop with a clear #error if not.
    settings = "os", "arch", "compiler", "build_type"
    exports_sources = "include/*", "single_include/*", "LICENSE"
    no_copy_source = True

    def set_version(self):
        # include/agentkit/version.hpp is the single source of truth, as for CMake.
        text = load(self, os.path.join(self.recipe_folder, "include", "agentkit", "version.hpp"))
        parts = []
        for part in ("MAJOR", "MINOR", "PATCH"):
            m = re.search(rf"^#define\s+AGENTKIT_VERSION_{part}\s+(\d+)\s*$", text, re.MULTILINE)
            if not m:
                raise ConanException(f"AGENTKIT_VERSION_{part} not found in include/agentkit/version.hpp")
            parts.append(m.group(1))
        self.version = self.version or ".".join(parts)

    def requirements(self):
        self.requires("nlohmann_json/3.11.3")
        self.requires("tl-expected/1.1.0")

    def package_id(self):
        self.info.clear()

    def validate(self):
        # A profile that names a standard must name C++20 or later, except the compiler's
        # default one (g++ 12: gnu17), which says nothing about how consumers compile.
        cppstd = self.settings.get_safe("compiler.cppstd")
        if cppstd and not self._is_default_cppstd(str(cppstd)):
            check_min_cppstd(self, 20)

    def _is_default_cppstd(self, cppstd):
        from conan.tools.build import default_cppstd
        return cppstd == default_cppstd(self)

    def package(self):
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))
        copy(self, "*.hpp", os.path.join(self.source_folder, "include"),
             os.path.join(self.package_folder, "include"))
        copy(self, "agentkit.hpp", os.path.join(self.source_folder, "single_include", "agentkit"),
             os.path.join(self.package_folder, "include", "agentkit_single", "agentkit"))

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "agentkit")
        self.cpp_info.set_property("cmake_target_name", "agentkit::agentkit")
        self.cpp_info.set_property("pkg_config_name", "agentkit")
        self.cpp_info.includedirs = ["include"]
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        if self.settings.os in ("Linux", "FreeBSD"):
            self.cpp_info.system_libs = ["pthread"]
