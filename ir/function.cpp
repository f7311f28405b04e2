#include "ir/function.h"

#include <vector>

#include "common/diagnostics.h"

namespace talon::ir {

Graph* function_graph(const Function& f) {
  for (const Expr& e : f.inputs) {
    if (e) return &e.graph();
  }
  for (const Expr& e : f.outputs) {
    if (e) return &e.graph();
  }
  return nullptr;
}

void check_function(const Function& f) {
  Graph* graph = function_graph(f);
  const std::string where = " (function '" + f.name + "')";
  for (const Expr& e : f.outputs) {
    TALON_INTERNAL_ASSERT(static_cast<bool>(e), "null output" + where);
    TALON_INTERNAL_ASSERT(&e.graph() == graph, "outputs from different graphs" + where);
  }
  std::vector<bool> seen(graph ? graph->num_variables() : 0, false);
  for (const Expr& e : f.inputs) {
    TALON_INTERNAL_ASSERT(static_cast<bool>(e), "null input" + where);
    TALON_INTERNAL_ASSERT(&e.graph() == graph, "inputs from different graphs" + where);
    TALON_INTERNAL_ASSERT(e.is_var(), "an input is not a variable" + where);
    TALON_INTERNAL_ASSERT(!seen[e.var_id()], "input listed twice" + where);
    seen[e.var_id()] = true;
  }
}

}  // namespace talon::ir
