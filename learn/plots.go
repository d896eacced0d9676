package learn

import (
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/plot"
)

// surfaceGrid is the resolution of decision-surface plots.
const surfaceGrid = 150

// PlotCurve draws m's learning curve (Header.Curve: training, validation
// and test error against the steps, with the step m kept marked) into path
// (.png, .svg or .pdf).
func (m *File) PlotCurve(path, title string) error {
	c := m.Header.Curve
	x := make([]float64, len(c))
	tr, val, te := make([]float64, len(c)), make([]float64, len(c)), make([]float64, len(c))
	for i, p := range c {
		x[i], tr[i], val[i], te[i] = float64(p.N), float64(p.Train), float64(p.Val), float64(p.Test)
	}
	ylabel := "error rate"
	if m.Header.Labels.Task == TaskRegression {
		ylabel = "mean squared error"
	}
	xlabel, mark, markLabel := m.CurveAxis()
	return plot.LearningCurve(path, title+": learning curve", xlabel, ylabel, []plot.Series{
		{Name: "training", X: x, Y: tr}, {Name: "validation", X: x, Y: val}, {Name: "test", X: x, Y: te},
	}, mark, markLabel)
}

// CurveAxis returns the learning curve's x-axis label and the step the
// model kept with its legend label (NaN when not one binary model). The
// curve's x is the step: a step adds a basis function or the bias, and in
// basic and stochastic matching pursuit it may choose one again, so the
// legend gives both the step and the basis functions the model has.
func (m *File) CurveAxis() (xlabel string, mark float64, markLabel string) {
	xlabel = "steps (each adds a basis function or the bias)"
	mark = math.NaN()
	if len(m.Models) != 1 {
		return xlabel, mark, ""
	}
	f := m.Models[0]
	if r, ok := f.(interface{ RepicksAtoms() bool }); ok && r.RepicksAtoms() {
		xlabel = "steps (a step may choose a basis function again)"
	}
	if k, ok := f.(interface{ KeptSteps() int }); ok && !IsMulti(f) {
		mark = float64(k.KeptSteps())
		markLabel = fmt.Sprintf("kept: step %d, %d basis functions", k.KeptSteps(), f.NBasis())
	}
	return xlabel, mark, markLabel
}

// PlotSurface evaluates m, a model of 2-D data, on a grid over the
// bounding box of raw (plus a margin) and draws it into path with the
// points of raw and the model's basis points; raw holds the training
// points in their original (unscaled) coordinates, in which the surface
// is drawn.
func (m *File) PlotSurface(e *engine.Engine, path, title string, raw *data.Dataset) error {
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for i := range raw.Len() {
		for j := range 2 {
			v := float64(raw.X.At(i, j))
			lo[j], hi[j] = math.Min(lo[j], v), math.Max(hi[j], v)
		}
	}
	for j := range 2 {
		pad := 0.08 * (hi[j] - lo[j])
		if pad == 0 {
			pad = 1
		}
		lo[j], hi[j] = lo[j]-pad, hi[j]+pad
	}
	s := &plot.Surface{Title: title}
	for i := range surfaceGrid {
		t := float64(i) / (surfaceGrid - 1)
		s.X = append(s.X, lo[0]+t*(hi[0]-lo[0]))
		s.Y = append(s.Y, lo[1]+t*(hi[1]-lo[1]))
	}
	g := pursuit.NewMatrix(surfaceGrid*surfaceGrid, 2)
	for r, y := range s.Y {
		for c, x := range s.X {
			g.Set(r*surfaceGrid+c, 0, float32(x))
			g.Set(r*surfaceGrid+c, 1, float32(y))
		}
	}
	if m.Header.Scaler != nil {
		if err := m.Header.Scaler.Apply(g); err != nil {
			return fmt.Errorf("surface plot: %w", err)
		}
	}
	dec, err := m.Decisions(e, g)
	if err != nil {
		return fmt.Errorf("surface plot: %w", err)
	}
	lp := &m.Header.Labels
	multi := lp.Task == TaskOneVsRest || lp.Task == TaskOneVsOne
	if multi {
		for _, c := range lp.Classes {
			s.Classes = append(s.Classes, FormatLabel(c))
		}
	}
	pred := lp.Decide(dec)
	for r := range s.Y {
		row := make([]float64, surfaceGrid)
		for c := range row {
			i := r*surfaceGrid + c
			if multi {
				row[c] = float64(ClassIndex(lp.Classes, pred[i]))
			} else {
				row[c] = dec[0][i]
			}
		}
		s.Values = append(s.Values, row)
	}
	for i := range raw.Len() {
		s.Points = append(s.Points, [2]float64{float64(raw.X.At(i, 0)), float64(raw.X.At(i, 1))})
		if multi {
			s.Labels = append(s.Labels, ClassIndex(lp.Classes, raw.Y[i]))
		} else {
			s.Labels = append(s.Labels, int(lp.Targets(raw.Y[i:i+1], 0)[0]))
		}
	}
	for _, f := range m.Models {
		b := f.Basis()
		for i := range b.Rows {
			s.Basis = append(s.Basis, unscale(m.Header.Scaler, b.At(i, 0), b.At(i, 1)))
		}
	}
	return plot.DecisionSurface(path, s)
}

// unscale maps a scaled 2-D point back to the original coordinates.
func unscale(s *data.Scaler, x, y float32) [2]float64 {
	p := [2]float64{float64(x), float64(y)}
	if s == nil || s.Mode == data.ScaleNone {
		return p
	}
	for j := range 2 {
		if s.Scale[j] != 0 {
			p[j] = p[j]/s.Scale[j] + s.Offset[j]
		} else {
			p[j] = s.Offset[j]
		}
	}
	return p
}
