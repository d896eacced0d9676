package main

import (
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
)

// kmpDefaultPatience is --patience's default: steps without validation
// improvement.
const kmpDefaultPatience = 20

// skmpDefaultFit is how stochastic KMP fits its expansion unless --fit
// says otherwise. Measured with --basis 50 and s = 59 on generated 50k-row
// two-class sets (issue 16; test error, training time in one run of a
// loaded machine): 20-D ringnorm, basic 50.0% (one class), backfit 7.4%
// (0.9 s), prefit 6.8% (1.7 s); 2-D two moons, basic 14.1%, backfit 3.9%
// (3.2 s), prefit 4.6% (1.6 s). Back-fitting and pre-fitting are about as
// accurate; back-fitting needs half the memory (peak RSS 58 MB against
// 94 MB on ringnorm; 224 against 471 MB at --basis 200) and its step does
// not grow with l·s·n, which is what large data sets, skmp's use, need.
const skmpDefaultFit = kmp.BackFit

// skmpFitHelp is the help of --fit: what each fit costs per step.
const skmpFitHelp = "stochastic KMP: how the expansion is fitted (per step, for l training rows, s functions searched, d features, n basis functions so far): " +
	"backfit (back-fitting: choose the function most collinear with the residual, then refit all coefficients; O(l·s·d + l·n) time, basis 8·l·n bytes), " +
	"prefit (pre-fitting: choose the function that is best with all coefficients refitted; O(l·s·(d + 2n)) time, 16·l·n bytes) or " +
	"basic (matching pursuit: fit the newest coefficient only; O(l·s·d) time, no basis: its memory does not grow with the steps; it needs far more steps, and is near chance at 50 steps on 50k rows)"

// parseSKMPFit maps --fit to the kmp variant.
func parseSKMPFit(s string) (kmp.Variant, error) {
	v, err := kmp.ParseVariant(s)
	if err != nil || v == kmp.Auto {
		return 0, fmt.Errorf("--fit %q: want backfit, prefit or basic", s)
	}
	return v, nil
}

// kmpLearner returns the flags → learn.KMP mapping of one KMP variant;
// stochastic searches a random active set per step (skmp), with the
// variant --fit names.
func kmpLearner(name string, variant kmp.Variant, loss kmp.Loss, stochastic bool) learnerFunc {
	return func(p *trainParams) (learn.Learner, error) {
		cfg := kmp.Config{
			Variant:    variant,
			Loss:       loss,
			Task:       kmp.Classification,
			Kernels:    []pursuit.Kernel{p.kernel},
			Bias:       true,
			Seed:       uint64(p.seed),
			Patience:   p.patience, // with a validation set; 0: no limit, run every step and keep the best
			Checkpoint: p.ckpt,
		}
		if p.regression {
			cfg.Task = kmp.Regression
		}
		if stochastic {
			cfg.Variant = skmpDefaultFit
			if p.fit != "" {
				v, err := parseSKMPFit(p.fit)
				if err != nil {
					return nil, err
				}
				cfg.Variant = v
			}
			cfg.Stochastic = &kmp.Stochastic{ActiveSet: p.activeSet, Eps: p.eps, Q: p.q}
		}
		return learn.KMP{Name: name, Config: cfg, Basis: p.basis, Rows: p.nTrain, Progress: p.progress}, nil
	}
}
