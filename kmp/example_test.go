package kmp_test

import (
	"bytes"
	"fmt"
	"log"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/kmp"
)

// ring returns n points on a grid over [-1,1]², labelled +1 inside the
// circle of radius 0.6 and −1 outside.
func ring(n int) (pursuit.Matrix, []float64) {
	side := int(math.Sqrt(float64(n)))
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

// Train a binary classifier by pre-fitting KMP with an RBF kernel and 12
// basis functions, then predict.
func ExampleTrain() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	x, y := ring(400)
	m, err := kmp.Train(e, x, y, kmp.Config{
		Variant: kmp.PreFit,
		Kernels: []pursuit.Kernel{pursuit.NewRBF(4)},
		N:       12,
		Bias:    true,
	})
	if err != nil {
		log.Fatal(err)
	}
	pred, err := m.Predict(e, x)
	if err != nil {
		log.Fatal(err)
	}
	wrong := 0
	for i := range pred {
		if pred[i] != y[i] {
			wrong++
		}
	}
	curve := m.Outputs[0].Curve
	fmt.Printf("%d steps, %d support vectors, bias %.2f\n", len(curve), m.Size().SupportVectors, m.Outputs[0].Bias)
	fmt.Printf("training error below 5%%: %v\n", float64(wrong)/float64(len(y)) < 0.05)
	// Output:
	// 12 steps, 11 support vectors, bias -1.09
	// training error below 5%: true
}

// Train one machine per class on a shared dictionary, with early stopping
// on a held-out fifth of the data.
func ExampleTrainOneVsRest() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	x, _ := ring(400)
	y := make([]float64, x.Rows)
	for i := range y { // three classes: left, middle, right thirds
		y[i] = math.Floor((float64(x.At(i, 0)) + 1) * 1.5)
		y[i] = math.Min(y[i], 2)
	}
	m, err := kmp.TrainOneVsRest(e, x, y, kmp.Config{
		Kernels:  []pursuit.Kernel{pursuit.NewRBF(2)},
		ValFrac:  0.2,
		Patience: 10,
		Bias:     true,
		Seed:     1,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("classes:", m.Classes)
	fmt.Println("outputs:", len(m.Outputs))
	// Output:
	// classes: [0 1 2]
	// outputs: 3
}

// Save a model and load it back; a damaged file is refused.
func ExampleLoad() {
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		log.Fatal(err)
	}
	x, y := ring(100)
	m, err := kmp.Train(e, x, y, kmp.Config{Kernels: []pursuit.Kernel{pursuit.NewRBF(4)}, N: 5})
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		log.Fatal(err)
	}
	file := buf.Bytes()
	m2, err := kmp.Load(bytes.NewReader(file))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("support vectors:", m2.Size().SupportVectors)
	_, err = kmp.Load(bytes.NewReader(file[:len(file)-1]))
	fmt.Println("truncated file refused:", err != nil)
	// Output:
	// support vectors: 5
	// truncated file refused: true
}
