#!/usr/bin/env bash
# mpi-check.sh — the MPI checks CI runs (from .ci/run). Needs Open MPI
# (Debian: apt-get install -y --no-install-recommends openmpi-bin
# libopenmpi-dev; .ci/run installs it when root).
#
#   1. the default build has no cgo and no MPI: no module package with cgo
#      files or a pkg-config dependency among the untagged dependencies of
#      ./..., and CGO_ENABLED=0 go build works with and without -tags mpi
#      (without cgo, -tags mpi falls back to the single-process stub);
#   2. go vet -tags mpi ./...;
#   3. the test binaries of the packages with MPI-aware tests (those whose
#      tests call comm.World; by convention such tests have World in their
#      name), built with -tags mpi, run their World tests under mpirun
#      -np 2, -np 3 and -np 4 (uneven shards) and alone (a -tags mpi binary
#      started without mpirun is one rank).
#
# Usage: bash scripts/mpi-check.sh      (prints each step and its time)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
T0=$SECONDS
step() { printf '\n-- mpi-check: %s (%ds)\n' "$*" $((SECONDS - T0)); }
fail() {
	printf 'mpi-check: FAILED: %s\n' "$*" >&2
	exit 1
}
WORK="$(mktemp -d /tmp/mpi-check.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

step "default build: no cgo, no MPI"
cgo=$(go list -deps -f '{{if and (not .Standard) (or .CgoFiles .CgoPkgConfig)}}{{.ImportPath}}{{end}}' ./... ./cmd/pursuit)
[ -z "$cgo" ] || fail "the untagged build has module packages with cgo: $cgo"
CGO_ENABLED=0 go build ./... || fail "CGO_ENABLED=0 go build ./... failed"
CGO_ENABLED=0 go build -tags mpi ./... || fail "CGO_ENABLED=0 go build -tags mpi ./... failed (the stub must be tagged !(mpi && cgo))"
tagged=$(go list -deps -tags mpi -f '{{if and (not .Standard) .CgoPkgConfig}}{{.ImportPath}}: {{join .CgoPkgConfig " "}}{{end}}' ./cmd/pursuit)
[ -n "$tagged" ] || fail "go list -deps -tags mpi ./cmd/pursuit shows no MPI package: the tag no longer selects the MPI layer"
echo "ok: no module package with cgo untagged; CGO_ENABLED=0 builds with and without -tags mpi; -tags mpi adds $tagged"

command -v mpirun >/dev/null || fail "mpirun not found: install openmpi-bin libopenmpi-dev"
pkg-config --exists mpi || fail "pkg-config mpi not found: install libopenmpi-dev"
mpirun --version | head -1

step "go vet -tags mpi ./..."
go vet -tags mpi ./...

# Packages whose tests use comm.World (and so run multi-rank under mpirun);
# bench's World test is a timing run (PURSUIT_SHARDED), not a check.
mapfile -t PKGS < <(grep -rlE --include='*_test.go' 'comm\.World\(|[^.]World\(\)' . | xargs -r -n1 dirname | sort -u | grep -v '^\./bench$')
echo "packages with MPI-aware tests: ${PKGS[*]}"
[ ${#PKGS[@]} -gt 0 ] || fail "no MPI-aware test found"

step "test binaries with -tags mpi"
for p in "${PKGS[@]}"; do
	go test -tags mpi -c -o "$WORK/$(basename "$p").test" "$p"
done

run() { # run NP PKG: the package's World tests on NP ranks (0: no mpirun)
	local np=$1 p=$2 bin
	bin="$WORK/$(basename "$p").test"
	if [ "$np" = 0 ]; then
		(cd "$p" && timeout 300 "$bin" -test.count=1 -test.v -test.run World) >"$WORK/log" 2>&1 ||
			{ tail -40 "$WORK/log"; fail "$p: the -tags mpi tests failed without mpirun"; }
	else
		(cd "$p" && timeout 300 mpirun --allow-run-as-root --oversubscribe -np "$np" "$bin" -test.count=1 -test.v -test.run World) >"$WORK/log" 2>&1 ||
			{ grep -vE '^(=== RUN|=== PAUSE|=== CONT)' "$WORK/log" | tail -60; fail "$p: the -tags mpi tests failed under mpirun -np $np"; }
		grep -q 'thread level' "$WORK/log" || [ "$p" != ./engine/comm ] || { cat "$WORK/log"; fail "the MPI communicator was not used under mpirun"; }
	fi
	grep -q '^--- PASS' "$WORK/log" || { cat "$WORK/log"; fail "$p: no World test ran"; }
	echo "ok: $p, $([ "$np" = 0 ] && echo "alone (one rank)" || echo "mpirun -np $np"): $(grep -c '^--- PASS' "$WORK/log") test results passed"
}
for p in "${PKGS[@]}"; do
	step "$p alone, then under mpirun -np 2, -np 3 and -np 4"
	run 0 "$p"
	run 2 "$p"
	run 3 "$p"
	run 4 "$p"
done
step "./engine/comm under mpirun -np 2 with every call handed to the MPI thread (PURSUIT_MPI_FUNNELED=1)"
PURSUIT_MPI_FUNNELED=1 run 2 ./engine/comm
grep -q 'thread level funneled' "$WORK/log" || { cat "$WORK/log"; fail "PURSUIT_MPI_FUNNELED=1 did not select the funneled path"; }

step "a failing rank brings the job down with its error (no hang)"
set +e
(cd engine/comm && PURSUIT_MPI_ABORT_TEST=1 timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3 \
	"$WORK/comm.test" -test.count=1 -test.run '^TestAbortWorld$') >"$WORK/log" 2>&1
rc=$?
set -e
[ $rc != 0 ] && [ $rc != 124 ] || { cat "$WORK/log"; fail "expected mpirun to stop the job with an error when a rank aborts (status $rc; 124 = hung)"; }
grep -q 'rank-abort-test: this rank fails on purpose' "$WORK/log" || { cat "$WORK/log"; fail "the aborting rank's error is not in the job's output"; }
echo "ok: mpirun stopped all 3 ranks with status $rc and the aborting rank's error"

step "done: MPI check passed"
