package learn

import (
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/slmc"
)

// CompressSettings are the settings of compressing a C-SVC (Compress) by
// name, as a program offers them: how many expansion vectors each machine
// keeps, and the method and its inner problem. Validate checks them
// (SettingError); Compress makes the run.
type CompressSettings struct {
	// Nz is the expansion vectors per binary machine ("nz"; 0: by NzFrac).
	Nz int
	// NzFrac is a comma-separated list of fractions of each machine's
	// vectors, one compressed model each ("nz-frac"; "": 0.1).
	NzFrac string
	// Method is slmc, mrs or rs ("method").
	Method string
	// C is the SVM cost of SLMC's and MRS's inner problem ("c"; 0: the
	// source's DefaultC).
	C float64
	// MaxIter bounds slmc's L-BFGS iterations per machine ("max-iter"; 0:
	// the default).
	MaxIter int
	// Seed draws SLMC's initial vectors ("seed").
	Seed int64
}

// CompressMethods are the methods CompressSettings.Method names.
var CompressMethods = []string{"slmc", "mrs", "rs"}

// Validate checks the settings; given names those set explicitly ("nz"
// and "nz-frac" are exclusive, "max-iter" is slmc's).
func (s *CompressSettings) Validate(given map[string]bool) error {
	switch {
	case given["nz"] && given["nz-frac"]:
		return settingErr("nz", "{nz} and {nz-frac} both size the model; give one")
	case given["nz"] && s.Nz < 1:
		return settingErr("nz", "{nz} %d: must be at least 1", s.Nz)
	case s.C < 0 || math.IsNaN(s.C) || math.IsInf(s.C, 0):
		return settingErr("c", "{c} %v: must be positive and finite", s.C)
	case s.MaxIter < 0:
		return settingErr("max-iter", "{max-iter} %d: must be positive", s.MaxIter)
	case s.Method != "slmc" && s.Method != "mrs" && s.Method != "rs":
		return settingErr("method", "{method} %q: want slmc, mrs or rs", s.Method)
	case given["max-iter"] && s.Method != "slmc":
		return settingErr("max-iter", "{max-iter} applies to {method} slmc only")
	}
	_, err := s.Fractions(given)
	return err
}

// Fractions are the fractions the models are sized by: NzFrac's list when
// given, else 0.1; with Nz given, the single value 0 (every model has Nz
// vectors).
func (s *CompressSettings) Fractions(given map[string]bool) ([]float64, error) {
	if given["nz"] {
		return []float64{0}, nil
	}
	if !given["nz-frac"] {
		return []float64{0.1}, nil
	}
	var out []float64
	for _, f := range strings.Split(s.NzFrac, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0 && v <= 1) {
			return nil, settingErr("nz-frac", "{nz-frac} %q: each fraction must be a number in (0, 1], got %q", s.NzFrac, f)
		}
		out = append(out, v)
	}
	return out, nil
}

// FractionPaths names the model file of each fraction: out itself for
// one, else out with -nzF before its extension for each fraction F
// (out.model → out-nz0.05.model).
func FractionPaths(out string, fracs []float64) []string {
	if len(fracs) <= 1 {
		return []string{out}
	}
	var paths []string
	for _, f := range fracs {
		ext := filepath.Ext(out)
		if strings.ContainsAny(ext, "/\\") || ext == out {
			ext = ""
		}
		paths = append(paths, strings.TrimSuffix(out, ext)+"-nz"+strconv.FormatFloat(f, 'g', -1, 64)+ext)
	}
	return paths
}

// CheckSource refuses settings src cannot meet: more vectors per machine
// than it has.
func (s *CompressSettings) CheckSource(src *CompressSource) error {
	if s.Nz > src.Vectors {
		return settingErr("nz", "{nz} %d is more than the model's %d vectors", s.Nz, src.Vectors)
	}
	return nil
}

// CheckData refuses training data ds (read from path) narrower than
// src's support vectors (LIBSVM drops trailing zero features from its
// vectors, not from the data's width).
func (src *CompressSource) CheckData(path string, ds *data.Dataset) error {
	for _, sm := range src.Machines {
		if ds.Dim() < sm.SV.Cols {
			return settingErr("data", "{data} %s has %d features, but the model's support vectors have %d: not the data the model was trained on", path, ds.Dim(), sm.SV.Cols)
		}
	}
	return nil
}

// Compress is the run of the validated settings given the fractions
// (Fractions): the training data's name (dataName) and version are
// recorded in the models, progress (may be nil) gets slmc's lines, and
// save (may be nil) each model as it is made.
func (s *CompressSettings) Compress(fracs []float64, dataName, version string, progress func(string), save func(i int, m *File) error) Compress {
	return Compress{
		Config: slmc.CompressConfig{Method: s.Method, NumXV: s.Nz, C: s.C, Seed: uint64(s.Seed),
			Optim: slmc.OptimOptions{MaxIter: s.MaxIter}, Progress: progress},
		Fractions: fracs, Data: dataName, Seed: s.Seed, Version: version, Save: save,
	}
}

// LoadData loads the model's training data from trainPath and, when
// testPath is not "", the set its table is measured on (else the training
// data), within e's memory budget (LoadWithin), with the options opts
// gives for a width (0: the file's). A pursuit model's width is forced on
// both; a LIBSVM model's vectors must not be wider than the training data
// (CheckData), whose width the test data must have. restate, when not
// nil, rewords a loading error first (say, a memory limit in a program's
// terms); the errors are SettingErrors about "data" and "test".
func (src *CompressSource) LoadData(e *engine.Engine, trainPath, testPath string, opts func(dim int) []data.Option, restate func(error) error) (train, eval *data.Dataset, err error) {
	if restate == nil {
		restate = func(err error) error { return err }
	}
	train, err = LoadWithin(e, trainPath, opts(src.Dim)...)
	if err = restate(err); err != nil {
		if errors.Is(err, data.ErrFeatureMismatch) {
			return nil, nil, settingErr("data", "{data} %s does not match the model: %v (the model was trained on %d features)", trainPath, err, src.Dim)
		}
		return nil, nil, settingErr("data", "{data}: %v", err)
	}
	if err := src.CheckData(trainPath, train); err != nil {
		return nil, nil, err
	}
	if testPath == "" {
		return train, train, nil
	}
	dim := src.Dim
	if dim == 0 {
		dim = train.Dim()
	}
	eval, err = LoadWithin(e, testPath, opts(dim)...)
	if err = restate(err); err != nil {
		if errors.Is(err, data.ErrFeatureMismatch) {
			return nil, nil, settingErr("test", "{test} %s does not match the model: %v (the model has %d features)", testPath, err, dim)
		}
		return nil, nil, settingErr("test", "{test}: %v", err)
	}
	return train, eval, nil
}
