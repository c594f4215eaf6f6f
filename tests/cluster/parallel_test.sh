#!/usr/bin/env bash
# parallel_test.sh MEEPLE — scripts/cluster/parallel.sh on this machine's cores (GNU parallel): a match
# cut into 3 shards and merged gives the log and table of the whole match played here; run again
# after a shard was cut short, it resumes that shard and gives the same.
# Exit 77 (ctest: skipped) with the reason when GNU parallel is not installed.
set -uo pipefail
meeple=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/cluster/common.sh"
command -v parallel >/dev/null || skip "GNU parallel is not installed (Debian: parallel)"
parallel --version 2>/dev/null | grep -q "GNU parallel" || skip "'parallel' is not GNU parallel (Debian: parallel)"

dir=$(mktemp -d "${TMPDIR:-/tmp}/meeple-parallel.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
args=(bohnanza greedy_bohnanza random random --games 18 --seed 21)
"$meeple" match "${args[@]}" --log "$dir/whole.jsonl" >"$dir/whole.txt" || fail "the whole match failed"

MEEPLE=$meeple timeout 300 "$root/scripts/cluster/parallel.sh" --shards 3 --jobs 2 --out "$dir/out" -- "${args[@]}" \
  >"$dir/run.txt" 2>&1 || fail "parallel.sh failed: $(tail -n 5 "$dir/run.txt")"
same_match "$dir/whole.jsonl" "$dir/whole.txt" "$dir/out/match.jsonl" "$dir/out/table.txt" || fail "the merged match differs"

# A shard stopped mid-write: the recipe run again resumes it.
head -c -40 "$dir/out/shard-2.jsonl" >"$dir/cut" && mv "$dir/cut" "$dir/out/shard-2.jsonl"
MEEPLE=$meeple timeout 300 "$root/scripts/cluster/parallel.sh" --shards 3 --jobs 2 --out "$dir/out" -- "${args[@]}" \
  >"$dir/run2.txt" 2>&1 || fail "parallel.sh run again failed: $(tail -n 5 "$dir/run2.txt")"
same_match "$dir/whole.jsonl" "$dir/whole.txt" "$dir/out/match.jsonl" "$dir/out/table.txt" || fail "the resumed match differs"
echo "parallel: an 18-game match (3 deals) as 3 shards under GNU parallel, and resumed, gives the one-machine log and table"
echo "2 passed, 0 failed"
