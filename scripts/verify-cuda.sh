#!/usr/bin/env bash
# Verifies the CUDA backend on a machine with an NVIDIA GPU and prints the figures that
# BENCHMARKS.md records: the device, every CUDA test (with the runner's reset tests, its
# test of a kernel that writes past an array, and the OpenCL backend's tests on the GPU's
# own OpenCL driver), launch overhead, NVRTC compile
# time and the runner's framework overhead, GEMM and convolution tuned (best GFLOP/s and configuration, framework overhead and
# compile time per evaluation), GEMM's energy efficiency, and the best GEMM against the
# device's FP32 peak (SMs x FP32 lanes per SM x 2 x boost clock).
#
# The CUDA tests include those of features first built on the stand-in driver
# (device/cuda/testdata/fakedriver.c), which only a GPU can confirm (all passed on an H200
# on 2026-11-27, after three fixes that run called for):
#   device/cuda   TestHalfArraysThroughCUDAFP16 (__half arrays and scalar, cuda_fp16.h from
#                 the toolkit's include folder, which the backend gives NVRTC)
#                 TestFunctionsOfOneSourceRunAsATimedSequence (CompileFunctions: one module;
#                 RunSequence: results, per-launch dynamic shared memory, the sequence's time
#                 against its launches' own)
#                 TestCompileFunctionsNamesAFunctionTheSourceLacks (FunctionError from NVRTC)
#   cmd/ktune     TestTuneCUDALaunchesWithRepeatAndSwapOnTheGPU (launches with repeat, swap
#                 and their own shared memory, checked by a C reference)
#                 TestTuneCUDAVerifiedByACFunctionOnTheGPU (a C verification function)
#                 TestTuneCUDAShowsNVRTCWarningsOnceOnTheGPU (compiler_warnings in --json)
#                 TestTuneCUDAHalfArraysOnTheGPU (float16 arrays through a spec)
#   and the stand-in tests themselves (TestTuneCUDA...ThroughTheStandInDriver and the
#   others of cmd/ktune/cuda_fake_test.go), which need only a C compiler.
#
#   scripts/verify-cuda.sh [BUDGET]        build with Go, then verify (default budget 200
#                                          configurations per example)
#   scripts/verify-cuda.sh --build DIR     only build ktune and the CUDA test binaries into
#                                          DIR (CGO_ENABLED=0), for a GPU machine without Go
#   KTUNE_VERIFY_BIN=DIR scripts/verify-cuda.sh [BUDGET]
#                                          verify with the binaries of --build (gzipped or not)
#
# Environment: KTUNE_VERIFY_OUT (reports and logs, default cuda-out), KTUNE_VERIFY_ENERGY_BUDGET
# (the GFLOPS/W run, default BUDGET/2), KTUNE_VERIFY_TIME (time limit of each tuning run,
# default 3m), KTUNE_VERIFY_TEST_TIME (seconds each test binary may run, default 300).
# Every step runs even when one before it failed; the exit status says whether all passed.
# Nothing here changes a device setting.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

build() { # dir
    mkdir -p "$1"
    local flags=(-trimpath -ldflags=-s\ -w)
    CGO_ENABLED=0 go build "${flags[@]}" -o "$1/ktune" ./cmd/ktune &&
        CGO_ENABLED=0 go test -c "${flags[@]}" -o "$1/device_cuda.test" ./device/cuda &&
        CGO_ENABLED=0 go test -c "${flags[@]}" -o "$1/examples.test" ./examples &&
        CGO_ENABLED=0 go test -c "${flags[@]}" -o "$1/cmd_ktune.test" ./cmd/ktune &&
        CGO_ENABLED=0 go test -c "${flags[@]}" -o "$1/runner.test" ./runner &&
        CGO_ENABLED=0 go test -c "${flags[@]}" -o "$1/device_opencl.test" ./device/opencl
}

if [[ ${1:-} == --build ]]; then
    build "${2:?usage: scripts/verify-cuda.sh --build DIR}" || exit 1
    exit 0
fi

budget=${1:-200}
energy_budget=${KTUNE_VERIFY_ENERGY_BUDGET:-$((budget / 2))}
limit=${KTUNE_VERIFY_TIME:-3m}
test_time=${KTUNE_VERIFY_TEST_TIME:-300}
out=${KTUNE_VERIFY_OUT:-cuda-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$out/bin
if [[ -n ${KTUNE_VERIFY_BIN:-} ]]; then
    mkdir -p "$bin"
    for f in "$KTUNE_VERIFY_BIN"/*; do
        case $f in
        *.gz) gunzip -c "$f" >"$bin/$(basename "$f" .gz)" ;;
        *) cp "$f" "$bin/" ;;
        esac
    done
    chmod +x "$bin"/*
else
    build "$bin" || exit 1
fi
ktune=$bin/ktune
failed=()
step() { # name command...: runs the command, remembers a failure
    local name=$1
    shift
    if ! "$@"; then
        failed+=("$name")
        echo "!! $name failed"
    fi
}
# The modules NVRTC compiles go to a fresh cache, so compile times are cold.
export KTUNE_CUDA_CACHE=$out/module-cache

echo "== device"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv 2>&1 | tee "$out/nvidia-smi.txt"
"$ktune" devices --json >"$out/devices.json"
if ! python3 - "$out/devices.json" <<'PY'; then
import json, sys
for b in json.load(open(sys.argv[1])):
    if b["backend"] == "cuda":
        if not b["available"]:
            print("CUDA unavailable:", b.get("reason", "?")); sys.exit(1)
        for d in b["devices"]:
            print(d["name"], "|", d.get("version"), "|", d.get("driver"), "| NVRTC", d["extra"].get("nvrtc"),
                  "| target", d["extra"].get("target"), "|", d.get("compute_units"), "SMs,", d.get("clock_mhz"), "MHz")
PY
    "$ktune" devices
    exit 1
fi

# The test binaries run in their package's directory (their test data is found from there);
# the suites run side by side.
gotest() { # package binary log args...
    local pkg=$1 exe=$2 log=$3
    shift 3
    (cd "$root/$pkg" && timeout "$test_time" "$bin/$exe" -test.count=1 -test.v "$@") >"$out/$log" 2>&1
}
echo "== CUDA tests"
gotest device/cuda device_cuda.test test-device.log &
p1=$!
gotest examples examples.test test-examples.log -test.run 'CUDA' &
p2=$!
gotest cmd/ktune cmd_ktune.test test-cmd.log -test.run 'TestFaultyKernels|CUDA' &
p3=$!
gotest runner runner.test test-runner.log -test.run 'InitialContents|Inline|CUDAKernelThatWritesPast' &
p4=$!
gotest device/opencl device_opencl.test test-opencl.log &
p5=$!
wait $p1 || failed+=("device/cuda tests")
wait $p2 || failed+=("examples CUDA tests")
wait $p3 || failed+=("cmd/ktune tests (faulty kernels, CUDA tuning on the GPU and the stand-in)")
wait $p4 || failed+=("runner reset and overrun tests")
wait $p5 || failed+=("device/opencl tests (the GPU's OpenCL driver)")
for log in test-device.log test-examples.log test-cmd.log test-runner.log test-opencl.log; do
    grep -E '^(=== NAME|    --- |--- |ok|FAIL|PASS|panic)|W, |configurations in|FAULT|launches alone|best sequence|NVRTC warned|going on with -I' "$out/$log"
done

echo "== launch overhead and NVRTC compile time"
step benchmarks gotest device/cuda device_cuda.test bench.txt -test.run '^$' -test.bench . -test.benchtime 1s
step "framework overhead" gotest runner runner.test bench-runner.txt -test.run '^$' -test.bench FrameworkOverhead -test.benchtime 40x -test.count 3
grep -E '^(Benchmark|FAIL|panic)' "$out/bench.txt" "$out/bench-runner.txt"

tune() { # spec name budget
    local rc=0
    "$ktune" tune "$1" --budget "$3" --time "$limit" --db "$out/ktune.db" --json >"$out/$2.json" 2>"$out/$2.err" || rc=$?
    tail -3 "$out/$2.err"
    python3 - "$out/$2.json" <<'PY' || rc=1
import json, sys
r = json.load(open(sys.argv[1]))
print(f'{r["kernel"]} on {r["device"]}: {r["evaluations"]} evaluations, statuses {r["statuses"]}, stop {r["stop"]!r}, '
      f'{r["wall_seconds"]:.1f} s, worker restarts {r["worker_restarts"]}')
print(f'  best {r.get("objective")} = {r.get("best_objective")} at {r.get("best_configuration")}')
print(f'  per evaluation: compile {r["mean_compile_ms"]:.1f} ms, verify {r["mean_verify_ms"]:.1f} ms, '
      f'framework {r["mean_framework_ms"]:.2f} ms (median {r["median_framework_ms"]:.2f}); best metrics {r.get("best_metrics")}')
if r.get("best_objective") is None:
    sys.exit("no configuration ran correctly")
PY
    return $rc
}
echo "== tuning"
step "tune GEMM" tune examples/gemm/gemm_cuda.yaml gemm "$budget"
step "tune convolution" tune examples/convolution/convolution_cuda.yaml convolution "$budget"

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
step "tune GEMM for GFLOPS/W" tune "$tmp/gemm_cuda.yaml" gemm-energy "$energy_budget"
rm -rf "$tmp"

echo "== best GEMM against the FP32 peak"
smclock=$(nvidia-smi --query-gpu=clocks.max.sm --format=csv,noheader,nounits 2>/dev/null | head -1 || true)
step "FP32 peak" python3 - "$out/devices.json" "$out/gemm.json" "${smclock:-0}" <<'PY'
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

if ((${#failed[@]})); then
    printf '== FAILED: %s\n' "${failed[@]}"
    exit 1
fi
echo "== all passed"
