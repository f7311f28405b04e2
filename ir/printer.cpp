#include "ir/printer.h"

#include <charconv>
#include <functional>

#include "ir/topo.h"

namespace talon::ir {
namespace {

// The shortest text that reads back to the same double ("2", "0.5", "-inf").
std::string number(double v) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
}

std::string slot_name(int slot) {
  return "t" + std::to_string(slot);
}

// Writes the instructions and outputs; `var_name` names a variable id.
std::string dump_body(const Schedule& s, const std::function<std::string(int)>& var_name) {
  std::string text;
  for (const Instr& instr : s.instrs) {
    text += "  " + slot_name(instr.result) + " = " + op_name(instr.op);
    if (instr.op == Op::Const) {
      text += " " + number(instr.constant);
    } else if (instr.op == Op::Var) {
      text += " " + std::to_string(instr.input_index) + " " + var_name(instr.var_id);
    } else {
      for (int i = 0; i < op_info(instr.op).arity; ++i) text += " " + slot_name(instr.args[i]);
    }
    text += "\n";
  }
  for (std::size_t i = 0; i < s.output_slots.size(); ++i) {
    text += "  out" + std::to_string(i) + " = " + slot_name(s.output_slots[i]) + "\n";
  }
  return text;
}

std::string outputs_suffix(std::size_t count) {
  return ") -> " + std::to_string(count) + (count == 1 ? " output\n" : " outputs\n");
}

}  // namespace

std::string dump(const Function& f) {
  Schedule s = schedule(f);
  Graph* graph = function_graph(f);
  std::string text = "function " + f.name + "(";
  for (std::size_t k = 0; k < f.inputs.size(); ++k) {
    text += (k > 0 ? ", " : "") + graph->variable_name(f.inputs[k].var_id());
  }
  text += outputs_suffix(f.outputs.size());
  return text + dump_body(s, [graph](int id) { return graph->variable_name(id); });
}

std::string dump(const Schedule& s) {
  auto var_name = [](int id) { return "v" + std::to_string(id); };
  std::string text = "function (";
  for (std::size_t k = 0; k < s.input_var_ids.size(); ++k) {
    text += (k > 0 ? ", " : "") + var_name(s.input_var_ids[k]);
  }
  text += outputs_suffix(s.output_slots.size());
  return text + dump_body(s, var_name);
}

std::string to_string(Expr e) {
  if (!e) return "null";
  const Graph& graph = e.graph();
  ConeCollector collector(graph);
  std::span<const Node* const> cone = collector.collect(std::span<const Expr>(&e, 1));
  std::vector<std::string> text(cone.size());
  for (std::size_t p = 0; p < cone.size(); ++p) {
    const Node* node = cone[p];
    if (node->op() == Op::Const) {
      text[p] = number(node->constant());
    } else if (node->op() == Op::Var) {
      text[p] = graph.variable_name(node->var_id());
    } else {
      text[p] = std::string(op_name(node->op())) + "(";
      for (int i = 0; i < node->arity(); ++i) {
        text[p] += (i > 0 ? ", " : "") + text[collector.position(node->arg(i))];
      }
      text[p] += ")";
    }
  }
  return text.back();
}

}  // namespace talon::ir
