package data

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit"
)

// ScaleMode names a feature scaling.
type ScaleMode string

// The scalings FitScaler knows.
const (
	ScaleMinMax   ScaleMode = "minmax"   // each feature mapped linearly onto [-1, 1] over the training data
	ScaleStandard ScaleMode = "standard" // each feature to mean 0, standard deviation 1 (population σ)
	ScaleMaxAbs   ScaleMode = "maxabs"   // each feature divided by its largest |value| over the training data, onto [-1, 1]: zeros stay zero
	ScaleNone     ScaleMode = "none"     // identity, still checks the feature count
)

// DefaultScaleMode returns the scaling to use on x when none is asked for:
// ScaleMaxAbs for sparse data (density below SparseDensity, or rows held
// sparse), as it keeps the zeros (min-max scaling maps a zero to −1 unless
// the feature's range is symmetric, and standard scaling subtracts the
// mean: both fill in the zeros of sparse data), ScaleMinMax otherwise.
// The choice follows the data, not the storage StorageAuto picked for
// them: storage is a speed and memory choice, and the same numbers held
// dense or sparse get the same scaling and so the same model.
func DefaultScaleMode(x pursuit.Matrix) ScaleMode {
	if x.IsSparse() {
		return ScaleMaxAbs // no need to count the non-zeros
	}
	return DefaultScaleModeOf(false, x.Rows, x.Cols, CountNonZeros(x))
}

// DefaultScaleModeOf is DefaultScaleMode for data of rows×cols values with
// nnz non-zeros (sparse: held as compressed sparse rows), for callers
// that count them across several parts (the ranks of a sharded run).
func DefaultScaleModeOf(sparse bool, rows, cols int, nnz int64) ScaleMode {
	if sparse || (rows > 0 && cols > 0 && Density(rows, cols, nnz) < SparseDensity) {
		return ScaleMaxAbs
	}
	return ScaleMinMax
}

// KeepsZeros reports whether the scaling maps 0 to 0 on every feature, so
// that it applies to sparse rows without filling them in.
func (m ScaleMode) KeepsZeros() bool { return m == ScaleMaxAbs || m == ScaleNone }

// errFillsZeros is the error of a scaling that would fill in sparse rows.
func errFillsZeros(verb string, m ScaleMode) error {
	return fmt.Errorf("%s %s scaler: the data are sparse and %s scaling would fill in their zeros (every zero becomes non-zero): use %s or %s scaling, which keep them, or dense storage",
		verb, m, m, ScaleMaxAbs, ScaleNone)
}

// ParseScaleMode parses a scaling name: "minmax" (or "min-max"), "maxabs"
// (or "max-abs"), "standard" (or "std", "zscore"), "none"; case does not
// matter.
func ParseScaleMode(s string) (ScaleMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "minmax", "min-max":
		return ScaleMinMax, nil
	case "standard", "std", "zscore", "z-score":
		return ScaleStandard, nil
	case "maxabs", "max-abs":
		return ScaleMaxAbs, nil
	case "none":
		return ScaleNone, nil
	}
	return "", fmt.Errorf("unknown feature scaling %q (want minmax, maxabs, standard or none)", s)
}

// Scaler is a fitted per-feature affine map x'_j = (x_j − Offset[j])·Scale[j].
// Its fields are exported so that a model can store it (as JSON, say) and
// re-apply exactly the training-time scaling at prediction.
//
// A feature that is constant on the training data gets Scale 0: it maps to 0
// on the training data and on any later data, never to NaN or Inf. The model
// never saw that feature vary, so later variation in it is ignored.
type Scaler struct {
	Mode   ScaleMode `json:"mode"`
	Offset []float64 `json:"offset"`
	Scale  []float64 `json:"scale"`
}

// FitScaler computes the scaling of mode over the rows of x (the training
// data). It fails on an unknown mode, an empty x or non-finite values, and
// on sparse x for a scaling that would fill in its zeros (minmax,
// standard: see KeepsZeros).
func FitScaler(mode ScaleMode, x pursuit.Matrix) (*Scaler, error) {
	if err := checkFit(mode, x); err != nil {
		return nil, err
	}
	if x.Rows == 0 {
		return nil, fmt.Errorf("fit %s scaler: no rows to fit on", mode)
	}
	d := x.Cols
	s := &Scaler{Mode: mode, Offset: make([]float64, d), Scale: make([]float64, d)}
	switch mode {
	case ScaleNone:
		for j := range s.Scale {
			s.Scale[j] = 1
		}
	case ScaleMinMax:
		lo, hi := columnRange(x)
		s.setMinMax(lo, hi)
	case ScaleMaxAbs:
		s.setMaxAbs(columnMaxAbs(x))
	case ScaleStandard:
		// Two passes (mean, then squared deviations): exact enough in float64
		// and free of the cancellation of the one-pass formula.
		mean := columnSums(x)
		n := float64(x.Rows)
		for j := range mean {
			mean[j] /= n
		}
		s.setStandard(mean, squaredDeviations(x, mean), n)
	}
	return s, nil
}

// Ranks is what FitScalerComm needs of the ranks a run is split across:
// engine.Group (the engine's collectives) is one.
type Ranks interface {
	Size() int
	AllreduceSum(buf []float64) error
	Allgather(send []float64) ([]float64, error)
}

// FitScalerComm is FitScaler over the rows of every rank of c together: each
// rank passes its own rows (none is allowed) with the same number of
// features, and every rank gets the scaler of their concatenation (minmax
// exactly; standard up to the order in which the ranks' sums are added). It
// is a collective: every rank calls it, and every rank fails when one
// rank's rows are invalid.
func FitScalerComm(mode ScaleMode, x pursuit.Matrix, c Ranks) (*Scaler, error) {
	if c.Size() == 1 {
		return FitScaler(mode, x)
	}
	local := checkFit(mode, x)
	// Every rank learns whether one failed, and the number of rows.
	st := []float64{0, float64(x.Rows)}
	if local != nil {
		st[0] = 1
	}
	if err := c.AllreduceSum(st); err != nil {
		return nil, fmt.Errorf("fit %s scaler: %w", mode, err)
	}
	switch {
	case local != nil:
		return nil, local
	case st[0] > 0:
		return nil, fmt.Errorf("fit %s scaler: the rows of %v other rank(s) are invalid", mode, st[0])
	case st[1] == 0:
		return nil, fmt.Errorf("fit %s scaler: no rows to fit on (on any rank)", mode)
	}
	d, n := x.Cols, st[1]
	s := &Scaler{Mode: mode, Offset: make([]float64, d), Scale: make([]float64, d)}
	switch mode {
	case ScaleNone:
		for j := range s.Scale {
			s.Scale[j] = 1
		}
	case ScaleMinMax:
		// Every rank's ranges (±Inf on a rank without rows), then the
		// extremes: exactly the single-process range.
		lo, hi := columnRange(x)
		all, err := c.Allgather(append(lo, hi...))
		if err != nil {
			return nil, fmt.Errorf("fit %s scaler: %w", mode, err)
		}
		for r := range c.Size() {
			part := all[2*d*r:]
			for j := range d {
				lo[j] = math.Min(lo[j], part[j])
				hi[j] = math.Max(hi[j], part[d+j])
			}
		}
		s.setMinMax(lo, hi)
	case ScaleMaxAbs:
		m := columnMaxAbs(x)
		all, err := c.Allgather(m)
		if err != nil {
			return nil, fmt.Errorf("fit %s scaler: %w", mode, err)
		}
		for r := range c.Size() {
			for j, v := range all[d*r : d*(r+1)] {
				m[j] = math.Max(m[j], v)
			}
		}
		s.setMaxAbs(m)
	case ScaleStandard:
		mean := columnSums(x)
		if err := c.AllreduceSum(mean); err != nil {
			return nil, fmt.Errorf("fit %s scaler: %w", mode, err)
		}
		for j := range mean {
			mean[j] /= n
		}
		ss := squaredDeviations(x, mean)
		if err := c.AllreduceSum(ss); err != nil {
			return nil, fmt.Errorf("fit %s scaler: %w", mode, err)
		}
		s.setStandard(mean, ss, n)
	}
	return s, nil
}

// checkFit validates the mode and x (finite values) for fitting.
func checkFit(mode ScaleMode, x pursuit.Matrix) error {
	if err := x.Validate(); err != nil {
		return fmt.Errorf("fit %s scaler: %w", mode, err)
	}
	switch mode {
	case ScaleMinMax, ScaleStandard, ScaleMaxAbs, ScaleNone:
	default:
		return fmt.Errorf("fit scaler: unknown scaling %q (want minmax, maxabs, standard or none)", string(mode))
	}
	if x.IsSparse() && !mode.KeepsZeros() {
		return errFillsZeros("fit", mode)
	}
	if i, j, v, ok := firstNonFinite(x); ok {
		return fmt.Errorf("fit %s scaler: row %d feature %d is %v, not finite", mode, i+1, j+1, v)
	}
	return nil
}

// columnRange returns each feature's smallest and largest value over the
// rows of x (+Inf and −Inf without rows).
func columnRange(x pursuit.Matrix) (lo, hi []float64) {
	lo, hi = make([]float64, x.Cols), make([]float64, x.Cols)
	for j := range lo {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			f := float64(v)
			lo[j] = math.Min(lo[j], f)
			hi[j] = math.Max(hi[j], f)
		}
	}
	return lo, hi
}

// columnMaxAbs returns each feature's largest |value| over the rows of x,
// dense or sparse (0 without rows).
func columnMaxAbs(x pursuit.Matrix) []float64 {
	m := make([]float64, x.Cols)
	for i := range x.Rows {
		visitNonZeros(x, i, func(j int, v float32) {
			m[j] = math.Max(m[j], math.Abs(float64(v)))
		})
	}
	return m
}

// setMaxAbs divides each feature by its largest |value| (a feature that is
// 0 throughout gets Scale 0).
func (s *Scaler) setMaxAbs(m []float64) {
	for j, v := range m {
		if v > 0 {
			s.Scale[j] = 1 / v
		}
	}
}

// columnSums returns each feature's sum over the rows of x.
func columnSums(x pursuit.Matrix) []float64 {
	sum := make([]float64, x.Cols)
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			sum[j] += float64(v)
		}
	}
	return sum
}

// squaredDeviations returns each feature's Σ (x − mean)² over the rows of x.
func squaredDeviations(x pursuit.Matrix, mean []float64) []float64 {
	ss := make([]float64, x.Cols)
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			dv := float64(v) - mean[j]
			ss[j] += dv * dv
		}
	}
	return ss
}

// setMinMax maps each feature's [lo, hi] onto [−1, 1] (a constant feature
// gets Scale 0).
func (s *Scaler) setMinMax(lo, hi []float64) {
	for j := range lo {
		if hi[j] > lo[j] {
			s.Offset[j] = lo[j] + (hi[j]-lo[j])/2
			s.Scale[j] = 2 / (hi[j] - lo[j])
		} else {
			s.Offset[j] = lo[j]
		}
	}
}

// setStandard sets mean 0 and standard deviation 1 from the means and the
// sums of squared deviations over n rows.
func (s *Scaler) setStandard(mean, ss []float64, n float64) {
	copy(s.Offset, mean)
	for j := range ss {
		// Treat a spread below float32 resolution of the mean as constant:
		// it is rounding in the stored data, not signal.
		sd := math.Sqrt(ss[j] / n)
		if sd > 1e-7*math.Abs(mean[j]) && sd > 0 {
			s.Scale[j] = 1 / sd
		}
	}
}

// Check reports whether s is usable: a known mode, Offset and Scale of equal
// length, finite entries. Apply calls it; call it after decoding a stored
// Scaler to report a corrupt model early.
func (s *Scaler) Check() error {
	switch s.Mode {
	case ScaleMinMax, ScaleStandard, ScaleMaxAbs, ScaleNone:
	default:
		return fmt.Errorf("scaler: unknown scaling %q (want minmax, maxabs, standard or none)", string(s.Mode))
	}
	if s.Mode == ScaleMaxAbs {
		for j, o := range s.Offset {
			if o != 0 {
				return fmt.Errorf("scaler: maxabs scaling with offset %v on feature %d (want 0)", o, j+1)
			}
		}
	}
	if len(s.Offset) != len(s.Scale) {
		return fmt.Errorf("scaler: %d offsets but %d scales", len(s.Offset), len(s.Scale))
	}
	for j := range s.Scale {
		if o, c := s.Offset[j], s.Scale[j]; math.IsNaN(o) || math.IsInf(o, 0) || math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("scaler: feature %d has offset %v and scale %v, not finite", j+1, o, c)
		}
	}
	return nil
}

// Dim returns the number of features s was fitted on.
func (s *Scaler) Dim() int { return len(s.Scale) }

// Apply scales the rows of x in place. x must have exactly the features s was
// fitted on; otherwise it returns an error wrapping ErrFeatureMismatch and
// leaves x unchanged. Sparse x takes only the scalings that keep zeros
// (maxabs, none), which scale its stored values; the others are refused
// before anything changes. Results are computed in float64 and rounded to float32;
// a non-finite input or result (a value beyond float32's range after scaling)
// is an error, reported when reached.
func (s *Scaler) Apply(x pursuit.Matrix) error {
	if err := s.Check(); err != nil {
		return err
	}
	if err := x.Validate(); err != nil {
		return fmt.Errorf("apply %s scaler: %w", s.Mode, err)
	}
	if x.Cols != len(s.Scale) {
		return fmt.Errorf("apply %s scaler: %w: data has %d features, the scaler was fitted on %d",
			s.Mode, ErrFeatureMismatch, x.Cols, len(s.Scale))
	}
	if s.Mode == ScaleNone {
		return nil
	}
	if x.IsSparse() {
		if !s.Mode.KeepsZeros() {
			return errFillsZeros("apply", s.Mode)
		}
		for i := range x.Rows {
			idx, val := x.SparseRow(i)
			for k, j := range idx {
				v := val[k]
				f := float32(float64(v) * s.Scale[j])
				if g := float64(f); math.IsNaN(g) || math.IsInf(g, 0) {
					return fmt.Errorf("apply %s scaler: row %d feature %d: %v scales to %v (rows before it are already scaled)",
						s.Mode, i+1, j+1, v, f)
				}
				val[k] = f
			}
		}
		return nil
	}
	for i := range x.Rows {
		row := x.Row(i)
		for j, v := range row {
			f := float32((float64(v) - s.Offset[j]) * s.Scale[j])
			if g := float64(f); math.IsNaN(g) || math.IsInf(g, 0) {
				return fmt.Errorf("apply %s scaler: row %d feature %d: %v scales to %v (rows before it are already scaled)",
					s.Mode, i+1, j+1, v, f)
			}
			row[j] = f
		}
	}
	return nil
}

// WriteRange writes s as an svm-scale range file (svm-scale -r FILE): each
// feature's [min, max] mapped onto [−1, 1] reproduces x' = (x − offset)·scale
// with min = offset − 1/scale and max = offset + 1/scale; a feature whose
// scale is 0 (constant in the training data) has min = max, which svm-scale
// maps to 0 as the scaler does.
func (s *Scaler) WriteRange(w io.Writer) error {
	bw := bufio.NewWriter(w)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 17, 64) }
	fmt.Fprintf(bw, "x\n-1 1\n")
	for j := range s.Scale {
		lo, hi := s.Offset[j], s.Offset[j]
		if s.Scale[j] != 0 {
			lo, hi = s.Offset[j]-1/s.Scale[j], s.Offset[j]+1/s.Scale[j]
		}
		fmt.Fprintf(bw, "%d %s %s\n", j+1, g(lo), g(hi))
	}
	return bw.Flush()
}
