#!/usr/bin/env bash
# Runs 'ktune analyze' end to end on every recorded space in ../shared/data/spaces (both
# simulator modes), writing the figures into analyze-out/ (gitignored), and prints the
# time and peak memory of each full analysis as a Markdown table for BENCHMARKS.md.
# Usage: scripts/analyze-spaces.sh [DATA_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data/spaces}
go build -o bin/ktune ./cmd/ktune
out=analyze-out
mkdir -p "$out"
files=$(find "$data" -name '*.json*' | grep -v -e /kernels/ -e /bat/ -e space.json -e cltune_gemm_space -e kerneltuner_convolution/convolution.json | sort)
printf '| space | mode | points | minima | C_5%% | Sobol method | wall | peak RSS |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n'
for mode in recorded cartesian; do
	for f in $files; do
		name=$(basename "$(dirname "$f")")/$(basename "$f" | sed -e 's/\.gz$//' -e 's/\.json$//')
		dir="$out/$mode/$(echo "$name" | tr '/' '-')"
		mkdir -p "$dir"
		/usr/bin/time -f '%e %M' -o "$dir/time.txt" bin/ktune analyze "$f" --mode "$mode" --plot "$dir" --json >"$dir/analysis.json"
		read -r wall rss <"$dir/time.txt"
		python3 - "$dir/analysis.json" "$name" "$mode" "$wall" "$rss" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["results"][0]
l = d["landscape"]
c5 = [p["c"] for p in l["proportion_of_centrality"] if abs(p["p"] - 0.05) < 1e-9][0]
# no Sobol indices where too few configurations are valid (the analysis warns why)
sobol = d["sobol"]["method"] if d.get("sobol") else "none (%d valid)" % d.get("valid", 0)
print("| %s | %s | %s | %d | %.3f | %s | %.1f s | %.0f MiB |" % (sys.argv[2], sys.argv[3], format(l["points"], ","), l["minima"], c5,
      sobol, float(sys.argv[4]), int(sys.argv[5]) / 1024))
PY
	done
done
