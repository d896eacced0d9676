// Device kernels of Pursuit's CUDA backend (package cuda).
//
// Compiled to PTX by `go generate ./cuda` (see ../generate.go) and embedded
// in the Go binary, so that users need only the NVIDIA driver, which JITs the
// PTX for their GPU. The same source is also compiled on the CPU by
// emu/emu_test.cpp under a small emulation of the CUDA execution model, which
// is how the kernel logic is checked on machines without a GPU.
//
// Conventions, forced by the Go side (gorgonia.org/cu copies every launch
// parameter as one 8-byte word):
//   - every parameter is 8 bytes: a device pointer, a long long or a double;
//   - matrices are row-major float32 with a leading dimension (elements);
//   - kernel kinds use the numbering of backend.KernelKind:
//     1 linear, 2 polynomial, 3 RBF, 4 sigmoid.
// Kernels never return early before a __syncthreads(): threads outside the
// problem take part in every barrier and simply do not store.

#ifndef PURSUIT_EMU
#define PURSUIT_GLOBAL extern "C" __global__
#else
#define PURSUIT_GLOBAL static
#endif

// ---------------------------------------------------------------------------
// Kernel blocks: C[i][j] = k(a_{g(i)}, b_j), g(i) = idx[i] or i.
//
// A tiled shared-memory SGEMM "A·Bᵀ" (both operands row-major with the
// feature dimension contiguous) with the kernel transform fused into the
// epilogue. 256 threads as 16×16 compute a 128×128 tile of C, each an 8×8
// register tile (rows ty+16r, columns tx+16c); the K dimension advances in
// steps of 8 through shared memory, padded so that the transposing stores
// do not conflict.
// ---------------------------------------------------------------------------

#define KB_BM 128
#define KB_BN 128
#define KB_BK 8
#define KB_PAD 4
#define KB_THREADS 256

__device__ __forceinline__ float kb_transform(float dot, float an, float bn, long long kind,
                                              float gamma, float coef0, long long degree)
{
	switch (kind) {
	case 2: { // polynomial (gamma*dot + coef0)^degree, by repeated squaring
		float base = gamma * dot + coef0;
		float r = 1.0f;
		long long p = degree;
		while (p > 0) {
			if (p & 1) {
				r *= base;
			}
			base *= base;
			p >>= 1;
		}
		return r;
	}
	case 3: { // RBF exp(-gamma*||a-b||^2) with ||a-b||^2 = ||a||^2+||b||^2-2a.b >= 0
		float d = an + bn - 2.0f * dot;
		d = d > 0.0f ? d : 0.0f;
		return expf(-gamma * d);
	}
	case 4: // sigmoid
		return tanhf(gamma * dot + coef0);
	default: // linear
		return dot;
	}
}

PURSUIT_GLOBAL void kernel_block(float *__restrict__ C, long long ldc,
                                 const float *__restrict__ A, long long lda,
                                 const long long *__restrict__ idx, const float *__restrict__ an,
                                 const float *__restrict__ B, long long ldb,
                                 const float *__restrict__ bn,
                                 long long M, long long N, long long K,
                                 long long kind, double gamma, double coef0, long long degree)
{
	__shared__ float As[KB_BK][KB_BM + KB_PAD];
	__shared__ float Bs[KB_BK][KB_BN + KB_PAD];

	const int tid = threadIdx.x;
	const int tx = tid % 16;
	const int ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * KB_BM;
	const long long col0 = (long long)blockIdx.x * KB_BN;

	float acc[8][8];
#pragma unroll
	for (int r = 0; r < 8; r++) {
#pragma unroll
		for (int c = 0; c < 8; c++) {
			acc[r][c] = 0.0f;
		}
	}

	for (long long k0 = 0; k0 < K; k0 += KB_BK) {
		// Each thread stages 4 elements of each 128×8 operand tile.
#pragma unroll
		for (int q = 0; q < 4; q++) {
			const int e = tid + KB_THREADS * q;
			const int rr = e / KB_BK;
			const int kk = e % KB_BK;
			const long long k = k0 + kk;
			const long long i = row0 + rr;
			float va = 0.0f;
			if (i < M && k < K) {
				const long long ai = idx ? idx[i] : i;
				va = A[ai * lda + k];
			}
			As[kk][rr] = va;
			const long long j = col0 + rr;
			float vb = 0.0f;
			if (j < N && k < K) {
				vb = B[j * ldb + k];
			}
			Bs[kk][rr] = vb;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < KB_BK; kk++) {
			float a[8], b[8];
#pragma unroll
			for (int r = 0; r < 8; r++) {
				a[r] = As[kk][ty + 16 * r];
			}
#pragma unroll
			for (int c = 0; c < 8; c++) {
				b[c] = Bs[kk][tx + 16 * c];
			}
#pragma unroll
			for (int r = 0; r < 8; r++) {
#pragma unroll
				for (int c = 0; c < 8; c++) {
					acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
				}
			}
		}
		__syncthreads();
	}

	const float g = (float)gamma;
	const float c0 = (float)coef0;
#pragma unroll
	for (int r = 0; r < 8; r++) {
		const long long i = row0 + ty + 16 * r;
		if (i >= M) {
			continue;
		}
		float ai = 0.0f;
		if (kind == 3) {
			ai = an[idx ? idx[i] : i];
		}
#pragma unroll
		for (int c = 0; c < 8; c++) {
			const long long j = col0 + tx + 16 * c;
			if (j < N) {
				const float bj = kind == 3 ? bn[j] : 0.0f;
				C[i * ldc + j] = kb_transform(acc[r][c], ai, bj, kind, g, c0, degree);
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Squared row norms: out[i] = ||X_i||^2. 256 threads as 8 groups of 32, one
// row per group, a shared-memory tree reduction within each group.
// ---------------------------------------------------------------------------

#define SN_THREADS 256
#define SN_GROUP 32

PURSUIT_GLOBAL void sq_norms(float *__restrict__ out, const float *__restrict__ X, long long ld,
                             long long rows, long long cols)
{
	__shared__ float red[SN_THREADS];
	const int tid = threadIdx.x;
	const int lane = tid % SN_GROUP;
	const long long i = (long long)blockIdx.x * (SN_THREADS / SN_GROUP) + tid / SN_GROUP;
	float s = 0.0f;
	if (i < rows) {
		const float *x = X + i * ld;
		for (long long j = lane; j < cols; j += SN_GROUP) {
			s = fmaf(x[j], x[j], s);
		}
	}
	red[tid] = s;
	__syncthreads();
	for (int h = SN_GROUP / 2; h > 0; h /= 2) {
		if (lane < h) {
			red[tid] += red[tid + h];
		}
		__syncthreads();
	}
	if (lane == 0 && i < rows) {
		out[i] = red[tid];
	}
}

// ---------------------------------------------------------------------------
// Batched dictionary products, in one pass over D:
// dst[j*rows + i] = <D_i, V_j> for j < nv <= 8.
//
// dict_partial: block (blockIdx.x = row i, blockIdx.y = chunk of columns)
// reads its slice of D_i once and accumulates all nv products; each thread
// sums runs of DP_RUN elements in float and adds them into float64, then the
// block reduces in float64 and writes part[(i*nchunks + chunk)*8 + j].
// dict_reduce adds the chunks in a fixed order, so results are deterministic.
// ---------------------------------------------------------------------------

#define DP_THREADS 256
#define DP_RUN 16
#define DP_MAXV 8

// dp_chunk sets [*beg, *end), the columns of the chunk blockIdx.y (chunk
// columns long, the last one cut at cols) of a dict_partial-like block.
__device__ __forceinline__ void dp_chunk(long long chunk, long long cols, long long *beg, long long *end)
{
	*beg = (long long)blockIdx.y * chunk;
	*end = *beg + chunk;
	if (*end > cols) {
		*end = cols;
	}
}

// dp_store sums the block's threads' acc[j] in float64 in a fixed tree order
// (red is the block's shared scratch) and writes the first nv sums to
// part[(i*nchunks + chunk)*DP_MAXV + j], i = blockIdx.x, chunk = blockIdx.y,
// nchunks = gridDim.y, for dict_reduce.
__device__ __forceinline__ void dp_store(double red[DP_MAXV][DP_THREADS], const double acc[DP_MAXV],
                                         double *__restrict__ part, long long nv)
{
	const int tid = threadIdx.x;
#pragma unroll
	for (int j = 0; j < DP_MAXV; j++) {
		red[j][tid] = acc[j];
	}
	__syncthreads();
	for (int h = DP_THREADS / 2; h > 0; h /= 2) {
		if (tid < h) {
#pragma unroll
			for (int j = 0; j < DP_MAXV; j++) {
				red[j][tid] += red[j][tid + h];
			}
		}
		__syncthreads();
	}
	if (tid < nv) {
		part[((long long)blockIdx.x * gridDim.y + blockIdx.y) * DP_MAXV + tid] = red[tid][0];
	}
}

PURSUIT_GLOBAL void dict_partial(double *__restrict__ part, const float *__restrict__ D, long long ldd,
                                 const float *__restrict__ V, long long ldv,
                                 long long rows, long long cols, long long nv, long long chunk)
{
	__shared__ double red[DP_MAXV][DP_THREADS];
	const int tid = threadIdx.x;
	const long long i = blockIdx.x;
	long long beg, end;
	dp_chunk(chunk, cols, &beg, &end);
	double dacc[DP_MAXV];
#pragma unroll
	for (int j = 0; j < DP_MAXV; j++) {
		dacc[j] = 0.0;
	}
	const float *d = D + i * ldd;
	for (long long base = beg + tid; base < end; base += (long long)DP_THREADS * DP_RUN) {
		float facc[DP_MAXV];
#pragma unroll
		for (int j = 0; j < DP_MAXV; j++) {
			facc[j] = 0.0f;
		}
		for (int q = 0; q < DP_RUN; q++) {
			const long long e = base + (long long)q * DP_THREADS;
			if (e >= end) {
				break;
			}
			const float x = d[e];
#pragma unroll
			for (int j = 0; j < DP_MAXV; j++) {
				if (j < nv) {
					facc[j] = fmaf(x, V[j * ldv + e], facc[j]);
				}
			}
		}
#pragma unroll
		for (int j = 0; j < DP_MAXV; j++) {
			dacc[j] += (double)facc[j];
		}
	}
	dp_store(red, dacc, part, nv);
}

PURSUIT_GLOBAL void dict_reduce(double *__restrict__ dst, const double *__restrict__ part,
                                long long rows, long long nchunks, long long nv)
{
	const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= rows * nv) {
		return;
	}
	const long long j = t / rows;
	const long long i = t % rows;
	double s = 0.0;
	for (long long c = 0; c < nchunks; c++) {
		s += part[(i * nchunks + c) * DP_MAXV + j];
	}
	dst[j * rows + i] = s;
}

// ---------------------------------------------------------------------------
// Rank-k update D += alpha * sum_t U_t V_tᵀ, U_t of length rows, V_t of length
// cols. Blocks of 32×8 threads; a grid-stride loop over rows keeps gridDim.y
// within its limit for tall matrices.
// ---------------------------------------------------------------------------

#define RU_BX 32
#define RU_BY 8

PURSUIT_GLOBAL void rank_update(float *__restrict__ D, long long ldd, long long rows, long long cols,
                                double alpha, const float *__restrict__ U, long long ldu,
                                const float *__restrict__ V, long long ldv, long long k)
{
	const long long j = (long long)blockIdx.x * RU_BX + threadIdx.x;
	if (j >= cols) {
		return;
	}
	const float a = (float)alpha;
	for (long long i = (long long)blockIdx.y * RU_BY + threadIdx.y; i < rows;
	     i += (long long)gridDim.y * RU_BY) {
		float s = 0.0f;
		for (long long t = 0; t < k; t++) {
			s = fmaf(U[t * ldu + i], V[t * ldv + j], s);
		}
		D[i * ldd + j] = fmaf(a, s, D[i * ldd + j]);
	}
}

// ---------------------------------------------------------------------------
// Float64 vectors kept on the device (backend.ResidentVectors): a fitter's
// residual, targets, chosen kernel rows and orthonormal basis, row-major with
// leading dimension ld (elements).
//
// vec_partial: the products of rows with nv <= 8 vectors V, in float64, as
// the first half of a dictionary pass: row i is row i of the float32 block D
// (taken exactly) when D is not null, else row i of the float64 matrix A;
// with V null, the squared norm of row i (nv = 1).
// Block (blockIdx.x = row i, blockIdx.y = chunk of columns); each thread
// accumulates in float64, the block reduces in float64 and writes
// part[(i*nchunks + chunk)*8 + j], which dict_reduce sums in a fixed order.
// ---------------------------------------------------------------------------

PURSUIT_GLOBAL void vec_partial(double *__restrict__ part, const float *__restrict__ D, long long ldd,
                                const double *__restrict__ A, long long lda,
                                const double *__restrict__ V, long long ldv,
                                long long rows, long long cols, long long nv, long long chunk)
{
	__shared__ double red[DP_MAXV][DP_THREADS];
	const int tid = threadIdx.x;
	const long long i = blockIdx.x;
	long long beg, end;
	dp_chunk(chunk, cols, &beg, &end);
	double acc[DP_MAXV];
#pragma unroll
	for (int j = 0; j < DP_MAXV; j++) {
		acc[j] = 0.0;
	}
	for (long long e = beg + tid; e < end; e += DP_THREADS) {
		const double x = D ? (double)D[i * ldd + e] : A[i * lda + e];
#pragma unroll
		for (int j = 0; j < DP_MAXV; j++) {
			if (j < nv) {
				acc[j] = fma(x, V ? V[j * ldv + e] : x, acc[j]);
			}
		}
	}
	dp_store(red, acc, part, nv);
}

// vec_combine: Y <- beta*Y + sum_t coef[t]*A_t over n rows of A (beta == 0
// ignores Y, which may hold anything). Y may be one of the A rows: each
// element is read and written by one thread, so no pointer is restrict.
// Grid-stride over the elements.

#define VC_THREADS 256

PURSUIT_GLOBAL void vec_combine(double *Y, double beta, const double *coef, const double *A, long long lda,
                                long long n, long long cols)
{
	for (long long e = (long long)blockIdx.x * VC_THREADS + threadIdx.x; e < cols;
	     e += (long long)gridDim.x * VC_THREADS) {
		double s = beta != 0.0 ? beta * Y[e] : 0.0;
		for (long long t = 0; t < n; t++) {
			s = fma(coef[t], A[t * lda + e], s);
		}
		Y[e] = s;
	}
}

// block_row_f64: Y <- X converted to float64 (a kernel row of a resident
// block into a vector). Grid-stride.
PURSUIT_GLOBAL void block_row_f64(double *__restrict__ Y, const float *__restrict__ X, long long cols)
{
	for (long long e = (long long)blockIdx.x * VC_THREADS + threadIdx.x; e < cols;
	     e += (long long)gridDim.x * VC_THREADS) {
		Y[e] = (double)X[e];
	}
}

// sign_mismatch: the number of e with !(A[e]*B[e] > 0) (NaN counts), per
// block into part[blockIdx.x*8] as a double (exact below 2^53), for
// dict_reduce with one row, gridDim.x chunks and one vector.
PURSUIT_GLOBAL void sign_mismatch(double *__restrict__ part, const double *__restrict__ A,
                                  const double *__restrict__ B, long long n)
{
	__shared__ double red[VC_THREADS];
	const int tid = threadIdx.x;
	double cnt = 0.0;
	for (long long e = (long long)blockIdx.x * VC_THREADS + tid; e < n; e += (long long)gridDim.x * VC_THREADS) {
		if (!(A[e] * B[e] > 0.0)) {
			cnt += 1.0;
		}
	}
	red[tid] = cnt;
	__syncthreads();
	for (int h = VC_THREADS / 2; h > 0; h /= 2) {
		if (tid < h) {
			red[tid] += red[tid + h];
		}
		__syncthreads();
	}
	if (tid == 0) {
		part[(long long)blockIdx.x * DP_MAXV] = red[0];
	}
}

// ---------------------------------------------------------------------------
// Sparse operands (CSR rows: off[r]..off[r+1] index idx/val; idx are int32
// column numbers, strictly increasing within a row).
//
// One operand is streamed, the other densified: a kernel block with a
// sparse b streams b's rows against batches of rows of a (dense or sparse),
// one with a dense b streams the sparse a's rows against batches of b's
// rows. A batch of G rows is densified transposed, T[c*ldt + t] = row t's
// value at column c (zero where the row has none), so that the 32 lanes of
// a warp, one batch row each, read one 128-byte line of T per streamed
// non-zero. csr_kernel gives each warp one streamed row at a time: every
// lane walks the row's non-zeros in order (the same index and value for all
// lanes, one broadcast load each) and accumulates with one fmaf per
// non-zero, so that each value is the sum of the streamed row's products
// in the order of its non-zeros, whatever the batch or the grid: a kernel
// row has the same bits in every gather that contains it.
// ---------------------------------------------------------------------------

// csr_kernel: blocks of SK_THREADS threads (SK_WARPS warps) take SK_ROWS
// streamed rows × SK_COLS batch rows (one per lane). dense_densify_t: tiles
// of TR_TILE×TR_TILE, blocks of TR_TILE×TR_BY threads.
#define SK_ROWS 32
#define SK_COLS 32
#define SK_THREADS 256
#define SK_WARPS 8
#define TR_TILE 32
#define TR_BY 8

// csr_kernel computes the kernel values of streamed rows s < S (row
// sel[s], or s when sel is null) with batch rows t < G (columns of T) and
// stores them at C[s*ldc + t] (trans == 0: the streamed operand is a) or
// C[t*ldc + s] (trans == 1: it is b), through a shared tile so that both
// stores are coalesced. sn and tn are the squared norms of the streamed and
// batch rows (read for RBF only). Grid: (ceil(S/32), ceil(G/32)).
PURSUIT_GLOBAL void csr_kernel(float *__restrict__ C, long long ldc, long long trans,
                               const long long *__restrict__ off, const int *__restrict__ idx,
                               const float *__restrict__ val, const long long *__restrict__ sel, long long S,
                               const float *__restrict__ T, long long ldt, long long G,
                               const float *__restrict__ sn, const float *__restrict__ tn,
                               long long kind, double gamma, double coef0, long long degree)
{
	__shared__ float tile[SK_ROWS][SK_COLS + 1];
	const int lane = threadIdx.x % 32;
	const int warp = threadIdx.x / 32;
	const long long s0 = (long long)blockIdx.x * SK_ROWS;
	const long long t0 = (long long)blockIdx.y * SK_COLS;
	const long long t = t0 + lane;
	const bool tin = t < G;
	const float g = (float)gamma;
	const float c0 = (float)coef0;
	const float tnv = (kind == 3 && tin) ? tn[t] : 0.0f;
	for (int q = warp; q < SK_ROWS; q += SK_WARPS) {
		const long long s = s0 + q;
		float v = 0.0f;
		if (s < S && tin) {
			const long long r = sel ? sel[s] : s;
			const long long end = off[r + 1];
			float acc = 0.0f;
#pragma unroll 4
			for (long long p = off[r]; p < end; p++) {
				acc = fmaf(val[p], T[(long long)idx[p] * ldt + t], acc);
			}
			v = kb_transform(acc, kind == 3 ? sn[s] : 0.0f, tnv, kind, g, c0, degree);
		}
		tile[q][lane] = v;
	}
	__syncthreads();
	for (int q = warp; q < SK_ROWS; q += SK_WARPS) {
		if (trans == 0) { // tile row q is streamed row s0+q, lane the batch row
			const long long s = s0 + q;
			if (s < S && tin) {
				C[s * ldc + t] = tile[q][lane];
			}
		} else { // lane is streamed row s0+lane, q the batch row
			const long long s = s0 + lane;
			const long long tt = t0 + q;
			if (s < S && tt < G) {
				C[tt * ldc + s] = tile[lane][q];
			}
		}
	}
}

// csr_sq_norms: out[i] = ||row i||^2 for i < n (row sel[i], or i when sel
// is null), 8 rows per block of 256 threads, a fixed tree reduction within
// each group of 32 (the same bits for a row in every call).
PURSUIT_GLOBAL void csr_sq_norms(float *__restrict__ out, const long long *__restrict__ off,
                                 const float *__restrict__ val, const long long *__restrict__ sel, long long n)
{
	__shared__ float red[SN_THREADS];
	const int tid = threadIdx.x;
	const int lane = tid % SN_GROUP;
	const long long i = (long long)blockIdx.x * (SN_THREADS / SN_GROUP) + tid / SN_GROUP;
	float s = 0.0f;
	if (i < n) {
		const long long r = sel ? sel[i] : i;
		const long long end = off[r + 1];
		for (long long p = off[r] + lane; p < end; p += SN_GROUP) {
			s = fmaf(val[p], val[p], s);
		}
	}
	red[tid] = s;
	__syncthreads();
	for (int h = SN_GROUP / 2; h > 0; h /= 2) {
		if (lane < h) {
			red[tid] += red[tid + h];
		}
		__syncthreads();
	}
	if (lane == 0 && i < n) {
		out[i] = red[tid];
	}
}

// csr_densify_t scatters n sparse rows (row sel[t], or t when sel is
// null) transposed into T, which must be zero: T[idx[p]*ldt + t] = val[p].
// 8 rows per block of 256 threads, 32 threads per row.
PURSUIT_GLOBAL void csr_densify_t(float *__restrict__ T, long long ldt, const long long *__restrict__ off,
                                  const int *__restrict__ idx, const float *__restrict__ val,
                                  const long long *__restrict__ sel, long long n)
{
	const int lane = threadIdx.x % SN_GROUP;
	const long long t = (long long)blockIdx.x * (SN_THREADS / SN_GROUP) + threadIdx.x / SN_GROUP;
	if (t >= n) {
		return;
	}
	const long long r = sel ? sel[t] : t;
	const long long end = off[r + 1];
	for (long long p = off[r] + lane; p < end; p += SN_GROUP) {
		T[(long long)idx[p] * ldt + t] = val[p];
	}
}

// dense_densify_t transposes n dense rows of d columns: T[c*ldt + t] =
// X[t*ldx + c], through a shared TR_TILE×TR_TILE tile. Blocks of 32×8,
// grid (ceil(d/32), ceil(n/32)).
PURSUIT_GLOBAL void dense_densify_t(float *__restrict__ T, long long ldt, const float *__restrict__ X,
                                    long long ldx, long long n, long long d)
{
	__shared__ float tile[TR_TILE][TR_TILE + 1];
	const long long c0 = (long long)blockIdx.x * TR_TILE;
	const long long t0 = (long long)blockIdx.y * TR_TILE;
	for (int q = threadIdx.y; q < TR_TILE; q += TR_BY) {
		const long long t = t0 + q, c = c0 + threadIdx.x;
		tile[q][threadIdx.x] = (t < n && c < d) ? X[t * ldx + c] : 0.0f;
	}
	__syncthreads();
	for (int q = threadIdx.y; q < TR_TILE; q += TR_BY) {
		const long long c = c0 + q, t = t0 + threadIdx.x;
		if (c < d && t < n) {
			T[c * ldt + t] = tile[threadIdx.x][q];
		}
	}
}

// fill_zero: X[e] = 0 for e < n. Grid-stride.
PURSUIT_GLOBAL void fill_zero(float *__restrict__ X, long long n)
{
	for (long long e = (long long)blockIdx.x * VC_THREADS + threadIdx.x; e < n;
	     e += (long long)gridDim.x * VC_THREADS) {
		X[e] = 0.0f;
	}
}

// ---------------------------------------------------------------------------
// smo_sub: the batched SVM solver's subproblem (svm.solveSubproblem), the
// whole inner SMO in one launch of one block.
//
// m variables with the m×m kernel block kb (row-major, float64), labels y
// (±1), bounds c, gradient g and α a (both updated in place). Each step
// picks i = the last variable of I_up with the largest −y_i g_i and j = the
// last of I_low with the smallest −diff²/quad (Fan, Chen & Lin's second
// order rule, quad clamped at SUB_TAU), takes LIBSVM's clipped pair step and
// updates g; it stops when the violation falls below tol = max(eps, gap₀/10)
// (gap₀ the violation before the first step), when no pair is left, or after
// limit steps. out[0] receives the number of steps taken. Every operation is
// the host's, in its order and rounding (no contraction into FMAs), so the
// result is the host's bit for bit.
// ---------------------------------------------------------------------------

#define SUB_THREADS 256
#define SUB_TAU 1e-12

// sub_better reports whether candidate (v, i) beats (w, j) when the larger
// value wins and, between equal values, the larger index (the host's scans
// keep the last variable attaining the extreme).
__device__ __forceinline__ bool sub_better(double v, long long i, double w, long long j)
{
	return v > w || (v == w && i > j);
}

PURSUIT_GLOBAL void smo_sub(double *__restrict__ g, double *__restrict__ a, double *__restrict__ out,
                            const double *__restrict__ kb, const double *__restrict__ y,
                            const double *__restrict__ c, long long m, double eps, long long limit)
{
	__shared__ double rv[SUB_THREADS];
	__shared__ long long ri[SUB_THREADS];
	__shared__ double rv2[SUB_THREADS];
	__shared__ double s_wi, s_wj, s_tol;
	__shared__ long long s_i, s_j, s_done;
	const int tid = threadIdx.x;
	long long steps = 0;
	for (long long step = 0;; step++) {
		// i: the largest −y g over I_up (ties: the last index).
		double bv = -INFINITY;
		long long bi = -1;
		for (long long t = tid; t < m; t += SUB_THREADS) {
			const bool up = y[t] > 0.0 ? a[t] < c[t] : a[t] > 0.0;
			if (up) {
				const double v = -y[t] * g[t];
				if (v >= bv) {
					bv = v;
					bi = t;
				}
			}
		}
		rv[tid] = bv;
		ri[tid] = bi;
		__syncthreads();
		for (int h = SUB_THREADS / 2; h > 0; h /= 2) {
			if (tid < h && sub_better(rv[tid + h], ri[tid + h], rv[tid], ri[tid])) {
				rv[tid] = rv[tid + h];
				ri[tid] = ri[tid + h];
			}
			__syncthreads();
		}
		const double gmax = rv[0];
		const long long imax = ri[0];
		__syncthreads();
		// j: the smallest −diff²/quad over I_low (ties: the last index),
		// and the largest y g over I_low.
		double bo = INFINITY, bg = -INFINITY;
		long long bj = -1;
		for (long long t = tid; t < m; t += SUB_THREADS) {
			const bool low = y[t] > 0.0 ? a[t] > 0.0 : a[t] < c[t];
			if (!low) {
				continue;
			}
			const double yg = y[t] * g[t];
			if (yg >= bg) {
				bg = yg;
			}
			if (imax < 0) {
				continue;
			}
			const double diff = gmax + yg;
			if (diff > 0.0) {
				double quad = __dadd_rn(__dadd_rn(kb[imax * m + imax], kb[t * m + t]), -__dmul_rn(2.0, kb[imax * m + t]));
				if (quad <= 0.0) {
					quad = SUB_TAU;
				}
				const double o = __dmul_rn(-diff, diff) / quad;
				if (o <= bo) {
					bo = o;
					bj = t;
				}
			}
		}
		rv[tid] = -bo; // the smallest o is the largest −o
		ri[tid] = bj;
		rv2[tid] = bg;
		__syncthreads();
		for (int h = SUB_THREADS / 2; h > 0; h /= 2) {
			if (tid < h) {
				if (sub_better(rv[tid + h], ri[tid + h], rv[tid], ri[tid])) {
					rv[tid] = rv[tid + h];
					ri[tid] = ri[tid + h];
				}
				if (rv2[tid + h] > rv2[tid]) {
					rv2[tid] = rv2[tid + h];
				}
			}
			__syncthreads();
		}
		if (tid == 0) {
			const long long jmin = ri[0];
			const double gap = gmax + rv2[0];
			if (step == 0) {
				s_tol = eps > gap / 10.0 ? eps : gap / 10.0;
			}
			s_done = steps >= limit || imax < 0 || jmin < 0 || gap < s_tol;
			if (!s_done) {
				const long long i = imax, j = jmin;
				const double yi = y[i], yj = y[j], gi = g[i], gj = g[j], ci = c[i], cj = c[j];
				const double oldI = a[i], oldJ = a[j];
				double ai = oldI, aj = oldJ;
				double quad = __dadd_rn(__dadd_rn(kb[i * m + i], kb[j * m + j]), -__dmul_rn(2.0, kb[i * m + j]));
				if (quad <= 0.0) {
					quad = SUB_TAU;
				}
				if (yi != yj) {
					const double delta = (-gi - gj) / quad;
					const double diff = ai - aj;
					ai += delta;
					aj += delta;
					if (diff > 0.0) {
						if (aj < 0.0) {
							aj = 0.0;
							ai = diff;
						}
					} else if (ai < 0.0) {
						ai = 0.0;
						aj = -diff;
					}
					if (diff > ci - cj) {
						if (ai > ci) {
							ai = ci;
							aj = ci - diff;
						}
					} else if (aj > cj) {
						aj = cj;
						ai = cj + diff;
					}
				} else {
					const double delta = (gi - gj) / quad;
					const double sum = ai + aj;
					ai -= delta;
					aj += delta;
					if (sum > ci) {
						if (ai > ci) {
							ai = ci;
							aj = sum - ci;
						}
					} else if (aj < 0.0) {
						aj = 0.0;
						ai = sum;
					}
					if (sum > cj) {
						if (aj > cj) {
							aj = cj;
							ai = sum - cj;
						}
					} else if (ai < 0.0) {
						ai = 0.0;
						aj = sum;
					}
				}
				a[i] = ai;
				a[j] = aj;
				s_i = i;
				s_j = j;
				s_wi = yi * (ai - oldI);
				s_wj = yj * (aj - oldJ);
			}
		}
		__syncthreads();
		if (s_done) {
			break;
		}
		const double wi = s_wi, wj = s_wj;
		const double *ri_ = kb + s_i * m, *rj_ = kb + s_j * m;
		for (long long t = tid; t < m; t += SUB_THREADS) {
			g[t] = __dadd_rn(g[t], __dmul_rn(y[t], __dadd_rn(__dmul_rn(wi, ri_[t]), __dmul_rn(wj, rj_[t]))));
		}
		steps++;
		__syncthreads();
	}
	if (tid == 0) {
		out[0] = (double)steps;
	}
}

// ---------------------------------------------------------------------------
// The batched SVM solver's kernel rows kept on the device (svm's device pool,
// backend.SVMDevice): rows of length n in a pool P (row s at P + s*n), float32
// as the kernel blocks write them.
// ---------------------------------------------------------------------------

#define SVB_TILE 16

// svm_block: the subproblem's m×m block in float64 from the pool, the upper
// triangle from the rows and mirrored, as the host builds it:
// kb[i][j] = kb[j][i] = P[slot[i]][key[j]] for j ≥ i. A 2-D grid of 16×16
// tiles.
PURSUIT_GLOBAL void svm_block(double *__restrict__ kb, const float *__restrict__ P, long long n,
                              const long long *__restrict__ slot, const long long *__restrict__ key, long long m)
{
	const long long i = (long long)blockIdx.y * SVB_TILE + threadIdx.y;
	const long long j = (long long)blockIdx.x * SVB_TILE + threadIdx.x;
	if (i < m && j < m && j >= i) {
		const double v = (double)P[slot[i] * n + key[j]];
		kb[i * m + j] = v;
		kb[j * m + i] = v;
	}
}

#define SVU_THREADS 256

// svm_update: the gradient update of every variable t < nv from the working
// set's rows, in the host's order and rounding (backend.SMOAddScaledRef for
// each row in turn): g[t] += (w[r]*y[t]) * P[slot[r]][k(t)] for r = 0 … m−1,
// k(t) = kidx[t], or t when kidx is null. Grid-stride.
PURSUIT_GLOBAL void svm_update(double *__restrict__ g, const double *__restrict__ y, const float *__restrict__ P,
                               long long n, const long long *__restrict__ slot, const double *__restrict__ w,
                               long long m, const long long *__restrict__ kidx, long long nv)
{
	for (long long t = (long long)blockIdx.x * SVU_THREADS + threadIdx.x; t < nv;
	     t += (long long)gridDim.x * SVU_THREADS) {
		const long long k = kidx ? kidx[t] : t;
		double acc = g[t];
		for (long long r = 0; r < m; r++) {
			acc = __dadd_rn(acc, __dmul_rn(__dmul_rn(w[r], y[t]), (double)P[slot[r] * n + k]));
		}
		g[t] = acc;
	}
}
