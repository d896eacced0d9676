package kmp

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/internal/modelfile"
)

// sameKMP fails unless a and b are the same model bit for bit, the
// learning curves' times aside.
func sameKMP(t *testing.T, name string, a, b *Model) {
	t.Helper()
	if !slices.Equal(a.SupportIndex, b.SupportIndex) || len(a.Outputs) != len(b.Outputs) {
		t.Fatalf("%s: support %v, want %v", name, b.SupportIndex, a.SupportIndex)
	}
	for o := range a.Outputs {
		oa, ob := a.Outputs[o], b.Outputs[o]
		if math.Float64bits(oa.Bias) != math.Float64bits(ob.Bias) || oa.Steps != ob.Steps || oa.Stop != ob.Stop || len(oa.Curve) != len(ob.Curve) {
			t.Fatalf("%s: output %d: bias %v steps %d stop %q curve %d, want %v %d %q %d", name, o, ob.Bias, ob.Steps, ob.Stop, len(ob.Curve), oa.Bias, oa.Steps, oa.Stop, len(oa.Curve))
		}
		for i := range oa.Coef {
			if math.Float64bits(oa.Coef[i]) != math.Float64bits(ob.Coef[i]) {
				t.Fatalf("%s: coefficient %d is %v, want %v", name, i, ob.Coef[i], oa.Coef[i])
			}
		}
		for i := range oa.Curve {
			ca, cb := oa.Curve[i], ob.Curve[i]
			ca.Elapsed, cb.Elapsed = 0, 0
			if ca != cb && !(math.IsNaN(ca.ValErr) && math.IsNaN(cb.ValErr)) {
				t.Fatalf("%s: curve step %d is %+v, want %+v", name, i+1, cb, ca)
			}
		}
	}
}

func TestCheckpointResumeBitForBit(t *testing.T) {
	e := goEngine(t)
	x, y := circleData(600, 3)
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"stochastic backfit", Config{Variant: BackFit, N: 40, Stochastic: &Stochastic{ActiveSet: 25}}},
		{"stochastic prefit, early stopping", Config{Variant: PreFit, ValFrac: 0.25, Patience: 8, Stochastic: &Stochastic{ActiveSet: 25}}},
		{"backfit", Config{Variant: BackFit, N: 30}},
	} {
		cfg := c.cfg
		cfg.Kernels = []pursuit.Kernel{pursuit.NewRBF(2)}
		cfg.Bias, cfg.Seed = true, 5
		want, err := Train(e, x, y, cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, at := range []int{1, 6, 17} {
			path := filepath.Join(t.TempDir(), "ck")
			stop := make(chan struct{})
			run := cfg
			run.Checkpoint = &checkpoint.Options{Path: path, Stop: stop}
			run.Progress = func(s Step) {
				if s.Step == at {
					close(stop)
				}
			}
			_, err := Train(e, x, y, run)
			var se *checkpoint.StoppedError
			if !errors.As(err, &se) || se.Path != path || !strings.HasPrefix(se.Where, "step "+itoa(at)) {
				t.Fatalf("%s: stopping at step %d: %v", c.name, at, err)
			}
			res := cfg
			res.Checkpoint = &checkpoint.Options{Path: path, Resume: path}
			got, err := Train(e, x, y, res)
			if err != nil {
				t.Fatalf("%s: resuming at step %d: %v", c.name, at, err)
			}
			sameKMP(t, c.name+" resumed after step "+itoa(at), want, got)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestCheckpointRefusals(t *testing.T) {
	e := goEngine(t)
	x, y := circleData(300, 4)
	cfg := Config{Variant: BackFit, N: 20, Kernels: []pursuit.Kernel{pursuit.NewRBF(2)}, Bias: true, Seed: 1, Stochastic: &Stochastic{ActiveSet: 10}}
	dir := t.TempDir()
	path := filepath.Join(dir, "ck")
	stop := make(chan struct{})
	run := cfg
	run.Checkpoint = &checkpoint.Options{Path: path, Stop: stop}
	run.Progress = func(s Step) {
		if s.Step == 5 {
			close(stop)
		}
	}
	if _, err := Train(e, x, y, run); !errors.Is(err, checkpoint.ErrStopped) {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var model bytes.Buffer
	m, err := Train(e, x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(&model); err != nil {
		t.Fatal(err)
	}
	var v2 bytes.Buffer
	if err := modelfile.Write(&v2, checkpoint.Magic, checkpoint.Version+1, []byte("x")); err != nil {
		t.Fatal(err)
	}
	x2 := pursuit.NewMatrix(x.Rows, x.Cols)
	copy(x2.Data, x.Data)
	x2.Data[7] += 0.5
	for _, c := range []struct {
		name, file string
		change     func(*Config) (pursuit.Matrix, []float64)
		want       string
	}{
		{"other seed", path, func(c *Config) (pursuit.Matrix, []float64) { c.Seed = 2; return x, y }, "seed was 1, is now 2"},
		{"other kernel", path, func(c *Config) (pursuit.Matrix, []float64) {
			c.Kernels = []pursuit.Kernel{pursuit.NewRBF(3)}
			return x, y
		}, "kernel 0 was"},
		{"other data", path, func(c *Config) (pursuit.Matrix, []float64) { return x2, y }, "training data was"},
		{"truncated", write("trunc", raw[:len(raw)-9]), nil, "truncated or corrupt"},
		{"corrupt", write("corrupt", append(append([]byte(nil), raw[:40]...), append([]byte{raw[40] ^ 1}, raw[41:]...)...)), nil, "truncated or corrupt"},
		{"model file", write("model", model.Bytes()), nil, "is a model file, not a training checkpoint"},
		{"other version", write("v2", v2.Bytes()), nil, fmt.Sprintf("format version %d", checkpoint.Version+1)},
		{"not one", write("text", []byte("hello\n")), nil, "not a pursuit training checkpoint"},
	} {
		rc := cfg
		xx, yy := x, y
		if c.change != nil {
			xx, yy = c.change(&rc)
		}
		rc.Checkpoint = &checkpoint.Options{Resume: c.file}
		_, err := Train(e, xx, yy, rc)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, pursuit.ErrBadInput) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one bad-input line with %q", c.name, err, c.want)
		}
	}
}

// TestCheckpointOneVsRest stops one-vs-rest KMP (trained in lock-step, and
// one output after another where explicit deflation makes it so) at
// several moments, resumes each from its checkpoint, and checks that
// every output equals an uninterrupted run's bit for bit: full-search
// pre-fitting (its running products are in the checkpoint), with early
// stopping (outputs stop at different steps), stochastic pre-fitting and
// back-fitting.
func TestCheckpointOneVsRest(t *testing.T) {
	e := goEngine(t)
	all, ally := blobsK(260, 3, 4, 2)
	x, y := all.Slice(0, 200, 0, 3), ally[:200]
	vx, vy := all.Slice(200, 260, 0, 3), ally[200:]
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"prefit", Config{Variant: PreFit, N: 30}},
		{"prefit, early stopping", Config{Variant: PreFit, N: 40, ValX: vx, ValY: vy, Patience: 5}},
		{"stochastic prefit", Config{Variant: PreFit, N: 25, Stochastic: &Stochastic{ActiveSet: 30}}},
		{"backfit", Config{Variant: BackFit, N: 25}},
	} {
		cfg := c.cfg
		cfg.Task, cfg.Kernels, cfg.Bias, cfg.Seed = Classification, []pursuit.Kernel{pursuit.NewRBF(0.5)}, true, 4
		want, err := TrainOneVsRest(e, x, y, cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		steps := map[int]bool{}
		for _, o := range want.Outputs {
			steps[len(o.Curve)] = true
		}
		t.Logf("%s: %d outputs, step counts %v", c.name, len(want.Outputs), steps)
		for _, stops := range [][]int{{3}, {5, 8}} {
			path := filepath.Join(t.TempDir(), "ck")
			resume := ""
			for _, at := range stops {
				stop := make(chan struct{})
				run := cfg
				run.Checkpoint = &checkpoint.Options{Path: path, Resume: resume, Stop: stop}
				// Every output's steps are reported; the first to reach
				// step at stops the run.
				closed := false
				run.Progress = func(s Step) {
					if s.Step == at && !closed {
						closed = true
						close(stop)
					}
				}
				_, err := TrainOneVsRest(e, x, y, run)
				var se *checkpoint.StoppedError
				if !errors.As(err, &se) || se.Path != path || !strings.Contains(se.Where, "of the 4 one-vs-rest outputs") {
					t.Fatalf("%s: stopping at step %d: %v", c.name, at, err)
				}
				resume = path
			}
			run := cfg
			run.Checkpoint = &checkpoint.Options{Path: path, Resume: resume}
			got, err := TrainOneVsRest(e, x, y, run)
			if err != nil {
				t.Fatalf("%s: resuming after steps %v: %v", c.name, stops, err)
			}
			sameKMP(t, fmt.Sprintf("%s stopped at steps %v", c.name, stops), want, got)
		}
	}
}

// TestCheckpointSparse resumes a fit on sparse rows from its checkpoint
// (bit for bit), and refuses to resume it on the same numbers held dense,
// naming the storage.
func TestCheckpointSparse(t *testing.T) {
	e := goEngine(t)
	x, y := circleData(300, 6)
	sp := data.Sparsify(&data.Dataset{X: x, Y: y}).X
	if !sp.IsSparse() {
		t.Fatal("Sparsify gave dense rows")
	}
	cfg := Config{Variant: BackFit, N: 20, Kernels: []pursuit.Kernel{pursuit.NewRBF(2)}, Bias: true, Seed: 3, Stochastic: &Stochastic{ActiveSet: 20}}
	want, err := Train(e, sp, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ck")
	stop := make(chan struct{})
	run := cfg
	run.Checkpoint = &checkpoint.Options{Path: path, Stop: stop}
	run.Progress = func(s Step) {
		if s.Step == 7 {
			close(stop)
		}
	}
	if _, err := Train(e, sp, y, run); !errors.Is(err, checkpoint.ErrStopped) {
		t.Fatal(err)
	}
	run = cfg
	run.Checkpoint = &checkpoint.Options{Resume: path}
	got, err := Train(e, sp, y, run)
	if err != nil {
		t.Fatal(err)
	}
	sameKMP(t, "sparse rows resumed after step 7", want, got)
	_, err = Train(e, x, y, run)
	if !errors.Is(err, pursuit.ErrBadInput) || !strings.Contains(err.Error(), "(sparse)") || !strings.Contains(err.Error(), "(dense)") {
		t.Errorf("resuming a sparse run on dense rows: %v, want a bad-input line naming both storages", err)
	}
}

// TestCheckpointOneVsRestRounds: with a checkpoint due at every step,
// one-vs-rest writes rounds of every output's state (the last output to
// record its state, or to finish, writes); resuming from the file the
// finished run left ends with the same model.
func TestCheckpointOneVsRestRounds(t *testing.T) {
	e := goEngine(t)
	all, ally := blobsK(260, 3, 4, 2)
	x, y := all.Slice(0, 200, 0, 3), ally[:200]
	vx, vy := all.Slice(200, 260, 0, 3), ally[200:]
	cfg := Config{Variant: PreFit, N: 40, ValX: vx, ValY: vy, Patience: 5, Task: Classification,
		Kernels: []pursuit.Kernel{pursuit.NewRBF(0.5)}, Bias: true, Seed: 4}
	want, err := TrainOneVsRest(e, x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ck")
	var wheres []string
	run := cfg
	run.Checkpoint = &checkpoint.Options{Path: path, Every: time.Nanosecond, Written: func(i checkpoint.Info) { wheres = append(wheres, i.Where) }}
	if _, err := TrainOneVsRest(e, x, y, run); err != nil {
		t.Fatal(err)
	}
	if len(wheres) < 5 {
		t.Fatalf("%d checkpoints written, want one a step", len(wheres))
	}
	t.Logf("%d checkpoints, the first at %s, the last at %s", len(wheres), wheres[0], wheres[len(wheres)-1])
	run.Checkpoint = &checkpoint.Options{Resume: path}
	got, err := TrainOneVsRest(e, x, y, run)
	if err != nil {
		t.Fatal(err)
	}
	sameKMP(t, "resumed from the finished run's last checkpoint", want, got)
}
