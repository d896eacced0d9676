package main

import (
	"fmt"
	"github.com/pursuit-ml/pursuit/checkpoint"
	"sort"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
)

// trainParams are the validated model flags with what training adds to
// them: the kernel for the data, the task, the progress report, the
// checkpointing and the row count across ranks.
type trainParams struct {
	*modelFlags
	kernel     pursuit.Kernel // shadows the flag's kernel name
	regression bool           // real-valued targets
	progress   func(learn.Progress)
	// ckpt is the checkpointing of train --checkpoint, --resume and
	// --time-limit (nil without them).
	ckpt *checkpoint.Options
	// nTrain is the number of training examples of every rank together
	// when training across ranks (each rank passes its own rows); 0 in one
	// process, where it is the rows passed.
	nTrain int
}

// learnerFunc maps the validated flags to the library learner that fits
// the algorithm (package learn): the per-algorithm files hold only this
// mapping.
type learnerFunc func(p *trainParams) (learn.Learner, error)

// algorithm describes one learner the CLI offers.
type algorithm struct {
	name       string
	summary    string
	pkg        string      // the package that provides it, for messages
	learner    learnerFunc // the flags → learner mapping; nil when this build does not have it yet
	regression bool        // can fit real-valued targets
	kernels    []string
	usesBasis  bool // --basis / --val-frac early stopping apply
	notInDemo  bool // left out of the default demo (see its note)
}

// algorithms lists every algorithm the CLI knows, available or not, in the
// order the demo and info show them.
func algorithms() []*algorithm {
	all := []*algorithm{
		{name: "kmp", pkg: "kmp", summary: "kernel matching pursuit with pre-fitting (OLS), squared loss", usesBasis: true, regression: true},
		{name: "kmp-backfit", pkg: "kmp", summary: "kernel matching pursuit with back-fitting (orthogonal MP)", usesBasis: true, regression: true},
		{name: "kmp-basic", pkg: "kmp", summary: "basic kernel matching pursuit (newest coefficient only)", usesBasis: true, regression: true},
		{name: "kmp-tanh", pkg: "kmp", summary: "kernel matching pursuit with tanh output, targets ±0.65", usesBasis: true},
		{name: "skmp", pkg: "kmp", summary: "stochastic KMP: searches a random active set per step (--fit backfit, prefit or basic)", usesBasis: true, regression: true},
		{name: "svm", pkg: "svm", summary: "support vector machine (C-SVC, or ε-SVR with --svr-epsilon), SMO", regression: true},
		{name: "bpdn", pkg: "bpdn", summary: "Girosi's sparse approximation in the RKHS = ε-SVR (C = ∞ or a box), solved without SMO", regression: true, notInDemo: true},
		{name: "mpkfda", pkg: "greedy", summary: "matching-pursuit kernel Fisher discriminant: Fisher-quotient basis, Fisher direction", regression: false},
		{name: "slmc", pkg: "slmc", summary: "sparse large margin classifier: Nz learned expansion vectors", kernels: []string{"rbf"}},
	}
	for _, a := range all {
		if a.kernels == nil {
			a.kernels = []string{"rbf", "linear", "poly", "sigmoid"}
		}
	}
	learners := map[string]learnerFunc{
		"kmp":         kmpLearner("kmp", kmp.PreFit, kmp.Squared, false),
		"kmp-backfit": kmpLearner("kmp-backfit", kmp.BackFit, kmp.Squared, false),
		"kmp-basic":   kmpLearner("kmp-basic", kmp.Basic, kmp.Squared, false),
		"kmp-tanh":    kmpLearner("kmp-tanh", kmp.BackFit, kmp.Tanh, false),
		// Popovici et al.: a random active set searched per step, with the
		// fit --fit names (the variant given here is unused).
		"skmp":   kmpLearner("skmp", kmp.Auto, kmp.Squared, true),
		"svm":    svmLearner,
		"bpdn":   bpdnLearner,
		"mpkfda": mpkfdaLearner,
		"slmc":   slmcLearner,
	}
	for _, a := range all {
		a.learner = learners[a.name]
	}
	return all
}

// findAlgorithm returns the named algorithm or an error listing the known
// ones.
func findAlgorithm(name string) (*algorithm, error) {
	var names []string
	for _, a := range algorithms() {
		if a.name == name {
			if a.learner == nil {
				return nil, fmt.Errorf("algorithm %q is not part of this build yet (package %s has not landed); available: %s", name, a.pkg, availableNames())
			}
			return a, nil
		}
		names = append(names, a.name)
	}
	return nil, fmt.Errorf("unknown algorithm %q (want one of %s)", name, strings.Join(names, ", "))
}

func availableNames() string {
	var names []string
	for _, a := range algorithms() {
		if a.learner != nil {
			names = append(names, a.name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
