package data

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestBinaryLabels(t *testing.T) {
	got, err := BinaryLabels([]float64{3, 1, 3, 2}, 3)
	if err != nil || !slices.Equal(got, []float64{1, -1, 1, -1}) {
		t.Errorf("BinaryLabels = %v, %v", got, err)
	}
	if err := CheckBinary(got); err != nil {
		t.Errorf("CheckBinary on BinaryLabels output: %v", err)
	}
	_, err = BinaryLabels([]float64{1, 2, 2}, 5)
	if !errors.Is(err, ErrSingleClass) || !strings.Contains(err.Error(), "no example has the positive label 5 (labels present: 1, 2)") {
		t.Errorf("absent positive: %v", err)
	}
	_, err = BinaryLabels([]float64{4, 4}, 4)
	if !errors.Is(err, ErrSingleClass) || !strings.Contains(err.Error(), "all 2 examples have the positive label 4") {
		t.Errorf("all positive: %v", err)
	}
	if _, err = BinaryLabels(nil, 1); !errors.Is(err, ErrNoExamples) {
		t.Errorf("empty: %v", err)
	}
	if _, err = BinaryLabels([]float64{1, math.NaN()}, 1); err == nil || !strings.Contains(err.Error(), "example 2") {
		t.Errorf("NaN: %v", err)
	}
}

func TestCheckBinary(t *testing.T) {
	if err := CheckBinary([]float64{-1, 1, 1}); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		y    []float64
		want error
		msg  string
	}{
		{[]float64{1, 1}, ErrSingleClass, "every example is labelled 1"},
		{[]float64{-1}, ErrSingleClass, "labelled -1"},
		{[]float64{0, 1, 0}, ErrNotBinary, "the labels are 0 and 1"},
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, ErrNotBinary, "12 distinct labels (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...)"},
		{nil, ErrNoExamples, "no examples"},
	} {
		err := CheckBinary(c.y)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("CheckBinary(%v) = %v, want %q", c.y, err, c.msg)
		}
	}
	if err := CheckBinary([]float64{1, math.Inf(-1)}); err == nil || !strings.Contains(err.Error(), "example 2") {
		t.Errorf("Inf: %v", err)
	}
}

func TestOneVsRest(t *testing.T) {
	y := []float64{2, 0, 7, 2}
	classes, targets := OneVsRest(y)
	if !slices.Equal(classes, []float64{0, 2, 7}) {
		t.Fatalf("classes %v", classes)
	}
	want := [][]float64{{-1, 1, -1, -1}, {1, -1, -1, 1}, {-1, -1, 1, -1}}
	for c := range want {
		if !slices.Equal(targets[c], want[c]) {
			t.Errorf("class %v: %v, want %v", classes[c], targets[c], want[c])
		}
	}
}

func TestCheckTargets(t *testing.T) {
	if err := CheckTargets([]float64{1.5, -2, 0}); err != nil {
		t.Error(err)
	}
	if err := CheckTargets([]float64{1, math.NaN()}); err == nil || !strings.Contains(err.Error(), "example 2: target NaN") {
		t.Errorf("NaN: %v", err)
	}
	if err := CheckTargets(nil); !errors.Is(err, ErrNoExamples) {
		t.Errorf("empty: %v", err)
	}
	// Issue 16: a target whose square (or float32 copy) overflows is an
	// input error, not an Inf later.
	if err := CheckTargets([]float64{2, -1e300}); !errors.Is(err, ErrOutOfRange) || !strings.Contains(err.Error(), "example 2") {
		t.Errorf("-1e300: %v", err)
	}
	if err := CheckTargets([]float64{math.MaxFloat32, -math.MaxFloat32}); err != nil {
		t.Errorf("±MaxFloat32: %v", err)
	}
}
