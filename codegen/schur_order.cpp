#include "codegen/schur_order.h"

#include <algorithm>
#include <deque>
#include <set>

namespace talon::codegen {
namespace {

// Every row's neighbours: the rows acting on one of its bodies. A row's bodies are those its
// ConstraintRowInfo names, not its Ĵ entries: a program lowered with templates has
// structural entries the unrolled one folds to zero, and the two must factor alike.
std::vector<std::vector<int>> row_neighbours(const ir::ResidualProgram& p) {
  std::vector<std::set<int>> rows_of_body(p.nsim), bodies_of_row(p.nrows);
  for (int row = 0; row < p.nrows; ++row)
    for (int body : {p.rows[row].body, p.rows[row].other})
      if (body >= 0) {
        rows_of_body[body].insert(row);
        bodies_of_row[row].insert(body);
      }
  std::vector<std::vector<int>> out(p.nrows);
  for (int row = 0; row < p.nrows; ++row) {
    std::set<int> neighbours;
    for (int body : bodies_of_row[row])
      neighbours.insert(rows_of_body[body].begin(), rows_of_body[body].end());
    neighbours.erase(row);
    out[row].assign(neighbours.begin(), neighbours.end());
  }
  return out;
}

// Breadth first from `start` over the unnumbered rows, neighbours by increasing degree (ties
// by row); returns the rows in visiting order and marks them.
std::vector<int> cuthill_mckee(const std::vector<std::vector<int>>& neighbours, int start,
                               std::vector<bool>& numbered) {
  std::vector<int> order{start};
  numbered[start] = true;
  for (std::size_t head = 0; head < order.size(); ++head) {
    std::vector<int> next;
    for (int n : neighbours[order[head]])
      if (!numbered[n]) {
        numbered[n] = true;
        next.push_back(n);
      }
    std::stable_sort(next.begin(), next.end(),
                     [&](int a, int b) { return neighbours[a].size() < neighbours[b].size(); });
    order.insert(order.end(), next.begin(), next.end());
  }
  return order;
}

// A row far from `start` in its component (George & Liu's pseudo-peripheral node, one sweep
// from the least-degree row): the last row a breadth-first search reaches.
int peripheral_row(const std::vector<std::vector<int>>& neighbours, int start) {
  std::vector<bool> seen(neighbours.size(), false);
  return cuthill_mckee(neighbours, start, seen).back();
}

}  // namespace

std::vector<int> schur_row_order(const ir::ResidualProgram& program) {
  const std::vector<std::vector<int>> neighbours = row_neighbours(program);
  std::vector<int> by_degree(program.nrows);
  for (int r = 0; r < program.nrows; ++r) by_degree[r] = r;
  std::stable_sort(by_degree.begin(), by_degree.end(),
                   [&](int a, int b) { return neighbours[a].size() < neighbours[b].size(); });
  std::vector<bool> numbered(program.nrows, false);
  std::vector<int> order;
  for (int row : by_degree) {
    if (numbered[row]) continue;
    const std::vector<int> component =
        cuthill_mckee(neighbours, peripheral_row(neighbours, row), numbered);
    order.insert(order.end(), component.begin(), component.end());
  }
  std::reverse(order.begin(), order.end());
  return order;
}

}  // namespace talon::codegen
