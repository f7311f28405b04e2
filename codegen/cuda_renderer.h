// The CUDA renderer: the C-style renderer with CUDA qualifiers (tinygrad's CUDARenderer over
// CStyleLanguage), for NVRTC (codegen/nvrtc_compiler.h). Each Function `name` becomes
//   __device__ __forceinline__ void PREFIXname(const T* __restrict__ in, T* __restrict__ out)
// and, optionally, a batched entry point over `count` worlds stored world-major (world w
// reads in[w * NUM_INPUTS ...] and writes out[w * NUM_OUTPUTS ...]):
//   extern "C" __global__ void PREFIXname_kernel(const T* in, T* out, int count)
// The text needs no header: NVRTC provides the math functions.
#pragma once

#include <span>

#include "codegen/c_style.h"

namespace talon::codegen {

struct CudaRenderOptions : CStyleOptions {
  bool kernels = true;  // also emit the batched __global__ wrappers
};

Expected<RenderedSource> render_cuda(std::span<const ir::Function> functions,
                                     const CudaRenderOptions& options = {});

// The unmangled symbol of a function's batched kernel: SYMBOL_kernel.
std::string cuda_kernel_name(const RenderedFunction& f);

}  // namespace talon::codegen
