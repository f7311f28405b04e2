#include "codegen/cuda_renderer.h"

#include "codegen/symbols.h"

namespace talon::codegen {
namespace {

// ir::c_literal prints infinite constants as INFINITY, which <math.h> defines in C; NVRTC
// code includes no headers, so define it from the bit pattern, in the code's own type: a
// float infinity in double code would make C++ overloads such as fmax(double, float)
// ambiguous.
constexpr std::string_view kDoublePrelude =
    "#undef INFINITY\n#define INFINITY __longlong_as_double(0x7ff0000000000000LL)\n";
constexpr std::string_view kFloatPrelude =
    "#undef INFINITY\n#define INFINITY __int_as_float(0x7f800000)\n";

constexpr std::string_view kRestrict = "__restrict__";

std::string offset(const char* array, int stride) {
  return std::string(array) + " + world * " + std::to_string(stride);
}

std::string kernel_text(const RenderedFunction& f, const CudaRenderOptions& options) {
  const bool with_work = options.storage == CStorage::WorkArray;
  std::string call =
      f.symbol + "(" + offset("in", f.num_inputs) + ", " + offset("out", f.num_outputs);
  if (with_work) call += ", " + offset("work", f.work_size);
  call += ");\n";
  return "\n/* " + f.symbol + " over count worlds, one thread each, world-major arrays */\n" +
         "extern \"C\" __global__ void " + cuda_kernel_name(f) + "(" +
         c_parameter_list(options, kRestrict) + ", int count) {\n" +
         "  const long long world = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n" +
         "  if (world >= count) return;\n  " + call + "}\n";
}

}  // namespace

std::string cuda_kernel_name(const RenderedFunction& f) {
  return f.symbol + "_kernel";
}

Expected<RenderedSource> render_cuda(std::span<const ir::Function> functions,
                                     const CudaRenderOptions& options) {
  const std::string_view prelude =
      options.precision == ir::CPrecision::Float ? kFloatPrelude : kDoublePrelude;
  const CStyleDialect dialect{"__device__ __forceinline__ ", "__device__ __noinline__ ", kRestrict,
                              prelude};
  Expected<RenderedSource> source = render_c_style(functions, options, dialect);
  if (!source || !options.kernels) return source;
  // The wrappers add symbols of their own: `f_kernel` must not collide with a function.
  for (const RenderedFunction& f : source->functions) {
    source->symbols.push_back(cuda_kernel_name(f));
  }
  Diagnostics diagnostics;
  if (!check_symbols(source->symbols, diagnostics)) return diagnostics;
  for (const RenderedFunction& f : source->functions) source->code += kernel_text(f, options);
  return source;
}

}  // namespace talon::codegen
