// IR Functions -> LLVM IR (llvm_module.h) -> a relocatable object for this host: the same
// machine code settings as the in-process C compiler's (clang_compiler.h: the host CPU's
// instruction set, position-independent, LLVM's code generator at -O1), without a C text to
// parse. The model unit's kernels are built this way in process (codegen/unit_compiler.h):
// clang spent more than half of a cold build of the humanoid turning their C back into the
// SSA it was printed from (bench/RESULTS.md, twenty-seventh session).
//
// No LLVM header is included here.
#pragma once

#include <span>
#include <string>

#include "common/expected.h"
#include "ir/function.h"

namespace talon::codegen {

// An ELF object defining `void PREFIXname(const double* in, double* out)` for each function
// (external linkage; libm's functions left undefined for the linker). `name` names the
// object in diagnostics.
Expected<std::string> compile_ir_object(std::span<const ir::Function> functions,
                                        const std::string& prefix, const std::string& name);

// What decides the object's code besides the functions (for a cache key): the scheduler's
// and emitter's sources (a hash of ir/ and codegen/, made at build time), LLVM's version, the
// host CPU and the optimisation.
std::string ir_object_identity();

}  // namespace talon::codegen
