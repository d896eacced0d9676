// emu_test.cpp — runs every kernel of ../kernels.cu under the CPU emulation
// of emu.h and compares it with a straightforward float64 reference, on
// awkward sizes (1, primes, non-multiples of the tile sizes), padded leading
// dimensions, gathered rows and several grid shapes. Built and run by
// scripts/cuda-check.sh:
//
//   g++ -std=c++20 -O1 -o emu_test emu_test.cpp && ./emu_test
//
// It prints one line per case and "N passed, N failed" at the end; the exit
// status is non-zero when a case fails.
#include "emu.h"

#include "../kernels.cu"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

static int passed, failed;

static void report(bool ok, const std::string &what, const std::string &detail)
{
	if (ok) {
		passed++;
		std::printf("ok   %s\n", what.c_str());
	} else {
		failed++;
		std::printf("FAIL %s: %s\n", what.c_str(), detail.c_str());
	}
}

static std::mt19937_64 rng(20261122);

static std::vector<float> randv(size_t n, float lo = -1.0f, float hi = 1.0f)
{
	std::uniform_real_distribution<float> u(lo, hi);
	std::vector<float> v(n);
	for (auto &x : v) {
		x = u(rng);
	}
	return v;
}

// ---- kernel_block --------------------------------------------------------

static double ref_kernel(long long kind, double dot, double an, double bn, double g, double c0, long long deg)
{
	switch (kind) {
	case 2:
		return std::pow(g * dot + c0, (double)deg);
	case 3:
		return std::exp(-g * std::max(an + bn - 2 * dot, 0.0));
	case 4:
		return std::tanh(g * dot + c0);
	}
	return dot;
}

static void test_kernel_block(long long M, long long N, long long K, long long kind, bool gather)
{
	const long long lda = K + 3, ldb = K + 1, ldc = N + 5;
	const long long arows = gather ? M + 11 : M;
	auto A = randv(arows * lda), B = randv(N * ldb);
	std::vector<long long> idx;
	if (gather) {
		std::uniform_int_distribution<long long> u(0, arows - 1);
		for (long long i = 0; i < M; i++) {
			idx.push_back(u(rng));
		}
	}
	std::vector<float> an(arows), bn(N);
	for (long long i = 0; i < arows; i++) {
		double s = 0;
		for (long long k = 0; k < K; k++) {
			s += (double)A[i * lda + k] * A[i * lda + k];
		}
		an[i] = (float)s;
	}
	for (long long j = 0; j < N; j++) {
		double s = 0;
		for (long long k = 0; k < K; k++) {
			s += (double)B[j * ldb + k] * B[j * ldb + k];
		}
		bn[j] = (float)s;
	}
	const float sentinel = -12345.0f;
	std::vector<float> C(M * ldc, sentinel);
	const double g = kind == 3 ? 1.0 / (double)(K + 1) : 0.5, c0 = 0.25;
	const long long deg = 3;
	dim3 grid((unsigned)((N + KB_BN - 1) / KB_BN), (unsigned)((M + KB_BM - 1) / KB_BM));
	emu_launch(grid, dim3(KB_THREADS), [&] {
		kernel_block(C.data(), ldc, A.data(), lda, gather ? idx.data() : nullptr, an.data(), B.data(), ldb,
		             bn.data(), M, N, K, kind, g, c0, deg);
	});
	double worst = 0;
	std::string detail;
	bool ok = true;
	for (long long i = 0; i < M && ok; i++) {
		const long long ai = gather ? idx[i] : i;
		for (long long j = 0; j < ldc; j++) {
			if (j >= N) {
				if (C[i * ldc + j] != sentinel) {
					ok = false;
					detail = "wrote outside the block at (" + std::to_string(i) + "," + std::to_string(j) + ")";
				}
				continue;
			}
			double dot = 0;
			for (long long k = 0; k < K; k++) {
				dot += (double)A[ai * lda + k] * B[j * ldb + k];
			}
			const double want = ref_kernel(kind, dot, an[ai], bn[j], g, c0, deg);
			const double err = std::fabs(C[i * ldc + j] - want) / (1 + std::fabs(want));
			worst = std::max(worst, err);
			if (!(err <= 2e-5 * std::sqrt((double)K + 1) * (kind == 2 ? deg : 1))) {
				ok = false;
				detail = "at (" + std::to_string(i) + "," + std::to_string(j) + ") got " +
				         std::to_string(C[i * ldc + j]) + " want " + std::to_string(want);
				break;
			}
		}
	}
	report(ok, "kernel_block M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K) +
	               " kind=" + std::to_string(kind) + (gather ? " gather" : "") +
	               " (worst rel err " + std::to_string(worst) + ")",
	       detail);
}

// ---- sq_norms ------------------------------------------------------------

static void test_sq_norms(long long rows, long long cols)
{
	const long long ld = cols + 2;
	auto X = randv(rows * ld);
	std::vector<float> out(rows + 1, -1.0f);
	const unsigned per = SN_THREADS / SN_GROUP;
	emu_launch(dim3((unsigned)((rows + per - 1) / per)), dim3(SN_THREADS),
	           [&] { sq_norms(out.data(), X.data(), ld, rows, cols); });
	bool ok = out[rows] == -1.0f;
	std::string detail = ok ? "" : "wrote past the end";
	for (long long i = 0; i < rows && ok; i++) {
		double s = 0;
		for (long long j = 0; j < cols; j++) {
			s += (double)X[i * ld + j] * X[i * ld + j];
		}
		if (!(std::fabs(out[i] - s) <= 1e-5 * (1 + s))) {
			ok = false;
			detail = "row " + std::to_string(i) + " got " + std::to_string(out[i]) + " want " + std::to_string(s);
		}
	}
	report(ok, "sq_norms rows=" + std::to_string(rows) + " cols=" + std::to_string(cols), detail);
}

// ---- sparse operands: csr_sq_norms, csr_densify_t, dense_densify_t,
// fill_zero and csr_kernel ----------------------------------------------------

// A CSR matrix with rows of every kind (empty, one non-zero, random, only
// the last columns, only the first ones) and a guard row of NaN before
// and after (off[0] > 0: the kernels must follow the offsets only).
struct csr {
	long long rows = 0, cols = 0;
	std::vector<long long> off;
	std::vector<int> idx;
	std::vector<float> val;
	std::vector<double> dense; // rows × cols
};

static csr rand_csr(long long rows, long long cols, int shift)
{
	csr m;
	m.rows = rows;
	m.cols = cols;
	m.dense.assign(rows * cols, 0.0);
	std::uniform_real_distribution<double> u(0, 1);
	auto guard = [&] {
		for (long long c = 0; c < std::min(cols, 3LL); c++) {
			m.idx.push_back((int)c);
			m.val.push_back(NAN);
		}
	};
	guard();
	for (long long i = 0; i < rows; i++) {
		m.off.push_back((long long)m.idx.size());
		const int kind = (int)((i + shift) % 5);
		const long long one = cols > 0 ? (long long)(u(rng) * cols) % cols : 0;
		for (long long c = 0; c < cols; c++) {
			bool keep = false;
			switch (kind) {
			case 1: keep = c == one; break;
			case 2: keep = u(rng) < 0.3; break;
			case 3: keep = 4 * c >= 3 * cols && u(rng) < 0.7; break;
			case 4: keep = 4 * c < cols && u(rng) < 0.7; break;
			}
			if (keep) {
				const float v = (float)(2 * u(rng) - 1);
				m.idx.push_back((int)c);
				m.val.push_back(v);
				m.dense[i * cols + c] = v;
			}
		}
	}
	m.off.push_back((long long)m.idx.size());
	guard();
	return m;
}

static void test_csr_sq_norms(long long rows, long long cols, bool gather)
{
	csr m = rand_csr(rows + 3, cols, 1);
	std::vector<long long> sel;
	const long long n = gather ? 2 * rows + 1 : rows + 3;
	for (long long t = 0; t < n; t++) {
		sel.push_back(gather ? (t * 7 + 2) % (rows + 3) : t);
	}
	std::vector<float> out(n + 1, -1.0f);
	const unsigned per = SN_THREADS / SN_GROUP;
	emu_launch(dim3((unsigned)((n + per - 1) / per)), dim3(SN_THREADS), [&] {
		csr_sq_norms(out.data(), m.off.data(), m.val.data(), gather ? sel.data() : nullptr, n);
	});
	bool ok = out[n] == -1.0f;
	std::string detail = ok ? "" : "wrote past the end";
	for (long long t = 0; t < n && ok; t++) {
		double s = 0;
		for (long long c = 0; c < cols; c++) {
			s += m.dense[sel[t] * cols + c] * m.dense[sel[t] * cols + c];
		}
		if (!(std::fabs(out[t] - s) <= 1e-5 * (1 + s))) {
			ok = false;
			detail = "row " + std::to_string(t) + " got " + std::to_string(out[t]) + " want " + std::to_string(s);
		}
	}
	report(ok, "csr_sq_norms rows=" + std::to_string(n) + " cols=" + std::to_string(cols) + (gather ? " gathered" : ""),
	       detail);
}

// densify_batch fills T (d × ldt) with batch rows sel (sparse m) or the
// dense rows X (n × d, ld d) transposed, through fill_zero and the
// densify kernels, and returns whether every element is right.
static bool densify_batch(std::vector<float> &T, long long ldt, const csr *m, const std::vector<long long> &sel,
                          const std::vector<float> &X, long long n, long long d)
{
	T.assign(d * ldt + 1, 7.0f);
	if (m) {
		emu_launch(dim3(3), dim3(VC_THREADS), [&] { fill_zero(T.data(), d * ldt); });
		const unsigned per = SN_THREADS / SN_GROUP;
		emu_launch(dim3((unsigned)((n + per - 1) / per)), dim3(SN_THREADS), [&] {
			csr_densify_t(T.data(), ldt, m->off.data(), m->idx.data(), m->val.data(), sel.data(), n);
		});
	} else if (d > 0) {
		emu_launch(dim3((unsigned)((d + TR_TILE - 1) / TR_TILE), (unsigned)((n + TR_TILE - 1) / TR_TILE)),
		           dim3(TR_TILE, TR_BY), [&] { dense_densify_t(T.data(), ldt, X.data(), d, n, d); });
	}
	if (T[d * ldt] != 7.0f) {
		return false;
	}
	for (long long c = 0; c < d; c++) {
		for (long long t = 0; t < n; t++) {
			const double want = m ? m->dense[sel[t] * d + c] : X[t * d + c];
			if (T[c * ldt + t] != (float)want) {
				return false;
			}
		}
	}
	return true;
}

// test_csr_kernel: S streamed sparse rows (gathered by ssel when sgather)
// against G batch rows (sparse, gathered, or dense), both orientations of
// the output; values against float64, nothing written outside the block,
// and every value with the same bits when its batch row is computed alone.
static void test_csr_kernel(long long S, long long G, long long d, long long kind, long long trans, bool sgather,
                            bool sparseBatch)
{
	const std::string what = "csr_kernel S=" + std::to_string(S) + " G=" + std::to_string(G) + " d=" +
	                         std::to_string(d) + " kind=" + std::to_string(kind) + " trans=" + std::to_string(trans) +
	                         (sgather ? " gathered" : "") + (sparseBatch ? " sparse batch" : " dense batch");
	csr sm = rand_csr(S + 5, d, 0);
	std::vector<long long> ssel;
	for (long long s = 0; s < S; s++) {
		ssel.push_back(sgather ? (s * 3 + 1) % (S + 5) : s);
	}
	csr bm = rand_csr(G + 2, d, 2);
	std::vector<long long> tsel;
	for (long long t = 0; t < G; t++) {
		tsel.push_back((t * 5 + 3) % (G + 2));
	}
	auto X = randv(G * d);
	auto batch = [&](long long t, long long c) { return sparseBatch ? bm.dense[tsel[t] * d + c] : (double)X[t * d + c]; };
	auto stream = [&](long long s, long long c) { return sm.dense[ssel[s] * d + c]; };
	// norms
	std::vector<float> sn(S + 1), tn(G + 1);
	for (long long s = 0; s < S; s++) {
		double q = 0;
		for (long long c = 0; c < d; c++) {
			q += stream(s, c) * stream(s, c);
		}
		sn[s] = (float)q;
	}
	for (long long t = 0; t < G; t++) {
		double q = 0;
		for (long long c = 0; c < d; c++) {
			q += batch(t, c) * batch(t, c);
		}
		tn[t] = (float)q;
	}
	const long long ldt = (G + 31) / 32 * 32;
	std::vector<float> T;
	if (!densify_batch(T, ldt, sparseBatch ? &bm : nullptr, tsel, X, G, d)) {
		report(false, what, "densified batch wrong");
		return;
	}
	const long long rows = trans ? G : S, cols = trans ? S : G, ldc = cols + 3;
	const float sentinel = -12345.0f;
	std::vector<float> C(rows * ldc + 1, sentinel);
	const double g = kind == 3 ? 1.0 / (double)(d + 1) : 0.5, c0 = 0.25;
	const long long deg = 3;
	auto run = [&](float *out, long long ldo, const float *Tp, long long ldtp, long long Gp, const float *tnp) {
		emu_launch(dim3((unsigned)((S + SK_ROWS - 1) / SK_ROWS), (unsigned)((Gp + SK_COLS - 1) / SK_COLS)),
		           dim3(SK_THREADS), [&] {
			           csr_kernel(out, ldo, trans, sm.off.data(), sm.idx.data(), sm.val.data(),
			                      sgather ? ssel.data() : nullptr, S, Tp, ldtp, Gp, sn.data(), tnp, kind, g, c0, deg);
		           });
	};
	run(C.data(), ldc, T.data(), ldt, G, tn.data());
	bool ok = true;
	std::string detail;
	for (long long i = 0; i < rows && ok; i++) {
		for (long long j = 0; j < ldc; j++) {
			const float got = C[i * ldc + j];
			if (j >= cols) {
				if (got != sentinel) {
					ok = false;
					detail = "wrote outside the block at (" + std::to_string(i) + "," + std::to_string(j) + ")";
					break;
				}
				continue;
			}
			const long long s = trans ? j : i, t = trans ? i : j;
			double dot = 0, scale = 0;
			for (long long c = 0; c < d; c++) {
				dot += stream(s, c) * batch(t, c);
				scale += std::fabs(stream(s, c) * batch(t, c));
			}
			const double want = ref_kernel(kind, dot, sn[s], tn[t], g, c0, deg);
			const double err = std::fabs(got - want) / (1 + std::fabs(want));
			if (!(err <= 2e-5 * std::sqrt((double)d + 1) * (1 + scale) * (kind == 2 ? deg : 1))) {
				ok = false;
				detail = "at (" + std::to_string(i) + "," + std::to_string(j) + ") got " + std::to_string(got) +
				         " want " + std::to_string(want);
				break;
			}
		}
	}
	ok = ok && C[rows * ldc] == sentinel;
	// Each batch row alone (G = 1, its own one-column T): the same bits.
	for (long long t = 0; t < G && ok; t += std::max(1LL, G / 5)) {
		std::vector<float> T1(std::max(d, 1LL) * 32, 0.0f);
		for (long long c = 0; c < d; c++) {
			T1[c * 32] = T[c * ldt + t];
		}
		const long long ldo = trans ? S : 1;
		std::vector<float> one(std::max(S, 1LL), sentinel);
		run(one.data(), ldo, T1.data(), 32, 1, tn.data() + t);
		for (long long s = 0; s < S; s++) {
			const float a = trans ? C[t * ldc + s] : C[s * ldc + t];
			if (std::memcmp(&a, &one[s], 4) != 0) {
				ok = false;
				detail = "batch row " + std::to_string(t) + " alone differs at streamed row " + std::to_string(s);
				break;
			}
		}
	}
	report(ok, what, detail);
}

// ---- dict_partial + dict_reduce -------------------------------------------

static void test_dict(long long rows, long long cols, long long nv, long long nchunks)
{
	const long long ldd = cols + 1, ldv = cols + 7;
	auto D = randv(rows * ldd), V = randv(nv * ldv);
	const long long chunk = (cols + nchunks - 1) / nchunks;
	nchunks = cols == 0 ? 1 : (cols + chunk - 1) / chunk;
	std::vector<double> part(rows * nchunks * DP_MAXV, 0.0), dst(rows * nv + 1, -7.0);
	emu_launch(dim3((unsigned)rows, (unsigned)nchunks), dim3(DP_THREADS), [&] {
		dict_partial(part.data(), D.data(), ldd, V.data(), ldv, rows, cols, nv, chunk == 0 ? 1 : chunk);
	});
	const unsigned rb = 128;
	emu_launch(dim3((unsigned)((rows * nv + rb - 1) / rb)), dim3(rb),
	           [&] { dict_reduce(dst.data(), part.data(), rows, nchunks, nv); });
	bool ok = dst[rows * nv] == -7.0;
	std::string detail = ok ? "" : "wrote past the end";
	for (long long j = 0; j < nv && ok; j++) {
		for (long long i = 0; i < rows; i++) {
			double s = 0, sa = 0;
			for (long long e = 0; e < cols; e++) {
				s += (double)D[i * ldd + e] * V[j * ldv + e];
				sa += std::fabs((double)D[i * ldd + e] * V[j * ldv + e]);
			}
			if (!(std::fabs(dst[j * rows + i] - s) <= 1e-6 * (1 + sa))) {
				ok = false;
				detail = "(" + std::to_string(j) + "," + std::to_string(i) + ") got " +
				         std::to_string(dst[j * rows + i]) + " want " + std::to_string(s);
				break;
			}
		}
	}
	report(ok, "dict_products rows=" + std::to_string(rows) + " cols=" + std::to_string(cols) +
	               " nv=" + std::to_string(nv) + " chunks=" + std::to_string(nchunks),
	       detail);
}

// ---- rank_update -----------------------------------------------------------

static void test_rank_update(long long rows, long long cols, long long k, unsigned gridY)
{
	const long long ldd = cols + 3, ldu = rows + 2, ldv = cols + 1;
	auto D = randv(rows * ldd), U = randv(k * ldu), V = randv(k * ldv);
	auto D0 = D;
	const double alpha = -0.75;
	emu_launch(dim3((unsigned)((cols + RU_BX - 1) / RU_BX), gridY), dim3(RU_BX, RU_BY), [&] {
		rank_update(D.data(), ldd, rows, cols, alpha, U.data(), ldu, V.data(), ldv, k);
	});
	bool ok = true;
	std::string detail;
	for (long long i = 0; i < rows && ok; i++) {
		for (long long j = 0; j < ldd; j++) {
			if (j >= cols) {
				if (D[i * ldd + j] != D0[i * ldd + j]) {
					ok = false;
					detail = "changed padding";
				}
				continue;
			}
			double s = 0;
			for (long long t = 0; t < k; t++) {
				s += (double)U[t * ldu + i] * V[t * ldv + j];
			}
			const double want = D0[i * ldd + j] + alpha * s;
			if (!(std::fabs(D[i * ldd + j] - want) <= 1e-5 * (1 + std::fabs(want) + k))) {
				ok = false;
				detail = "(" + std::to_string(i) + "," + std::to_string(j) + ") got " +
				         std::to_string(D[i * ldd + j]) + " want " + std::to_string(want);
				break;
			}
		}
	}
	report(ok, "rank_update rows=" + std::to_string(rows) + " cols=" + std::to_string(cols) +
	               " k=" + std::to_string(k) + " gridY=" + std::to_string(gridY),
	       detail);
}

// ---- float64 vectors: vec_partial (+ dict_reduce), vec_combine,
// block_row_f64, sign_mismatch ---------------------------------------------

static std::vector<double> randd(size_t n)
{
	std::normal_distribution<double> g;
	std::vector<double> v(n);
	for (auto &x : v) {
		x = g(rng);
	}
	return v;
}

static void test_vec_products(long long rows, long long cols, long long nv, long long nchunks, bool block, bool self = false)
{
	const long long ld = cols + 3, ldv = cols + 5;
	auto D = randv(rows * ld);
	auto A = randd(rows * ld), V = randd(nv * ldv);
	const long long chunk = cols == 0 ? 1 : (cols + nchunks - 1) / nchunks;
	nchunks = cols == 0 ? 1 : (cols + chunk - 1) / chunk;
	std::vector<double> part(rows * nchunks * DP_MAXV, 0.0), dst(rows * nv + 1, -7.0);
	emu_launch(dim3((unsigned)rows, (unsigned)nchunks), dim3(DP_THREADS), [&] {
		vec_partial(part.data(), block ? D.data() : nullptr, ld, block ? nullptr : A.data(), ld,
		            self ? nullptr : V.data(), ldv, rows, cols, nv, chunk);
	});
	emu_launch(dim3((unsigned)((rows * nv + 127) / 128)), dim3(128),
	           [&] { dict_reduce(dst.data(), part.data(), rows, nchunks, nv); });
	bool ok = dst[rows * nv] == -7.0;
	std::string detail = ok ? "" : "wrote past the end";
	for (long long j = 0; j < nv && ok; j++) {
		for (long long i = 0; i < rows; i++) {
			double s = 0, sa = 0;
			for (long long e = 0; e < cols; e++) {
				const double x = block ? (double)D[i * ld + e] : A[i * ld + e];
				const double v = self ? x : V[j * ldv + e];
				s += x * v;
				sa += std::fabs(x * v);
			}
			// float64 sums in another order: within cols roundings.
			if (!(std::fabs(dst[j * rows + i] - s) <= (4.0 * cols + 16) * 0x1p-52 * (1 + sa))) {
				ok = false;
				detail = "(" + std::to_string(j) + "," + std::to_string(i) + ") got " +
				         std::to_string(dst[j * rows + i]) + " want " + std::to_string(s);
				break;
			}
		}
	}
	report(ok, std::string("vec_products ") + (block ? "block" : "float64") + (self ? " norms" : "") + " rows=" + std::to_string(rows) +
	               " cols=" + std::to_string(cols) + " nv=" + std::to_string(nv) + " chunks=" + std::to_string(nchunks),
	       detail);
}

static void test_vec_combine(long long n, long long cols, unsigned blocks, double beta, bool alias)
{
	const long long lda = cols + 2;
	auto A = randd((n + 1) * lda), coef = randd(n), Y = randd(cols);
	auto A0 = A;
	double *y = Y.data();
	if (alias) {
		y = A.data() + (n - 1) * lda; // y is the last of the combined rows
	}
	std::vector<double> y0(y, y + cols);
	if (beta == 0) {
		for (long long e = 0; e < cols; e++) {
			y[e] = std::nan("");
		}
	}
	emu_launch(dim3(blocks), dim3(VC_THREADS), [&] { vec_combine(y, beta, coef.data(), A.data(), lda, n, cols); });
	bool ok = true;
	std::string detail;
	for (long long e = 0; e < cols && ok; e++) {
		double want = beta != 0 ? beta * y0[e] : 0, mag = std::fabs(want);
		for (long long t = 0; t < n; t++) {
			const double a = alias && t == n - 1 ? (beta == 0 ? std::nan("") : y0[e]) : A0[t * lda + e];
			want += coef[t] * a;
			mag += std::fabs(coef[t] * a);
		}
		if (alias && beta == 0 && n > 0) {
			continue; // y's NaN is among the terms: only the others are checked
		}
		if (!(std::fabs(y[e] - want) <= 1e-14 * (1 + mag))) {
			ok = false;
			detail = "element " + std::to_string(e) + " got " + std::to_string(y[e]) + " want " + std::to_string(want);
		}
	}
	if (!alias && A != A0) {
		ok = false;
		detail = "changed A";
	}
	report(ok, "vec_combine n=" + std::to_string(n) + " cols=" + std::to_string(cols) + " blocks=" +
	               std::to_string(blocks) + " beta=" + std::to_string(beta) + (alias ? " aliased" : ""),
	       detail);
}

static void test_block_row(long long cols, unsigned blocks)
{
	auto X = randv(cols + 1);
	std::vector<double> Y(cols + 1, -7.0);
	emu_launch(dim3(blocks), dim3(VC_THREADS), [&] { block_row_f64(Y.data(), X.data(), cols); });
	bool ok = Y[cols] == -7.0;
	for (long long e = 0; e < cols && ok; e++) {
		ok = Y[e] == (double)X[e];
	}
	report(ok, "block_row_f64 cols=" + std::to_string(cols) + " blocks=" + std::to_string(blocks), "wrong values");
}

static void test_sign_mismatch(long long n, unsigned blocks)
{
	auto A = randd(n), B = randd(n);
	for (long long e = 0; e < n; e++) {
		if (e % 7 == 3) {
			B[e] = 0;
		}
		if (e % 11 == 5) {
			B[e] = std::nan("");
		}
	}
	std::vector<double> part(blocks * DP_MAXV, -1.0), dst(2, -7.0);
	emu_launch(dim3(blocks), dim3(VC_THREADS), [&] { sign_mismatch(part.data(), A.data(), B.data(), n); });
	emu_launch(dim3(1), dim3(128), [&] { dict_reduce(dst.data(), part.data(), 1, blocks, 1); });
	long long want = 0;
	for (long long e = 0; e < n; e++) {
		want += !(A[e] * B[e] > 0);
	}
	report(dst[0] == (double)want && dst[1] == -7.0,
	       "sign_mismatch n=" + std::to_string(n) + " blocks=" + std::to_string(blocks),
	       "got " + std::to_string(dst[0]) + " want " + std::to_string(want));
}

// smo_sub: the subproblem's properties, not the host's steps (the Go test
// TestSolveSubproblemOnDevice compares the bits with the host's): α stays in
// its box, Σ y α is kept, g equals g₀ + Q(α − α₀) recomputed here, and the
// run stops either at the step limit or with the violation below the
// tolerance max(eps, gap₀/10).
static double smo_sub_gap(long long m, const std::vector<double> &y, const std::vector<double> &c,
                          const std::vector<double> &g, const std::vector<double> &a)
{
	double up = -INFINITY, low = -INFINITY;
	for (long long t = 0; t < m; t++) {
		const bool inUp = y[t] > 0 ? a[t] < c[t] : a[t] > 0;
		const bool inLow = y[t] > 0 ? a[t] > 0 : a[t] < c[t];
		if (inUp) {
			up = std::max(up, -y[t] * g[t]);
		}
		if (inLow) {
			low = std::max(low, y[t] * g[t]);
		}
	}
	return up + low;
}

static void test_smo_sub(long long m, long long limit, unsigned seed)
{
	std::mt19937_64 rng(seed);
	std::uniform_real_distribution<double> u(0, 1);
	std::vector<double> x(m * 3), kb(m * m), y(m), c(m), g(m), a(m);
	for (auto &v : x) {
		v = u(rng);
	}
	for (long long i = 0; i < m; i++) {
		for (long long j = 0; j < m; j++) {
			double d = 0;
			for (int f = 0; f < 3; f++) {
				d += (x[i * 3 + f] - x[j * 3 + f]) * (x[i * 3 + f] - x[j * 3 + f]);
			}
			kb[i * m + j] = std::exp(-2 * d);
		}
		y[i] = u(rng) < 0.5 ? 1 : -1;
		c[i] = i % 5 == 0 ? 2.0 : 1.0;
		a[i] = i % 3 == 0 ? c[i] * u(rng) : 0;
	}
	// g = Q a − 1 at the starting α.
	for (long long i = 0; i < m; i++) {
		double s = -1;
		for (long long j = 0; j < m; j++) {
			s += y[i] * y[j] * kb[i * m + j] * a[j];
		}
		g[i] = s;
	}
	const auto a0 = a, g0 = g;
	const double eps = 1e-3, gap0 = smo_sub_gap(m, y, c, g, a);
	std::vector<double> out(1, -1);
	emu_launch(dim3(1), dim3(SUB_THREADS), [&] {
		smo_sub(g.data(), a.data(), out.data(), kb.data(), y.data(), c.data(), m, eps, limit);
	});
	double sum0 = 0, sum = 0, gerr = 0;
	bool box = true;
	for (long long i = 0; i < m; i++) {
		sum0 += y[i] * a0[i];
		sum += y[i] * a[i];
		box = box && a[i] >= 0 && a[i] <= c[i];
		double want = g0[i];
		for (long long j = 0; j < m; j++) {
			want += y[i] * y[j] * kb[i * m + j] * (a[j] - a0[j]);
		}
		gerr = std::max(gerr, std::fabs(g[i] - want));
	}
	const long long steps = (long long)out[0];
	const double gap = smo_sub_gap(m, y, c, g, a), tol = std::max(eps, gap0 / 10);
	const bool stopped = steps == limit || gap < tol;
	report(box && std::fabs(sum - sum0) < 1e-9 && gerr < 1e-9 && stopped && steps >= 0 && steps <= limit &&
	               (limit == 0 || m < 2 || steps > 0),
	       "smo_sub m=" + std::to_string(m) + " limit=" + std::to_string(limit),
	       "steps " + std::to_string(steps) + " gap " + std::to_string(gap) + " (tol " + std::to_string(tol) +
	               ") Σya moved " + std::to_string(sum - sum0) + " g error " + std::to_string(gerr) +
	               (box ? "" : " α out of its box"));
}

// svm_block and svm_update against plain loops: the block from a pool of
// rows (upper triangle, mirrored), and the gradient update row by row in the
// host's rounding ((w·y)·row, added in turn).
static void test_svm_pool(long long n, long long slots, long long m, bool kidx)
{
	std::mt19937_64 rng(7 + n + m);
	std::uniform_real_distribution<float> u(0, 1);
	std::vector<float> P(slots * n);
	for (auto &v : P) {
		v = u(rng);
	}
	std::vector<long long> slot(m), key(m);
	for (long long i = 0; i < m; i++) {
		slot[i] = (i * 7 + 3) % slots;
		key[i] = (i * 13 + 1) % n;
	}
	std::vector<double> kb(m * m, -1);
	const unsigned tiles = (unsigned)((m + SVB_TILE - 1) / SVB_TILE);
	emu_launch(dim3(tiles, tiles), dim3(SVB_TILE, SVB_TILE), [&] { svm_block(kb.data(), P.data(), n, slot.data(), key.data(), m); });
	bool ok = true;
	for (long long i = 0; i < m && ok; i++) {
		for (long long j = i; j < m && ok; j++) {
			const double v = (double)P[slot[i] * n + key[j]];
			ok = kb[i * m + j] == v && kb[j * m + i] == v;
		}
	}
	report(ok, "svm_block n=" + std::to_string(n) + " m=" + std::to_string(m), "wrong block");
	const long long nv = kidx ? 2 * n : n;
	std::vector<long long> ki(nv);
	std::vector<double> y(nv), g(nv), w(m);
	for (long long t = 0; t < nv; t++) {
		ki[t] = t % n;
		y[t] = t % 3 ? 1 : -1;
		g[t] = u(rng) - 0.5;
	}
	for (auto &v : w) {
		v = u(rng) - 0.5;
	}
	auto want = g;
	for (long long r = 0; r < m; r++) {
		for (long long t = 0; t < nv; t++) {
			want[t] += (w[r] * y[t]) * (double)P[slot[r] * n + (kidx ? ki[t] : t)];
		}
	}
	emu_launch(dim3(3), dim3(SVU_THREADS), [&] {
		svm_update(g.data(), y.data(), P.data(), n, slot.data(), w.data(), m, kidx ? ki.data() : nullptr, nv);
	});
	report(g == want, "svm_update n=" + std::to_string(n) + " m=" + std::to_string(m) + (kidx ? " kidx" : ""),
	       "wrong gradient");
}

// The emulator must reject a kernel in which some threads exit before a
// barrier the others wait at (undefined behaviour on a GPU).
static void bad_barrier_kernel(int *out)
{
	if (threadIdx.x == 0) {
		return;
	}
	__syncthreads();
	out[threadIdx.x] = 1;
}

static void test_emulator_detects_bad_barrier()
{
	std::vector<int> out(64);
	const int before = emu_errors;
	emu_quiet = true;
	const bool ok = emu_launch(dim3(1), dim3(64), [&] { bad_barrier_kernel(out.data()); });
	const bool detected = !ok && emu_errors == before + 1;
	emu_errors = before;
	emu_quiet = false;
	report(detected, "emulator rejects a barrier skipped by an exited thread", "not detected");
}

int main()
{
	test_emulator_detects_bad_barrier();

	for (long long kind = 1; kind <= 4; kind++) {
		test_kernel_block(1, 1, 1, kind, false);
		test_kernel_block(37, 131, 19, kind, false);
		test_kernel_block(131, 37, 8, kind, true);
	}
	test_kernel_block(129, 257, 33, 3, false);
	test_kernel_block(3, 200, 256, 3, true);
	test_kernel_block(5, 3, 0, 3, false);

	for (long long rows : {1LL, 7LL, 9LL, 33LL}) {
		for (long long cols : {0LL, 1LL, 31LL, 33LL, 257LL}) {
			test_sq_norms(rows, cols);
		}
	}

	test_dict(1, 1, 1, 1);
	test_dict(3, 1000, 2, 1);
	test_dict(5, 4099, 8, 3);
	test_dict(2, 9000, 5, 2);
	test_dict(7, 517, 3, 4);
	test_dict(4, 0, 2, 1);

	test_rank_update(1, 1, 1, 1);
	test_rank_update(37, 70, 1, 5);
	test_rank_update(37, 70, 3, 1);
	test_rank_update(9, 33, 8, 2);

	for (bool block : {true, false}) {
		test_vec_products(1, 1, 1, 1, block);
		test_vec_products(5, 4099, 8, 3, block);
		test_vec_products(7, 517, 3, 4, block);
		test_vec_products(4, 0, 2, 1, block);
		test_vec_products(6, 3001, 1, 2, block, true);
	}
	test_vec_combine(0, 100, 1, 0.5, false);
	test_vec_combine(1, 1, 1, 0, false);
	test_vec_combine(5, 1000, 3, 0.75, false);
	test_vec_combine(5, 1000, 3, 0, false);
	test_vec_combine(3, 777, 2, -1.25, true);
	test_vec_combine(3, 777, 2, 0, true);
	test_block_row(1, 1);
	test_block_row(1000, 3);
	test_sign_mismatch(1, 1);
	test_sign_mismatch(5003, 4);
	test_sign_mismatch(100, 7);
	test_smo_sub(1, 100, 1);
	test_smo_sub(64, 6400, 2);
	test_smo_sub(300, 30000, 3);
	test_smo_sub(300, 5, 4);
	test_smo_sub(700, 0, 5);
	test_svm_pool(1, 1, 1, false);
	test_svm_pool(1000, 40, 37, false);
	test_svm_pool(777, 64, 64, true);

	for (long long rows : {0LL, 1LL, 9LL, 40LL}) {
		for (long long cols : {0LL, 1LL, 33LL, 300LL}) {
			test_csr_sq_norms(rows, cols, false);
			test_csr_sq_norms(rows, cols, true);
		}
	}
	for (long long kind = 1; kind <= 4; kind++) {
		for (long long trans = 0; trans <= 1; trans++) {
			test_csr_kernel(1, 1, 1, kind, trans, false, true);
			test_csr_kernel(37, 45, 100, kind, trans, kind % 2 == 0, trans == 0);
			test_csr_kernel(70, 33, 257, kind, trans, trans == 1, kind % 2 == 1);
		}
	}
	test_csr_kernel(5, 3, 0, 3, 0, false, true);
	test_csr_kernel(5, 3, 0, 3, 1, false, false);
	test_csr_kernel(33, 70, 17, 3, 1, true, true);
	test_csr_kernel(100, 1, 1000, 3, 0, true, false);

	if (emu_errors > 0) {
		std::printf("FAIL %d launches broke the barrier rules\n", emu_errors);
		failed += emu_errors;
	}
	std::printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
