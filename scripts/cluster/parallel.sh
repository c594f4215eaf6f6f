#!/usr/bin/env bash
# parallel.sh — one `meeple match` spread over cores or hosts with GNU parallel, one shard per job,
# then the shards' logs merged: the same log and table as one machine playing the whole match.
#
#   scripts/cluster/parallel.sh [--shards N] [--jobs J] [--out DIR] [--sshlogin LOGIN]... -- \
#       GAME BOT BOT... --games G --seed S [other meeple match options]
#
#   --shards N       shards the match is cut into (default: 4 per job slot, at least 1)
#   --jobs J         shards played at once on each host (default: its cores)
#   --out DIR        where the shards' logs, the merged log DIR/match.jsonl and the table DIR/table.txt
#                    go (default ./meeple-match); with --sshlogin it must be a path every host shares
#   --sshlogin LOGIN passed to GNU parallel (repeatable; ":" is this machine): each host needs meeple on
#                    its PATH (or $MEEPLE) and the bot files at the same paths
# Without --seed a seed is drawn here and printed: every shard must play with the same one.
# Shards of one match must keep every argument, --games and --seed included: merge checks it.
# Run it again with the same arguments after a stop: each shard resumes its log (meeple match --resume).
set -euo pipefail

usage() { sed -n '4,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "parallel.sh: $*" >&2; exit 2; }

meeple=${MEEPLE:-meeple}
shards="" jobs="" out=meeple-match
logins=()
while [ $# -gt 0 ]; do
  case "$1" in
    --shards) [ $# -ge 2 ] || usage; shards=$2; shift 2 ;;
    --jobs) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --sshlogin) [ $# -ge 2 ] || usage; logins+=(--sshlogin "$2"); shift 2 ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) die "unknown option '$1' (the match's arguments go after --)" ;;
  esac
done
[ $# -ge 2 ] || usage
command -v parallel >/dev/null || die "GNU parallel is not installed (Debian: apt-get install parallel)"
args=("$@")
case " ${args[*]} " in
  *" --shard "*|*" --log "*|*" --resume "*|*" --json "*) die "--shard, --log, --resume and --json are the recipe's to set" ;;
esac
if [[ " ${args[*]} " != *" --seed "* ]]; then
  seed=$(( $(od -An -N6 -tu8 /dev/urandom | tr -d ' ') % 9007199254740992 ))
  echo "parallel.sh: the seed was drawn at random: --seed $seed plays this match again" >&2
  args+=(--seed "$seed")
fi
[ -n "$jobs" ] || jobs=$(nproc)
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs must be a whole number from 1, got '$jobs'"
[ -n "$shards" ] || shards=$(( jobs * 4 ))
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || die "--shards must be a whole number from 1, got '$shards'"
mkdir -p "$out"

# Each shard: its own log, resumed when a run before left one. -q: the arguments reach meeple as
# given (spaces, quotes), here and over ssh. The shards' own tables go to DIR/shards.txt.
parallel -q --halt now,fail=1 --jobs "$jobs" "${logins[@]}" \
  "$meeple" match "${args[@]}" --shard "{}/$shards" --log "$out/shard-{}.jsonl" --resume \
  ::: $(seq 1 "$shards") >"$out/shards.txt"

logs=()
for k in $(seq 1 "$shards"); do logs+=("$out/shard-$k.jsonl"); done
"$meeple" merge "${logs[@]}" --log "$out/match.jsonl" | tee "$out/table.txt"
