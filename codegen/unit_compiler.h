// A model unit built in process (the runtime's cold build): its kernels straight from the IR
// to objects (ir_object.h), the rest of its text — tables, the solver's loops, the API —
// through clang (clang_compiler.h), each group of kernels and the text in a thread of its own.
// The text declares the kernels instead of defining them (codegen/model_unit.h,
// ModelUnitOptions::kernels_from_ir). A kernel computes the same IEEE operations as its C
// text, so the unit steps bit for bit as the whole unit's text compiled (what `talon compile`
// writes; tests/runtime/test_unit_kernels.cpp).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/clang_compiler.h"
#include "common/expected.h"
#include "ir/function.h"

namespace talon::codegen {

// A unit's kernels as IR: each defines the symbol PREFIX + its name.
struct UnitKernels {
  std::span<const ir::Function> functions;
  std::string prefix;
};

// The most threads a unit's build uses.
inline constexpr int kMaxBuildJobs = 16;

// The unit's objects: without kernels, its text's; with them, the text's without its
// kernels and the kernels' in at most `jobs` objects grouped by size.
Expected<std::vector<std::string>> compile_unit_objects(std::string_view source,
                                                        const UnitKernels& kernels,
                                                        const std::string& name, int jobs,
                                                        const InProcessCompilerOptions& options);

}  // namespace talon::codegen
