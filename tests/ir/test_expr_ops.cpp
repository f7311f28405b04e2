// The op table: one complete entry per op, its values, and its C spelling.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "ir/ops.h"

namespace talon::ir {
namespace {

TEST_CASE("every op has a complete table entry", "[ir][ops]") {
  std::set<std::string> names;
  for (int i = 0; i < kNumOps; ++i) {
    const Op op = static_cast<Op>(i);
    const OpInfo& info = op_info(op);
    INFO(info.name);
    CHECK(names.insert(info.name).second);  // names are unique
    const bool leaf = op == Op::Const || op == Op::Var;
    CHECK((info.arity == 0) == leaf);
    CHECK(info.arity <= 3);
    CHECK((info.eval == nullptr) == leaf);
    CHECK((info.partial == nullptr) == leaf);
    CHECK((info.c_form == CForm::Leaf) == leaf);
  }
  CHECK(op_info(Op::Select).arity == 3);
  CHECK(op_info(Op::Atan2).arity == 2);
  CHECK(op_info(Op::Sqrt).arity == 1);
  CHECK(op_info(Op::Add).commutative);
  CHECK(op_info(Op::Mul).commutative);
  CHECK_FALSE(op_info(Op::Min).commutative);
  CHECK(std::string(op_name(Op::Mul)) == "mul");
}

TEST_CASE("table values match libm", "[ir][ops]") {
  auto eval = [](Op op, double a, double b = 0, double c = 0) { return op_info(op).eval(a, b, c); };
  CHECK(eval(Op::Add, 1.5, 2.25) == 3.75);
  CHECK(eval(Op::Sub, 1.5, 2.25) == -0.75);
  CHECK(eval(Op::Mul, 1.5, -2.0) == -3.0);
  CHECK(eval(Op::Div, 1.0, 4.0) == 0.25);
  CHECK(eval(Op::Neg, 3.0) == -3.0);
  CHECK(eval(Op::Sqrt, 2.0) == std::sqrt(2.0));
  CHECK(eval(Op::Sin, 0.3) == std::sin(0.3));
  CHECK(eval(Op::Cos, 0.3) == std::cos(0.3));
  CHECK(eval(Op::Exp, 0.3) == std::exp(0.3));
  CHECK(eval(Op::Log, 0.3) == std::log(0.3));
  CHECK(eval(Op::Tanh, 0.3) == std::tanh(0.3));
  CHECK(eval(Op::Atan2, -1.0, -2.0) == std::atan2(-1.0, -2.0));
  CHECK(eval(Op::Abs, -0.5) == 0.5);
  CHECK(eval(Op::Min, 2.0, -1.0) == -1.0);
  CHECK(eval(Op::Max, 2.0, -1.0) == 2.0);
  CHECK(eval(Op::Lt, 1.0, 1.0) == 0.0);
  CHECK(eval(Op::Lt, 0.5, 1.0) == 1.0);
  CHECK(eval(Op::Le, 1.0, 1.0) == 1.0);
  CHECK(eval(Op::Le, 2.0, 1.0) == 0.0);
  CHECK(eval(Op::Select, 1.0, 7.0, 8.0) == 7.0);
  CHECK(eval(Op::Select, 0.0, 7.0, 8.0) == 8.0);
}

TEST_CASE("C spelling of every op", "[ir][ops]") {
  using S = std::vector<std::string>;
  CHECK(c_expression(Op::Add, S{"t1", "t2"}) == "t1 + t2");
  CHECK(c_expression(Op::Sub, S{"t1", "-2.0"}) == "t1 - (-2.0)");
  CHECK(c_expression(Op::Mul, S{"in[3]", "0.5"}) == "in[3] * 0.5");
  CHECK(c_expression(Op::Div, S{"t1", "t2 + t3"}) == "t1 / (t2 + t3)");
  CHECK(c_expression(Op::Neg, S{"t4"}) == "-t4");
  CHECK(c_expression(Op::Neg, S{"-t4"}) == "-(-t4)");  // never "--"
  CHECK(c_expression(Op::Sqrt, S{"t1"}) == "sqrt(t1)");
  CHECK(c_expression(Op::Sqrt, S{"t1"}, CPrecision::Float) == "sqrtf(t1)");
  CHECK(c_expression(Op::Atan2, S{"t1", "t2"}) == "atan2(t1, t2)");
  CHECK(c_expression(Op::Abs, S{"t1"}) == "fabs(t1)");
  CHECK(c_expression(Op::Min, S{"t1", "t2"}, CPrecision::Float) == "fminf(t1, t2)");
  CHECK(c_expression(Op::Max, S{"t1", "t2"}) == "fmax(t1, t2)");
  CHECK(c_expression(Op::Lt, S{"t1", "t2"}) == "t1 < t2 ? 1.0 : 0.0");
  CHECK(c_expression(Op::Le, S{"t1", "t2"}, CPrecision::Float) == "t1 <= t2 ? 1.0f : 0.0f");
  CHECK(c_expression(Op::Select, S{"t1", "t2", "t3"}) == "t1 != 0.0 ? t2 : t3");
  CHECK_THROWS_AS(c_expression(Op::Const, S{}), InternalError);
  CHECK_THROWS_AS(c_expression(Op::Add, S{"t1"}), InternalError);
}

TEST_CASE("C literals are floating and round-trip", "[ir][ops]") {
  CHECK(c_literal(2.0) == "2.0");
  CHECK(c_literal(-0.5) == "-0.5");
  CHECK(c_literal(0.0) == "0.0");
  CHECK(c_literal(2.0, CPrecision::Float) == "2.0f");
  CHECK(c_literal(std::numeric_limits<double>::infinity()) == "INFINITY");
  CHECK(c_literal(-std::numeric_limits<double>::infinity()) == "-INFINITY");
  CHECK(c_literal(1e300, CPrecision::Float) == "INFINITY");  // beyond float range
  for (double v : {0.1, 1.0 / 3.0, -1e-300, 6.02214076e23, 4.9e-324, 123456789.0}) {
    INFO(v);
    std::string text = c_literal(v);
    CHECK(std::strtod(text.c_str(), nullptr) == v);
    CHECK(text.find_first_of(".e") != std::string::npos);
  }
  std::string single = c_literal(0.1, CPrecision::Float);
  CHECK(single.back() == 'f');
  CHECK(std::strtof(single.c_str(), nullptr) == 0.1f);
  CHECK_THROWS_AS(c_literal(std::nan("")), InternalError);
}

}  // namespace
}  // namespace talon::ir
