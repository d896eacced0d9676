package kmp

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
	"github.com/pursuit-ml/pursuit/engine"
)

// lockstep trains the outputs of one-vs-rest (or any several outputs on
// one in-memory dictionary) step by step together, so that each step makes
// one pass over the dictionary for all of them instead of one per output:
// the pass is memory-bound with one output's vectors (the four float32
// halves of [R, q] for pre-fitting) and, with every output's vectors
// applied to each block of rows while it is in cache
// (engine.DictProductsSets), runs at the speed of the dot kernels.
//
// Each output's fitter runs unchanged on its own goroutine until its search
// needs the products (searcher.scan calls products); when all that are
// still training wait, run makes the pass and resumes them. Every output
// computes exactly what it computes alone: its products are those of
// DictProductsSets for its own vectors, whatever the other outputs'.
// Outputs that stop (patience, exhaustion, a fitted target) leave the
// batch.
//
// On one rank up to width fitters run at a time (the engine's threads,
// taken from its worker slots so that their own loops add none):
// between two passes each does one step's fitting (an orthogonalization
// against its own basis, its residual, its search's scores), which would
// otherwise run one output after another on one core. They share only the
// read-only dictionary, the validation cache (locked) and the engine; the
// Progress callback sees their steps in the order of one output after
// another, output by output, as the sequential loop gives them (the steps
// are queued and delivered between passes).
//
// In a sharded run the fitters run one at a time, in the same order on
// every rank, so that their collectives pair up; every output's partial
// products are summed over the ranks in one collective per pass.
type lockstep struct {
	e *engine.Engine
	d pursuit.Matrix // the shared dictionary
	// dc and all, for a dictionary streamed in resident blocks (a GPU):
	// each pass gathers every block once for all outputs (scanSets).
	dc    *dictionary
	all   []int
	sh    *shard
	width int // fitters running at once
	yield chan *stepRequest
	red   []float64

	mu       sync.Mutex // guards progress
	progress [][]Step   // steps not yet delivered to Progress, per output
}

// stepRequest is one output's wait for its products.
type stepRequest struct {
	output int
	dst    []float64
	vecs   pursuit.Matrix
	err    error
	resume chan struct{}
}

// errStopped ends the fitters still waiting for products after another
// output failed.
var errStopped = errors.New("kmp: stopped after another output failed")

// newLockstep returns a lockstep for n outputs on dict, or nil where the
// outputs train one after the other: a single output, a dictionary
// computed on the fly on the host (its blocks are recomputed per pass
// anyway), or a memory budget too small for every output's basis at once.
// A full search whose blocks are resident on a device trains in lock-step:
// a block gathered there once serves every output.
// l is the number of training points of this rank and lAll of all ranks
// (the ranks agree on the choice).
func newLockstep(e *engine.Engine, cfg *Config, dict *dictionary, n, l, lAll int) *lockstep {
	st := dict.stream
	if n < 2 || st != nil && !(st.resident && st.plan.Mode == Streamed && !dict.sh.sharded()) {
		return nil
	}
	if cfg.N > 0 && cfg.Loss == Squared {
		// Each output reserves its N×l float64 basis when it starts; side
		// by side they need n of them.
		basis := int64(min(cfg.N, dict.atoms.len(), lAll)) * int64(l) * 8
		if dict.sh.agree(e.Reserve("the one-vs-rest bases side by side", int64(n)*basis)) != nil {
			return nil
		}
	}
	width := max(1, e.Threads())
	if dict.sh.sharded() || cfg.Deflation == Explicit {
		// Explicit deflation gives each output a dictionary of its own,
		// which its fitter deflates and searches with the backend's
		// parallel operations: fitters side by side would multiply the
		// backend's threads.
		width = 1
	}
	ls := &lockstep{e: e, d: dict.d, sh: dict.sh, width: width, yield: make(chan *stepRequest),
		progress: make([][]Step, n)}
	if st != nil {
		ls.dc, ls.all = dict, make([]int, dict.atoms.len())
		for i := range ls.all {
			ls.all[i] = i
		}
	}
	return ls
}

// products is called from an output's fitter: it hands over the output's
// vectors and waits for their products with the dictionary (dst as
// DictProducts').
func (ls *lockstep) products(output int, dst []float64, vecs pursuit.Matrix) error {
	r := &stepRequest{output: output, dst: dst, vecs: vecs, resume: make(chan struct{})}
	ls.yield <- r
	<-r.resume
	return r.err
}

// step is called from an output's fitter for each step it records: the
// step waits for the next delivery (deliver).
func (ls *lockstep) step(output int, s Step) {
	ls.mu.Lock()
	ls.progress[output] = append(ls.progress[output], s)
	ls.mu.Unlock()
}

// deliver hands the queued steps to report, output by output; run calls it
// while no fitter runs.
func (ls *lockstep) deliver(report func(Step)) {
	if report == nil {
		return
	}
	for o, steps := range ls.progress {
		for _, s := range steps {
			report(s)
		}
		ls.progress[o] = steps[:0]
	}
}

// run calls fit(o) for every output o, each on its own goroutine and at
// most width at a time as described above, and returns their errors.
// Steps queued by step are delivered to report in order.
func (ls *lockstep) run(n int, fit func(o int) error, report func(Step)) []error {
	// The running fitters take the engine's worker slots, so that their
	// own parallel loops run on their goroutines: width fitters at once
	// are width threads, not width × Threads().
	extra, release := ls.e.Borrow(min(ls.width, n) - 1)
	defer release()
	ls.width = extra + 1
	errs := make([]error, n)
	var waiting []*stepRequest
	failed := false
	running := 0
	// wait lets one running fitter go on until it asks for products (it is
	// queued) or returns.
	wait := func() {
		if r := <-ls.yield; r != nil {
			waiting = append(waiting, r)
		}
		running--
	}
	// admit makes room for one more running fitter.
	admit := func() {
		if running == ls.width {
			wait()
		}
		running++
	}
	for o := range n {
		admit()
		go func() {
			errs[o] = fit(o)
			if errs[o] != nil && !errors.Is(errs[o], checkpoint.ErrStopped) {
				// A stop (a signal, the time limit) stops each output at
				// its own next step boundary, with its state recorded.
				failed = true // read by run only after this send
			}
			ls.yield <- nil
		}()
	}
	for running > 0 {
		wait()
	}
	for len(waiting) > 0 {
		ls.deliver(report)
		batch := waiting
		waiting = nil
		// The order of the sets does not change their products; sorting
		// keeps the fitters' resumption (and the sharded collectives) in
		// output order.
		slices.SortFunc(batch, func(a, b *stepRequest) int { return a.output - b.output })
		var err error
		if failed {
			err = errStopped
		} else {
			dst := make([][]float64, len(batch))
			sets := make([]pursuit.Matrix, len(batch))
			for i, r := range batch {
				dst[i], sets[i] = r.dst, r.vecs
			}
			if ls.dc != nil {
				err = ls.dc.stream.scanSets(ls.dc, ls.all, sets, dst)
			} else if err = ls.e.DictProductsSets(dst, ls.d, sets); err != nil {
				err = fmt.Errorf("kmp: dictionary products: %w", err)
			} else if ls.sh.sharded() {
				err = ls.sum(dst)
			}
		}
		for _, r := range batch {
			r.err = err
			admit()
			close(r.resume)
		}
		for running > 0 {
			wait()
		}
	}
	ls.deliver(report)
	return errs
}

// sum adds every rank's products of every output of the pass, in one
// collective.
func (ls *lockstep) sum(dst [][]float64) error {
	n := 0
	for _, d := range dst {
		n += len(d)
	}
	ls.red = grow(ls.red, n)
	buf := ls.red[:0]
	for _, d := range dst {
		buf = append(buf, d...)
	}
	ls.sh.sum(buf)
	for _, d := range dst {
		copy(d, buf)
		buf = buf[len(d):]
	}
	return ls.sh.failed()
}

// firstError returns the error of the first output that failed on its own
// (not stopped because another failed), with the output's class.
func firstError(errs []error, classes []float64) error {
	for o, err := range errs {
		if err != nil && !errors.Is(err, errStopped) {
			if errors.Is(err, checkpoint.ErrStopped) {
				return err // it says where every output stopped
			}
			if len(errs) > 1 && o < len(classes) {
				return fmt.Errorf("kmp: class %v: %w", classes[o], err)
			}
			return err
		}
	}
	return nil
}
