// A unit's kernels guarded for a build that makes them from the IR
// (ModelUnitOptions::kernels_from_ir, codegen/unit_compiler.h):
//
//   #include <math.h> ...                  the prelude, which the solver's loops use too
//   #ifndef TALON_KERNELS_FROM_IR
//   void talon_kernel_X(const double* restrict in, double* restrict out) { ... }
//   ...                                    (external linkage, as a shared library's API)
//   #else
//   void talon_kernel_X(const double* restrict in, double* restrict out);   their prototypes
//   #endif
//
// Without the macro the text is the whole unit, as a C compiler given NAME.c sees it.
#include "codegen/c_renderer.h"
#include "codegen/model_unit.h"
#include "codegen/model_unit_parts.h"

namespace talon::codegen::unit {

Expected<std::string> guarded_kernels(std::span<const ir::Function> functions,
                                      const CRenderOptions& options) {
  CRenderOptions exported = options;
  exported.exported = true;  // called from the loops, in another object when built apart
  Expected<RenderedSource> rendered = render_c(functions, exported);
  if (!rendered) return rendered.diagnostics();
  const std::string_view all = rendered->code;
  const std::size_t code_begin =
      functions.empty() ? all.size() : rendered->functions.front().code_begin;
  std::string prototypes;
  for (const RenderedFunction& f : rendered->functions)
    prototypes += "void " + f.symbol + "(" + c_parameter_list(exported, "restrict") + ");\n";
  // Written into one buffer of the final size: the humanoid's kernels are megabytes, and
  // every intermediate copy costs its pages' first touch (bench/RESULTS.md, a cache hit).
  std::string out;
  out.reserve(all.size() + prototypes.size() + 80);
  out.append(all.substr(0, code_begin))
      .append("#ifndef ")
      .append(kKernelsFromIrMacro)
      .append("\n")
      .append(all.substr(code_begin))
      .append("#else\n")
      .append(prototypes)
      .append("#endif\n");
  return out;
}

}  // namespace talon::codegen::unit
