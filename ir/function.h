// A named IR function: ordered inputs (Var expressions) and ordered outputs. This is the
// unit that the scheduler flattens, the interpreter evaluates and the emitters print.
#pragma once

#include <string>
#include <vector>

#include "ir/expr.h"

namespace talon::ir {

struct Function {
  std::string name;
  std::vector<Expr> inputs;   // distinct Var exprs; input i is the i-th value passed in
  std::vector<Expr> outputs;  // any exprs of the inputs' graph (constants allowed)
};

// Programmer-error checks shared by the passes (TALON_INTERNAL_ASSERT): non-null exprs of
// one graph, inputs are distinct variables. That every variable an output depends on is an
// input is checked by the passes as they walk the outputs.
void check_function(const Function& f);

// The graph of a function's exprs; nullptr when it has neither inputs nor outputs.
Graph* function_graph(const Function& f);

}  // namespace talon::ir
