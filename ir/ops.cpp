#include "ir/ops.h"

#include <charconv>
#include <cmath>

#include "common/diagnostics.h"
#include "ir/expr.h"

namespace talon::ir {
namespace {

// ---- values -------------------------------------------------------------------------------

double eval_add(double a, double b, double) {
  return a + b;
}
double eval_sub(double a, double b, double) {
  return a - b;
}
double eval_mul(double a, double b, double) {
  return a * b;
}
double eval_div(double a, double b, double) {
  return a / b;
}
double eval_neg(double a, double, double) {
  return -a;
}
double eval_sqrt(double a, double, double) {
  return std::sqrt(a);
}
double eval_sin(double a, double, double) {
  return std::sin(a);
}
double eval_cos(double a, double, double) {
  return std::cos(a);
}
double eval_exp(double a, double, double) {
  return std::exp(a);
}
double eval_log(double a, double, double) {
  return std::log(a);
}
double eval_tanh(double a, double, double) {
  return std::tanh(a);
}
double eval_atan2(double y, double x, double) {
  return std::atan2(y, x);
}
double eval_abs(double a, double, double) {
  return std::fabs(a);
}
// fmin/fmax, as the emitted C calls them, so the interpreter agrees bit for bit.
double eval_min(double a, double b, double) {
  return std::fmin(a, b);
}
double eval_max(double a, double b, double) {
  return std::fmax(a, b);
}
double eval_lt(double a, double b, double) {
  return a < b ? 1.0 : 0.0;
}
double eval_le(double a, double b, double) {
  return a <= b ? 1.0 : 0.0;
}
double eval_select(double c, double a, double b) {
  return c != 0.0 ? a : b;
}

// ---- partial derivatives ∂node/∂arg(i) ------------------------------------------------------

Expr one(Expr node) {
  return node.graph().constant(1.0);
}
Expr zero(Expr node) {
  return node.graph().constant(0.0);
}

Expr d_add(Expr node, int) {
  return one(node);
}
Expr d_sub(Expr node, int i) {
  return node.graph().constant(i == 0 ? 1.0 : -1.0);
}
Expr d_mul(Expr node, int i) {
  return node.arg(1 - i);
}
// ∂(a/b)/∂a = 1/b, ∂(a/b)/∂b = -(a/b)/b.
Expr d_div(Expr node, int i) {
  Expr b = node.arg(1);
  return i == 0 ? 1.0 / b : -node / b;
}
Expr d_neg(Expr node, int) {
  return node.graph().constant(-1.0);
}
// sqrt'(a) = 1/(2 sqrt(a)), and 0 where sqrt(a) is 0 (see the convention in ops.h).
Expr d_sqrt(Expr node, int) {
  return select(lt(zero(node), node), 0.5 / node, zero(node));
}
Expr d_sin(Expr node, int) {
  return cos(node.arg(0));
}
Expr d_cos(Expr node, int) {
  return -sin(node.arg(0));
}
Expr d_exp(Expr node, int) {
  return node;
}
Expr d_log(Expr node, int) {
  return 1.0 / node.arg(0);
}
Expr d_tanh(Expr node, int) {
  return 1.0 - node * node;
}
// atan2(y, x): ∂/∂y = x/(x²+y²), ∂/∂x = -y/(x²+y²); both 0 at the origin (see ops.h).
Expr d_atan2(Expr node, int i) {
  Expr y = node.arg(0), x = node.arg(1);
  Expr radius_sq = x * x + y * y;
  Expr unguarded = i == 0 ? x / radius_sq : -y / radius_sq;
  return select(lt(zero(node), radius_sq), unguarded, zero(node));
}
// sign(a) with sign(0) = 0: abs'(0) = 0.
Expr d_abs(Expr node, int) {
  Expr a = node.arg(0);
  return lt(zero(node), a) - lt(a, zero(node));
}
// Ties send the derivative to the first argument: min picks a when a <= b.
Expr d_min(Expr node, int i) {
  Expr a = node.arg(0), b = node.arg(1);
  return i == 0 ? le(a, b) : lt(b, a);
}
// max picks a when a >= b.
Expr d_max(Expr node, int i) {
  Expr a = node.arg(0), b = node.arg(1);
  return i == 0 ? le(b, a) : lt(a, b);
}
Expr d_compare(Expr node, int) {
  return zero(node);
}
// Through the chosen branch only; zero with respect to the condition.
Expr d_select(Expr node, int i) {
  if (i == 0) return zero(node);
  Expr cond = node.arg(0);
  return i == 1 ? select(cond, one(node), zero(node)) : select(cond, zero(node), one(node));
}

// ---- the table ----------------------------------------------------------------------------

struct Entry {
  Op op;
  OpInfo info;
};

constexpr Entry kTable[kNumOps] = {
    {Op::Const, {"const", 0, false, nullptr, nullptr, CForm::Leaf, ""}},
    {Op::Var, {"input", 0, false, nullptr, nullptr, CForm::Leaf, ""}},
    {Op::Add, {"add", 2, true, eval_add, d_add, CForm::Infix, "+"}},
    {Op::Sub, {"sub", 2, false, eval_sub, d_sub, CForm::Infix, "-"}},
    {Op::Mul, {"mul", 2, true, eval_mul, d_mul, CForm::Infix, "*"}},
    {Op::Div, {"div", 2, false, eval_div, d_div, CForm::Infix, "/"}},
    {Op::Neg, {"neg", 1, false, eval_neg, d_neg, CForm::Prefix, "-"}},
    {Op::Sqrt, {"sqrt", 1, false, eval_sqrt, d_sqrt, CForm::Call, "sqrt"}},
    {Op::Sin, {"sin", 1, false, eval_sin, d_sin, CForm::Call, "sin"}},
    {Op::Cos, {"cos", 1, false, eval_cos, d_cos, CForm::Call, "cos"}},
    {Op::Exp, {"exp", 1, false, eval_exp, d_exp, CForm::Call, "exp"}},
    {Op::Log, {"log", 1, false, eval_log, d_log, CForm::Call, "log"}},
    {Op::Tanh, {"tanh", 1, false, eval_tanh, d_tanh, CForm::Call, "tanh"}},
    {Op::Atan2, {"atan2", 2, false, eval_atan2, d_atan2, CForm::Call, "atan2"}},
    {Op::Abs, {"abs", 1, false, eval_abs, d_abs, CForm::Call, "fabs"}},
    {Op::Min, {"min", 2, false, eval_min, d_min, CForm::Call, "fmin"}},
    {Op::Max, {"max", 2, false, eval_max, d_max, CForm::Call, "fmax"}},
    {Op::Lt, {"lt", 2, false, eval_lt, d_compare, CForm::Compare, "<"}},
    {Op::Le, {"le", 2, false, eval_le, d_compare, CForm::Compare, "<="}},
    {Op::Select, {"select", 3, false, eval_select, d_select, CForm::Ternary, ""}},
};

constexpr bool table_matches_enum() {
  for (int i = 0; i < kNumOps; ++i) {
    if (static_cast<int>(kTable[i].op) != i) return false;
  }
  return true;
}
static_assert(table_matches_enum(), "kTable must list the ops in enum order");

// ---- C printing ---------------------------------------------------------------------------

// A postfix-or-atomic operand ("t3", "in[2]", "0.5") needs no parentheses in any context.
bool is_atom(std::string_view s) {
  if (s.empty()) return false;
  for (char ch : s) {
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '[' || ch == ']';
    if (!ok) return false;
  }
  return true;
}

void append_operand(std::string& out, std::string_view s) {
  if (is_atom(s)) {
    out += s;
  } else {
    out += '(';
    out += s;
    out += ')';
  }
}

void append_call(std::string& out, const OpInfo& info, std::span<const std::string_view> operands,
                 CPrecision p) {
  out += info.c_name;
  if (p == CPrecision::Float) out += 'f';
  out += '(';
  for (int i = 0; i < info.arity; ++i) {
    if (i > 0) out += ", ";
    out += operands[i];
  }
  out += ')';
}

// `a OP b` with both operands parenthesised where needed.
void append_infix(std::string& out, std::string_view a, const char* op, std::string_view b) {
  append_operand(out, a);
  out += ' ';
  out += op;
  out += ' ';
  append_operand(out, b);
}

}  // namespace

const OpInfo& op_info(Op op) {
  int index = static_cast<int>(op);
  TALON_INTERNAL_ASSERT(index >= 0 && index < kNumOps, "op out of range");
  return kTable[index].info;
}

void append_c_expression(std::string& out, Op op, std::span<const std::string_view> operands,
                         CPrecision precision) {
  const OpInfo& info = op_info(op);
  TALON_INTERNAL_ASSERT(info.arity > 0, "c_expression of a leaf");
  TALON_INTERNAL_ASSERT(static_cast<int>(operands.size()) == info.arity,
                        std::string("wrong operand count for ") + info.name);
  const char* one = precision == CPrecision::Float ? "1.0f" : "1.0";
  const char* zero = precision == CPrecision::Float ? "0.0f" : "0.0";
  switch (info.c_form) {
    case CForm::Infix:
      append_infix(out, operands[0], info.c_name, operands[1]);
      return;
    case CForm::Prefix:
      out += info.c_name;
      append_operand(out, operands[0]);
      return;
    case CForm::Call:
      append_call(out, info, operands, precision);
      return;
    case CForm::Compare:
      append_infix(out, operands[0], info.c_name, operands[1]);
      out.append(" ? ").append(one).append(" : ").append(zero);
      return;
    case CForm::Ternary:
      append_infix(out, operands[0], "!=", zero);
      out += " ? ";
      append_infix(out, operands[1], ":", operands[2]);
      return;
    case CForm::Leaf:
      break;
  }
  TALON_INTERNAL_ASSERT(false, "unhandled CForm");
}

std::string c_expression(Op op, std::span<const std::string> operands, CPrecision precision) {
  TALON_INTERNAL_ASSERT(operands.size() <= 3, "an op has at most three operands");
  std::string_view views[3];
  for (std::size_t i = 0; i < operands.size(); ++i) views[i] = operands[i];
  std::string out;
  append_c_expression(out, op, std::span<const std::string_view>(views, operands.size()),
                      precision);
  return out;
}

std::string c_literal(double value, CPrecision precision) {
  TALON_INTERNAL_ASSERT(!std::isnan(value), "NaN literal");
  const bool single = precision == CPrecision::Float;
  // A double beyond float range is an infinity in float code, as the conversion would be.
  const double representable = single ? static_cast<double>(static_cast<float>(value)) : value;
  if (std::isinf(representable)) return representable > 0 ? "INFINITY" : "-INFINITY";
  char buffer[64];
  // Shortest text that reads back to the same value (std::to_chars' guarantee).
  auto result = single ? std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value))
                       : std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, result.ptr);
  // "2" would be an int literal; make every literal a floating one.
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  if (single) text += 'f';
  return text;
}

}  // namespace talon::ir
