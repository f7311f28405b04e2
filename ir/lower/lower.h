// lower_model: Model -> ResidualProgram (the residual of one step and its derivative kernels).
//
// Kernels (each an ir::Function; inputs: q_minus, u_minus, u_plus, lambda, ctrl, params, h,
// then the kernel's extra inputs; Kernel::inputs / outputs name the slices):
//   residual          -> r_dyn [6n], r_con [nrows], merit [nrows], q_plus [7n],
//                        friction_w [nfriction] (each frictional contact's preconditioner
//                        weight s = 1/d − 1, d the slope of the cone's projection: 0 sticking,
//                        large separated; ir/lower/contacts.cpp), gap [contact normal rows]
//                        (the colliders' g(q⁺))
//   residual_frozen_w (+ friction_w) -> the rows the preconditioner linearises: r_con with
//                        each friction row replaced by v_t + (s k_t + R_t) λ_t
//   jhat     (+ friction_w) -> values of Ĵ = ∂r_con/∂u⁺, W frozen, at (jhat_row, jhat_col)
//   c_diag   (+ friction_w) -> diag ∂r_con/∂λ, W frozen [nrows]
//   mass              -> per body 20 values: m, I_world (xx yy zz xy xz yz), 1/m,
//                        I_world⁻¹ (same order), ũ (v, ω); M̃ and ũ at q⁻
//   diag_a   (+ friction_w) -> diag(Ĵ M̃⁻¹ Ĵᵀ + C) [nrows] (Jacobi preconditioner)
//   jvp_exact (+ tangent_u [6n], tangent_lambda [nrows]) -> ∂r/∂(u⁺, λ)·t [6n + nrows]
//   jvp_primal, jvp_tangent (a per-type template's only): jvp_exact in two stages
//                        (ir/passes/stages.h): jvp_primal -> jvp_cache; jvp_tangent
//                        (jvp_cache, tangent_u, tangent_lambda) -> jvp_exact's outputs
//   vjp_exact (+ cotangent_dyn [6n], cotangent_con [nrows]) -> (∂r/∂(u⁺, λ))ᵀ w [6n + nrows]
//   vjp_inputs (+ cotangent_dyn, cotangent_con) -> wᵀ ∂r/∂(q⁻, u⁻, ctrl, params)
//                        [7n + 6n + nu + nparam]
//   vjp_q_plus (+ cotangent_q [7n]) -> q̄ᵀ ∂q⁺/∂q⁻ [7n], q̄ᵀ ∂q⁺/∂u⁺ [6n]
// (the last three only with LowerOptions::backward_kernels).
// The exact kernels differentiate every term of r_con; the frozen ones linearise the rows of
// residual_frozen_w, with the friction weights taken from the input.
#pragma once

#include "common/expected.h"
#include "frontend/model.h"
#include "ir/lower/program.h"

namespace talon::ir {

struct LowerOptions {
  // Replace every parameter θ by its Model value (the params input is then empty).
  bool fold_params = false;
  // ε² of the Fischer–Burmeister function of normal contacts and joint limits, in velocity
  // units ((m/s)² or (rad/s)²): the rows use √(c² + r²λ² + ε²h²). A fixed length ε would
  // leave the smoothed solution's gap c = ε²/(2rλ) growing like 1/h² at rest (rλ ~ g h²):
  // 0.5 mm, popping the body up at 0.5 m/s, at h = 1 ms with ε² = 1e-8 m². Scaling ε with h
  // keeps that gap near ε²/(k m g) ≈ 1e-11 m for every h.
  double fb_epsilon_sq = 1e-20;
  // ε of the smoothed norms (velocity / impulse units).
  double friction_epsilon = 1e-10;
  // Compliances inside the step equations (docs/design.md, "The step equations"). Joints:
  // E (m/N or rad/(N·m)), absolute, 0 = rigid. Normal contacts and joint limits: κ_n, relative
  // to the row's effective mass (E = κ_n h² [J M̃⁻¹ Jᵀ], Context::add_complementarity_row):
  // with friction several bodies in contact are statically indeterminate, and only a
  // compliance inside the equations makes their impulses - and the step's answer - unique
  // (a box pushed by a sphere: 1 cm of difference for 0.1 % of control without it). Its cost:
  // a resting body sinks κ_n h² g (9.8 µm at h = 0.1). Friction: κ_t, the regularisation
  // R_t = κ_t [J_t M̃⁻¹ J_tᵀ] inside the natural map (contacts.cpp); a stuck contact creeps
  // at R_t |λ_t| ≤ κ_t μ g h (5e-7 m/s at μ = 0.5, h = 0.1). All three are parameters
  // (differentiable like the others); these are their default values.
  double joint_compliance = 0;
  double limit_compliance = 1e-4;
  double contact_compliance = 1e-4;
  double friction_compliance = 1e-6;
  // Passive joint stiffness and damping: implicit compliant rows in the servo block (stable at
  // any h), or explicit forces at the start of the step. Explicit damping d on a coordinate of
  // inertia I is unstable once h d / I > 2: MuJoCo's humanoid (legs d = 5, a thigh's inertia
  // about its own axis ~0.01 kg m², h = 0.05: h d / I ~ 15) whirled its hips at 60 rad/s while
  // lying on the floor, and Newton split two of three steps (mean 75 updates per step); with
  // the implicit rows it comes to rest (joint speeds 2e-5 rad/s) at mean 18 (bench/RESULTS.md).
  bool implicit_joint_springs = true;
  // Contacts between different kinematic trees (e.g. two free-floating robots) grow
  // quadratically with the number of trees; above this many geom pairs none of them is
  // generated (a note says so). -1 = no limit.
  int max_inter_tree_pairs = 4096;
  // Lower each primitive contact pair's rows once per pair type, as a template evaluated per
  // instance (ir/lower/pair_templates.h, ResidualProgram::pairs), instead of unrolled into
  // every kernel: the program's kernels hold zeros where those rows are, and the templates'
  // instances add them. Needs unfolded parameters (ignored with fold_params). The default:
  // the same answers to round-off (tests/ir/test_pair_templates.cpp) from a fraction of the
  // code (MuJoCo's humanoid builds in 11 s instead of 81 s; bench/RESULTS.md).
  bool pair_templates = true;
  // Whether the pairs are lowered as templates: asked for and the parameters unfolded.
  bool uses_pair_templates() const { return pair_templates && !fold_params; }
  // The same for the joint sets (ir/lower/joint_templates.h): a body's joint rows, the limit
  // and servo rows of its joints and its joints' explicit forces, lowered once per kind of
  // joint set (joint types, which are limited, sprung, actuated, ...) as a template evaluated
  // per body.
  bool joint_templates = true;
  bool uses_joint_templates() const { return joint_templates && !fold_params; }
  // The same for the sim bodies (ir/lower/body_templates.h): each body's own dynamics rows
  // (M̃(u⁺ − u⁻) − h(mg − ω × Iω)), its mass kernel's outputs and its pose q⁺, lowered once
  // as a template of one free body evaluated per body.
  bool body_templates = true;
  bool uses_body_templates() const { return body_templates && !fold_params; }
  // Every kind of template on or off (`--templates` / `--no-templates`).
  void set_templates(bool on) { pair_templates = joint_templates = body_templates = on; }
  // The backward step's kernels (vjp_exact, vjp_inputs, vjp_q_plus: the reverse sweeps). A
  // unit without a backward step (SolverOptions::adjoint_iterations = 0) does not call them,
  // and they are about a third of the lowering time (MuJoCo's humanoid).
  bool backward_kernels = true;
  // Fill LowerStats::kernels (DAG and tree sizes per kernel, for `talon ir`). It walks every
  // kernel once more: about a third of the lowering time of a large model.
  bool kernel_stats = false;
};

// Errors (Diagnostics with the model file) for what the lowering does not support, with
// `unsupported:` and the body, joint, actuator or geom they concern. Notes list what was
// approximated (e.g. a pair type without a symbolic collider).
Expected<ResidualProgram> lower_model(const Model& model, const LowerOptions& options = {});

// Fills prog.stats.kernels (what LowerOptions::kernel_stats does during lowering).
void compute_kernel_stats(ResidualProgram& prog);

// The Model's reference configuration as q [7·nsim] (COM position, quaternion).
std::vector<double> reference_configuration(const Model& model);

}  // namespace talon::ir
