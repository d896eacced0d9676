package slmc

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
)

// sameResult fails unless b is a's model bit for bit, with the same
// optimisation statistics (times aside).
func sameResult(t *testing.T, name string, a, b *Result) {
	t.Helper()
	if a.Model.NumXV() != b.Model.NumXV() || math.Float64bits(a.Model.Bias) != math.Float64bits(b.Model.Bias) {
		t.Fatalf("%s: %d vectors, bias %v; want %d, %v", name, b.Model.NumXV(), b.Model.Bias, a.Model.NumXV(), a.Model.Bias)
	}
	for i, v := range a.Model.Beta {
		if math.Float64bits(v) != math.Float64bits(b.Model.Beta[i]) {
			t.Fatalf("%s: β_%d is %v, want %v", name, i, b.Model.Beta[i], v)
		}
	}
	for i := range a.Model.XV.Rows {
		for j, v := range a.Model.XV.Row(i) {
			if math.Float32bits(v) != math.Float32bits(b.Model.XV.Row(i)[j]) {
				t.Fatalf("%s: z_%d,%d is %v, want %v", name, i, j, b.Model.XV.Row(i)[j], v)
			}
		}
	}
	if a.Iterations != b.Iterations || a.Evaluations != b.Evaluations || a.Restarts != b.Restarts || a.Stop != b.Stop ||
		math.Float64bits(a.W) != math.Float64bits(b.W) || len(a.History) != len(b.History) {
		t.Fatalf("%s: %d iterations, %d evaluations, %d restarts, stop %q, W %v, %d records; want %d, %d, %d, %q, %v, %d",
			name, b.Iterations, b.Evaluations, b.Restarts, b.Stop, b.W, len(b.History),
			a.Iterations, a.Evaluations, a.Restarts, a.Stop, a.W, len(a.History))
	}
	for i, p := range a.History {
		q := b.History[i]
		p.Elapsed, q.Elapsed = 0, 0
		if p != q && !(math.IsNaN(p.TrainError) && math.IsNaN(q.TrainError)) {
			t.Fatalf("%s: iteration record %d is %+v, want %+v", name, i, q, p)
		}
	}
}

// TestCheckpointResumeBitForBit stops SLMC and SKFD at iteration
// boundaries (several times in a row) and resumes each from its
// checkpoint: the final model and statistics equal an uninterrupted run's
// bit for bit.
func TestCheckpointResumeBitForBit(t *testing.T) {
	e := goEngine(t)
	x, y := blobs(240, 3, 0.7, 8)
	cfg := Config{Kernel: pursuit.NewRBF(0.5), C: 10, NumXV: 6, Init: InitRandom, Seed: 3, Optim: OptimOptions{MaxIter: 40}}
	train := map[string]func(Config) (*Result, error){
		"slmc": func(c Config) (*Result, error) { return Train(e, x, y, c) },
		"skfd": func(c Config) (*Result, error) {
			r, err := TrainSKFD(e, x, y, c, 0)
			if err != nil {
				return nil, err
			}
			return &r.Result, nil
		},
	}
	for _, name := range []string{"slmc", "skfd"} {
		want, err := train[name](cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %d iterations, %d evaluations, %d restarts, %s", name, want.Iterations, want.Evaluations, want.Restarts, want.Stop)
		if want.Iterations < 8 {
			t.Fatalf("%s: only %d iterations: the test stops nothing", name, want.Iterations)
		}
		for _, stops := range [][]int{{1}, {want.Iterations / 2}, {2, 5, want.Iterations - 1}} {
			path := filepath.Join(t.TempDir(), "ck")
			resume := ""
			for _, at := range stops {
				stop := make(chan struct{})
				run := cfg
				run.Checkpoint = &checkpoint.Options{Path: path, Resume: resume, Stop: stop}
				run.Optim.Progress = func(p Progress) {
					if p.Iter == at {
						close(stop)
					}
				}
				_, err := train[name](run)
				var se *checkpoint.StoppedError
				if !errors.As(err, &se) || se.Path != path || !strings.HasPrefix(se.Where, fmt.Sprintf("iteration %d of", at)) {
					t.Fatalf("%s: stopping at iteration %d: %v", name, at, err)
				}
				resume = path
			}
			run := cfg
			run.Checkpoint = &checkpoint.Options{Path: path, Resume: resume}
			got, err := train[name](run)
			if err != nil {
				t.Fatalf("%s: resuming after iterations %v: %v", name, stops, err)
			}
			sameResult(t, fmt.Sprintf("%s stopped at iterations %v", name, stops), want, got)
		}
	}
}

// TestCheckpointRefusalsSLMC: a checkpoint resumes only the learner and
// the settings it was written for.
func TestCheckpointRefusalsSLMC(t *testing.T) {
	e := goEngine(t)
	x, y := blobs(120, 2, 0.7, 4)
	cfg := Config{Kernel: pursuit.NewRBF(0.5), C: 10, NumXV: 4, Seed: 1, Optim: OptimOptions{MaxIter: 20}}
	path := filepath.Join(t.TempDir(), "ck")
	stop := make(chan struct{})
	run := cfg
	run.Checkpoint = &checkpoint.Options{Path: path, Stop: stop}
	run.Optim.Progress = func(p Progress) {
		if p.Iter == 3 {
			close(stop)
		}
	}
	if _, err := Train(e, x, y, run); !errors.Is(err, checkpoint.ErrStopped) {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		mod  func(*Config)
		skfd bool
		want string
	}{
		{"C", func(c *Config) { c.C = 11 }, false, "C was 10, is now 11"},
		{"Nz", func(c *Config) { c.NumXV = 5 }, false, "expansion vectors was 4, is now 5"},
		{"memory", func(c *Config) { c.Optim.Store = 5 }, false, "optimiser was"},
		{"skfd", func(*Config) {}, true, "written by slmc training, not skfd"},
	} {
		run := cfg
		c.mod(&run)
		run.Checkpoint = &checkpoint.Options{Resume: path}
		var err error
		if c.skfd {
			_, err = TrainSKFD(e, x, y, run, 0)
		} else {
			_, err = Train(e, x, y, run)
		}
		if !errors.Is(err, pursuit.ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a bad-input error containing %q", c.name, err, c.want)
		}
	}
	y2 := append([]float64(nil), y...)
	y2[0] = -y2[0]
	run = cfg
	run.Checkpoint = &checkpoint.Options{Resume: path}
	if _, err := Train(e, x, y2, run); !errors.Is(err, pursuit.ErrBadInput) || !strings.Contains(err.Error(), "training data was") {
		t.Errorf("other labels: %v", err)
	}
}
