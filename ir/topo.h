// The nodes an expression set depends on, in topological (increasing id) order.
//
// Node ids are creation order, and children are created before their parents, so sorting
// the reachable ids gives a topological order without any recursion. The marking walk uses
// an explicit stack.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "ir/expr.h"

namespace talon::ir {

// Every node reachable from `roots` (roots included, null roots ignored), increasing id.
std::vector<const Node*> topological_order(std::span<const Expr> roots);

// The same, reusable across many small queries on one graph: the visited marks live in an
// epoch-stamped array sized once, so each query costs time proportional to its own cone,
// not to the graph. Nodes created after construction must not be reachable from the roots.
class ConeCollector {
 public:
  explicit ConeCollector(const Graph& graph);
  // Roots must belong to the collector's graph. The span is valid until the next call.
  std::span<const Node* const> collect(std::span<const Expr> roots);
  // Position of `node` in the last collected cone, or -1 if it is not in it.
  int position(const Node* node) const;
  const Graph& graph() const { return *graph_; }

 private:
  void ensure_capacity(std::size_t num_ids);

  const Graph* graph_;
  std::size_t capacity_ = 0;             // ids covered by stamp_ and position_
  std::unique_ptr<uint32_t[]> stamp_;    // per id: epoch of the last query that reached it
  std::unique_ptr<int32_t[]> position_;  // per id: index in cone_, valid where stamped now
  std::vector<const Node*> cone_;
  std::vector<const Node*> stack_;
  uint32_t epoch_ = 1;
};

// One ConeCollector at a time, made again only when the graph changes: for a loop over many
// functions that mostly share one large graph (a unit's kernels), where a collector's marks,
// an array over the whole graph zeroed when it is made, would cost more than the cones.
class ConeCollectorCache {
 public:
  ConeCollector& on(const Graph& graph) {
    if (!collector_ || &collector_->graph() != &graph) collector_.emplace(graph);
    return *collector_;
  }

 private:
  std::optional<ConeCollector> collector_;
};

}  // namespace talon::ir
