// Symbolic differentiation: sparse Jacobians, forward (JVP) and reverse (VJP) mode.
//
// Every sweep walks the outputs' dependency cone in topological order (increasing node id
// forward, decreasing id in reverse), so each node's tangent or adjoint is complete when it
// is used and accumulated exactly once — no recursion, no per-path blow-up (the approach of
// Halide's Derivative.cpp). Partials come from the op table (ir/ops.h), including its
// conventions at non-smooth points. Results are Exprs in the same graph, hash-consed with
// everything else, so derivatives share subexpressions with the primal.
//
// `wrt` entries must be distinct Var exprs of the outputs' graph (programmer error otherwise).
#pragma once

#include <span>
#include <vector>

#include "ir/expr.h"

namespace talon::ir {

// Structural non-zeros of ∂outputs/∂wrt, sorted row-major (row, then col). An entry exists
// when output `row` depends on wrt[col] and its derivative does not simplify to exactly 0.
struct SparseJacobian {
  int rows = 0, cols = 0;
  std::vector<int> row, col;
  std::vector<Expr> value;
  std::size_t nnz() const { return value.size(); }
};

// Each row is differentiated by a reverse sweep over its own cone, or each column by a
// forward sweep over the outputs' cone, whichever visits fewer nodes.
SparseJacobian jacobian(std::span<const Expr> outputs, std::span<const Expr> wrt);

// Forward mode: Σ_k ∂outputs/∂wrt[k] · tangents[k], one sweep. tangents.size() == wrt.size();
// tangents (and cotangents below) are non-null Exprs of the same graph, constants allowed.
std::vector<Expr> jvp(std::span<const Expr> outputs, std::span<const Expr> wrt,
                      std::span<const Expr> tangents);

// Reverse mode: Σ_i cotangents[i] · ∂outputs[i]/∂wrt, one sweep.
// cotangents.size() == outputs.size().
std::vector<Expr> vjp(std::span<const Expr> outputs, std::span<const Expr> wrt,
                      std::span<const Expr> cotangents);

// ∂output/∂wrt (reverse mode).
std::vector<Expr> gradient(Expr output, std::span<const Expr> wrt);

}  // namespace talon::ir
