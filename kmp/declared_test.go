package kmp

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/internal/modelfile"
)

// A declared support shape whose product wraps around int to the number of
// values held is refused, not taken as a matrix larger than the file.
func TestLoadRefusesOverflowingShape(t *testing.T) {
	// Each product wraps to the number of values given.
	for _, shape := range [][2]int{{1 << 32, 1 << 32}, {1 << 62, 4}, {4, 1<<62 + 1}} {
		fm := fileModel{Task: "classification", Loss: "squared", Variant: "prefit", Classes: []float64{-1, 1},
			Kernels: []modelfile.Kernel{{Kind: "rbf", Gamma: 1}}, Rows: shape[0], Cols: shape[1], Support: []float32{1, 1, 1, 1},
			Outputs: []fileOutput{{Coef: []float64{}}}}
		if shape[0] == 1<<32 || shape[0] == 1<<62 {
			fm.Support = nil
		}
		var b bytes.Buffer
		if err := modelfile.WriteJSON(&b, fileMagic, fileVersion, &fm); err != nil {
			t.Fatal(err)
		}
		_, err := Load(&b)
		if err == nil || !strings.Contains(err.Error(), "support vectors") {
			t.Errorf("%d×%d support with %d values: %v", shape[0], shape[1], len(fm.Support), err)
		}
	}
}
