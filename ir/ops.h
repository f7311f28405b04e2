// The op table: one entry per scalar op of the residual IR.
//
// Every consumer of the IR reads the same entry — constant folding at construction, the
// reference interpreter, symbolic differentiation, the printers and the C-style emitters —
// so an op's value, derivative and printed form cannot drift apart (CasADi keeps its
// `calculus.hpp` table for the same reason).
//
// Derivative conventions at non-smooth points (the partials in ops.cpp implement them;
// tests/ir/test_diff_ops.cpp checks each, and the derivative on either side of each point):
//   abs'(0)        = 0             (the subgradient of smallest magnitude)
//   min(a, b), max(a, b) on a tie  the whole derivative flows to the FIRST argument
//                                  (min/max are therefore not treated as commutative)
//   sqrt'(0)       = 0             (the true right derivative is +inf; a finite value keeps
//                                  Newton and adjoint systems finite)
//   atan2 at (0,0) = 0 for both partials (the true gradient is undefined there)
//   lt, le         = 0 everywhere  (piecewise-constant)
//   select(c,a,b)  differentiates through the chosen branch only, zero w.r.t. c
// The lowering never relies on the guarded points: Fischer–Burmeister functions and norms
// are ε-smoothed (sqrt(x² + ε²)) so that their derivatives stay finite and meaningful.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace talon::ir {

class Expr;

// Const and Var are leaves; every other op is a function of 1–3 children. The order is part
// of no file format; `kNumOps` must follow the last op.
enum class Op : uint8_t {
  Const,   // a finite float64 literal
  Var,     // an input variable
  Add,     // a + b
  Sub,     // a - b
  Mul,     // a * b
  Div,     // a / b
  Neg,     // -a
  Sqrt,    // sqrt(a)
  Sin,     // sin(a)
  Cos,     // cos(a)
  Exp,     // exp(a)
  Log,     // log(a)
  Tanh,    // tanh(a)
  Atan2,   // atan2(y = a, x = b)
  Abs,     // |a|
  Min,     // fmin(a, b)
  Max,     // fmax(a, b)
  Lt,      // a < b ? 1 : 0
  Le,      // a <= b ? 1 : 0
  Select,  // c != 0 ? a : b   (c is 0 or 1 when it comes from lt/le)
};
inline constexpr int kNumOps = static_cast<int>(Op::Select) + 1;

// How a C-style emitter spells an op (see c_expression below).
enum class CForm : uint8_t {
  Leaf,     // Const / Var: the emitter prints a literal or an input load itself
  Infix,    // "a + b"                      (c_name = "+")
  Prefix,   // "-a"                         (c_name = "-")
  Call,     // "sqrt(a)", "atan2(a, b)"     (c_name = double-precision libm name)
  Compare,  // "a < b ? 1.0 : 0.0"          (c_name = "<")
  Ternary,  // "c != 0.0 ? a : b"
};

struct OpInfo {
  const char* name;  // lower-case mnemonic used by dumps: "add", "sqrt", "select"
  int arity;         // number of children: 0 for Const/Var, else 1..3
  bool commutative;  // children are ordered by node id at construction (Add, Mul)
  // The float64 value from the children's values (unused arguments are ignored).
  // nullptr for leaves.
  double (*eval)(double a, double b, double c);
  // The partial derivative ∂node/∂node.arg(i), built as an Expr in node's graph from the node
  // and its children. nullptr for leaves.
  Expr (*partial)(Expr node, int i);
  CForm c_form;
  const char* c_name;  // see CForm; "" for leaves and Ternary
};

const OpInfo& op_info(Op op);
inline const char* op_name(Op op) {
  return op_info(op).name;
}

// Floating-point type of generated C code.
enum class CPrecision : uint8_t { Double, Float };

// The C expression for `op` applied to already-printed operands (slot names such as "t3" or
// literals from c_literal). Operands that are not plain identifiers are parenthesised, so the
// result is safe to embed as an operand in turn. Float precision uses the libm `f` names
// (sqrtf, fminf, ...) and `f`-suffixed literals. Not for leaves.
std::string c_expression(Op op, std::span<const std::string> operands,
                         CPrecision precision = CPrecision::Double);
// The same text appended to `out`: the renderers print megabytes of expressions for a large
// model, and a string per expression was a third of generating its unit (bench/RESULTS.md,
// twenty-sixth session).
void append_c_expression(std::string& out, Op op, std::span<const std::string_view> operands,
                         CPrecision precision = CPrecision::Double);

// A C literal that round-trips `value` exactly in the given precision ("0.5", "-2.0",
// "1e-300", "INFINITY"); float literals carry an `f` suffix.
std::string c_literal(double value, CPrecision precision = CPrecision::Double);

}  // namespace talon::ir
