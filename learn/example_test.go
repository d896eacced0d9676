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

// A training run as the command line does it, without it: hold out a
// quarter of the training data for validation and scale with the fit on
// the rest (one preprocessing step), train with early stopping on the
// validation part, and measure every error.
func ExampleFitEvaluate() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	train, test := blobs(200, 2, 1), blobs(100, 2, 2)
	plan, err := learn.PlanLabels(e.Group(), train.Y, learn.LabelSpec{}, nil)
	if err != nil {
		log.Fatal(err)
	}
	pr, err := learn.Prep{ValFrac: 0.25, Seed: 1, Scale: learn.ScaleAuto, InPlace: true}.Apply(e, plan, train, test)
	if err != nil {
		log.Fatal(err)
	}
	defer pr.Release(e)
	k := pursuit.NewRBF(2)
	l := learn.KMP{Config: kmp.Config{Variant: kmp.PreFit, Kernels: []pursuit.Kernel{k}, Bias: true, Seed: 1, Patience: 5}, Basis: 30}
	r, err := learn.FitEvaluate(e, "kmp", k, l, plan, pr.Train, pr.Val, pr.Test, nil)
	if err != nil {
		log.Fatal(err)
	}
	r.Model.Header.Scaler = pr.Scaler // the model file scales what it predicts
	fmt.Printf("%d training, %d validation, %d test rows; test error below 10%%: %v\n", pr.Train.Len(), pr.Val.Len(), r.NTest, r.TestError < 0.1)
	// Output: 150 training, 50 validation, 100 test rows; test error below 10%: true
}

// Cross-validation of a grid whose settings differ in the number of basis
// functions: one KMP training per fold serves them all (Shared), each
// fold scaled with its own training part, the trainings spread over the
// ranks of CV.Ranks when it has several.
func ExampleCV_Grid() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	ds := blobs(200, 2, 1)
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	newKMP := func(basis int) learn.Learner {
		cfg := kmp.Config{Variant: kmp.PreFit, Kernels: []pursuit.Kernel{pursuit.NewRBF(1)}, Bias: true, Seed: 1}
		return learn.KMP{Config: cfg, Basis: basis}
	}
	basis := []int{2, 5, 10}
	g := learn.CVGroup{Shared: newKMP(10), Basis: basis}
	for _, b := range basis {
		g.Learners = append(g.Learners, newKMP(b))
	}
	cv := learn.CV{Folds: 5, Seed: 1, Prep: learn.Prep{Scale: learn.ScaleAuto}}
	res, err := cv.Grid(e, []learn.CVGroup{g}, plan, ds)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d settings; 10 basis functions: cv error below 10%%: %v\n", len(res), res[2].Error < 0.1)
	// Output: 3 settings; 10 basis functions: cv error below 10%: true
}

// Training by name, as the pursuit command does: the settings of any
// algorithm in one struct, checked (errors name the setting), then one
// whole run with a validation split for KMP's early stopping and the
// scaling fitted on the training part.
func ExampleFitSettings() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	tr, test := blobs(200, 2, 1), blobs(100, 2, 2)
	s := learn.DefaultSettings()
	s.Algo, s.Gamma, s.Basis = "kmp-backfit", 0.5, 10
	if err := s.Validate(map[string]bool{"gamma": true, "basis": true}, nil); err != nil {
		log.Fatal(err)
	}
	d := learn.DataSettings{Format: "auto", Scale: "minmax", ValFrac: 0.25}
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	f, pr, err := learn.FitSettings(e, &s, &d, plan, tr, test, nil, "example", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer pr.Release(e)
	fmt.Printf("%s: at most 10 basis functions: %v, %d validation rows, test error below 10%%: %v\n",
		f.Model.Header.Algorithm, f.Model.NBasis() <= 10, pr.Val.Len(), f.TestError < 0.1)

	s.Algo, s.C = "kmp", 3
	err = s.Validate(map[string]bool{"c": true}, nil)
	fmt.Println(err)
	// Output:
	// kmp-backfit: at most 10 basis functions: true, 50 validation rows, test error below 10%: true
	// c does not apply to algo kmp (it is for svm, slmc, bpdn)
}
