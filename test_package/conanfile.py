"""Conan test_package: builds a program against the created agentkit package and runs it.

    conan create . --build=missing        (runs this automatically)
    conan test test_package agentkit/<version>
"""

import os

from conan import ConanFile
from conan.tools.build import can_run
from conan.tools.cmake import CMake, cmake_layout


class AgentkitTestConan(ConanFile):
    settings = "os", "arch", "compiler", "build_type"
    generators = "CMakeDeps", "CMakeToolchain", "VirtualRunEnv"
    test_type = "explicit"

    def requirements(self):
        self.requires(self.tested_reference_str)

    def layout(self):
        cmake_layout(self)

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def test(self):
        if can_run(self):
            program = os.path.join(self.cpp.build.bindirs[0], "test_package")
            self.run(program, env="conanrun")
