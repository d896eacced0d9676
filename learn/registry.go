package learn

import (
	"fmt"
	"io"
	"sort"
	"sync"
)

// Decoder reads one model of the given kind, in its algorithm's own Save
// format, from r. maxBytes bounds the dense vectors it may allocate beyond
// the size of what it reads (a LIBSVM model with huge feature indices).
type Decoder func(kind string, r io.Reader, maxBytes int64) (Model, error)

var (
	registryMu sync.RWMutex
	// registry maps a model kind to its decoder: every learner of the
	// module, registered here rather than by init functions so that no
	// import order matters.
	registry = map[string]Decoder{
		"kmp":         decodeKMP,
		"kmp-backfit": decodeKMP,
		"kmp-basic":   decodeKMP,
		"kmp-tanh":    decodeKMP,
		"skmp":        decodeKMP,
		"svm":         decodeSVM,
		"bpdn":        decodeSVM,
		"mpkfda":      decodeMPKFDA,
		"slmc":        decodeSLMC,
	}
)

// Register adds the decoder of a model kind (a learner outside this
// module), or replaces one. Load and the model file reader find it.
func Register(kind string, d Decoder) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[kind] = d
}

// Kinds returns the registered model kinds in increasing order.
func Kinds() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var ks []string
	for k := range registry {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Load reads one model of the given kind, written by its Save, from r;
// maxBytes bounds the dense vectors the decoder may allocate beyond what it
// reads.
func Load(kind string, r io.Reader, maxBytes int64) (Model, error) {
	registryMu.RLock()
	d := registry[kind]
	registryMu.RUnlock()
	if d == nil {
		return nil, fmt.Errorf("the model names an unknown algorithm %q (written by a newer pursuit?)", kind)
	}
	return d(kind, r, maxBytes)
}
