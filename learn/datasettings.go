package learn

import (
	"math"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
)

// DataSettings say how a data file is read, held and preprocessed and how
// its labels become the task; each has a name, given in its field's
// comment (the pursuit command's flag that sets it), by which errors
// refer to it (SettingError).
type DataSettings struct {
	Format      string  // "format": auto (from the name), libsvm or csv
	LabelColumn int     // "label-column": CSV's label column (negative counts from the end)
	Header      bool    // "header": CSV's first line is a header
	Positive    string  // "positive": this label against the rest ("": not given)
	OneVsRest   bool    // "one-vs-rest": every class against the rest
	Regression  bool    // "regression": real-valued targets
	Scale       string  // "scale": auto (ScaleAuto), minmax, maxabs, standard or none
	Storage     string  // "storage": auto, dense or sparse ("" is dense)
	ValFrac     float64 // "val-frac": the validation part held out, in [0, 1)
}

// ParseLabel parses a class label given as text, as in a data file.
func ParseLabel(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, settingErr("positive", "{positive} %q: a label must be a finite number, as in the data file", s)
	}
	return v, nil
}

// Validate checks the settings; given names those set explicitly.
func (d *DataSettings) Validate(given map[string]bool) error {
	if given["positive"] && d.OneVsRest {
		return settingErr("positive", "give {positive} LABEL or {one-vs-rest}, not both")
	}
	if given["positive"] {
		if _, err := ParseLabel(d.Positive); err != nil {
			return err
		}
	}
	if d.Regression && (given["positive"] || d.OneVsRest) {
		return settingErr("regression", "{regression} fits real-valued targets; {positive} and {one-vs-rest} are for classification")
	}
	if !(d.ValFrac >= 0 && d.ValFrac < 1) {
		return settingErr("val-frac", "{val-frac} %v: must be in [0, 1)", d.ValFrac)
	}
	switch d.Scale {
	case "auto", "minmax", "maxabs", "standard", "none":
	default:
		return settingErr("scale", "{scale} %q: want auto, minmax, maxabs, standard or none", d.Scale)
	}
	switch d.Storage {
	case "", "auto", "dense", "sparse":
	default:
		return settingErr("storage", "{storage} %q: want auto, dense or sparse", d.Storage)
	}
	switch d.Format {
	case "auto", "libsvm", "csv":
	default:
		return settingErr("format", "{format} %q: want auto, libsvm or csv", d.Format)
	}
	return nil
}

// FormatOf is Format as a data.Format.
func (d *DataSettings) FormatOf() data.Format {
	switch d.Format {
	case "libsvm":
		return data.FormatLibSVM
	case "csv":
		return data.FormatCSV
	}
	return data.FormatAuto
}

// StorageFor is the storage the data are loaded in: Storage, except dense
// for a learner that does not take sparse rows (sparse false) and when
// Storage is "".
func (d *DataSettings) StorageFor(sparse bool) data.Storage {
	if d.Storage == "" || !sparse {
		return data.StorageDense
	}
	st, err := data.ParseStorage(d.Storage)
	if err != nil {
		return data.StorageDense // Validate refuses it
	}
	return st
}

// LoadOptions are the data options of the settings, forcing dim features
// when dim > 0 (test and prediction data must match the model), in the
// storage StorageFor(sparse) gives. name names the settings "header" and
// "format" in the data package's hints (nil: by those names).
func (d *DataSettings) LoadOptions(dim int, sparse bool, name func(setting string) string) []data.Option {
	if name == nil {
		name = func(s string) string { return s }
	}
	opts := []data.Option{data.WithHintNames(name("header"), name("format")+" libsvm")}
	if f := d.FormatOf(); f != data.FormatAuto {
		opts = append(opts, data.WithFormat(f))
	}
	if d.LabelColumn != 0 {
		opts = append(opts, data.WithLabelColumn(d.LabelColumn))
	}
	if d.Header {
		opts = append(opts, data.WithHeader(true))
	}
	if dim > 0 {
		opts = append(opts, data.WithDim(dim))
	}
	return append(opts, data.WithStorage(d.StorageFor(sparse)))
}

// ScaleMode parses Scale: auto is ScaleAuto.
func (d *DataSettings) ScaleMode() (data.ScaleMode, error) {
	if d.Scale == "auto" {
		return ScaleAuto, nil
	}
	m, err := data.ParseScaleMode(d.Scale)
	if err != nil {
		return "", settingErr("scale", "{scale}: %v", err)
	}
	return m, nil
}

// Prep is the preprocessing step of the settings: ValFrac drawn with
// seed, and Scale.
func (d *DataSettings) Prep(seed int64) (Prep, error) {
	mode, err := d.ScaleMode()
	if err != nil {
		return Prep{}, err
	}
	return Prep{ValFrac: d.ValFrac, Seed: uint64(seed), Scale: mode}, nil
}

// LabelSpec is the task the settings ask for (PlanLabels decides it from
// the training labels).
func (d *DataSettings) LabelSpec() (LabelSpec, error) {
	s := LabelSpec{Regression: d.Regression, OneVsRest: d.OneVsRest}
	if d.Positive != "" && !d.Regression {
		pos, err := ParseLabel(d.Positive)
		if err != nil {
			return LabelSpec{}, err
		}
		s.Positive = &pos
	}
	return s, nil
}
