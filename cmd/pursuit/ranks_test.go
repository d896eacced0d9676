package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
	"github.com/pursuit-ml/pursuit/kmp"
)

// rankResult is what one in-process rank of a command printed and returned.
type rankResult struct {
	code           int
	stdout, stderr string
}

// runOnRanks runs the command line argsFor(rank) on n in-process ranks, as
// mpirun would on n processes, and returns each rank's outcome.
func runOnRanks(t *testing.T, n int, argsFor func(rank int) []string) []rankResult {
	t.Helper()
	ranks, err := comm.NewGroup(n)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]rankResult, n)
	var wg sync.WaitGroup
	for r, c := range ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var so, se bytes.Buffer
			code := run(&env{stdout: &so, stderr: &se, comm: c}, argsFor(r))
			out[r] = rankResult{code, so.String(), se.String()}
		}()
	}
	wg.Wait()
	return out
}

func same(args ...string) func(int) []string { return func(int) []string { return args } }

// rankData writes 61 two-moons examples (an uneven split over 2 and 3
// ranks) and returns the path.
func rankData(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "moons.svm")
	writeData(t, path, data.TwoMoons(61, 0.15, 7))
	return path
}

// quietOthers checks that ranks other than 0 printed nothing.
func quietOthers(t *testing.T, res []rankResult) {
	t.Helper()
	for r, x := range res[1:] {
		if x.stdout != "" || x.stderr != "" {
			t.Errorf("rank %d printed: stdout %q stderr %q", r+1, x.stdout, x.stderr)
		}
	}
}

// TestTrainAcrossRanks runs `pursuit train --algo kmp` on 2 and 3
// in-process ranks. While kmp.Train does not split its rows across ranks
// (it returns comm.ErrNotDistributed on a multi-rank engine), every rank
// stops with status 2 and rank 0 alone prints one line saying so; once it
// does, every rank succeeds, rank 0 alone prints and writes the model, and
// the model predicts as the single-process one does.
func TestTrainAcrossRanks(t *testing.T) {
	path := rankData(t)
	dir := t.TempDir()
	single := filepath.Join(dir, "single.model")
	args := []string{"train", "--data", path, "--algo", "kmp", "--gamma", "2", "--basis", "8", "--json", "--progress", "off"}
	one := runCLI(t, append(args, "--model", single)...)
	if one.code != 0 {
		t.Fatalf("single process: %d %s", one.code, one.stderr)
	}
	sharded := kmpShards(t)
	for _, n := range []int{2, 3} {
		model := filepath.Join(dir, "ranks.model")
		os.Remove(model)
		res := runOnRanks(t, n, same(append(args, "--model", model)...))
		quietOthers(t, res)
		if !sharded {
			for r, x := range res {
				if x.code != exitError {
					t.Errorf("%d ranks: rank %d exit %d, want %d", n, r, x.code, exitError)
				}
			}
			msg := res[0].stderr
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "--algo kmp does not split its training rows across ranks") || !strings.Contains(msg, "without mpirun") {
				t.Errorf("%d ranks: rank 0's stderr %q, want one line saying kmp does not train across ranks", n, msg)
			}
			if _, err := os.Stat(model); err == nil {
				t.Errorf("%d ranks: a model was written although training failed", n)
			}
			continue
		}
		for r, x := range res {
			if x.code != 0 {
				t.Fatalf("%d ranks: rank %d exit %d: %s", n, r, x.code, x.stderr)
			}
		}
		var got, want resultJSON
		if err := json.Unmarshal([]byte(res[0].stdout), &got); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal([]byte(one.stdout), &want)
		if got.NTrain != 61 || got.NTrain != want.NTrain || got.NBasis != want.NBasis {
			t.Errorf("%d ranks: n_train %d n_basis %d, single process %d %d", n, got.NTrain, got.NBasis, want.NTrain, want.NBasis)
		}
		a := runCLI(t, "predict", "--model", single, "--data", path, "--json")
		b := runCLI(t, "predict", "--model", model, "--data", path, "--json")
		if a.code != 0 || b.code != 0 || a.stdout != b.stdout {
			t.Errorf("%d ranks: predictions differ from the single process's:\n%s\n%s", n, a.stdout+a.stderr, b.stdout+b.stderr)
		}
	}
}

// kmpShards reports whether kmp.Train trains across ranks (false while it
// refuses a multi-rank engine with comm.ErrNotDistributed).
func kmpShards(t *testing.T) bool {
	t.Helper()
	var refused bool
	err := comm.Run(2, func(c comm.Comm) error {
		e, err := engine.New(engine.WithBackend(engine.BackendGo), engine.WithComm(c))
		if err != nil {
			return err
		}
		defer e.Close()
		x := backend.NewMatrix(2, 1)
		x.Data[0], x.Data[1] = 0, 1
		_, err = kmp.Train(e, x, []float64{-1, 1}, kmp.Config{Kernels: []backend.Kernel{backend.NewRBF(1)}, N: 1})
		if errors.Is(err, comm.ErrNotDistributed) {
			refused = true
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return !refused
}

// TestCVAcrossRanks: `pursuit cv` on 2 and 3 in-process ranks prints, on
// rank 0 alone, the single-process figures (the same folds, trained on
// different ranks, summed in the same order), over a grid of 2 γ values ×
// 2 basis sizes and 3 folds.
func TestCVAcrossRanks(t *testing.T) {
	path := rankData(t)
	args := []string{"cv", "--data", path, "--algo", "kmp", "--grid-gamma", "1,4", "--grid-basis", "3,6", "--folds", "3", "--json", "--progress", "off"}
	one := runCLI(t, args...)
	if one.code != 0 {
		t.Fatalf("single process: %s", one.stderr)
	}
	strip := func(s string) cvJSON {
		var v cvJSON
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("%v: %s", err, s)
		}
		v.TrainSeconds, v.Best.TrainSeconds = 0, 0
		for i := range v.Grid {
			v.Grid[i].TrainSeconds = 0
		}
		return v
	}
	want := strip(one.stdout)
	for _, n := range []int{2, 3} {
		res := runOnRanks(t, n, same(args...))
		quietOthers(t, res)
		for r, x := range res {
			if x.code != 0 {
				t.Fatalf("%d ranks: rank %d exit %d: %s", n, r, x.code, x.stderr)
			}
		}
		got := strip(res[0].stdout)
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) {
			t.Errorf("%d ranks: cv differs from the single process's:\n%s\n%s", n, g, w)
		}
	}
}

// TestRanksStartedDifferently: ranks given different command lines stop
// with status 2 before loading anything, rank 0 alone printing one line
// that names the rank that differs.
func TestRanksStartedDifferently(t *testing.T) {
	path := rankData(t)
	res := runOnRanks(t, 3, func(r int) []string {
		basis := "8"
		if r == 2 {
			basis = "9"
		}
		return []string{"train", "--data", path, "--basis", basis}
	})
	quietOthers(t, res)
	for r, x := range res {
		if x.code != exitError {
			t.Errorf("rank %d exit %d", r, x.code)
		}
	}
	if msg := res[0].stderr; strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "rank 2's command line differs") {
		t.Errorf("rank 0's stderr %q", msg)
	}
}

// TestRankFailsAlone: a bad line in rank 1's block of the rows is reported
// by rank 1 (naming the file and line), rank 0 says which rank stopped the
// job, and every rank exits with status 2.
func TestRankFailsAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.svm")
	os.WriteFile(path, []byte("1 1:1\n-1 1:2\n1 1:3\n-1 0:4\n"), 0o644)
	res := runOnRanks(t, 2, same("train", "--data", path, "--algo", "kmp", "--progress", "off"))
	for r, x := range res {
		if x.code != exitError || x.stdout != "" {
			t.Errorf("rank %d exit %d stdout %q", r, x.code, x.stdout)
		}
	}
	if msg := res[1].stderr; !strings.HasPrefix(msg, "pursuit train: rank 1 of 2: ") || !strings.Contains(msg, "bad.svm:4") {
		t.Errorf("rank 1's stderr %q, want its own error naming bad.svm:4", msg)
	}
	if msg := res[0].stderr; !strings.Contains(msg, "rank 1 of 2 stopped the job") {
		t.Errorf("rank 0's stderr %q, want it to name rank 1", msg)
	}
}

// TestOneProcessCommandsAcrossRanks: commands other than train and cv, and
// the flags train cannot honour across ranks, are refused with status 2
// and one line from rank 0.
func TestOneProcessCommandsAcrossRanks(t *testing.T) {
	path := rankData(t)
	for _, args := range [][]string{
		{"predict", "--model", "x.model", "--data", path},
		{"train", "--data", path, "--val-frac", "0.2"},
		{"train", "--data", path, "--curve"},
		{"train", "--data", path, "--basis", "0"},
	} {
		res := runOnRanks(t, 2, same(args...))
		quietOthers(t, res)
		if res[0].code != exitError || res[1].code != exitError || strings.Count(res[0].stderr, "\n") != 1 {
			t.Errorf("%v: exits %d %d, rank 0's stderr %q", args, res[0].code, res[1].code, res[0].stderr)
		}
	}
}

// runCLI runs a command line in this process, as a single process.
func runCLI(t *testing.T, args ...string) rankResult {
	t.Helper()
	var so, se bytes.Buffer
	code := run(&env{stdout: &so, stderr: &se}, args)
	return rankResult{code, so.String(), se.String()}
}
