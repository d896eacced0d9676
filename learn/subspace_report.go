package learn

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
	"github.com/pursuit-ml/pursuit/internal/plot"
)

// KPCAReport summarises a sparse kernel PCA run (SparseKPCA): its JSON
// form is what `pursuit subspace --json` prints, WriteText its table.
type KPCAReport struct {
	Method   string          `json:"method"`
	Kernel   string          `json:"kernel"`
	Backend  string          `json:"backend"`
	M        int             `json:"m"`
	NTest    int             `json:"n_test"`
	Delta    float64         `json:"delta"`
	Chosen   []int           `json:"chosen"`
	MinK     int             `json:"corollary1_min_k"`
	MinValue float64         `json:"corollary1_min"`
	Curve    []SubspacePoint `json:"curve"`
	// Out and Plot name the features file and the plot written, if any.
	Out  string `json:"out,omitempty"`
	Plot string `json:"plot,omitempty"`
	// Spectrum says whether Theorems 7 and 8 were computed.
	Spectrum bool `json:"-"`
}

// Report summarises kc, fitted with kern on m training points (and nTest
// test points) at confidence 1 − delta, on backend.
func (kc *KPCACurve) Report(kern pursuit.Kernel, backend string, m, nTest int, delta float64) *KPCAReport {
	return &KPCAReport{Method: "skpca", Kernel: kern.String(), Backend: backend, M: m, NTest: nTest, Delta: delta,
		Chosen: kc.Fit.Index, MinK: kc.MinK, MinValue: kc.MinValue, Curve: kc.Curve, Spectrum: kc.Spectrum}
}

// WriteText writes the report for people: the curve at k ≤ 10, every
// tenth k, the best k and the last, and where Corollary 1 is smallest.
func (r *KPCAReport) WriteText(w io.Writer) {
	k := len(r.Chosen)
	fmt.Fprintf(w, "method     %s, kernel %s, backend %s, %d training points, δ = %g\n", r.Method, r.Kernel, r.Backend, r.M, r.Delta)
	fmt.Fprintf(w, "%5s %10s %10s %10s %10s %10s\n", "k", "train", "test", "Cor. 1", "Thm 7", "Thm 8")
	for _, p := range r.Curve {
		if p.K <= 10 || p.K%10 == 0 || p.K == r.MinK || p.K == k {
			fmt.Fprintf(w, "%5d %10.4f %10s %10.4f %10s %10s\n", p.K, p.TrainResidual, optNum(p.TestResidual), p.Corollary1, optNum(p.Theorem7), optNum(p.Theorem8))
		}
	}
	fmt.Fprintf(w, "Corollary 1 is smallest at k = %d: with probability ≥ %s%%, the expected residual is at most %.4f\n", r.MinK, TrimFloat(100*(1-r.Delta)), r.MinValue)
	if !r.Spectrum {
		fmt.Fprintf(w, "Theorems 7 and 8 left out: %d training points is more than the %d whose spectrum the command computes\n", r.M, MaxSpectrum)
	}
	if r.Out != "" {
		fmt.Fprintf(w, "features   %s\n", r.Out)
	}
	if r.Plot != "" {
		fmt.Fprintf(w, "plot       %s\n", r.Plot)
	}
}

func optNum(p *float64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatFloat(*p, 'f', 4, 64)
}

// TrimFloat formats v with at most four decimals and no trailing zeros
// (95, 99.5).
func TrimFloat(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
}

// Features returns the k projected features of every training point and
// of every test point (nil without a test set).
func (kc *KPCACurve) Features() (train, test [][]float64) {
	rows := func(d *mat.Dense) [][]float64 {
		if d == nil {
			return nil
		}
		n, _ := d.Dims()
		out := make([][]float64, n)
		for i := range n {
			out[i] = d.RawRowView(i)
		}
		return out
	}
	return rows(kc.Fit.G), rows(kc.TestFeatures)
}

// Plot draws the residuals and bounds against k (Hussain et al.'s
// Figures 2–5) as a PNG at path; with logScale, the log10 of the values.
// The k where Corollary 1 is smallest is marked.
func (kc *KPCACurve) Plot(path, title string, logScale bool) error {
	val := func(v float64) float64 {
		if logScale {
			return math.Log10(v)
		}
		return v
	}
	opt := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return val(*p)
	}
	names := []string{"training residual", "test residual", "Corollary 1 (compression)", "Theorem 7 (global Rademacher)", "Theorem 8 (local Rademacher, c = 80)"}
	series := make([]plot.Series, len(names))
	for i := range series {
		series[i].Name = names[i]
	}
	for _, p := range kc.Curve {
		ys := []float64{val(p.TrainResidual), opt(p.TestResidual), val(p.Corollary1), opt(p.Theorem7), opt(p.Theorem8)}
		for i := range series {
			series[i].X = append(series[i].X, float64(p.K))
			series[i].Y = append(series[i].Y, ys[i])
		}
	}
	bestK, best := kc.Curve[0].K, kc.Curve[0].Corollary1
	for _, p := range kc.Curve {
		if p.Corollary1 < best {
			best, bestK = p.Corollary1, p.K
		}
	}
	yLabel := "expected squared residual"
	if logScale {
		yLabel = "log10 of the expected squared residual"
	}
	return plot.LearningCurve(path, title, "k (basis vectors)", yLabel, series, float64(bestK), "Corollary 1 smallest")
}

// WriteFeatures writes one CSV line per point: "train" or "test", then its
// features (shortest round-trip formatting).
func WriteFeatures(w io.Writer, train, test [][]float64) error {
	bw := bufio.NewWriter(w)
	for _, part := range []struct {
		name string
		rows [][]float64
	}{{"train", train}, {"test", test}} {
		for _, r := range part.rows {
			bw.WriteString(part.name)
			for _, v := range r {
				bw.WriteByte(',')
				bw.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			}
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// KCCAReport summarises sparse kernel CCA (SparseKCCA): its JSON form is
// what `pursuit subspace --method skcca --json` prints, WriteText its
// lines.
type KCCAReport struct {
	Method    string    `json:"method"`
	Kernel    string    `json:"kernel"`
	Backend   string    `json:"backend"`
	M         int       `json:"m"`
	K         int       `json:"k"`
	NTest     int       `json:"n_test"`
	Chosen    []int     `json:"chosen"`
	TrainCorr []float64 `json:"train_correlations"` // the first few canonical correlations
	TestCorr  *float64  `json:"test_correlation"`   // of the first direction, on the test pairs
	Bound     *Bound    `json:"bound,omitempty"`    // Theorem 9, with an alpha
	Out       string    `json:"out,omitempty"`
	// Delta is the bound's 1 − confidence; Alpha its threshold.
	Delta float64 `json:"-"`
	Alpha float64 `json:"-"`
	// TrainFeatures and TestFeatures are the pairs' features, both views
	// side by side (SparseKCCA with features).
	TrainFeatures, TestFeatures [][]float64 `json:"-"`
}

// AlphaError is SparseKCCA's failure to evaluate Theorem 9 at its alpha.
type AlphaError struct{ Err error }

func (e *AlphaError) Error() string { return "alpha: " + e.Err.Error() }
func (e *AlphaError) Unwrap() error { return e.Err }

// SparseKCCA fits sparse kernel CCA with k basis pairs on the paired rows
// of x and y (scaled) with kernels kx and ky, reports the first five
// canonical correlations, Theorem 9 for the first direction when alpha >
// 0 (with confidence 1 − delta), the first direction's correlation on the
// test pairs (tx, ty; nil: none) and, with features, every pair's
// features.
func SparseKCCA(e *engine.Engine, kx, ky pursuit.Kernel, x, y pursuit.Matrix, tx, ty *pursuit.Matrix, k int, alpha, delta float64, features bool) (*KCCAReport, error) {
	f, err := greedy.FitKCCA(e, x, y, greedy.KCCAConfig{KernelX: kx, KernelY: ky, Steps: k})
	if err != nil {
		return nil, err
	}
	r := &KCCAReport{Method: "skcca", Kernel: kx.String(), Backend: e.BackendName(), M: x.Rows, K: len(f.Index), Chosen: f.Index, Delta: delta, Alpha: alpha}
	r.TrainCorr = f.Corr[:min(5, len(f.Corr))]
	if alpha > 0 {
		if r.Bound, err = SKCCABound(e, f, x, y, alpha, delta); err != nil {
			return nil, &AlphaError{err}
		}
	}
	var qx, qy *mat.Dense
	if tx != nil {
		r.NTest = tx.Rows
		var c float64
		if c, qx, qy, err = FirstCorrelation(e, f, *tx, *ty); err != nil {
			return nil, err
		}
		r.TestCorr = &c
	}
	if features {
		zx, zy, err := f.Transform(e, x, y, 0)
		if err != nil {
			return nil, err
		}
		r.TrainFeatures, r.TestFeatures = joinRows(zx, zy), joinRows(qx, qy)
	}
	return r, nil
}

// joinRows puts the rows of a and b side by side (nil a: nil).
func joinRows(a, b *mat.Dense) [][]float64 {
	if a == nil {
		return nil
	}
	n, _ := a.Dims()
	var out [][]float64
	for i := range n {
		out = append(out, append(append([]float64(nil), a.RawRowView(i)...), b.RawRowView(i)...))
	}
	return out
}

// WriteText writes the report for people.
func (r *KCCAReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "method     skcca, kernel %s, backend %s, %d training pairs, k = %d\n", r.Kernel, r.Backend, r.M, r.K)
	fmt.Fprintf(w, "training   canonical correlations %.4f\n", r.TrainCorr)
	if r.TestCorr != nil {
		fmt.Fprintf(w, "test       first direction's correlation %.4f on %d pairs\n", *r.TestCorr, r.NTest)
	}
	if r.Bound != nil {
		fmt.Fprintf(w, "bound      with probability ≥ %s%%, P(|f_x(x) − f_y(y)| > %s) is at most %.1f%% (Theorem 9, k = %d, t = %d)\n",
			TrimFloat(100*(1-r.Delta)), TrimFloat(r.Alpha), 100*r.Bound.Value, r.Bound.K, r.Bound.T)
	}
	if r.Out != "" {
		fmt.Fprintf(w, "features   %s\n", r.Out)
	}
}
