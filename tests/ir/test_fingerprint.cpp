// The structural fingerprint (ir/fingerprint.h): equal for the same computation built in two
// graphs, different for any change that changes the code (a constant, an op, an output's
// order, an input's order, a name), blind to variable names.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ir/fingerprint.h"

namespace talon::ir {
namespace {

struct Variant {
  double constant = 2.5;
  bool swap_outputs = false;
  bool swap_inputs = false;
  bool sine = true;
  std::string name = "kernel";
  std::string variable = "x";
};

// f(x, y) = (c·x + sin y, x·y), built in a fresh graph, and a second function of the graph.
std::string fingerprint_of(const Variant& v) {
  Graph graph;
  Expr x = graph.variable(v.variable), y = graph.variable("y");
  Expr first = v.constant * x + (v.sine ? sin(y) : cos(y));
  Expr second = x * y;
  Function f{v.name, v.swap_inputs ? std::vector<Expr>{y, x} : std::vector<Expr>{x, y},
             v.swap_outputs ? std::vector<Expr>{second, first} : std::vector<Expr>{first, second}};
  Function g{"other", {x}, {x * 3.0}};
  return structural_fingerprint(std::vector<Function>{f, g});
}

}  // namespace

TEST_CASE("a structural fingerprint identifies the computation, not the graph object",
          "[ir][fingerprint]") {
  const std::string base = fingerprint_of({});
  CHECK(fingerprint_of({}) == base);
  Variant renamed_variable;
  renamed_variable.variable = "position";
  CHECK(fingerprint_of(renamed_variable) == base);

  Variant constant, outputs, inputs, op, name;
  constant.constant = 2.5000000000000004;
  outputs.swap_outputs = true;
  inputs.swap_inputs = true;
  op.sine = false;
  name.name = "kernel2";
  for (const Variant* changed : {&constant, &outputs, &inputs, &op, &name})
    CHECK(fingerprint_of(*changed) != base);
}

TEST_CASE("a structural fingerprint tells functions of one graph from those of two",
          "[ir][fingerprint]") {
  Graph one, two;
  Expr a = one.variable("a"), b = two.variable("a");
  const Function f{"f", {a}, {a + 1.0}}, g{"g", {a}, {a * 2.0}};
  const Function g_apart{"g", {b}, {b * 2.0}};
  // g in a graph of its own has other node ids than g beside f.
  CHECK(structural_fingerprint(std::vector<Function>{f, g}) !=
        structural_fingerprint(std::vector<Function>{f, g_apart}));
  // A graph's every node counts, used or not: the key may differ where the code would not,
  // never the other way round.
  Graph three;
  Expr c = three.variable("a");
  const Function f_alone{"f", {c}, {c + 1.0}};
  CHECK(structural_fingerprint(std::vector<Function>{f}) !=
        structural_fingerprint(std::vector<Function>{f_alone}));
  CHECK(structural_fingerprint(std::vector<Function>{}).empty());
}

}  // namespace talon::ir
