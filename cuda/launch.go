package cuda

import "math"

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
	vcThreads  = 256   // VC_THREADS: vec_combine, block_row_f64, sign_mismatch
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
)

// params holds kernel arguments. gorgonia.org/cu copies each argument as one
// 8-byte word, so every kernel parameter is a device pointer, a long long or
// a double; kinds records which ('u' for the 64-bit integer kinds, 'f' for
// double) so that tests can compare with the PTX signature.
type params struct {
	w     []uint64
	kinds []byte
}

func (p *params) ptr(d uintptr) {
	p.w = append(p.w, uint64(d))
	p.kinds = append(p.kinds, 'u')
}

func (p *params) i64(v int) {
	p.w = append(p.w, uint64(int64(v)))
	p.kinds = append(p.kinds, 'u')
}

func (p *params) f64(v float64) {
	p.w = append(p.w, math.Float64bits(v))
	p.kinds = append(p.kinds, 'f')
}

// Argument builders, one per kernel, in the order of the CUDA signatures.
// Addresses are device addresses (0 for a null pointer).

func kernelBlockParams(c uintptr, ldc int, a uintptr, lda int, idx, an, b uintptr, ldb int, bn uintptr,
	m, n, k, kind int, gamma, coef0 float64, degree int) params {
	var p params
	p.ptr(c)
	p.i64(ldc)
	p.ptr(a)
	p.i64(lda)
	p.ptr(idx)
	p.ptr(an)
	p.ptr(b)
	p.i64(ldb)
	p.ptr(bn)
	p.i64(m)
	p.i64(n)
	p.i64(k)
	p.i64(kind)
	p.f64(gamma)
	p.f64(coef0)
	p.i64(degree)
	return p
}

func sqNormsParams(out, x uintptr, ld, rows, cols int) params {
	var p params
	p.ptr(out)
	p.ptr(x)
	p.i64(ld)
	p.i64(rows)
	p.i64(cols)
	return p
}

func dictPartialParams(part, d uintptr, ldd int, v uintptr, ldv, rows, cols, nv, chunk int) params {
	var p params
	p.ptr(part)
	p.ptr(d)
	p.i64(ldd)
	p.ptr(v)
	p.i64(ldv)
	p.i64(rows)
	p.i64(cols)
	p.i64(nv)
	p.i64(chunk)
	return p
}

func dictReduceParams(dst, part uintptr, rows, nchunks, nv int) params {
	var p params
	p.ptr(dst)
	p.ptr(part)
	p.i64(rows)
	p.i64(nchunks)
	p.i64(nv)
	return p
}

func rankUpdateParams(d uintptr, ldd, rows, cols int, alpha float64, u uintptr, ldu int, v uintptr, ldv, k int) params {
	var p params
	p.ptr(d)
	p.i64(ldd)
	p.i64(rows)
	p.i64(cols)
	p.f64(alpha)
	p.ptr(u)
	p.i64(ldu)
	p.ptr(v)
	p.i64(ldv)
	p.i64(k)
	return p
}

func vecPartialParams(part, d uintptr, ldd int, a uintptr, lda int, v uintptr, ldv, rows, cols, nv, chunk int) params {
	var p params
	p.ptr(part)
	p.ptr(d)
	p.i64(ldd)
	p.ptr(a)
	p.i64(lda)
	p.ptr(v)
	p.i64(ldv)
	p.i64(rows)
	p.i64(cols)
	p.i64(nv)
	p.i64(chunk)
	return p
}

func vecCombineParams(y uintptr, beta float64, coef, a uintptr, lda, n, cols int) params {
	var p params
	p.ptr(y)
	p.f64(beta)
	p.ptr(coef)
	p.ptr(a)
	p.i64(lda)
	p.i64(n)
	p.i64(cols)
	return p
}

func blockRowF64Params(y, x uintptr, cols int) params {
	var p params
	p.ptr(y)
	p.ptr(x)
	p.i64(cols)
	return p
}

func signMismatchParams(part, a, b uintptr, n int) params {
	var p params
	p.ptr(part)
	p.ptr(a)
	p.ptr(b)
	p.i64(n)
	return p
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
