#!/usr/bin/env bash
# Verifies the CUDA backend on a machine with an NVIDIA GPU and prints the figures that
# BENCHMARKS.md records: the device, every CUDA test, launch overhead and NVRTC compile
# time, GEMM and convolution tuned (best GFLOP/s and configuration, framework overhead and
# compile time per evaluation), GEMM's energy efficiency, and the best GEMM against the
# device's FP32 peak (SMs x FP32 lanes per SM x 2 x boost clock).
#
#   scripts/verify-cuda.sh [BUDGET]     (default 200 configurations per example)
#
# Output goes to stdout and to cuda-out/ (JSON reports, test logs). Nothing here changes a
# device setting.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-200}
out=cuda-out
mkdir -p "$out"
CGO_ENABLED=0 go build -o "$out/ktune" ./cmd/ktune
ktune="$out/ktune"

echo "== device"
"$ktune" devices --json > "$out/devices.json"
if ! python3 - "$out/devices.json" <<'PY'
import json, sys
for b in json.load(open(sys.argv[1])):
    if b["backend"] == "cuda":
        if not b["available"]:
            print("CUDA unavailable:", b.get("reason", "?")); sys.exit(1)
        for d in b["devices"]:
            print(d["name"], "|", d.get("version"), "|", d.get("driver"), "| NVRTC", d["extra"].get("nvrtc"),
                  "| target", d["extra"].get("target"), "|", d.get("compute_units"), "SMs,", d.get("clock_mhz"), "MHz")
PY
then
    exit 1
fi

echo "== CUDA tests"
go test -count=1 -v ./device/cuda 2>&1 | tee "$out/test-device.log" | grep -E '^(--- |ok|FAIL)|W, '
go test -count=1 -v -run 'CUDA|Cuda' ./examples 2>&1 | tee "$out/test-examples.log" | grep -E '^(--- |ok|FAIL)'
go test -count=1 -v -run 'TestFaultyKernels' ./cmd/ktune 2>&1 | tee "$out/test-faulty.log" | grep -E '^(    --- |--- |ok|FAIL)'

echo "== launch overhead and NVRTC compile time"
go test -run '^$' -bench . -benchtime 2s ./device/cuda | tee "$out/bench.txt" | grep -E '^Benchmark'

tune() { # spec, name
    "$ktune" tune "$1" --budget "$budget" --db "$out/ktune.db" --json > "$out/$2.json"
    python3 - "$out/$2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f'{r["kernel"]} on {r["device"]}: {r["evaluations"]} evaluations, statuses {r["statuses"]}, {r["wall_seconds"]:.1f} s')
print(f'  best {r.get("objective")} = {r.get("best_objective")} at {r.get("best_configuration")}')
print(f'  per evaluation: compile {r["mean_compile_ms"]:.1f} ms, verify {r["mean_verify_ms"]:.1f} ms, '
      f'framework {r["mean_framework_ms"]:.2f} ms (median {r["median_framework_ms"]:.2f}); best metrics {r.get("best_metrics")}')
PY
}
echo "== tuning"
tune examples/gemm/gemm_cuda.yaml gemm
tune examples/convolution/convolution_cuda.yaml convolution

echo "== energy: GEMM with GFLOPS/W as the objective"
tmp=$(mktemp -d)
cp examples/gemm/* "$tmp/"
python3 - "$tmp/gemm_cuda.yaml" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = re.sub(r'(?m)^objective: .*$', '', s)
s = s.replace('metrics:\n', 'metrics:\n  - {name: GFLOPS/W, expr: "2 * M * N * K / (time / 1e3) / 1e9 / power", maximize: true}\n', 1)
s += '\nobjective: GFLOPS/W\n'
open(p, 'w').write(s)
PY
tune "$tmp/gemm_cuda.yaml" gemm-energy
rm -rf "$tmp"

echo "== best GEMM against the FP32 peak"
smclock=$(nvidia-smi --query-gpu=clocks.max.sm --format=csv,noheader,nounits 2>/dev/null | head -1 || true)
python3 - "$out/devices.json" "$out/gemm.json" "${smclock:-0}" <<'PY'
import json, sys
devs = [d for b in json.load(open(sys.argv[1])) if b["backend"] == "cuda" for d in b["devices"]]
d = devs[0]
cc = d["extra"]["compute_capability"]
lanes = {"7.0": 64, "7.2": 64, "7.5": 64, "8.0": 64}.get(cc, 128)  # FP32 lanes per SM
clock = d.get("clock_mhz") or float(sys.argv[3].strip() or 0)  # CUDA 12+ may not report it
d["clock_mhz"] = clock
if not clock:
    sys.exit("the SM clock is unknown: no FP32 peak")
peak = d["compute_units"] * lanes * 2 * clock / 1e3
best = json.load(open(sys.argv[2])).get("best_objective")
print(f'{d["name"]} (sm {cc}): FP32 peak ~{peak:.0f} GFLOP/s ({d["compute_units"]} SMs x {lanes} lanes x 2 x {d["clock_mhz"]} MHz); '
      f'best GEMM {best:.0f} GFLOP/s = {100 * best / peak:.1f}% of peak')
PY
