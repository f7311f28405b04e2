// The CUDA compiler: CUDA text (codegen/cuda_renderer.h) -> PTX or CUBIN bytes with NVRTC.
//
// NVRTC is a library that needs neither a GPU nor the driver, so this compiles (and is
// tested) on machines without one; loading the bytes is the runtime's job (driver API).
// Every NVRTC call is checked; a failure is a diagnostic carrying NVRTC's log, so a user
// sees the compiler's own message.
//
// Declared only when Talon is built with the CUDA toolkit (TALON_HAVE_CUDA).
#pragma once

#ifdef TALON_HAVE_CUDA

#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace talon::codegen {

enum class NvrtcOutput { Ptx, Cubin };

struct NvrtcOptions {
  // The GPU's compute capability as major*10+minor (90 for H100). PTX targets the virtual
  // architecture compute_XX (any GPU >= XX can JIT it); CUBIN the real one, sm_XX.
  int compute_capability = 90;
  NvrtcOutput output = NvrtcOutput::Ptx;
  // NVRTC's default contracts a*b+c into FMA; false keeps each product rounded as in the
  // interpreter and the CPU backends, at a small cost in speed.
  bool fused_multiply_add = true;
  std::vector<std::string> extra_options;         // passed to NVRTC verbatim
  std::string program_name = "talon_kernels.cu";  // the file name in NVRTC's messages
};

// The PTX text or CUBIN bytes of `source`. NVRTC warnings become notes.
Expected<std::string> nvrtc_compile(std::string_view source, const NvrtcOptions& options = {});

// "major.minor" of the NVRTC library in use (part of a kernel cache key).
std::string nvrtc_version();

// The compute capabilities (major*10+minor) this NVRTC can target, ascending; empty if the
// query fails.
std::vector<int> nvrtc_supported_architectures();

}  // namespace talon::codegen

#endif  // TALON_HAVE_CUDA
