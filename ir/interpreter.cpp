#include "ir/interpreter.h"

#include "common/diagnostics.h"
#include "ir/topo.h"

namespace talon::ir {
namespace {

double apply(Op op, const double* args) {
  const OpInfo& info = op_info(op);
  return info.eval(args[0], info.arity > 1 ? args[1] : 0.0, info.arity > 2 ? args[2] : 0.0);
}

}  // namespace

std::vector<double> evaluate(const Function& f, std::span<const double> inputs) {
  check_function(f);
  TALON_INTERNAL_ASSERT(inputs.size() == f.inputs.size(), "evaluate: wrong number of inputs");
  Graph* graph = function_graph(f);
  if (graph == nullptr || f.outputs.empty()) return {};
  std::vector<int> input_of_var(graph->num_variables(), -1);
  for (std::size_t k = 0; k < f.inputs.size(); ++k) {
    input_of_var[f.inputs[k].var_id()] = static_cast<int>(k);
  }
  ConeCollector collector(*graph);
  std::span<const Node* const> cone = collector.collect(f.outputs);
  std::vector<double> value(cone.size());
  for (std::size_t p = 0; p < cone.size(); ++p) {
    const Node* node = cone[p];
    if (node->op() == Op::Const) {
      value[p] = node->constant();
    } else if (node->op() == Op::Var) {
      int k = input_of_var[node->var_id()];
      TALON_INTERNAL_ASSERT(k >= 0, "evaluate: function '" + f.name + "' uses a variable '" +
                                        graph->variable_name(node->var_id()) +
                                        "' that is not one of its inputs");
      value[p] = inputs[k];
    } else {
      double args[3] = {0.0, 0.0, 0.0};
      for (int i = 0; i < node->arity(); ++i) args[i] = value[collector.position(node->arg(i))];
      value[p] = apply(node->op(), args);
    }
  }
  std::vector<double> result;
  for (const Expr& out : f.outputs) result.push_back(value[collector.position(out.node())]);
  return result;
}

std::vector<double> evaluate(const Schedule& s, std::span<const double> inputs) {
  TALON_INTERNAL_ASSERT(inputs.size() == s.input_var_ids.size(),
                        "evaluate: wrong number of inputs");
  std::vector<double> slot(s.num_slots, 0.0);
  for (const Instr& instr : s.instrs) {
    double& out = slot[instr.result];
    if (instr.op == Op::Const) {
      out = instr.constant;
    } else if (instr.op == Op::Var) {
      out = inputs[instr.input_index];
    } else {
      double args[3] = {0.0, 0.0, 0.0};
      for (int i = 0; i < op_info(instr.op).arity; ++i) args[i] = slot[instr.args[i]];
      out = apply(instr.op, args);
    }
  }
  std::vector<double> result;
  for (int output : s.output_slots) result.push_back(slot[output]);
  return result;
}

}  // namespace talon::ir
