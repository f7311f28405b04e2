// The scheduler: straight-line SSA in topological order, each node once, dead code dropped,
// inputs first, deterministic.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "common/diagnostics.h"
#include "ir/passes/schedule.h"
#include "test_expr_support.h"

namespace talon::ir {
namespace {

// Every argument slot is defined by an earlier instruction; slots are the instruction index.
void check_well_formed(const Schedule& s) {
  REQUIRE(s.num_slots == static_cast<int>(s.instrs.size()));
  for (std::size_t i = 0; i < s.instrs.size(); ++i) {
    const Instr& instr = s.instrs[i];
    CHECK(instr.result == static_cast<int>(i));
    const int arity = op_info(instr.op).arity;
    for (int a = 0; a < 3; ++a) {
      if (a < arity) {
        CHECK(instr.args[a] >= 0);
        CHECK(instr.args[a] < instr.result);
      } else {
        CHECK(instr.args[a] == -1);
      }
    }
  }
  for (int out : s.output_slots) {
    CHECK(out >= 0);
    CHECK(out < s.num_slots);
  }
}

bool same_schedule(const Schedule& a, const Schedule& b) {
  if (a.num_slots != b.num_slots || a.output_slots != b.output_slots ||
      a.input_var_ids != b.input_var_ids || a.instrs.size() != b.instrs.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.instrs.size(); ++i) {
    const Instr &x = a.instrs[i], &y = b.instrs[i];
    if (x.op != y.op || x.result != y.result || x.args[0] != y.args[0] || x.args[1] != y.args[1] ||
        x.args[2] != y.args[2] || x.constant != y.constant || x.var_id != y.var_id ||
        x.input_index != y.input_index) {
      return false;
    }
  }
  return true;
}

TEST_CASE("schedule: topological SSA, shared nodes once, dead nodes dropped", "[ir][schedule]") {
  Graph g;
  Expr x = g.variable("x"), y = g.variable("y"), unused = g.variable("unused");
  Expr shared = x * y;
  Expr dead = cos(shared) + 5.0;  // built, never an output
  (void)dead;
  Function f{"f", {x, unused, y}, {sin(shared) + shared, shared, g.constant(2.0)}};
  Schedule s = schedule(f);
  check_well_formed(s);
  CHECK(s.input_var_ids == std::vector<int>{0, 2, 1});

  // x, y, mul, sin, add, const: each once; no cos, no load of `unused`.
  CHECK(s.instrs.size() == 6);
  std::multiset<Op> ops;
  for (const Instr& instr : s.instrs) ops.insert(instr.op);
  CHECK(ops.count(Op::Mul) == 1);
  CHECK(ops.count(Op::Cos) == 0);
  CHECK(ops.count(Op::Var) == 2);

  // Input loads first, in input order (x is input 0, y input 2).
  REQUIRE(s.instrs[0].op == Op::Var);
  REQUIRE(s.instrs[1].op == Op::Var);
  CHECK(s.instrs[0].var_id == x.var_id());
  CHECK(s.instrs[0].input_index == 0);
  CHECK(s.instrs[1].var_id == y.var_id());
  CHECK(s.instrs[1].input_index == 2);

  REQUIRE(s.output_slots.size() == 3);
  CHECK(s.instrs[s.output_slots[1]].op == Op::Mul);
  CHECK(s.instrs[s.output_slots[2]].op == Op::Const);
  CHECK(s.instrs[s.output_slots[2]].constant == 2.0);
  CHECK(s.instrs[s.output_slots[0]].op == Op::Add);
}

TEST_CASE("schedule is deterministic for a deterministically built graph", "[ir][schedule]") {
  auto build_and_schedule = [] {
    Graph g;
    std::vector<Expr> vars = {g.variable("a"), g.variable("b"), g.variable("c")};
    testing::RandomExprs random(g, vars, 42);
    std::vector<Expr> outputs;
    for (int i = 0; i < 5; ++i) outputs.push_back(random.grow(20));
    return schedule(Function{"f", vars, outputs});
  };
  Schedule first = build_and_schedule();
  Schedule second = build_and_schedule();
  check_well_formed(first);
  CHECK(same_schedule(first, second));
  CHECK(first.instrs.size() > 20);
}

TEST_CASE("schedule of degenerate functions", "[ir][schedule]") {
  Graph g;
  Expr x = g.variable("x");
  Schedule empty = schedule(Function{"empty", {x}, {}});
  CHECK(empty.instrs.empty());
  CHECK(empty.input_var_ids == std::vector<int>{0});
  Schedule identity = schedule(Function{"id", {x}, {x, x}});
  CHECK(identity.instrs.size() == 1);
  CHECK(identity.output_slots == std::vector<int>{0, 0});
  Schedule nothing = schedule(Function{});
  CHECK(nothing.num_slots == 0);
}

TEST_CASE("schedule rejects functions that use variables they do not take", "[ir][schedule]") {
  Graph g, other;
  Expr x = g.variable("x"), y = g.variable("y");
  CHECK_THROWS_AS(schedule(Function{"f", {x}, {x + y}}), InternalError);
  CHECK_THROWS_AS(schedule(Function{"f", {x, x}, {x}}), InternalError);
  CHECK_THROWS_AS(schedule(Function{"f", {x + y}, {x}}), InternalError);
  CHECK_THROWS_AS(schedule(Function{"f", {x}, {Expr()}}), InternalError);
  CHECK_THROWS_AS(schedule(Function{"f", {x}, {other.variable("z")}}), InternalError);
}

}  // namespace
}  // namespace talon::ir
