package asm

import (
	"fmt"
	"sync"

	"github.com/pursuit-ml/pursuit/backend"
)

// Backend is the AVX2/FMA backend. Build it with New. One Backend may be
// used by one goroutine at a time (like every backend.Backend); it spreads
// each operation over its threads internally.
type Backend struct {
	threads  int
	asm      bool // the assembly kernels run (false: the pure-Go twins)
	avx512   bool // the AVX-512F kernels (GEMM, RBF, 4/8-vector dots) run
	k        kernels
	gemmWS   sync.Pool // *gemmWorkspace, one per worker goroutine
	prodPool sync.Pool // *[]float64, inner products of few-row kernel blocks
}

var _ backend.Backend = (*Backend)(nil)

// Name returns "avx2".
func (b *Backend) Name() string { return "avx2" }

// String describes the configuration, e.g. "avx2 (assembly, 2 threads)".
func (b *Backend) String() string {
	path := "assembly"
	if b.avx512 {
		path = "assembly, AVX-512F GEMM, RBF and dot kernels"
	}
	if !b.asm {
		path = "pure-Go kernels: AVX2/FMA masked or not built"
	}
	return fmt.Sprintf("avx2 (%s, %d threads)", path, b.threads)
}

// UsesAssembly reports whether the assembly kernels run (false when AVX2 or
// FMA were masked with options, or the build is purego).
func (b *Backend) UsesAssembly() bool { return b.asm }

// UsesAVX512 reports whether the AVX-512F kernels run.
func (b *Backend) UsesAVX512() bool { return b.avx512 }

// Threads returns the number of goroutines one operation uses at most.
func (b *Backend) Threads() int { return b.threads }

// minParallelWork is the number of multiply-adds below which an operation
// runs on the calling goroutine: starting goroutines costs microseconds.
const minParallelWork = 1 << 17

// parallel runs fn over [0, n) split into at most b.threads contiguous
// ranges whose length is a multiple of grain (except the last), when work
// (multiply-adds) is large enough to pay for the goroutines.
func (b *Backend) parallel(n, grain, work int, fn func(lo, hi int)) {
	t := b.threads
	if work < minParallelWork || t < 2 || n <= grain {
		fn(0, n)
		return
	}
	size := (n + t - 1) / t
	size = (size + grain - 1) / grain * grain
	if size >= n {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += size {
		hi := min(lo+size, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// SqNorms writes ‖x_i‖² of each row of x into dst[:x.Rows], summed with
// float64 partial sums and rounded to float32.
func (b *Backend) SqNorms(dst []float32, x backend.Matrix) error {
	if err := backend.CheckSqNorms(dst, x); err != nil {
		return err
	}
	b.parallel(x.Rows, 1, x.Rows*x.Cols, func(lo, hi int) {
		var out [1]float64
		for i := lo; i < hi; i++ {
			row := x.Row(i)
			b.k.dots(out[:], row, row, 0, 1)
			dst[i] = float32(out[0])
		}
	})
	return nil
}

// dictGroups splits k vectors into groups of at most maxGroup (a power of
// two) that the dot kernels take: 8 (AVX-512 only), 4, 2, 1. With AVX2,
// eight vectors go as two groups of 4 over pairs of rows, which needs fewer
// loads per multiply-add than one row against 8 vectors.
func dictGroups(k, maxGroup int) [][2]int {
	var g [][2]int
	for start := 0; start < k; {
		size := maxGroup
		for size > k-start {
			size /= 2
		}
		g = append(g, [2]int{start, size})
		start += size
	}
	return g
}

// DictProducts sets dst[j·dict.Rows+i] = <d_i, v_j> in one pass over dict.
// Each row d_i is multiplied with all vectors while it is in cache (groups of
// 8, 4, 2 and 1 vectors). Partial sums are float32 runs of at most 32
// products per lane (chunks of 256 elements), added into float64.
func (b *Backend) DictProducts(dst []float64, dict, vecs backend.Matrix) error {
	if err := backend.CheckDictProducts(dst, dict, vecs); err != nil {
		return err
	}
	rows, k := dict.Rows, vecs.Rows
	if rows == 0 || k == 0 {
		return nil
	}
	if dict.Cols == 0 {
		clear(dst[:rows*k])
		return nil
	}
	groups := dictGroups(k, b.k.maxGroup)
	n := dict.Cols
	n8 := n &^ 7
	b.parallel(rows, dictRowBlock, rows*n*k, func(lo, hi int) {
		// acc[dictRowBlock·4·g0 + 4(r·g+j) + lane] for group (g0, g),
		// block row r and vector g0+j.
		acc := make([]float64, dictRowBlock*4*k)
		for i0 := lo; i0 < hi; i0 += dictRowBlock {
			rb := min(dictRowBlock, hi-i0)
			clear(acc)
			for c0 := 0; c0 < n8; c0 += dictColChunk {
				cn := min(dictColChunk, n8-c0)
				for _, g := range groups {
					v := vecs.Data[g[0]*vecs.Stride+c0:]
					base := dictRowBlock * 4 * g[0]
					rpc := b.k.rowsPerCall(g[1])
					for r0 := 0; r0 < rb; r0 += rpc {
						nr := min(rpc, rb-r0)
						x := dict.Data[(i0+r0)*dict.Stride+c0:]
						b.k.dotRows(acc[base+4*r0*g[1]:], x, dict.Stride, nr, cn, v, vecs.Stride, g[1])
					}
				}
			}
			for _, g := range groups {
				base := dictRowBlock * 4 * g[0]
				for r := 0; r < rb; r++ {
					x := dict.Row(i0 + r)
					for j := 0; j < g[1]; j++ {
						a := acc[base+4*(r*g[1]+j):]
						s := (a[0] + a[1]) + (a[2] + a[3])
						vj := vecs.Row(g[0] + j)
						for c := n8; c < n; c++ {
							s += float64(x[c]) * float64(vj[c])
						}
						dst[(g[0]+j)*rows+i0+r] = s
					}
				}
			}
		}
	})
	return nil
}

// DictProducts works on blocks of dictRowBlock rows × dictColChunk columns:
// the block's piece of each vector (4 KiB) stays in L1 while all the rows
// of the block use it, so the kernels read the vectors from L1 and only the
// dictionary from memory, once.
const (
	dictRowBlock = 16
	dictColChunk = 1024
)

// RankUpdate applies d ← d + alpha·Σ_t u_t v_tᵀ four rows at a time: row i
// of d gets Σ_t (alpha·u_t[i]) v_t in one load and one store, for any k.
func (b *Backend) RankUpdate(d backend.Matrix, alpha float32, u, v backend.Matrix) error {
	if err := backend.CheckRankUpdate(d, u, v); err != nil {
		return err
	}
	k := u.Rows
	if k == 0 || d.Rows == 0 || d.Cols == 0 || alpha == 0 {
		return nil
	}
	b.parallel(d.Rows, 8, d.Rows*d.Cols*k, func(lo, hi int) {
		c := make([]float32, 4*k)
		i := lo
		for ; i+4 <= hi; i += 4 {
			for t := 0; t < k; t++ {
				for r := 0; r < 4; r++ {
					c[4*t+r] = alpha * u.At(t, i+r)
				}
			}
			b.k.axpy4(d.Data[i*d.Stride:], d.Stride, d.Cols, c, v.Data, v.Stride)
		}
		for ; i < hi; i++ {
			for t := 0; t < k; t++ {
				c[t] = alpha * u.At(t, i)
			}
			b.k.axpys(d.Row(i), c[:k], v.Data, v.Stride)
		}
	})
	return nil
}

// ScoredArgMax returns the index k maximising |s_k|/sqrt(n_k) over the
// eligible candidates (see backend.Backend), four candidates per AVX2
// instruction; the scores are computed exactly as backend.ScoredArgMaxRef
// computes them.
func (b *Backend) ScoredArgMax(s, n []float64, skip []bool) (int, float64) {
	m := min(len(s), len(n))
	s, n = s[:m], n[:m]
	if skip == nil || len(skip) >= m {
		if skip != nil {
			skip = skip[:m]
		}
		return b.k.argmax(s, n, skip)
	}
	// skip covers a prefix only: the rest has no skipping.
	ls := len(skip)
	k1, s1 := b.k.argmax(s[:ls], n[:ls], skip)
	k2, s2 := b.k.argmax(s[ls:], n[ls:], nil)
	if k2 >= 0 && (k1 < 0 || s2 > s1) {
		return ls + k2, s2
	}
	return k1, s1
}
