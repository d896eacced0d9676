package learn

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// SLMCDefaultNzFrac is the expansion size when neither Config.NumXV nor
// NzFrac is given: 10% of an SVM's support vectors, as in the paper's USPS
// table.
const SLMCDefaultNzFrac = 0.1

// SLMCMethods are the methods of SLMC: SLMC itself and the paper's
// comparisons, all in package slmc.
var SLMCMethods = []string{"slmc", "rs", "mrs", "rsvm", "mrsvm", "skfd"}

// slmcIterations is slmc's default iteration bound, the progress total.
const slmcIterations = 200

// SLMC is the sparse large margin classifier of package slmc (Wu,
// Schölkopf & Bakır), or one of the paper's comparisons (Method).
type SLMC struct {
	// Method is one of SLMCMethods ("" is "slmc").
	Method string
	// Config is slmc's configuration (kernel, C, seed, initialisation,
	// optimiser). NumXV 0 sizes the expansion as NzFrac of the support
	// vectors of a C-SVC trained with the same kernel, C and seed.
	Config slmc.Config
	// NzFrac is the expansion size as a fraction of an SVM's support
	// vectors when Config.NumXV is 0 (0: SLMCDefaultNzFrac).
	NzFrac float64
	// Progress, if not nil, is told of each L-BFGS iteration.
	Progress func(Progress)
}

// Fit trains one binary classifier on y in {−1, +1}; the validation set is
// not used.
func (l SLMC) Fit(e *engine.Engine, x pursuit.Matrix, y []float64, _ pursuit.Matrix, _ []float64) (Model, error) {
	return l.fit(e, x, y)
}

func (l SLMC) fit(e *engine.Engine, x pursuit.Matrix, y []float64) (*SLMCModel, error) {
	method := l.Method
	if method == "" {
		method = "slmc"
	}
	cfg := l.Config
	if cfg.Checkpoint != nil && method != "slmc" && method != "skfd" {
		return nil, pursuit.Configf("checkpoints cover the slmc and skfd methods (L-BFGS over the expansion vectors), not %s", method)
	}
	// RS and MRS reduce an SVM; NzFrac sizes Nz from one. It is trained
	// on exact float64 kernel rows (svm.Params.Exact), so that its support
	// vectors and coefficients, and what is built from them, are the same
	// bits whether x is stored dense or sparse and on every backend: the
	// reduced-set search magnifies a 1e-7 change of the coefficients to
	// about 3e-3 of its decisions.
	var exp *slmc.Expansion
	if method == "rs" || method == "mrs" || cfg.NumXV == 0 {
		ref, err := svm.Train(e, x, y, svm.Params{Type: svm.CSVC, Kernel: cfg.Kernel, C: cfg.C, Seed: cfg.Seed, Exact: true})
		if err != nil {
			return nil, fmt.Errorf("the SVM that %s starts from: %w", method, err)
		}
		if exp, err = slmc.FromSVM(ref, 1); err != nil {
			return nil, fmt.Errorf("the SVM that %s starts from: %w", method, err)
		}
	}
	nz := cfg.NumXV
	if nz == 0 {
		frac := l.NzFrac
		if frac == 0 {
			frac = SLMCDefaultNzFrac
		}
		nz = exp.NumXVFraction(frac) // round(frac·#SV), at least 1, as the paper
	}
	if nz > x.Rows {
		return nil, pursuit.Configf("--nz %d is more than the %d training examples", nz, x.Rows)
	}
	cfg.NumXV = nz
	if l.Progress != nil {
		cfg.Optim.Progress = func(s slmc.Progress) {
			l.Progress(Progress{Step: s.Iter, Total: slmcIterations, Metric: "W", Value: s.W, ValErr: math.NaN()})
		}
	}
	fit := slmc.FitOptions{}
	switch method {
	case "slmc", "skfd":
		var res *slmc.Result
		if method == "slmc" {
			r, err := slmc.Train(e, x, y, cfg)
			if err != nil {
				return nil, err
			}
			res = r
		} else {
			r, err := slmc.TrainSKFD(e, x, y, cfg, 0)
			if err != nil {
				return nil, err
			}
			res = &r.Result
		}
		stop := fmt.Sprintf("%s after %d iterations", res.Stop, res.Iterations)
		if l.Progress != nil {
			l.Progress(Progress{Step: res.Iterations, Total: slmcIterations, Metric: "W", Value: res.W, ValErr: math.NaN(), Note: "stop: " + stop})
		}
		return NewSLMCModel(res.Model, stop), nil
	case "rs", "mrs":
		rs, err := slmc.ReducedSet(exp, nz, slmc.RSOptions{})
		if err != nil {
			return nil, err
		}
		if method == "rs" {
			return NewSLMCModel(rs.Model, ""), nil
		}
		m, err := slmc.ModifiedRS(e, x, y, rs.Model, cfg.C, fit)
		if err != nil {
			return nil, err
		}
		return NewSLMCModel(m, ""), nil
	case "rsvm", "mrsvm":
		xv, err := slmc.RandomXV(x, nz, cfg.Seed)
		if err != nil {
			return nil, err
		}
		var m *slmc.Model
		if method == "rsvm" {
			m, err = slmc.ReducedSVM(e, x, y, cfg.Kernel, xv, cfg.C, fit)
		} else {
			m, err = slmc.ModifiedRSVM(e, x, y, cfg.Kernel, xv, cfg.C, fit)
		}
		if err != nil {
			return nil, err
		}
		return NewSLMCModel(m, ""), nil
	}
	return nil, pursuit.Configf("--method %q: want one of %v", method, SLMCMethods)
}

// FitOneVsRest trains one model per class with slmc.TrainOneVsRest, each
// as Fit trains a binary one.
func (l SLMC) FitOneVsRest(e *engine.Engine, x pursuit.Matrix, y, classes []float64, _ pursuit.Matrix, _ []float64) ([]Model, error) {
	if l.Config.Checkpoint != nil {
		return nil, pursuit.Configf("slmc: checkpoints need one binary machine, not %d (one-vs-rest)", len(classes))
	}
	var ms []Model
	o, err := slmc.TrainOneVsRest(y, func(t []float64) (*slmc.Model, error) {
		f, err := l.fit(e, x, t)
		if err != nil {
			return nil, err
		}
		ms = append(ms, f)
		return f.SLMC, nil
	})
	if err != nil {
		return nil, err
	}
	if !slices.Equal(o.Classes, classes) {
		return nil, fmt.Errorf("slmc one-vs-rest trained classes %v, want %v", o.Classes, classes)
	}
	return ms, nil
}

// SLMCModel is a trained slmc.Model (kind "slmc"), saved in slmc's own
// versioned, checksummed format, which records the method.
type SLMCModel struct {
	SLMC *slmc.Model
	stop string // why the L-BFGS minimisation stopped (slmc, skfd)
}

// NewSLMCModel wraps m; stop says why its training stopped ("" when the
// method does not iterate).
func NewSLMCModel(m *slmc.Model, stop string) *SLMCModel { return &SLMCModel{SLMC: m, stop: stop} }

func decodeSLMC(_ string, r io.Reader, _ int64) (Model, error) {
	m, err := slmc.Load(r)
	if err != nil {
		return nil, err
	}
	return &SLMCModel{SLMC: m}, nil
}

// Kind is "slmc".
func (f *SLMCModel) Kind() string { return "slmc" }

// Decision returns the expansion's output on each row of x.
func (f *SLMCModel) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	return f.SLMC.Decision(e, x)
}

// NBasis is the number of expansion vectors.
func (f *SLMCModel) NBasis() int { return f.SLMC.NumXV() }

// Basis returns the expansion vectors.
func (f *SLMCModel) Basis() pursuit.Matrix { return f.SLMC.XV }

// Save writes slmc's format.
func (f *SLMCModel) Save(w io.Writer) error { return f.SLMC.Save(w) }

// Method names the slmc method that built the model.
func (f *SLMCModel) Method() string { return f.SLMC.Method }

// StopReason says why training stopped ("" when the method does not
// iterate).
func (f *SLMCModel) StopReason() string { return f.stop }

// Expansion returns the expansion vectors and their coefficients.
func (f *SLMCModel) Expansion() (pursuit.Kernel, pursuit.Matrix, []float64, float64, error) {
	return f.SLMC.Kernel, f.SLMC.XV, f.SLMC.Beta, f.SLMC.Bias, nil
}
