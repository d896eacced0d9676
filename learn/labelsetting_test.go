package learn

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// TestLabelSettingError checks the restated refusals of the task, the
// positive label as the caller spelled it, and other errors left alone.
func TestLabelSettingError(t *testing.T) {
	pe := fmt.Errorf("loading: %w", &PositiveError{Positive: 7, Err: errors.New("no example has the positive label 7")})
	var se *SettingError
	if err := LabelSettingError(pe, "7.0"); !errors.As(err, &se) || se.Text(dashes) != "--positive 7.0: no example has the positive label 7" || !errors.Is(err, pursuit.ErrConfig) {
		t.Errorf("positive: %v", err)
	}
	ce := &ClassesError{Classes: []float64{1, 2, 3}}
	if err := LabelSettingError(ce, ""); !errors.As(err, &se) ||
		se.Text(dashes) != "the training data has 3 classes (1 2 3): choose --positive LABEL for LABEL vs the rest, --one-vs-rest for all of them, or --regression for real-valued targets" {
		t.Errorf("classes: %v", err)
	}
	other := errors.New("other")
	if LabelSettingError(other, "1") != other || LabelSettingError(nil, "1") != nil {
		t.Error("an error that is not a label refusal was changed")
	}
}
