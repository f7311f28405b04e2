// build_kernels: the derivative kernels of a lowered model (internal to ir/lower/).
#pragma once

#include "ir/lower/context.h"

namespace talon::ir::lower {

// Which kernels: a model's; a per-type template's, which leaves out what is per body (the
// `vjp_q_plus` kernel, `residual`'s q_plus, and the `mass` kernel unless the template has a
// share of it: a joint set's explicit forces move ũ); or the bodies' template's, a model's of
// one body. Both templates also get jvp_exact in two stages (jvp_primal, jvp_tangent).
enum class KernelSet { Model, Template, BodyTemplate };

// Appends residual, residual_frozen_w, jhat, c_diag, mass, diag_a, jvp_exact and (with
// LowerOptions::backward_kernels) vjp_exact, vjp_inputs and vjp_q_plus to prog.kernels (see
// lower.h) and fills prog's jhat pattern and extra inputs.
void build_kernels(Context& ctx, const Dynamics& dyn, ResidualProgram& prog,
                   KernelSet set = KernelSet::Model);

// The program's metadata from the lowered context (lower.cpp): sizes, inputs, rows, blocks.
void fill_metadata(Context& ctx, ResidualProgram& prog);

}  // namespace talon::ir::lower
