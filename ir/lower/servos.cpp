// Actuators and passive joint forces.
//
// MuJoCo's affine actuator with a joint transmission (gear g, joint coordinate θ):
//   force = gain·ctrl + b₀ + β₁·(gθ) + β₂·(gθ̇),  joint torque τ = g·force.
// The Model stores b₁ = gβ₁ and b₂ = gβ₂ (its bias acts on joint coordinates, spec.h), so
//   τ = g(gain·ctrl + b₀ + b₁θ + b₂θ̇).
// Servo rows (b₁ < 0 or b₂ < 0: `position`, `velocity` and servo-like `general`): the law
// holds at the *end* of the step, with θ⁺ = θ⁻ + hθ̇⁺ and the impulse λ = hτ⁺. Writing
// K_p = −g·b₁, K_d = −g·b₂, τ₀ = g(gain·ctrl + b₀):
//   τ⁺ = τ₀ − K_pθ⁺ − K_dθ̇⁺ = τ₀ − K_pθ⁻ − (hK_p + K_d)θ̇⁺
//   ⇔  e + αλ = 0,  e = θ̇⁺ + (K_pθ⁻ − τ₀)/(hK_p + K_d),  α = 1/(h(hK_p + K_d)).
// For `position` (gain = k_p, b = (0, −k_p, −k_v), g = 1) this is e = θ̇⁺ + k_p(θ⁻ − θ*)/(hk_p +
// k_v); for `velocity` (gain = k_v, b = (0, 0, −k_v)) e = θ̇⁺ − θ̇* and α = 1/(hk_v). θ̇⁺ is the
// step's increment Δθ/h, so θ⁺ = θ⁻ + hθ̇⁺ holds exactly, and λ acts through ∂θ̇⁺/∂u⁺. The
// row is stable for every h > 0 and every gain.
// Other actuators (`motor`: b₁ = b₂ = 0) are explicit joint forces at the start of the step,
// as are passive springs τ = −k(θ − θ_ref) − dθ̇ when LowerOptions::implicit_joint_springs is
// off; by default it makes them servo rows too (K_p = k, K_d = d, τ₀ = k·θ_ref; see lower.h
// for why).
// Armature a (MuJoCo's rotor inertia on a hinge or slide coordinate) adds a·θ̈ to the joint's
// inertia; backward Euler makes its impulse hτ⁺ = −a(θ̇⁺ − θ̇⁻), which is the same implicit law
// with K_p = 0, K_d = a/h and τ₀ = (a/h)·θ̇⁻: e = θ̇⁺ − θ̇⁻, α = 1/a. It acts on the joint's
// relative motion only, as in MuJoCo (the bodies' own inertias are unchanged).
#include "ir/lower/context.h"

namespace talon::ir::lower {
namespace {

std::string named(const std::string& name, const char* kind, int index) {
  return name.empty() ? kind + std::to_string(index) : name;
}

bool has_coordinate(const Context& ctx, int joint) {
  const JointType t = ctx.model.jnt_type[joint];
  return (t == JointType::Hinge || t == JointType::Slide) && ctx.joint_set_of_joint[joint] >= 0;
}

Expr clamped_ctrl(const Context& ctx, int a) {
  const Model& m = ctx.model;
  if (!m.act_ctrl_limited[a]) return ctx.ctrl[a];
  return clamp(ctx.ctrl[a], ctx.actuators[a].ctrl_lower, ctx.actuators[a].ctrl_upper);
}

// The compliant row of the implicit law τ⁺ = τ₀ − K_pθ⁺ − K_dθ̇⁺ on joint j.
// With joint templates the row is a placeholder (the template's), and τ₀ may be null.
void add_implicit_law_row(Context& ctx, int joint, const std::string& label, Expr kp, Expr kd,
                          Expr tau0) {
  auto compliant_row = [&]() -> Row& {
    const Expr velocity =
        coordinate_increment(ctx.coord_minus[joint], ctx.coord_plus[joint]) / ctx.h;
    const Expr stiffness = ctx.h * kp + kd;
    const Expr e = velocity + (kp * ctx.coord_minus[joint].value() - tau0) / stiffness;
    return ctx.add_compliant_row(RowKind::Servo, label, e, 1.0 / (ctx.h * stiffness), velocity);
  };
  Row& row = ctx.options.uses_joint_templates() ? ctx.add_placeholder_row(RowKind::Servo, label)
                                                : compliant_row();
  row.info.joint = joint;
  row.info.body = ctx.model.jnt_sim[joint];
  row.info.other = ctx.model.sim_parent[row.info.body];
}

void create_actuator_params(Context& ctx) {
  const Model& m = ctx.model;
  for (int a = 0; a < m.nu; ++a) {
    const std::string name = actuator_param_suffix(m, a);
    ctx.actuator_params.push_back({ctx.param("gain:" + name, m.act_gain[a]),
                                   ctx.param("bias0:" + name, m.act_bias[3 * a]),
                                   ctx.param("bias1:" + name, m.act_bias[3 * a + 1]),
                                   ctx.param("bias2:" + name, m.act_bias[3 * a + 2])});
  }
}

struct SpringParams {
  Expr stiffness, damping;
};

std::vector<SpringParams> spring_params(Context& ctx) {
  const Model& m = ctx.model;
  std::vector<SpringParams> out(m.njnt);
  for (int j = 0; j < m.njnt; ++j) {
    if (!has_coordinate(ctx, j) || (m.jnt_stiffness[j] == 0 && m.jnt_damping[j] == 0)) continue;
    const std::string name = joint_param_suffix(m, j);
    out[j] = {ctx.param("stiffness:" + name, m.jnt_stiffness[j]),
              ctx.param("damping:" + name, m.jnt_damping[j])};
  }
  return out;
}

void note_unmodelled_joint_terms(Context& ctx) {
  const Model& m = ctx.model;
  for (int j = 0; j < m.njnt; ++j) {
    if (m.jnt_armature[j] != 0 && !has_coordinate(ctx, j))
      ctx.note("armature of ball and free joints is not modelled");
    if (m.jnt_frictionloss[j] != 0) ctx.note("joint frictionloss is not modelled");
    if (!m.jnt_mimic[j].empty()) ctx.note("URDF mimic joints are not enforced");
  }
}

}  // namespace

bool is_servo_actuator(const Model& m, int actuator) {
  return m.act_bias[3 * actuator + 1] < 0 || m.act_bias[3 * actuator + 2] < 0;
}

std::string joint_param_suffix(const Model& m, int joint) {
  return named(m.jnt_name[joint], "joint", joint);
}

std::string actuator_param_suffix(const Model& m, int actuator) {
  return named(m.act_name[actuator], "actuator", actuator);
}

void build_servo_rows(Context& ctx) {
  const Model& m = ctx.model;
  const int first = static_cast<int>(ctx.rows.size());
  create_actuator_params(ctx);
  for (int a = 0; a < m.nu; ++a) {
    const int j = m.act_joint[a];
    if (!has_coordinate(ctx, j)) {
      ctx.unsupported("<actuator name='" + m.act_name[a] + "'>",
                      "actuator on a " + std::string(joint_type_name(m.jnt_type[j])) +
                          " joint (actuators need a hinge or slide joint)");
      continue;
    }
    if (!is_servo_actuator(m, a)) continue;
    if (m.act_force_limited[a]) ctx.note("forcerange of servo actuators is not enforced");
    const Context::ActuatorParams& p = ctx.actuator_params[a];
    const Expr g = ctx.actuators[a].gear;
    add_implicit_law_row(ctx, j, "servo '" + named(m.act_name[a], "actuator", a) + "'",
                         -g * p.bias1, -g * p.bias2, g * (p.gain * clamped_ctrl(ctx, a) + p.bias0));
    ctx.rows.back().info.actuator = a;
  }
  if (ctx.options.implicit_joint_springs) {
    const std::vector<SpringParams> springs = spring_params(ctx);
    for (int j = 0; j < m.njnt; ++j) {
      if (!springs[j].stiffness) continue;
      add_implicit_law_row(ctx, j, "spring '" + named(m.jnt_name[j], "joint", j) + "'",
                           springs[j].stiffness, springs[j].damping,
                           springs[j].stiffness * ctx.joints[j].springref);
    }
  }
  for (int j = 0; j < m.njnt; ++j) {
    if (m.jnt_armature[j] == 0 || !has_coordinate(ctx, j)) continue;
    const std::string name = joint_param_suffix(m, j);
    const Expr rate = ctx.param("armature:" + name, m.jnt_armature[j]) / ctx.h;
    const Expr tau0 =
        ctx.options.uses_joint_templates() ? Expr() : rate * ctx.joint_velocity_minus[j];
    add_implicit_law_row(ctx, j, "armature '" + name + "'", ctx.g.constant(0.0), rate, tau0);
  }
  ctx.close_block("servo", first);
}

void build_joint_forces(Context& ctx) {
  const Model& m = ctx.model;
  note_unmodelled_joint_terms(ctx);
  // Explicit springs' parameters are the program's whoever applies the forces.
  const std::vector<SpringParams> springs =
      ctx.options.implicit_joint_springs ? std::vector<SpringParams>{} : spring_params(ctx);
  if (ctx.options.uses_joint_templates()) return;  // every force is on a joint set's template
  for (int a = 0; a < m.nu; ++a) {
    const int j = m.act_joint[a];
    if (!has_coordinate(ctx, j) || is_servo_actuator(m, a)) continue;
    const Context::ActuatorParams& p = ctx.actuator_params[a];
    const Expr g = ctx.actuators[a].gear;
    Expr force = p.gain * clamped_ctrl(ctx, a) + p.bias0 + p.bias1 * ctx.coord_minus[j].value() +
                 p.bias2 * ctx.joint_velocity_minus[j];
    if (m.act_force_limited[a])
      force = clamp(force, ctx.actuators[a].force_lower, ctx.actuators[a].force_upper);
    ctx.joint_forces.push_back({j, g * force});
  }
  for (int j = 0; j < static_cast<int>(springs.size()); ++j) {
    if (!springs[j].stiffness) continue;
    const Expr torque =
        -springs[j].stiffness * (ctx.coord_minus[j].value() - ctx.joints[j].springref) -
        springs[j].damping * ctx.joint_velocity_minus[j];
    ctx.joint_forces.push_back({j, torque});
  }
}

}  // namespace talon::ir::lower
