#!/usr/bin/env bash
# cuda-ptx.sh [OUT] — compile cuda/kernels/kernels.cu to PTX with the CUDA
# 11.8 nvcc (default OUT: cuda/kernels/kernels.ptx, the embedded copy).
# Run by `go generate ./cuda`; scripts/cuda-check.sh runs it into a temporary
# file and compares. The toolkit comes from scripts/cuda-toolkit.sh (a cache
# outside the repository, fetched on first use).
#
# Target: PTX for compute capability 7.0 (Volta) with the PTX ISA of CUDA
# 11.8 (7.8); the driver JITs it for the GPU it runs on, Ampere, Hopper and
# newer included. Nothing in the kernels needs a newer target.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$REPO/cuda/kernels/kernels.ptx}"
ARCH="${PURSUIT_PTX_ARCH:-compute_70}"
# Always the toolkit from the cache: another nvcc (a GPU machine's own CUDA)
# would emit different PTX than the committed copy.
eval "$(bash "$REPO/scripts/cuda-toolkit.sh")"
NVCC="$PURSUIT_CUDA_ROOT/usr/lib/nvidia-cuda-toolkit/bin/nvcc"
OUT_DIR="$(cd "$(dirname "$OUT")" && pwd)" || { echo "cuda-ptx: no directory for $OUT" >&2; exit 1; }
OUT_ABS="$OUT_DIR/$(basename "$OUT")"
# The source is compiled from its directory under a fixed relative name so
# that nothing in the output depends on where the repository lives.
cd "$REPO/cuda/kernels"
# shellcheck disable=SC2086 # NVCC_FLAGS is a list of flags
PATH="$(dirname "$NVCC"):$PATH" "$NVCC" $NVCC_FLAGS -ptx -arch="$ARCH" -o "$OUT_ABS" kernels.cu
echo "cuda-ptx: wrote $OUT ($(grep -c '^\.visible \.entry' "$OUT_ABS") kernels, target $ARCH)" >&2
