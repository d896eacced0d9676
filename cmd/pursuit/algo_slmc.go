package main

import (
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/slmc"
)

// slmcMethods are the values of --method for --algo slmc.
var slmcMethods = learn.SLMCMethods

// slmcLearner maps the flags to learn.SLMC: --nz (0: --nz-frac of an
// SVM's support vectors), k-means initialisation.
func slmcLearner(p *trainParams) (learn.Learner, error) {
	cfg := slmc.Config{Kernel: p.kernel, C: p.c, NumXV: p.nz, Init: slmc.InitKMeans, Seed: uint64(p.seed), Checkpoint: p.ckpt}
	return learn.SLMC{Method: p.method, Config: cfg, NzFrac: p.nzFrac, Progress: p.progress}, nil
}
