package slmc_test

import (
	"bytes"
	"fmt"
	"log"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// disc returns side² points on a grid over [-1,1]², labelled +1 inside the
// circle of radius 0.6 and −1 outside.
func disc(side int) (pursuit.Matrix, []float64) {
	x := pursuit.NewMatrix(side*side, 2)
	y := make([]float64, side*side)
	for i := range side {
		for j := range side {
			r := i*side + j
			a, b := -1+2*float64(i)/float64(side-1), -1+2*float64(j)/float64(side-1)
			x.Set(r, 0, float32(a))
			x.Set(r, 1, float32(b))
			y[r] = -1
			if a*a+b*b < 0.36 {
				y[r] = 1
			}
		}
	}
	return x, y
}

// Train a sparse large margin classifier with 6 expansion vectors,
// initialised by k-means: L-BFGS moves them so that the SVM optimum W over
// their span decreases.
func ExampleTrain() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	x, y := disc(20)
	res, err := slmc.Train(e, x, y, slmc.Config{
		Kernel: pursuit.NewRBF(4),
		C:      10,
		NumXV:  6,
		Init:   slmc.InitKMeans,
		Seed:   1,
	})
	if err != nil {
		log.Fatal(err)
	}
	m := res.Model
	fmt.Println("method:", m.Method, "expansion vectors:", m.NumXV())
	fmt.Println("W decreased:", res.W < res.W0)
	fmt.Printf("training error: %.4f\n", res.TrainError)

	test, ty := disc(31) // a finer grid, mostly new points
	rate, err := m.ErrorRate(e, test, ty)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("test error: %.4f\n", rate)
	// Output:
	// method: slmc expansion vectors: 6
	// W decreased: true
	// training error: 0.0100
	// test error: 0.0333
}

// Compress a trained SVM: start SLMC from a tenth of its support vectors
// (Config.InitGiven), as the paper does, and compare the test errors.
func ExampleFromSVM() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	x, y := disc(20)
	k := pursuit.NewRBF(4)
	const c = 10
	sm, err := svm.Train(e, x, y, svm.Params{Kernel: k, C: c})
	if err != nil {
		log.Fatal(err)
	}
	exp, err := slmc.FromSVM(sm, 1) // f > 0 ⇔ label +1
	if err != nil {
		log.Fatal(err)
	}
	nz := exp.NumXVFraction(0.1)
	init, err := exp.SVsAsInit(nz, 1)
	if err != nil {
		log.Fatal(err)
	}
	res, err := slmc.Train(e, x, y, slmc.Config{Kernel: k, C: c, NumXV: nz, Init: slmc.InitGiven, InitXV: init})
	if err != nil {
		log.Fatal(err)
	}

	test, ty := disc(31)
	svmRate, err := exp.AsModel().ErrorRate(e, test, ty)
	if err != nil {
		log.Fatal(err)
	}
	slmcRate, err := res.Model.ErrorRate(e, test, ty)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("SVM:  %2d support vectors, test error %.4f\n", exp.Vectors.Rows, svmRate)
	fmt.Printf("SLMC: %2d expansion vectors, test error %.4f\n", res.Model.NumXV(), slmcRate)
	// Output:
	// SVM:  44 support vectors, test error 0.0416
	// SLMC:  4 expansion vectors, test error 0.0208
}

// Save a model and load it back: the decisions are identical, and a
// damaged file is refused.
func ExampleLoad() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	x, y := disc(12)
	res, err := slmc.Train(e, x, y, slmc.Config{Kernel: pursuit.NewRBF(4), C: 10, NumXV: 4, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	if err := res.Model.Save(&buf); err != nil {
		log.Fatal(err)
	}
	file := buf.Bytes()
	m, err := slmc.Load(bytes.NewReader(file))
	if err != nil {
		log.Fatal(err)
	}
	before, err := res.Model.Decision(e, x)
	if err != nil {
		log.Fatal(err)
	}
	after, err := m.Decision(e, x)
	if err != nil {
		log.Fatal(err)
	}
	same := true
	for i := range before {
		same = same && before[i] == after[i]
	}
	fmt.Println("expansion vectors:", m.NumXV(), "identical decisions:", same)
	_, err = slmc.Load(bytes.NewReader(file[:len(file)-1]))
	fmt.Println("truncated file refused:", err != nil)
	// Output:
	// expansion vectors: 4 identical decisions: true
	// truncated file refused: true
}

// Compress a three-class one-vs-one SVM (as svm-train builds it) to a
// quarter of each pair's vectors with SLMC; the result is written back as
// an svm.Model in LIBSVM's layout, for svm-predict.
func ExampleCompress() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	x, y := disc(20)
	for i := range y { // three classes: the disc, and the left and right of the rest
		if y[i] < 0 && x.At(i, 0) > 0 {
			y[i] = 2
		}
	}
	k := pursuit.NewRBF(4)
	sm, err := svm.Train(e, x, y, svm.Params{Kernel: k, C: 10})
	if err != nil {
		log.Fatal(err)
	}
	c, err := slmc.Compress(e, sm, x, y, slmc.CompressConfig{Fraction: 0.25, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	test, ty := disc(31)
	for i := range ty {
		if ty[i] < 0 && test.At(i, 0) > 0 {
			ty[i] = 2
		}
	}
	errs := func(pred []float64) (n int) {
		for i, p := range pred {
			if p != ty[i] {
				n++
			}
		}
		return n
	}
	ps, err := sm.Predict(e, test)
	if err != nil {
		log.Fatal(err)
	}
	pc, err := c.Predict(e, test)
	if err != nil {
		log.Fatal(err)
	}
	lm, err := c.SVM()
	if err != nil {
		log.Fatal(err)
	}
	pl, err := lm.Predict(e, test)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("SVM: %d support vectors, %d test errors\n", sm.TotalSV(), errs(ps))
	fmt.Printf("compressed: %d machines, %d expansion vectors, %d test errors\n", len(c.Machines), c.NumXV(), errs(pc))
	fmt.Println("as a LIBSVM model, same labels:", slices.Equal(pc, pl))
	// Output:
	// SVM: 72 support vectors, 36 test errors
	// compressed: 3 machines, 21 expansion vectors, 43 test errors
	// as a LIBSVM model, same labels: true
}
