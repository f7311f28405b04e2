#include "ir/fingerprint.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace talon::ir {
namespace {

template <typename T>
void append_raw(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// The length first, so that no two sequences of strings or lists run together the same way.
void append_string(std::string& out, const std::string& text) {
  append_raw<uint64_t>(out, text.size());
  out.append(text);
}

void append_ids(std::string& out, const std::vector<Expr>& exprs) {
  append_raw<uint64_t>(out, exprs.size());
  for (Expr e : exprs) append_raw<uint32_t>(out, e.id());
}

// Every node of `graph` in id order (a topological order: children precede their parents).
void append_graph(std::string& out, const Graph& graph) {
  append_raw<uint64_t>(out, graph.num_nodes());
  out.reserve(out.size() + graph.num_nodes() * (1 + sizeof(double)));
  for (uint32_t id = 0; id < graph.num_nodes(); ++id) {
    const Node& node = *graph.node(id).node();
    append_raw<uint8_t>(out, static_cast<uint8_t>(node.op()));
    if (node.op() == Op::Const)
      append_raw<double>(out, node.constant());
    else if (node.op() == Op::Var)
      append_raw<int32_t>(out, node.var_id());
    else
      for (int i = 0; i < node.arity(); ++i) append_raw<uint32_t>(out, node.arg(i)->id());
  }
}

}  // namespace

std::string structural_fingerprint(std::span<const Function> functions) {
  std::string out;
  std::vector<const Graph*> graphs;  // in order of first use
  for (const Function& f : functions) {
    // The graph's index among those seen, -1 for none; a new one's nodes follow its index.
    const Graph* graph = function_graph(f);
    int32_t index = -1;
    if (graph != nullptr) {
      index = 0;
      while (index < static_cast<int32_t>(graphs.size()) && graphs[index] != graph) ++index;
    }
    append_raw<int32_t>(out, index);
    if (graph != nullptr && index == static_cast<int32_t>(graphs.size())) {
      graphs.push_back(graph);
      append_graph(out, *graph);
    }
    append_string(out, f.name);
    append_ids(out, f.inputs);
    append_ids(out, f.outputs);
  }
  return out;
}

}  // namespace talon::ir
