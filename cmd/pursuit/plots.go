package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

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
		if err := m.PlotCurve(path, title); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	if m.Header.Dim == 2 && m.Header.Labels.Task != learn.TaskRegression && raw != nil {
		path := filepath.Join(dir, prefix+"-surface.png")
		if err := checkOutputs(inputs, fileArg{"the plot", path}); err != nil {
			return nil, err
		}
		if err := m.PlotSurface(e, path, title, raw); err != nil {
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
