#!/usr/bin/env bash
# Real-device figures for BENCHMARKS.md: `ktune tune` of the GEMM example on PoCL with the
# compile pipeline on and off (cold compiler caches each time: a fresh POCL_CACHE_DIR), in
# alternation, REPEATS times each, with random sampling by default (STRATEGY), so that both
# modes of one seed measure the same configurations. Prints wall time, mean compile time,
# framework overhead (median per evaluation), the best GFLOP/s found and the statuses.
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET=${BUDGET:-40}
REPEATS=${REPEATS:-3}
SPEC=${SPEC:-examples/gemm/gemm.yaml}
STRATEGY=${STRATEGY:-random}
go build -o bin/ktune ./cmd/ktune
printf '| mode | run | wall (s) | mean compile (ms) | framework median (ms) | framework mean (ms) | best GFLOP/s | statuses |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n'
for r in $(seq 1 "$REPEATS"); do
	for mode in pipeline serial; do
		flag=""; [ "$mode" = serial ] && flag="--no-precompile"
		d=$(mktemp -d)
		POCL_CACHE_DIR=$d KTUNE_CACHE=$d bin/ktune tune "$SPEC" --db "$d/k.db" --strategy "$STRATEGY" --budget "$BUDGET" --seed "$r" $flag --json |
			python3 -c "import json,sys; d=json.load(sys.stdin); print('| $mode | $r | %.2f | %.1f | %.2f | %.2f | %.1f | %s |' % (d['wall_seconds'], d['mean_compile_ms'], d['median_framework_ms'], d['mean_framework_ms'], d.get('best_metrics',{}).get('GFLOP/s', float('nan')), ', '.join('%s %d' % kv for kv in sorted(d['statuses'].items()))))"
		rm -rf "$d"
	done
done
