// Every op's derivative (from the op table) against central finite differences, in reverse
// and forward mode, and the documented conventions at non-smooth points.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "ir/passes/derivative.h"
#include "test_expr_support.h"

namespace talon::ir {
namespace {

using testing::central_difference;
using testing::value;
using testing::values;

struct OpCase {
  Op op;
  std::vector<std::vector<double>> points;  // (x, y); y unused for unary ops
};

// Points away from each op's non-smooth or singular set.
const std::vector<std::vector<double>> kGeneralPoints = {
    {0.7, -1.3}, {2.1, 0.4}, {-0.3, -0.8}, {1.5, 1.6}, {-2.5, 3.0}};
const std::vector<std::vector<double>> kPositivePoints = {
    {0.7, 1.3}, {2.1, 0.4}, {0.05, 0.8}, {9.0, 1.6}};

std::vector<OpCase> smooth_cases() {
  return {{Op::Add, kGeneralPoints},  {Op::Sub, kGeneralPoints},  {Op::Mul, kGeneralPoints},
          {Op::Div, kGeneralPoints},  {Op::Neg, kGeneralPoints},  {Op::Sqrt, kPositivePoints},
          {Op::Sin, kGeneralPoints},  {Op::Cos, kGeneralPoints},  {Op::Exp, kGeneralPoints},
          {Op::Log, kPositivePoints}, {Op::Tanh, kGeneralPoints}, {Op::Atan2, kGeneralPoints},
          {Op::Abs, kGeneralPoints},  {Op::Min, kGeneralPoints},  {Op::Max, kGeneralPoints},
          {Op::Lt, kGeneralPoints},   {Op::Le, kGeneralPoints}};
}

TEST_CASE("every op's partials match central differences (reverse and forward mode)",
          "[ir][diff]") {
  for (const OpCase& c : smooth_cases()) {
    Graph g;
    std::vector<Expr> vars = {g.variable("x"), g.variable("y")};
    const bool binary = op_info(c.op).arity == 2;
    Expr f = binary ? g.make(c.op, vars[0], vars[1]) : g.make(c.op, vars[0]);
    std::vector<Expr> grad = gradient(f, vars);
    std::vector<Expr> directional =
        jvp(std::vector<Expr>{f}, vars, std::vector<Expr>{g.constant(0.3), g.constant(-0.7)});
    for (const std::vector<double>& x : c.points) {
      INFO(op_name(c.op) << " at (" << x[0] << ", " << x[1] << ")");
      auto fx = [&](const std::vector<double>& p) { return value(f, vars, p); };
      std::vector<double> g_value = values(grad, vars, x);
      double fd_x = central_difference(fx, x, 0);
      double fd_y = central_difference(fx, x, 1);
      CHECK(g_value[0] == Approx(fd_x).epsilon(1e-6).margin(1e-8));
      CHECK(g_value[1] == Approx(fd_y).epsilon(1e-6).margin(1e-8));
      CHECK(value(directional[0], vars, x) ==
            Approx(0.3 * fd_x - 0.7 * fd_y).epsilon(1e-6).margin(1e-8));
    }
  }
}

// d/dx of f at x for a single-variable f.
double derivative_at(Expr f, Expr x, double at) {
  std::vector<Expr> vars{x};
  return value(gradient(f, vars)[0], vars, {at});
}

TEST_CASE("abs'(0) = 0, and abs is differentiable on either side", "[ir][diff]") {
  Graph g;
  Expr x = g.variable("x");
  CHECK(derivative_at(abs(x), x, 0.0) == 0.0);
  CHECK(derivative_at(abs(x), x, 1e-3) == 1.0);
  CHECK(derivative_at(abs(x), x, -1e-3) == -1.0);
}

TEST_CASE("min and max send the whole derivative to the first argument on ties", "[ir][diff]") {
  Graph g;
  std::vector<Expr> vars = {g.variable("x"), g.variable("y")};
  const std::vector<double> tie = {0.5, 0.5};
  const double h = 1e-6;
  std::vector<double> d_min = values(gradient(min(vars[0], vars[1]), vars), vars, tie);
  std::vector<double> d_max = values(gradient(max(vars[0], vars[1]), vars), vars, tie);
  CHECK(d_min == std::vector<double>{1.0, 0.0});
  CHECK(d_max == std::vector<double>{1.0, 0.0});
  // Each equals a one-sided difference quotient in x: from below for min, above for max.
  CHECK(d_min[0] == Approx((std::fmin(0.5, 0.5) - std::fmin(0.5 - h, 0.5)) / h));
  CHECK(d_max[0] == Approx((std::fmax(0.5 + h, 0.5) - std::fmax(0.5, 0.5)) / h));
  // Swapping the arguments swaps who receives it.
  CHECK(values(gradient(min(vars[1], vars[0]), vars), vars, tie) == std::vector<double>{0.0, 1.0});
}

TEST_CASE("sqrt'(0) is guarded to 0 and exact just above 0", "[ir][diff]") {
  Graph g;
  Expr x = g.variable("x");
  CHECK(derivative_at(sqrt(x), x, 0.0) == 0.0);
  CHECK(derivative_at(sqrt(x), x, 1e-4) == Approx(0.5 / std::sqrt(1e-4)));
  // The smoothed norm the lowering uses has a finite, correct derivative at 0.
  Expr smoothed = sqrt(x * x + 1e-12);
  CHECK(derivative_at(smoothed, x, 0.0) == 0.0);
  CHECK(derivative_at(smoothed, x, 1e-6) == Approx(1e-6 / std::sqrt(1e-12 + 1e-12)));
}

TEST_CASE("atan2 has zero partials at the origin and exact ones elsewhere", "[ir][diff]") {
  Graph g;
  std::vector<Expr> vars = {g.variable("y"), g.variable("x")};
  std::vector<Expr> grad = gradient(atan2(vars[0], vars[1]), vars);
  CHECK(values(grad, vars, {0.0, 0.0}) == std::vector<double>{0.0, 0.0});
  std::vector<double> near = values(grad, vars, {0.0, 1e-3});
  CHECK(near[0] == Approx(1e3));
  CHECK(near[1] == 0.0);
}

TEST_CASE("comparisons have zero derivative, select follows the chosen branch", "[ir][diff]") {
  Graph g;
  Expr c = g.variable("c");
  std::vector<Expr> vars = {g.variable("x"), g.variable("y"), c};
  Expr x = vars[0], y = vars[1];
  CHECK(gradient(lt(x, y), vars)[0].is_const(0.0));
  CHECK(gradient(le(x, y), vars)[1].is_const(0.0));

  Expr branchy = select(lt(x, y), x * x, 3.0 * y);
  std::vector<Expr> grad = gradient(branchy, vars);
  CHECK(values(grad, vars, {0.5, 1.0, 0.0}) == std::vector<double>{1.0, 0.0, 0.0});
  CHECK(values(grad, vars, {2.0, 1.0, 0.0}) == std::vector<double>{0.0, 3.0, 0.0});
  CHECK(grad[2].is_const(0.0));

  // A variable condition: zero derivative w.r.t. it, the branch's w.r.t. the rest.
  std::vector<Expr> by_var = gradient(select(c, sin(x), y * y), vars);
  CHECK(values(by_var, vars, {0.3, 2.0, 1.0}) == std::vector<double>{std::cos(0.3), 0.0, 0.0});
  CHECK(values(by_var, vars, {0.3, 2.0, 0.0}) == std::vector<double>{0.0, 4.0, 0.0});
}

TEST_CASE("derivatives are Exprs and can be differentiated again", "[ir][diff]") {
  Graph g;
  Expr x = g.variable("x");
  std::vector<Expr> vars{x};
  Expr f = exp(sin(x)) * tanh(x);
  Expr df = gradient(f, vars)[0];
  Expr ddf = gradient(df, vars)[0];
  for (double at : {-1.1, 0.2, 0.9}) {
    auto dfx = [&](const std::vector<double>& p) { return value(df, vars, p); };
    CHECK(value(ddf, vars, {at}) == Approx(central_difference(dfx, {at}, 0)).epsilon(1e-6));
  }
  CHECK(gradient(sin(x), vars)[0] == cos(x));  // shares nodes with the primal
}

}  // namespace
}  // namespace talon::ir
