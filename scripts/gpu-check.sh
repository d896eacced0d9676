#!/usr/bin/env bash
# gpu-check.sh — everything about the CUDA backend that needs a real GPU, in
# one command: the -tags cuda tests of package cuda (the conformance suite of
# backend/backendtest, the device-resident operations, stochastic KMP end to
# end against the pure-Go backend), the engine's tests with the CUDA backend
# chosen, and the benchmarks (kernel blocks as a fraction of the device's FP32
# peak, dictionary passes as a fraction of its measured copy bandwidth, the
# standard backendtest set against the pure-Go backend on all cores, sparse
# kernel rows on rcv1's shape against the AVX2 backend, and the stochastic KMP
# speed-up at l = 200000), and the SVM on the covtype-like sets (issue 32):
# its kernel rows in GFLOP/s against the FP32 peak, and training on 50,000
# rows with cuda (batched and auto solvers) against avx2 on one core and on
# all cores, then on 200,000 rows with cuda against avx2 on all cores.
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
# PURSUIT_GPU_BENCH=0 to run the tests only (QUICK keeps the SVM's 50k
# comparison and skips its 200k one).
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
	go build -tags cuda -o "$BIN/pursuit" ./cmd/pursuit
	go test -c -o "$BIN/bench.test" ./bench # writes the covtype-like files
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

# svm_train NAME ROWS ARGS...: trains the SVM on the covtype-like set of
# ROWS training rows (written by the bench binary when missing) with ARGS,
# prints NAME, the training time, the test error and the support vectors,
# and keeps the time and error in SVM_T[NAME] and SVM_E[NAME].
declare -A SVM_T SVM_E
svm_train() {
	local name=$1 rows=$2
	shift 2
	local dir="$BIN/covlike-$rows"
	if [ ! -s "$dir/covlike.train" ]; then
		(cd bench && PURSUIT_COVLIKE_DIR="$dir" PURSUIT_COVLIKE_TRAIN="$rows" "$BIN/bench.test" -test.run '^TestWriteCovtypeLike$' >/dev/null) ||
			fail "writing the $rows-row covtype-like set"
	fi
	local out
	out=$("$BIN/pursuit" train --data "$dir/covlike.train" --test "$dir/covlike.test" --algo svm \
		--gamma 0.125 --c 1 --scale minmax --json --quiet "$@") || fail "svm $name on $rows rows"
	field() { sed -n "s/.*\"$1\":\([0-9.eE+-]*\).*/\1/p" <<<"$out"; }
	SVM_T[$name]=$(field train_seconds)
	SVM_E[$name]=$(field test_error)
	printf '%-28s %8.2f s  test error %.4f  %s SVs\n' "$name ($rows rows)" "${SVM_T[$name]}" "${SVM_E[$name]}" "$(field n_basis)" |
		tee -a "$BIN/results.txt"
}

# svm_ratio A B TARGET: prints time(B)/time(A) against TARGET, and fails
# when A's test error is more than 0.1 point from B's (the same model).
svm_ratio() {
	awk -v a="${SVM_T[$1]}" -v b="${SVM_T[$2]}" -v ea="${SVM_E[$1]}" -v eb="${SVM_E[$2]}" -v na="$1" -v nb="$2" -v t="$3" 'BEGIN {
		printf "%s is %.2f times as fast as %s (target >= %s); test error %.2f%% against %.2f%%\n", na, b / a, nb, t, 100 * ea, 100 * eb
		d = 100 * (ea - eb); if (d < 0) d = -d
		exit d > 0.1
	}' | tee -a "$BIN/results.txt" || fail "$1 and $2 differ by more than 0.1 point of test error"
}

svm_gpu() {
	local all
	all=$(nproc)
	step "benchmark: the SVM's kernel rows on the 50k covtype-like shape, GFLOP/s against the FP32 peak"
	logged "SVM kernel-row benchmark" cuda "$BIN/cuda.test" -test.run '^$' -test.bench '^BenchmarkSVMKernelRows$' -test.benchtime 5x
	step "SVM on the 50k covtype-like set: cuda against avx2 on one core and on all $all"
	svm_train "cuda batched" 50000 --backend cuda --solver batched
	# The same solver with its kernel rows, subproblem and gradient update
	# brought to the host each outer iteration (issue 32's device pool off).
	svm_train "cuda batched, host rows" 50000 --backend cuda --solver batched --host-rows
	svm_train "cuda auto" 50000 --backend cuda
	svm_train "avx2 1 thread" 50000 --backend avx2 --threads 1
	svm_train "avx2 $all threads" 50000 --backend avx2 --threads "$all"
	svm_ratio "cuda batched" "cuda batched, host rows" 1
	svm_ratio "cuda batched" "avx2 1 thread" 10
	svm_ratio "cuda batched" "avx2 $all threads" 3
	svm_ratio "cuda auto" "avx2 $all threads" 3
	if [ "${PURSUIT_GPU_QUICK:-0}" != 1 ]; then
		step "SVM on the 200k covtype-like set: cuda against avx2 on all $all cores"
		svm_train "cuda batched 200k" 200000 --backend cuda --solver batched
		svm_train "avx2 $all threads 200k" 200000 --backend avx2 --threads "$all"
		svm_ratio "cuda batched 200k" "avx2 $all threads 200k" 3
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

	[ -x "$BIN/pursuit" ] || fail "$BIN/pursuit missing: run 'bash scripts/gpu-check.sh build' first"
	svm_gpu

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
