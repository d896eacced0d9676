#!/usr/bin/env bash
# gpu-check.sh — everything about the CUDA backend that needs a real GPU, in
# one command: the -tags cuda tests of package cuda (the conformance suite of
# backend/backendtest, the device-resident operations, stochastic KMP end to
# end against the pure-Go backend), the engine's tests with the CUDA backend
# chosen, and the benchmarks (kernel blocks as a fraction of the device's FP32
# peak, dictionary passes as a fraction of its measured copy bandwidth, the
# standard backendtest set against the pure-Go backend on all cores, sparse
# kernel rows on rcv1's shape against the AVX2 backend, and the stochastic KMP
# speed-up at l = 200000).
#
#   bash scripts/gpu-check.sh            build (needs the toolkit, see below), then run
#   bash scripts/gpu-check.sh build      only build the test binaries into $BIN
#   bash scripts/gpu-check.sh run        only run binaries built before (on the GPU
#                                        machine: it needs nothing but the NVIDIA driver)
#
# The binaries go to $PURSUIT_GPU_BIN (default .gpu-bin in the repository,
# which git ignores), so a machine without a GPU can build them and a GPU
# machine without network or toolkit can run them. Building uses
# scripts/cuda-toolkit.sh (Debian's CUDA 11.8, cached outside the
# repository). Set PURSUIT_GPU_QUICK=1 to skip the long benchmarks,
# PURSUIT_GPU_BENCH=0 to run the tests only.
# Results are printed and also written to $BIN/results.txt.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
BIN="${PURSUIT_GPU_BIN:-$REPO/.gpu-bin}"
MODE="${1:-all}"
T0=$SECONDS
step() { printf '\n-- gpu-check: %s (%ds)\n' "$*" $((SECONDS - T0)); }
fail() {
	printf 'gpu-check: FAILED: %s\n' "$*" >&2
	exit 1
}

build() {
	step "build the -tags cuda test binaries into $BIN"
	eval "$(bash scripts/cuda-toolkit.sh)"
	mkdir -p "$BIN"
	go test -tags cuda -c -o "$BIN/cuda.test" ./cuda
	[ -d engine ] && go test -tags cuda -c -o "$BIN/engine.test" ./engine
	ls -l "$BIN"
}

# logged WHAT DIR CMD...: run CMD in DIR (test binaries run in their package
# directory, as go test does), show and keep its output, fail on error.
logged() {
	local what=$1 dir=$2
	shift 2
	if ! (cd "$dir" && "$@" 2>&1) | tee -a "$BIN/results.txt" | grep -vE '^=== (RUN|PAUSE|CONT)'; then
		fail "$what"
	fi
}

run() {
	[ -x "$BIN/cuda.test" ] || fail "$BIN/cuda.test missing: run 'bash scripts/gpu-check.sh build' first (on any machine with the toolkit)"
	step "device"
	if command -v nvidia-smi >/dev/null; then
		nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv || true
	else
		echo "nvidia-smi not found; the test binary will say whether the driver finds a device"
	fi
	: >"$BIN/results.txt"
	step "package cuda: conformance, resident operations, stochastic KMP end to end"
	logged "cuda tests" cuda "$BIN/cuda.test" -test.count=1 -test.v -test.timeout 30m

	if [ -x "$BIN/engine.test" ]; then
		step "package engine with the CUDA backend chosen (PURSUIT_BACKEND=cuda)"
		logged "engine tests with PURSUIT_BACKEND=cuda" engine env PURSUIT_BACKEND=cuda "$BIN/engine.test" -test.count=1
	fi

	if [ "${PURSUIT_GPU_BENCH:-1}" = 0 ]; then
		step "done: tests passed (benchmarks skipped: PURSUIT_GPU_BENCH=0)"
		return
	fi
	step "benchmarks: device limits and device-resident operations"
	logged "resident benchmarks" cuda "$BIN/cuda.test" -test.run '^$' -test.bench 'DeviceLimits|Resident' -test.benchtime 20x

	step "benchmark: sparse kernel rows on rcv1's shape (K(X[idx], X), 64 and 1024 rows), cuda plain and prepared vs avx2"
	logged "sparse kernel-row benchmark" cuda "$BIN/cuda.test" -test.run '^$' -test.bench '^BenchmarkSparseGather$' -test.benchtime 5x

	if [ "${PURSUIT_GPU_QUICK:-0}" != 1 ]; then
		step "benchmarks: the backendtest set on host slices, cuda and pure Go (all cores)"
		logged "backendtest benchmarks" cuda "$BIN/cuda.test" -test.run '^$' -test.bench '^Benchmark(CUDA|GoAll)$' -test.benchtime 5x

		step "benchmark: stochastic KMP at l = 200000, cuda resident vs pure Go (all cores)"
		logged "stochastic KMP benchmark" cuda "$BIN/cuda.test" -test.run '^$' -test.bench 'StochasticKMP200k' -test.benchtime 1x -test.timeout 30m
	fi
	step "done: all GPU checks passed; results in $BIN/results.txt"
}

case "$MODE" in
all)
	build
	run
	;;
build) build ;;
run) run ;;
*) fail "unknown mode '$MODE' (all, build or run)" ;;
esac
