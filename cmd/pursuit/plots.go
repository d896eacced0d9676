package main

import (
	"path/filepath"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

// writePlots writes the pictures of model m into dir (learn.File.WritePlots:
// the learning curve, and the decision surface of 2-D data drawn with the
// unscaled training points raw) and returns the files written. A picture
// that would replace one of the inputs is refused.
func writePlots(e *engine.Engine, m *learn.File, dir, prefix, title string, raw *data.Dataset, inputs []fileArg) ([]string, error) {
	return m.WritePlots(e, dir, prefix, title, raw, func(path string) error { return checkOutputs(inputs, fileArg{Name: "the plot", Path: path}) })
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
