package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"strings"

	"github.com/pursuit-ml/pursuit/engine"
)

type infoOptions struct {
	json    bool
	backend string
}

func newInfoFlags() (*flag.FlagSet, *infoOptions) {
	o := &infoOptions{}
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	fs.BoolVar(&o.json, "json", false, "print one JSON object instead of text")
	fs.StringVar(&o.backend, "backend", "", "show what choosing this backend (go, avx2, avx2-only, cuda, auto) gives; default: the automatic choice, or $"+engine.EnvBackend)
	return fs, o
}

func infoCommand() *command {
	return &command{
		name:    "info",
		summary: "show the CPU, the available backends and the one Pursuit chooses",
		usage:   "pursuit info [--json] [--backend NAME]",
		examples: `pursuit info
pursuit info --json
PURSUIT_BACKEND=go pursuit info     # what forcing the pure-Go backend gives`,
		run: runInfo,
	}
}

// infoReport is the JSON object `pursuit info --json` prints.
type infoReport struct {
	Version    string                `json:"version"`
	GoVersion  string                `json:"go_version"`
	OS         string                `json:"os"`
	Arch       string                `json:"arch"`
	CPU        engine.CPUInfo        `json:"cpu"`
	Backends   []engine.Availability `json:"backends"`
	Chosen     string                `json:"backend"`
	Reason     string                `json:"reason"`
	Threads    int                   `json:"threads"`
	Algorithms []algoInfo            `json:"algorithms"`
	ChoiceErr  string                `json:"backend_error,omitempty"`
}

type algoInfo struct {
	Name      string `json:"name"`
	Available bool   `json:"available"`
	Summary   string `json:"summary"`
}

func runInfo(ev *env, args []string) error {
	c := infoCommand()
	fs, o := newInfoFlags()
	if err := parseFlags(ev, c, fs, args); err != nil {
		return err
	}
	rep := infoReport{
		Version:   version,
		GoVersion: runtime.Version(),
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		CPU:       engine.DetectCPU(),
		Backends:  engine.Backends(),
	}
	for _, a := range algorithms() {
		rep.Algorithms = append(rep.Algorithms, algoInfo{Name: a.name, Available: a.train != nil, Summary: a.summary})
	}
	opts := []engine.Option{engineNames()}
	if o.backend != "" {
		opts = append(opts, engine.WithBackend(o.backend))
	}
	e, err := engine.New(opts...)
	if err != nil {
		// Still print what we know: info is the command that explains why a
		// backend cannot run. The error also sets the exit status.
		rep.ChoiceErr = err.Error()
	} else {
		rep.Chosen, rep.Reason, rep.Threads = e.BackendName(), e.Reason(), e.Threads()
		defer e.Close()
	}
	if o.json {
		enc := json.NewEncoder(ev.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("writing JSON: %w", err)
		}
	} else {
		printInfo(ev, &rep)
	}
	if err != nil {
		return err
	}
	return nil
}

func printInfo(ev *env, r *infoReport) {
	w := ev.stdout
	fmt.Fprintf(w, "pursuit %s (%s, %s/%s)\n\n", r.Version, r.GoVersion, r.OS, r.Arch)
	brand := r.CPU.Brand
	if brand == "" {
		brand = "unknown CPU"
	}
	fmt.Fprintf(w, "CPU:       %s\n", brand)
	// cpuid counts the cores of the whole processor package; a container or
	// an affinity mask may leave this process far fewer, which is what the
	// backends' threads should be sized by.
	fmt.Fprintf(w, "cores:     %d usable by this process, GOMAXPROCS %d (the processor package has %d physical, %d logical)\n",
		r.CPU.UsableCPUs, r.CPU.GOMAXPROCS, r.CPU.PhysicalCores, r.CPU.LogicalCores)
	feats := strings.Join(r.CPU.Features, " ")
	if feats == "" {
		feats = "(none of SSE4.1 AVX AVX2 FMA AVX512F NEON)"
	}
	fmt.Fprintf(w, "features:  %s\n", feats)
	fmt.Fprintf(w, "caches:    %s\n\n", r.CPU.CacheSizesText)
	fmt.Fprintln(w, "backends:")
	for _, b := range r.Backends {
		mark := "no "
		if b.Available {
			mark = "yes"
		}
		fmt.Fprintf(w, "  %-9s %s  %s\n", b.Name, mark, oneLine(b.Why))
	}
	fmt.Fprintln(w)
	if r.ChoiceErr != "" {
		fmt.Fprintf(w, "chosen:    none: %s\n", oneLine(r.ChoiceErr))
	} else {
		fmt.Fprintf(w, "chosen:    %s (%d threads)\n", r.Chosen, r.Threads)
		fmt.Fprintf(w, "why:       %s\n", oneLine(r.Reason))
	}
	fmt.Fprintln(w, "\nalgorithms:")
	for _, a := range r.Algorithms {
		mark := "not in this build yet"
		if a.Available {
			mark = "available"
		}
		fmt.Fprintf(w, "  %-12s %-22s %s\n", a.Name, mark, a.Summary)
	}
}
