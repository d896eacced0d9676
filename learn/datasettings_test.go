package learn

import (
	"errors"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
)

// TestDataSettings checks the refusals, the task, the preprocessing and
// the load options of the data settings.
func TestDataSettings(t *testing.T) {
	ok := DataSettings{Format: "auto", Scale: "auto", Storage: "auto"}
	for _, c := range []struct {
		edit  func(*DataSettings)
		given []string
		want  string
	}{
		{func(d *DataSettings) { d.Positive = "x" }, []string{"positive"}, `--positive "x": a label must be a finite number, as in the data file`},
		{func(d *DataSettings) { d.Positive, d.OneVsRest = "1", true }, []string{"positive"}, "give --positive LABEL or --one-vs-rest, not both"},
		{func(d *DataSettings) { d.Regression, d.OneVsRest = true, true }, nil, "--regression fits real-valued targets; --positive and --one-vs-rest are for classification"},
		{func(d *DataSettings) { d.ValFrac = 1 }, nil, "--val-frac 1: must be in [0, 1)"},
		{func(d *DataSettings) { d.Scale = "x" }, nil, `--scale "x": want auto, minmax, maxabs, standard or none`},
		{func(d *DataSettings) { d.Storage = "x" }, nil, `--storage "x": want auto, dense or sparse`},
		{func(d *DataSettings) { d.Format = "x" }, nil, `--format "x": want auto, libsvm or csv`},
	} {
		d := ok
		c.edit(&d)
		given := map[string]bool{}
		for _, g := range c.given {
			given[g] = true
		}
		err := d.Validate(given)
		var se *SettingError
		if !errors.As(err, &se) || se.Text(dashes) != c.want || !errors.Is(err, pursuit.ErrConfig) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
	if err := ok.Validate(nil); err != nil {
		t.Errorf("defaults refused: %v", err)
	}
	d := ok
	d.Positive = " 2 "
	if s, err := d.LabelSpec(); err != nil || s.Positive == nil || *s.Positive != 2 || s.OneVsRest || s.Regression {
		t.Errorf("positive 2: %+v, %v", s, err)
	}
	d.Regression = true // the positive label is ignored for regression
	if s, err := d.LabelSpec(); err != nil || s.Positive != nil || !s.Regression {
		t.Errorf("regression: %+v, %v", s, err)
	}
	d = ok
	d.ValFrac, d.Scale = 0.25, "maxabs"
	if p, err := d.Prep(7); err != nil || p.ValFrac != 0.25 || p.Seed != 7 || p.Scale != data.ScaleMaxAbs {
		t.Errorf("prep: %+v, %v", p, err)
	}
	if m, err := ok.ScaleMode(); err != nil || m != ScaleAuto {
		t.Errorf("scale auto: %q, %v", m, err)
	}
	if d.StorageFor(true) != data.StorageAuto || d.StorageFor(false) != data.StorageDense || (&DataSettings{}).StorageFor(true) != data.StorageDense {
		t.Error("StorageFor: auto with a sparse learner, dense otherwise and for \"\"")
	}
	// The load options read a CSV file as the settings say: label column
	// last, a header, two features.
	d = DataSettings{Format: "csv", LabelColumn: -1, Header: true, Storage: "dense"}
	ds, err := data.ReadCSV(strings.NewReader("a,b,y\n1,2,1\n3,4,-1\n"), "x.csv", d.LoadOptions(0, false, nil)...)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 2 || ds.Dim() != 2 || ds.X.At(1, 1) != 4 || ds.Y[0] != 1 || ds.Y[1] != -1 {
		t.Errorf("CSV read with the settings: %d × %d, labels %v", ds.Len(), ds.Dim(), ds.Y)
	}
	if d.FormatOf() != data.FormatCSV || (&DataSettings{Format: "auto"}).FormatOf() != data.FormatAuto {
		t.Error("FormatOf")
	}
}
