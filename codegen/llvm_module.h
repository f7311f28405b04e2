// IR Functions -> LLVM IR, emitted straight from the schedule (ir/passes/schedule.h) with the
// LLVM C++ API: the in-memory JIT (llvm_jit.h) and the model unit's kernel objects
// (ir_object.h) share it.
//
// Each Function `name` becomes `void PREFIXname(const double* noalias in, double* noalias out)`
// with in/out as in the C renderer. sqrt and |x| are LLVM intrinsics; sin, cos, exp, log,
// tanh, atan2, fmin and fmax call libm, as the interpreter and the C text do, so the three
// agree bit for bit. Every op is one IEEE operation as in the C text: no FMA contraction, no
// fast-math flags.
//
// LLVM's headers stay in the .cpp files that include this one.
#pragma once

#include <span>
#include <string>

#include "common/expected.h"
#include "ir/function.h"

namespace llvm {
class Module;
}

namespace talon::codegen {

// Emits `functions` into `module` (its data layout set) and verifies it; an invalid module is
// an error naming `element` (a Talon bug, reported, not an abort).
Diagnostics emit_llvm_functions(std::span<const ir::Function> functions, const std::string& prefix,
                                llvm::Module& module, const std::string& element);

}  // namespace talon::codegen
