package cuda

// Regenerate the embedded PTX from kernels/kernels.cu with nvcc. The script
// fetches the CUDA 11.8 toolkit into a cache outside the repository when nvcc
// is not already set up (see scripts/cuda-toolkit.sh); CI regenerates and
// compares with the committed copy (scripts/cuda-check.sh).
//go:generate bash ../scripts/cuda-ptx.sh kernels/kernels.ptx
