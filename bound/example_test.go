package bound_test

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/bound"
)

// A classifier kept 274 of its 7291 training points and errs on 60 of the
// others: Theorem 2 bounds its true error with probability 95%.
func ExampleCompression() {
	v, err := bound.Compression(7291, 274, 60, 0.05)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.4f trivial=%v\n", v, bound.Trivial(v))
	// Output: 0.2196 trivial=false
}

// Kernel matching pursuit with 100 basis vectors and no training point off
// by more than α.
func ExampleKMP() {
	v, _ := bound.KMP(7291, 100, 0, 0.05)
	fmt.Printf("%.4f\n", v)
	// Output: 0.4904
}
