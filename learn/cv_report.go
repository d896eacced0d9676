package learn

import (
	"fmt"
	"io"
	"maps"
	"math"
	"sort"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// CVPoint is one setting of a cross-validation grid and its figures; its
// JSON form is an entry of `pursuit cv --json`'s grid. Nil settings are
// not part of the grid (the learner's own value).
type CVPoint struct {
	Gamma   *float64 `json:"gamma,omitempty"`
	C       *float64 `json:"c,omitempty"`
	Basis   *int     `json:"basis,omitempty"`
	Epsilon *float64 `json:"epsilon,omitempty"`
	// Settings holds the values of any other settings, by name.
	Settings     map[string]float64 `json:"settings,omitempty"`
	CVError      float64            `json:"cv_error"`
	CVStd        float64            `json:"cv_std"`
	TrainError   float64            `json:"train_error"`
	NBasis       float64            `json:"n_basis"`
	TrainSeconds float64            `json:"train_seconds"`
}

// Describe names the setting: "gamma=0.1 C=10 nz=5 basis=20", or "(flags
// as given)" when it sets nothing.
func (p CVPoint) Describe() string {
	var parts []string
	if p.Gamma != nil {
		parts = append(parts, fmt.Sprintf("gamma=%g", *p.Gamma))
	}
	if p.C != nil {
		parts = append(parts, fmt.Sprintf("C=%g", *p.C))
	}
	if p.Epsilon != nil {
		parts = append(parts, fmt.Sprintf("epsilon=%g", *p.Epsilon))
	}
	names := make([]string, 0, len(p.Settings))
	for name := range p.Settings {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		parts = append(parts, fmt.Sprintf("%s=%g", name, p.Settings[name]))
	}
	if p.Basis != nil {
		if *p.Basis == 0 {
			parts = append(parts, "basis=default")
		} else {
			parts = append(parts, fmt.Sprintf("basis=%d", *p.Basis))
		}
	}
	if len(parts) == 0 {
		return "(flags as given)"
	}
	return strings.Join(parts, " ")
}

// sameBut reports whether p and q differ at most in Basis.
func (p CVPoint) sameBut(q CVPoint) bool {
	eq := func(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	return eq(p.Gamma, q.Gamma) && eq(p.C, q.C) && eq(p.Epsilon, q.Epsilon) && maps.Equal(p.Settings, q.Settings)
}

// CVGrid is a grid of settings: every combination of the values given.
type CVGrid struct {
	// Settings are named settings, varied outermost (the last fastest).
	Settings []Param
	// Gamma and Epsilon are the kernel's γ and the tube's ε to try (nil:
	// not part of the grid).
	Gamma, Epsilon []float64
	// C and Basis are the costs and basis sizes to try, at least one
	// each; ShowC and ShowBasis say whether they are reported as part of
	// the setting.
	C         []float64
	Basis     []int
	ShowC     bool
	ShowBasis bool
}

// Points lists the grid's settings: the named settings outermost, then γ,
// C, ε and the basis size, which varies fastest (so settings that differ
// only in it are consecutive).
func (g CVGrid) Points() []CVPoint {
	combos := []map[string]float64{nil}
	for _, p := range g.Settings {
		var next []map[string]float64
		for _, c := range combos {
			for _, v := range p.Values {
				m := maps.Clone(c)
				if m == nil {
					m = map[string]float64{}
				}
				m[p.Name] = v
				next = append(next, m)
			}
		}
		combos = next
	}
	opt := func(vs []float64) []*float64 {
		if vs == nil {
			return []*float64{nil}
		}
		out := make([]*float64, len(vs))
		for i := range vs {
			out[i] = &vs[i]
		}
		return out
	}
	var out []CVPoint
	for _, s := range combos {
		for _, gamma := range opt(g.Gamma) {
			for i := range g.C {
				for _, eps := range opt(g.Epsilon) {
					for j := range g.Basis {
						p := CVPoint{Gamma: clonePtr(gamma), Epsilon: clonePtr(eps), Settings: maps.Clone(s)}
						if g.ShowC {
							p.C = clonePtr(&g.C[i])
						}
						if g.ShowBasis {
							b := g.Basis[j]
							p.Basis = &b
						}
						out = append(out, p)
					}
				}
			}
		}
	}
	return out
}

func clonePtr(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Search cross-validates every point of g, the learner of each built by
// newLearner from the point and its basis size, and returns the points
// with their figures and the index of the best (lowest error, the first
// of equals). With shareBasis (the KMP family without early stopping),
// the settings that differ only in the basis size share one training per
// fold: the learner of the largest, cut after fewer steps (CVGroup.Shared).
func (cv CV) Search(e *engine.Engine, g CVGrid, newLearner func(p CVPoint, basis int) (Learner, error), shareBasis bool, plan LabelPlan, ds *data.Dataset) ([]CVPoint, int, error) {
	points := g.Points()
	nb := len(g.Basis)
	var groups []CVGroup
	for gi := 0; gi < len(points); {
		gj := gi + 1
		for gj < len(points) && points[gj].sameBut(points[gi]) {
			gj++
		}
		var cg CVGroup
		maxN := 0
		for k := gi; k < gj; k++ {
			basis := g.Basis[k%nb]
			maxN = max(maxN, basis)
			l, err := newLearner(points[k], basis)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: %w", points[k].Describe(), err)
			}
			cg.Learners = append(cg.Learners, l)
			cg.Names = append(cg.Names, points[k].Describe())
			cg.Basis = append(cg.Basis, basis)
		}
		if shareBasis && nb > 1 {
			l, err := newLearner(points[gj-1], maxN)
			if err != nil {
				return nil, 0, err
			}
			cg.Shared = l
		}
		groups = append(groups, cg)
		gi = gj
	}
	results, err := cv.Grid(e, groups, plan, ds)
	if err != nil {
		return nil, 0, err
	}
	best := 0
	for i, r := range results {
		p := &points[i]
		p.CVError, p.CVStd, p.TrainError, p.NBasis, p.TrainSeconds = r.Error, r.Std, r.TrainError, r.NBasis, r.Seconds
		if p.CVError < points[best].CVError {
			best = i
		}
	}
	return points, best, nil
}

// WriteCVTable writes the points of a cross-validation as a table, the
// best marked with *, and the best's line: error rates in percent, or for
// regression (the MSE) as they are.
func WriteCVTable(w io.Writer, points []CVPoint, best int, regression bool) {
	what, cell := "cv error", func(v float64) string { return fmt.Sprintf("%.2f%%", 100*v) }
	if regression {
		what, cell = "cv MSE", func(v float64) string { return fmt.Sprintf("%.4g", v) }
	}
	fmt.Fprintf(w, "  %-36s %12s %10s %10s %9s\n", "setting", what, "± std", "basis", "seconds")
	for i, p := range points {
		mark := " "
		if i == best {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %-36s %12s %10s %10.1f %9.3g\n", mark, p.Describe(), cell(p.CVError), cell(p.CVStd), p.NBasis, p.TrainSeconds)
	}
	fmt.Fprintf(w, "\nbest: %s, %s %s\n", points[best].Describe(), what, cell(points[best].CVError))
}

// Describe says what the plan fits, for people: "regression", "class 8
// vs the rest (+1/-1)", "binary, 1 (+) vs -1 (-)" or "10 classes, one vs
// rest".
func (p *LabelPlan) Describe() string {
	switch {
	case p.Task == TaskRegression:
		return "regression"
	case p.Positive != nil:
		return fmt.Sprintf("class %s vs the rest (+1/-1)", FormatLabel(*p.Positive))
	case p.Task == TaskBinary:
		return fmt.Sprintf("binary, %s (+) vs %s (-)", FormatLabel(p.Classes[1]), FormatLabel(p.Classes[0]))
	}
	return fmt.Sprintf("%d classes, one vs rest", len(p.Classes))
}

// ErrorText formats an error rate v on n examples for people ("error
// 4.00% (2/50)"), or the MSE for regression.
func (p *LabelPlan) ErrorText(v float64, n int) string {
	if p.Task == TaskRegression {
		return fmt.Sprintf("MSE %.4g", v)
	}
	return fmt.Sprintf("error %.2f%% (%d/%d)", 100*v, int(math.Round(v*float64(n))), n)
}
