package main

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

// fitResult is what one training run produced and measured, with the
// scaled sets the model was trained and evaluated on (set by fitSplit)
// and the bytes of those sets charged to the engine (fitSplit's copies).
type fitResult struct {
	*learn.Fitted
	tr, val, test *data.Dataset
	held          int64
}

// check says whether the algorithm can train for plan.
func (algo *algorithm) check(plan learn.LabelPlan) error {
	if algo.learner == nil {
		return fmt.Errorf("algorithm %q is not part of this build", algo.name)
	}
	if plan.Task == learn.TaskRegression && !algo.regression {
		return fmt.Errorf("--algo %s does not fit real-valued targets (use one of the classifiers' data, or kmp / svm for regression)", algo.name)
	}
	return nil
}

// fit trains the binary models of plan on the (already scaled) training set
// and evaluates them on the training, validation and test sets. bar may be
// nil.
func fit(e *engine.Engine, algo *algorithm, p *trainParams, plan learn.LabelPlan, tr, val, test *data.Dataset, bar *progressBar) (*fitResult, error) {
	nTrain := tr.Len()
	if p.nTrain > 0 {
		nTrain = p.nTrain // across ranks: every rank's rows
	}
	if err := algo.check(plan); err == nil && plan.Task != learn.TaskRegression && nTrain < 2 {
		return nil, fmt.Errorf("%s: %d training example(s) are too few to train a classifier", tr.Name, nTrain)
	}
	l, err := algo.newLearner(p, plan, bar)
	if err != nil {
		return nil, err
	}
	r, err := learn.FitEvaluate(e, algo.name, p.kernel, l, plan, tr, val, test, bar.Done)
	if err != nil {
		return nil, notDistributed(e, algo.name, err) // err names the algorithm's package
	}
	return &fitResult{Fitted: r}, nil
}

// newLearner checks that the algorithm can train for plan and maps p to
// its learner, reporting progress on bar (may be nil).
func (algo *algorithm) newLearner(p *trainParams, plan learn.LabelPlan, bar *progressBar) (learn.Learner, error) {
	if err := algo.check(plan); err != nil {
		return nil, err
	}
	pk := *p
	if bar != nil {
		if plan.Task == learn.TaskOneVsRest {
			bar.setLabel(fmt.Sprintf("train %s one-vs-rest (%d classes)", algo.name, plan.NumModels()))
		} else {
			bar.setLabel("train " + algo.name)
		}
		pk.progress = bar.Update
	}
	return algo.learner(&pk)
}
