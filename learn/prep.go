package learn

import (
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// ScaleAuto is the Prep.Scale that chooses the scaling from the training
// rows: data.DefaultScaleMode (maxabs for sparse data, by density or
// storage, minmax otherwise; across ranks, by all the ranks' rows).
const ScaleAuto data.ScaleMode = "auto"

// Prep is the preprocessing step of a training run, with one owner: it
// holds out a validation part of the training set (stratified by label for
// classification) and scales the training, validation and test sets with
// the scaling fitted on the training part (across the ranks of the
// engine's Group when it has several), charging every data-sized copy it
// makes to the engine's memory budget.
type Prep struct {
	// ValFrac is the fraction of the training set held out for validation
	// (0: none).
	ValFrac float64
	// Seed draws the validation split.
	Seed uint64
	// Scale is the scaling fitted on the training part: a data.ScaleMode,
	// ScaleAuto, or "" for none at all (Prepared.Scaler nil).
	Scale data.ScaleMode
	// InPlace makes the given sets the working sets: the training set's
	// rows are reordered (training rows first), both sets are scaled in
	// place and the parts are views of the training set, so no data-sized
	// copy is made. Otherwise the working sets are copies.
	InPlace bool
	// KeepRaw keeps an unscaled copy of the training part (Prepared.Raw),
	// charged to the budget.
	KeepRaw bool
}

// Prepared is the data of one training run, preprocessed.
type Prepared struct {
	// Train, Val and Test are the scaled sets (Val nil without a validation
	// part, Test nil without a test set).
	Train, Val, Test *data.Dataset
	// Raw is the unscaled copy of Train, when Prep.KeepRaw asked for it.
	Raw *data.Dataset
	// Scaler is the scaling applied (nil when Prep.Scale is "").
	Scaler *data.Scaler
	// Held is the bytes of working copies charged to the engine's budget:
	// Release gives them back.
	Held int64
}

// Release gives the bytes of p's working copies back to e's budget.
func (p *Prepared) Release(e *engine.Engine) {
	if p != nil {
		e.Release(p.Held)
		p.Held = 0
	}
}

// SplitError is Prep's refusal of a validation split: Err is data.CheckSplit's
// reason, or nil when the split leaves an empty part.
type SplitError struct {
	Frac float64
	N    int
	Err  error
}

func (s *SplitError) Error() string {
	if s.Err != nil {
		return fmt.Sprintf("validation split: %v", s.Err)
	}
	return fmt.Sprintf("a validation fraction of %v of %d examples leaves an empty training or validation set", s.Frac, s.N)
}

func (s *SplitError) Unwrap() error { return s.Err }

// Is makes a SplitError a pursuit.ErrBadInput.
func (s *SplitError) Is(target error) bool { return target == pursuit.ErrBadInput }

// Apply preprocesses ds (the training set) and test (may be nil) for plan.
// Across ranks (e's Group has several), ds and test are this rank's rows
// and the scaling is fitted on every rank's training rows (a collective).
// On error, nothing stays charged.
func (p Prep) Apply(e *engine.Engine, plan LabelPlan, ds, test *data.Dataset) (_ *Prepared, err error) {
	pr := &Prepared{}
	defer func() {
		if err != nil {
			pr.Release(e)
		}
	}()
	work := func(d *data.Dataset) (*data.Dataset, error) {
		if d == nil || p.InPlace {
			return d, nil
		}
		if err := e.Hold("a working copy of "+d.Name, d.Bytes()); err != nil {
			return nil, err
		}
		pr.Held += d.Bytes()
		return d.Subset(identity(d.Len())), nil
	}
	if ds, err = work(ds); err != nil {
		return nil, err
	}
	if pr.Test, err = work(test); err != nil {
		return nil, err
	}
	if pr.Train, pr.Val, err = splitVal(ds, p.ValFrac, p.Seed, plan); err != nil {
		return nil, err
	}
	if p.KeepRaw {
		if err := e.Hold("an unscaled copy of "+ds.Name, pr.Train.Bytes()); err != nil {
			return nil, err
		}
		pr.Held += pr.Train.Bytes()
		pr.Raw = pr.Train.Subset(identity(pr.Train.Len()))
	}
	if p.Scale == "" {
		return pr, nil
	}
	if pr.Scaler, err = FitScaler(e.Group(), p.Scale, pr.Train); err != nil {
		return nil, err
	}
	// The training and validation parts are the rows of ds: one pass.
	for _, d := range []*data.Dataset{ds, pr.Test} {
		if err := ScaleInPlace(pr.Scaler, d); err != nil {
			return nil, err
		}
	}
	return pr, nil
}

func identity(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// splitVal holds out a stratified fraction of ds for validation, in place:
// it reorders ds's rows, training rows first, and returns views of the two
// parts; val is nil when frac is 0.
func splitVal(ds *data.Dataset, frac float64, seed uint64, plan LabelPlan) (train, val *data.Dataset, err error) {
	if frac == 0 {
		return ds, nil, nil
	}
	var strat []float64
	if plan.Task != TaskRegression {
		strat = ds.Y
	}
	if err := data.CheckSplit(ds.Len(), []float64{1 - frac, frac}, strat); err != nil {
		return nil, nil, &SplitError{Frac: frac, N: ds.Len(), Err: err}
	}
	sets := data.Split(ds.Len(), []float64{1 - frac, frac}, seed, strat)
	if len(sets[0]) == 0 || len(sets[1]) == 0 {
		return nil, nil, &SplitError{Frac: frac, N: ds.Len()}
	}
	n0 := len(sets[0])
	if err := ds.Reorder(append(sets[0], sets[1]...)); err != nil {
		return nil, nil, err
	}
	return ds.View(0, n0), ds.View(n0, ds.Len()), nil
}

// ResolveScale returns the scaling mode fits on ds: mode itself, or for
// ScaleAuto data.DefaultScaleMode of ds's rows.
func ResolveScale(mode data.ScaleMode, ds *data.Dataset) data.ScaleMode {
	if mode == ScaleAuto {
		return data.DefaultScaleMode(ds.X)
	}
	return mode
}

// FitScaler fits the scaling mode (ScaleAuto: ResolveScale) on ds: across
// the ranks of g when it has several, on every rank's rows of it together
// (a collective).
func FitScaler(g engine.Group, mode data.ScaleMode, ds *data.Dataset) (*data.Scaler, error) {
	var s *data.Scaler
	var err error
	if g.Sharded() {
		m := mode
		if mode == ScaleAuto {
			// Every rank takes the same default: the density of all the
			// ranks' rows together, not of its own.
			m, err = resolveScaleAcross(g, ds)
			if err != nil {
				return nil, fmt.Errorf("%s: choosing the default scaling: %w", ds.Name, err)
			}
		}
		s, err = data.FitScalerComm(m, ds.X, g)
	} else {
		s, err = data.FitScaler(ResolveScale(mode, ds), ds.X)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	return s, nil
}

// resolveScaleAcross is ResolveScale's default for the rows of every rank
// of g together (a collective): sparse if any rank holds its rows sparse,
// else by the density of all the rows.
func resolveScaleAcross(g engine.Group, ds *data.Dataset) (data.ScaleMode, error) {
	sparse := 0.0
	if ds.X.IsSparse() {
		sparse = 1
	}
	buf := []float64{sparse, float64(ds.X.Rows), float64(data.CountNonZeros(ds.X))}
	if err := g.AllreduceSum(buf); err != nil {
		return "", err
	}
	return data.DefaultScaleModeOf(buf[0] > 0, int(buf[1]), ds.X.Cols, int64(buf[2])), nil
}

// ScaleInPlace scales ds with s (nothing for a nil ds).
func ScaleInPlace(s *data.Scaler, ds *data.Dataset) error {
	if ds == nil {
		return nil
	}
	if err := s.Apply(ds.X); err != nil {
		return fmt.Errorf("%s: %w", ds.Name, err)
	}
	return nil
}

// FitScale fits the scaling mode on tr (in one process; ScaleAuto
// resolves on tr) and scales tr and each of others (nil ones skipped) with
// it, in place.
func FitScale(mode data.ScaleMode, tr *data.Dataset, others ...*data.Dataset) (*data.Scaler, error) {
	s, err := FitScaler(engine.Group{}, mode, tr)
	if err != nil {
		return nil, err
	}
	for _, ds := range append([]*data.Dataset{tr}, others...) {
		if err := ScaleInPlace(s, ds); err != nil {
			return nil, err
		}
	}
	return s, nil
}
