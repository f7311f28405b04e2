// A unit's kernels declared, not defined, for a build that makes them from the IR
// (ModelUnitOptions::kernels_from_ir, codegen/unit_compiler.h):
//
//   #include <math.h> ...                  the prelude, which the solver's loops use too
//   void talon_kernel_X(const double* restrict in, double* restrict out);   one per kernel
//
// The kernels are not rendered at all: a cache hit, which generates the unit only to find
// its entry, schedules no kernel (runtime/kernel_cache.h keys the kernels by their IR).
#include "codegen/c_renderer.h"
#include "codegen/model_unit.h"
#include "codegen/model_unit_parts.h"
#include "codegen/symbols.h"

namespace talon::codegen::unit {

Expected<std::string> declared_kernels(std::span<const ir::Function> functions,
                                       const CRenderOptions& options) {
  CRenderOptions exported = options;
  exported.exported = true;  // defined in another object
  // The text render_c gives without functions: its banner and prelude.
  Expected<RenderedSource> prelude = render_c({}, exported);
  if (!prelude) return prelude.diagnostics();
  std::vector<std::string> symbols;
  for (const ir::Function& f : functions) symbols.push_back(options.prefix + f.name);
  Diagnostics diagnostics;
  check_symbols(symbols, diagnostics);
  if (diagnostics.has_errors()) return diagnostics;
  std::string out = std::move(prelude->code);
  const std::string parameters = "(" + c_parameter_list(exported, "restrict") + ");\n";
  for (const std::string& symbol : symbols) out.append("void ").append(symbol).append(parameters);
  return out;
}

}  // namespace talon::codegen::unit
