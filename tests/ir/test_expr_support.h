// Helpers shared by the IR core tests: numeric evaluation of Exprs, central finite
// differences, and a deterministic random expression generator.
#pragma once

#include <cmath>
#include <functional>
#include <random>
#include <span>
#include <vector>

#include "ir/expr.h"
#include "ir/function.h"
#include "ir/interpreter.h"

namespace talon::ir::testing {

// The values of `exprs` at vars = x (reference interpreter).
inline std::vector<double> values(std::vector<Expr> exprs, const std::vector<Expr>& vars,
                                  const std::vector<double>& x) {
  return evaluate(Function{"probe", vars, std::move(exprs)}, x);
}

inline double value(Expr e, const std::vector<Expr>& vars, const std::vector<double>& x) {
  return values({e}, vars, x)[0];
}

// ∂f/∂x_k by central differences with step h.
inline double central_difference(const std::function<double(const std::vector<double>&)>& f,
                                 std::vector<double> x, int k, double h = 1e-6) {
  const double x0 = x[k];
  x[k] = x0 + h;
  const double plus = f(x);
  x[k] = x0 - h;
  const double minus = f(x);
  return (plus - minus) / (2 * h);
}

// Random smooth expressions over a set of variables: every op keeps values finite and
// moderate for variables in [-1, 1] (denominators and sqrt/log arguments bounded away from 0).
class RandomExprs {
 public:
  RandomExprs(Graph& graph, std::vector<Expr> vars, unsigned seed)
      : graph_(graph), pool_(std::move(vars)), rng_(seed) {}

  // Adds `count` random nodes to the pool and returns the last one.
  Expr grow(int count) {
    for (int i = 0; i < count; ++i) pool_.push_back(squash(random_node()));
    return pool_.back();
  }
  Expr pick() {
    return pool_[std::uniform_int_distribution<std::size_t>(0, pool_.size() - 1)(rng_)];
  }
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }

 private:
  // Keeps every pool value inside (-pi/2, pi/2) (or [-1, 1] for the variables), so log and
  // division arguments stay positive and finite differences stay accurate at any depth.
  Expr squash(Expr e) {
    Op op = e.op();
    bool bounded = op == Op::Sin || op == Op::Cos || op == Op::Tanh || op == Op::Atan2;
    return bounded ? e : tanh(e);
  }

  Expr random_node() {
    Expr a = pick(), b = pick();
    switch (std::uniform_int_distribution<int>(0, 10)(rng_)) {
      case 0:
        return a + b;
      case 1:
        return a - b;
      case 2:
        return a * b;
      case 3:
        return a / (2.5 + sin(b));
      case 4:
        return sin(a);
      case 5:
        return cos(a);
      case 6:
        return tanh(a + b);
      case 7:
        return atan2(a, 2.0 + b * b);
      case 8:
        return sqrt(1.0 + a * a);
      case 9:
        return log(3.0 + a);
      default:
        return exp(0.5 * a) * graph_.constant(uniform(-2, 2));
    }
  }

  Graph& graph_;
  std::vector<Expr> pool_;
  std::mt19937 rng_;
};

}  // namespace talon::ir::testing
