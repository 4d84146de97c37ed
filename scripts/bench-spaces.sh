#!/usr/bin/env bash
# Space construction figures for BENCHMARKS.md: each space is built in 3 fresh processes
# (the first build of each is the cold figure, as Kernel Tuner's are measured), each
# process then builds it 7 times for the warm figures; peak RSS is the process's VmHWM.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/ktune ./cmd/ktune
printf '| space | product | valid | cold build (median of 3 processes) | warm build (fastest) | peak RSS | index size |\n| --- | --- | --- | --- | --- | --- | --- |\n'
for f in testdata/t1/cltune_gemm_full.json testdata/t1/benchmark_hub/hotspot_milo.json \
	testdata/t1/bat/hotspot-CAFF.json testdata/t1/benchmark_hub/dedispersion_milo.json \
	testdata/t1/benchmark_hub/convolution_milo.json testdata/t1/benchmark_hub/gemm_milo.json; do
	for k in 1 2 3; do bin/ktune space --time --repeat 7 --json "$f"; done | python3 -c '
import json, sys
dec, text, runs = json.JSONDecoder(), sys.stdin.read(), []
i = 0
while i < len(text):
    text = text[i:].lstrip(); 
    if not text: break
    d, i = dec.raw_decode(text); runs.append(d)
first = sorted(r["first_ms"] for r in runs)[1]
fast = min(r["fastest_ms"] for r in runs)
rss = max(r["peak_rss_mib"] for r in runs)
d = runs[0]
print("| %s | %s | %s | %.3f ms | %.3f ms | %.1f MiB | %.1f bytes/valid |" % (d["file"], format(int(d["product"]), ","), format(d["valid"], ","), first, fast, rss, d["index_bytes"] / d["valid"]))
'
done
