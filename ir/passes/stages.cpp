#include "ir/passes/stages.h"

#include <algorithm>

#include "common/diagnostics.h"
#include "ir/topo.h"

namespace talon::ir {

StagedFunction split_stages(const Function& f, std::span<const Expr> late_inputs,
                            const std::string& cache_prefix) {
  check_function(f);
  for (const Expr& input : late_inputs)
    TALON_INTERNAL_ASSERT(std::find(f.inputs.begin(), f.inputs.end(), input) != f.inputs.end(),
                          "a late input is not an input of '" + f.name + "'");
  StagedFunction out;
  out.early = {f.name + "_early", f.inputs, {}};
  out.late = {f.name + "_late", {}, {}};
  Graph* graph = function_graph(f);
  if (graph == nullptr || f.outputs.empty()) {
    out.late.inputs.assign(late_inputs.begin(), late_inputs.end());
    return out;
  }
  ConeCollector collector(*graph);
  const std::span<const Node* const> cone = collector.collect(f.outputs);
  const std::vector<const Node*> nodes(cone.begin(), cone.end());  // the span is the collector's
  std::vector<char> late(nodes.size(), 0), cached(nodes.size(), 0);
  for (const Expr& input : late_inputs)
    if (const int p = collector.position(input.node()); p >= 0) late[p] = 1;
  // A node is late when it reads a late node; the early nodes it reads are cached.
  for (std::size_t p = 0; p < nodes.size(); ++p)
    for (int a = 0; a < nodes[p]->arity(); ++a)
      late[p] |= late[collector.position(nodes[p]->arg(a))];
  auto cache_if_early = [&](const Node* node) {
    const int p = collector.position(node);
    if (!late[p] && node->op() != Op::Const) cached[p] = 1;
  };
  for (std::size_t p = 0; p < nodes.size(); ++p)
    if (late[p])
      for (int a = 0; a < nodes[p]->arity(); ++a) cache_if_early(nodes[p]->arg(a));
  for (const Expr& output : f.outputs) cache_if_early(output.node());

  // The late stage rebuilt over the cache variables, in topological order.
  std::vector<Expr> rebuilt(nodes.size());
  for (std::size_t p = 0; p < nodes.size(); ++p) {
    const Expr node(nodes[p]);
    if (cached[p]) {
      out.early.outputs.push_back(node);
      rebuilt[p] = graph->variable(cache_prefix + std::to_string(out.late.inputs.size()));
      out.late.inputs.push_back(rebuilt[p]);
    } else if (node.is_const() || node.is_var()) {
      rebuilt[p] = node;
    } else if (late[p]) {
      Expr args[3];
      for (int a = 0; a < node.arity(); ++a)
        args[a] = rebuilt[collector.position(nodes[p]->arg(a))];
      rebuilt[p] = graph->make(node.op(), args[0], args[1], args[2]);
    }
  }
  out.late.inputs.insert(out.late.inputs.end(), late_inputs.begin(), late_inputs.end());
  for (const Expr& output : f.outputs)
    out.late.outputs.push_back(rebuilt[collector.position(output.node())]);
  return out;
}

}  // namespace talon::ir
