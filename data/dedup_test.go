package data

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

func TestDuplicateRowsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, shape := range [][2]int{{0, 3}, {1, 2}, {40, 3}, {200, 1}, {30, 0}} {
		n, d := shape[0], shape[1]
		x := pursuit.NewMatrix(n, d)
		for i := range n {
			for j := range d {
				x.Set(i, j, float32(rng.IntN(3))) // few distinct values: many duplicates
			}
		}
		var want []int
		for i := range n {
			for j := range i {
				if slices.Equal(x.Row(i), x.Row(j)) {
					want = append(want, i)
					break
				}
			}
		}
		if got := DuplicateRows(x); !slices.Equal(got, want) {
			t.Errorf("%d×%d: DuplicateRows = %v, want %v", n, d, got, want)
		}
	}
}

func TestDuplicateRowsSpecial(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	nan := float32(math.NaN())
	x := matrix(t, [][]float32{{0, 1}, {negZero, 1}, {nan, 1}, {nan, 1}, {1, 0}})
	if got := DuplicateRows(x); !slices.Equal(got, []int{1}) {
		t.Errorf("DuplicateRows = %v, want [1] (-0 == +0, NaN equals nothing)", got)
	}
	// A strided view compares only its own columns.
	wide := matrix(t, [][]float32{{1, 2, 9}, {1, 2, 8}})
	if got := DuplicateRows(wide.Slice(0, 2, 0, 2)); !slices.Equal(got, []int{1}) {
		t.Errorf("strided DuplicateRows = %v", got)
	}
}

func TestDedup(t *testing.T) {
	x := matrix(t, [][]float32{{1, 2}, {3, 4}, {1, 2}, {5, 6}, {3, 4}, {1, 2}})
	d := &Dataset{X: x, Y: []float64{1, -1, -1, 1, -1, 1}, Name: "dups"}
	out, kept := Dedup(d)
	if !slices.Equal(kept, []int{0, 1, 3}) {
		t.Fatalf("kept %v", kept)
	}
	wantRows(t, out, []float64{1, -1, 1}, [][]float64{{1, 2}, {3, 4}, {5, 6}})
	if out.Name != "dups" {
		t.Errorf("Name %q", out.Name)
	}
	// Row 2 repeats row 0 with the other label: a conflict; rows 4, 5 agree.
	if got := LabelConflicts(d); !slices.Equal(got, []int{2}) {
		t.Errorf("LabelConflicts = %v, want [2]", got)
	}
	// Dedup copies: changing the result leaves d alone.
	out.X.Set(0, 0, 42)
	if d.X.At(0, 0) != 1 {
		t.Error("Dedup shares storage")
	}
}

// TestMergeDuplicatesBruteForce checks MergeDuplicates against a quadratic
// search: one row per distinct (features, label) pair in order of first
// occurrence, counts adding up to the rows of the group.
func TestMergeDuplicatesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n, d := 120, 2
	x := pursuit.NewMatrix(n, d)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, float32(rng.IntN(3)))
		}
		y[i] = float64(rng.IntN(2))
	}
	ds := &Dataset{X: x, Y: y}
	m, counts := MergeDuplicates(ds)
	var wantRows []int
	var wantCounts []float64
	for i := range n {
		found := false
		for r, j := range wantRows {
			if slices.Equal(x.Row(i), x.Row(j)) && y[i] == y[j] {
				wantCounts[r]++
				found = true
				break
			}
		}
		if !found {
			wantRows = append(wantRows, i)
			wantCounts = append(wantCounts, 1)
		}
	}
	if m.Len() != len(wantRows) || !slices.Equal(counts, wantCounts) {
		t.Fatalf("%d merged rows with counts %v, want %d with %v", m.Len(), counts, len(wantRows), wantCounts)
	}
	for r, i := range wantRows {
		if !slices.Equal(m.X.Row(r), x.Row(i)) || m.Y[r] != y[i] {
			t.Fatalf("merged row %d is %v/%v, want row %d %v/%v", r, m.X.Row(r), m.Y[r], i, x.Row(i), y[i])
		}
	}
}
