#!/usr/bin/env bash
# Checks scripts/slurm-bench.sh --submit under a real Slurm: submits a small benchmark as
# an array job of N shards and its merge job, waits for both, and compares the merged JSON
# with the same benchmark run here in one process (`ktune bench ... --json`): identical but
# for the measured times and the list of figures the merge drew. Exits 1 on any difference
# or failed job, 2 on a usage or setup error.
#
# usage: scripts/verify-slurm.sh [-n N] [-o DIR] [--ktune PATH] [--sbatch 'OPTIONS']
#                                [--wait SECONDS] [--keep] [-- BENCH_ARGS...]
#   BENCH_ARGS      the benchmark (default: three recorded spaces of testdata/benchmark_hub,
#                   --strategies random,firstils --budgets 25,50 --repeats 5 --seed 7)
#   -n, --shards N  array tasks (default 3)
#   -o, --out DIR   where the cluster's files, the jobs' outputs and the single run go
#                   (default: a new temporary folder, removed at the end unless --keep)
#   --ktune PATH    the ktune to run (default: built from this repository)
#   --sbatch OPTS   passed on to scripts/slurm-bench.sh --sbatch
#   --wait SECONDS  how long to wait for the jobs to end before cancelling them and
#                   failing (default 1800)
#   --keep          keep DIR (the default temporary one) for a look afterwards
#
# The cluster: when `sinfo` answers, the one it answers for. Otherwise (as root, with
# slurmctld, slurmd and munged installed: `apt-get install -y slurm-wlm munge` on Debian)
# a throwaway one under DIR/cluster: a fresh munge key and munged on its own socket, a
# slurm.conf with this host as the controller and its one node with all its CPUs, on ports
# of its own, slurmctld and slurmd run from here; SLURM_CONF points the clients and the
# jobs at it, and every daemon started here is stopped on exit, however it ends.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
shards=3 out="" ktune="" sbatch_opts="" keep=0 wait=1800
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
die() { echo "verify-slurm: $*" >&2; exit 2; }
say() { echo "verify-slurm: $*" >&2; }
while [ $# -gt 0 ]; do
	case $1 in
	-n | --shards) shards=${2:?}; shift 2 ;;
	-o | --out) out=${2:?}; shift 2 ;;
	--ktune) ktune=${2:?}; shift 2 ;;
	--sbatch) sbatch_opts=${2?}; shift 2 ;;
	--wait) wait=${2:?}; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage ;;
	--) shift; break ;;
	*) die "unknown option $1 (the benchmark's arguments come after --)" ;;
	esac
done
[[ $wait =~ ^[1-9][0-9]*$ ]] || die "--wait $wait: give a number of seconds"
if [ $# -eq 0 ]; then
	hub=$repo/testdata/benchmark_hub
	set -- "$hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz" "$hub/convolution_milo/A100.json.gz" \
		"$hub/ktt_pnpoly/RTX_2080_Ti.json.gz" \
		--strategies random,firstils --budgets 25,50 --repeats 5 --seed 7
fi
command -v jq >/dev/null || die "jq is not here, and it compares the two JSON outputs: apt-get install -y jq"

made="" # the temporary folder made here, removed on exit unless --keep
if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/verify-slurm.XXXXXX")
	[ "$keep" = 1 ] || made=$out
fi
mkdir -p "$out"
out=$(cd "$out" && pwd) # the jobs run from elsewhere
if [ -z "$ktune" ]; then
	(cd "$repo" && go build -o "$out/ktune" ./cmd/ktune)
	ktune=$out/ktune
fi

# --- the cluster ------------------------------------------------------------------------
pids=() # the daemons started here, stopped on exit
stop() {
	local i
	if [ ${#pids[@]} -gt 0 ]; then # the throwaway cluster's jobs end before its daemons
		scancel --quiet --user="$(id -un)" 2>/dev/null || true
		for _ in $(seq 100); do
			[ -z "$(squeue -h 2>/dev/null)" ] && break
			sleep 0.1
		done
	fi
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do # slurmd, slurmctld, then munged
		kill "${pids[$i]}" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "${pids[$i]}" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "${pids[$i]}" 2>/dev/null || true
	done
	pids=()
}
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	stop
	[ -z "$made" ] || rm -rf "$made"
	exit "$rc"
}
trap cleanup EXIT INT TERM

if timeout 10 sinfo -h >/dev/null 2>&1; then
	say "using the cluster sinfo answers for: $(sinfo -h -o '%P %D %T' | tr '\n' ';')"
else
	[ "$(id -u)" = 0 ] || die "sinfo does not answer, and a throwaway cluster needs root (to run munged, slurmctld and slurmd)"
	for d in munged slurmctld slurmd sbatch; do
		command -v "$d" >/dev/null || die "no $d: apt-get install -y slurm-wlm munge (Debian), or run where sinfo answers"
	done
	c=$out/cluster
	mkdir -p "$c/munge" "$c/state" "$c/spool"
	chmod 711 "$c/munge" # its socket is reached through it
	dd if=/dev/urandom of="$c/munge/munge.key" bs=1024 count=1 status=none
	chmod 400 "$c/munge/munge.key"
	munged --force --socket="$c/munge/munge.socket" --key-file="$c/munge/munge.key" \
		--pid-file="$c/munge/munged.pid" --log-file="$c/munge/munged.log" \
		--seed-file="$c/munge/munged.seed" --foreground >"$c/munge/munged.out" 2>&1 &
	pids+=($!)
	host=$(hostname -s)
	cpus=$(nproc)
	port=$((20000 + RANDOM % 20000)) # slurmctld; slurmd on the next
	cat >"$c/slurm.conf" <<EOF
# a throwaway one-node cluster: written by scripts/verify-slurm.sh
ClusterName=ktuneverify
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$c/munge/munge.socket
StateSaveLocation=$c/state
SlurmdSpoolDir=$c/spool
SlurmctldPidFile=$c/slurmctld.pid
SlurmdPidFile=$c/slurmd.pid
SlurmctldLogFile=$c/slurmctld.log
SlurmdLogFile=$c/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
MinJobAge=600
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=verify Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF=$c/slurm.conf # sbatch, squeue... and the jobs, which inherit it
	for _ in $(seq 50); do [ -S "$c/munge/munge.socket" ] && break; sleep 0.1; done
	[ -S "$c/munge/munge.socket" ] || die "munged did not start: see $c/munge/munged.log"
	slurmctld -D -i -f "$SLURM_CONF" >"$c/slurmctld.out" 2>&1 &
	pids+=($!)
	slurmd -D -f "$SLURM_CONF" >"$c/slurmd.out" 2>&1 &
	pids+=($!)
	up=""
	for _ in $(seq 60); do
		state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
		case $state in idle*) up=1; break ;; esac
		sleep 0.5
	done
	[ -n "$up" ] || die "the node is not idle after 30 s (state '${state:-none}'): see $c/slurmctld.log and $c/slurmd.log"
	say "started a one-node cluster ($host, $cpus CPUs, port $port) under $c"
fi

# --- the benchmark, in one process and in shards under Slurm ---------------------------
now() { date +%s.%N; }
t0=$(now)
"$ktune" bench "$@" --json >"$out/single.json" || { say "the one-process run failed: $ktune bench $* --json"; exit 1; }
t1=$(now)
log=$("$repo/scripts/slurm-bench.sh" -n "$shards" -o "$out/run" --ktune "$ktune" \
	--sbatch "$sbatch_opts" --submit -- "$@") || { say "scripts/slurm-bench.sh --submit failed"; exit 1; }
echo "$log"
array=$(sed -n 's/^submitted array job \([0-9]*\) .* merge job \([0-9]*\) after it.*/\1/p' <<<"$log")
merge=$(sed -n 's/^submitted array job \([0-9]*\) .* merge job \([0-9]*\) after it.*/\2/p' <<<"$log")
[ -n "$array" ] && [ -n "$merge" ] || { say "no job ids in slurm-bench.sh's output"; exit 1; }

# the jobs are done when neither is queued; a merge whose dependency can never be met is
# cancelled (or, where it stays pending, cancelled here)
deadline=$(($(date +%s) + wait))
while :; do
	queued=$(squeue -h -j "$array,$merge" -o '%i %T %r' 2>/dev/null || true)
	[ -n "$queued" ] || break
	if grep -q DependencyNeverSatisfied <<<"$queued"; then
		scancel "$merge" || true # where --kill-on-invalid-dep did not
		break
	fi
	if [ "$(date +%s)" -ge "$deadline" ]; then
		scancel "$array" "$merge" || true
		say "the jobs were not done after $wait s (cancelled): $(tr '\n' ';' <<<"$queued") (longer: --wait SECONDS)"
		exit 1
	fi
	sleep 1
done
t2=$(now)
jobs=$({ scontrol -o show job "$array"; scontrol -o show job "$merge"; } 2>/dev/null | awk '{
	id = ""; task = ""; state = ""; rt = ""
	for (i = 1; i <= NF; i++) {
		split($i, kv, "=")
		if (kv[1] == "JobId" && id == "") id = kv[2]
		if (kv[1] == "ArrayJobId") id = kv[2]
		if (kv[1] == "ArrayTaskId") task = "_" kv[2]
		if (kv[1] == "JobState") state = kv[2]
		if (kv[1] == "RunTime") rt = kv[2]
	}
	print id task, state, rt
}' || true) # JOBID[_TASK] STATE RUNTIME, while the controller keeps them (MinJobAge)
say "jobs (id, state, run time): $(tr '\n' ';' <<<"$jobs")"
failed=$(awk -v a="${array}_" 'index($1, a) == 1 && $2 != "COMPLETED" { sub(/.*_/, "", $1); printf "%s%s", sep, $1; sep = "," }' <<<"$jobs")
if [ -n "$failed" ]; then
	say "array task(s) $failed did not complete, so the merge did not run: see $out/run/logs/shard-K.out"
	exit 1
fi
if grep -q "^$merge " <<<"$jobs" && ! grep -q "^$merge COMPLETED " <<<"$jobs"; then
	say "the merge job did not complete: see $out/run/logs/merge.out"
	exit 1
fi
[ -s "$out/run/bench.json" ] || { say "the merge wrote no $out/run/bench.json: see $out/run/logs/"; exit 1; }

# identical but for the measured times (any key naming time, us_per, seconds or wall) and
# the figures the merge lists
untimed='walk(if type == "object" then with_entries(select(.key | test("time|us_per|seconds|wall") | not)) else . end) | del(.figures)'
jq -S "$untimed" "$out/single.json" >"$out/single.untimed.json"
jq -S "$untimed" "$out/run/bench.json" >"$out/merged.untimed.json"
printf 'wall time: %.1f s in one process; %.1f s submitted as %d shards and the merge, until both jobs were done\n' \
	"$(bc <<<"$t1 - $t0")" "$(bc <<<"$t2 - $t1")" "$shards"
if ! diff -u "$out/single.untimed.json" "$out/merged.untimed.json" >"$out/diff.txt"; then
	head -40 "$out/diff.txt" >&2
	say "the merged JSON differs from the single run's: the whole diff is $out/diff.txt${made:+ (a temporary folder: --keep keeps it)}"
	exit 1
fi
echo "verify-slurm: OK: the merge of $shards Slurm array tasks equals the one-process run ($(jq '.cells | length' "$out/single.json" 2>/dev/null || echo '?') cells)"
