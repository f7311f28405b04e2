// A structural fingerprint of IR functions: bytes that are equal exactly when the functions
// are the same computation node for node — each graph's nodes (op, children, constants,
// variable ids, in id order) and each function's name, inputs and outputs. Variable names
// are left out: no code depends on them.
//
// What it is for: the kernel cache keys a unit built from the IR (codegen/unit_compiler.h)
// by its kernels' fingerprint instead of their C text, so a cache hit never schedules or
// renders a kernel. Equal fingerprints give equal code only under the same scheduler and
// emitter; the key adds their identity (codegen/ir_object.h).
#pragma once

#include <span>
#include <string>

#include "ir/function.h"

namespace talon::ir {

std::string structural_fingerprint(std::span<const Function> functions);

}  // namespace talon::ir
