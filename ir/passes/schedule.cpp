#include "ir/passes/schedule.h"

#include <optional>

#include "common/diagnostics.h"
#include "ir/topo.h"

namespace talon::ir {
namespace {

Instr instr_for(const Node* node, int result) {
  Instr instr{node->op(), result, {-1, -1, -1}, 0.0, -1, -1};
  if (node->op() == Op::Const) instr.constant = node->constant();
  if (node->op() == Op::Var) instr.var_id = node->var_id();
  return instr;
}

// `collector_of_graph` is on f's graph, or null when f has none.
Schedule scheduled(const Function& f, ConeCollector* collector_of_graph) {
  check_function(f);
  Schedule s;
  for (const Expr& input : f.inputs) s.input_var_ids.push_back(input.var_id());
  Graph* graph = function_graph(f);
  if (graph == nullptr || f.outputs.empty()) return s;
  ConeCollector& collector = *collector_of_graph;
  TALON_INTERNAL_ASSERT(&collector.graph() == graph, "a cone collector of another graph");

  std::span<const Node* const> cone = collector.collect(f.outputs);
  std::vector<int> slot(cone.size(), -1);  // by cone position
  s.instrs.reserve(cone.size());
  auto emit = [&](const Node* node, int position) {
    Instr instr = instr_for(node, static_cast<int>(s.instrs.size()));
    for (int i = 0; i < node->arity(); ++i) {
      instr.args[i] = slot[collector.position(node->arg(i))];
    }
    slot[position] = instr.result;
    s.instrs.push_back(instr);
    return &s.instrs.back();
  };
  // Input loads first, in input order, so emitters read their arguments up front.
  for (std::size_t k = 0; k < f.inputs.size(); ++k) {
    int position = collector.position(f.inputs[k].node());
    if (position >= 0) emit(cone[position], position)->input_index = static_cast<int>(k);
  }
  for (std::size_t p = 0; p < cone.size(); ++p) {
    if (cone[p]->op() == Op::Var) {
      TALON_INTERNAL_ASSERT(slot[p] >= 0, "function '" + f.name + "' uses variable '" +
                                              graph->variable_name(cone[p]->var_id()) +
                                              "' that is not one of its inputs");
      continue;
    }
    emit(cone[p], static_cast<int>(p));
  }
  for (const Expr& out : f.outputs) s.output_slots.push_back(slot[collector.position(out.node())]);
  s.num_slots = static_cast<int>(s.instrs.size());
  return s;
}

}  // namespace

Schedule schedule(const Function& f) {
  std::optional<ConeCollector> collector;
  if (Graph* graph = function_graph(f)) collector.emplace(*graph);
  return scheduled(f, collector ? &*collector : nullptr);
}

Schedule schedule(const Function& f, ConeCollector& collector) {
  return scheduled(f, &collector);
}

Schedule Scheduler::operator()(const Function& f) {
  const Graph* graph = function_graph(f);
  if (graph == nullptr) return schedule(f);
  return schedule(f, collectors_.on(*graph));
}

}  // namespace talon::ir
