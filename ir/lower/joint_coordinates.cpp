// Joint coordinates θ(q) (MuJoCo's qpos of hinges and slides) as functions of the maximal
// state, and their rates θ̇ at the start of the step.
//
// Hinge angles come from the rotation R = R_F0ᵀ R_child relative to the joint reference
// frame (see joint_frame_point), R = R₁(θ₁)·R₂(θ₂)·R₃(θ₃) in the written order (MuJoCo's
// mj_kinematics composes a body's joints that way):
//   one hinge:   θ = 2·atan2(a·vec(q_rel), w(q_rel)) — continuous for |θ| < 2π;
//   two hinges (orthonormal a₁, a₂, e₃ = a₁×a₂): R a₂ = R₁a₂ = cos θ₁ a₂ + sin θ₁ e₃ and
//                Rᵀa₁ = R₂ᵀa₁ = cos θ₂ a₁ + sin θ₂ e₃;
//   three hinges: generalised Euler angles in the basis (a₁, a₂, e₃) with a₃ = σ e₃:
//                M = Rx(θ₁)Ry(θ₂)Rz(σθ₃) gives θ₁ = atan2(−M₂₃, M₃₃),
//                θ₂ = atan2(M₁₃, √(M₁₁² + M₁₂²)), σθ₃ = atan2(−M₁₂, M₁₁).
// Slide coordinates are the dual-basis components of the anchor's offset from its
// reference position (slide axes in the parent's frame when the slides act first, in the
// child's frame when they act last).
// Every angle is kept as the atan2 pair (y, x), so a step's increment
// Δθ = atan2(y⁺x⁻ − x⁺y⁻, x⁺x⁻ + y⁺y⁻) is free of the ±π wrap (servos, continuous wheels).
#include "ir/lower/context.h"
#include "ir/passes/derivative.h"

namespace talon::ir::lower {
namespace {

// e_iᵀ R e_j.
Expr entry(const M3& r, const V3& ei, const V3& ej) {
  return dot(ei, r * ej);
}

Coordinate angle(Expr y, Expr x, double factor, Expr offset) {
  Coordinate c;
  c.angular = true;
  c.y = y;
  c.x = x;
  c.factor = factor;
  c.offset = offset;
  return c;
}

void hinge_coordinates(Context& ctx, const JointSet& set, Time t, std::vector<Coordinate>& out) {
  const Q4 q_rel = joint_relative_rotation(ctx, set, t);
  const auto& hinges = set.hinges;
  auto offset = [&](int k) { return ctx.joints[hinges[k]].qpos0; };
  const JointSetInputs& in = set.inputs;
  const V3& a1 = in.axes[0];
  if (hinges.size() == 1) {
    out[hinges[0]] = angle(dot(a1, q_rel.vec()), q_rel.w, 2.0, offset(0));
    return;
  }
  const M3 r = rotation_matrix(q_rel);
  const V3& a2 = in.axes[1];
  const V3& e3 = in.e3;
  if (hinges.size() == 2) {
    out[hinges[0]] = angle(entry(r, e3, a2), entry(r, a2, a2), 1.0, offset(0));
    out[hinges[1]] = angle(entry(r, a1, e3), entry(r, a1, a1), 1.0, offset(1));
    return;
  }
  const double sigma = third_axis_sign(ctx.model, set);
  auto mm = [&](const V3& ei, const V3& ej) { return entry(r, ei, ej); };
  const Expr m11 = mm(a1, a1), m12 = mm(a1, a2), m13 = mm(a1, e3);
  out[hinges[0]] = angle(-mm(a2, e3), mm(e3, e3), 1.0, offset(0));
  out[hinges[1]] = angle(m13, sqrt(m11 * m11 + m12 * m12), 1.0, offset(1));
  out[hinges[2]] = angle(-m12, m11, sigma, offset(2));
}

void slide_coordinates(Context& ctx, const JointSet& set, Time t, std::vector<Coordinate>& out) {
  const V3 offset_world = child_anchor(ctx, set, t) - parent_anchor(ctx, set, t);
  for (std::size_t k = 0; k < set.slides.size(); ++k) {
    Coordinate c;
    c.angular = false;
    c.s = dot(slide_frame(ctx, set, t).direction(set.inputs.slide_duals[k]), offset_world);
    c.offset = ctx.joints[set.slides[k]].qpos0;
    out[set.slides[k]] = c;
  }
}

std::vector<Coordinate> coordinates(Context& ctx, Time t) {
  std::vector<Coordinate> out(ctx.model.njnt);
  for (const JointSet& set : ctx.joint_sets) {
    if (set.kind != JointSetKind::Chain) continue;
    if (!set.hinges.empty()) hinge_coordinates(ctx, set, t, out);
    if (!set.slides.empty()) slide_coordinates(ctx, set, t, out);
  }
  return out;
}

// q̇ = G(q) u at q⁻: ẋ = v, quaternion rate ½ (0, ω) ⊗ q (world-frame ω).
std::vector<Expr> state_rate_minus(const Context& ctx) {
  std::vector<Expr> rate;
  rate.reserve(ctx.q_minus.size());
  for (int b = 0; b < ctx.model.nsim; ++b) {
    const BodyState& s = ctx.bodies[b];
    const Q4 q{ctx.q_minus[7 * b + 3], ctx.q_minus[7 * b + 4], ctx.q_minus[7 * b + 5],
               ctx.q_minus[7 * b + 6]};
    const Q4 omega{ctx.g.constant(0.0), 0.5 * s.w_minus.x, 0.5 * s.w_minus.y, 0.5 * s.w_minus.z};
    const Q4 q_dot = omega * q;
    rate.insert(rate.end(),
                {s.v_minus.x, s.v_minus.y, s.v_minus.z, q_dot.w, q_dot.x, q_dot.y, q_dot.z});
  }
  return rate;
}

}  // namespace

void build_joint_coordinates(Context& ctx) {
  ctx.coord_minus = coordinates(ctx, Time::Minus);
  ctx.coord_plus = coordinates(ctx, Time::Plus);
  std::vector<int> joints;
  std::vector<Expr> values;
  for (int j = 0; j < ctx.model.njnt; ++j) {
    if (!ctx.coord_minus[j].y && !ctx.coord_minus[j].s) continue;
    joints.push_back(j);
    values.push_back(ctx.coord_minus[j].value());
  }
  ctx.joint_velocity_minus.assign(ctx.model.njnt, Expr());
  if (values.empty()) return;
  // θ̇ = (∂θ/∂q) G(q) u, one forward sweep for every joint.
  const std::vector<Expr> rates = jvp(values, ctx.q_minus, state_rate_minus(ctx));
  for (std::size_t k = 0; k < joints.size(); ++k) ctx.joint_velocity_minus[joints[k]] = rates[k];
}

double third_axis_sign(const Model& m, const JointSet& set) {
  const Vec3 e3 = m.jnt_axis[set.hinges[0]].cross(m.jnt_axis[set.hinges[1]]);
  return m.jnt_axis[set.hinges[2]].dot(e3) < 0 ? -1.0 : 1.0;
}

Expr coordinate_increment(const Coordinate& minus, const Coordinate& plus) {
  if (!plus.angular) return plus.s - minus.s;
  return plus.factor *
         atan2(plus.y * minus.x - plus.x * minus.y, plus.x * minus.x + plus.y * minus.y);
}

}  // namespace talon::ir::lower
