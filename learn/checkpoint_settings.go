package learn

import (
	"os"
	"time"

	"github.com/pursuit-ml/pursuit/checkpoint"
)

// CheckpointSettings are a training run's checkpointing by name, as a
// program offers them (package checkpoint does the work; Options makes
// its configuration).
type CheckpointSettings struct {
	// Path is the file the training state is written to ("checkpoint";
	// "": none).
	Path string
	// Every is the interval between checkpoints ("checkpoint-every"),
	// positive.
	Every time.Duration
	// Resume names a checkpoint to continue from ("resume"; "": none).
	Resume string
	// TimeLimit stops training after this long, as a stop signal does
	// ("time-limit"; 0: none).
	TimeLimit time.Duration
}

// Active reports whether the settings ask for anything: a checkpoint
// file, a resumption or a time limit.
func (c *CheckpointSettings) Active() bool {
	return c.Path != "" || c.Resume != "" || c.TimeLimit > 0
}

// Validate checks the settings, and that Resume names a file that can be
// read; given names those set explicitly.
func (c *CheckpointSettings) Validate(given map[string]bool) error {
	switch {
	case given["checkpoint-every"] && c.Path == "":
		return settingErr("checkpoint-every", "{checkpoint-every} needs {checkpoint} FILE")
	case c.Every <= 0:
		return settingErr("checkpoint-every", "{checkpoint-every} must be positive, got %v", c.Every)
	case given["time-limit"] && c.TimeLimit <= 0:
		return settingErr("time-limit", "{time-limit} must be positive, got %v", c.TimeLimit)
	}
	if c.Resume != "" {
		if _, err := os.Stat(c.Resume); err != nil {
			return settingErr("resume", "{resume}: %v", err)
		}
	}
	return nil
}

// Options is the checkpoint package's configuration of the settings, with
// stop (may be nil) stopping the run at its next step and the time limit
// counted from now; nil when the settings ask for nothing.
func (c *CheckpointSettings) Options(stop <-chan struct{}) *checkpoint.Options {
	if !c.Active() {
		return nil
	}
	o := &checkpoint.Options{Path: c.Path, Every: c.Every, Resume: c.Resume, Stop: stop}
	if c.TimeLimit > 0 {
		o.Deadline = time.Now().Add(c.TimeLimit)
	}
	return o
}
