// ir/passes/stages.h: a function split into an early stage that needs none of its late inputs
// and a late stage over the early stage's values and the late inputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "common/diagnostics.h"
#include "ir/interpreter.h"
#include "ir/passes/derivative.h"
#include "ir/passes/stages.h"

namespace talon::ir {
namespace {

std::vector<double> concat(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST_CASE("stages: the late stage reads the early values its nodes need and nothing else") {
  Graph g;
  const Expr x = g.variable("x"), y = g.variable("y"), t = g.variable("t");
  const Expr s = sin(x) * y;
  // (sin x · y) t + x², a value without t, and a constant
  const Function f{"f", {x, y, t}, {s * t + x * x, x + 1.0, g.constant(2.0)}};
  const StagedFunction staged = split_stages(f, std::vector<Expr>{t}, "cache");
  // cached: sin(x)·y and x² (read by late nodes) and x + 1 (an output); not sin(x), y or x,
  // which only early nodes read, nor the constant
  REQUIRE(staged.early.outputs.size() == 3);
  CHECK(staged.early.outputs[0] == s);
  CHECK(staged.early.inputs == f.inputs);
  REQUIRE(staged.late.inputs.size() == 4);
  CHECK(staged.late.inputs.back() == t);
  CHECK(staged.late.outputs[1] == staged.late.inputs[2]);
  CHECK(staged.late.outputs[2].is_const(2.0));
  for (const std::vector<double>& point :
       {std::vector<double>{0.3, -1.7, 2.5}, std::vector<double>{-2.0, 0.25, -0.125}}) {
    const std::vector<double> cache = evaluate(staged.early, point);
    CHECK(evaluate(staged.late, concat(cache, {point[2]})) == evaluate(f, point));
  }
}

TEST_CASE("stages: a JVP's late stage is the product with the tangents and equals it exactly") {
  Graph g;
  const std::vector<Expr> x{g.variable("x0"), g.variable("x1")};
  const std::vector<Expr> t{g.variable("t0"), g.variable("t1")};
  const std::vector<Expr> r{atan2(x[1], x[0]) * exp(x[0]), sqrt(x[0] * x[0] + x[1] * x[1])};
  const std::vector<Expr> product = jvp(r, x, t);
  const Function f{"jvp", {x[0], x[1], t[0], t[1]}, product};
  const StagedFunction staged = split_stages(f, t, "cache");
  // the late stage has none of the primal's functions left: only arithmetic with t
  std::vector<Expr> stack(staged.late.outputs.begin(), staged.late.outputs.end());
  while (!stack.empty()) {
    const Expr e = stack.back();
    stack.pop_back();
    for (Op op : {Op::Sqrt, Op::Exp, Op::Atan2}) CHECK(e.op() != op);
    for (int a = 0; a < e.arity(); ++a) stack.push_back(e.arg(a));
  }
  const std::vector<double> at{0.8, -0.6}, tangent{0.3, 1.1};
  const std::vector<double> cache = evaluate(staged.early, concat(at, tangent));
  CHECK(evaluate(staged.late, concat(cache, tangent)) == evaluate(f, concat(at, tangent)));
}

TEST_CASE("stages: a late input must be an input of the function") {
  Graph g;
  const Expr x = g.variable("x"), t = g.variable("t");
  const Function f{"f", {x}, {x * 2.0}};
  CHECK_THROWS_AS(split_stages(f, std::vector<Expr>{t}, "cache"), InternalError);
}

}  // namespace
}  // namespace talon::ir
