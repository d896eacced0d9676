package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/plot"
	"github.com/pursuit-ml/pursuit/learn"
)

// surfaceGrid is the resolution of decision-surface plots.
const surfaceGrid = 150

// writePlots writes the pictures of model m into dir: prefix-curve.png
// when m has a learning curve, and prefix-surface.png when the data are
// two-dimensional and the task is classification. raw holds the training
// points in their original (unscaled) coordinates; the surface is drawn in
// those coordinates. It returns the files written. A picture that would
// replace one of the inputs is refused.
func writePlots(e *engine.Engine, m *learn.File, dir, prefix, title string, raw *data.Dataset, inputs []fileArg) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plot directory: %w", err)
	}
	var files []string
	if len(m.Header.Curve) > 0 {
		path := filepath.Join(dir, prefix+"-curve.png")
		if err := checkOutputs(inputs, fileArg{"the plot", path}); err != nil {
			return nil, err
		}
		if err := writeCurve(path, title, m); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	if m.Header.Dim == 2 && m.Header.Labels.Task != learn.TaskRegression && raw != nil {
		path := filepath.Join(dir, prefix+"-surface.png")
		if err := checkOutputs(inputs, fileArg{"the plot", path}); err != nil {
			return nil, err
		}
		if err := writeSurface(e, path, title, m, raw); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// plotPrefix names train's pictures after the model file when there is
// one, else after the data file and the algorithm, so that runs on other
// data or with another model do not overwrite each other's pictures.
func plotPrefix(model, dataPath, algo string) string {
	if model != "" && model != "-" {
		return trimExts(filepath.Base(model))
	}
	return trimExts(filepath.Base(dataPath)) + "-" + algo
}

// trimExts drops a compression suffix and then one extension
// (usps.train.gz → usps).
func trimExts(name string) string {
	for _, z := range []string{".gz", ".bz2"} {
		name = strings.TrimSuffix(name, z)
	}
	if ext := filepath.Ext(name); ext != "" && ext != name {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}

func writeCurve(path, title string, m *learn.File) error {
	c := m.Header.Curve
	x := make([]float64, len(c))
	tr, val, te := make([]float64, len(c)), make([]float64, len(c)), make([]float64, len(c))
	for i, p := range c {
		x[i], tr[i], val[i], te[i] = float64(p.N), float64(p.Train), float64(p.Val), float64(p.Test)
	}
	ylabel := "error rate"
	if m.Header.Labels.Task == learn.TaskRegression {
		ylabel = "mean squared error"
	}
	xlabel, mark, markLabel := curveAxis(m)
	return plot.LearningCurve(path, title+": learning curve", xlabel, ylabel, []plot.Series{
		{Name: "training", X: x, Y: tr}, {Name: "validation", X: x, Y: val}, {Name: "test", X: x, Y: te},
	}, mark, markLabel)
}

// curveAxis returns the learning curve's x-axis label and the step the
// model kept with its legend label (NaN when not one binary model). The
// curve's x is the step: a step adds a basis function or the bias, and in
// basic and stochastic matching pursuit it may choose one again, so the
// legend gives both the step and the basis functions the model has.
func curveAxis(m *learn.File) (xlabel string, mark float64, markLabel string) {
	xlabel = "steps (each adds a basis function or the bias)"
	mark = math.NaN()
	if len(m.Models) != 1 {
		return xlabel, mark, ""
	}
	f := m.Models[0]
	if r, ok := f.(interface{ RepicksAtoms() bool }); ok && r.RepicksAtoms() {
		xlabel = "steps (a step may choose a basis function again)"
	}
	if k, ok := f.(interface{ KeptSteps() int }); ok && !learn.IsMulti(f) {
		mark = float64(k.KeptSteps())
		markLabel = fmt.Sprintf("kept: step %d, %d basis functions", k.KeptSteps(), f.NBasis())
	}
	return xlabel, mark, markLabel
}

// writeSurface evaluates m on a grid over the bounding box of raw (plus a
// margin) and draws it with the points of raw and the model's basis points.
func writeSurface(e *engine.Engine, path, title string, m *learn.File, raw *data.Dataset) error {
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
	multi := lp.Task == learn.TaskOneVsRest || lp.Task == learn.TaskOneVsOne
	if multi {
		for _, c := range lp.Classes {
			s.Classes = append(s.Classes, learn.FormatLabel(c))
		}
	}
	pred := lp.Decide(dec)
	for r := range s.Y {
		row := make([]float64, surfaceGrid)
		for c := range row {
			i := r*surfaceGrid + c
			if multi {
				row[c] = float64(learn.ClassIndex(lp.Classes, pred[i]))
			} else {
				row[c] = dec[0][i]
			}
		}
		s.Values = append(s.Values, row)
	}
	for i := range raw.Len() {
		s.Points = append(s.Points, [2]float64{float64(raw.X.At(i, 0)), float64(raw.X.At(i, 1))})
		if multi {
			s.Labels = append(s.Labels, learn.ClassIndex(lp.Classes, raw.Y[i]))
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
