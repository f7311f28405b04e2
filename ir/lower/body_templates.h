// Kernels per type for the bodies (docs/design.md, "Kernels per type", step 3): every sim
// body's own dynamics rows, r_dyn = M̃(u⁺ − u⁻) − h(mg − ω × Iω), its mass kernel's outputs
// (m, R I Rᵀ, their inverses, ũ = u⁻ + h M̃⁻¹ f) and its pose at the step's end q⁺ (with the
// pull-back of q⁺, vjp_q_plus), lowered once as the program of one free body and evaluated
// per body (internal to ir/lower/). An instance differs by its state and its mass
// parameters only, so one template serves every body of a model. The program keeps what
// its rows and joint forces add (constraint_share, dynamics.cpp).
#pragma once

#include "ir/lower/context.h"
#include "ir/lower/pair_templates.h"

namespace talon::ir::lower {

// Appends the body template of a program lowered from `ctx` with LowerOptions::
// body_templates to `templates`, and one instance per sim body.
void add_body_templates(Context& ctx, const ResidualProgram& program, PairTemplates& templates);

}  // namespace talon::ir::lower
