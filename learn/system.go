package learn

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/pursuit-ml/pursuit/engine"
)

// SystemReport describes the machine Pursuit runs on: the CPU, every
// backend and whether it is available, the backend the engine chooses
// and why, and the learners offered. Its JSON form is `pursuit info
// --json`'s.
type SystemReport struct {
	Version    string                `json:"version"`
	GoVersion  string                `json:"go_version"`
	OS         string                `json:"os"`
	Arch       string                `json:"arch"`
	CPU        engine.CPUInfo        `json:"cpu"`
	Backends   []engine.Availability `json:"backends"`
	Chosen     string                `json:"backend"`
	Reason     string                `json:"reason"`
	Threads    int                   `json:"threads"`
	Algorithms []AlgorithmInfo       `json:"algorithms"`
	ChoiceErr  string                `json:"backend_error,omitempty"`
}

// AlgorithmInfo is one learner of a SystemReport.
type AlgorithmInfo struct {
	Name      string `json:"name"`
	Available bool   `json:"available"`
	Summary   string `json:"summary"`
}

// AlgorithmInfos lists every algorithm (Algorithms) as available, with its
// summary, for DescribeSystem.
func AlgorithmInfos() []AlgorithmInfo {
	var out []AlgorithmInfo
	for _, a := range Algorithms() {
		out = append(out, AlgorithmInfo{Name: a.Name, Available: true, Summary: a.Summary})
	}
	return out
}

// DescribeSystem reports the machine for a program of the given version
// offering algos, with the backend the engine opts choose. When no
// engine opens, the report still holds what is known (ChoiceErr says why)
// and the error is returned with it.
func DescribeSystem(version string, algos []AlgorithmInfo, opts ...engine.Option) (*SystemReport, error) {
	r := &SystemReport{Version: version, GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		CPU: engine.DetectCPU(), Backends: engine.Backends(), Algorithms: algos}
	e, err := engine.New(opts...)
	if err != nil {
		r.ChoiceErr = err.Error()
		return r, err
	}
	defer e.Close()
	r.Chosen, r.Reason, r.Threads = e.BackendName(), e.Reason(), e.Threads()
	return r, nil
}

// WriteText writes the report for a person.
func (r *SystemReport) WriteText(w io.Writer) {
	line := func(s string) string { return strings.Join(strings.Fields(s), " ") }
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
		fmt.Fprintf(w, "  %-9s %s  %s\n", b.Name, mark, line(b.Why))
	}
	fmt.Fprintln(w)
	if r.ChoiceErr != "" {
		fmt.Fprintf(w, "chosen:    none: %s\n", line(r.ChoiceErr))
	} else {
		fmt.Fprintf(w, "chosen:    %s (%d threads)\n", r.Chosen, r.Threads)
		fmt.Fprintf(w, "why:       %s\n", line(r.Reason))
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
