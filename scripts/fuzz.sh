#!/usr/bin/env bash
# Runs each fuzz target given as PKG:NAME for FUZZTIME, or, where FUZZTIME is not set, for
# an equal share of FUZZBUDGET (default 110s, whole seconds, for all the targets together,
# at least 5s each): the step takes the time it is given, not 20 s more for every target
# added. A finding (a written failing input, a panic or a test error) fails at once. A bare "context deadline
# exceeded" at the end of the time window, with no failing input, is Go's fuzz
# coordinator racing its own deadline (go.dev/issue/75804, fixed in Go 1.27): that target
# runs once more, and fails only if it happens again.
set -uo pipefail
go=${GO:-go}
fuzztime=${FUZZTIME:-}
if [ -z "$fuzztime" ]; then
	budget=${FUZZBUDGET:-110s}
	seconds=${budget%s}
	if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$#" = 0 ]; then
		echo "fuzz: FUZZBUDGET=$budget is not a number of seconds such as 110s, or no targets were given (PKG:NAME ...)" >&2
		exit 2
	fi
	share=$((seconds / $#))
	fuzztime=$((share < 5 ? 5 : share))s
	echo "fuzz: $# targets, ${fuzztime} each (FUZZBUDGET=$budget; FUZZTIME sets one time for each)"
fi
for t in "$@"; do
	pkg=${t%%:*}
	name=${t##*:}
	for try in 1 2; do
		echo "fuzz $pkg $name ($fuzztime)"
		log=$(mktemp)
		"$go" test -run='^$' -fuzz="^$name\$" -fuzztime="$fuzztime" -fuzzminimizetime=5s "$pkg" 2>&1 | tee "$log"
		status=${PIPESTATUS[0]}
		if [ "$status" = 0 ]; then
			rm -f "$log"
			break
		fi
		if [ "$try" = 1 ] && grep -q 'context deadline exceeded' "$log" &&
			! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' "$log"; then
			echo "fuzz $pkg $name: the coordinator's deadline race (go.dev/issue/75804), no failing input: running it again" >&2
			rm -f "$log"
			continue
		fi
		rm -f "$log"
		exit 1
	done
done
