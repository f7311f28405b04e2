// The reference interpreter: evaluates IR in float64, using the op table's values. It is the
// ground truth every backend (C99, LLVM, CUDA) is tested against.
#pragma once

#include <span>
#include <vector>

#include "ir/function.h"
#include "ir/passes/schedule.h"

namespace talon::ir {

// Walks the Function's DAG directly (independently of the scheduler, so the two cross-check).
// inputs.size() == f.inputs.size(); returns one value per output.
std::vector<double> evaluate(const Function& f, std::span<const double> inputs);

// Executes a schedule; inputs are in the Function's input order.
std::vector<double> evaluate(const Schedule& s, std::span<const double> inputs);

}  // namespace talon::ir
