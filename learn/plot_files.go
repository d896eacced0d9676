package learn

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// WritePlots writes the pictures of m into dir (made if missing):
// prefix-curve.png when m has a learning curve (PlotCurve), and
// prefix-surface.png when its data are two-dimensional and its task is
// classification and raw holds the training points in their original
// (unscaled) coordinates (PlotSurface). check, when not nil, may refuse a
// picture's path before it is written (say, one of the program's
// inputs). It returns the files written.
func (m *File) WritePlots(e *engine.Engine, dir, prefix, title string, raw *data.Dataset, check func(path string) error) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plot directory: %w", err)
	}
	var files []string
	for _, p := range []struct {
		name string
		ok   bool
		draw func(path string) error
	}{
		{"curve", len(m.Header.Curve) > 0, func(path string) error { return m.PlotCurve(path, title) }},
		{"surface", m.surface(raw != nil), func(path string) error { return m.PlotSurface(e, path, title, raw) }},
	} {
		if !p.ok {
			continue
		}
		path := filepath.Join(dir, prefix+"-"+p.name+".png")
		if check != nil {
			if err := check(path); err != nil {
				return nil, err
			}
		}
		if err := p.draw(path); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// surface reports whether m's decision surface can be drawn: a
// classifier on two-dimensional data, with the data's points (withData).
func (m *File) surface(withData bool) bool {
	return m.Header.Dim == 2 && m.Header.Labels.Task != TaskRegression && withData
}

// NothingToPlot is the refusal of a plot of m that WritePlots would leave
// empty (withData: the training points are given), saying why; nil when
// WritePlots draws something. The text names the settings that would
// help: "curve" and "plot" (record a curve at training time) and "data"
// (the points).
func (m *File) NothingToPlot(withData bool) error {
	if len(m.Header.Curve) > 0 || m.surface(withData) {
		return nil
	}
	why := []string{}
	if len(m.Header.Curve) == 0 {
		why = append(why, "the model has no learning curve (train a KMP model with {curve} or {plot})")
	}
	switch {
	case m.Header.Dim != 2:
		why = append(why, fmt.Sprintf("a decision surface needs 2-D data, the model has %d features", m.Header.Dim))
	case m.Header.Labels.Task == TaskRegression:
		why = append(why, "decision surfaces are drawn for classifiers only")
	case !withData:
		why = append(why, "the decision surface needs {data} for its points")
	}
	return settingErr("plot", strings.ReplaceAll("nothing to plot: "+strings.Join(why, "; "), "%", "%%"))
}
