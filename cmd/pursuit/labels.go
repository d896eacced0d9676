package main

import (
	"errors"
	"fmt"

	"github.com/pursuit-ml/pursuit/learn"
)

// labelError restates learn.PlanLabels' refusals of the task in terms of
// the flags (prefix: before the restated text); other errors are returned
// as they are.
func labelError(err error, d *dataFlags, prefix string) error {
	var pe *learn.PositiveError
	var ce *learn.ClassesError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("%s--positive %s: %w", prefix, d.Positive, pe.Err)
	case errors.As(err, &ce):
		return fmt.Errorf("%sthe training data has %d classes (%s): choose --positive LABEL for LABEL vs the rest, --one-vs-rest for all of them, or --regression for real-valued targets",
			prefix, len(ce.Classes), learn.ListLabels(ce.Classes, 10))
	}
	return err
}
