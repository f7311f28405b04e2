// Size statistics of a lowered program (for `talon ir`): per kernel, the hash-consed DAG
// it evaluates, the tree it would be without common-subexpression sharing, and its
// scheduled instruction count.
#include "ir/lower/stats.h"

#include <vector>

#include "ir/topo.h"

namespace talon::ir::lower {

KernelStats kernel_stats(const Function& f, std::vector<double>& tree_scratch) {
  KernelStats s;
  s.name = f.name;
  const std::vector<const Node*> order = topological_order(f.outputs);
  s.dag_nodes = order.size();
  // Tree size of each node: itself plus its children's trees (children come first in the
  // topological order, so one pass suffices and nothing recurses). Doubles: the count
  // grows exponentially with depth in hash-consed DAGs.
  tree_scratch.resize(f.outputs.empty() ? 0 : f.outputs.front().graph().num_nodes());
  for (const Node* n : order) {
    double size = 1;
    for (int i = 0; i < n->arity(); ++i) size += tree_scratch[n->arg(i)->id()];
    tree_scratch[n->id()] = size;
  }
  for (Expr out : f.outputs) s.tree_nodes += tree_scratch[out.id()];
  // The scheduler emits each node an output needs exactly once (schedule.h), so the
  // instruction count is the cone's size; scheduling every kernel just to count would
  // double the lowering time of large models.
  s.instructions = order.size();
  return s;
}

void fill_stats(ResidualProgram& prog) {
  std::vector<double> scratch;
  prog.stats.kernels.clear();
  for (const Kernel& k : prog.kernels)
    prog.stats.kernels.push_back(kernel_stats(k.function, scratch));
  prog.stats.graph_nodes = prog.graph->num_nodes();
}

}  // namespace talon::ir::lower

namespace talon::ir {

std::size_t LowerStats::instructions() const {
  std::size_t total = 0;
  for (const KernelStats& k : kernels) total += k.instructions;
  return total;
}

}  // namespace talon::ir
