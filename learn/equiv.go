package learn

import (
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bpdn"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// EquivSettings are the settings of solving ε-SVR two ways, bpdn and SMO,
// and certifying that they agree (bpdn.Equiv), by name, as a program
// offers them.
type EquivSettings struct {
	// Model holds the kernel's settings ("kernel", "gamma", "sigma",
	// "degree", "coef0") and bpdn's Epsilon and C; its Algo is set to
	// bpdn by Validate.
	Model Settings
	// Scale is the scaling fitted on the data (DataSettings.Scale).
	Scale string
	// SMOTol is the SMO solver's stopping tolerance ("smo-tol"; LIBSVM's
	// -e), positive and finite.
	SMOTol float64
}

// Validate checks the settings (Settings.Validate as bpdn's, with extra
// restricting a caller's own options as there); given names those set
// explicitly.
func (s *EquivSettings) Validate(given map[string]bool, extra map[string][]string) error {
	s.Model.Algo = "bpdn"
	if err := s.Model.Validate(given, extra); err != nil {
		return err
	}
	if !(s.SMOTol > 0) || math.IsInf(s.SMOTol, 0) {
		return settingErr("smo-tol", "{smo-tol} %v: must be positive and finite", s.SMOTol)
	}
	return nil
}

// Run checks that ds (read from path, named in the errors) has
// real-valued targets, scales it in place as Scale says, and solves and
// compares (bpdn.Equiv) with the kernel of the settings for its features,
// which it returns too.
func (s *EquivSettings) Run(e *engine.Engine, path string, ds *data.Dataset) (*bpdn.Equivalence, pursuit.Kernel, error) {
	if err := CheckRegressionTargets(ds.Y); err != nil {
		return nil, pursuit.Kernel{}, fmt.Errorf("%s: %w", path, err)
	}
	m, err := (&DataSettings{Scale: s.Scale}).ScaleMode()
	if err != nil {
		return nil, pursuit.Kernel{}, err
	}
	if _, err := FitScale(m, ds); err != nil {
		return nil, pursuit.Kernel{}, err
	}
	k, err := s.Model.KernelFor(ds.Dim())
	if err != nil {
		return nil, pursuit.Kernel{}, err
	}
	eq, err := bpdn.Equiv(e, ds.X, ds.Y, k, s.Model.Epsilon, s.Model.C, s.SMOTol)
	return eq, k, err
}
