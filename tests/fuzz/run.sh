#!/usr/bin/env bash
# run.sh [SECONDS] — builds the fuzz targets with clang and libFuzzer (in build-fuzz/, or $MEEPLE_FUZZ_BUILD)
# and runs each for SECONDS (20 by default: CI's smoke run; give 600 or more to search in earnest).
# Each target starts from its seed corpus in tests/fuzz/corpus/TARGET and keeps what it finds in
# BUILD/fuzz-work/TARGET, so a longer run later goes on from there. A crash stops that target, leaves its
# input in BUILD/fuzz-crashes/ and makes the script fail; replay one with BUILD/tests/fuzz/fuzz_TARGET FILE.
# Fixed, an input belongs in tests/fuzz/corpus/TARGET/ as a regression (every build's ctest replays it).
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-20}
build=${MEEPLE_FUZZ_BUILD:-build-fuzz}
targets=(load state table log merge report)

CC=${CC:-clang} cmake -S . -B "$build" -DMEEPLE_FUZZ=ON -DMEEPLE_WERROR=ON >/dev/null
cmake --build "$build" -j"${JOBS:-1}" --target "${targets[@]/#/fuzz_}"

mkdir -p "$build/fuzz-crashes"
status=0
for target in "${targets[@]}"; do
  work="$build/fuzz-work/$target"
  log="$build/fuzz-$target.log"
  mkdir -p "$work"
  echo "== fuzz_$target for ${seconds}s"
  if "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$build/fuzz-crashes/$target-" "$work" "tests/fuzz/corpus/$target" \
       >"$log" 2>&1; then
    grep -E "stat::number_of_executed_units|Done" "$log" || true
  else
    tail -n 40 "$log"
    echo "fuzz_$target found a crash: see $log and $build/fuzz-crashes/"
    status=1
  fi
done
exit $status
