package svm_test

import (
	"bufio"
	"bytes"
	"fmt"
	"log"
	"math"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
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

// thirds relabels the rows of x by the third of [-1,1] their first
// coordinate falls in: classes 0, 1 and 2.
func thirds(x pursuit.Matrix) []float64 {
	y := make([]float64, x.Rows)
	for i := range y {
		y[i] = math.Min(math.Floor((float64(x.At(i, 0))+1)*1.5), 2)
	}
	return y
}

// errorRate is the fraction of predictions that differ from the labels.
func errorRate(pred, y []float64) float64 {
	wrong := 0
	for i := range pred {
		if pred[i] != y[i] {
			wrong++
		}
	}
	return float64(wrong) / float64(len(y))
}

// Train a binary C-SVC with an RBF kernel on a disc inside a square, then
// classify the training grid and two new points.
func ExampleTrain() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	x, y := disc(20)
	m, err := svm.Train(e, x, y, svm.Params{Kernel: pursuit.NewRBF(4), C: 100})
	if err != nil {
		log.Fatal(err)
	}
	pred, err := m.Predict(e, x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("labels:", m.Labels, "decision values per point:", m.NumDecision())
	fmt.Printf("support vectors: %d of %d points\n", m.TotalSV(), x.Rows)
	fmt.Printf("training error: %.4f\n", errorRate(pred, y))

	pts := pursuit.NewMatrix(2, 2) // the centre (0, 0) and a corner (0.95, −0.95)
	pts.Set(1, 0, 0.95)
	pts.Set(1, 1, -0.95)
	p, err := m.Predict(e, pts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("centre and corner:", p)
	// Output:
	// labels: [1 -1] decision values per point: 1
	// support vectors: 24 of 400 points
	// training error: 0.0000
	// centre and corner: [1 -1]
}

// Train a three-class C-SVC: Train decomposes it one-vs-one as LIBSVM
// does, with k(k−1)/2 = 3 pairwise machines and voting.
func ExampleTrain_multiclass() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	x, _ := disc(20)
	y := thirds(x)
	m, err := svm.Train(e, x, y, svm.Params{Kernel: pursuit.NewRBF(2), C: 10})
	if err != nil {
		log.Fatal(err)
	}
	pred, err := m.Predict(e, x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("classes:", m.Labels)
	fmt.Println("pairwise machines:", m.NumDecision())
	fmt.Printf("training error: %.4f\n", errorRate(pred, y))
	// Output:
	// classes: [0 1 2]
	// pairwise machines: 3
	// training error: 0.0000
}

// Train one machine per class ("class c against the rest"); the class
// with the largest decision value wins.
func ExampleTrainOneVsRest() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	x, _ := disc(20)
	y := thirds(x)
	m, err := svm.TrainOneVsRest(e, x, y, svm.Params{Kernel: pursuit.NewRBF(2), C: 10})
	if err != nil {
		log.Fatal(err)
	}
	pred, err := m.Predict(e, x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("classes:", m.Classes)
	fmt.Println("machines:", len(m.Machines))
	fmt.Printf("training error: %.4f\n", errorRate(pred, y))
	// Output:
	// classes: [0 1 2]
	// machines: 3
	// training error: 0.0000
}

// Write a model in LIBSVM's text format (readable by svm-predict) and read
// it back: the decision values are the same.
func ExampleReadLIBSVMModel() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	x, y := disc(20)
	m, err := svm.Train(e, x, y, svm.Params{Kernel: pursuit.NewRBF(4), C: 100})
	if err != nil {
		log.Fatal(err)
	}
	var file bytes.Buffer
	if err := m.WriteLIBSVM(&file); err != nil {
		log.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(file.Bytes()))
	for sc.Scan() && sc.Text() != "SV" { // the header, without rho
		if !strings.HasPrefix(sc.Text(), "rho ") {
			fmt.Println(sc.Text())
		}
	}

	m2, err := svm.ReadLIBSVMModel(&file)
	if err != nil {
		log.Fatal(err)
	}
	d1, err := m.Decision(e, x)
	if err != nil {
		log.Fatal(err)
	}
	d2, err := m2.Decision(e, x)
	if err != nil {
		log.Fatal(err)
	}
	maxDiff := 0.0
	for i := range d1 {
		maxDiff = math.Max(maxDiff, math.Abs(d1[i]-d2[i]))
	}
	fmt.Println("support vectors read back:", m2.TotalSV())
	fmt.Println("largest decision difference:", maxDiff)
	// Output:
	// svm_type c_svc
	// kernel_type rbf
	// gamma 4
	// nr_class 2
	// total_sv 24
	// label 1 -1
	// nr_sv 16 8
	// support vectors read back: 24
	// largest decision difference: 0
}
