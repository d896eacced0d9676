package learn

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/slmc"
)

// TestSLMCPayload checks that the slmc payload is slmc's own file format
// (so a payload cut inside the model file is still refused by slmc.Load).
func TestSLMCPayload(t *testing.T) {
	xv, err := pursuit.MatrixFrom(2, 2, []float32{0.5, -1, 2, 0.25})
	if err != nil {
		t.Fatal(err)
	}
	f := NewSLMCModel(&slmc.Model{Method: "slmc", Kernel: pursuit.NewRBF(2), XV: xv, Beta: []float64{0.75, -1.5}, Bias: 0.125}, "")
	var b bytes.Buffer
	if err := f.Save(&b); err != nil {
		t.Fatal(err)
	}
	direct, err := slmc.Load(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("the payload is not an slmc model file: %v", err)
	}
	g, err := Load("slmc", bytes.NewReader(b.Bytes()), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	x, _ := pursuit.MatrixFrom(3, 2, []float32{0, 0, 1, 1, 0.5, -1})
	want, err := f.Decision(e, x)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []interface {
		Decision(*engine.Engine, pursuit.Matrix) ([]float64, error)
	}{g, direct} {
		got, err := m.Decision(e, x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("decision %d: %v after loading, %v before", i, got[i], want[i])
			}
		}
	}
	if _, err := Load("slmc", bytes.NewReader(b.Bytes()[:b.Len()-1]), 1<<20); !errors.Is(err, slmc.ErrCorrupt) {
		t.Fatalf("truncated payload: got %v, want slmc.ErrCorrupt", err)
	}
}
