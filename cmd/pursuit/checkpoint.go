package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/pursuit-ml/pursuit/checkpoint"
)

// ckFlags are train's checkpoint flags.
type ckFlags struct {
	checkpoint string
	every      time.Duration
	resume     string
	timeLimit  time.Duration
}

func addCheckpointFlags(fs *flag.FlagSet, c *ckFlags) {
	fs.StringVar(&c.checkpoint, "checkpoint", "", "write the training state to `FILE` every --checkpoint-every and when stopped (SIGTERM, SIGINT, --time-limit); resume with --resume FILE")
	fs.DurationVar(&c.every, "checkpoint-every", checkpoint.DefaultEvery, "interval between checkpoints (with --checkpoint)")
	fs.StringVar(&c.resume, "resume", "", "continue the training saved in the checkpoint `FILE` (same data and flags); ends with the model an uninterrupted run gives")
	fs.DurationVar(&c.timeLimit, "time-limit", 0, "stop training after this long (e.g. 2h), writing the checkpoint as on SIGTERM, and exit 143")
}

// active reports whether any checkpoint flag asks for something.
func (c *ckFlags) active() bool { return c.checkpoint != "" || c.resume != "" || c.timeLimit > 0 }

func (c *ckFlags) validate(set map[string]bool) error {
	switch {
	case set["checkpoint-every"] && c.checkpoint == "":
		return errors.New("--checkpoint-every needs --checkpoint FILE")
	case c.every <= 0:
		return fmt.Errorf("--checkpoint-every must be positive, got %v", c.every)
	case set["time-limit"] && c.timeLimit <= 0:
		return fmt.Errorf("--time-limit must be positive, got %v", c.timeLimit)
	}
	if c.resume != "" {
		if _, err := os.Stat(c.resume); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
	}
	return nil
}

// options returns the library's checkpoint options of these flags (nil
// when none is set) and starts watching the signals
// (checkpoint.WatchSignals); Close stops that.
func (c *ckFlags) options(bar *progressBar) (*checkpoint.Options, *checkpoint.SignalStop) {
	if !c.active() {
		return nil, nil
	}
	bar.deferSignals()
	st := checkpoint.WatchSignals()
	o := &checkpoint.Options{Path: c.checkpoint, Every: c.every, Resume: c.resume, Stop: st.Stop()}
	if c.timeLimit > 0 {
		o.Deadline = time.Now().Add(c.timeLimit)
	}
	return o, st
}
