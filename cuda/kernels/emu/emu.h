// emu.h — a minimal CPU emulation of the CUDA execution model, enough to run
// kernels.cu on a machine without a GPU. Each thread of a block is a fiber
// (ucontext) on one OS thread; __syncthreads() switches back to the
// scheduler, which resumes the block's threads once every live thread has
// reached the barrier; __shared__ variables are function statics (one copy,
// shared by the block's threads; blocks run one after another). It checks the
// kernels' logic — indexing, bounds, reductions, and that every thread of a
// block reaches every barrier (a barrier that some threads skip by exiting is
// reported as an error) — not their speed nor anything about real hardware
// (warps, the memory model, float contraction, the device math library).
//
// A fiber is made once (makecontext, entered by setcontext) and then loops:
// it runs the kernel for a block, reports that it is done and waits to be
// resumed for the next block. Switches after the first entry use
// _setjmp/_longjmp, which, unlike swapcontext, make no system call to save
// and restore the signal mask: the emulation spends its time in the kernels,
// not in the kernel of the operating system.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <csetjmp>
#include <functional>
#include <setjmp.h>
#include <ucontext.h>
#include <vector>

struct dim3 {
	unsigned x, y, z;
	dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

static dim3 threadIdx, blockIdx, blockDim, gridDim;

#define PURSUIT_EMU 1
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __syncthreads() emu_sync()

// Double-precision arithmetic with the rounding spelled out (the kernels
// use them where contraction into an FMA would change the bits).
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dmul_rn(double a, double b) { return a * b; }

struct emu_fiber {
	ucontext_t ctx; // the first entry
	jmp_buf jb;     // where a started fiber resumes
	bool started;
	bool done;
	std::vector<char> stack;
};

static jmp_buf emu_sched;
static std::vector<emu_fiber> emu_fibers;
static unsigned emu_cur;
static const std::function<void()> *emu_kernel;
static int emu_errors;   // launches that failed (see emu_launch)
static bool emu_quiet;   // do not print why a launch failed

// emu_yield saves the current fiber and returns to the scheduler.
static void emu_yield()
{
	if (!_setjmp(emu_fibers[emu_cur].jb)) {
		_longjmp(emu_sched, 1);
	}
}

static void emu_sync() { emu_yield(); }

static void emu_entry()
{
	for (;;) {
		(*emu_kernel)();
		emu_fibers[emu_cur].done = true;
		emu_yield(); // resumed for the next block
	}
}

// emu_resume runs fiber t until it reaches a barrier or finishes its block.
static void emu_resume(unsigned t)
{
	if (!_setjmp(emu_sched)) {
		emu_fiber &fb = emu_fibers[t];
		if (!fb.started) {
			fb.started = true;
			setcontext(&fb.ctx);
		}
		_longjmp(fb.jb, 1);
	}
}

// emu_reset abandons every fiber (after a failed launch some stop inside a
// kernel): the next launch makes them afresh.
static void emu_reset()
{
	for (auto &fb : emu_fibers) {
		fb.started = false;
	}
}

static void emu_set_thread(unsigned t)
{
	emu_cur = t;
	threadIdx = dim3(t % blockDim.x, (t / blockDim.x) % blockDim.y, t / (blockDim.x * blockDim.y));
}

// emu_launch runs f (a call of one kernel) over grid×block threads. It
// returns false, after printing why, when a barrier is not reached by every
// live thread of a block.
static bool emu_launch(dim3 grid, dim3 block, const std::function<void()> &f)
{
	const unsigned nt = block.x * block.y * block.z;
	const size_t stackSize = 256 * 1024;
	if (emu_fibers.size() < nt) {
		emu_reset(); // resizing moves the fibers' contexts
		emu_fibers.resize(nt);
	}
	for (unsigned t = 0; t < nt; t++) {
		emu_fiber &fb = emu_fibers[t];
		if (fb.stack.size() != stackSize) {
			fb.stack.resize(stackSize);
			fb.started = false;
		}
		if (!fb.started) {
			getcontext(&fb.ctx);
			fb.ctx.uc_stack.ss_sp = fb.stack.data();
			fb.ctx.uc_stack.ss_size = stackSize;
			fb.ctx.uc_link = nullptr;
			makecontext(&fb.ctx, emu_entry, 0);
		}
	}
	gridDim = grid;
	blockDim = block;
	emu_kernel = &f;
	for (unsigned z = 0; z < grid.z; z++)
		for (unsigned y = 0; y < grid.y; y++)
			for (unsigned x = 0; x < grid.x; x++) {
				blockIdx = dim3(x, y, z);
				for (unsigned t = 0; t < nt; t++) {
					emu_fibers[t].done = false;
				}
				for (unsigned barrier = 0;; barrier++) {
					unsigned waiting = 0, finished = 0;
					for (unsigned t = 0; t < nt; t++) {
						if (emu_fibers[t].done) {
							finished++;
							continue;
						}
						emu_set_thread(t);
						emu_resume(t);
						if (emu_fibers[t].done) {
							finished++;
						} else {
							waiting++;
						}
					}
					if (waiting == 0) {
						break;
					}
					if (finished > 0) {
						if (!emu_quiet) {
							std::fprintf(stderr, "emu: block (%u,%u,%u): barrier %u reached by %u threads while %u had exited\n",
							             x, y, z, barrier, waiting, finished);
						}
						emu_errors++;
						emu_reset();
						return false;
					}
				}
			}
	return true;
}
