package learn

import (
	"errors"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// SubspaceSettings are the settings of a sparse kernel subspace run
// (Hussain et al.) by name, as a program offers them: sparse kernel PCA
// (SparseKPCA, the residual curve and its bounds) or sparse kernel CCA on
// two paired views (SparseKCCA). Validate checks them (SettingError);
// Prepare and PreparePairs scale the data and make the kernels; FitKPCA
// and FitKCCA run the method.
type SubspaceSettings struct {
	// Method is skpca or skcca ("method").
	Method string
	// K is the number of training points chosen ("k"): fewer than the
	// training rows.
	K int
	// Delta is the bounds' confidence 1 − Delta ("delta"), in (0, 1).
	Delta float64
	// Alpha, for skcca, bounds P(|f_x − f_y| > Alpha) for the first
	// direction (Theorem 9; "alpha"; 0: no bound).
	Alpha float64
	// Scale is the scaling fitted on the training rows (DataSettings.Scale:
	// "scale").
	Scale string
	// Kernel holds the kernel's settings ("kernel", "gamma", "sigma";
	// Settings.KernelFor): the bounds need κ(x,x) ≤ 1, so rbf.
	Kernel Settings
}

// SubspaceMethods are the methods SubspaceSettings.Method names.
var SubspaceMethods = []string{"skpca", "skcca"}

// Validate checks the settings; given names those set explicitly,
// among them a caller's own options that apply to one method only:
// "data-y", "test-y" (the second view's files) to skcca, "plot" and "log"
// (drawing the curve) to skpca, and "log" only with "plot".
func (s *SubspaceSettings) Validate(given map[string]bool) error {
	switch s.Method {
	case "skpca":
		for _, f := range []string{"data-y", "test-y", "alpha"} {
			if given[f] {
				return settingErr(f, "{"+f+"} applies to {method} skcca")
			}
		}
	case "skcca":
		if given["alpha"] && (!(s.Alpha > 0) || math.IsInf(s.Alpha, 0)) {
			return settingErr("alpha", "{alpha} %v: must be a finite number > 0", s.Alpha)
		}
		for _, f := range []string{"plot", "log"} {
			if given[f] {
				return settingErr(f, "{"+f+"} applies to {method} skpca")
			}
		}
	default:
		return settingErr("method", "{method} %q: want skpca or skcca", s.Method)
	}
	switch {
	case s.K < 1:
		return settingErr("k", "{k} %d: must be at least 1", s.K)
	case !(s.Delta > 0 && s.Delta < 1):
		return settingErr("delta", "{delta} %v: must be in (0, 1)", s.Delta)
	case s.Kernel.Kernel != "rbf":
		return settingErr("kernel", "{kernel} %s: subspace offers rbf (sparse KPCA's bounds need κ(x,x) ≤ R for every x, which rbf guarantees with R = 1)", s.Kernel.Kernel)
	case given["log"] && !given["plot"]:
		return settingErr("log", "{log} applies to {plot}")
	}
	return nil
}

// Prepare checks that tr has more rows than K, fits the scaling on tr and
// applies it to tr and test (may be nil) in place, and returns the kernel
// for their features.
func (s *SubspaceSettings) Prepare(tr, test *data.Dataset) (pursuit.Kernel, error) {
	if s.K >= tr.Len() {
		return pursuit.Kernel{}, settingErr("k", "{k} %d: must be less than the %d training examples", s.K, tr.Len())
	}
	if err := s.scale(tr, test); err != nil {
		return pursuit.Kernel{}, err
	}
	return s.Kernel.KernelFor(tr.Dim())
}

// PreparePairs is Prepare for sparse kernel CCA's two views: x and y hold
// the training pairs row by row (more than K), tx and ty the test pairs
// (both nil: none). Each view is scaled on its own training rows, and has
// its own kernel.
func (s *SubspaceSettings) PreparePairs(x, y, tx, ty *data.Dataset) (kx, ky pursuit.Kernel, err error) {
	if s.K >= x.Len() {
		return kx, ky, settingErr("k", "{k} %d: must be less than the %d training pairs", s.K, x.Len())
	}
	if err := s.scale(x, tx); err != nil {
		return kx, ky, err
	}
	if err := s.scale(y, ty); err != nil {
		return kx, ky, err
	}
	if kx, err = s.Kernel.KernelFor(x.Dim()); err != nil {
		return kx, ky, err
	}
	ky, err = s.Kernel.KernelFor(y.Dim())
	return kx, ky, err
}

// scale fits Scale on tr and applies it to tr and test (may be nil).
func (s *SubspaceSettings) scale(tr, test *data.Dataset) error {
	m, err := (&DataSettings{Scale: s.Scale}).ScaleMode()
	if err != nil {
		return err
	}
	_, err = FitScale(m, tr, test)
	return err
}

// CheckPairs refuses two views whose row counts differ: x read from
// xPath, y from yPath, set by the setting ySetting (named in the error).
func CheckPairs(x, y *data.Dataset, xPath, yPath, ySetting string) error {
	if x.Len() != y.Len() {
		return settingErr(ySetting, "{"+ySetting+"} %s has %d rows but %s has %d: the two views must hold the same pairs, row by row", yPath, y.Len(), xPath, x.Len())
	}
	return nil
}

// FitKPCA runs sparse kernel PCA (SparseKPCA) on the prepared tr and test
// (may be nil) with kern, and reports it.
func (s *SubspaceSettings) FitKPCA(e *engine.Engine, kern pursuit.Kernel, tr, test *data.Dataset) (*KPCACurve, *KPCAReport, error) {
	var teX pursuit.Matrix
	nTest := 0
	if test != nil {
		teX, nTest = test.X, test.Len()
	}
	kc, err := SparseKPCA(e, kern, tr.X, teX, s.K, s.Delta)
	if err != nil {
		return nil, nil, err
	}
	return kc, kc.Report(kern, e.BackendName(), tr.Len(), nTest, s.Delta), nil
}

// FitKCCA runs sparse kernel CCA (SparseKCCA) on the prepared pairs (x, y)
// and test pairs (tx, ty; nil: none) with kernels kx and ky; with
// features, the report holds every pair's features. A failure to evaluate
// Theorem 9 at Alpha is a SettingError about "alpha".
func (s *SubspaceSettings) FitKCCA(e *engine.Engine, kx, ky pursuit.Kernel, x, y, tx, ty *data.Dataset, features bool) (*KCCAReport, error) {
	var qx, qy *pursuit.Matrix
	if tx != nil {
		qx, qy = &tx.X, &ty.X
	}
	r, err := SparseKCCA(e, kx, ky, x.X, y.X, qx, qy, s.K, s.Alpha, s.Delta, features)
	var ae *AlphaError
	if errors.As(err, &ae) {
		return nil, settingErr("alpha", "{alpha}: %v", ae.Err)
	}
	return r, err
}
