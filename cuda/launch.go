package cuda

import (
	"fmt"
	"math"
)

// Launch geometry and kernel arguments. This file has no build tag and no
// CUDA import, so that the untagged tests can check it against
// kernels/kernels.cu and the embedded PTX on any machine.

// Launch geometry; kernels_test.go checks it against the #defines in
// kernels/kernels.cu.
const (
	kbTile     = 128 // KB_BM and KB_BN: kernel_block tile
	kbThreads  = 256 // KB_THREADS
	snThreads  = 256 // SN_THREADS
	snRowsPer  = 8   // SN_THREADS / SN_GROUP: rows per sq_norms block
	dpThreads  = 256 // DP_THREADS
	dpMaxVecs  = 8   // DP_MAXV: vectors per dictionary pass
	dpMinChunk = 2048
	ruBX, ruBY = 32, 8 // RU_BX, RU_BY: rank_update block
	vcThreads  = 256   // VC_THREADS: vec_combine, block_row_f64, sign_mismatch, fill_zero
	skRows     = 32    // SK_ROWS: streamed rows per csr_kernel block
	skCols     = 32    // SK_COLS: batch rows per csr_kernel block
	skThreads  = 256   // SK_THREADS
	trTile     = 32    // TR_TILE: dense_densify_t tile
	trBY       = 8     // TR_BY: dense_densify_t block is trTile×trBY
	subThreads = 256   // SUB_THREADS: smo_sub
	svbTile    = 16    // SVB_TILE: svm_block
	svuThreads = 256   // SVU_THREADS: svm_update
	maxGridY   = 65535
)

// Kernel entry points in the PTX.
const (
	nameKernelBlock  = "kernel_block"
	nameSqNorms      = "sq_norms"
	nameDictPartial  = "dict_partial"
	nameDictReduce   = "dict_reduce"
	nameRankUpdate   = "rank_update"
	nameVecPartial   = "vec_partial"
	nameVecCombine   = "vec_combine"
	nameBlockRowF64  = "block_row_f64"
	nameSignMismatch = "sign_mismatch"
	nameCSRKernel    = "csr_kernel"
	nameCSRSqNorms   = "csr_sq_norms"
	nameCSRDensifyT  = "csr_densify_t"
	nameDenseDensify = "dense_densify_t"
	nameFillZero     = "fill_zero"
	nameSMOSub       = "smo_sub"
	nameSVMBlock     = "svm_block"
	nameSVMUpdate    = "svm_update"
)

// params holds kernel arguments. gorgonia.org/cu copies each argument as one
// 8-byte word, so every kernel parameter is a device pointer, a long long or
// a double; kinds records which ('u' for the 64-bit integer kinds, 'f' for
// double) so that tests can compare with the PTX signature.
type params struct {
	w     []uint64
	kinds []byte
}

// newParams makes the arguments of one launch: each a device address
// (uintptr) or long long (int), or a double (float64).
func newParams(args ...any) params {
	p := params{w: make([]uint64, len(args)), kinds: make([]byte, len(args))}
	for i, a := range args {
		switch v := a.(type) {
		case uintptr:
			p.w[i], p.kinds[i] = uint64(v), 'u'
		case int:
			p.w[i], p.kinds[i] = uint64(int64(v)), 'u'
		case float64:
			p.w[i], p.kinds[i] = math.Float64bits(v), 'f'
		default:
			panic(fmt.Sprintf("cuda: kernel argument %d of type %T", i, a)) // the builders below pass only these
		}
	}
	return p
}

// Argument builders, one per kernel, in the order of the CUDA signatures.
// Addresses are device addresses (0 for a null pointer).

func kernelBlockParams(c uintptr, ldc int, a uintptr, lda int, idx, an, b uintptr, ldb int, bn uintptr,
	m, n, k, kind int, gamma, coef0 float64, degree int) params {
	return newParams(c, ldc, a, lda, idx, an, b, ldb, bn, m, n, k, kind, gamma, coef0, degree)
}

func sqNormsParams(out, x uintptr, ld, rows, cols int) params {
	return newParams(out, x, ld, rows, cols)
}

func dictPartialParams(part, d uintptr, ldd int, v uintptr, ldv, rows, cols, nv, chunk int) params {
	return newParams(part, d, ldd, v, ldv, rows, cols, nv, chunk)
}

func dictReduceParams(dst, part uintptr, rows, nchunks, nv int) params {
	return newParams(dst, part, rows, nchunks, nv)
}

func rankUpdateParams(d uintptr, ldd, rows, cols int, alpha float64, u uintptr, ldu int, v uintptr, ldv, k int) params {
	return newParams(d, ldd, rows, cols, alpha, u, ldu, v, ldv, k)
}

func vecPartialParams(part, d uintptr, ldd int, a uintptr, lda int, v uintptr, ldv, rows, cols, nv, chunk int) params {
	return newParams(part, d, ldd, a, lda, v, ldv, rows, cols, nv, chunk)
}

func vecCombineParams(y uintptr, beta float64, coef, a uintptr, lda, n, cols int) params {
	return newParams(y, beta, coef, a, lda, n, cols)
}

func blockRowF64Params(y, x uintptr, cols int) params {
	return newParams(y, x, cols)
}

func smoSubParams(g, a, out, kb, y, c uintptr, m int, eps float64, limit int) params {
	return newParams(g, a, out, kb, y, c, m, eps, limit)
}

func svmBlockParams(kb, p uintptr, n int, slot, key uintptr, m int) params {
	return newParams(kb, p, n, slot, key, m)
}

func svmUpdateParams(g, y, p uintptr, n int, slot, w uintptr, m int, kidx uintptr, nv int) params {
	return newParams(g, y, p, n, slot, w, m, kidx, nv)
}

func signMismatchParams(part, a, b uintptr, n int) params {
	return newParams(part, a, b, n)
}

func csrKernelParams(c uintptr, ldc, trans int, off, idx, val, sel uintptr, s int, t uintptr, ldt, g int,
	sn, tn uintptr, kind int, gamma, coef0 float64, degree int) params {
	return newParams(c, ldc, trans, off, idx, val, sel, s, t, ldt, g, sn, tn, kind, gamma, coef0, degree)
}

func csrSqNormsParams(out, off, val, sel uintptr, n int) params {
	return newParams(out, off, val, sel, n)
}

func csrDensifyTParams(t uintptr, ldt int, off, idx, val, sel uintptr, n int) params {
	return newParams(t, ldt, off, idx, val, sel, n)
}

func denseDensifyTParams(t uintptr, ldt int, x uintptr, ldx, n, d int) params {
	return newParams(t, ldt, x, ldx, n, d)
}

func fillZeroParams(x uintptr, n int) params {
	return newParams(x, n)
}

// dictChunks splits the long dimension (cols) of a dictionary pass so that
// rows×chunks blocks fill a device with sms multiprocessors, with chunks of
// at least dpMinChunk elements and at most maxGridY chunks. It returns the
// chunk length and count (chunk ≥ 1, count ≥ 1, count·chunk ≥ cols).
func dictChunks(rows, cols, sms int) (chunk, nchunks int) {
	if cols <= 0 || rows <= 0 {
		return 1, 1
	}
	nchunks = ceilDiv(4*max(sms, 1), rows)
	nchunks = max(1, min(nchunks, ceilDiv(cols, dpMinChunk), maxGridY))
	chunk = ceilDiv(cols, nchunks)
	if ceilDiv(cols, chunk) > maxGridY {
		chunk = ceilDiv(cols, maxGridY)
	}
	return chunk, ceilDiv(cols, chunk)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
