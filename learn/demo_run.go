package learn

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/safefile"
)

// DemoAlgorithms are the algorithms of a comma-separated list of names,
// or, for "", every algorithm the demo runs (not NotInDemo).
func DemoAlgorithms(list string) ([]Algorithm, error) {
	var algos []Algorithm
	if list == "" {
		for _, a := range Algorithms() {
			if !a.NotInDemo {
				algos = append(algos, a)
			}
		}
		return algos, nil
	}
	for _, name := range strings.Split(list, ",") {
		a, err := FindAlgorithm(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		algos = append(algos, a)
	}
	return algos, nil
}

// WriteDemoData writes each problem's training and test sets into dir
// (which must exist) as NAME.train and NAME.test in LIBSVM format, and
// returns the files written.
func WriteDemoData(dir string, problems []*DemoProblem) ([]string, error) {
	var files []string
	for _, p := range problems {
		for _, part := range []struct {
			ds  *data.Dataset
			ext string
		}{{p.Train, "train"}, {p.Test, "test"}} {
			path := filepath.Join(dir, p.Name+"."+part.ext)
			if err := WriteDemoSet(path, part.ds); err != nil {
				return files, err
			}
			files = append(files, path)
		}
	}
	return files, nil
}

// WriteDemoSet writes a generated set ds to path in LIBSVM format,
// replacing the file whole or not at all.
func WriteDemoSet(path string, ds *data.Dataset) error {
	err := safefile.WriteFile(path, 0o666, func(w io.Writer) error { return data.WriteLibSVM(w, ds) })
	if err != nil {
		return fmt.Errorf("writing demo data: %w", err)
	}
	return nil
}

// Run trains algorithm a on the problem with its settings (Settings,
// drawn from seed; FitSettings, progress and trained may be nil), records
// the figures in the problem's row (Row, Record) and the model's learning
// curve on its training, validation and test sets, and returns the row
// and the model. An error is returned with the row as far as it got.
func (p *DemoProblem) Run(e *engine.Engine, a Algorithm, seed int64, progress func(Progress), version string, trained func()) (DemoResult, *File, error) {
	r := p.Row(a, e.BackendName())
	s, d := p.Settings(a, seed)
	plan := LabelPlan{Task: TaskBinary, Classes: []float64{-1, 1}}
	f, pr, err := FitSettings(e, &s, &d, plan, p.Train, p.Test, progress, version, trained)
	if err != nil {
		return r, nil, err
	}
	defer pr.Release(e)
	if err := r.Record(f); err != nil {
		return r, nil, err
	}
	m := f.Model
	if m.Header.Curve, err = m.LearningCurve(e, pr.Train, pr.Val, pr.Test, 60, true); err != nil {
		return r, nil, err
	}
	return r, m, nil
}
