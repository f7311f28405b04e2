#include "ir/passes/derivative.h"

#include <algorithm>
#include <tuple>

#include "common/diagnostics.h"
#include "ir/topo.h"

namespace talon::ir {
namespace {

// The graph shared by every expression of a query (programmer error otherwise); nullptr
// when the query holds no expression at all.
Graph* common_graph(std::span<const Expr> a, std::span<const Expr> b) {
  Graph* graph = nullptr;
  for (std::span<const Expr> list : {a, b}) {
    for (const Expr& e : list) {
      TALON_INTERNAL_ASSERT(static_cast<bool>(e), "null Expr in a derivative query");
      if (graph == nullptr) graph = &e.graph();
      TALON_INTERNAL_ASSERT(&e.graph() == graph, "derivative query mixes graphs");
    }
  }
  return graph;
}

// column[var_id] = position of the variable in `wrt`, or -1.
std::vector<int> columns_of(const Graph& graph, std::span<const Expr> wrt) {
  std::vector<int> column(graph.num_variables(), -1);
  for (std::size_t k = 0; k < wrt.size(); ++k) {
    TALON_INTERNAL_ASSERT(wrt[k].is_var(), "differentiation with respect to a non-variable");
    int& slot = column[wrt[k].var_id()];
    TALON_INTERNAL_ASSERT(slot < 0, "a variable is listed twice in wrt");
    slot = static_cast<int>(k);
  }
  return column;
}

int column_of(const Node* node, const std::vector<int>& column) {
  return node->op() == Op::Var ? column[node->var_id()] : -1;
}

bool is_zero(Expr e) {
  return !e || e.is_const(0.0);
}

void accumulate(Expr& total, Expr term) {
  total = total ? total + term : term;
}

Expr partial(const Node* node, int i) {
  return op_info(node->op()).partial(Expr(node), i);
}

// active[p]: the cone's node at position p depends on some wrt variable. Children precede
// parents in the cone, so one increasing pass suffices.
std::vector<char> active_nodes(std::span<const Node* const> cone, const ConeCollector& positions,
                               const std::vector<int>& column) {
  std::vector<char> active(cone.size(), 0);
  for (std::size_t p = 0; p < cone.size(); ++p) {
    const Node* node = cone[p];
    bool depends = column_of(node, column) >= 0;
    for (int i = 0; i < node->arity() && !depends; ++i) {
      depends = active[positions.position(node->arg(i))] != 0;
    }
    active[p] = depends;
  }
  return active;
}

// Reverse mode over a seeded `adjoint` (indexed by cone position). Visiting positions in
// decreasing order means every parent of a node has already pushed its contribution, so each
// adjoint is complete — accumulated once — before it propagates. Inactive children (which
// no wrt variable reaches) get nothing.
void reverse_sweep(std::span<const Node* const> cone, const ConeCollector& positions,
                   const std::vector<char>& active, std::vector<Expr>& adjoint) {
  for (std::size_t p = cone.size(); p-- > 0;) {
    if (is_zero(adjoint[p])) continue;
    const Node* node = cone[p];
    for (int i = 0; i < node->arity(); ++i) {
      int child = positions.position(node->arg(i));
      if (!active[child]) continue;
      Expr d = partial(node, i);
      if (!d.is_const(0.0)) accumulate(adjoint[child], adjoint[p] * d);
    }
  }
}

// Forward mode over seeded variable tangents (indexed by cone position), in increasing order.
void forward_sweep(std::span<const Node* const> cone, const ConeCollector& positions,
                   std::vector<Expr>& tangent) {
  for (std::size_t p = 0; p < cone.size(); ++p) {
    const Node* node = cone[p];
    Expr total;
    for (int i = 0; i < node->arity(); ++i) {
      Expr t = tangent[positions.position(node->arg(i))];
      if (is_zero(t)) continue;
      Expr d = partial(node, i);
      if (!d.is_const(0.0)) accumulate(total, d * t);
    }
    if (node->arity() > 0) tangent[p] = total;
  }
}

struct Entry {
  int row, col;
  Expr value;
};

// One reverse sweep per output, over that output's own cone.
std::vector<Entry> jacobian_by_rows(std::span<const Expr> outputs, ConeCollector& collector,
                                    const std::vector<int>& column) {
  std::vector<Entry> entries;
  for (std::size_t r = 0; r < outputs.size(); ++r) {
    std::span<const Node* const> cone = collector.collect(outputs.subspan(r, 1));
    std::vector<Expr> adjoint(cone.size());
    adjoint.back() = outputs[r].graph().constant(1.0);  // the output has the largest id
    reverse_sweep(cone, collector, active_nodes(cone, collector, column), adjoint);
    const std::size_t row_begin = entries.size();
    for (std::size_t p = 0; p < cone.size(); ++p) {
      int col = column_of(cone[p], column);
      if (col >= 0 && !is_zero(adjoint[p])) entries.push_back({int(r), col, adjoint[p]});
    }
    std::sort(entries.begin() + row_begin, entries.end(),
              [](const Entry& a, const Entry& b) { return a.col < b.col; });
  }
  return entries;
}

// One forward sweep per wrt variable, over the union of the outputs' cones.
std::vector<Entry> jacobian_by_columns(std::span<const Expr> outputs, std::span<const Expr> wrt,
                                       ConeCollector& collector) {
  std::span<const Node* const> cone = collector.collect(outputs);
  std::vector<Entry> entries;
  std::vector<Expr> tangent(cone.size());
  for (std::size_t k = 0; k < wrt.size(); ++k) {
    int seed = collector.position(wrt[k].node());
    if (seed < 0) continue;
    std::fill(tangent.begin(), tangent.end(), Expr());
    tangent[seed] = wrt[k].graph().constant(1.0);
    forward_sweep(cone, collector, tangent);
    for (std::size_t r = 0; r < outputs.size(); ++r) {
      Expr d = tangent[collector.position(outputs[r].node())];
      if (!is_zero(d)) entries.push_back({int(r), int(k), d});
    }
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.row, a.col) < std::tie(b.row, b.col);
  });
  return entries;
}

}  // namespace

SparseJacobian jacobian(std::span<const Expr> outputs, std::span<const Expr> wrt) {
  SparseJacobian result;
  result.rows = static_cast<int>(outputs.size());
  result.cols = static_cast<int>(wrt.size());
  Graph* graph = common_graph(outputs, wrt);
  if (outputs.empty() || wrt.empty()) return result;
  const std::vector<int> column = columns_of(*graph, wrt);
  ConeCollector collector(*graph);
  // The work of each strategy is the number of node visits of its sweeps: Σ_rows |cone(row)|
  // by rows, cols · |cone(all rows)| by columns. With rows <= cols the first never exceeds
  // the second, so only taller Jacobians need the count.
  bool by_columns = false;
  if (outputs.size() > wrt.size()) {
    std::size_t row_visits = 0;
    for (std::size_t r = 0; r < outputs.size(); ++r) {
      row_visits += collector.collect(outputs.subspan(r, 1)).size();
    }
    by_columns = collector.collect(outputs).size() * wrt.size() < row_visits;
  }
  std::vector<Entry> entries = by_columns ? jacobian_by_columns(outputs, wrt, collector)
                                          : jacobian_by_rows(outputs, collector, column);
  for (const Entry& e : entries) {
    result.row.push_back(e.row);
    result.col.push_back(e.col);
    result.value.push_back(e.value);
  }
  return result;
}

std::vector<Expr> jvp(std::span<const Expr> outputs, std::span<const Expr> wrt,
                      std::span<const Expr> tangents) {
  TALON_INTERNAL_ASSERT(tangents.size() == wrt.size(), "jvp needs one tangent per variable");
  Graph* graph = common_graph(outputs, wrt);
  common_graph(wrt, tangents);
  if (outputs.empty()) return {};
  columns_of(*graph, wrt);  // checks wrt
  ConeCollector collector(*graph);
  std::span<const Node* const> cone = collector.collect(outputs);
  std::vector<Expr> tangent(cone.size());
  for (std::size_t k = 0; k < wrt.size(); ++k) {
    int p = collector.position(wrt[k].node());
    if (p >= 0) tangent[p] = tangents[k];
  }
  forward_sweep(cone, collector, tangent);
  std::vector<Expr> result;
  for (const Expr& out : outputs) {
    Expr t = tangent[collector.position(out.node())];
    result.push_back(t ? t : graph->constant(0.0));
  }
  return result;
}

std::vector<Expr> vjp(std::span<const Expr> outputs, std::span<const Expr> wrt,
                      std::span<const Expr> cotangents) {
  TALON_INTERNAL_ASSERT(cotangents.size() == outputs.size(), "vjp needs one cotangent per output");
  Graph* graph = common_graph(outputs, wrt);
  common_graph(outputs, cotangents);
  if (wrt.empty()) return {};
  const std::vector<int> column = columns_of(*graph, wrt);
  ConeCollector collector(*graph);
  std::span<const Node* const> cone = collector.collect(outputs);
  std::vector<Expr> adjoint(cone.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (!is_zero(cotangents[i])) {
      accumulate(adjoint[collector.position(outputs[i].node())], cotangents[i]);
    }
  }
  reverse_sweep(cone, collector, active_nodes(cone, collector, column), adjoint);
  std::vector<Expr> result;
  for (const Expr& var : wrt) {
    int p = collector.position(var.node());
    result.push_back(p >= 0 && adjoint[p] ? adjoint[p] : graph->constant(0.0));
  }
  return result;
}

std::vector<Expr> gradient(Expr output, std::span<const Expr> wrt) {
  TALON_INTERNAL_ASSERT(static_cast<bool>(output), "gradient of a null Expr");
  const Expr one = output.graph().constant(1.0);
  return vjp(std::span<const Expr>(&output, 1), wrt, std::span<const Expr>(&one, 1));
}

}  // namespace talon::ir
