#!/usr/bin/env python3
"""packaging_consistent: the Conan recipe and the vcpkg port agree with the CMake install.

Neither Conan nor vcpkg can run here, so this checks what can be checked without them:
  * one version everywhere: include/agentkit/version.hpp, CMake, vcpkg.json, ports/agentkit/vcpkg.json
    and what conanfile.py's set_version() computes;
  * conanfile.py, executed against a minimal stand-in of the `conan` module: header-library,
    the dependencies, a package() whose file layout equals the CMake install's, and
    package_info() naming the CMake package `agentkit` with target `agentkit::agentkit`;
  * the vcpkg port: the documented helpers (vcpkg_cmake_configure with agentkit's build options
    off, vcpkg_cmake_config_fixup on the directory CMake installs to, vcpkg_fixup_pkgconfig,
    vcpkg_install_copyright), the host dependencies they need, and a usage file;
  * test_package/ builds with find_package(agentkit) and agentkit::agentkit.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import types
from pathlib import Path

failures: list[str] = []


def check(condition: bool, message: str) -> None:
    if not condition:
        failures.append(message)


# --- a minimal stand-in for the parts of the conan package the recipe imports -----------------
class ConanException(Exception):
    pass


class _CppInfo:
    def __init__(self):
        self.properties: dict[str, str] = {}
        self.includedirs = ["include"]
        self.libdirs = ["lib"]
        self.bindirs = ["bin"]
        self.system_libs: list[str] = []

    def set_property(self, name, value):
        self.properties[name] = value


class _Info:
    def __init__(self):
        self.cleared = False

    def clear(self):
        self.cleared = True


class _Settings:
    def __init__(self, values):
        self._values = values

    def get_safe(self, name):
        return self._values.get(name)

    def __getattr__(self, name):
        return self._values.get(name)


class ConanFile:
    def __init__(self):
        self.version = None
        self.requirements_seen: list[str] = []
        self.cpp_info = _CppInfo()
        self.info = _Info()
        self.settings = _Settings({"os": "Linux", "compiler.cppstd": "20"})

    def requires(self, ref, **_):
        self.requirements_seen.append(ref)


def _copy(conanfile, pattern, src, dst, keep_path=True, excludes=None):
    copied = []
    for root, _, files in os.walk(src):
        for name in files:
            path = os.path.join(root, name)
            relative = os.path.relpath(path, src)
            if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(name, pattern):
                target = os.path.join(dst, relative if keep_path else name)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy2(path, target)
                copied.append(target)
    return copied


def _load(conanfile, path, encoding="utf-8"):
    with open(path, encoding=encoding) as fh:
        return fh.read()


cppstd_checks: list[int] = []


def _check_min_cppstd(conanfile, cppstd):
    cppstd_checks.append(int(cppstd))


def install_conan_stub() -> None:
    def module(name, **attrs):
        mod = types.ModuleType(name)
        mod.__dict__.update(attrs)
        sys.modules[name] = mod
        return mod

    module("conan", ConanFile=ConanFile)
    module("conan.errors", ConanException=ConanException)
    module("conan.tools")
    module("conan.tools.build", check_min_cppstd=_check_min_cppstd, default_cppstd=lambda conanfile, *a: "gnu17",
           can_run=lambda c: True)
    module("conan.tools.files", copy=_copy, load=_load)
    module("conan.tools.cmake", CMake=object, cmake_layout=lambda c: None)


# --- checks ----------------------------------------------------------------------------------
def header_version(source: Path) -> str:
    text = (source / "include/agentkit/version.hpp").read_text(encoding="utf-8")
    parts = [re.search(rf"^#define AGENTKIT_VERSION_{p} (\d+)$", text, re.M) for p in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        failures.append("include/agentkit/version.hpp lacks AGENTKIT_VERSION_MAJOR/MINOR/PATCH")
        return "?"
    return ".".join(m.group(1) for m in parts)


def expected_install_layout(source: Path, includedir: str) -> set[str]:
    files = {f"{includedir}/{p.relative_to(source / 'include').as_posix()}"
             for p in (source / "include").rglob("*.hpp")}
    files.add(f"{includedir}/agentkit_single/agentkit/agentkit.hpp")
    return files


def check_conan(source: Path, version: str, includedir: str) -> None:
    install_conan_stub()
    spec = importlib.util.spec_from_file_location("agentkit_conanfile", source / "conanfile.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    recipes = [v for v in vars(mod).values() if isinstance(v, type) and issubclass(v, ConanFile) and v is not ConanFile]
    check(len(recipes) == 1, "conanfile.py must define exactly one ConanFile class")
    if len(recipes) != 1:
        return
    recipe = recipes[0]()
    recipe.recipe_folder = str(source)
    recipe.source_folder = str(source)
    check(recipe.name == "agentkit", f"conan: name is {recipe.name!r}, expected 'agentkit'")
    check(recipe.package_type == "header-library", "conan: package_type must be 'header-library'")
    check(getattr(recipe, "no_copy_source", False), "conan: a header-only recipe sets no_copy_source")
    recipe.set_version()
    check(recipe.version == version, f"conan: set_version() gives {recipe.version}, version.hpp says {version}")
    recipe.requirements()
    for dep in ("nlohmann_json/", "tl-expected/"):
        check(any(r.startswith(dep) for r in recipe.requirements_seen), f"conan: requires {dep}... missing")
    recipe.package_id()
    check(recipe.info.cleared, "conan: package_id() must clear the info (one package for all configurations)")
    # validate(): a profile naming C++20 is checked; g++ 12's default profile (gnu17, the
    # compiler's default) is accepted without a check (the consumer's build picks C++20);
    # another explicit standard is checked (and rejected by the real check_min_cppstd)
    for cppstd, checked in (("20", True), ("gnu17", False), ("17", True)):
        cppstd_checks.clear()
        recipe.settings = _Settings({"os": "Linux", "compiler.cppstd": cppstd})
        recipe.validate()
        check(cppstd_checks == ([20] if checked else []),
              f"conan: validate() with compiler.cppstd={cppstd} should {'check' if checked else 'not check'} C++20")

    for needed in ("include/agentkit/agentkit.hpp", "single_include/agentkit/agentkit.hpp", "LICENSE"):
        check(any(fnmatch.fnmatch(needed, p) or needed == p for p in recipe.exports_sources),
              f"conan: exports_sources does not export {needed}")

    with tempfile.TemporaryDirectory() as tmp:
        recipe.package_folder = tmp
        recipe.package()
        got = {Path(root, f).relative_to(tmp).as_posix() for root, _, fs in os.walk(tmp) for f in fs}
    want_headers = expected_install_layout(source, "include")
    got_headers = {g for g in got if g.startswith("include/")}
    check(got_headers == want_headers,
          "conan: package() layout differs from the CMake install: "
          f"missing {sorted(want_headers - got_headers)}, extra {sorted(got_headers - want_headers)}")
    check("licenses/LICENSE" in got, "conan: package() must copy LICENSE to licenses/")

    recipe.package_info()
    props = recipe.cpp_info.properties
    check(props.get("cmake_file_name") == "agentkit", "conan: cmake_file_name must be 'agentkit'")
    check(props.get("cmake_target_name") == "agentkit::agentkit", "conan: cmake_target_name must be 'agentkit::agentkit'")
    check(props.get("pkg_config_name") == "agentkit", "conan: pkg_config_name must be 'agentkit'")
    check(recipe.cpp_info.libdirs == [] and recipe.cpp_info.bindirs == [], "conan: header-only: libdirs/bindirs must be empty")

    tp = source / "test_package"
    for f in ("conanfile.py", "CMakeLists.txt"):
        check((tp / f).is_file(), f"test_package/{f} is missing")
    if (tp / "CMakeLists.txt").is_file():
        cm = (tp / "CMakeLists.txt").read_text(encoding="utf-8")
        check("find_package(agentkit CONFIG REQUIRED)" in cm, "test_package/CMakeLists.txt must find_package(agentkit CONFIG REQUIRED)")
        check("agentkit::agentkit" in cm, "test_package/CMakeLists.txt must link agentkit::agentkit")
    if (tp / "conanfile.py").is_file():
        tc = (tp / "conanfile.py").read_text(encoding="utf-8")
        check("tested_reference_str" in tc, "test_package/conanfile.py must require self.tested_reference_str")


def check_vcpkg(source: Path, version: str, cmakedir: str, pkgconfigdir: str) -> None:
    for manifest in ("vcpkg.json", "ports/agentkit/vcpkg.json"):
        path = source / manifest
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            failures.append(f"{manifest}: {exc}")
            continue
        check(data.get("name") == "agentkit", f"{manifest}: name must be 'agentkit'")
        check(data.get("version") == version, f"{manifest}: version {data.get('version')} != {version} (version.hpp)")
        deps = [d if isinstance(d, str) else d.get("name") for d in data.get("dependencies", [])]
        for dep in ("nlohmann-json", "tl-expected"):
            check(dep in deps, f"{manifest}: dependency {dep} missing")
        check(data.get("license") == "MIT", f"{manifest}: license must match LICENSE (MIT)")
        if manifest.startswith("ports/"):
            hosts = [d.get("name") for d in data.get("dependencies", []) if isinstance(d, dict) and d.get("host")]
            for dep in ("vcpkg-cmake", "vcpkg-cmake-config"):
                check(dep in hosts, f"{manifest}: host dependency {dep} missing")

    portfile = (source / "ports/agentkit/portfile.cmake").read_text(encoding="utf-8")
    for opt in ("AGENTKIT_BUILD_TESTS", "AGENTKIT_BUILD_EXAMPLES", "AGENTKIT_BUILD_BENCH"):
        check(f"-D{opt}=OFF" in portfile, f"portfile.cmake: vcpkg_cmake_configure must pass -D{opt}=OFF")
    for helper in ("vcpkg_cmake_configure(", "vcpkg_cmake_install(", "vcpkg_fixup_pkgconfig(", "vcpkg_install_copyright("):
        check(helper in portfile, f"portfile.cmake: {helper}...) missing")
    m = re.search(r"vcpkg_cmake_config_fixup\(([^)]*)\)", portfile)
    check(bool(m) and f"CONFIG_PATH {cmakedir}" in m.group(1),
          f"portfile.cmake: vcpkg_cmake_config_fixup must use CONFIG_PATH {cmakedir} (where CMake installs agentkitConfig.cmake)")
    check(pkgconfigdir in ("share/pkgconfig", "lib/pkgconfig"),
          f"agentkit.pc goes to {pkgconfigdir}, which vcpkg_fixup_pkgconfig does not look at")
    check((source / "LICENSE").is_file(), "LICENSE is missing (portfile installs it as copyright)")
    usage = source / "ports/agentkit/usage"
    check(usage.is_file() and "agentkit::agentkit" in usage.read_text(encoding="utf-8"),
          "ports/agentkit/usage must exist and name agentkit::agentkit")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", type=Path, required=True)
    ap.add_argument("--version", required=True, help="PROJECT_VERSION from CMake")
    ap.add_argument("--includedir", default="include")
    ap.add_argument("--cmakedir", default="share/cmake/agentkit")
    ap.add_argument("--pkgconfigdir", default="share/pkgconfig")
    args = ap.parse_args()
    source = args.source_dir.resolve()

    version = header_version(source)
    check(version == args.version, f"CMake project version {args.version} != version.hpp {version}")
    check(args.includedir == "include", f"CMAKE_INSTALL_INCLUDEDIR is {args.includedir}; the packages assume 'include'")
    check_conan(source, version, args.includedir)
    check_vcpkg(source, version, args.cmakedir, args.pkgconfigdir)

    if failures:
        print(f"packaging: {len(failures)} problem(s):", file=sys.stderr)
        for f in failures:
            print(f"  - {f}", file=sys.stderr)
        return 1
    print(f"packaging: Conan recipe, vcpkg manifest and port agree with the CMake install (version {version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
