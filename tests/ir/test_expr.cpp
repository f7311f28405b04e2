// The expression DAG: hash-consing, construction-time folding and identities, the checking
// factory, variables.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "common/diagnostics.h"
#include "ir/expr.h"
#include "ir/printer.h"

namespace talon::ir {
namespace {

TEST_CASE("hash-consing makes structural equality pointer equality", "[ir][expr]") {
  Graph g;
  Expr x = g.variable("x"), y = g.variable("y");
  CHECK(x + y == y + x);
  CHECK(x * y == y * x);
  CHECK(x - y != y - x);

  Expr first = sin(x * y) + cos(x) / y;
  const std::size_t nodes = g.num_nodes();
  Expr again = sin(y * x) + cos(x) / y;
  CHECK(first == again);
  CHECK(first.node() == again.node());
  CHECK(g.num_nodes() == nodes);  // the rebuild created nothing

  CHECK(g.constant(2.5) == g.constant(2.5));
  CHECK(g.constant(-0.0) == g.constant(0.0));
  CHECK_FALSE(std::signbit(g.constant(-0.0).constant()));
  CHECK(g.constant(1.0) != g.constant(std::nextafter(1.0, 2.0)));
}

TEST_CASE("hash-consing finds nodes however many parents their children have", "[ir][expr]") {
  Graph g;
  std::vector<Expr> constants;
  for (int k = 0; k < 1000; ++k) constants.push_back(g.constant(k + 2.0));
  Expr x = g.variable("x");  // newer than every constant: the anchor of each product below
  std::vector<Expr> products;
  for (Expr c : constants) products.push_back(x * c);
  Expr unary[] = {sin(x), cos(x), exp(x), -x, sqrt(x)};
  const std::size_t nodes = g.num_nodes();
  for (int k = 0; k < 1000; ++k) CHECK(g.constant(k + 2.0) * x == products[k]);
  CHECK(sin(x) == unary[0]);
  CHECK(cos(x) == unary[1]);
  CHECK(exp(x) == unary[2]);
  CHECK(-x == unary[3]);
  CHECK(sqrt(x) == unary[4]);
  CHECK(g.num_nodes() == nodes);
}

TEST_CASE("min and max keep their argument order (the tie convention depends on it)",
          "[ir][expr]") {
  Graph g;
  Expr x = g.variable("x"), y = g.variable("y");
  CHECK(min(x, y) != min(y, x));
  CHECK(max(x, y) != max(y, x));
  CHECK(min(x, y).arg(0) == x);
}

TEST_CASE("commutative operands are ordered by node id", "[ir][expr]") {
  Graph g;
  Expr x = g.variable("x"), y = g.variable("y");
  Expr sum = y + x;
  CHECK(sum.arg(0) == x);
  CHECK(sum.arg(1) == y);
}

TEST_CASE("variables have dense ids and keep their names", "[ir][expr]") {
  Graph g;
  Expr a = g.variable("a"), b = g.variable("b"), a2 = g.variable("a");
  CHECK(g.num_variables() == 3);
  CHECK(a.var_id() == 0);
  CHECK(b.var_id() == 1);
  CHECK(a2.var_id() == 2);
  CHECK(a != a2);  // same name, distinct inputs
  CHECK(g.variable_name(1) == "b");
  CHECK(g.var(2) == a2);
  CHECK(a.is_var());
  CHECK_FALSE(a.is_const());
}

TEST_CASE("node ids are creation order and children precede parents", "[ir][expr]") {
  Graph g;
  Expr x = g.variable("x");
  Expr e = sqrt(x * x + 1.0);
  for (uint32_t id = 0; id < g.num_nodes(); ++id) {
    Expr n = g.node(id);
    CHECK(n.id() == id);
    for (int i = 0; i < n.arity(); ++i) CHECK(n.arg(i).id() < id);
  }
  CHECK(e.id() == g.num_nodes() - 1);
  CHECK(&e.graph() == &g);
}

TEST_CASE("constants fold at construction", "[ir][expr]") {
  Graph g;
  Expr two = g.constant(2.0), three = g.constant(3.0);
  CHECK((two + three).is_const(5.0));
  CHECK((two - three).is_const(-1.0));
  CHECK((two * three).is_const(6.0));
  CHECK((three / two).is_const(1.5));
  CHECK((-two).is_const(-2.0));
  CHECK(sqrt(g.constant(9.0)).is_const(3.0));
  CHECK(atan2(g.constant(1.0), g.constant(1.0)).is_const(std::atan2(1.0, 1.0)));
  CHECK(min(two, three).is_const(2.0));
  CHECK(max(two, three).is_const(3.0));
  CHECK(lt(two, three).is_const(1.0));
  CHECK(le(three, two).is_const(0.0));
  CHECK(abs(g.constant(-4.0)).is_const(4.0));
  CHECK(exp(g.constant(0.0)).is_const(1.0));
  CHECK(select(lt(two, three), two, three).is_const(2.0));
  // A result that is not finite stays symbolic instead of becoming a NaN constant.
  Expr invalid = sqrt(g.constant(-1.0));
  CHECK(invalid.op() == Op::Sqrt);
  CHECK((g.constant(1.0) / g.constant(0.0)).op() == Op::Div);
  CHECK(log(g.constant(0.0)).op() == Op::Log);
}

TEST_CASE("simple identities apply at construction", "[ir][expr]") {
  Graph g;
  Expr x = g.variable("x"), y = g.variable("y"), c = g.variable("c");
  CHECK(x + 0.0 == x);
  CHECK(0.0 + x == x);
  CHECK(x - 0.0 == x);
  CHECK(0.0 - x == -x);
  CHECK((x - x).is_const(0.0));
  CHECK(x * 1.0 == x);
  CHECK(1.0 * x == x);
  CHECK((x * 0.0).is_const(0.0));
  CHECK((0.0 * x).is_const(0.0));
  CHECK(x * -1.0 == -x);
  CHECK(x / 1.0 == x);
  CHECK(x / -1.0 == -x);
  CHECK((0.0 / x).is_const(0.0));
  CHECK(-(-x) == x);
  CHECK(-(x - y) == y - x);
  CHECK(x - (-y) == x + y);
  CHECK(x + (-y) == x - y);
  CHECK((-y) + x == x - y);
  CHECK(abs(-x) == abs(x));
  CHECK(abs(abs(x)) == abs(x));
  CHECK(min(x, x) == x);
  CHECK(max(x, x) == x);
  CHECK(lt(x, x).is_const(0.0));
  CHECK(le(x, x).is_const(1.0));
  CHECK(select(g.constant(1.0), x, y) == x);
  CHECK(select(g.constant(0.0), x, y) == y);
  CHECK(select(c, x, x) == x);
  Expr cond = lt(x, y);
  CHECK(select(cond, g.constant(1.0), g.constant(0.0)) == cond);
  CHECK(select(cond, g.constant(0.0), g.constant(1.0)) == 1.0 - cond);
  // Without a known 0/1 condition the select stays.
  CHECK(select(c, g.constant(1.0), g.constant(0.0)).op() == Op::Select);
}

TEST_CASE("the factory rejects malformed nodes as programmer errors", "[ir][expr]") {
  Graph g, other;
  Expr x = g.variable("x"), y = g.variable("y"), z = other.variable("z");
  CHECK_THROWS_AS(g.make(Op::Add, x), InternalError);     // missing operand
  CHECK_THROWS_AS(g.make(Op::Neg, x, y), InternalError);  // extra operand
  CHECK_THROWS_AS(g.make(Op::Const, x), InternalError);   // leaves have own factories
  CHECK_THROWS_AS(g.make(Op::Var, x), InternalError);
  CHECK_THROWS_AS(x + z, InternalError);                    // graphs do not mix
  CHECK_THROWS_AS(g.make(Op::Sin, Expr()), InternalError);  // null operand
  CHECK_THROWS_AS(g.constant(std::numeric_limits<double>::quiet_NaN()), InternalError);
  CHECK_THROWS_AS(Expr().op(), InternalError);
  CHECK_THROWS_AS(x.constant(), InternalError);
  CHECK_THROWS_AS(g.constant(1.0).var_id(), InternalError);
  CHECK_THROWS_AS(x.arg(0), InternalError);
  CHECK_THROWS_AS(g.var(2), InternalError);
  CHECK(g.make(Op::Select, lt(x, y), x, y).op() == Op::Select);
}

TEST_CASE("infinite constants are allowed, NaN is not", "[ir][expr]") {
  Graph g;
  Expr inf = g.constant(std::numeric_limits<double>::infinity());
  CHECK(inf.is_const());
  CHECK(std::isinf(inf.constant()));
}

TEST_CASE("to_string prints nested expressions", "[ir][expr]") {
  Graph g;
  Expr x = g.variable("x"), y = g.variable("y");
  CHECK(to_string(sin(x) * 2.0 + y) == "add(y, mul(sin(x), 2))");
  CHECK(to_string(select(lt(x, y), x, y)) == "select(lt(x, y), x, y)");
  CHECK(to_string(Expr()) == "null");
}

TEST_CASE("Expr is hashable", "[ir][expr]") {
  Graph g;
  Expr x = g.variable("x");
  std::hash<Expr> hash;
  CHECK(hash(x + 1.0) == hash(1.0 + x));
}

}  // namespace
}  // namespace talon::ir
