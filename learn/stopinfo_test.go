package learn

import (
	"testing"

	"github.com/pursuit-ml/pursuit/slmc"
)

func TestStopSummary(t *testing.T) {
	m := func(stop string) Model { return NewSLMCModel(&slmc.Model{Method: "slmc"}, stop) }
	if got := StopSummary([]Model{m("line search failed after 37 iterations")}); got != "line search failed after 37 iterations" {
		t.Errorf("one model: %q", got)
	}
	got := StopSummary([]Model{m("line search failed after 37 iterations"), m("converged after 5 iterations"), m("line search failed after 2 iterations"), m("")})
	if want := "line search failed ×2, converged ×1"; got != want {
		t.Errorf("one-vs-rest: %q, want %q", got, want)
	}
	if got := StopSummary(nil); got != "" {
		t.Errorf("no models: %q", got)
	}
	if got := MethodOf([]Model{m("")}); got != "slmc" {
		t.Errorf("MethodOf: %q", got)
	}
	if got := MethodOf(nil); got != "" {
		t.Errorf("MethodOf(nil): %q", got)
	}
}
