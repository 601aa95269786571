#!/usr/bin/env bash
# The fast loop: builds and runs the unit tests of the parts a change touches.
#
#   tools/quick.sh                 the uncommitted change (and new files git does not ignore)
#   tools/quick.sh --base REV      everything since REV (e.g. origin/main, HEAD~3)
#   tools/quick.sh --list          say which test executables it would build and run; build nothing
#   tools/check.sh --quick [...]   the same
#
# A changed file picks the unit-test folders of its part: include/agentkit/<part>/ and
# include/agentkit/<part>.hpp pick tests/<part>/ and the folders of every part that includes it,
# as the headers' own includes say (tools/quick_pick.py); tests/<folder>/ picks itself. core/ is
# below everything, so a change there picks every unit-test folder (the loop is then as long as
# the unit tests). Files outside
# include/ and tests/ (docs, bench, apps, cmake) pick nothing: the whole run (tools/check.sh)
# covers them. Executables labelled unit are built in the `dev` preset (g++, Debug, no twins,
# apps, examples or benchmarks: build-dev/) and run from their folders as ctest runs them.
# Exit 0 when every test run passed (or nothing was picked), 1 when one failed, 2 on bad use.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

base=""
list_only=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --quick) ;;
        --base) [[ $# -ge 2 ]] || { echo "quick: --base needs a revision" >&2; exit 2; }; base="$2"; shift ;;
        --list) list_only=1 ;;
        -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "quick: unknown argument $1 (see tools/quick.sh --help)" >&2; exit 2 ;;
    esac
    shift
done

if [[ -n $base ]]; then
    if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
        echo "quick: '$base' is not a revision of this repository" >&2
        exit 2
    fi
    changed=$(git diff --name-only "$base"; git ls-files --others --exclude-standard)
else
    changed=$(git diff --name-only HEAD; git ls-files --others --exclude-standard)
fi
changed=$(sort -u <<< "$changed" | sed '/^$/d')
if [[ -z $changed ]]; then
    echo "quick: nothing changed${base:+ since $base}; nothing to run"
    exit 0
fi

# The picked "folder:target" pairs (tools/quick_pick.py: the include graph decides which parts a
# changed header reaches).
targets=()
while IFS= read -r t; do [[ -n $t ]] && targets+=("$t"); done < <(python3 tools/quick_pick.py <<< "$changed")

if [[ ${#targets[@]} -eq 0 ]]; then
    echo "quick: the change touches no unit-tested part (changed: $(wc -l <<< "$changed") files); run tools/check.sh for the rest"
    exit 0
fi
echo "== quick: ${#targets[@]} test executables for $(wc -l <<< "$changed") changed files${base:+ since $base}:"
printf '   %s\n' "${targets[@]#*:}"
[[ $list_only -eq 1 ]] && exit 0

start=$(date +%s)
if [[ ! -f build-dev/CMakeCache.txt ]] || ! grep -q 'CMAKE_BUILD_TYPE:STRING=Debug' build-dev/CMakeCache.txt; then
    cmake --preset dev >/dev/null || { echo "quick: configure failed (cmake --preset dev)" >&2; exit 1; }
fi
names=("${targets[@]#*:}")
if ! cmake --build build-dev -j "$(nproc 2>/dev/null || echo 2)" --target "${names[@]}"; then
    echo "quick: build failed"
    exit 1
fi
passed=0
failed=0
failures=()
for entry in "${targets[@]}"; do
    d=${entry%%:*}
    t=${entry#*:}
    echo "== $t"
    if (cd "build-dev/tests/$d" && "../../bin/$t" --gtest_brief=1); then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failures+=("$t")
    fi
done
echo "== quick: $(($(date +%s) - start)) s; executables passed: $passed, failed: $failed${failures[*]:+ (${failures[*]})}"
echo "quick: ${passed} passed, ${failed} failed"
[[ $failed -eq 0 ]]
