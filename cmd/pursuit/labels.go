package main

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/learn"
)

// planLabels decides the task from the training labels and the flags.
func planLabels(y []float64, d *dataFlags) (learn.LabelPlan, error) {
	if d.regression {
		if err := data.CheckTargets(y); err != nil {
			return learn.LabelPlan{}, err
		}
		return learn.LabelPlan{Task: learn.TaskRegression}, nil
	}
	cls := learn.Distinct(y)
	if d.positive != "" {
		pos, err := parseLabel(d.positive)
		if err != nil {
			return learn.LabelPlan{}, err
		}
		if _, err := data.BinaryLabels(y, pos); err != nil {
			return learn.LabelPlan{}, fmt.Errorf("--positive %s: %w", d.positive, err)
		}
		return learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{-1, 1}, Positive: &pos}, nil
	}
	switch {
	case len(cls) == 0:
		return learn.LabelPlan{}, fmt.Errorf("no examples")
	case len(cls) == 1:
		return learn.LabelPlan{}, fmt.Errorf("every training example is labelled %v: a classifier needs at least two classes", cls[0])
	case d.oneVsRest:
		return learn.LabelPlan{Task: learn.TaskOneVsRest, Classes: cls}, nil
	case len(cls) == 2:
		return learn.LabelPlan{Task: learn.TaskBinary, Classes: cls}, nil
	}
	return learn.LabelPlan{}, fmt.Errorf("the training data has %d classes (%s): choose --positive LABEL for LABEL vs the rest, --one-vs-rest for all of them, or --regression for real-valued targets",
		len(cls), learn.ListLabels(cls, 10))
}
