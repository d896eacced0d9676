package main

import (
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/svm"
)

// svmDefaultSVREpsilon is ε-SVR's tube width without --svr-epsilon:
// LIBSVM's default -p.
const svmDefaultSVREpsilon = 0.1

// svmParams maps the flags to package svm's parameters: C-SVC, or ε-SVR
// for real-valued targets.
func svmParams(p *trainParams) svm.Params {
	sp := svm.Params{Type: svm.CSVC, Kernel: p.kernel, C: p.c, Seed: uint64(p.seed), Checkpoint: p.ckpt}
	sp.Solver, _ = svm.ParseSolver(p.solver) // validated with the flags
	if p.regression {
		sp.Type = svm.EpsilonSVR
		sp.Epsilon = p.svrEps
		if sp.Epsilon == 0 {
			sp.Epsilon = svmDefaultSVREpsilon
		}
	}
	return sp
}

// svmLearner maps the flags to learn.SVM.
func svmLearner(p *trainParams) (learn.Learner, error) {
	return learn.SVM{Params: svmParams(p), Progress: p.progress}, nil
}
