package learn

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestCheckpointSettings checks the refusals (the setting named, the
// text with a caller's names) and the checkpoint options made.
func TestCheckpointSettings(t *testing.T) {
	for _, c := range []struct {
		s     CheckpointSettings
		given string
		text  string
	}{
		{CheckpointSettings{Every: time.Minute}, "checkpoint-every", "--checkpoint-every needs --checkpoint FILE"},
		{CheckpointSettings{Path: "c"}, "", "--checkpoint-every must be positive, got 0s"},
		{CheckpointSettings{Every: time.Minute, TimeLimit: -time.Second}, "time-limit", "--time-limit must be positive, got -1s"},
		{CheckpointSettings{Every: time.Minute, Resume: filepath.Join(t.TempDir(), "none")}, "", "--resume: stat "},
	} {
		err := c.s.Validate(map[string]bool{c.given: true})
		var se *SettingError
		if !errors.As(err, &se) || len(se.Text(dashes)) < len(c.text) || se.Text(dashes)[:len(c.text)] != c.text {
			t.Errorf("%+v: %v, want %q", c.s, err, c.text)
		}
	}
	off := CheckpointSettings{Every: time.Minute}
	if off.Active() || off.Options(nil) != nil || off.Validate(nil) != nil {
		t.Error("settings asking for nothing")
	}
	stop := make(chan struct{})
	on := CheckpointSettings{Path: "c.ckpt", Every: time.Minute, TimeLimit: time.Hour}
	before := time.Now()
	o := on.Options(stop)
	if !on.Active() || o.Path != "c.ckpt" || o.Every != time.Minute || o.Stop != (<-chan struct{})(stop) || o.Deadline.Before(before.Add(time.Hour)) || o.Deadline.After(time.Now().Add(time.Hour)) {
		t.Errorf("options %+v", o)
	}
}
