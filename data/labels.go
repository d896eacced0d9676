package data

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// BinaryLabels maps y to ±1: +1 where y[i] == positive, −1 elsewhere. It
// fails (ErrSingleClass) if the result has one class only, and on NaN/Inf
// labels.
func BinaryLabels(y []float64, positive float64) ([]float64, error) {
	npos := 0
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("binary labels: example %d: label %v is not finite", i+1, v)
		}
		if v == positive {
			npos++
		}
	}
	switch {
	case len(y) == 0:
		return nil, fmt.Errorf("binary labels: %w", ErrNoExamples)
	case npos == 0:
		return nil, fmt.Errorf("binary labels: %w: no example has the positive label %v (labels present: %s)",
			ErrSingleClass, positive, listValues(distinct(y), 10))
	case npos == len(y):
		return nil, fmt.Errorf("binary labels: %w: all %d examples have the positive label %v", ErrSingleClass, len(y), positive)
	}
	return Signs(y, positive), nil
}

// CheckBinary reports whether y holds exactly two distinct values, −1 and
// +1, as binary learners need. The error says what was found instead:
// ErrSingleClass for one class, ErrNotBinary otherwise.
func CheckBinary(y []float64) error {
	if len(y) == 0 {
		return fmt.Errorf("binary labels: %w", ErrNoExamples)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("binary labels: example %d: label %v is not finite", i+1, v)
		}
	}
	cls := distinct(y)
	switch {
	case len(cls) == 1:
		return fmt.Errorf("%w: every example is labelled %v; a binary learner needs both -1 and +1", ErrSingleClass, cls[0])
	case len(cls) > 2:
		return fmt.Errorf("%w: %d distinct labels (%s); train one-vs-rest or map them with a positive class",
			ErrNotBinary, len(cls), listValues(cls, 10))
	case cls[0] != -1 || cls[1] != 1:
		return fmt.Errorf("%w: the labels are %v and %v; map them to -1 and +1 (choose the positive class)",
			ErrNotBinary, cls[0], cls[1])
	}
	return nil
}

// CheckTargets reports whether y is usable as regression targets: non-empty,
// finite and within float32 range (ErrOutOfRange otherwise).
func CheckTargets(y []float64) error {
	if len(y) == 0 {
		return fmt.Errorf("regression targets: %w", ErrNoExamples)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("regression targets: example %d: target %v is not finite", i+1, v)
		}
		if math.Abs(v) > math.MaxFloat32 {
			// The residuals are held in float32 pairs and the errors are
			// squared in float64: a larger target overflows either.
			return fmt.Errorf("regression targets: example %d: target %v: %w (|y| ≤ %.3g, the float32 range the algorithms compute in; rescale the targets)",
				i+1, v, ErrOutOfRange, math.MaxFloat32)
		}
	}
	return nil
}

// OneVsRest returns the distinct labels of y in increasing order and, for
// each, the ±1 targets of the binary problem "this class against the rest":
// targets[c] is Signs(y, classes[c]).
func OneVsRest(y []float64) (classes []float64, targets [][]float64) {
	classes = distinct(y)
	targets = make([][]float64, len(classes))
	for c, cl := range classes {
		targets[c] = Signs(y, cl)
	}
	return classes, targets
}

// Signs maps the labels equal to positive to +1 and every other label to −1,
// without checks (BinaryLabels is the checked form for user input). It
// returns nil for nil.
func Signs(y []float64, positive float64) []float64 {
	if y == nil {
		return nil
	}
	out := make([]float64, len(y))
	for i, v := range y {
		if v == positive {
			out[i] = 1
		} else {
			out[i] = -1
		}
	}
	return out
}

// listValues formats up to max values as "a, b, c, ...".
func listValues(v []float64, max int) string {
	var b strings.Builder
	for i, x := range v {
		if i == max {
			b.WriteString(", ...")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return b.String()
}
