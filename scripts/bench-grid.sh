#!/usr/bin/env bash
# The whole strategy grid of the strategy issue's speed goal: every strategy x every
# recorded space under DATA_DIR x 7 budgets x 50 repeats, in one `ktune bench` on all cores;
# prints ktune's table (with the cost per evaluation of each strategy) and the wall time.
#
# usage: scripts/bench-grid.sh [DATA_DIR] [STRATEGIES] [MODE]
#   DATA_DIR   recorded spaces, searched recursively for Kernel Tuner, T4 and KTT files
#              (default ../shared/data/spaces)
#   STRATEGIES comma-separated (default: every search strategy without a surrogate model
#              (bayes, smac and auto, which runs bayes, are left out) but bruteforce;
#              saltelli, a sampling design for sensitivity analysis, is left out too)
#   MODE       cartesian (default) or recorded
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data/spaces}
go build -o bin/ktune ./cmd/ktune
strategies=${2:-$(bin/ktune help strategies | awk '/^[a-z]/ && $1 !~ /^(bruteforce|bayes|smac|auto|saltelli)$/ {printf "%s%s", sep, $1; sep=","}')}
mode=${3:-cartesian}
echo "every recorded space under $data; strategies: $strategies; mode $mode" >&2
start=$(date +%s.%N)
bin/ktune bench "$data" --strategies "$strategies" --repeats 50 --mode "$mode" \
	--budgets 25,50,100,200,400,800,1600
echo "grid wall time: $(echo "$(date +%s.%N) - $start" | bc) s" >&2
