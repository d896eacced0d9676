package main

import (
	"github.com/pursuit-ml/pursuit/internal/plot"
	"github.com/pursuit-ml/pursuit/internal/residency"
)

// releaseStartupPages gives back the pages of the program file that
// start-up read and most commands do not use again: the embedded font
// files gonum.org/v1/plot parses in its package initialisation
// (plot.ReleaseFontPages; 1.8 MB of them are read) and the code and
// read-only data of every package's initialisation (residency). Whatever
// is used again is read in again from the program file.
func releaseStartupPages() {
	plot.ReleaseFontPages()
	residency.ReleaseProgram()
}
