//go:build !unix

package cputime

import "time"

// Used is not available off Unix: it returns false.
func Used() (time.Duration, bool) { return 0, false }
