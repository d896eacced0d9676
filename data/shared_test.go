package data

import (
	"math"
	"testing"
)

// TestSharedDatasets loads every shared benchmark file and checks the shapes
// and label counts documented in the shared datasets README.
func TestSharedDatasets(t *testing.T) {
	cases := []struct {
		path      []string
		rows, dim int
		pos, neg  int // binary label counts; 0, 0 for non-binary sets
	}{
		{[]string{"uci", "sonar.gz"}, 208, 60, 111, 97},
		{[]string{"uci", "ionosphere.gz"}, 351, 34, 225, 126},
		{[]string{"uci", "pima.gz"}, 768, 8, 268, 500},
		{[]string{"uci", "wisconsin.gz"}, 683, 9, 239, 444},
		{[]string{"mushrooms", "mushrooms.gz"}, 8124, 112, 3916, 4208},
		{[]string{"boston", "boston.gz"}, 506, 13, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.path[1], func(t *testing.T) {
			d, err := Load(sharedFile(t, c.path...))
			if err != nil {
				t.Fatal(err)
			}
			if d.Len() != c.rows || d.Dim() != c.dim {
				t.Fatalf("shape %d×%d, want %d×%d", d.Len(), d.Dim(), c.rows, c.dim)
			}
			if c.pos+c.neg > 0 {
				if err := CheckBinary(d.Y); err != nil {
					t.Fatal(err)
				}
				pos := 0
				for _, y := range d.Y {
					if y == 1 {
						pos++
					}
				}
				if pos != c.pos || d.Len()-pos != c.neg {
					t.Errorf("%d positive, %d negative; want %d, %d", pos, d.Len()-pos, c.pos, c.neg)
				}
			} else {
				if err := CheckTargets(d.Y); err != nil {
					t.Fatal(err)
				}
				sum := 0.0
				for _, y := range d.Y {
					sum += y
				}
				if mean := sum / float64(d.Len()); math.Abs(mean-22.5328) > 5e-5 {
					t.Errorf("mean target %v, want 22.5328", mean)
				}
			}
			t.Logf("%d duplicate rows, %d with a conflicting label", len(DuplicateRows(d.X)), len(LabelConflicts(d)))
		})
	}
}
