#!/usr/bin/env bash
# cuda-check.sh — the CUDA build check CI runs (from .ci/run) on a machine
# WITHOUT a GPU. It needs Debian (bookworm), root for a first apt-get of
# gcc/g++ if they are missing, and network access to the Debian archive the
# first time (the toolkit is cached outside the repository afterwards).
#
#   1. the default build neither needs nor mentions CUDA: no gorgonia.org/cu
#      among the untagged dependencies, and it builds with CGO_ENABLED=0;
#   2. go vet -tags cuda of every package with cuda-tagged files;
#   3. go build -tags cuda of the command, go test -tags cuda -c of package
#      cuda (and engine): the test binaries link against libcuda.so.1 only
#      (no CUDA runtime, no cuBLAS) and start, then exit at the driver's
#      initialisation as documented when there is no device;
#   4. the PTX regenerated with nvcc 11.8 equals the committed copy, and
#      ptxas assembles it for sm_70, sm_80 and sm_90 without register spills;
#   5. every kernel against float64 references under the CPU emulation of
#      the CUDA execution model (cuda/kernels/emu);
#   6. the -tags cuda test binary itself (conformance suite, resident
#      operations, stochastic KMP end to end) run against a stand-in
#      libcuda.so.1 that executes the same kernels under that emulation
#      (cuda/kernels/emu/fakecuda.cpp): the Go side, gorgonia.org/cu and the
#      argument passing are exercised for real; the PTX and the hardware are
#      not (that is what scripts/gpu-check.sh on a GPU machine is for).
#
# Usage: bash scripts/cuda-check.sh      (prints each step and its time)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
T0=$SECONDS
step() { printf '\n-- cuda-check: %s (%ds)\n' "$*" $((SECONDS - T0)); }
fail() {
	printf 'cuda-check: FAILED: %s\n' "$*" >&2
	exit 1
}
WORK="$(mktemp -d /tmp/cuda-check.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

step "host tools"
missing=()
for tool in gcc g++ apt-get dpkg-deb gpgv cmp; do
	command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || fail "missing ${missing[*]} and not root to install them"
	echo "installing gcc g++ (missing: ${missing[*]})"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends gcc g++ libc6-dev gpgv diffutils >/dev/null
fi
gcc --version | head -1

step "CUDA 11.8 toolkit (Debian non-free, cached outside the repository)"
eval "$(bash scripts/cuda-toolkit.sh)"
echo "toolkit: $PURSUIT_CUDA_ROOT"

step "default build: no CUDA dependency, no cgo needed"
n=$(go list -deps ./... | grep -c '^gorgonia\.org/' || true)
[ "$n" = 0 ] || fail "the untagged build depends on $n gorgonia.org packages: $(go list -deps ./... | grep '^gorgonia\.org/' | tr '\n' ' ')"
CGO_ENABLED=0 go build ./... || fail "CGO_ENABLED=0 go build ./... failed (output above): the default build must build without cgo"
echo "ok: go list -deps ./... has no gorgonia.org package; CGO_ENABLED=0 go build ./... succeeds"

# Packages with files under the cuda build tag: package cuda, engine (the
# hook) and any other that gains one.
mapfile -t TAGGED < <(grep -rlE --include='*.go' '^//go:build .*\bcuda\b' . | xargs -r -n1 dirname | sort -u)
TAGGED+=("./cuda")
mapfile -t TAGGED < <(printf '%s\n' "${TAGGED[@]}" | sort -u)
echo "packages with cuda-tagged files: ${TAGGED[*]}"

step "go vet -tags cuda ${TAGGED[*]}"
go vet -tags cuda "${TAGGED[@]}"

step "go build -tags cuda ./cmd/... and go test -tags cuda -c"
if [ -d cmd ]; then
	go build -tags cuda -o "$WORK/" ./cmd/...
fi
go test -tags cuda -c -o "$WORK/cuda.test" ./cuda
if [ -d engine ]; then
	go test -tags cuda -c -o "$WORK/engine.test" ./engine
fi
ls -l "$WORK"/*.test
needed=$(readelf -d "$WORK/cuda.test" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
echo "cuda.test needs: $needed"
case " $needed " in *" libcuda.so.1 "*) ;; *) fail "cuda.test does not link libcuda.so.1" ;; esac
for lib in $needed; do
	case "$lib" in libcudart* | libcublas* | libnvrtc* | libcudnn*) fail "cuda.test links $lib: the backend must need the driver only" ;; esac
done

step "start-up without a device (Debian's user-space libcuda.so.1 535, no GPU)"
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
	echo "a GPU is present here: skipping (run scripts/gpu-check.sh)"
else
	drv="$(find "$PURSUIT_CUDA_ROOT/usr/lib/x86_64-linux-gnu" -name 'libcuda.so.5*' | head -1)"
	[ -n "$drv" ] || fail "libcuda.so from the libcuda1 package not found in the cache"
	mkdir -p "$WORK/drv"
	ln -s "$drv" "$WORK/drv/libcuda.so.1"
	set +e
	out=$(cd cuda && LD_LIBRARY_PATH="$WORK/drv" timeout 60 "$WORK/cuda.test" -test.run '^$' 2>&1)
	rc=$?
	set -e
	echo "exit status $rc: $out"
	[ $rc = 1 ] && [[ "$out" == *NoDevice* ]] || fail "expected the test binary to load and exit 1 at cuInit with NoDevice"
fi

step "PTX: regenerate with nvcc 11.8 and compare with the committed copy"
bash scripts/cuda-ptx.sh "$WORK/kernels.ptx"
if ! cmp -s "$WORK/kernels.ptx" cuda/kernels/kernels.ptx; then
	diff -u cuda/kernels/kernels.ptx "$WORK/kernels.ptx" | head -40 || true
	fail "cuda/kernels/kernels.ptx differs from kernels.cu compiled now: run go generate ./cuda and commit"
fi
echo "ok: identical ($(wc -l <cuda/kernels/kernels.ptx) lines)"

step "ptxas: assemble the PTX for sm_70, sm_80, sm_90 (no spills allowed)"
PTXAS="$PURSUIT_CUDA_ROOT/usr/bin/ptxas"
for arch in sm_70 sm_80 sm_90; do
	"$PTXAS" -arch=$arch -v -o "$WORK/k_$arch.cubin" cuda/kernels/kernels.ptx >"$WORK/ptxas_$arch.log" 2>&1 ||
		{ cat "$WORK/ptxas_$arch.log"; fail "ptxas -arch=$arch rejected the PTX"; }
	if grep -E 'spill (stores|loads)' "$WORK/ptxas_$arch.log" | grep -vq ' 0 bytes spill stores, 0 bytes spill loads'; then
		grep -B2 -E 'spill' "$WORK/ptxas_$arch.log"
		fail "register spills for $arch"
	fi
	regs=$(grep -o 'Used [0-9]* registers' "$WORK/ptxas_$arch.log" | awk '{print $2}' | sort -n | tail -1)
	echo "$arch: $(grep -c 'Compiling entry' "$WORK/ptxas_$arch.log") kernels, no spills, at most $regs registers"
done

step "kernels under the CPU emulation of the CUDA execution model"
g++ -std=c++20 -O1 -pthread -Wall -Wno-unknown-pragmas -o "$WORK/emu_test" cuda/kernels/emu/emu_test.cpp
timeout 600 "$WORK/emu_test" >"$WORK/emu.log" || {
	grep -v '^ok' "$WORK/emu.log"
	fail "kernel emulation test"
}
tail -1 "$WORK/emu.log"

step "the -tags cuda tests against the emulating libcuda.so.1 (fakecuda.cpp)"
mkdir -p "$WORK/fake"
g++ -std=c++20 -O1 -fPIC -Wall -Wno-unknown-pragmas -I"$PURSUIT_CUDA_ROOT/usr/include" \
	-c -o "$WORK/fake/fakecuda.o" cuda/kernels/emu/fakecuda.cpp
# Every other driver symbol the binary imports becomes a stub returning
# CUDA_ERROR_NOT_SUPPORTED.
nm --defined-only "$WORK/fake/fakecuda.o" | awk '$2=="T" && $3 ~ /^cu/ {print $3}' | sort >"$WORK/fake/defined"
nm -D --undefined-only "$WORK/cuda.test" | awk '$2 ~ /^cu/ {print $2}' | sort >"$WORK/fake/needed"
comm -23 "$WORK/fake/needed" "$WORK/fake/defined" |
	awk '{printf "extern \"C\" int %s(void) { return 801; }\n", $1}' >"$WORK/fake/stubs.cpp"
echo "emulated driver calls: $(wc -l <"$WORK/fake/defined"), stubs: $(wc -l <"$WORK/fake/stubs.cpp")"
g++ -shared -fPIC -O1 -Wl,-soname,libcuda.so.1 -o "$WORK/fake/libcuda.so.1" "$WORK/fake/fakecuda.o" "$WORK/fake/stubs.cpp"
# The emulation runs on one core: the tests go to two processes at once,
# four long ones in one and every other in the second (about half the
# wall time on CI's two cores; each process has its own emulated device).
long='^(TestConformanceInSlabs|TestOneVsRestKMPOnDevice|TestDeterministicKMPOnDevice|TestBatchedSVMOnDevice)$'
(cd cuda && LD_LIBRARY_PATH="$WORK/fake" timeout 900 "$WORK/cuda.test" -test.count=1 -test.v -test.run "$long" >"$WORK/fake1.log" 2>&1) &
pid=$!
rc2=0
(cd cuda && LD_LIBRARY_PATH="$WORK/fake" timeout 900 "$WORK/cuda.test" -test.count=1 -test.v -test.skip "$long" >"$WORK/fake2.log" 2>&1) || rc2=$?
rc1=0
wait $pid || rc1=$?
for n in 1 2; do
	rc=$((n == 1 ? rc1 : rc2))
	if [ $rc != 0 ]; then
		grep -vE '^(=== RUN|=== PAUSE|=== CONT)' "$WORK/fake$n.log" | tail -60
		fail "the -tags cuda tests failed against the emulated driver (exit status $rc)"
	fi
	grep -E '^(--- |ok|PASS|FAIL)|bytes to the device|per step, besides|per outer iteration|the same bits with the rows' "$WORK/fake$n.log"
done
[ "$(grep -c '^--- ' "$WORK/fake1.log")" = 4 ] || fail "the first process did not run the 4 tests $long"

step "done: CUDA build check passed"
