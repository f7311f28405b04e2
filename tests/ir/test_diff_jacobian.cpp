// Sparse Jacobians, JVPs and VJPs on random expressions: against finite differences and
// against each other (J·v == jvp(v), Jᵀ·w == vjp(w)), and their structural sparsity.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "common/diagnostics.h"
#include "ir/passes/derivative.h"
#include "ir/topo.h"
#include "test_expr_support.h"

namespace talon::ir {
namespace {

using testing::central_difference;
using testing::RandomExprs;
using testing::values;

struct Problem {
  std::vector<Expr> vars, outputs;
};

// `rows` random outputs over `cols` variables; each output draws on a random subset.
Problem random_problem(Graph& g, int rows, int cols, unsigned seed) {
  Problem p;
  for (int k = 0; k < cols; ++k) p.vars.push_back(g.variable("x" + std::to_string(k)));
  RandomExprs shared(g, p.vars, seed);
  shared.grow(cols);  // some common subexpressions
  for (int r = 0; r < rows; ++r) {
    // Each row starts from two variables and one shared node, so rows are sparse but overlap.
    std::vector<Expr> seeds = {p.vars[(r * 7) % cols], p.vars[(r * 3 + 1) % cols], shared.pick()};
    RandomExprs row(g, seeds, seed * 31 + r);
    p.outputs.push_back(row.grow(6));
  }
  return p;
}

std::vector<double> random_point(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(n);
  for (double& v : x) v = u(rng);
  return x;
}

// Dense J (row-major) from a sparse Jacobian evaluated at x.
std::vector<double> dense(const SparseJacobian& j, const Problem& p, const std::vector<double>& x) {
  std::vector<double> out(j.rows * j.cols, 0.0);
  std::vector<double> v = values(j.value, p.vars, x);
  for (std::size_t e = 0; e < j.nnz(); ++e) out[j.row[e] * j.cols + j.col[e]] = v[e];
  return out;
}

void check_problem(int rows, int cols, unsigned seed) {
  Graph g;
  Problem p = random_problem(g, rows, cols, seed);
  SparseJacobian j = jacobian(p.outputs, p.vars);
  REQUIRE(j.rows == rows);
  REQUIRE(j.cols == cols);
  REQUIRE(j.row.size() == j.nnz());
  REQUIRE(j.col.size() == j.nnz());

  // Sorted row-major, no duplicates, and only where the row structurally depends on the column.
  for (std::size_t e = 1; e < j.nnz(); ++e) {
    CHECK(std::make_pair(j.row[e - 1], j.col[e - 1]) < std::make_pair(j.row[e], j.col[e]));
  }
  for (std::size_t e = 0; e < j.nnz(); ++e) {
    std::vector<const Node*> cone = topological_order(std::span(&p.outputs[j.row[e]], 1));
    std::set<const Node*> deps(cone.begin(), cone.end());
    CHECK(deps.count(p.vars[j.col[e]].node()) == 1);
  }

  const std::vector<double> x = random_point(cols, seed + 1);
  const std::vector<double> J = dense(j, p, x);
  // Against central differences, entry by entry (structural zeros included).
  for (int c = 0; c < cols; ++c) {
    for (int r = 0; r < rows; ++r) {
      auto f = [&](const std::vector<double>& at) { return values({p.outputs[r]}, p.vars, at)[0]; };
      INFO("row " << r << " col " << c);
      CHECK(J[r * cols + c] == Approx(central_difference(f, x, c)).epsilon(1e-5).margin(1e-7));
    }
  }

  // J·v == jvp(v) and Jᵀ·w == vjp(w) for random v, w.
  std::vector<double> v = random_point(cols, seed + 2), w = random_point(rows, seed + 3);
  std::vector<Expr> v_expr, w_expr;
  for (double vi : v) v_expr.push_back(g.constant(vi));
  for (double wi : w) w_expr.push_back(g.constant(wi));
  std::vector<double> jv = values(jvp(p.outputs, p.vars, v_expr), p.vars, x);
  std::vector<double> jtw = values(vjp(p.outputs, p.vars, w_expr), p.vars, x);
  for (int r = 0; r < rows; ++r) {
    double expected = 0;
    for (int c = 0; c < cols; ++c) expected += J[r * cols + c] * v[c];
    CHECK(jv[r] == Approx(expected).epsilon(1e-12).margin(1e-12));
  }
  for (int c = 0; c < cols; ++c) {
    double expected = 0;
    for (int r = 0; r < rows; ++r) expected += J[r * cols + c] * w[r];
    CHECK(jtw[c] == Approx(expected).epsilon(1e-12).margin(1e-12));
  }
}

TEST_CASE("jacobian, jvp and vjp agree with finite differences and each other",
          "[ir][diff][jacobian]") {
  // Many rows on few columns makes jacobian() sweep by columns (forward), few rows on many
  // columns by rows (reverse); both must give the same answers.
  for (unsigned seed : {1u, 2u, 3u}) {
    SECTION("more rows than columns, seed " + std::to_string(seed)) {
      check_problem(12, 3, seed);
    }
    SECTION("more columns than rows, seed " + std::to_string(seed)) {
      check_problem(3, 12, seed);
    }
    SECTION("square, seed " + std::to_string(seed)) {
      check_problem(8, 8, seed);
    }
  }
}

TEST_CASE("jacobian sparsity is structural and drops identically zero entries",
          "[ir][diff][jacobian]") {
  Graph g;
  std::vector<Expr> x = {g.variable("a"), g.variable("b"), g.variable("c"), g.variable("d")};
  std::vector<Expr> outputs = {
      x[0] * x[1],                         // row 0: cols 0, 1
      sin(x[3]),                           // row 1: col 3
      select(lt(x[2], x[0]), x[1], x[3]),  // row 2: cols 1, 3 (the condition has no derivative)
      g.constant(4.0),                     // row 3: empty
      x[2]};                               // row 4: col 2, value 1
  SparseJacobian j = jacobian(outputs, x);
  CHECK(j.row == std::vector<int>{0, 0, 1, 2, 2, 4});
  CHECK(j.col == std::vector<int>{0, 1, 3, 1, 3, 2});
  CHECK(j.value[0] == x[1]);
  CHECK(j.value[1] == x[0]);
  CHECK(j.value[2] == cos(x[3]));
  CHECK(j.value[5].is_const(1.0));
}

// Physics rows each touch a handful of variables of a large graph. Each row's sweep must cost
// time in proportion to its own cone: a pass over the whole graph per row would make this
// 50 000 × 250 000 node visits and time the test out.
TEST_CASE("jacobian of many sparse rows scales with the rows' cones", "[ir][diff][jacobian]") {
  constexpr int kRows = 50'000;
  Graph g;
  std::vector<Expr> x;
  for (int i = 0; i < kRows + 2; ++i) x.push_back(g.variable("x" + std::to_string(i)));
  std::vector<Expr> rows;
  for (int i = 0; i < kRows; ++i) rows.push_back(x[i] * x[i + 1] + sin(x[i + 2]));
  SparseJacobian j = jacobian(rows, x);
  REQUIRE(j.nnz() == 3 * kRows);
  const int r = 12'345;
  CHECK(j.row[3 * r] == r);
  CHECK(j.col[3 * r + 2] == r + 2);
  CHECK(j.value[3 * r] == x[r + 1]);
  CHECK(j.value[3 * r + 1] == x[r]);
  CHECK(j.value[3 * r + 2] == cos(x[r + 2]));
}

TEST_CASE("derivative queries with respect to a subset of variables", "[ir][diff][jacobian]") {
  Graph g;
  Expr a = g.variable("a"), b = g.variable("b");
  Expr f = a * a * b;
  std::vector<Expr> wrt = {b};
  SparseJacobian j = jacobian(std::vector<Expr>{f}, wrt);
  REQUIRE(j.nnz() == 1);
  CHECK(j.value[0] == a * a);
  CHECK(gradient(f, wrt)[0] == a * a);
  CHECK(gradient(sin(a), wrt)[0].is_const(0.0));
  std::vector<Expr> none;
  CHECK(jacobian(std::vector<Expr>{f}, none).nnz() == 0);
  CHECK(jvp(std::vector<Expr>{f}, wrt, std::vector<Expr>{g.constant(2.0)})[0] == 2.0 * (a * a));
}

TEST_CASE("derivative queries reject malformed arguments", "[ir][diff]") {
  Graph g, other;
  Expr a = g.variable("a"), b = g.variable("b"), z = other.variable("z");
  std::vector<Expr> out = {a * b};
  CHECK_THROWS_AS(gradient(a * b, std::vector<Expr>{a * b}), InternalError);  // not a variable
  CHECK_THROWS_AS(gradient(a * b, std::vector<Expr>{a, a}), InternalError);   // listed twice
  CHECK_THROWS_AS(gradient(a * b, std::vector<Expr>{z}), InternalError);      // other graph
  CHECK_THROWS_AS(jvp(out, std::vector<Expr>{a}, std::vector<Expr>{}), InternalError);
  CHECK_THROWS_AS(vjp(out, std::vector<Expr>{a}, std::vector<Expr>{}), InternalError);
  CHECK_THROWS_AS(gradient(Expr(), std::vector<Expr>{a}), InternalError);
}

}  // namespace
}  // namespace talon::ir
