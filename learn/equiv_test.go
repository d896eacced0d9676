package learn_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/bpdn"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/learn"
)

// TestEquivSettings checks the refusals and that Run is bpdn.Equiv on the
// data scaled by hand, with bpdn's default ε and C completed.
func TestEquivSettings(t *testing.T) {
	s := learn.EquivSettings{Model: learn.DefaultSettings(), Scale: "minmax", SMOTol: 0}
	s.Model.C = 0
	var se *learn.SettingError
	if err := s.Validate(map[string]bool{}, nil); !errors.As(err, &se) || se.Text(flagNames) != "--smo-tol 0: must be positive and finite" {
		t.Errorf("smo-tol 0: %v", err)
	}
	s.SMOTol = 1e-8
	s.Model.Gamma = 0.5
	if err := s.Validate(map[string]bool{"gamma": true}, nil); err != nil {
		t.Fatal(err)
	}
	if s.Model.Algo != "bpdn" || s.Model.Epsilon != learn.DefaultBPDNEpsilon || !math.IsInf(s.Model.C, 1) {
		t.Errorf("completed settings %+v", s.Model)
	}
	e := newEngine(t)
	ds := blobs(40, 2, 2)
	for i := range ds.Y {
		ds.Y[i] = float64(ds.X.At(i, 0)) + 0.1*float64(i%3)
	}
	byHand := blobs(40, 2, 2)
	copy(byHand.Y, ds.Y)
	if _, err := learn.FitScale(data.ScaleMinMax, byHand); err != nil {
		t.Fatal(err)
	}
	got, k, err := s.Run(e, "reg.svm", ds)
	if err != nil {
		t.Fatal(err)
	}
	want, err := bpdn.Equiv(e, byHand.X, byHand.Y, k, s.Model.Epsilon, s.Model.C, 1e-8)
	if err != nil {
		t.Fatal(err)
	}
	if k.Gamma != 0.5 || got.Certificate != want.Certificate {
		t.Errorf("Run: kernel %v, certificate %+v; by hand %+v", k, got.Certificate, want.Certificate)
	}
	if _, _, err := s.Run(e, "cls.svm", blobs(20, 2, 1)); err == nil || !strings.HasPrefix(err.Error(), "cls.svm: the targets take only 2 distinct values") {
		t.Errorf("class labels: %v", err)
	}
}
