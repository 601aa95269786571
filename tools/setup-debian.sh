#!/usr/bin/env bash
# Installs what agentkit needs on Debian 12 — only the packages that are missing.
#
#   tools/setup-debian.sh            (as root, or as a user with sudo)
#
# Non-interactive. Checks every package with dpkg-query first and calls apt-get only for the
# missing ones, so it is quick and harmless to run again.
set -euo pipefail

packages=(
    cmake ninja-build g++ clang libclang-rt-14-dev   # toolchains (clang's ASan/UBSan runtime)
    nlohmann-json3-dev libexpected-dev               # agentkit's dependencies
    libgtest-dev libgmock-dev libbenchmark-dev       # tests and benchmarks
    pkg-config python3 doxygen                       # pkg-config consumer test, amalgamation, API reference
    chromium nodejs npm libcurl4-openssl-dev         # browser tests and tooling
    libcpp-httplib-dev chromium-driver               # HTTP parts (agentkit::net), remote-browser tests
)

missing=()
for pkg in "${packages[@]}"; do
    if [[ "$pkg" == npm ]] && command -v npm >/dev/null 2>&1; then
        # NodeSource's nodejs package ships npm itself and conflicts with Debian's npm.
        continue
    fi
    if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        continue
    fi
    missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "setup-debian: all ${#packages[@]} packages are already installed"
    exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "setup-debian: not root and sudo is not available; install as root: ${missing[*]}" >&2
        exit 1
    fi
    sudo=(sudo)
fi

echo "setup-debian: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
echo "setup-debian: done"
