//go:build !unix

package svm

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
