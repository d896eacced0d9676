package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pursuit-ml/pursuit/engine/data"
)

type plotOptions struct {
	model, data, test, out string
	format                 string
	backend                string
	points                 int
}

func newPlotFlags() (*flag.FlagSet, *plotOptions) {
	o := &plotOptions{}
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.StringVar(&o.model, "model", "", "model `FILE` written by `pursuit train --model`")
	fs.StringVar(&o.data, "data", "", "data `FILE` whose points the decision surface shows (2-D data); for KMP models also the learning curve's \"training\" line")
	fs.StringVar(&o.test, "test", "", "test data `FILE` for the learning curve's test line (KMP models)")
	fs.StringVar(&o.out, "out", ".", "directory `DIR` to write the PNG files into")
	fs.StringVar(&o.format, "format", "auto", "data file format: auto, libsvm or csv")
	fs.StringVar(&o.backend, "backend", "", "backend: go, avx2, cuda or auto")
	fs.IntVar(&o.points, "points", 60, "at most this many points on the learning curve")
	return fs, o
}

func plotCommand() *command {
	return &command{
		name:    "plot",
		summary: "draw a model's learning curve and, for 2-D data, its decision surface (PNG)",
		usage:   "pursuit plot --model FILE [--data FILE] [--test FILE] [--out DIR]",
		examples: `# the learning curve recorded at training time (train --curve or --val-frac):
pursuit plot --model usps8.model --out plots
# the decision surface of a 2-D model with its training points and basis points circled:
pursuit plot --model moons.model --data moons.train --out plots
# learning curves recomputed on training and test files (KMP models):
pursuit plot --model moons.model --data moons.train --test moons.test --out plots`,
		run: runPlot,
	}
}

func runPlot(ev *env, args []string) error {
	c := plotCommand()
	fs, o := newPlotFlags()
	if err := parseFlags(ev, c, fs, args); err != nil {
		return err
	}
	if o.model == "" {
		return fmt.Errorf("missing --model FILE (written by `pursuit train --model FILE`)")
	}
	if o.points < 2 {
		return fmt.Errorf("--points %d: need at least 2", o.points)
	}
	df := dataFlags{format: o.format, scale: "none"}
	if err := df.validate(nil, false); err != nil {
		return err
	}
	m, err := loadModel(o.model)
	if err != nil {
		return err
	}
	mf := modelFlags{backend: o.backend}
	e, err := mf.newEngine()
	if err != nil {
		return err
	}
	defer e.Close()
	load := func(path string) (raw, sc *data.Dataset, err error) {
		if path == "" {
			return nil, nil, nil
		}
		raw, err = loadData(path, df.loadOptions(m.hdr.Dim))
		if err != nil {
			if errors.Is(err, data.ErrFeatureMismatch) {
				return nil, nil, fmt.Errorf("%w (model %s was trained on %d features)", err, o.model, m.hdr.Dim)
			}
			return nil, nil, err
		}
		sc, err = scaled(m.hdr.Scaler, raw)
		return raw, sc, err
	}
	raw, sc, err := load(o.data)
	if err != nil {
		return err
	}
	_, test, err := load(o.test)
	if err != nil {
		return err
	}
	if sc != nil || test != nil {
		curve, err := learningCurve(e, m, sc, nil, test, o.points, true)
		if err != nil {
			return err
		}
		if curve != nil {
			// Keep the recorded validation errors where the steps match.
			val := map[int]jsonNum{}
			for _, p := range m.hdr.Curve {
				val[p.N] = p.Val
			}
			for i := range curve {
				if v, ok := val[curve[i].N]; ok {
					curve[i].Val = v
				}
			}
			m.hdr.Curve = curve
		}
	}
	prefix := strings.TrimSuffix(filepath.Base(o.model), filepath.Ext(o.model))
	files, err := writePlots(e, m, o.out, prefix, fmt.Sprintf("%s (%s)", prefix, m.hdr.Algorithm), raw)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		why := []string{}
		if len(m.hdr.Curve) == 0 {
			why = append(why, "the model has no learning curve (train with --curve or --val-frac, or give --data for a KMP model)")
		}
		switch {
		case m.hdr.Dim != 2:
			why = append(why, fmt.Sprintf("a decision surface needs 2-D data, the model has %d features", m.hdr.Dim))
		case m.hdr.Labels.Task == taskRegression:
			why = append(why, "decision surfaces are drawn for classifiers only")
		case raw == nil:
			why = append(why, "the decision surface needs --data for its points")
		}
		return fmt.Errorf("nothing to plot: %s", strings.Join(why, "; "))
	}
	for _, f := range files {
		fmt.Fprintln(ev.stdout, f)
	}
	return nil
}
