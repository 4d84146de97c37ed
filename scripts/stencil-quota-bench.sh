#!/usr/bin/env bash
# Compares seed 002's pipeline, a model steering Algorithm 2's sampling before mpga (10%
# of the space, the paper's, and 30%), with plain mpga, with the same sampling unsteered
# (ar=0: each optimisation combination drawn in proportion to its size) and with random
# search, and the steered sampling with seed 002's encoding of the sample (reindex) as
# well as the default (nearest), replaying the recorded stencil spaces
# (scripts/stencil-dataset.sh) in 'ktune simulate'. Each stencil is held out in turn: the
# model is trained on the other recordings. Prints one line per stencil, strategy and
# budget: the mean fraction of the optimum over REPEATS runs and the mean evaluations used.
#
#   scripts/stencil-quota-bench.sh [DIR] [REPEATS] [BUDGETS]   (KTUNE: the ktune binary)
set -euo pipefail
dir=${1:-stencil/testdata/measured}
repeats=${2:-50}
budgets=${3:-"8 16 32 64"}
ktune=${KTUNE:-ktune}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'stencil\tstrategy\tbudget\tfraction\tevaluations\n'
for rec in "$dir"/*.json.gz; do
	name=$(basename "$rec" .json.gz)
	others=()
	for o in "$dir"/*.json.gz; do [ "$o" = "$rec" ] || others+=("$o"); done
	"$ktune" stencil train "${others[@]}" -o "$work/model.json" >/dev/null
	m="model=$work/model.json;stencil=$name"
	for st in random mpga "mpga:sample=quota;ar=0;$m" "mpga:sample=quota;$m" \
		"mpga:sample=quota;ratio=0.3;ar=0;$m" "mpga:sample=quota;ratio=0.3;$m" \
		"mpga:sample=quota;encoding=reindex;$m" "mpga:sample=quota;ratio=0.3;encoding=reindex;$m"; do
		for b in $budgets; do
			"$ktune" simulate "$rec" --mode recorded --strategy "$st" --budget "$b" --repeats "$repeats" --seed 1 |
				awk -v n="$name" -v s="${st%%;model=*}" -v b="$b" '
					/fraction of optimum/ { f = $5 }
					/evaluations used/ { e = $4 }
					END { printf "%s\t%s\t%s\t%s\t%s\n", n, s, b, f, e }'
		done
	done
done
