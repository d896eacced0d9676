package main

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/greedy"
	"github.com/pursuit-ml/pursuit/learn"
)

// mpkfdaLearner maps the flags to the matching-pursuit kernel Fisher
// discriminant (learn.MPKFDA; --basis 0 is its default size).
func mpkfdaLearner(p *trainParams) (learn.Learner, error) {
	if p.regression {
		return nil, fmt.Errorf("--algo mpkfda is a classifier; it cannot fit real-valued targets")
	}
	return learn.MPKFDA{Config: greedy.KFDAConfig{Kernel: p.kernel, Steps: p.basis, Seed: uint64(p.seed)}, Progress: p.progress}, nil
}
