package learn_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
)

// TestCVGrid checks the cross-validation of a grid: one training per fold
// shared by settings that differ in the number of basis functions gives
// the figures of training each on its own, with per-fold scaling, and the
// trainings spread over ranks give the figures of one process.
func TestCVGrid(t *testing.T) {
	ds := blobs(90, 2, 5)
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	kmpL := func(gamma float64, basis int) learn.Learner {
		cfg := kmp.Config{Variant: kmp.PreFit, Loss: kmp.Squared, Kernels: []pursuit.Kernel{pursuit.NewRBF(gamma)}, Bias: true, Seed: 1}
		return learn.KMP{Name: "kmp", Config: cfg, Basis: basis}
	}
	basis := []int{2, 5, 8}
	groups := func(shared bool) []learn.CVGroup {
		var gs []learn.CVGroup
		for _, g := range []float64{0.5, 2} {
			var cg learn.CVGroup
			for _, b := range basis {
				cg.Learners = append(cg.Learners, kmpL(g, b))
				cg.Names = append(cg.Names, fmt.Sprintf("gamma=%g basis=%d", g, b))
			}
			if shared {
				cg.Shared, cg.Basis = kmpL(g, basis[len(basis)-1]), basis
			}
			gs = append(gs, cg)
		}
		return gs
	}
	cv := learn.CV{Folds: 3, Seed: 4, Prep: learn.Prep{Scale: learn.ScaleAuto}}
	e := newEngine(t)
	alone, err := cv.Grid(e, groups(false), plan, ds)
	if err != nil {
		t.Fatal(err)
	}
	shared, err := cv.Grid(e, groups(true), plan, ds)
	if err != nil {
		t.Fatal(err)
	}
	if len(alone) != 6 || len(shared) != 6 {
		t.Fatalf("%d and %d results, want 6", len(alone), len(shared))
	}
	for i := range alone {
		a, s := alone[i], shared[i]
		if a.Error != s.Error || a.TrainError != s.TrainError || a.NBasis != s.NBasis || a.Std != s.Std {
			t.Errorf("setting %d: trained alone %+v, shared %+v", i, a, s)
		}
	}
	for _, n := range []int{2, 3} {
		err := comm.Run(n, func(c comm.Comm) error {
			e, err := engine.New(engine.WithBackend("go"))
			if err != nil {
				return err
			}
			defer e.Close()
			r := cv
			r.Ranks = engine.GroupOf(c)
			got, err := r.Grid(e, groups(true), plan, ds)
			if err != nil {
				return err
			}
			for i := range got {
				if got[i].Error != shared[i].Error || got[i].TrainError != shared[i].TrainError || got[i].NBasis != shared[i].NBasis {
					return fmt.Errorf("rank %d of %d, setting %d: %+v, want %+v", c.Rank(), n, i, got[i], shared[i])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestPlanLabels checks the task choice in one process and across ranks
// (each rank holding a part of the labels).
func TestPlanLabels(t *testing.T) {
	one := engine.Group{}
	y := []float64{3, 1, 2, 1, 3}
	p, err := learn.PlanLabels(one, y, learn.LabelSpec{OneVsRest: true}, nil)
	if err != nil || p.Task != learn.TaskOneVsRest || fmt.Sprint(p.Classes) != "[1 2 3]" {
		t.Fatalf("one-vs-rest: %v %v", p, err)
	}
	var ce *learn.ClassesError
	if _, err := learn.PlanLabels(one, y, learn.LabelSpec{}, nil); !errors.As(err, &ce) || len(ce.Classes) != 3 || !errors.Is(err, pursuit.ErrBadInput) {
		t.Fatalf("three classes without a choice: %v", err)
	}
	seven := 7.0
	var pe *learn.PositiveError
	if _, err := learn.PlanLabels(one, y, learn.LabelSpec{Positive: &seven}, nil); !errors.As(err, &pe) {
		t.Fatalf("absent positive class: %v", err)
	}
	err = comm.Run(3, func(c comm.Comm) error {
		mine := [][]float64{{2}, {}, {5, 2}}[c.Rank()]
		p, err := learn.PlanLabels(engine.GroupOf(c), mine, learn.LabelSpec{}, nil)
		if err != nil || p.Task != learn.TaskBinary || fmt.Sprint(p.Classes) != "[2 5]" {
			return fmt.Errorf("rank %d: %v %v", c.Rank(), p, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCVGridSparse cross-validates on sparse rows of many features within
// a budget that the dense size of the rows would exceed: the folds are
// charged what they hold.
func TestCVGridSparse(t *testing.T) {
	ds := blobs(60, 2, 3)
	off := make([]int64, 61)
	var idx []int32
	var val []float32
	for i := range 60 {
		idx = append(idx, 0, 1)
		val = append(val, ds.X.At(i, 0), ds.X.At(i, 1))
		off[i+1] = int64(len(idx))
	}
	sp, err := pursuit.SparseFrom(60, 200000, off, idx, val)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.WithBackend("go"), engine.WithMemoryBudget(16<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	cfg := kmp.Config{Variant: kmp.PreFit, Loss: kmp.Squared, Kernels: []pursuit.Kernel{pursuit.NewRBF(1)}, Bias: true, Seed: 1}
	cv := learn.CV{Folds: 3, Seed: 1, Prep: learn.Prep{Scale: learn.ScaleAuto}}
	res, err := cv.Grid(e, []learn.CVGroup{{Learners: []learn.Learner{learn.KMP{Name: "kmp", Config: cfg, Basis: 5}}}}, plan, &data.Dataset{X: sp, Y: ds.Y, Name: "wide"})
	if err != nil {
		t.Fatal(err)
	}
	if !(res[0].Error < 0.2) {
		t.Fatalf("cv error %v", res[0].Error)
	}
}
