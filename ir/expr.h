// The residual IR's scalar expression DAG.
//
// Nodes are immutable and live in an arena owned by a Graph. They are created only through
// Graph::make (and the operator helpers below), which checks arity and ownership, folds
// constants, applies simple algebraic identities, and hash-conses: two structurally equal
// expressions are the same node, so equality is a pointer compare and common subexpressions
// are shared for free (as in tinygrad's UOp cache, CasADi's SX and Halide's IR).
//
// A node's children always exist before it, so node ids (creation order) are a topological
// order of the whole graph. Every pass walks sorted ids instead of recursing, which keeps
// the stack flat for graphs of millions of nodes.
//
// Identities applied at construction (x, y any expressions, c constants):
//   c ∘ c → folded (only when the result is finite; sqrt(-1) etc. stay symbolic)
//   x+0 → x, x-0 → x, 0-x → -x, x-x → 0, x-(-y) → x+y, x+(-y) → x-y
//   x*1 → x, x*0 → 0, x*(-1) → -x, x/1 → x, x/(-1) → -x, 0/x → 0
//   --x → x, -(x-y) → y-x, |−x| → |x|, ||x|| → |x|
//   min(x,x) → x, max(x,x) → x, lt(x,x) → 0, le(x,x) → 1
//   select(c,a,b) with constant c → a or b; select(c,a,a) → a
//   select(k,1,0) → k and select(k,0,1) → 1-k for a comparison k (which is 0 or 1)
// All are exact in IEEE arithmetic except that, as in every symbolic system (CasADi, SymPy),
// x*0 → 0, 0/x → 0 and x-x → 0 ignore inf and NaN operands, and no rule keeps the sign of a
// zero (-0.0 constants are 0.0): only atan2(±0, x<0) and division by ±0 can tell.
// Commutative ops (add, mul) order their operands by node id, so a+b and b+a are one node.
//
// A Graph is not thread-safe; use one per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/ops.h"

namespace talon::ir {

class Graph;

class Node {
 public:
  Op op() const { return op_; }
  int arity() const { return arity_; }
  uint32_t id() const { return id_; }
  const Node* arg(int i) const { return args_[i]; }
  double constant() const { return constant_; }  // meaningful for Const only
  int var_id() const { return var_id_; }         // meaningful for Var only
  Graph& graph() const { return *graph_; }

 private:
  friend class Graph;
  // Trivially default-constructible, so arena chunks are allocated without touching each
  // node; Graph::intern sets every field.
  Node() = default;

  Op op_;
  uint8_t arity_;
  // Hash-consing bookkeeping, not part of the node's value (see InternTable in expr.cpp): the
  // first parents whose newest child is this node, and whether more went to the table.
  mutable bool parents_overflowed_;
  uint32_t id_;
  union {
    double constant_;  // Const
    int var_id_;       // Var
  };
  const Node* args_[3];
  Graph* graph_;
  static constexpr int kInlineParents = 2;
  mutable const Node* parents_[kInlineParents];
};

// A cheap handle to a node (one pointer). == compares pointers, which, thanks to
// hash-consing, is structural equality.
class Expr {
 public:
  Expr() = default;  // null
  explicit Expr(const Node* node) : node_(node) {}

  Op op() const;
  double constant() const;  // requires is_const()
  int var_id() const;       // requires op() == Op::Var
  int arity() const;
  Expr arg(int i) const;  // 0 <= i < arity()
  bool is_const() const;
  bool is_const(double v) const;  // a constant equal to v
  bool is_var() const;
  Graph& graph() const;
  uint32_t id() const;
  const Node* node() const { return node_; }
  explicit operator bool() const { return node_ != nullptr; }

  friend bool operator==(Expr a, Expr b) { return a.node_ == b.node_; }

 private:
  const Node* node_ = nullptr;
};

class Graph {
 public:
  Graph();
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // A finite or infinite constant; -0.0 is stored as 0.0. NaN is a programmer error.
  Expr constant(double v);
  // A fresh input variable; ids are dense 0..num_variables()-1 in creation order. Names are
  // for dumps and need not be unique.
  Expr variable(std::string name);
  // The checking factory for every non-leaf op: arity, null and same-graph checks (programmer
  // errors assert), constant folding, the identities listed above, hash-consing.
  Expr make(Op op, Expr a, Expr b = {}, Expr c = {});

  std::size_t num_nodes() const { return num_nodes_; }
  int num_variables() const { return static_cast<int>(variables_.size()); }
  const std::string& variable_name(int id) const;
  Expr var(int id) const;        // the variable with that id
  Expr node(uint32_t id) const;  // the node with that id (0 <= id < num_nodes())

 private:
  class InternTable;

  Expr intern(Op op, const Node* a, const Node* b, const Node* c, double constant, int var_id);
  Node& new_node();  // the next arena slot, its id set
  Expr simplify(Op op, Expr a, Expr b, Expr c);

  static constexpr int kChunkBits = 12;  // nodes live in chunks of 4096
  const Node* node_at(uint32_t id) const {
    return &chunks_[id >> kChunkBits][id & ((1u << kChunkBits) - 1)];
  }

  // The arena: stable addresses, freed chunk by chunk, never by walking the DAG.
  std::vector<std::unique_ptr<Node[]>> chunks_;
  std::size_t num_nodes_ = 0;
  std::unique_ptr<InternTable> table_;
  std::vector<const Node*> variables_;
  std::vector<std::string> variable_names_;
};

// Arithmetic. Doubles become constants in the Expr's graph.
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);
Expr operator-(Expr a);
Expr operator+(Expr a, double b);
Expr operator+(double a, Expr b);
Expr operator-(Expr a, double b);
Expr operator-(double a, Expr b);
Expr operator*(Expr a, double b);
Expr operator*(double a, Expr b);
Expr operator/(Expr a, double b);
Expr operator/(double a, Expr b);
Expr& operator+=(Expr& a, Expr b);
Expr& operator-=(Expr& a, Expr b);
Expr& operator*=(Expr& a, Expr b);

Expr sqrt(Expr a);
Expr sin(Expr a);
Expr cos(Expr a);
Expr exp(Expr a);
Expr log(Expr a);
Expr tanh(Expr a);
Expr atan2(Expr y, Expr x);
Expr abs(Expr a);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr lt(Expr a, Expr b);                              // 1 if a < b else 0
Expr le(Expr a, Expr b);                              // 1 if a <= b else 0
Expr select(Expr cond, Expr if_true, Expr if_false);  // cond != 0 ? if_true : if_false

}  // namespace talon::ir

template <>
struct std::hash<talon::ir::Expr> {
  std::size_t operator()(talon::ir::Expr e) const noexcept {
    return std::hash<const talon::ir::Node*>()(e.node());
  }
};
