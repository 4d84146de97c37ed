#!/usr/bin/env bash
# Runs one `ktune bench` as a Slurm array job, one shard of its cells per task
# (`ktune bench ... --shard $SLURM_ARRAY_TASK_ID/N`), and merges the shards' outputs in a
# job that starts when every task has succeeded (`ktune bench ... --merge --resume PART...`):
# the tables, JSON, CSV and figures are those of the same benchmark run on one machine.
#
# usage: scripts/slurm-bench.sh [-n N] [-o DIR] [--ktune PATH] [--sbatch 'OPTIONS']
#                               [--submit | --local] -- BENCH_ARGS...
#   BENCH_ARGS      what defines the benchmark, as for `ktune bench`: recordings or folders,
#                   --strategies, --budgets, --repeats, --seed, --mode, --fitness,
#                   --defaults, --workers, --maximize...; not the outputs (--json, --csv,
#                   --plot, --checkpoint, --resume, --shard, --merge), which this sets
#   -n, --shards N  shards, one per array task (default 4)
#   -o, --out DIR   where the job scripts, parts, logs and results go (default
#                   bench-slurm); on a file system every node sees
#   --ktune PATH    the ktune every node runs (default: built from this repository into
#                   DIR/ktune)
#   --sbatch OPTS   options for both sbatch calls, e.g. '--partition=cpu --time=2:00:00
#                   --cpus-per-task=16' (ktune runs on the CPUs the task is given)
#   --submit        submit: the array job, then the merge with --dependency=afterok,
#                   cancelled if a task fails (--kill-on-invalid-dep=yes) rather than left
#                   pending; scripts/verify-slurm.sh checks this under a real Slurm
#   --local         run the N tasks here at once as processes, with SLURM_ARRAY_TASK_ID
#                   set as Slurm sets it, then the merge: the same scripts, no Slurm
#   (neither)       write DIR/shard.sbatch and DIR/merge.sbatch and say how to submit them
#
# Results: DIR/bench.txt (tables), DIR/bench.json, DIR/bench.csv, DIR/figures/; the parts
# DIR/part-K-of-N.json, logs in DIR/logs/. A task that fails or is requeued goes on from its
# checkpoint (DIR/part-K-of-N.checkpoint.json) when run again.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
shards=4 out=bench-slurm ktune="" sbatch_opts="" action=write
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
die() { echo "slurm-bench: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	-n | --shards) shards=${2:?}; shift 2 ;;
	-o | --out) out=${2:?}; shift 2 ;;
	--ktune) ktune=${2:?}; shift 2 ;;
	--sbatch) sbatch_opts=${2?}; shift 2 ;;
	--submit) action=submit; shift ;;
	--local) action=local; shift ;;
	-h | --help) usage ;;
	--) shift; break ;;
	*) die "unknown option $1 (the benchmark's arguments come after --)" ;;
	esac
done
[ $# -gt 0 ] || die "give the benchmark's arguments after --: recordings, --strategies, --budgets ..."
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "--shards $shards: give a number of 1 or more"
for a in "$@"; do
	case $a in
	--json | --json=* | --csv | --csv=* | --plot | --plot=* | --checkpoint | --checkpoint=* | \
		--resume | --resume=* | --shard | --shard=* | --merge | --merge=* | --progress | --progress=*)
		die "$a: this script sets the outputs of the shards and of the merge; leave it out" ;;
	esac
done

mkdir -p "$out/logs"
out=$(cd "$out" && pwd) # the tasks run on other nodes, maybe in another folder
if [ -z "$ktune" ]; then
	(cd "$repo" && go build -o "$out/ktune" ./cmd/ktune)
	ktune=$out/ktune
fi
ktune=$(cd "$(dirname "$ktune")" && pwd)/$(basename "$ktune")
[ -x "$ktune" ] || die "--ktune $ktune: not an executable"

# the benchmark's arguments, quoted for the job scripts
bench=$(printf '%q ' "$@")
workdir=$(printf '%q' "$PWD") # recordings given relative to here
q() { printf '%q' "$1"; }

cat >"$out/shard.sbatch" <<EOF
#!/usr/bin/env bash
#SBATCH --job-name=ktune-bench
#SBATCH --array=1-$shards
#SBATCH --output=$(q "$out")/logs/shard-%a.out
#SBATCH --chdir=$workdir
# one shard of the benchmark: written by scripts/slurm-bench.sh
set -euo pipefail
cd $workdir
k=\${SLURM_ARRAY_TASK_ID:?run this as a Slurm array task: sbatch $(q "$out")/shard.sbatch}
n=$shards
part=$(q "$out")/part-\$k-of-\$n.json
ckpt=$(q "$out")/part-\$k-of-\$n.checkpoint.json
resume=()
if [ -s "\$ckpt" ]; then
	resume=(--resume "\$ckpt") # run before (requeued, failed): go on from its checkpoint
fi
$(q "$ktune") bench $bench--shard "\$k/\$n" --checkpoint "\$ckpt" \${resume[@]+"\${resume[@]}"} --json >"\$part.tmp"
mv "\$part.tmp" "\$part"
echo "shard \$k/\$n: \$part"
EOF

cat >"$out/merge.sbatch" <<EOF
#!/usr/bin/env bash
#SBATCH --job-name=ktune-bench-merge
#SBATCH --output=$(q "$out")/logs/merge.out
#SBATCH --chdir=$workdir
# the merge of the shards' outputs: written by scripts/slurm-bench.sh
set -euo pipefail
cd $workdir
out=$(q "$out")
n=$shards
parts=() missing=()
for k in \$(seq 1 \$n); do
	if [ -s "\$out/part-\$k-of-\$n.json" ]; then
		parts+=(--resume "\$out/part-\$k-of-\$n.json")
	else
		missing+=("\$k")
	fi
done
if [ \${#missing[@]} -gt 0 ]; then
	echo "merge: no output of shard(s) \${missing[*]} of \$n (see \$out/logs/shard-K.out); run them again: sbatch --array=\$(IFS=,; echo "\${missing[*]}") \$out/shard.sbatch" >&2
	exit 1
fi
$(q "$ktune") bench $bench--merge "\${parts[@]}" --json --csv "\$out/bench.csv" --plot "\$out/figures" >"\$out/bench.json.tmp"
mv "\$out/bench.json.tmp" "\$out/bench.json"
$(q "$ktune") bench $bench--merge "\${parts[@]}" >"\$out/bench.txt"
echo "merged \$n shards: \$out/bench.txt, \$out/bench.json, \$out/bench.csv, \$out/figures"
EOF
chmod +x "$out/shard.sbatch" "$out/merge.sbatch"

case $action in
write)
	echo "wrote $out/shard.sbatch ($shards array tasks) and $out/merge.sbatch; submit them with"
	echo "  job=\$(sbatch --parsable $sbatch_opts $out/shard.sbatch)"
	echo "  sbatch --dependency=afterok:\${job%%;*} --kill-on-invalid-dep=yes $sbatch_opts $out/merge.sbatch"
	echo "(or run this script again with --submit)"
	;;
submit)
	command -v sbatch >/dev/null || die "sbatch is not here: run on a Slurm login node, or use --local"
	# shellcheck disable=SC2086 # the options are words
	job=$(sbatch --parsable $sbatch_opts "$out/shard.sbatch")
	job=${job%%;*} # JOBID;CLUSTER on a federation
	# a task that fails leaves the merge's dependency never met: the merge is then cancelled
	# rather than left pending for ever (DependencyNeverSatisfied)
	# shellcheck disable=SC2086
	merge=$(sbatch --parsable --dependency="afterok:$job" --kill-on-invalid-dep=yes $sbatch_opts "$out/merge.sbatch")
	echo "submitted array job $job ($shards shards) and merge job ${merge%%;*} after it; results in $out"
	echo "if a task fails the merge is cancelled: run the failed tasks again (sbatch --array=K,... $out/shard.sbatch, each going on from its checkpoint), then the merge (sbatch --dependency=afterok:JOB $out/merge.sbatch)"
	;;
local)
	start=$(date +%s.%N)
	pids=()
	for k in $(seq 1 "$shards"); do
		SLURM_ARRAY_TASK_ID=$k bash "$out/shard.sbatch" >"$out/logs/shard-$k.out" 2>&1 &
		pids+=($!)
	done
	failed=()
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || failed+=("$((i + 1))")
	done
	if [ ${#failed[@]} -gt 0 ]; then
		echo "slurm-bench: shard(s) ${failed[*]} of $shards failed: see $out/logs/shard-K.out" >&2
		exit 1
	fi
	bash "$out/merge.sbatch" >"$out/logs/merge.out" 2>&1 || {
		cat "$out/logs/merge.out" >&2
		exit 1
	}
	cat "$out/logs/merge.out"
	echo "wall time: $(echo "$(date +%s.%N) - $start" | bc) s for $shards shards run here at once and the merge"
	;;
esac
