package main

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

// fitResult is what one training run produced and measured.
type fitResult struct {
	*learn.Fitted
}

// fit trains the binary models of plan on the (already scaled) training set
// and evaluates them on the training, validation and test sets. bar may be
// nil.
func fit(e *engine.Engine, algo learn.Algorithm, p *trainParams, plan learn.LabelPlan, tr, val, test *data.Dataset, bar *progressBar) (*fitResult, error) {
	nTrain := tr.Len()
	if p.run.Rows > 0 {
		nTrain = p.run.Rows // across ranks: every rank's rows
	}
	if plan.Task != learn.TaskRegression && nTrain < 2 {
		return nil, fmt.Errorf("%s: %d training example(s) are too few to train a classifier", tr.Name, nTrain)
	}
	l, err := newLearner(p, plan, bar)
	if err != nil {
		return nil, err
	}
	// The training's working memory is garbage once it ends: endPhase gives
	// it back before the model is evaluated (phases.go).
	trained := func() { bar.Done(); endPhase() }
	r, err := learn.FitEvaluate(e, algo.Name, p.run.Kernel, l, plan, tr, val, test, trained)
	if err != nil {
		return nil, notDistributed(e, algo.Name, err) // err names the algorithm's package
	}
	return &fitResult{Fitted: r}, nil
}

// newLearner maps p to the learner of its algorithm for plan
// (learn.Settings.Learner), reporting progress on bar (may be nil).
func newLearner(p *trainParams, plan learn.LabelPlan, bar *progressBar) (learn.Learner, error) {
	r := p.run
	if bar != nil {
		r.Progress = bar.Update
	}
	l, err := p.Learner(plan, r)
	if err != nil {
		return nil, flagErr(err)
	}
	bar.setLabel(trainLabel(p.Algo, plan))
	return l, nil
}

// trainLabel is what the progress report says it is about.
func trainLabel(algo string, plan learn.LabelPlan) string {
	if plan.Task == learn.TaskOneVsRest {
		return fmt.Sprintf("train %s one-vs-rest (%d classes)", algo, plan.NumModels())
	}
	return "train " + algo
}
