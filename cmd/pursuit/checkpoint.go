package main

import (
	"flag"

	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/learn"
)

// ckFlags are train's checkpoint flags (learn.CheckpointSettings).
type ckFlags struct{ learn.CheckpointSettings }

func addCheckpointFlags(fs *flag.FlagSet, c *ckFlags) {
	fs.StringVar(&c.Path, "checkpoint", "", "write the training state to `FILE` every --checkpoint-every and when stopped (SIGTERM, SIGINT, --time-limit); resume with --resume FILE")
	fs.DurationVar(&c.Every, "checkpoint-every", checkpoint.DefaultEvery, "interval between checkpoints (with --checkpoint)")
	fs.StringVar(&c.Resume, "resume", "", "continue the training saved in the checkpoint `FILE` (same data and flags); ends with the model an uninterrupted run gives")
	fs.DurationVar(&c.TimeLimit, "time-limit", 0, "stop training after this long (e.g. 2h), writing the checkpoint as on SIGTERM, and exit 143")
}

// active reports whether any checkpoint flag asks for something.
func (c *ckFlags) active() bool { return c.Active() }

func (c *ckFlags) validate(set map[string]bool) error { return flagErr(c.Validate(set)) }

// options returns the library's checkpoint options of these flags (nil
// when none is set) and starts watching the signals
// (checkpoint.WatchSignals); Close stops that.
func (c *ckFlags) options(bar *progressBar) (*checkpoint.Options, *checkpoint.SignalStop) {
	if !c.active() {
		return nil, nil
	}
	bar.deferSignals()
	st := checkpoint.WatchSignals()
	return c.Options(st.Stop()), st
}
