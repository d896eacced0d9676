// emu.h — a minimal CPU emulation of the CUDA execution model, enough to run
// kernels.cu on a machine without a GPU: every thread of a block is an OS
// thread, __syncthreads() is a barrier over the block, __shared__ variables
// are function statics (one copy, shared by the block's threads; blocks run
// one after another). It checks the kernels' logic (indexing, bounds,
// reductions, barriers reached by every thread: a missed barrier deadlocks),
// not their speed nor anything about real hardware (warps, memory model,
// float contraction, the device math library).
#pragma once

#include <barrier>
#include <cmath>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

struct dim3 {
	unsigned x, y, z;
	dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

static thread_local dim3 threadIdx;
static thread_local dim3 blockIdx;
static dim3 blockDim, gridDim;
static std::barrier<> *emu_block_barrier;

#define PURSUIT_EMU 1
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __syncthreads() emu_block_barrier->arrive_and_wait()

// emu_launch runs f (a call of one kernel) over grid×block threads. One OS
// thread per thread of a block; the same threads run every block in turn,
// with a barrier between blocks so that shared memory is not overwritten
// while a block still uses it.
static void emu_launch(dim3 grid, dim3 block, const std::function<void()> &f)
{
	const unsigned nt = block.x * block.y * block.z;
	gridDim = grid;
	blockDim = block;
	std::barrier<> sync(nt), between(nt);
	emu_block_barrier = &sync;
	std::vector<std::thread> ts;
	ts.reserve(nt);
	for (unsigned t = 0; t < nt; t++) {
		ts.emplace_back([&, t] {
			threadIdx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
			for (unsigned z = 0; z < grid.z; z++)
				for (unsigned y = 0; y < grid.y; y++)
					for (unsigned x = 0; x < grid.x; x++) {
						blockIdx = dim3(x, y, z);
						f();
						between.arrive_and_wait();
					}
		});
	}
	for (auto &t : ts) {
		t.join();
	}
}
