// Scheduling: flatten a Function into straight-line SSA, the form every emitter prints.
#pragma once

#include <vector>

#include "ir/function.h"
#include "ir/topo.h"

namespace talon::ir {

// One SSA instruction: slot `result` = op(slots args[0..arity)).
struct Instr {
  Op op;
  int result;
  int args[3];      // -1 where unused
  double constant;  // Const only
  int var_id;       // Var only: the graph's variable id
  int input_index;  // Var only: position in Function::inputs (the emitter's input load)
};

struct Schedule {
  int num_slots = 0;
  std::vector<Instr> instrs;
  std::vector<int> output_slots;   // one per Function output (may repeat)
  std::vector<int> input_var_ids;  // the Function's inputs' variable ids, in order
};

// Topological, each needed node exactly once, nodes no output needs dropped. The loads of
// the used inputs come first, in input order; then the other nodes in increasing node id,
// so the order is deterministic for a deterministically built graph. Slot i is defined by
// instrs[i] (one slot per instruction, no reuse).
Schedule schedule(const Function& f);

// The same with `collector` (constructed on f's graph) reused: a collector's marks are an array
// over the whole graph, zeroed when it is made, and a unit's kernels are many functions of one
// large graph (bench/RESULTS.md, twenty-sixth session).
Schedule schedule(const Function& f, ConeCollector& collector);

// Schedules functions one after another, with one cone collector reused while they are of
// one graph (an emitter's loop over a unit's kernels).
class Scheduler {
 public:
  Schedule operator()(const Function& f);

 private:
  ConeCollectorCache collectors_;
};

}  // namespace talon::ir
