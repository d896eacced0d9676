package plot

import (
	"github.com/pursuit-ml/pursuit/internal/residency"

	"codeberg.org/go-fonts/liberation/liberationmonobold"
	"codeberg.org/go-fonts/liberation/liberationmonobolditalic"
	"codeberg.org/go-fonts/liberation/liberationmonoitalic"
	"codeberg.org/go-fonts/liberation/liberationmonoregular"
	"codeberg.org/go-fonts/liberation/liberationsansbold"
	"codeberg.org/go-fonts/liberation/liberationsansbolditalic"
	"codeberg.org/go-fonts/liberation/liberationsansitalic"
	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"codeberg.org/go-fonts/liberation/liberationserifbold"
	"codeberg.org/go-fonts/liberation/liberationserifbolditalic"
	"codeberg.org/go-fonts/liberation/liberationserifitalic"
	"codeberg.org/go-fonts/liberation/liberationserifregular"
)

// fontFiles are the TrueType files embedded in the program that
// gonum.org/v1/plot's package initialisation parses into its font cache
// (font.DefaultCache.Add(liberation.Collection())), in every run of a
// program that links it, whether it draws or not: 4.4 MB of the program's
// pages are read then, and stay resident.
func fontFiles() [][]byte {
	return [][]byte{
		liberationserifregular.TTF, liberationserifitalic.TTF, liberationserifbold.TTF, liberationserifbolditalic.TTF,
		liberationmonoregular.TTF, liberationmonoitalic.TTF, liberationmonobold.TTF, liberationmonobolditalic.TTF,
		liberationsansregular.TTF, liberationsansitalic.TTF, liberationsansbold.TTF, liberationsansbolditalic.TTF,
	}
}

// ReleaseFontPages gives back the resident pages of the embedded font
// files (fontFiles) that the font cache's parsing read at start-up, and
// returns the bytes advised (0 where the system has no way to). Nothing
// writes the files: a page is read in again from the program file, with
// the same bytes, when a plot needs it.
func ReleaseFontPages() int64 { return residency.ReleaseFileData(fontFiles()...) }
