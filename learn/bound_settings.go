package learn

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// BoundSettings are the settings of the sample-compression bounds
// (File.Bound) by name, as a program offers them.
type BoundSettings struct {
	// On asks for the bound ("bound"); Delta and Alpha apply only with it.
	On bool
	// Delta is the bound's confidence 1 − Delta ("delta"), in (0, 1).
	Delta float64
	// Alpha is a regressor's error threshold: the bound is on
	// P(|f(x) − y| > Alpha) ("alpha").
	Alpha float64
}

// Validate checks the settings for the models of algorithm algo
// (regression: real-valued targets); given names those set explicitly.
// Without On, a given Delta or Alpha is refused; with it, ValidateBound.
func (b *BoundSettings) Validate(algo string, regression bool, given map[string]bool) error {
	if !b.On {
		for _, f := range []string{"delta", "alpha"} {
			if given[f] {
				return settingErr(f, "{"+f+"} applies only with {bound}")
			}
		}
		return nil
	}
	return ValidateBound(algo, regression, b.Delta, b.Alpha, given)
}

// BoundOf evaluates the bound b asks for on m, one binary classifier or
// regressor, with its (scaled) training data tr (File.Bound; with strict,
// tr must be the training data itself).
func (b *BoundSettings) BoundOf(e *engine.Engine, m *File, tr *data.Dataset, strict bool) (*Bound, error) {
	if len(m.Models) != 1 || m.Header.Labels.NumModels() != 1 || IsMulti(m.Models[0]) {
		return nil, settingErr("positive", "the bounds are for one binary classifier or regressor; train one class against the rest with {positive} LABEL")
	}
	return m.Bound(e, tr, b.Delta, b.Alpha, strict)
}

// ScaleData applies the model's scaling (none without one) to ds, read
// from path (named in the error), in place.
func (m *File) ScaleData(path string, ds *data.Dataset) error {
	if m.Header.Scaler == nil {
		return nil
	}
	if err := m.Header.Scaler.Apply(ds.X); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// CheckTrainingRows refuses data ds, read from path, whose row count is
// not the one m records for its training data (a model that records none
// is not checked): modelName names the model in the error.
func (m *File) CheckTrainingRows(path string, ds *data.Dataset, modelName string) error {
	if n := m.Header.Train.NTrain; n > 0 && n != ds.Len() {
		return settingErr("data", "{data} %s has %d examples but %s was trained on %d: the bound needs the training data itself", path, ds.Len(), modelName, n)
	}
	return nil
}
