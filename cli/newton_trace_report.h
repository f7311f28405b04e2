// `talon simulate --trace-step N`: the Newton trace of one step of world 0 (every iterate of
// every attempt, runtime Simulator::newton_trace), as a text table or inside the JSON report.
#pragma once

#include <ostream>

#include "codegen/model_unit.h"
#include "common/json.h"
#include "runtime/simulator.h"

namespace talon::cli {

// A trace capacity that holds every iterate of a step with these settings: K + 1 iterates per
// attempt; a step split to depth d makes at most 2^(d+1) − 1 attempts at the split's sizes,
// and two more at full h: the retry from the other iterate 0 before the split, and the
// re-solve from the split's end (codegen/solver/talon_newton.h, talon_step_world).
int trace_capacity_for(const codegen::SolverOptions& solver);

// One line per iterate: h, k, merit, the block residuals, and the bodies with the largest
// linear and angular |M̃⁻¹ r_dyn|.
void print_newton_trace(std::ostream& out, const Simulator& sim, const NewtonTrace& trace,
                        int step);

// "newton_trace": {"step", "dropped", "iterates": [{"h", "k", "merit", "blocks": {name: value},
// "bodies": [{"name", "linear", "angular"}]}]}
void write_newton_trace(JsonWriter& json, const Simulator& sim, const NewtonTrace& trace,
                        int step);

}  // namespace talon::cli
