#!/usr/bin/env bash
# slurm_test.sh MEEPLE — scripts/cluster/slurm.sbatch on a one-node Slurm started here: munged, slurmctld
# and slurmd as root with their state, sockets and a minimal slurm.conf in a temp dir, stopped at the
# end whatever happens. The array's merged log and table must be the ones one machine gives.
# Exit 77 (ctest: skipped) with the reason when Slurm or munge is not installed, or not run as root.
set -uo pipefail
meeple=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/cluster/common.sh"

for bin in munged slurmctld slurmd sbatch squeue scontrol sinfo; do
  command -v "$bin" >/dev/null || skip "$bin is not installed (Debian: slurm-wlm, munge)"
done
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start jobs (CI runs as root)"

dir=$(mktemp -d "${TMPDIR:-/tmp}/meeple-slurm.XXXXXX")
chmod 700 "$dir"
pids=()
stop() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  rm -rf "$dir"
}
trap stop EXIT
trap 'exit 1' INT TERM # through stop: no daemon outlives the test
show_logs() { for f in "$dir"/*.log "$dir"/out/*.out "$dir"/*.out; do [ -f "$f" ] && { echo "== $f"; tail -n 30 "$f"; }; done; }
fail() { echo "FAIL: $*"; show_logs; exit 1; }

# munge: its own key and socket; --force because /tmp is writable by all.
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 600 "$dir/munge.key"
munged --foreground --force --key-file="$dir/munge.key" --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munge.seed" >"$dir/munged.out" 2>&1 &
pids+=($!)
wait_for 10 test -S "$dir/munge.sock" || fail "munged did not start"

node=$(hostname -s)
port=$(( 20000 + RANDOM % 20000 ))
cat >"$dir/slurm.conf" <<CONF
ClusterName=meepletest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MaxArraySize=1001
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
mkdir -p "$dir/state" "$dir/spool" "$dir/out"
export SLURM_CONF=$dir/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$dir/slurmd.out" 2>&1 &
pids+=($!)
idle() { sinfo -h -N -o %t 2>/dev/null | grep -qx idle; }
wait_for 60 idle || fail "the node did not come up idle: $(sinfo -N 2>&1 | tail -n 2)"

# The match, whole on this machine and as an array of 3 tasks; the merge job follows the array.
# MEEPLE_CLUSTER_ARGS and MEEPLE_CLUSTER_TASKS try a bigger one ("babel random random --games 100000
# --seed 1", 8): the check is the same.
read -r -a args <<<"${MEEPLE_CLUSTER_ARGS:-babel greedy_babel random --games 12 --seed 11}"
tasks=${MEEPLE_CLUSTER_TASKS:-3}
limit=${MEEPLE_CLUSTER_TIMEOUT:-240} # seconds for the array, and again for the merge: below ctest's 600
"$meeple" match "${args[@]}" --log "$dir/whole.jsonl" >"$dir/whole.txt" || fail "the whole match failed"
cd "$dir/out"
MEEPLE=$meeple MEEPLE_OUT=$dir/out timeout "$limit" sbatch --wait --array=1-"$tasks" --output="$dir/out/task-%a.out" \
  "$root/scripts/cluster/slurm.sbatch" "${args[@]}" >"$dir/sbatch.out" 2>&1 || fail "the array failed: $(cat "$dir/sbatch.out")"
merge_job=$(cat "$dir/out/merge.jobid" 2>/dev/null) || fail "the first task submitted no merge job"
merge_done() { ! squeue -h -j "$merge_job" 2>/dev/null | grep -q .; }
wait_for "$limit" merge_done || fail "the merge job $merge_job did not finish in ${limit}s"
[ -s "$dir/out/table.txt" ] || fail "the merge job wrote no table: $(cat "$dir/out/merge.out" 2>/dev/null)"

same_match "$dir/whole.jsonl" "$dir/whole.txt" "$dir/out/match.jsonl" "$dir/out/table.txt" || fail "the merged match differs"
echo "slurm: '${args[*]}' as a $tasks-task array and a dependent merge gives the one-machine log and table"
echo "1 passed, 0 failed"
