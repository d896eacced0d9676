package main

import (
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit/data"
)

func nan() float64 { return math.NaN() }

// loadOptions returns the data options of the flags, forcing dim features
// when dim > 0 (test and prediction data must match the model).
func (d *dataFlags) loadOptions(dim int) []data.Option {
	var opts []data.Option
	switch d.format {
	case "libsvm":
		opts = append(opts, data.WithFormat(data.FormatLibSVM))
	case "csv":
		opts = append(opts, data.WithFormat(data.FormatCSV))
	}
	if d.labelColumn != 0 {
		opts = append(opts, data.WithLabelColumn(d.labelColumn))
	}
	if d.header {
		opts = append(opts, data.WithHeader(true))
	}
	if dim > 0 {
		opts = append(opts, data.WithDim(dim))
	}
	return opts
}

// loadData reads a data file, checking it has examples.
func loadData(path string, opts []data.Option) (*data.Dataset, error) {
	ds, err := data.Load(path, opts...)
	if err != nil {
		return nil, err
	}
	if ds.Len() == 0 {
		return nil, fmt.Errorf("%s: no examples", path)
	}
	return ds, nil
}

// splitVal holds out a stratified fraction of ds for validation; val is nil
// when frac is 0.
func splitVal(ds *data.Dataset, frac float64, seed int64, plan *labelPlan) (train, val *data.Dataset, err error) {
	if frac == 0 {
		return ds, nil, nil
	}
	var strat []float64
	if plan.Task != taskRegression {
		strat = ds.Y
	}
	if err := data.CheckSplit(ds.Len(), []float64{1 - frac, frac}, strat); err != nil {
		return nil, nil, fmt.Errorf("--val-frac: %w", err)
	}
	sets := data.Split(ds.Len(), []float64{1 - frac, frac}, uint64(seed), strat)
	if len(sets[0]) == 0 || len(sets[1]) == 0 {
		return nil, nil, fmt.Errorf("--val-frac %v of %d examples leaves an empty training or validation set", frac, ds.Len())
	}
	return ds.Subset(sets[0]), ds.Subset(sets[1]), nil
}

// fitScaler fits the scaling of the flags on x; copies are scaled, never
// the caller's data: use scaled.
func fitScaler(mode string, ds *data.Dataset) (*data.Scaler, error) {
	m, err := data.ParseScaleMode(mode)
	if err != nil {
		return nil, fmt.Errorf("--scale: %w", err)
	}
	s, err := data.FitScaler(m, ds.X)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	return s, nil
}

// scaled returns a scaled copy of ds (ds itself for a nil scaler).
func scaled(s *data.Scaler, ds *data.Dataset) (*data.Dataset, error) {
	if ds == nil || s == nil {
		return ds, nil
	}
	idx := make([]int, ds.Len())
	for i := range idx {
		idx[i] = i
	}
	c := ds.Subset(idx)
	if err := s.Apply(c.X); err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	return c, nil
}

// loadTrainTest reads the --data file, the --test file if given (padded to
// the training data's features, and refused if it has more), and plans the
// labels (binary, one-vs-rest or regression) from the training labels.
func (d *dataFlags) loadTrainTest() (all, test *data.Dataset, plan labelPlan, err error) {
	if all, err = loadData(d.data, d.loadOptions(0)); err != nil {
		return nil, nil, labelPlan{}, err
	}
	if d.test != "" {
		if test, err = loadData(d.test, d.loadOptions(all.Dim())); err != nil {
			return nil, nil, labelPlan{}, fmt.Errorf("%w (the test data must have the training data's %d features)", err, all.Dim())
		}
	}
	if plan, err = planLabels(all.Y, d); err != nil {
		return nil, nil, labelPlan{}, fmt.Errorf("%s: %w", d.data, err)
	}
	return all, test, plan, nil
}
