// Staging: a function split into an early stage, which needs none of its late inputs, and a
// late stage, which reads the early stage's results from a cache.
//
// Why: a JVP J(x) t is evaluated many times at one x (one product per FGMRES iteration,
// codegen/solver/talon_krylov.h). Most of its work is the primal part at x and the partials
// the chain rule multiplies the tangents by; only the products and sums with t change. The
// early stage computes, once per x, every value the late stage reads; the late stage is the
// part that depends on t (the compute_root / store_at split of Halide's schedules).
#pragma once

#include <span>
#include <string>

#include "ir/function.h"

namespace talon::ir {

struct StagedFunction {
  // f's inputs → the cache: every node that does not depend on `late_inputs` and that a node
  // depending on them reads (or that is an output itself), in increasing node id.
  Function early;
  // [cache variables (one per early output), late_inputs] → f's outputs, with each cached node
  // read from its variable. Constants stay inline.
  Function late;
};

// late_inputs must be inputs of f. The cache variables are new variables of f's graph named
// cache_prefix + index. late(early(x), t) == f(x, t) exactly: the late stage performs the
// same operations on the same operand values.
StagedFunction split_stages(const Function& f, std::span<const Expr> late_inputs,
                            const std::string& cache_prefix);

}  // namespace talon::ir
