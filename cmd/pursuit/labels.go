package main

import (
	"errors"
	"fmt"

	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
	"github.com/pursuit-ml/pursuit/learn"
)

// planLabels decides the task from the training labels and the flags.
func planLabels(y []float64, d *dataFlags) (learn.LabelPlan, error) {
	return planLabelsOn(&comm.Single{}, y, d)
}

// planLabelsOn is learn.PlanLabels on the labels of every rank of c (a
// collective across ranks), its errors in terms of the flags.
func planLabelsOn(c comm.Comm, y []float64, d *dataFlags) (learn.LabelPlan, error) {
	s, err := d.LabelSpec()
	if err != nil {
		return learn.LabelPlan{}, flagErr(err)
	}
	plan, err := learn.PlanLabels(engine.GroupOf(c), y, s, func(err error) error { return agree(c, err) })
	var pe *learn.PositiveError
	var ce *learn.ClassesError
	switch {
	case errors.As(err, &pe):
		return learn.LabelPlan{}, fmt.Errorf("--positive %s: %w", d.Positive, pe.Err)
	case errors.As(err, &ce):
		return learn.LabelPlan{}, fmt.Errorf("the training data has %d classes (%s): choose --positive LABEL for LABEL vs the rest, --one-vs-rest for all of them, or --regression for real-valued targets",
			len(ce.Classes), learn.ListLabels(ce.Classes, 10))
	}
	return plan, err
}
