#!/usr/bin/env bash
# Records stencil/testdata/measured: the whole space of each of a few generated 2D stencils
# ('ktune stencil generate', 1024^2 doubles, 5 timed runs per configuration), measured by
# 'ktune tune --strategy bruteforce' on the first OpenCL device (PoCL here) and exported
# as a gzipped Kernel Tuner cache named after the stencil. The stencil model's tests train
# on these recordings and 'ktune simulate' replays them.
#
#   scripts/stencil-dataset.sh [OUT_DIR]     (KTUNE: the ktune binary, default: ktune)
set -euo pipefail
out=${1:-stencil/testdata/measured}
ktune=${KTUNE:-ktune}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shape order seed: random stencils of every order up to 4 (Algorithm 1), and a star and
# a box for the common shapes
for s in "random 1 11" "random 2 12" "random 3 13" "random 4 14" "star 3 1" "random 2 15" "box 2 1" "random 3 16"; do
	read -r shape order seed <<<"$s"
	name="${shape}2d${order}r"
	[ "$shape" = random ] && name="${name}_s${seed}"
	[ -e "$out/$name.json.gz" ] && continue
	"$ktune" stencil generate --dim 2 --shape "$shape" --order "$order" --seed "$seed" \
		--size 1024,1024 --iterations 5 -o "$work/$name.yaml"
	"$ktune" tune "$work/$name.yaml" --strategy bruteforce --seed 1 --device opencl:0 \
		--db "$work/$name.db" --json >"$work/$name.summary.json"
	"$ktune" export --run 1 --db "$work/$name.db" --format kerneltuner -o "$work/$name.cache.json"
	gzip -9c "$work/$name.cache.json" >"$out/$name.json.gz"
	echo "recorded $out/$name.json.gz" >&2
done
