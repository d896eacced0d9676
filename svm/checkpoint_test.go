package svm

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/engine"
)

// ckSameSVM fails unless b is a, bit for bit (the cache statistics aside).
func ckSameSVM(t *testing.T, name string, a, b *Model) {
	t.Helper()
	if !slices.Equal(a.SVIndex, b.SVIndex) || len(a.Coef) != len(b.Coef) || a.Stats[0].Iter != b.Stats[0].Iter {
		t.Fatalf("%s: %d SVs after %d iterations, want %d after %d", name, len(b.SVIndex), b.Stats[0].Iter, len(a.SVIndex), a.Stats[0].Iter)
	}
	for r := range a.Coef {
		for i := range a.Coef[r] {
			if math.Float64bits(a.Coef[r][i]) != math.Float64bits(b.Coef[r][i]) {
				t.Fatalf("%s: coefficient %d is %v, want %v", name, i, b.Coef[r][i], a.Coef[r][i])
			}
		}
	}
	if math.Float64bits(a.Rho[0]) != math.Float64bits(b.Rho[0]) || math.Float64bits(a.Stats[0].Obj) != math.Float64bits(b.Stats[0].Obj) {
		t.Fatalf("%s: rho %v obj %v, want %v %v", name, b.Rho[0], b.Stats[0].Obj, a.Rho[0], a.Stats[0].Obj)
	}
}

func TestCheckpointResumeBitForBit(t *testing.T) {
	for _, backend := range []string{"go", ""} {
		opts := []engine.Option{}
		if backend != "" {
			opts = append(opts, engine.WithBackend(backend))
		}
		e, err := engine.New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		x, y := randData(7, 1200, 6)
		for _, p := range []Params{
			{Type: CSVC, Kernel: pursuit.NewRBF(0.2), C: 10, CacheMB: 0.5},
			{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.2), C: 3, Epsilon: 0.1, CacheMB: 0.5},
		} {
			want, err := Train(e, x, y, p)
			if err != nil {
				t.Fatal(err)
			}
			// Every iteration writes a checkpoint (fsync'd) until the
			// at-th, so at stays small; the CLI's kill test stops later.
			for _, at := range []int{1, 30} {
				name := e.BackendName() + " " + p.Type.String() + " stopped after " + strconv.Itoa(at) + " writes"
				path := filepath.Join(t.TempDir(), "ck")
				stop := make(chan struct{})
				run := p
				run.Checkpoint = &checkpoint.Options{Path: path, Every: 1, Stop: stop, Written: func(i checkpoint.Info) {
					if at--; at == 0 {
						close(stop)
					}
				}}
				_, err := Train(e, x, y, run)
				var se *checkpoint.StoppedError
				if !errors.As(err, &se) || !strings.HasPrefix(se.Where, "SMO iteration") {
					t.Fatalf("%s: %v", name, err)
				}
				res := p
				res.Checkpoint = &checkpoint.Options{Resume: path}
				got, err := Train(e, x, y, res)
				if err != nil {
					t.Fatalf("%s: resuming: %v", name, err)
				}
				ckSameSVM(t, name, want, got)
			}
		}
		e.Close()
	}
}

func TestCheckpointRefusesOtherSettings(t *testing.T) {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	x, y := randData(8, 300, 4)
	p := Params{Type: CSVC, Kernel: pursuit.NewRBF(0.2), C: 10}
	path := filepath.Join(t.TempDir(), "ck")
	stop := make(chan struct{})
	close(stop)
	run := p
	run.Checkpoint = &checkpoint.Options{Path: path, Stop: stop}
	if _, err := Train(e, x, y, run); !errors.Is(err, checkpoint.ErrStopped) {
		t.Fatal(err)
	}
	q := p
	q.C = 5
	q.Checkpoint = &checkpoint.Options{Resume: path}
	if _, err := Train(e, x, y, q); err == nil || !strings.Contains(err.Error(), "C was 10, is now 5") {
		t.Errorf("other C: %v", err)
	}
	q = p
	q.Checkpoint = &checkpoint.Options{Resume: path}
	if _, err := TrainOneVsRest(e, x, y, q); err == nil || !errors.Is(err, pursuit.ErrConfig) {
		t.Errorf("one-vs-rest: %v", err)
	}
}
