package main

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
	"github.com/pursuit-ml/pursuit/learn"
)

// skccaJSON is subspace --method skcca's JSON object.
type skccaJSON struct {
	Method    string     `json:"method"`
	Kernel    string     `json:"kernel"`
	Backend   string     `json:"backend"`
	M         int        `json:"m"`
	K         int        `json:"k"`
	NTest     int        `json:"n_test"`
	Chosen    []int      `json:"chosen"`
	TrainCorr []float64  `json:"train_correlations"` // the first few canonical correlations
	TestCorr  *float64   `json:"test_correlation"`   // of the first direction, on the test pairs
	Bound     *boundJSON `json:"bound,omitempty"`    // Theorem 9, with --alpha
	Out       string     `json:"out,omitempty"`
}

// loadViews reads the x and y views of paired data (same rows) and checks
// their row counts agree.
func loadViews(o *subspaceOptions, xPath, yPath string, dimX, dimY int, flagY string) (*data.Dataset, *data.Dataset, error) {
	x, err := loadData(xPath, o.loadOptions(dimX))
	if err != nil {
		return nil, nil, err
	}
	y, err := loadData(yPath, o.loadOptions(dimY))
	if err != nil {
		return nil, nil, err
	}
	if x.Len() != y.Len() {
		return nil, nil, fmt.Errorf("%s %s has %d rows but %s has %d: the two views must hold the same pairs, row by row", flagY, yPath, y.Len(), xPath, x.Len())
	}
	return x, y, nil
}

// runSKCCA is subspace --method skcca: views from --data and --data-y
// (and --test / --test-y), sparse KCCA at --k, the canonical correlations,
// Theorem 9 for the first direction with --alpha.
func runSKCCA(ev *env, o *subspaceOptions, e *engine.Engine) error {
	tx, ty, err := loadViews(o, o.data, o.dataY, 0, 0, "--data-y")
	if err != nil {
		return err
	}
	if o.k >= tx.Len() {
		return fmt.Errorf("--k %d: must be less than the %d training pairs", o.k, tx.Len())
	}
	var ex, ey *data.Dataset
	if o.test != "" {
		if ex, ey, err = loadViews(o, o.test, o.testY, tx.Dim(), ty.Dim(), "--test-y"); err != nil {
			return err
		}
	}
	for _, v := range []struct {
		tr, te *data.Dataset
	}{{tx, ex}, {ty, ey}} {
		sc, err := fitScaler(o.scale, v.tr)
		if err != nil {
			return err
		}
		if err := learn.ScaleInPlace(sc, v.tr); err != nil {
			return err
		}
		if err := learn.ScaleInPlace(sc, v.te); err != nil {
			return err
		}
	}
	kx, err := o.model.kernelFor(tx.Dim())
	if err != nil {
		return err
	}
	ky, err := o.model.kernelFor(ty.Dim())
	if err != nil {
		return err
	}
	f, err := greedy.FitKCCA(e, tx.X, ty.X, greedy.KCCAConfig{KernelX: kx, KernelY: ky, Steps: o.k})
	if err != nil {
		return err
	}
	out := skccaJSON{Method: "skcca", Kernel: kx.String(), Backend: e.BackendName(), M: tx.Len(), K: len(f.Index), Chosen: f.Index}
	out.TrainCorr = f.Corr[:min(5, len(f.Corr))]
	if o.alpha > 0 {
		if out.Bound, err = learn.SKCCABound(e, f, tx.X, ty.X, o.alpha, o.delta); err != nil {
			return fmt.Errorf("--alpha: %w", err)
		}
	}
	var qx, qy *mat.Dense
	if ex != nil {
		out.NTest = ex.Len()
		var c float64
		if c, qx, qy, err = learn.FirstCorrelation(e, f, ex.X, ey.X); err != nil {
			return err
		}
		out.TestCorr = &c
	}
	if o.out != "" {
		zx, zy, err := f.Transform(e, tx.X, ty.X, 0)
		if err != nil {
			return err
		}
		rows := func(a, b *mat.Dense) [][]float64 {
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
		if err := writeFeatures(o.out, rows(zx, zy), rows(qx, qy)); err != nil {
			return err
		}
		out.Out = o.out
	}
	if o.model.jsonOutput {
		return printJSON(ev, out)
	}
	w := ev.stdout
	fmt.Fprintf(w, "method     skcca, kernel %s, backend %s, %d training pairs, k = %d\n", out.Kernel, out.Backend, out.M, out.K)
	fmt.Fprintf(w, "training   canonical correlations %.4f\n", out.TrainCorr)
	if out.TestCorr != nil {
		fmt.Fprintf(w, "test       first direction's correlation %.4f on %d pairs\n", *out.TestCorr, out.NTest)
	}
	if out.Bound != nil {
		fmt.Fprintf(w, "bound      with probability ≥ %s%%, P(|f_x(x) − f_y(y)| > %s) is at most %.1f%% (Theorem 9, k = %d, t = %d)\n",
			trimFloat(100*(1-o.delta)), trimFloat(o.alpha), 100*out.Bound.Value, out.Bound.K, out.Bound.T)
	}
	if out.Out != "" {
		fmt.Fprintf(w, "features   %s\n", out.Out)
	}
	return nil
}
