package learn_test

import (
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

func TestDescribeSystem(t *testing.T) {
	algos := []learn.AlgorithmInfo{{Name: "kmp", Available: true, Summary: "kernel matching pursuit"}, {Name: "later", Summary: "not yet"}}
	r, err := learn.DescribeSystem("9.9", algos, engine.WithBackend("go"))
	if err != nil || r.Chosen != "go" || r.Threads < 1 || r.ChoiceErr != "" || len(r.Backends) == 0 || r.Version != "9.9" {
		t.Fatalf("go backend: %+v, %v", r, err)
	}
	var b strings.Builder
	r.WriteText(&b)
	for _, want := range []string{"pursuit 9.9 (", "chosen:    go (", "  kmp          available              kernel matching pursuit\n", "  later        not in this build yet  not yet\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	r, err = learn.DescribeSystem("9.9", nil, engine.WithBackend("no-such-backend"))
	if err == nil || r == nil || r.ChoiceErr == "" || r.Chosen != "" {
		t.Fatalf("unknown backend: %+v, %v", r, err)
	}
	b.Reset()
	r.WriteText(&b)
	if !strings.Contains(b.String(), "chosen:    none: ") {
		t.Errorf("text without a backend:\n%s", b.String())
	}
}

// TestAlgorithmNames checks that AlgorithmNames and AlgorithmInfos list
// Algorithms in order, the infos available and with their summaries.
func TestAlgorithmNames(t *testing.T) {
	names, infos := learn.AlgorithmNames(), learn.AlgorithmInfos()
	all := learn.Algorithms()
	if len(names) != len(all) || len(infos) != len(all) {
		t.Fatalf("%d names, %d infos, %d algorithms", len(names), len(infos), len(all))
	}
	for i, a := range all {
		if names[i] != a.Name || infos[i] != (learn.AlgorithmInfo{Name: a.Name, Available: true, Summary: a.Summary}) {
			t.Errorf("%d: name %q, info %+v; algorithm %+v", i, names[i], infos[i], a)
		}
	}
}
