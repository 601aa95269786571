#!/usr/bin/env bash
# tools/compile_cost.sh FILE... — what a program costs to compile: wall time, CPU time and peak
# memory of `g++ -std=c++20 -O0 -c`, against a baseline file that only includes
# <nlohmann/json.hpp> and prints a value. FILE is a .cpp, or a .md page whose program is measured (its first ```cpp
# block that defines main(), as tests/docs extracts it).
#
#   tools/compile_cost.sh docs/tools.md docs/session.md
#   CXX=clang++ RUNS=5 tools/compile_cost.sh my_tool.cpp
#
# Each file is compiled RUNS times (default 3) and the fastest run is reported (other jobs on
# the machine only ever add time; CPU time, user + system, varies less with the load than wall
# time); peak memory is the largest resident set of the compiler (from /usr/bin/time -v, else by
# sampling /proc while it runs, and then no CPU time). Include paths: include/ of
# this tree, then the system's (nlohmann/json, tl/expected, cpp-httplib).
# Both ways of building (docs/packaging.md, "Compile once"): header-only, and with AGENTKIT_SEPARATE_COMPILATION
# ("compiled once"), where the file compiles declarations only and <agentkit/src.hpp>, compiled
# once per program, holds the definitions (its own row). MODES=header-only or MODES=separate
# measures one way only.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cxx="${CXX:-g++}"
runs="${RUNS:-3}"
modes="${MODES:-header-only separate}"
for mode in $modes; do
    [[ $mode == header-only || $mode == separate ]] || { echo "compile_cost.sh: MODES takes header-only and/or separate, not $mode" >&2; exit 2; }
done
if [[ $# -eq 0 ]]; then
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The program of a page: the first ```cpp block containing "int main(".
extract() {
    awk '
        /^```cpp$/ { inblock = 1; block = ""; next }
        /^```/ && inblock { inblock = 0; if (index(block, "int main(") > 0) { printf "%s", block; exit 0 } next }
        inblock { block = block $0 "\n" }
    ' "$1"
}

# one compilation: "WALL CPU MB" (seconds, seconds, peak megabytes); $2.. are extra flags
measure_once() {
    local src="$1" out="$work/out.o"
    local cmd=("$cxx" -std=c++20 -O0 -c "${@:2}" -I"$root/include" "$src" -o "$out")
    if [[ -x /usr/bin/time ]]; then
        local log="$work/time.log"
        local t0 t1
        t0=$(date +%s.%N)
        /usr/bin/time -v -o "$log" "${cmd[@]}" >/dev/null 2>"$work/cc.err" || { cat "$work/cc.err" >&2; return 1; }
        t1=$(date +%s.%N)
        awk -F': ' -v a="$t0" -v b="$t1" '
            /User time/ { cpu += $2 } /System time/ { cpu += $2 } /Maximum resident set size/ { kb = $2 }
            END { printf "%.2f %.2f %.0f\n", b - a, cpu, kb / 1024 }' "$log"
    else
        # No /usr/bin/time: bash's clock, and the compiler's processes' VmHWM sampled from /proc.
        local t0 t1 peak=0 pid kb
        t0=$(date +%s.%N)
        "${cmd[@]}" >/dev/null 2>"$work/cc.err" &
        pid=$!
        while kill -0 "$pid" 2>/dev/null; do
            for p in $pid $(pgrep -P "$pid" 2>/dev/null); do
                kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$p/status" 2>/dev/null || true)
                [[ -n "$kb" && "$kb" -gt "$peak" ]] && peak=$kb
            done
            sleep 0.05
        done
        wait "$pid" || { cat "$work/cc.err" >&2; return 1; }
        t1=$(date +%s.%N)
        awk -v a="$t0" -v b="$t1" -v kb="$peak" 'BEGIN { printf "%.2f - %.0f\n", b - a, kb / 1024 }'
    fi
}

# $runs compilations: the least wall time, the least CPU time, the largest peak
measure() {
    local best="" cpu="" mb=0 s c m
    for ((i = 0; i < runs; ++i)); do
        read -r s c m < <(measure_once "$@")
        if [[ -z "$best" ]] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$s; fi
        if [[ -z "$cpu" || "$c" == "-" ]] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then cpu=$c; fi
        ((m > mb)) && mb=$m
    done
    echo "$best $cpu $mb"
}

cat >"$work/baseline.cpp" <<'CPP'
#include <nlohmann/json.hpp>
#include <cstdio>
int main() { std::printf("%s\n", nlohmann::json{{"baseline", 1}}.dump().c_str()); }
CPP

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.1f", a / b }'; }

read -r base_s base_c base_mb < <(measure "$work/baseline.cpp")
echo "compiler: $("$cxx" --version | head -n1); $cxx -std=c++20 -O0 -c; best of $runs runs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-30s %8s %8s %8s %8s\n' "file" "wall s" "x base" "CPU s" "peak MB"
printf '%-30s %8s %8s %8s %8s\n' "baseline (nlohmann/json)" "$base_s" "1.0" "$base_c" "$base_mb"
sep_flag=-DAGENTKIT_SEPARATE_COMPILATION
for f in "$@"; do
    src="$f"
    if [[ "$f" == *.md ]]; then
        src="$work/$(basename "$f" .md).cpp"
        extract "$f" >"$src"
        [[ -s "$src" ]] || { echo "$f: no \`\`\`cpp block with main()" >&2; exit 1; }
    fi
    for mode in $modes; do
        label="$(basename "$f")"
        flags=()
        if [[ $mode == separate ]]; then label="$label (compiled once)"; flags=("$sep_flag"); fi
        read -r s c mb < <(measure "$src" "${flags[@]}")
        printf '%-30s %8s %8s %8s %8s\n' "$label" "$s" "$(ratio "$s" "$base_s")" "$c" "$mb"
    done
done
if [[ " $modes " == *" separate "* ]]; then
    echo '#include <agentkit/src.hpp>' >"$work/agentkit_src.cpp"
    read -r s c mb < <(measure "$work/agentkit_src.cpp" "$sep_flag")
    printf '%-30s %8s %8s %8s %8s\n' "<agentkit/src.hpp> (once)" "$s" "$(ratio "$s" "$base_s")" "$c" "$mb"
fi
