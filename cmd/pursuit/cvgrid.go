package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// gridDedicated are the settings with a grid flag of their own.
var gridDedicated = map[string]string{"gamma": "--grid-gamma", "c": "--grid-c", "basis": "--grid-basis", "epsilon": "--grid-epsilon"}

// gridFlags is cv's repeatable --grid NAME=V1,V2,...: a list of values for
// any numeric training flag of the algorithm.
type gridFlags []string

func (g *gridFlags) String() string     { return strings.Join(*g, " ") }
func (g *gridFlags) Set(s string) error { *g = append(*g, s); return nil }

// gridValue is one flag's value in one grid setting.
type gridValue struct{ name, value string }

// parseGrids checks each --grid NAME=LIST against the training flags: NAME
// is a numeric training flag that applies to the algorithm, and every value
// passes the same validation as on the command line. It returns one list of
// values per flag, in the order given.
func parseGrids(grids gridFlags, mf *modelFlags, set map[string]bool) ([][]gridValue, error) {
	var out [][]gridValue
	seen := map[string]bool{}
	for _, g := range grids {
		name, list, ok := strings.Cut(g, "=")
		name = strings.TrimPrefix(strings.TrimSpace(name), "--")
		if !ok || name == "" || strings.TrimSpace(list) == "" {
			return nil, fmt.Errorf("--grid %q: want NAME=V1,V2,... such as --grid nz=5,10,20", g)
		}
		if d, ok := gridDedicated[name]; ok {
			return nil, fmt.Errorf("--grid %s: use %s for %s", g, d, name)
		}
		if seen[name] {
			return nil, fmt.Errorf("--grid %s: %s is given twice", g, name)
		}
		if set[name] {
			return nil, fmt.Errorf("--grid %s: give --%s or a grid over it, not both", g, name)
		}
		seen[name] = true
		f := trainingFlagSet(&modelFlags{}).Lookup(name)
		if f == nil || !numericFlag(f) {
			return nil, fmt.Errorf("--grid %s: %s is not a numeric training flag (try %s)", g, name, strings.Join(numericTrainingFlags(), ", "))
		}
		var vals []gridValue
		for _, v := range strings.Split(list, ",") {
			v = strings.TrimSpace(v)
			c := *mf
			if err := setTrainingFlag(&c, name, v); err != nil {
				return nil, fmt.Errorf("--grid %s: %q is not a value of --%s", g, v, name)
			}
			cset := map[string]bool{name: true}
			for k := range set {
				cset[k] = true
			}
			if err := c.validate(cset); err != nil {
				return nil, fmt.Errorf("--grid %s: %w", g, err)
			}
			vals = append(vals, gridValue{name, v})
		}
		out = append(out, vals)
	}
	return out, nil
}

// trainingFlagSet binds train's model flags to mf (which binding resets to
// the defaults).
func trainingFlagSet(mf *modelFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("grid", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addModelFlags(fs, mf)
	return fs
}

// setTrainingFlag sets one of train's model flags on mf by name, parsing
// the value as the command line does, and leaves the others as they are.
func setTrainingFlag(mf *modelFlags, name, value string) error {
	saved := *mf
	fs := trainingFlagSet(mf)
	*mf = saved // the flag set's pointers still point into mf
	return fs.Set(name, value)
}

// numericFlag reports whether f holds a number.
func numericFlag(f *flag.Flag) bool {
	_, err := strconv.ParseFloat(f.DefValue, 64)
	return err == nil && f.Name != "seed" && f.Name != "threads"
}

// numericTrainingFlags lists the flags --grid takes.
func numericTrainingFlags() []string {
	fs := trainingFlagSet(&modelFlags{})
	var out []string
	fs.VisitAll(func(f *flag.Flag) {
		if _, d := gridDedicated[f.Name]; numericFlag(f) && !d {
			out = append(out, f.Name)
		}
	})
	sort.Strings(out)
	return out
}
