#!/usr/bin/env bash
# agentkit's one test command: configure, build and run every test of every CI configuration.
#
#   tools/check.sh                 the CI set: default (g++) and asan (clang++ + ASan/UBSan)
#   tools/check.sh --all           default, clang and asan
#   tools/check.sh clang asan      just these presets (names from CMakePresets.json)
#   tools/check.sh --quick [--base REV]   the fast loop: the unit tests of the parts a change
#                                  touches, built in the dev preset (tools/quick.sh)
#   AGENTKIT_CHECK_PRESETS="default clang" tools/check.sh
#
# Presets (CMakePresets.json):
#   default  g++, Debug, against agentkit::compiled (the library compiled once), each test
#            executable one TU (AGENTKIT_TEST_UNITY, as in clang and asan): everything is
#            built but the benchmarks (preset clang compiles them) and the in-process Chromium
#            tests (label e2e: asan builds and runs them); runs the unit tests (an area with a Release
#            single-header twin, -O3, the optimised-build warning check, as that twin only),
#            the apps (demo, bot, the MCP servers through the official MCP client and the
#            conformance kit), self-contained header check, consumer tests (find_package,
#            add_subdirectory, FetchContent, single header, pkg-config), compile-error tests,
#            amalgamation freshness, packaging consistency, the valgrind soak
#   asan     clang++, -O0 (CPU-bound tests and agentkit::compiled -O1), ASan+UBSan: unit and e2e
#            tests (real Chromium), fuzzing (10 s a target); no apps, examples or compile-error
#            tests (they run in default; preset clang runs the compile-error tests under clang++).
#            This is also CI's clang++ build: a separate plain clang++ build (preset clang)
#            would cost as much again.
#   clang    clang++, Debug: unit tests, header check, compile-error tests, the benchmarks
#            compiled (developers, --all)
#
# Ninja with -j$(nproc) for builds, ctest -j2 --output-on-failure. Prints the time of every
# stage, every ctest summary, and a final "check: N passed, M failed" line; exits non-zero
# when any stage of any preset failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

presets=()
for arg in "$@"; do  # the fast loop is its own script
    [[ $arg == --quick ]] && exec tools/quick.sh "$@"
done
for arg in "$@"; do
    case "$arg" in
        --all) presets+=(default clang asan) ;;
        -h|--help) sed -n '2,30p' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) echo "check.sh: unknown option $arg" >&2; exit 2 ;;
        *) presets+=("$arg") ;;
    esac
done
if [[ ${#presets[@]} -eq 0 ]]; then
    read -r -a presets <<< "${AGENTKIT_CHECK_PRESETS:-default asan}"
fi

jobs=$(nproc 2>/dev/null || echo 2)
logdir=$(mktemp -d "${TMPDIR:-/tmp}/agentkit-check.XXXXXX")
trap 'rm -rf "$logdir"' EXIT

now() { date +%s; }
fmt() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

echo "== agentkit check: presets ${presets[*]}; build -j${jobs}, ctest -j2"
echo "   $(cmake --version | head -n1); $(ninja --version 2>/dev/null | sed 's/^/ninja /')"
echo "   $(g++ --version 2>/dev/null | head -n1)"
echo "   $(clang++ --version 2>/dev/null | head -n1)"

start_all=$(now)

# The MCP client tests drive the servers through the official MCP TypeScript client, the
# conformance tests run the official MCP conformance kit, and the gateway tests use real MCP servers
# from npm (each folder pinned by its lock).
for dir in tests/mcp_client tests/conformance tests/mcp_gateway; do
    if [[ -f $dir/package-lock.json && ! -d $dir/node_modules ]]; then
        echo "== npm ci ($dir)"
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || echo "check.sh: npm ci failed in $dir; its tests will fail" >&2
    fi
done
total_passed=0
total_failed=0
overall=0
summary=()

for preset in "${presets[@]}"; do
    t_conf=0; t_build=0; t_test=0
    status="ok"
    counts="-"

    echo
    echo "== [$preset] configure"
    t0=$(now)
    if ! cmake --preset "$preset"; then
        status="CONFIGURE FAILED"
    fi
    t_conf=$(($(now) - t0))
    echo "== [$preset] configure: $(fmt $t_conf)"

    if [[ $status == ok ]]; then
        echo
        echo "== [$preset] build"
        t0=$(now)
        if ! cmake --build --preset "$preset" -j "$jobs"; then
            status="BUILD FAILED"
        fi
        t_build=$(($(now) - t0))
        echo "== [$preset] build: $(fmt $t_build)"
    fi

    if [[ $status == ok ]]; then
        echo
        echo "== [$preset] test"
        t0=$(now)
        log="$logdir/ctest-$preset.log"
        ctest --preset "$preset" -j2 --output-on-failure 2>&1 | tee "$log"
        rc=${PIPESTATUS[0]}
        t_test=$(($(now) - t0))
        line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n1)
        if [[ -n $line ]]; then
            failed=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<< "$line")
            all=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<< "$line")
            total_passed=$((total_passed + all - failed))
            total_failed=$((total_failed + failed))
            counts="$line"
        fi
        if [[ $rc -ne 0 ]]; then
            status="TESTS FAILED"
            [[ -z $line ]] && total_failed=$((total_failed + 1))
        fi
        echo "== [$preset] test: $(fmt $t_test)"
    else
        total_failed=$((total_failed + 1))
    fi

    [[ $status == ok ]] || overall=1
    summary+=("$(printf '%-8s configure %7s  build %7s  test %7s  %s  [%s]' "$preset" \
        "$(fmt $t_conf)" "$(fmt $t_build)" "$(fmt $t_test)" "$status" "$counts")")
done

echo
echo "== agentkit check summary (total $(fmt $(($(now) - start_all))))"
for row in "${summary[@]}"; do
    echo "   $row"
done
echo "check: ${total_passed} passed, ${total_failed} failed"
exit $overall
