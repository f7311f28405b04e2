// The reference interpreter against hand-computed values, the DAG walk against the schedule,
// and the dump format.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "common/diagnostics.h"
#include "ir/interpreter.h"
#include "ir/passes/schedule.h"
#include "ir/printer.h"
#include "test_expr_support.h"

namespace talon::ir {
namespace {

TEST_CASE("interpreter matches hand-computed values", "[ir][interp]") {
  Graph g;
  Expr x = g.variable("x"), y = g.variable("y");
  Function f{"f",
             {x, y},
             {sqrt(x * x + y * y), atan2(y, x), min(x, y) - max(x, y), lt(x, y) + 2.0 * le(y, y),
              select(lt(y, x), exp(x), log(y)), abs(x - y) / 2.0, tanh(x * 0.0 + 1.0), -(x / y)}};
  std::vector<double> r = evaluate(f, std::vector<double>{3.0, 4.0});
  REQUIRE(r.size() == 8);
  CHECK(r[0] == 5.0);
  CHECK(r[1] == std::atan2(4.0, 3.0));
  CHECK(r[2] == -1.0);
  CHECK(r[3] == 3.0);
  CHECK(r[4] == std::log(4.0));
  CHECK(r[5] == 0.5);
  CHECK(r[6] == std::tanh(1.0));
  CHECK(r[7] == -0.75);
  CHECK(evaluate(schedule(f), std::vector<double>{3.0, 4.0}) == r);

  std::vector<double> other = evaluate(f, std::vector<double>{-1.0, -2.0});
  CHECK(other[4] == std::exp(-1.0));
  CHECK(std::isnan(evaluate(Function{"nan", {x}, {sqrt(x)}}, std::vector<double>{-1.0})[0]));
}

TEST_CASE("interpreting the DAG and the schedule agree on random functions", "[ir][interp]") {
  Graph g;
  std::vector<Expr> vars = {g.variable("a"), g.variable("b"), g.variable("c")};
  testing::RandomExprs random(g, vars, 7);
  std::vector<Expr> outputs;
  for (int i = 0; i < 10; ++i) outputs.push_back(random.grow(15));
  // Inputs in a different order from the variable ids.
  Function f{"random", {vars[2], vars[0], vars[1]}, outputs};
  Schedule s = schedule(f);
  for (unsigned seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> in = {u(rng), u(rng), u(rng)};
    CHECK(evaluate(f, in) == evaluate(s, in));
  }
}

TEST_CASE("interpreter rejects a wrong input count and foreign variables", "[ir][interp]") {
  Graph g;
  Expr x = g.variable("x"), y = g.variable("y");
  Function f{"f", {x}, {x + 1.0}};
  CHECK_THROWS_AS(evaluate(f, std::vector<double>{}), InternalError);
  CHECK_THROWS_AS(evaluate(schedule(f), std::vector<double>{1.0, 2.0}), InternalError);
  CHECK_THROWS_AS(evaluate(Function{"g", {x}, {x * y}}, std::vector<double>{1.0}), InternalError);
  CHECK(evaluate(Function{}, std::vector<double>{}).empty());
}

TEST_CASE("dump prints one SSA line per instruction", "[ir][interp][dump]") {
  Graph g;
  Expr x = g.variable("x"), y = g.variable("y");
  Function f{"f", {x, y}, {sin(x * y) + 2.5, x}};
  CHECK(dump(f) ==
        "function f(x, y) -> 2 outputs\n"
        "  t0 = input 0 x\n"
        "  t1 = input 1 y\n"
        "  t2 = mul t0 t1\n"
        "  t3 = sin t2\n"
        "  t4 = const 2.5\n"
        "  t5 = add t3 t4\n"
        "  out0 = t5\n"
        "  out1 = t0\n");
  CHECK(dump(schedule(Function{"g", {y}, {-y}})) ==
        "function (v1) -> 1 output\n"
        "  t0 = input 0 v1\n"
        "  t1 = neg t0\n"
        "  out0 = t1\n");
}

}  // namespace
}  // namespace talon::ir
