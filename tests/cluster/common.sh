# common.sh — what the cluster recipe tests share: skipping, waiting, comparing a merged match with
# the one-machine run.

# ctest reads status 77 as "skipped" (SKIP_RETURN_CODE); the reason goes first.
skip() { echo "SKIP: $*"; exit 77; }

# wait_for SECONDS COMMAND...: true once COMMAND succeeds, false after SECONDS.
wait_for() {
  local deadline=$(( SECONDS + $1 )); shift
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}

# A log without its timing fields ("ms" and "ms_max" end every record and are measured).
untimed() { sed -E 's/,"ms":\[[^]]*\],"ms_max":\[[^]]*\]\}$/}/' "$1"; }
# A table without what is measured or local: the decision times and the bot files at its end.
results() { sed -n '1,/decision time/p' "$1" | grep -v 'decision time'; }

# same_match WHOLE.jsonl WHOLE.txt MERGED.jsonl MERGED.txt: the same records (timing aside) and table.
same_match() {
  diff <(untimed "$1") <(untimed "$3") >/dev/null || { echo "the logs differ:"; diff <(untimed "$1") <(untimed "$3") | head -c 2000; return 1; }
  diff <(results "$2") <(results "$4") || { echo "the tables differ"; return 1; }
}
