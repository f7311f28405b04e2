// Construction preserves values: random programs over every op, full of repeated
// subexpressions (hash-consing hits), constants (folding) and negations and zeros (the
// identities), evaluate bit for bit like the same program run in plain double arithmetic.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "ir/expr.h"
#include "ir/function.h"
#include "ir/interpreter.h"
#include "ir/printer.h"

namespace talon::ir {
namespace {

struct Value {
  Expr expr;
  double number;
};

// The op applied both symbolically and numerically (with libm directly, not the op table).
Value apply(Op op, const Value& a, const Value& b, const Value& c) {
  switch (op) {
    case Op::Add:
      return {a.expr + b.expr, a.number + b.number};
    case Op::Sub:
      return {a.expr - b.expr, a.number - b.number};
    case Op::Mul:
      return {a.expr * b.expr, a.number * b.number};
    case Op::Div:
      return {a.expr / b.expr, a.number / b.number};
    case Op::Neg:
      return {-a.expr, -a.number};
    case Op::Sqrt:
      return {sqrt(a.expr), std::sqrt(a.number)};
    case Op::Sin:
      return {sin(a.expr), std::sin(a.number)};
    case Op::Cos:
      return {cos(a.expr), std::cos(a.number)};
    case Op::Exp:
      return {exp(a.expr), std::exp(a.number)};
    case Op::Log:
      return {log(a.expr), std::log(a.number)};
    case Op::Tanh:
      return {tanh(a.expr), std::tanh(a.number)};
    case Op::Atan2:
      return {atan2(a.expr, b.expr), std::atan2(a.number, b.number)};
    case Op::Abs:
      return {abs(a.expr), std::fabs(a.number)};
    case Op::Min:
      return {min(a.expr, b.expr), std::fmin(a.number, b.number)};
    case Op::Max:
      return {max(a.expr, b.expr), std::fmax(a.number, b.number)};
    case Op::Lt:
      return {lt(a.expr, b.expr), a.number < b.number ? 1.0 : 0.0};
    case Op::Le:
      return {le(a.expr, b.expr), a.number <= b.number ? 1.0 : 0.0};
    case Op::Select:
      return {select(a.expr, b.expr, c.expr), a.number != 0.0 ? b.number : c.number};
    default:
      FAIL("not an operation");
      return {};
  }
}

// Whether the op is defined (finite, no domain error) at these operand values.
bool in_domain(Op op, double a, double b) {
  switch (op) {
    case Op::Div:
      return std::fabs(b) > 1e-3;
    case Op::Sqrt:
      return a >= 0.0;
    case Op::Log:
      return a > 1e-3;
    case Op::Exp:
      return a < 5.0;
    // The identities treat -0 as 0 (x*0 → 0, constants), and atan2 is the one op here whose
    // value depends on the sign of a zero: atan2(±0, x) = ±π for x < 0.
    case Op::Atan2:
      return a != 0.0 || b > 0.0;
    default:
      return true;
  }
}

TEST_CASE("construction preserves values on random programs over every op", "[ir][expr]") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    Graph g;
    std::mt19937 rng(seed);
    std::vector<Expr> vars;
    std::vector<double> inputs;
    std::vector<Value> pool;
    for (int k = 0; k < 4; ++k) {
      vars.push_back(g.variable("x" + std::to_string(k)));
      inputs.push_back(std::uniform_real_distribution<double>(-2.0, 2.0)(rng));
      pool.push_back({vars.back(), inputs.back()});
    }
    for (double c : {0.0, 1.0, -1.0, 2.0, 0.5}) pool.push_back({g.constant(c), c});
    auto pick = [&] {
      return pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng)];
    };

    for (int step = 0; step < 300; ++step) {
      const Op op = static_cast<Op>(std::uniform_int_distribution<int>(2, kNumOps - 1)(rng));
      Value a = pick(), b = pick(), c = pick();
      if (op == Op::Select) a = apply(Op::Lt, a, b, c);  // a 0/1 condition
      if (!in_domain(op, a.number, b.number)) continue;
      Value result = apply(op, a, b, c);
      // Keep magnitudes moderate so later steps stay in domain.
      if (std::fabs(result.number) > 10.0) result = apply(Op::Tanh, result, result, result);
      pool.push_back(result);
    }

    Function f{"random", vars, {}};
    std::vector<double> expected;
    for (const Value& v : pool) {
      f.outputs.push_back(v.expr);
      expected.push_back(v.number);
    }
    std::vector<double> actual = evaluate(f, inputs);
    for (std::size_t i = 0; i < pool.size(); ++i) {
      INFO("seed " << seed << ", value " << i << ": " << to_string(pool[i].expr));
      CHECK(actual[i] == expected[i]);
    }
  }
}

}  // namespace
}  // namespace talon::ir
