package greedy

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/internal/modelfile"
)

// A declared centre shape whose product wraps around int to the number of
// values held is refused.
func TestLoadKFDARefusesOverflowingShape(t *testing.T) {
	fm := kfdaFile{Kernel: modelfile.Kernel{Kind: "rbf", Gamma: 1}, Rows: 4, Cols: 1<<62 + 1,
		Centres: []float32{1, 1, 1, 1}, Index: []int{0, 1, 2, 3}, Alpha: []float64{1, 1, 1, 1}, W: []float64{1, 1, 1, 1}, Scores: []float64{1, 1, 1, 1}}
	var b bytes.Buffer
	if err := modelfile.WriteJSON(&b, kfdaMagic, kfdaVersion, &fm); err != nil {
		t.Fatal(err)
	}
	_, err := LoadKFDA(&b)
	if err == nil || !strings.Contains(err.Error(), "centre values") {
		t.Errorf("4×(2^62+1) centres with 4 values (the product wraps to 4): %v", err)
	}
}
