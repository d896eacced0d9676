package kmp

import (
	"cmp"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// ShardedBasic configures TrainShardedBasic: basic matching pursuit with the
// squared loss (regression), one built-in kernel, no constant, stochastic
// search over an active set of ActiveSet atoms (≥ the number of training
// rows: every atom) drawn from Seed, for N steps.
type ShardedBasic struct {
	Kernel    backend.Kernel
	N         int
	ActiveSet int
	Seed      uint64

	chunk int // rows per kernel block; 0: chosen for the cache (tests set it)
}

// TrainShardedBasic trains basic stochastic KMP on training rows split
// across the ranks of e.Comm(): rank r passes its own rows x, y, and the
// ranks' rows in rank order are the training set. Every rank returns the
// same model, which is the model TrainStochastic gives on the whole
// training set with Config{Variant: Basic, Task: Regression, Kernels:
// {Kernel}, N, Seed} and Stochastic{ActiveSet} (the same atoms, and
// decisions equal to rounding: the products are summed in another order).
//
// Per step: every rank draws the same active set (the sampler of the
// single-process run, seeded alike); the ranks that own candidate centres
// contribute them to one Allgatherv, so every rank holds the s candidate
// points; each rank computes the candidates' kernel values at its own rows,
// their products with its residual shard and their squared norms; one
// AllreduceSum adds the 2s+1 partial sums (with ‖R‖²); every rank takes the
// same arg-max of the identical sums (ScoredArgMax; ties go to the lowest
// candidate); a second AllreduceSum of one value gives the step's exact
// coefficient; each rank updates its residual shard.
//
// The ranks first compare their settings and the validity of their own
// rows (comm.CheckConfig): a rank started differently, or with bad rows,
// stops every rank with an error wrapping comm.ErrConfig.
//
// Ties: every rank holds bit-identical sums (comm's guarantee), so every
// rank picks the same candidate, the lowest position among exact ties.
// Against the single-process run, whose sums are added in another order, two
// candidates whose scores differ by less than the rounding of the float32
// kernel values (about 1e-6 relative) may swap; the tests check the atoms
// are identical on data without such near ties.
func TrainShardedBasic(e *engine.Engine, x backend.Matrix, y []float64, sb ShardedBasic) (*Model, error) {
	c := e.Comm()
	// A rank whose own arguments are bad must not return before the first
	// collective (the others would wait for it forever under MPI): its
	// error is one of the configuration entries every rank compares, so all
	// stop together.
	input := "valid"
	if err := x.Validate(); err != nil {
		input = fmt.Sprintf("invalid training rows: %v", err)
	} else if len(y) != x.Rows {
		input = fmt.Sprintf("%d training rows but %d targets", x.Rows, len(y))
	} else if err := checkFinite("training", x, y); err != nil {
		input = err.Error()
	}
	// Every rank must run the same configuration, or the collectives below
	// would pair up wrongly: stop all ranks with one clear error instead.
	err := comm.CheckConfig(c, []comm.Entry{
		comm.Setting("input", input),
		comm.Setting("kernel", fmt.Sprintf("%#v", sb.Kernel)),
		comm.Setting("N", fmt.Sprint(sb.N)),
		comm.Setting("active set", fmt.Sprint(sb.ActiveSet)),
		comm.Setting("seed", fmt.Sprint(sb.Seed)),
		comm.Setting("features", fmt.Sprint(x.Cols)),
	})
	if err != nil {
		return nil, fmt.Errorf("kmp: sharded training: %w", err)
	}
	if input != "valid" { // rank 0's own input, alike on every rank
		return nil, fmt.Errorf("kmp: sharded training: every rank's input is bad; rank %d's: %s", c.Rank(), input)
	}
	if sb.N < 1 || sb.ActiveSet < 1 {
		return nil, fmt.Errorf("kmp: sharded basic KMP needs N ≥ 1 and ActiveSet ≥ 1, got %d and %d", sb.N, sb.ActiveSet)
	}
	// Shard sizes and offsets.
	n := c.Size()
	ones := make([]int, n)
	for r := range ones {
		ones[r] = 1
	}
	sizes := make([]float64, n)
	if err := c.Allgatherv([]float64{float64(x.Rows)}, ones, sizes); err != nil {
		return nil, err
	}
	d := x.Cols
	offset := make([]int, n+1)
	for r := range n {
		offset[r+1] = offset[r] + int(sizes[r])
	}
	l, lo := offset[n], offset[c.Rank()]
	if l == 0 {
		return nil, errors.New("kmp: every rank's training shard is empty")
	}
	cfg := &Config{Variant: Basic, Task: Regression, Loss: Squared, Kernels: []backend.Kernel{sb.Kernel}, N: sb.N, Seed: sb.Seed}
	if err := cfg.resolve(); err != nil {
		return nil, err
	}
	norms, err := e.SqNorms(x)
	if err != nil {
		return nil, fmt.Errorf("kmp: %w", err)
	}
	own := trainSet{x: x, norms: norms}

	resid := append([]float64(nil), y...)
	ysq := []float64{0}
	for _, v := range y {
		ysq[0] += v * v
	}
	if err := c.AllreduceSum(ysq); err != nil {
		return nil, err
	}
	ynorm := math.Sqrt(ysq[0])

	var smp *sampler
	s := l
	if sb.ActiveSet < l {
		s, smp = sb.ActiveSet, newSampler(l, sb.Seed, 0)
	}
	all := make([]int, l)
	for i := range all {
		all[i] = i
	}
	var (
		centres = backend.NewMatrix(s, d)
		chunk   = cmp.Or(sb.chunk, chunkCols(s, x.Rows))
		blk     = make([]float32, s*chunk)
		one     = backend.NewMatrix(1, x.Rows)
		idx     = make([]int, s)
		vq      = make([]float32, 2*x.Rows)
		prod    = make([]float64, 2*s)
		red     = make([]float64, 2*s+1)
		counts  = make([]int, n)
		send    []float64
		recv    = make([]float64, s*d)
		ab      = make([]atom, s)
		row     = make([]float64, x.Rows)
		steps   []int
		pos     = map[int]int{}
		sv      []int
		coef    []float64
		svX     []float32
		curve   []Step
	)
	for i := range ab {
		ab[i] = atom{kernel: 0, center: i}
	}
	if err := e.Reserve("the sharded KMP kernel block", int64(s*chunk+x.Rows)*4); err != nil {
		return nil, fmt.Errorf("kmp: %w", err)
	}
	for step := 1; step <= sb.N; step++ {
		cand := all
		if smp != nil {
			cand = smp.next(s)
		}
		m := len(cand)
		// Every rank gets the candidates' points from their owners, in
		// candidate order (cand is increasing, the ranks own increasing
		// row ranges).
		clear(counts)
		send = send[:0]
		for _, g := range cand {
			r := ownerOf(offset, g)
			counts[r] += d
			if r == c.Rank() {
				for _, v := range x.Row(g - lo) {
					send = append(send, float64(v))
				}
			}
		}
		if err := c.Allgatherv(send, counts, recv[:m*d]); err != nil {
			return nil, err
		}
		cx := centres.Slice(0, m, 0, d)
		for i, v := range recv[:m*d] {
			cx.Data[i/d*cx.Stride+i%d] = float32(v)
		}
		cn, err := e.SqNorms(cx)
		if err != nil {
			return nil, fmt.Errorf("kmp: %w", err)
		}
		// Partial products and norms over this rank's rows, in chunks of
		// rows small enough for the kernel block to stay in cache (as the
		// single-process stochastic search does).
		clear(red[:2*m+1])
		ctr := trainSet{x: cx, norms: cn}
		if x.Rows > 0 {
			splitHiLo(resid, vq[:x.Rows], vq[x.Rows:])
		}
		vecs := backend.Matrix{Rows: 2, Cols: x.Rows, Stride: x.Rows, Data: vq}
		for j0 := 0; j0 < x.Rows; j0 += chunk {
			j1 := min(j0+chunk, x.Rows)
			b := backend.Matrix{Rows: m, Cols: j1 - j0, Stride: j1 - j0, Data: blk[:m*(j1-j0)]}
			pts := trainSet{x: x.Slice(j0, j1, 0, d), norms: norms[j0:j1]}
			if err := fillAtoms(e, cfg, ab[:m], ctr, pts, b, idx); err != nil {
				return nil, err
			}
			if err := e.DictProducts(prod[:2*m], b, vecs.Slice(0, 2, j0, j1)); err != nil {
				return nil, fmt.Errorf("kmp: dictionary products: %w", err)
			}
			for i := range m {
				red[i] += prod[i] + prod[m+i]
			}
			addSqNorms(b, e.Threads(), red[m:2*m])
		}
		for _, v := range resid {
			red[2*m] += v * v
		}
		if err := c.AllreduceSum(red[:2*m+1]); err != nil {
			return nil, err
		}
		if len(curve) > 0 {
			curve[len(curve)-1].Residual = math.Sqrt(red[2*m])
		}
		if ynorm == 0 || math.Sqrt(red[2*m]) <= 1e-13*ynorm {
			break // the targets are fitted exactly (fitSquared's test)
		}
		gi, _ := e.ScoredArgMax(red[:m], red[m:2*m], nil)
		if gi < 0 {
			break
		}
		g := cand[gi]
		// The coefficient from a float64 product with the chosen atom.
		dot := []float64{0}
		if x.Rows > 0 {
			if err := fillAtoms(e, cfg, ab[gi:gi+1], ctr, own, one, idx); err != nil {
				return nil, err
			}
			for j, v := range one.Row(0) {
				row[j] = float64(v)
				dot[0] += row[j] * resid[j]
			}
		}
		if err := c.AllreduceSum(dot); err != nil {
			return nil, err
		}
		a := dot[0] / red[m+gi]
		for j := range resid {
			resid[j] -= a * row[j]
		}
		steps = append(steps, g)
		if i, ok := pos[g]; ok {
			coef[i] += a
		} else {
			pos[g] = len(sv)
			sv = append(sv, g)
			coef = append(coef, a)
			// The chosen point, which every rank holds from the gather.
			svX = append(svX, cx.Row(gi)...)
		}
		curve = append(curve, Step{Step: step, Basis: len(sv), Atom: g, Support: g})
	}
	if len(curve) == sb.N { // the loop ran to N: the last residual is not summed yet
		// The last step's residual norm (the loop stopped at N).
		rr := []float64{floats.Dot(resid, resid)}
		if err := c.AllreduceSum(rr); err != nil {
			return nil, err
		}
		curve[len(curve)-1].Residual = math.Sqrt(rr[0])
	}
	model := &Model{
		Task: Regression, Loss: Squared, Variant: Basic, Kernels: []backend.Kernel{sb.Kernel},
		Support:       backend.Matrix{Rows: len(sv), Cols: d, Stride: d, Data: svX},
		SupportIndex:  append([]int{}, sv...),
		SupportKernel: make([]int, len(sv)),
		Outputs:       []Output{{Coef: coef, Steps: len(steps), Curve: curve}},
	}
	if model.Support.Data == nil {
		model.Support = backend.NewMatrix(0, d)
	}
	return model, nil
}

// ownerOf returns the rank whose rows [offset[r], offset[r+1]) hold row g.
func ownerOf(offset []int, g int) int {
	lo, hi := 0, len(offset)-2
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if offset[mid] <= g {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}
