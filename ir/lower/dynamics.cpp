// Dynamics rows, six per sim body (impulse form):
//   r_dyn = M̃(u⁺ − ũ) + h G(ω⁺) − Σ Jᵀλ = M̃(u⁺ − u⁻) − h f_ext(q⁻, u⁻) + h G(ω⁺) − Σ Jᵀλ,
//   ũ = u⁻ + h M̃⁻¹ f_ext,  M̃ = diag(m I₃, I_w = R I Rᵀ) at q⁻,  G(ω⁺) = (0, ω⁺ × I_w ω⁺).
// f_ext: gravity on the COM and joint forces τ (motors, passive springs) mapped to the bodies
// by J_θᵀτ, J_θ = ∂θ̇/∂u at q⁻.
// The gyroscopic torque is implicit, at ω⁺ with I_w frozen at q⁻ (Euler's equations by
// backward Euler in the body frame of q⁻). Dotting its rows with ω⁺ (ω⁺·(ω⁺ × I_w ω⁺) = 0)
// gives ½ω⁺·I_w ω⁺ − ½ω⁻·I_w ω⁻ = −½ dω·I_w dω ≤ 0 for a free body, and since
// q⁺ = exp(h ω⁺) q⁻ turns the body about ω⁺ itself, ω⁺·I_w(q⁺) ω⁺ = ω⁺·I_w(q⁻) ω⁺: the
// kinetic energy of a free spin never grows, at any h. Taken at ω⁻ (explicit) it grows by a
// factor ~(1 + c h²|ω|²) a step: a capsule tumbling at 72 rad/s spun up to 1950 rad/s in 16
// steps of 0.05 s, and the primitive pile's capsules were thrown off it spinning
// (bench/RESULTS.md, twenty-fourth session).
// Constraint impulses: Σ Jᵀλ = (∂ρ/∂u⁺)ᵀλ over the rows' geometric measures ρ (one reverse
// sweep, exact, consistent with the rows by construction), plus the friction impulses
// J_tᵀλ_t added explicitly (contacts.cpp).
#include "ir/lower/context.h"
#include "ir/passes/derivative.h"

namespace talon::ir::lower {
namespace {

std::array<Expr, 6> symmetric_entries(const M3& s) {
  return {s(0, 0), s(1, 1), s(2, 2), s(0, 1), s(0, 2), s(1, 2)};
}

}  // namespace

std::vector<Expr> joint_generalized_forces(const Context& ctx) {
  std::vector<Expr> velocities, torques;
  for (const JointForce& f : ctx.joint_forces) {
    velocities.push_back(ctx.joint_velocity_minus[f.joint]);
    torques.push_back(f.torque);
  }
  if (velocities.empty()) return std::vector<Expr>(ctx.u_minus.size(), ctx.g.constant(0.0));
  return vjp(velocities, ctx.u_minus, torques);
}

std::vector<Expr> constraint_impulses(const Context& ctx) {
  std::vector<Expr> measures, impulses;
  for (const Row& row : ctx.rows) {
    if (!row.rho) continue;
    measures.push_back(row.rho);
    impulses.push_back(row.lambda);
  }
  std::vector<Expr> total = measures.empty()
                                ? std::vector<Expr>(ctx.u_plus.size(), ctx.g.constant(0.0))
                                : vjp(measures, ctx.u_plus, impulses);
  for (const ExplicitImpulse& e : ctx.explicit_impulses)
    for (int i = 0; i < 3; ++i) {
      total[6 * e.body + i] = total[6 * e.body + i] + e.linear[i];
      total[6 * e.body + 3 + i] = total[6 * e.body + 3 + i] + e.angular[i];
    }
  return total;
}

Dynamics constraint_share(Context& ctx) {
  const int n = ctx.model.nsim;
  const std::vector<Expr> joint_forces = joint_generalized_forces(ctx);
  const std::vector<Expr> impulses = constraint_impulses(ctx);
  const Expr zero = ctx.g.constant(0.0);
  Dynamics out;
  for (int b = 0; b < n; ++b) {
    const BodyState& s = ctx.bodies[b];
    const V3 force{joint_forces[6 * b], joint_forces[6 * b + 1], joint_forces[6 * b + 2]};
    const V3 torque{joint_forces[6 * b + 3], joint_forces[6 * b + 4], joint_forces[6 * b + 5]};
    for (int i = 0; i < 6; ++i)
      out.residual.push_back(-ctx.h * joint_forces[6 * b + i] - impulses[6 * b + i]);
    // build_dynamics' mass outputs: m, I_w (6), 1/m, I_w⁻¹ (6) are the body's; ũ moves.
    out.mass.insert(out.mass.end(), 14, zero);
    const V3 v_share = (ctx.h * s.inv_mass) * force;
    const V3 w_share = ctx.h * (s.inertia_world_inv_minus * torque);
    out.mass.insert(out.mass.end(),
                    {v_share.x, v_share.y, v_share.z, w_share.x, w_share.y, w_share.z});
  }
  return out;
}

Dynamics build_dynamics(Context& ctx) {
  const int n = ctx.model.nsim;
  const std::vector<Expr> joint_forces = joint_generalized_forces(ctx);
  const std::vector<Expr> impulses = constraint_impulses(ctx);
  const V3 gravity = constant(ctx.g, ctx.model.gravity);
  Dynamics out;
  out.residual.reserve(6 * n);
  out.mass.reserve(20 * n);
  for (int b = 0; b < n; ++b) {
    const BodyState& s = ctx.bodies[b];
    auto at = [&](const std::vector<Expr>& v, int offset) {
      return V3{v[6 * b + offset], v[6 * b + offset + 1], v[6 * b + offset + 2]};
    };
    const V3 force = s.mass * gravity + at(joint_forces, 0);
    const V3 torque = at(joint_forces, 3);
    const V3 gyroscopic = cross(s.w_plus, s.inertia_world_minus * s.w_plus);
    const V3 r_lin = s.mass * (s.v_plus - s.v_minus) - ctx.h * force - at(impulses, 0);
    const V3 r_ang = s.inertia_world_minus * (s.w_plus - s.w_minus) +
                     ctx.h * (gyroscopic - torque) - at(impulses, 3);
    out.residual.insert(out.residual.end(), {r_lin.x, r_lin.y, r_lin.z, r_ang.x, r_ang.y, r_ang.z});

    const V3 v_tilde = s.v_minus + (ctx.h * s.inv_mass) * force;
    const V3 w_tilde = s.w_minus + ctx.h * (s.inertia_world_inv_minus * torque);
    out.mass.push_back(s.mass);
    for (Expr e : symmetric_entries(s.inertia_world_minus)) out.mass.push_back(e);
    out.mass.push_back(s.inv_mass);
    for (Expr e : symmetric_entries(s.inertia_world_inv_minus)) out.mass.push_back(e);
    out.mass.insert(out.mass.end(),
                    {v_tilde.x, v_tilde.y, v_tilde.z, w_tilde.x, w_tilde.y, w_tilde.z});
  }
  return out;
}

}  // namespace talon::ir::lower
