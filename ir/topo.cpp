#include "ir/topo.h"

#include <algorithm>

#include "common/diagnostics.h"

namespace talon::ir {

ConeCollector::ConeCollector(const Graph& graph) : graph_(&graph) {
  ensure_capacity(graph.num_nodes());
}

// Fresh arrays (zeroed stamps, unset positions): only called between queries.
void ConeCollector::ensure_capacity(std::size_t num_ids) {
  if (num_ids <= capacity_) return;
  capacity_ = std::max(num_ids, 2 * capacity_);
  stamp_.reset(new uint32_t[capacity_]());
  position_.reset(new int32_t[capacity_]);
  epoch_ = 1;
}

std::span<const Node* const> ConeCollector::collect(std::span<const Expr> roots) {
  if (++epoch_ == 0) {  // wrapped around: old stamps could alias the new epoch
    std::fill(stamp_.get(), stamp_.get() + capacity_, 0);
    epoch_ = 1;
  }
  cone_.clear();
  stack_.clear();
  // Children have smaller ids than their parents, so the largest id in the cone is a root's.
  uint32_t max_id = 0;
  for (const Expr& root : roots) {
    if (!root) continue;
    TALON_INTERNAL_ASSERT(&root.graph() == graph_, "cone roots from another graph");
    max_id = std::max(max_id, root.id());
  }
  ensure_capacity(max_id + 1);  // roots created after this collector need room
  // No cone outgrows max_id + 1 nodes, so collecting never reallocates. Growing geometrically
  // keeps many small queries with increasing roots from reallocating each time.
  if (cone_.capacity() <= max_id) {
    const std::size_t capacity = std::max<std::size_t>(max_id + 1, 2 * cone_.capacity());
    cone_.reserve(capacity);
    stack_.reserve(capacity);
  }
  uint32_t* const stamp = stamp_.get();
  const uint32_t epoch = epoch_;
  auto visit = [&](const Node* node) {
    if (stamp[node->id()] == epoch) return;
    stamp[node->id()] = epoch;
    cone_.push_back(node);
    stack_.push_back(node);
  };
  for (const Expr& root : roots) {
    if (root) visit(root.node());
  }
  while (!stack_.empty()) {
    const Node* node = stack_.back();
    stack_.pop_back();
    for (int i = 0; i < node->arity(); ++i) visit(node->arg(i));
  }
  // Ids are a topological order. A cone that covers much of its id range is ordered by a
  // linear scan of that range; a sparse one by sorting.
  if (!cone_.empty() && cone_.size() * 16 > max_id) {
    cone_.clear();
    for (uint32_t id = 0; id <= max_id; ++id) {
      if (stamp[id] == epoch) cone_.push_back(graph_->node(id).node());
    }
  } else {
    std::sort(cone_.begin(), cone_.end(),
              [](const Node* a, const Node* b) { return a->id() < b->id(); });
  }
  int32_t* const position = position_.get();
  for (std::size_t i = 0; i < cone_.size(); ++i) {
    position[cone_[i]->id()] = static_cast<int32_t>(i);
  }
  return cone_;
}

int ConeCollector::position(const Node* node) const {
  uint32_t id = node->id();
  return id < capacity_ && stamp_[id] == epoch_ ? position_[id] : -1;
}

std::vector<const Node*> topological_order(std::span<const Expr> roots) {
  for (const Expr& root : roots) {
    if (root) {
      ConeCollector collector(root.graph());
      std::span<const Node* const> cone = collector.collect(roots);
      return {cone.begin(), cone.end()};
    }
  }
  return {};
}

}  // namespace talon::ir
