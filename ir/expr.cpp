#include "ir/expr.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <utility>

#include "common/diagnostics.h"

namespace talon::ir {

// ---- Expr ---------------------------------------------------------------------------------

namespace {
const Node& deref(const Node* node) {
  TALON_INTERNAL_ASSERT(node != nullptr, "use of a null Expr");
  return *node;
}
}  // namespace

Op Expr::op() const {
  return deref(node_).op();
}
int Expr::arity() const {
  return deref(node_).arity();
}
uint32_t Expr::id() const {
  return deref(node_).id();
}
Graph& Expr::graph() const {
  return deref(node_).graph();
}
bool Expr::is_const() const {
  return op() == Op::Const;
}
bool Expr::is_const(double v) const {
  return is_const() && node_->constant() == v;
}
bool Expr::is_var() const {
  return op() == Op::Var;
}

double Expr::constant() const {
  TALON_INTERNAL_ASSERT(is_const(), "constant() of a non-constant Expr");
  return node_->constant();
}

int Expr::var_id() const {
  TALON_INTERNAL_ASSERT(is_var(), "var_id() of a non-variable Expr");
  return node_->var_id();
}

Expr Expr::arg(int i) const {
  TALON_INTERNAL_ASSERT(i >= 0 && i < arity(), "Expr::arg index out of range");
  return Expr(node_->arg(i));
}

// ---- the hash-cons table ------------------------------------------------------------------

// The hash-cons table. Each node is registered under its newest child, its "anchor": in the
// anchor's few inline parent slots while they last, then in an open-addressing hash table.
// Most nodes have one or two parents and the anchor was just touched by whoever builds on
// it, so most lookups never probe the cache-cold table, which otherwise dominates building
// million-node graphs. A key is looked up among its anchor's inline parents and, once those
// have overflowed, in the table, so every node stays findable; leaves (no anchor) always use
// the table. Table slots hold the low 32 bits of the key's hash and the node id: probing
// compares hashes without touching nodes, and growing never rehashes a key. Variables are
// never interned (every variable() call is a fresh input).
class Graph::InternTable {
 public:
  struct Key {
    Op op;
    const Node* args[3];
    uint64_t constant_bits;  // Const only, else 0
  };

  explicit InternTable(const Graph& graph) : graph_(graph) {}

  // The node with this key, or nullptr.
  const Node* find(const Key& key) const {
    const Node* anchor = newest(key.args);
    if (anchor != nullptr) {
      for (const Node* parent : anchor->parents_) {
        if (parent != nullptr && equal(key, *parent)) return parent;
      }
      if (!anchor->parents_overflowed_) return nullptr;
    }
    return probe(key, hash(key));
  }

  // Registers a node that find() did not know.
  void add(const Node& node) {
    const Node* anchor = newest(node.args_);
    if (anchor != nullptr) {
      for (const Node*& slot : anchor->parents_) {
        if (slot == nullptr) {
          slot = &node;
          return;
        }
      }
      anchor->parents_overflowed_ = true;
    }
    insert(node, hash(key_of(node)));
  }

 private:
  static bool equal(const Key& key, const Node& n) {
    return key.op == n.op() && key.args[0] == n.arg(0) && key.args[1] == n.arg(1) &&
           key.args[2] == n.arg(2) &&
           (key.op != Op::Const || key.constant_bits == std::bit_cast<uint64_t>(n.constant()));
  }

  static uint32_t hash(const Key& key) {
    uint64_t h = mix(static_cast<uint64_t>(key.op) + 0x9e3779b97f4a7c15ULL);
    h = mix(h ^ arg_id(key.args[0]));
    h = mix(h ^ (arg_id(key.args[1]) << 32 | arg_id(key.args[2])));
    return static_cast<uint32_t>(mix(h ^ key.constant_bits));
  }

  struct Slot {
    uint32_t hash;
    uint32_t id_plus_one;  // 0: empty
  };

  // A zero-filled slot array (calloc: no per-slot initialisation loop).
  struct SlotArrayDeleter {
    void operator()(Slot* slots) const { std::free(slots); }
  };
  using SlotArray = std::unique_ptr<Slot[], SlotArrayDeleter>;

  static SlotArray allocate_slots(std::size_t count) {
    void* memory = std::calloc(count, sizeof(Slot));
    if (memory == nullptr) throw std::bad_alloc();
    return SlotArray(static_cast<Slot*>(memory));
  }

  // splitmix64's finaliser: cheap and well mixed.
  static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }

  static uint64_t arg_id(const Node* n) { return n ? n->id() + 1 : 0; }

  static Key key_of(const Node& n) {
    return {n.op(),
            {n.arg(0), n.arg(1), n.arg(2)},
            n.op() == Op::Const ? std::bit_cast<uint64_t>(n.constant()) : 0};
  }

  static const Node* newest(const Node* const (&args)[3]) {
    const Node* anchor = args[0];
    for (const Node* child : {args[1], args[2]}) {
      if (child != nullptr && child->id() > anchor->id()) anchor = child;
    }
    return anchor;
  }

  const Node* probe(const Key& key, uint32_t hash) const {
    if (capacity_ == 0) return nullptr;
    for (std::size_t i = hash & mask(); slots_[i].id_plus_one != 0; i = (i + 1) & mask()) {
      if (slots_[i].hash != hash) continue;
      const Node* node = graph_.node_at(slots_[i].id_plus_one - 1);
      if (equal(key, *node)) return node;
    }
    return nullptr;
  }

  void insert(const Node& node, uint32_t hash) {
    if ((count_ + 1) * 2 > capacity_) grow();
    place({hash, node.id() + 1});
    ++count_;
  }

  std::size_t mask() const { return capacity_ - 1; }

  void place(Slot slot) {
    std::size_t i = slot.hash & mask();
    while (slots_[i].id_plus_one != 0) i = (i + 1) & mask();
    slots_[i] = slot;
  }

  void grow() {
    TALON_INTERNAL_ASSERT(capacity_ < (std::size_t{1} << 32), "IR intern table too big");
    const std::size_t old_capacity = capacity_;
    SlotArray old = std::move(slots_);
    capacity_ = old_capacity == 0 ? 1024 : 2 * old_capacity;
    slots_ = allocate_slots(capacity_);
    for (std::size_t i = 0; i < old_capacity; ++i) {
      if (old[i].id_plus_one != 0) place(old[i]);
    }
  }

  const Graph& graph_;
  SlotArray slots_;  // capacity_ slots, a power of two, at most half full
  std::size_t capacity_ = 0;
  std::size_t count_ = 0;
};

// ---- Graph --------------------------------------------------------------------------------

Graph::Graph() : table_(std::make_unique<InternTable>(*this)) {}
Graph::~Graph() = default;

Expr Graph::constant(double v) {
  TALON_INTERNAL_ASSERT(!std::isnan(v), "NaN constant in the IR");
  if (v == 0.0) v = 0.0;  // -0.0 and 0.0 are one constant
  return intern(Op::Const, nullptr, nullptr, nullptr, v, -1);
}

Expr Graph::variable(std::string name) {
  Expr var = intern(Op::Var, nullptr, nullptr, nullptr, 0.0, num_variables());
  variables_.push_back(var.node());
  variable_names_.push_back(std::move(name));
  return var;
}

const std::string& Graph::variable_name(int id) const {
  TALON_INTERNAL_ASSERT(id >= 0 && id < num_variables(), "variable id out of range");
  return variable_names_[id];
}

Expr Graph::var(int id) const {
  TALON_INTERNAL_ASSERT(id >= 0 && id < num_variables(), "variable id out of range");
  return Expr(variables_[id]);
}

Expr Graph::node(uint32_t id) const {
  TALON_INTERNAL_ASSERT(id < num_nodes_, "node id out of range");
  return Expr(node_at(id));
}

Expr Graph::make(Op op, Expr a, Expr b, Expr c) {
  const OpInfo& info = op_info(op);
  TALON_INTERNAL_ASSERT(info.arity > 0, "make() builds operations; use constant()/variable()");
  const Expr args[3] = {a, b, c};
  for (int i = 0; i < 3; ++i) {
    if (i < info.arity) {
      TALON_INTERNAL_ASSERT(static_cast<bool>(args[i]),
                            std::string("null operand of ") + info.name);
      TALON_INTERNAL_ASSERT(&args[i].graph() == this,
                            std::string("operand of ") + info.name + " from another graph");
    } else {
      TALON_INTERNAL_ASSERT(!args[i], std::string("too many operands for ") + info.name);
    }
  }
  if (info.commutative && b.id() < a.id()) std::swap(a, b);
  if (Expr simpler = simplify(op, a, b, c)) return simpler;
  return intern(op, a.node(), b.node(), c.node(), 0.0, -1);
}

Expr Graph::intern(Op op, const Node* a, const Node* b, const Node* c, double constant,
                   int var_id) {
  const bool is_var = op == Op::Var;
  if (!is_var) {
    const uint64_t bits = op == Op::Const ? std::bit_cast<uint64_t>(constant) : 0;
    if (const Node* existing = table_->find({op, {a, b, c}, bits})) return Expr(existing);
  }
  Node& node = new_node();
  node.op_ = op;
  node.arity_ = static_cast<uint8_t>(op_info(op).arity);
  if (is_var) {
    node.var_id_ = var_id;
  } else {
    node.constant_ = constant;
  }
  node.args_[0] = a;
  node.args_[1] = b;
  node.args_[2] = c;
  node.graph_ = this;
  node.parents_overflowed_ = false;
  for (const Node*& parent : node.parents_) parent = nullptr;
  if (!is_var) table_->add(node);
  return Expr(&node);
}

static_assert(sizeof(Node) <= 64, "a node should fit one cache line");

Node& Graph::new_node() {
  TALON_INTERNAL_ASSERT(num_nodes_ < std::numeric_limits<uint32_t>::max(), "IR graph too big");
  const uint32_t id = static_cast<uint32_t>(num_nodes_);
  if ((id >> kChunkBits) == chunks_.size()) {
    chunks_.push_back(std::unique_ptr<Node[]>(new Node[std::size_t{1} << kChunkBits]));
  }
  ++num_nodes_;
  Node& node = chunks_[id >> kChunkBits][id & ((1u << kChunkBits) - 1)];
  node.id_ = id;
  return node;
}

// ---- construction-time simplification ---------------------------------------------------

namespace {

bool is_compare(Expr e) {
  return e.op() == Op::Lt || e.op() == Op::Le;
}

bool all_constant(int arity, Expr a, Expr b, Expr c) {
  return a.is_const() && (arity < 2 || b.is_const()) && (arity < 3 || c.is_const());
}

// The identities listed in expr.h, one op at a time; a null Expr means "none applies".
Expr simplify_add(Expr a, Expr b) {
  if (a.is_const(0.0)) return b;
  if (b.is_const(0.0)) return a;
  if (b.op() == Op::Neg) return a - b.arg(0);
  if (a.op() == Op::Neg) return b - a.arg(0);
  return {};
}

Expr simplify_sub(Expr a, Expr b) {
  if (b.is_const(0.0)) return a;
  if (a.is_const(0.0)) return -b;
  if (a == b) return a.graph().constant(0.0);
  if (b.op() == Op::Neg) return a + b.arg(0);
  return {};
}

Expr simplify_mul(Expr a, Expr b) {
  if (a.is_const(0.0) || b.is_const(0.0)) return a.graph().constant(0.0);
  if (a.is_const(1.0)) return b;
  if (b.is_const(1.0)) return a;
  if (a.is_const(-1.0)) return -b;
  if (b.is_const(-1.0)) return -a;
  return {};
}

Expr simplify_div(Expr a, Expr b) {
  if (b.is_const(1.0)) return a;
  if (b.is_const(-1.0)) return -a;
  if (a.is_const(0.0)) return a;
  return {};
}

Expr simplify_neg(Expr a) {
  if (a.op() == Op::Neg) return a.arg(0);
  if (a.op() == Op::Sub) return a.arg(1) - a.arg(0);  // exact in IEEE arithmetic
  return {};
}

Expr simplify_abs(Expr a) {
  if (a.op() == Op::Neg) return abs(a.arg(0));
  if (a.op() == Op::Abs) return a;
  return {};
}

Expr simplify_select(Expr cond, Expr if_true, Expr if_false) {
  if (cond.is_const()) return cond.constant() != 0.0 ? if_true : if_false;
  if (if_true == if_false) return if_true;
  if (is_compare(cond)) {  // cond is 0 or 1
    if (if_true.is_const(1.0) && if_false.is_const(0.0)) return cond;
    if (if_true.is_const(0.0) && if_false.is_const(1.0)) return 1.0 - cond;
  }
  return {};
}

}  // namespace

Expr Graph::simplify(Op op, Expr a, Expr b, Expr c) {
  const OpInfo& info = op_info(op);
  if (all_constant(info.arity, a, b, c)) {
    double value = info.eval(a.constant(), info.arity > 1 ? b.constant() : 0.0,
                             info.arity > 2 ? c.constant() : 0.0);
    if (std::isfinite(value)) return constant(value);
  }
  switch (op) {
    case Op::Add:
      return simplify_add(a, b);
    case Op::Sub:
      return simplify_sub(a, b);
    case Op::Mul:
      return simplify_mul(a, b);
    case Op::Div:
      return simplify_div(a, b);
    case Op::Neg:
      return simplify_neg(a);
    case Op::Abs:
      return simplify_abs(a);
    case Op::Min:
    case Op::Max:
      return a == b ? a : Expr();
    case Op::Lt:
      return a == b ? constant(0.0) : Expr();
    case Op::Le:
      return a == b ? constant(1.0) : Expr();
    case Op::Select:
      return simplify_select(a, b, c);
    default:
      return {};
  }
}

// ---- operators ----------------------------------------------------------------------------

namespace {
Expr unary(Op op, Expr a) {
  return a.graph().make(op, a);
}
Expr binary(Op op, Expr a, Expr b) {
  return a.graph().make(op, a, b);
}
Expr lift(Expr like, double v) {
  return like.graph().constant(v);
}
}  // namespace

Expr operator+(Expr a, Expr b) {
  return binary(Op::Add, a, b);
}
Expr operator-(Expr a, Expr b) {
  return binary(Op::Sub, a, b);
}
Expr operator*(Expr a, Expr b) {
  return binary(Op::Mul, a, b);
}
Expr operator/(Expr a, Expr b) {
  return binary(Op::Div, a, b);
}
Expr operator-(Expr a) {
  return unary(Op::Neg, a);
}
Expr operator+(Expr a, double b) {
  return a + lift(a, b);
}
Expr operator+(double a, Expr b) {
  return lift(b, a) + b;
}
Expr operator-(Expr a, double b) {
  return a - lift(a, b);
}
Expr operator-(double a, Expr b) {
  return lift(b, a) - b;
}
Expr operator*(Expr a, double b) {
  return a * lift(a, b);
}
Expr operator*(double a, Expr b) {
  return lift(b, a) * b;
}
Expr operator/(Expr a, double b) {
  return a / lift(a, b);
}
Expr operator/(double a, Expr b) {
  return lift(b, a) / b;
}
Expr& operator+=(Expr& a, Expr b) {
  return a = a + b;
}
Expr& operator-=(Expr& a, Expr b) {
  return a = a - b;
}
Expr& operator*=(Expr& a, Expr b) {
  return a = a * b;
}

Expr sqrt(Expr a) {
  return unary(Op::Sqrt, a);
}
Expr sin(Expr a) {
  return unary(Op::Sin, a);
}
Expr cos(Expr a) {
  return unary(Op::Cos, a);
}
Expr exp(Expr a) {
  return unary(Op::Exp, a);
}
Expr log(Expr a) {
  return unary(Op::Log, a);
}
Expr tanh(Expr a) {
  return unary(Op::Tanh, a);
}
Expr atan2(Expr y, Expr x) {
  return binary(Op::Atan2, y, x);
}
Expr abs(Expr a) {
  return unary(Op::Abs, a);
}
Expr min(Expr a, Expr b) {
  return binary(Op::Min, a, b);
}
Expr max(Expr a, Expr b) {
  return binary(Op::Max, a, b);
}
Expr lt(Expr a, Expr b) {
  return binary(Op::Lt, a, b);
}
Expr le(Expr a, Expr b) {
  return binary(Op::Le, a, b);
}
Expr select(Expr cond, Expr if_true, Expr if_false) {
  return cond.graph().make(Op::Select, cond, if_true, if_false);
}

}  // namespace talon::ir
