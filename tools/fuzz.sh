#!/usr/bin/env bash
# Run agentkit's libFuzzer targets for longer than CI does (ctest gives each 20 s).
#
#   tools/fuzz.sh                  every target, 10 minutes each
#   tools/fuzz.sh 3600 mcp_message one target, an hour
#
# Builds the asan preset's fuzz targets (clang++, ASan+UBSan) if needed. Each target grows its
# corpus in build-asan/tests/fuzz/corpus/<name> and reads the seeds in tests/fuzz/corpus/<name>.
# A finding is written as crash-*/timeout-*/leak-* in build-asan/fuzz-findings/; add it to the
# seed corpus with a regression test when fixed. Exits non-zero when any target found something.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(mcp_message tool_arguments websocket_frames cdp_messages snapshot_render)

cmake --preset asan >/dev/null || exit 1
cmake --build build-asan --target "${targets[@]/#/fuzz_}" || exit 1
mkdir -p build-asan/fuzz-findings
status=0
for t in "${targets[@]}"; do
    echo "== fuzz_$t for ${seconds}s"
    mkdir -p "build-asan/tests/fuzz/corpus/$t"
    if ! build-asan/bin/fuzz_"$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="build-asan/fuzz-findings/$t-" "build-asan/tests/fuzz/corpus/$t" "tests/fuzz/corpus/$t" 2>&1 |
            grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|Done|SUMMARY|==[0-9]+==ERROR)"; then
        :
    fi
    [[ ${PIPESTATUS[0]} -eq 0 ]] || { echo "fuzz_$t: FINDING (see build-asan/fuzz-findings/)"; status=1; }
done
exit $status
