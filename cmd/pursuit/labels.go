package main

import (
	"fmt"

	"github.com/pursuit-ml/pursuit/learn"
)

// labelError restates learn.PlanLabels' refusals of the task in terms of
// the flags (learn.LabelSettingError; prefix: before the restated text);
// other errors are returned as they are.
func labelError(err error, d *dataFlags, prefix string) error {
	if se := learn.LabelSettingError(err, d.Positive); se != err {
		return fmt.Errorf("%s%w", prefix, flagErr(se))
	}
	return err
}
