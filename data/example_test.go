package data_test

import (
	"fmt"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
)

func ExampleReadLibSVM() {
	in := "+1 1:0.5 3:-2 # a comment\n-1 qid:4 2:1\n"
	d, err := data.ReadLibSVM(strings.NewReader(in), "example.svm")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Len(), d.Dim(), d.Y, d.X.Row(0))

	// Bad input names the file, the line, the token and the reason.
	_, err = data.ReadLibSVM(strings.NewReader("1 1:1\n-1 3:1 2:1\n"), "bad.svm")
	fmt.Println(err)
	// Output:
	// 2 3 [1 -1] [0.5 0 -2]
	// bad.svm:2: token "2:1": malformed input: feature index 2 after 3 (indices must be strictly increasing)
}

func ExampleFitScaler() {
	train, _ := data.ReadLibSVM(strings.NewReader("1 1:0 2:5\n-1 1:10 2:5\n"), "train")
	s, _ := data.FitScaler(data.ScaleMinMax, train.X)
	_ = s.Apply(train.X)
	fmt.Println(train.X.Row(0), train.X.Row(1))

	// At prediction: the same parameters, and the same feature count.
	test, _ := data.ReadLibSVM(strings.NewReader("1 1:5 2:7\n"), "test", data.WithDim(s.Dim()))
	_ = s.Apply(test.X)
	fmt.Println(test.X.Row(0))
	// Output:
	// [-1 0] [1 0]
	// [0 0]
}

func ExampleSplit() {
	y := []float64{1, 1, 1, 1, 1, 1, -1, -1, -1, -1}
	sets := data.Split(len(y), []float64{0.5, 0.5}, 42, y) // stratified halves
	for _, s := range sets {
		pos := 0
		for _, i := range s {
			if y[i] > 0 {
				pos++
			}
		}
		fmt.Println(len(s), "examples,", pos, "positive")
	}
	// Output:
	// 5 examples, 3 positive
	// 5 examples, 3 positive
}
