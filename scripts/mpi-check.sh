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
#      The svm package's TestBatchedTrainWorld under -np 2 prints the
#      batched solver's collectives per outer iteration;
#   4. the pursuit command built with -tags mpi: train alone (one rank) and
#      under mpirun -np 2 and 3 (KMP, the SVM by SMO and by the batched
#      solver, SLMC) (the model predicts as the single-process
#      one, or, for an algorithm that does not train across ranks, one clear
#      line and status 2); ranks given different data files or flags stop
#      with the error naming them; a bad line in one rank's block stops the
#      job with that rank's error; cv under -np 2 and 3 prints the
#      single-process figures; train --checkpoint (KMP and the SVM) under
#      -np 2 stopped by --time-limit resumes to the uninterrupted model, and
#      its checkpoint is refused under -np 3; the same jobs (stochastic KMP
#      back-fitting, the SVM) SIGKILLed whole (mpirun and every rank) at
#      random moments under -np 2 resume to the uninterrupted model.
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
step "./svm: the batched solver's collectives per outer iteration under mpirun -np 2"
(cd svm && timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "$WORK/svm.test" -test.count=1 -test.v -test.run '^TestBatchedTrainWorld$') >"$WORK/log" 2>&1 ||
	{ tail -40 "$WORK/log"; fail "svm: TestBatchedTrainWorld failed under mpirun -np 2"; }
grep -q 'per outer iteration' "$WORK/log" || { cat "$WORK/log"; fail "svm: TestBatchedTrainWorld logged no collective count"; }
grep 'per outer iteration' "$WORK/log" | sed 's/^ *batched_shard_test.go:[0-9]*: /ok: /' | sort -u

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

# The pursuit command across ranks: a -tags mpi binary under mpirun.
PUR="$WORK/pursuit"
go build -tags mpi -o "$PUR" ./cmd/pursuit
MPIRUN=(timeout 300 mpirun --allow-run-as-root --oversubscribe)
D="$WORK/cli"
mkdir -p "$D/r0" "$D/r1"
# 301 two-class rows of 3 features (uneven blocks over 2 and 3 ranks).
awk 'BEGIN { srand(7); for (i = 0; i < 301; i++) { y = (i % 2) ? 1 : -1;
	printf "%d 1:%.4f 2:%.4f 3:%.4f\n", y, y * 0.3 + 2 * rand() - 1, 2 * rand() - 1, -y * 0.2 + 2 * rand() - 1 } }' >"$D/data.svm"
TRAIN=(train --data data.svm --progress off)

for algo in "kmp --gamma 1 --basis 12" "svm --gamma 1 --c 10" "svm --gamma 1 --c 10 --solver batched" "slmc --gamma 1 --nz 5"; do
	# shellcheck disable=SC2206
	ALGO=(--algo $algo)
	step "pursuit train --algo ${ALGO[1]}, the -tags mpi binary without mpirun: one rank"
	(cd "$D" && "$PUR" "${TRAIN[@]}" "${ALGO[@]}" --model one.model) >"$WORK/log" 2>&1 || { cat "$WORK/log"; fail "pursuit train without mpirun failed"; }
	grep -q '^saved ' "$WORK/log" || { cat "$WORK/log"; fail "pursuit train without mpirun saved no model"; }
	(cd "$D" && "$PUR" predict --model one.model --data data.svm --out one.pred --decision) >/dev/null 2>&1 || fail "pursuit predict failed"
	echo "ok: $(grep '^train ' "$WORK/log")"
	for np in 2 3; do
		step "pursuit train --algo ${ALGO[1]} under mpirun -np $np"
		rm -f "$D/ranks.model"
		set +e
		(cd "$D" && "${MPIRUN[@]}" -np $np "$PUR" "${TRAIN[@]}" "${ALGO[@]}" --model ranks.model) >"$WORK/log" 2>&1
		rc=$?
		set -e
		[ $rc != 124 ] || { cat "$WORK/log"; fail "pursuit train under mpirun -np $np hung"; }
		if [ $rc = 0 ]; then
			# It trains across ranks: rank 0 alone prints and saves, and the
			# model predicts as the single-process one does.
			[ "$(grep -c '^saved ' "$WORK/log")" = 1 ] || { cat "$WORK/log"; fail "-np $np: want one 'saved' line (rank 0's)"; }
			(cd "$D" && "$PUR" predict --model ranks.model --data data.svm --out ranks.pred --decision) >/dev/null 2>&1 || fail "predict with the -np $np model failed"
			# The same labels, and decisions within 1e-6 of the largest.
			cmp=$(paste "$D/one.pred" "$D/ranks.pred" | awk '{ if ($1 != $3) bad++; d = $2 - $4; if (d < 0) d = -d; if (d > worst) worst = d;
				a = $2 < 0 ? -$2 : $2; if (a > big) big = a } END { printf "%d %d %g %g", NR, bad, worst, big; exit !(NR == 301 && bad == 0 && worst <= 1e-6 * big) }') ||
				fail "-np $np: the model's predictions differ from the single-process model's (rows, label differences, largest decision difference, largest decision: $cmp)"
			echo "ok: -np $np trained one model: on all 301 rows the same labels as the single-process model's, decisions within $(echo "$cmp" | cut -d' ' -f3) (largest $(echo "$cmp" | cut -d' ' -f4))"
		else
			# It does not train across ranks yet: one clear line, status 2.
			[ "$(grep -c '^pursuit train: ' "$WORK/log")" = 1 ] && grep -q 'does not split its training rows across ranks' "$WORK/log" ||
				{ cat "$WORK/log"; fail "-np $np: pursuit train failed (status $rc) without the one line saying ${ALGO[1]} does not train across ranks"; }
			[ ! -e "$D/ranks.model" ] || fail "-np $np: a model was written although training failed"
			echo "ok: -np $np stopped with status $rc and one line: $(grep '^pursuit train: ' "$WORK/log")"
		fi
	done
done
TRAIN+=(--algo kmp)

step "train --checkpoint under mpirun -np 2: stopped and resumed, the uninterrupted model; another rank count is refused"
# Stopped by --time-limit 1ns (every rank's deadline, passed at the first
# step boundary; they agree on the step), three times, a step each, then resumed to the end; the model predicts as
# the uninterrupted -np 2 run's.
CK=("${TRAIN[@]}" --gamma 1 --basis 12)
(cd "$D" && "${MPIRUN[@]}" -np 2 "$PUR" "${CK[@]}" --model ck-ref.model) >"$WORK/log" 2>&1 || { cat "$WORK/log"; fail "the uninterrupted -np 2 run failed"; }
(cd "$D" && "$PUR" predict --model ck-ref.model --data data.svm --out ck-ref.pred --decision) >/dev/null 2>&1 || fail "predict failed"
rm -f "$D/ck.ckpt"
for i in 1 2 3; do
	resume=()
	[ ! -e "$D/ck.ckpt" ] || resume=(--resume ck.ckpt)
	set +e
	(cd "$D" && "${MPIRUN[@]}" -np 2 "$PUR" "${CK[@]}" --model ck.model --checkpoint ck.ckpt --time-limit 1ns "${resume[@]}") >"$WORK/log" 2>&1
	rc=$?
	set -e
	[ $rc = 143 ] && [ "$(grep -c "^pursuit train: training stopped at the time limit at step $i of 13; checkpoint ck.ckpt written" "$WORK/log")" = 1 ] ||
		{ cat "$WORK/log"; fail "--time-limit run $i: want status 143 and rank 0's one line saying it stopped at step $i (status $rc)"; }
done
(cd "$D" && "${MPIRUN[@]}" -np 2 "$PUR" "${CK[@]}" --model ck.model --resume ck.ckpt) >"$WORK/log" 2>&1 || { cat "$WORK/log"; fail "resuming under -np 2 failed"; }
(cd "$D" && "$PUR" predict --model ck.model --data data.svm --out ck.pred --decision) >/dev/null 2>&1 || fail "predict failed"
cmp -s "$D/ck-ref.pred" "$D/ck.pred" || fail "stopped three times and resumed under -np 2, the model predicts otherwise than the uninterrupted one"
echo "ok: stopped by --time-limit at steps 1, 2 and 3 (status 143, rank 0's line), resumed: the uninterrupted model's decisions"
set +e
(cd "$D" && "${MPIRUN[@]}" -np 3 "$PUR" "${CK[@]}" --model ck3.model --resume ck.ckpt) >"$WORK/log" 2>&1
rc=$?
set -e
[ $rc = 2 ] && [ "$(grep -c '^pursuit train: ' "$WORK/log")" = 1 ] && grep -q 'ranks was 2, is now 3' "$WORK/log" ||
	{ cat "$WORK/log"; fail "resuming a -np 2 checkpoint under -np 3: want status 2 and one line naming the rank counts (status $rc)"; }
echo "ok: under -np 3: $(grep '^pursuit train: ' "$WORK/log")"
# SIGTERM sent to mpirun itself is not checked: in two clean-clone runs
# OpenMPI's mpirun exited 1 at once and rank 0's "training stopped ...
# checkpoint written" line never appeared. The stop agreed by every rank is
# checked through --time-limit, SIGTERM to a single process by cmd/pursuit's
# TestCheckpointSIGTERM, and a job killed outright below.

step "train --algo svm --checkpoint under mpirun -np 2: stopped by --time-limit and resumed, the uninterrupted model; -np 3 refused"
# The limit (1ns) has passed at the first iteration: each start does one
# more SMO iteration and stops, every rank exiting 143.
SV=(train --data data.svm --progress off --algo svm --gamma 1 --c 10)
(cd "$D" && "${MPIRUN[@]}" -np 2 "$PUR" "${SV[@]}" --model sv-ref.model) >"$WORK/log" 2>&1 || { cat "$WORK/log"; fail "the uninterrupted svm -np 2 run failed"; }
(cd "$D" && "$PUR" predict --model sv-ref.model --data data.svm --out sv-ref.pred --decision) >/dev/null 2>&1 || fail "predict failed"
for i in 1 2; do
	resume=()
	[ $i = 1 ] || resume=(--resume sv.ckpt)
	set +e
	(cd "$D" && "${MPIRUN[@]}" -np 2 "$PUR" "${SV[@]}" --model sv.model --checkpoint sv.ckpt --time-limit 1ns "${resume[@]}") >"$WORK/log" 2>&1
	rc=$?
	set -e
	[ $rc = 143 ] && [ "$(grep -c "^pursuit train: training stopped at the time limit at SMO iteration $i (gap [^)]*); checkpoint sv.ckpt written" "$WORK/log")" = 1 ] ||
		{ cat "$WORK/log"; fail "svm --time-limit run $i: want status 143 and rank 0's one line saying it stopped at SMO iteration $i (status $rc)"; }
done
(cd "$D" && "${MPIRUN[@]}" -np 2 "$PUR" "${SV[@]}" --model sv.model --resume sv.ckpt) >"$WORK/log" 2>&1 || { cat "$WORK/log"; fail "resuming the svm under -np 2 failed"; }
(cd "$D" && "$PUR" predict --model sv.model --data data.svm --out sv.pred --decision) >/dev/null 2>&1 || fail "predict failed"
cmp -s "$D/sv-ref.pred" "$D/sv.pred" || fail "the svm stopped twice and resumed under -np 2 predicts otherwise than the uninterrupted one"
set +e
(cd "$D" && "${MPIRUN[@]}" -np 3 "$PUR" "${SV[@]}" --model sv3.model --resume sv.ckpt) >"$WORK/log" 2>&1
rc=$?
set -e
[ $rc = 2 ] && [ "$(grep -c '^pursuit train: ' "$WORK/log")" = 1 ] && grep -q 'ranks was 2, is now 3' "$WORK/log" ||
	{ cat "$WORK/log"; fail "resuming the svm's -np 2 checkpoint under -np 3: want status 2 and one line naming the rank counts (status $rc)"; }
echo "ok: svm stopped by --time-limit at SMO iterations 1 and 2 (status 143, rank 0's line), resumed: the uninterrupted model's decisions; under -np 3: $(grep '^pursuit train: ' "$WORK/log")"

# The kill test under mpirun: a job started by setsid (its own session),
# SIGKILLed whole at a random moment after it wrote a checkpoint: mpirun
# and every rank (Open MPI puts each rank in a process group of its own,
# so the session is what holds them all), then resumed from its last
# checkpoint, three times, and run to the end; the model must predict as
# the uninterrupted -np 2 run's, bit for bit. Open MPI's files of the
# killed jobs go under $WORK (its session directory and shared-memory
# segments), which the exit trap removes.
mkdir -p "$WORK/ompi-tmp" "$WORK/ompi-shm"
awk 'BEGIN { srand(11); for (i = 0; i < 3000; i++) { y = (i % 2) ? 1 : -1; line = "";
	for (j = 1; j <= 8; j++) { v = 2 * rand() - 1; if (j <= 2) v += y * 0.35; line = line sprintf(" %d:%.4f", j, v) }
	print y line } }' >"$D/kill.svm"
# Three classes, for pre-fitting KMP one-vs-rest (800 functions: about 4 s
# in one process here, long enough for checkpoints every 200 ms; 60 ended
# before its first checkpoint on a quiet machine).
awk 'BEGIN { srand(12); for (i = 0; i < 3000; i++) { y = i % 3; line = "";
	for (j = 1; j <= 8; j++) { v = 2 * rand() - 1; if (j == y + 1) v += 0.6; line = line sprintf(" %d:%.4f", j, v) }
	print y line } }' >"$D/kill3.svm"
alive() { # alive PID: the process exists and is not a zombie
	local s
	s=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${s#Z}" = "$s" ]
}
killsession() { # killsession SID: SIGKILL every process of the session until none is left
	local t0=$SECONDS pids
	while pids=$(ps -o pid=,stat= -s "$1" | awk '$2 !~ /^Z/ { print $1 }'); [ -n "$pids" ]; do
		# shellcheck disable=SC2086
		kill -9 $pids 2>/dev/null || true
		[ $((SECONDS - t0)) -lt 30 ] || fail "processes of session $1 outlive SIGKILL: $pids"
		sleep 0.05
	done
}
inode() { stat -c %i "$1" 2>/dev/null || echo none; } # a checkpoint is replaced by a rename: a new inode
killtest() { # killtest NAME TRAIN-ARGS... (predictions on $KILLDATA, default kill.svm)
	local name=$1 kills=0 pid sid rc ino t0 wait_ms moments="" window=250 tries=0 data=${KILLDATA:-kill.svm}
	shift
	local ck="$name.ckpt"
	(cd "$D" && "${MPIRUN[@]}" -np 2 "$PUR" "$@" --model "$name-ref.model") >"$WORK/log" 2>&1 || { cat "$WORK/log"; fail "$name: the uninterrupted -np 2 run failed"; }
	(cd "$D" && "$PUR" predict --model "$name-ref.model" --data "$data" --out "$name-ref.pred" --decision) >/dev/null 2>&1 || fail "predict failed"
	rm -f "$D/$ck"
	while :; do
		resume=()
		[ ! -e "$D/$ck" ] || resume=(--resume "$ck")
		ino=$(inode "$D/$ck")
		# A subshell waits for the job (and takes bash's "Killed" notice to
		# /dev/null): $pid ends with the job's status; the job's session
		# is $sid.
		rm -f "$WORK/sid"
		(
			exec 2>/dev/null
			(cd "$D" && export OMPI_MCA_orte_tmpdir_base="$WORK/ompi-tmp" OMPI_MCA_btl_vader_backing_directory="$WORK/ompi-shm" &&
				exec setsid "${MPIRUN[@]}" -np 2 "$PUR" "$@" --model "$name.model" --checkpoint "$ck" --checkpoint-every 200ms "${resume[@]}") >"$WORK/log" 2>&1 &
			echo $! >"$WORK/sid"
			wait $!
		) &
		pid=$!
		if [ $kills -lt 3 ]; then
			# Until a new checkpoint is written (or the run ends), then a
			# random moment within 250 ms.
			t0=$SECONDS
			while alive $pid && [ "$(inode "$D/$ck")" = "$ino" ]; do
				[ $((SECONDS - t0)) -lt 120 ] || { killsession "$(cat "$WORK/sid")"; fail "$name: no checkpoint within 120 s"; }
				sleep 0.02
			done
			wait_ms=$((RANDOM % window))
			sleep "$(printf '0.%03d' $wait_ms)"
			sid=$(cat "$WORK/sid")
			# The job may end between the wait and this check (its subshell
			# still reaping it): with no process left there is no session to
			# kill, and the run's end is taken below.
			got=$(ps -o sid= -p "$sid" | tr -d ' ' || true)
			if alive $pid && [ -n "$got" ]; then
				[ "$got" = "$sid" ] || fail "$name: setsid did not start a session of its own (session $got)"
				killsession "$sid"
				wait $pid || true
				kills=$((kills + 1))
				moments="$moments ${wait_ms}ms"
				continue
			fi
		fi
		set +e
		wait $pid
		rc=$?
		set -e
		[ $rc = 0 ] || { cat "$WORK/log"; fail "$name: the run after $kills kills failed (status $rc)"; }
		if [ $kills = 0 ] && [ $tries -lt 2 ]; then
			# It ended before its kill (a fast machine): again from the
			# start, killed as soon as it writes its first checkpoint.
			echo "$name: the run ended before its kill; again, killed at its first checkpoint"
			tries=$((tries + 1)) window=1
			rm -f "$D/$ck"
			continue
		fi
		break
	done
	[ $kills -gt 0 ] || fail "$name: the run ended before any kill, three times (too short a job for this machine)"
	(cd "$D" && "$PUR" predict --model "$name.model" --data "$data" --out "$name.pred" --decision) >/dev/null 2>&1 || fail "predict failed"
	cmp -s "$D/$name-ref.pred" "$D/$name.pred" || fail "$name: killed $kills times under -np 2 and resumed, the model predicts otherwise than the uninterrupted one"
	echo "ok: $name under mpirun -np 2 killed (SIGKILL to mpirun and both ranks) $kills times, at${moments} after a checkpoint was written, and resumed each time: the uninterrupted model's decisions on all 3000 rows"
}
step "SIGKILL during train --checkpoint under mpirun -np 2: stochastic KMP back-fitting resumes to the uninterrupted model"
killtest skmp train --data kill.svm --progress off --algo skmp --fit backfit --basis 400 --gamma 0.5 --seed 3
step "SIGKILL during train --checkpoint under mpirun -np 2: the SVM resumes to the uninterrupted model"
killtest svm train --data kill.svm --progress off --algo svm --gamma 1 --c 300
step "SIGKILL during train --checkpoint under mpirun -np 2: pre-fitting KMP one-vs-rest resumes to the uninterrupted model"
KILLDATA=kill3.svm killtest kmp-ovr train --data kill3.svm --progress off --algo kmp --one-vs-rest --basis 800 --gamma 0.5 --seed 4

step "ranks given different data files or flags stop before training"
cp "$D/data.svm" "$D/r0/data.svm"
head -300 "$D/data.svm" >"$D/r1/data.svm"
printf '#!/bin/sh\ncd "%s/r$OMPI_COMM_WORLD_RANK" && exec "%s" "$@"\n' "$D" "$PUR" >"$D/cdrank.sh"
printf '#!/bin/sh\nexec "%s" "$@" --seed "$OMPI_COMM_WORLD_RANK"\n' "$PUR" >"$D/seedrank.sh"
chmod +x "$D/cdrank.sh" "$D/seedrank.sh"
for c in "cdrank.sh:rank 1's --data data.svm differs" "seedrank.sh:rank 1's command line differs"; do
	set +e
	(cd "$D" && "${MPIRUN[@]}" -np 2 "$D/${c%%:*}" "${TRAIN[@]}") >"$WORK/log" 2>&1
	rc=$?
	set -e
	[ $rc != 0 ] && [ $rc != 124 ] && grep -q "${c#*:}" "$WORK/log" && grep -q 'ranks were not started alike' "$WORK/log" ||
		{ cat "$WORK/log"; fail "${c%%:*}: want a stop (status $rc; 124 = hung) with the error naming what differs"; }
	echo "ok: ${c%%:*}: status $rc, $(grep -o "${c#*:}[^;]*" "$WORK/log" | head -1)"
done

step "a bad line in rank 1's block stops the job with that rank's error"
cp "$D/data.svm" "$D/bad.svm"
echo "1 0:3" >>"$D/bad.svm"
set +e
(cd "$D" && "${MPIRUN[@]}" -np 2 "$PUR" train --data bad.svm) >"$WORK/log" 2>&1
rc=$?
set -e
[ $rc != 0 ] && [ $rc != 124 ] && grep -q '^pursuit train: rank 1 of 2: bad.svm:302' "$WORK/log" ||
	{ cat "$WORK/log"; fail "want rank 1's error naming bad.svm:302 (status $rc)"; }
echo "ok: status $rc, $(grep '^pursuit train: rank 1' "$WORK/log")"

CV=(cv --data data.svm --algo kmp --grid-gamma 0.5,2 --grid-basis 4,8 --folds 4 --json --progress off)
(cd "$D" && "$PUR" "${CV[@]}") >"$WORK/cv1" 2>"$WORK/log" || { cat "$WORK/log"; fail "pursuit cv failed"; }
for np in 2 3; do
	step "pursuit cv under mpirun -np $np equals the single-process cv"
	(cd "$D" && "${MPIRUN[@]}" -np $np "$PUR" "${CV[@]}") >"$WORK/cvn" 2>"$WORK/log" || { cat "$WORK/log"; fail "pursuit cv under mpirun -np $np failed"; }
	[ "$(wc -l <"$WORK/cvn")" = 1 ] || { cat "$WORK/cvn"; fail "-np $np: want one JSON line (rank 0's)"; }
	noTime() { sed -E 's/"train_seconds":[^,}]*//g' "$1"; }
	[ "$(noTime "$WORK/cv1")" = "$(noTime "$WORK/cvn")" ] || { cat "$WORK/cv1" "$WORK/cvn"; fail "-np $np: cv differs from the single-process cv"; }
	echo "ok: -np $np: the same grid figures (cv error $(grep -o '"cv_error":[^,]*' "$WORK/cvn" | head -1))"
done

step "done: MPI check passed"
