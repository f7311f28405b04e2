// Size statistics of lowered kernels (internal to ir/lower/; read through LowerStats).
#pragma once

#include <vector>

#include "ir/lower/program.h"

namespace talon::ir::lower {

// Statistics of one function; `tree_scratch` is reused between calls.
KernelStats kernel_stats(const Function& f, std::vector<double>& tree_scratch);
// Fills prog.stats.kernels and graph_nodes.
void fill_stats(ResidualProgram& prog);

}  // namespace talon::ir::lower
