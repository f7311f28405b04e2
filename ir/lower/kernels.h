// build_kernels: the derivative kernels of a lowered model (internal to ir/lower/).
#pragma once

#include "ir/lower/context.h"

namespace talon::ir::lower {

// Appends residual, residual_frozen_w, jhat, c_diag, mass, diag_a, jvp_exact, vjp_exact and
// vjp_inputs to prog.kernels (see lower.h) and fills prog's jhat pattern and extra inputs.
void build_kernels(Context& ctx, const Dynamics& dyn, ResidualProgram& prog);

}  // namespace talon::ir::lower
