package learn_test

import (
	"fmt"
	"log"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/svm"
)

// Multi-class classification with any binary learner: the label plan says
// how three classes become binary models (one-vs-one here, one per pair),
// and Train fits them.
func ExampleTrain() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	ds := blobs(150, 3, 2)
	l := learn.SVM{Params: svm.Params{Type: svm.CSVC, Kernel: pursuit.NewRBF(0.5), C: 1}}
	plan := learn.LabelPlan{Task: learn.TaskOneVsOne, Classes: learn.Distinct(ds.Y)}
	models, err := learn.Train(e, l, plan, ds.X, ds.Y, pursuit.Matrix{}, nil)
	if err != nil {
		log.Fatal(err)
	}
	f := learn.NewFile(plan, ds.Dim(), l.Params.Kernel, models)
	rate, err := f.ErrorRate(e, ds.X, ds.Y)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d %s models, training error below 10%%: %v\n", len(models), f.Header.Algorithm, rate < 0.1)
	// Output: 3 svm models, training error below 10%: true
}

// A grid search by 5-fold cross-validation over the width of the kernel
// and the number of basis functions of KMP, with the learning curve that
// KMP's models give after 1, 5 and 10 steps.
func ExampleGridSearch() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	ds := blobs(200, 2, 1)
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	params := []learn.Param{{Name: "gamma", Values: []float64{0.1, 1}}, {Name: "basis", Values: []float64{5, 10}}}
	newKMP := func(v []float64) (learn.Learner, error) {
		cfg := kmp.Config{Variant: kmp.PreFit, Kernels: []pursuit.Kernel{pursuit.NewRBF(v[0])}, Bias: true, Seed: 1}
		return learn.KMP{Config: cfg, Basis: int(v[1])}, nil
	}
	points, best, err := learn.GridSearch(e, params, newKMP, plan, ds, learn.CV{Folds: 5, Seed: 1, Steps: []int{1, 5, 10}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d settings; the best has cv error below 10%%: %v, and a curve of %d points\n",
		len(points), points[best].Error < 0.1, len(points[best].Curve))
	// Output: 4 settings; the best has cv error below 10%: true, and a curve of 3 points
}
