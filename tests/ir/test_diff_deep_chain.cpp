// A 10⁶-deep chain is built, differentiated (reverse, forward, Jacobian), scheduled,
// interpreted and freed: nothing in the IR may recurse over graph depth. Runs on the default
// 8 MB stack, where any per-node recursion would overflow long before the end.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <vector>

#include "ir/interpreter.h"
#include "ir/passes/derivative.h"
#include "ir/passes/schedule.h"

namespace talon::ir {
namespace {

// sin∘…∘sin(x0) and its derivative Π_k cos(s_k), s_0 = x0, s_{k+1} = sin(s_k), in plain double.
struct ChainValues {
  double value = 0, derivative = 1;
};
ChainValues chain_values(int depth, double x0) {
  ChainValues r{x0, 1.0};
  for (int i = 0; i < depth; ++i) {
    r.derivative *= std::cos(r.value);
    r.value = std::sin(r.value);
  }
  return r;
}

Expr sin_chain(Expr x, int depth) {
  Expr chain = x;
  for (int i = 0; i < depth; ++i) chain = sin(chain);
  return chain;
}

TEST_CASE("a million-deep chain builds, differentiates, schedules and frees iteratively",
          "[ir][diff][deep]") {
  constexpr int kDepth = 1'000'000;
  auto graph = std::make_unique<Graph>();
  Graph& g = *graph;
  Expr x = g.variable("x");
  Expr chain = sin_chain(x, kDepth);
  REQUIRE(g.num_nodes() == kDepth + 1);

  std::vector<Expr> wrt{x};
  Expr derivative = gradient(chain, wrt)[0];
  SparseJacobian j = jacobian(std::vector<Expr>{chain}, wrt);
  REQUIRE(j.nnz() == 1);
  CHECK(j.value[0] == derivative);  // the same sweep, hash-consed onto the same nodes

  Schedule s = schedule(Function{"deep", {x}, {chain, derivative}});
  CHECK(s.instrs.size() <= g.num_nodes());
  const double x0 = 0.8;
  const ChainValues expected = chain_values(kDepth, x0);
  std::vector<double> result = evaluate(s, std::vector<double>{x0});
  CHECK(result[0] == Approx(expected.value).epsilon(1e-12));
  CHECK(result[1] == Approx(expected.derivative).epsilon(1e-9));

  // Frees millions of nodes: a destructor that recursed over the chain would overflow the
  // stack and crash the test here.
  graph.reset();
}

// Forward mode and the DAG interpreter on a shallower chain: 200 000 levels already need far
// more stack than 8 MB if any of them recursed per level.
TEST_CASE("forward mode and the DAG interpreter handle deep chains iteratively",
          "[ir][diff][deep]") {
  constexpr int kDepth = 200'000;
  Graph g;
  Expr x = g.variable("x");
  Expr chain = sin_chain(x, kDepth);
  std::vector<Expr> wrt{x};
  Expr forward = jvp(std::vector<Expr>{chain}, wrt, std::vector<Expr>{g.constant(1.0)})[0];
  const ChainValues expected = chain_values(kDepth, -0.4);
  std::vector<double> result =
      evaluate(Function{"deep", {x}, {chain, forward}}, std::vector<double>{-0.4});
  CHECK(result[0] == Approx(expected.value).epsilon(1e-12));
  CHECK(result[1] == Approx(expected.derivative).epsilon(1e-9));
}

}  // namespace
}  // namespace talon::ir
