package pursuit_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bound"
	"github.com/pursuit-ml/pursuit/bpdn"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// TestErrorVocabulary: a configuration mistake and bad data are told apart
// with errors.Is on the shared sentinels, whichever package reported them.
func TestErrorVocabulary(t *testing.T) {
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	x := pursuit.NewMatrix(4, 2)
	for i := range x.Data {
		x.Data[i] = float32(i % 3)
	}
	y := []float64{-1, 1, -1, 1}

	_, kmpConfig := kmp.Train(e, x, y, kmp.Config{Kernels: []pursuit.Kernel{pursuit.NewRBF(1)}, N: -1})
	_, kmpData := kmp.Train(e, x, y[:3], kmp.Config{Kernels: []pursuit.Kernel{pursuit.NewRBF(1)}, N: 1})
	_, dataErr := data.ReadLibSVM(strings.NewReader("1 0:1\n"), "bad.libsvm")
	_, svmData := svm.Train(e, x, y[:2], svm.Params{Kernel: pursuit.NewRBF(1), C: 1})

	cases := []struct {
		name string
		err  error
		kind error
	}{
		{"kmp N < 0", kmpConfig, pursuit.ErrConfig},
		{"kmp targets", kmpData, pursuit.ErrBadInput},
		{"data index 0", dataErr, pursuit.ErrBadInput},
		{"svm targets", svmData, pursuit.ErrBadInput},
		{"svm sentinel", svm.ErrBadInput, pursuit.ErrBadInput},
		{"bpdn sentinel", bpdn.ErrBadInput, pursuit.ErrBadInput},
		{"greedy sentinel", greedy.ErrConfig, pursuit.ErrConfig},
		{"bound sentinel", bound.ErrInput, pursuit.ErrBadInput},
		{"slmc sentinel", slmc.ErrKernel, pursuit.ErrConfig},
		{"data sentinel", data.ErrSyntax, pursuit.ErrBadInput},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.Is(c.err, c.kind) {
			t.Errorf("%s: %q does not wrap %v", c.name, c.err, c.kind)
		}
		other := pursuit.ErrConfig
		if c.kind == pursuit.ErrConfig {
			other = pursuit.ErrBadInput
		}
		if errors.Is(c.err, other) {
			t.Errorf("%s: %q wraps %v too", c.name, c.err, other)
		}
	}
	if got := pursuit.Configf("x %d", 1).Error(); got != "x 1" {
		t.Errorf("Configf changed the message: %q", got)
	}
}
