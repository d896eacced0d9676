// fakecuda.cpp — a stand-in libcuda.so.1 that runs Pursuit's kernels on the
// CPU, so that the -tags cuda test binary (the Go side: gorgonia.org/cu,
// argument passing, device memory management, every Backend and Resident
// method, the conformance suite and the end-to-end test) can run on a
// machine without a GPU. Built and used by scripts/cuda-check.sh:
//
//   g++ -std=c++20 -O1 -shared -fPIC -I<toolkit>/usr/include
//       -Wl,-soname,libcuda.so.1 -o libcuda.so.1 fakecuda.cpp stubs.cpp
//   LD_LIBRARY_PATH=<dir> ./cuda.test
//
// It implements the driver calls package cuda makes; "device" memory is host
// memory, kernels are the CUDA C of ../kernels.cu run under emu.h, and the
// PTX given to cuModuleLoadData is only checked for the kernels' entry
// points (it is never compiled). Every other driver entry point is a stub
// (stubs.cpp, generated from the test binary's undefined symbols) returning
// CUDA_ERROR_NOT_SUPPORTED. As a memory checker it poisons new allocations
// with 0xFF bytes (NaN as float), surrounds each with guard bytes checked
// after every launch and free, and rejects copies and kernel pointer
// arguments outside the allocations. FAKECUDA_MAX_ALLOC=N (bytes) makes any
// larger allocation fail as out of memory, for tests of what the Go side
// does then.
//
// What this does NOT test: the PTX itself (nvcc's code generation, the JIT),
// real concurrency (warps, the memory model), performance.
#include <cuda.h>

#include "emu.h"

#include "../kernels.cu"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace {

std::recursive_mutex mu;

const size_t kGuard = 4096;
const unsigned char kGuardByte = 0xA5;

struct allocation {
	char *base;
	size_t bytes;
};
std::map<uintptr_t, allocation> allocs; // keyed by base address

struct module {
	std::set<std::string> entries;
};
struct function {
	std::string name;
};
std::map<std::string, function> functions;
int contextToken;

// owner returns the allocation containing [p, p+n), or nullptr.
const allocation *owner(uintptr_t p, size_t n)
{
	auto it = allocs.upper_bound(p);
	if (it == allocs.begin()) {
		return nullptr;
	}
	--it;
	const allocation &a = it->second;
	const uintptr_t b = (uintptr_t)a.base;
	if (p < b || p + n > b + a.bytes) {
		return nullptr;
	}
	return &a;
}

bool guardsIntact(const char *when)
{
	bool ok = true;
	for (auto &kv : allocs) {
		const allocation &a = kv.second;
		for (size_t i = 0; i < kGuard; i++) {
			if ((unsigned char)a.base[a.bytes + i] != kGuardByte) {
				std::fprintf(stderr, "fakecuda: %s: write past the end of a %zu-byte allocation (guard byte %zu)\n",
				             when, a.bytes, i);
				ok = false;
				break;
			}
		}
	}
	return ok;
}

} // namespace

extern "C" {

CUresult CUDAAPI cuInit(unsigned int) { return CUDA_SUCCESS; }

CUresult CUDAAPI cuDriverGetVersion(int *v)
{
	*v = 11080;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *n)
{
	*n = 1;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *d, int ordinal)
{
	if (ordinal != 0) {
		return CUDA_ERROR_INVALID_DEVICE;
	}
	*d = 0;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice)
{
	std::snprintf(name, (size_t)len, "Pursuit CPU emulator (cuda/kernels/emu)");
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice)
{
	*bytes = (size_t)4 << 30;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice)
{
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		*pi = 8;
		break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		*pi = 0;
		break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
		*pi = 4; // small, so that dictionary passes still split into chunks
		break;
	case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
		*pi = 1000000;
		break;
	default:
		*pi = 0;
	}
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxCreate(CUcontext *ctx, unsigned int, CUdevice)
{
	*ctx = (CUcontext)&contextToken;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxDestroy(CUcontext) { return CUDA_SUCCESS; }

CUresult CUDAAPI cuCtxSynchronize(void) { return CUDA_SUCCESS; }

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned int, CUjit_option *, void **)
{
	std::lock_guard<std::recursive_mutex> lock(mu);
	const std::string ptx((const char *)image);
	module *m = new module;
	const std::string marker = ".visible .entry ";
	for (size_t p = ptx.find(marker); p != std::string::npos; p = ptx.find(marker, p + 1)) {
		const size_t b = p + marker.size();
		m->entries.insert(ptx.substr(b, ptx.find('(', b) - b));
	}
	if (m->entries.empty()) {
		delete m;
		return CUDA_ERROR_INVALID_PTX;
	}
	*mod = (CUmodule)m;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *mod, const void *image)
{
	return cuModuleLoadDataEx(mod, image, 0, nullptr, nullptr);
}

CUresult CUDAAPI cuModuleUnload(CUmodule mod)
{
	delete (module *)mod;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *fn, CUmodule mod, const char *name)
{
	std::lock_guard<std::recursive_mutex> lock(mu);
	const module *m = (const module *)mod;
	if (!m->entries.count(name)) {
		return CUDA_ERROR_NOT_FOUND;
	}
	function &f = functions[name];
	f.name = name;
	*fn = (CUfunction)&f;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *p, size_t bytes)
{
	std::lock_guard<std::recursive_mutex> lock(mu);
	if (bytes == 0) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (const char *most = std::getenv("FAKECUDA_MAX_ALLOC"); most && bytes > std::strtoull(most, nullptr, 10)) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	const size_t total = (bytes + kGuard + 255) / 256 * 256;
	char *b = (char *)std::aligned_alloc(256, total);
	if (!b) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	std::memset(b, 0xFF, bytes);
	std::memset(b + bytes, kGuardByte, total - bytes);
	allocs[(uintptr_t)b] = allocation{b, bytes};
	*p = (CUdeviceptr)(uintptr_t)b;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr p)
{
	std::lock_guard<std::recursive_mutex> lock(mu);
	auto it = allocs.find((uintptr_t)p);
	if (it == allocs.end()) {
		std::fprintf(stderr, "fakecuda: cuMemFree of %#llx, which is not an allocation\n", (unsigned long long)p);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (!guardsIntact("cuMemFree")) {
		return CUDA_ERROR_ILLEGAL_ADDRESS;
	}
	std::free(it->second.base);
	allocs.erase(it);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemGetInfo(size_t *free, size_t *total)
{
	*free = (size_t)3 << 30;
	*total = (size_t)4 << 30;
	return CUDA_SUCCESS;
}

static CUresult checkRange(const char *op, CUdeviceptr p, size_t n)
{
	if (!owner((uintptr_t)p, n)) {
		std::fprintf(stderr, "fakecuda: %s: [%#llx, +%zu) is outside every allocation\n", op, (unsigned long long)p, n);
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n)
{
	std::lock_guard<std::recursive_mutex> lock(mu);
	if (CUresult r = checkRange("cuMemcpyHtoD", dst, n)) {
		return r;
	}
	std::memcpy((void *)(uintptr_t)dst, src, n);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n)
{
	std::lock_guard<std::recursive_mutex> lock(mu);
	if (CUresult r = checkRange("cuMemcpyDtoH", src, n)) {
		return r;
	}
	std::memcpy(dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	std::lock_guard<std::recursive_mutex> lock(mu);
	if (CUresult r = checkRange("cuMemcpyDtoD", dst, n)) {
		return r;
	}
	if (CUresult r = checkRange("cuMemcpyDtoD", src, n)) {
		return r;
	}
	std::memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD8(CUdeviceptr dst, unsigned char v, size_t n)
{
	std::lock_guard<std::recursive_mutex> lock(mu);
	if (CUresult r = checkRange("cuMemsetD8", dst, n)) {
		return r;
	}
	std::memset((void *)(uintptr_t)dst, v, n);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                unsigned int by, unsigned int bz, unsigned int, CUstream, void **params, void **)
{
	std::lock_guard<std::recursive_mutex> lock(mu);
	const std::string name = ((const function *)fn)->name;
	if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || bx * by * bz > 1024 || gy > 65535 ||
	    gz > 65535) {
		std::fprintf(stderr, "fakecuda: %s: invalid launch grid %ux%ux%u block %ux%ux%u\n", name.c_str(), gx, gy, gz, bx,
		             by, bz);
		return CUDA_ERROR_INVALID_VALUE;
	}
	auto U = [&](int i) { return *(const uint64_t *)params[i]; };
	auto D = [&](int i) { return *(const double *)params[i]; };
	auto L = [&](int i) { return (long long)U(i); };
	// Pointer arguments must point into an allocation (or be null where the
	// kernel allows it).
	auto P = [&](int i, bool nullable) -> bool {
		const uint64_t p = U(i);
		if (p == 0 && nullable) {
			return true;
		}
		if (!owner((uintptr_t)p, 1)) {
			std::fprintf(stderr, "fakecuda: %s: pointer argument %d (%#llx) is not device memory\n", name.c_str(), i,
			             (unsigned long long)p);
			return false;
		}
		return true;
	};
#define F32(i) ((float *)(uintptr_t)U(i))
#define F64(i) ((double *)(uintptr_t)U(i))
#define I64(i) ((long long *)(uintptr_t)U(i))
#define I32(i) ((int *)(uintptr_t)U(i))
	const dim3 grid(gx, gy, gz), block(bx, by, bz);
	bool ok;
	if (name == "kernel_block") {
		const bool rbf = L(12) == 3;
		ok = P(0, false) && P(2, false) && P(4, true) && P(5, !rbf) && P(6, false) && P(8, !rbf) &&
		     emu_launch(grid, block, [&] {
			     kernel_block(F32(0), L(1), F32(2), L(3), I64(4), F32(5), F32(6), L(7), F32(8), L(9), L(10), L(11),
			                  L(12), D(13), D(14), L(15));
		     });
	} else if (name == "sq_norms") {
		ok = P(0, false) && P(1, false) &&
		     emu_launch(grid, block, [&] { sq_norms(F32(0), F32(1), L(2), L(3), L(4)); });
	} else if (name == "dict_partial") {
		ok = P(0, false) && P(1, false) && P(3, false) &&
		     emu_launch(grid, block,
		                [&] { dict_partial(F64(0), F32(1), L(2), F32(3), L(4), L(5), L(6), L(7), L(8)); });
	} else if (name == "dict_reduce") {
		ok = P(0, false) && P(1, false) &&
		     emu_launch(grid, block, [&] { dict_reduce(F64(0), F64(1), L(2), L(3), L(4)); });
	} else if (name == "rank_update") {
		ok = P(0, false) && P(5, false) && P(7, false) &&
		     emu_launch(grid, block,
		                [&] { rank_update(F32(0), L(1), L(2), L(3), D(4), F32(5), L(6), F32(7), L(8), L(9)); });
	} else if (name == "vec_partial") {
		ok = P(0, false) && P(1, U(3) != 0) && P(3, U(1) != 0) && (U(1) != 0) != (U(3) != 0) && P(5, L(9) == 1) &&
		     emu_launch(grid, block, [&] {
			     vec_partial(F64(0), F32(1), L(2), F64(3), L(4), F64(5), L(6), L(7), L(8), L(9), L(10));
		     });
	} else if (name == "vec_combine") {
		ok = P(0, false) && P(2, L(5) == 0) && P(3, L(5) == 0) &&
		     emu_launch(grid, block, [&] { vec_combine(F64(0), D(1), F64(2), F64(3), L(4), L(5), L(6)); });
	} else if (name == "block_row_f64") {
		ok = P(0, false) && P(1, false) && emu_launch(grid, block, [&] { block_row_f64(F64(0), F32(1), L(2)); });
	} else if (name == "sign_mismatch") {
		ok = P(0, false) && P(1, false) && P(2, false) &&
		     emu_launch(grid, block, [&] { sign_mismatch(F64(0), F64(1), F64(2), L(3)); });
	} else if (name == "csr_kernel") {
		const bool rbf = L(13) == 3;
		ok = P(0, false) && P(3, false) && P(4, false) && P(5, false) && P(6, true) && P(8, false) &&
		     P(11, !rbf) && P(12, !rbf) && emu_launch(grid, block, [&] {
			     csr_kernel(F32(0), L(1), L(2), I64(3), I32(4), F32(5), I64(6), L(7), F32(8), L(9), L(10), F32(11),
			                F32(12), L(13), D(14), D(15), L(16));
		     });
	} else if (name == "csr_sq_norms") {
		ok = P(0, false) && P(1, false) && P(2, false) && P(3, true) &&
		     emu_launch(grid, block, [&] { csr_sq_norms(F32(0), I64(1), F32(2), I64(3), L(4)); });
	} else if (name == "csr_densify_t") {
		ok = P(0, false) && P(2, false) && P(3, false) && P(4, false) && P(5, true) &&
		     emu_launch(grid, block, [&] { csr_densify_t(F32(0), L(1), I64(2), I32(3), F32(4), I64(5), L(6)); });
	} else if (name == "dense_densify_t") {
		ok = P(0, false) && P(2, false) &&
		     emu_launch(grid, block, [&] { dense_densify_t(F32(0), L(1), F32(2), L(3), L(4), L(5)); });
	} else if (name == "smo_sub") {
		ok = P(0, false) && P(1, false) && P(2, false) && P(3, false) && P(4, false) && P(5, false) &&
		     emu_launch(grid, block, [&] { smo_sub(F64(0), F64(1), F64(2), F64(3), F64(4), F64(5), L(6), D(7), L(8)); });
	} else if (name == "svm_block") {
		ok = P(0, false) && P(1, false) && P(3, false) && P(4, false) &&
		     emu_launch(grid, block, [&] { svm_block(F64(0), F32(1), L(2), I64(3), I64(4), L(5)); });
	} else if (name == "svm_update") {
		ok = P(0, false) && P(1, false) && P(2, false) && P(4, false) && P(5, false) && P(7, true) &&
		     emu_launch(grid, block, [&] { svm_update(F64(0), F64(1), F32(2), L(3), I64(4), F64(5), L(6), I64(7), L(8)); });
	} else if (name == "fill_zero") {
		ok = P(0, false) && emu_launch(grid, block, [&] { fill_zero(F32(0), L(1)); });
	} else {
		std::fprintf(stderr, "fakecuda: no emulation for kernel %s\n", name.c_str());
		return CUDA_ERROR_NOT_FOUND;
	}
#undef F32
#undef F64
#undef I64
#undef I32
	if (!ok) {
		return CUDA_ERROR_LAUNCH_FAILED;
	}
	if (!guardsIntact(name.c_str())) {
		return CUDA_ERROR_ILLEGAL_ADDRESS;
	}
	return CUDA_SUCCESS;
}

} // extern "C"
