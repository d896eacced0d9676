package data

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// imbalancedLabels returns n labels over 4 classes with shares 50/30/15/5 %.
func imbalancedLabels(n int) []float64 {
	y := make([]float64, n)
	for i := range y {
		switch r := i % 20; {
		case r < 10:
			y[i] = 0
		case r < 16:
			y[i] = 1
		case r < 19:
			y[i] = 2
		default:
			y[i] = 7
		}
	}
	return y
}

// checkPartition checks the sets are disjoint, sorted, within [0,n), and
// returns how many indices they hold.
func checkPartition(t *testing.T, n int, sets [][]int) int {
	t.Helper()
	seen := make([]bool, n)
	total := 0
	for k, s := range sets {
		if !slices.IsSorted(s) {
			t.Fatalf("set %d not sorted", k)
		}
		for _, i := range s {
			if i < 0 || i >= n || seen[i] {
				t.Fatalf("set %d: index %d out of range or repeated", k, i)
			}
			seen[i] = true
		}
		total += len(s)
	}
	return total
}

func TestKFoldCovers(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100, 1001} {
		for _, k := range []int{1, 2, 3, 5, 10} {
			for _, labels := range [][]float64{nil, imbalancedLabels(n)} {
				folds := KFold(n, k, uint64(n*k), labels)
				if len(folds) != k {
					t.Fatalf("n=%d k=%d: %d folds", n, k, len(folds))
				}
				if got := checkPartition(t, n, folds); got != n {
					t.Fatalf("n=%d k=%d: folds hold %d indices", n, k, got)
				}
				for f, s := range folds {
					if math.Abs(float64(len(s))-float64(n)/float64(k)) >= 1 {
						t.Errorf("n=%d k=%d fold %d: size %d", n, k, f, len(s))
					}
				}
				if labels != nil {
					checkStrata(t, labels, folds, uniform(k))
				}
			}
		}
	}
}

func uniform(k int) []float64 {
	f := make([]float64, k)
	for i := range f {
		f[i] = 1 / float64(k)
	}
	return f
}

// checkStrata checks each class's count in each set is within 1.5 of its
// exact share.
func checkStrata(t *testing.T, labels []float64, sets [][]int, fractions []float64) {
	t.Helper()
	classTotal := map[float64]int{}
	for _, y := range labels {
		classTotal[y]++
	}
	for k, s := range sets {
		inSet := map[float64]int{}
		for _, i := range s {
			inSet[labels[i]]++
		}
		for c, tot := range classTotal {
			if want := fractions[k] * float64(tot); math.Abs(float64(inSet[c])-want) > 1.5 {
				t.Errorf("set %d class %v: %d examples, want %.1f", k, c, inSet[c], want)
			}
		}
	}
}

func TestSplit(t *testing.T) {
	const n = 997
	labels := imbalancedLabels(n)
	for seed := range uint64(20) {
		for _, fr := range [][]float64{{0.6, 0.2, 0.2}, {1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.5, 0.25}, {0.1}, {1}} {
			for _, lab := range [][]float64{nil, labels} {
				sets := Split(n, fr, seed, lab)
				if len(sets) != len(fr) {
					t.Fatalf("%d sets for %d fractions", len(sets), len(fr))
				}
				total := checkPartition(t, n, sets)
				sum := 0.0
				for k, s := range sets {
					sum += fr[k]
					if math.Abs(float64(len(s))-fr[k]*n) >= 1 {
						t.Errorf("seed %d fractions %v set %d: size %d, want %.1f", seed, fr, k, len(s), fr[k]*n)
					}
				}
				if math.Abs(float64(total)-sum*n) >= 1 {
					t.Errorf("fractions %v: %d assigned, want %.1f", fr, total, sum*n)
				}
				if lab != nil {
					checkStrata(t, lab, sets, fr)
				}
			}
		}
	}
}

func TestSplitSeeded(t *testing.T) {
	a := Split(100, []float64{0.5, 0.5}, 42, nil)
	b := Split(100, []float64{0.5, 0.5}, 42, nil)
	c := Split(100, []float64{0.5, 0.5}, 43, nil)
	if !slices.Equal(a[0], b[0]) || !slices.Equal(a[1], b[1]) {
		t.Error("same seed, different splits")
	}
	if slices.Equal(a[0], c[0]) {
		t.Error("different seeds, same split")
	}
	// Not the trivial split into halves.
	if slices.Equal(a[0], seq(50)) {
		t.Error("split is not shuffled")
	}
	// Stratified with one singleton class per example (regression targets)
	// still depends on the seed.
	y := make([]float64, 100)
	for i := range y {
		y[i] = float64(i) * 0.37
	}
	if slices.Equal(Split(100, []float64{0.5}, 1, y)[0], Split(100, []float64{0.5}, 2, y)[0]) {
		t.Error("stratified split on distinct targets ignores the seed")
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestCheckSplit(t *testing.T) {
	for _, c := range []struct {
		n      int
		fr     []float64
		labels []float64
		msg    string
	}{
		{-1, []float64{1}, nil, "negative example count"},
		{3, nil, nil, "no fractions"},
		{3, []float64{0.5, -0.1}, nil, "fraction 2 is -0.1"},
		{3, []float64{math.NaN()}, nil, "fraction 1 is NaN"},
		{3, []float64{0.7, 0.4}, nil, "more than 1"},
		{3, []float64{0.5}, []float64{1, 2}, "2 labels for 3 examples"},
	} {
		err := CheckSplit(c.n, c.fr, c.labels)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("CheckSplit(%d, %v, %v) = %v, want %q", c.n, c.fr, c.labels, err, c.msg)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "more than 1") {
			t.Errorf("Split with bad fractions: recovered %v", r)
		}
	}()
	Split(3, []float64{0.7, 0.4}, 0, nil)
}
