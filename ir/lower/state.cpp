// State layout and kinematics: the step's inputs, the mass parameters, the symbolic pose of
// every sim body at both ends of the step, and the geoms' placements on them.
//
// q⁺ follows the backward-Euler kinematic map with G frozen at q⁻ (DESIGN "State and time
// stepping"): x⁺ = x⁻ + h v⁺ for the centre of mass, and for the orientation the exponential
// map quat⁺ = exp(h ω⁺ / 2) ⊗ quat⁻ (world-frame ω), exact for a constant ω where the
// first-order q⁻ + h G u⁺ drifts off the unit sphere at ωh ≈ 1. The result is normalised.
#include <string>

#include "ir/lower/context.h"

namespace talon::ir::lower {
namespace {

// Below this |hω/2|² the exponential map uses its Taylor series: cos and sin(θ)/θ as
// polynomials in θ², smooth (and differentiable) through ω = 0, where sqrt is not. The
// first omitted terms are θ⁶/720 and θ⁶/5040, below 1e-18 here.
constexpr double kTaylorThresholdSq = 1e-4;

// exp(φ) for a pure-vector quaternion φ (|φ| = half the rotation angle).
Q4 quaternion_exp(const V3& phi) {
  Graph& g = phi.x.graph();
  const Expr theta_sq = squared_norm(phi);
  const Expr small = lt(theta_sq, g.constant(kTaylorThresholdSq));
  // Only the large branch takes the square root, so its value is never used at 0; the
  // guard keeps its (discarded) derivative finite there too.
  const Expr theta = sqrt(max(theta_sq, g.constant(kTaylorThresholdSq)));
  const Expr cos_taylor = 1.0 - theta_sq / 2.0 + theta_sq * theta_sq / 24.0;
  const Expr sinc_taylor = 1.0 - theta_sq / 6.0 + theta_sq * theta_sq / 120.0;
  const Expr c = select(small, cos_taylor, cos(theta));
  const Expr s = select(small, sinc_taylor, sin(theta) / theta);
  return {c, s * phi.x, s * phi.y, s * phi.z};
}

Frame make_frame(const V3& com, const Q4& quat, const Vec3& com_local) {
  return {com, quat, rotation_matrix(quat), com_local};
}

void create_inputs(Context& ctx) {
  const Model& m = ctx.model;
  auto vars = [&](std::vector<Expr>& out, int n, const std::string& prefix) {
    out.reserve(n);
    for (int i = 0; i < n; ++i) out.push_back(ctx.g.variable(prefix + std::to_string(i)));
  };
  vars(ctx.q_minus, 7 * m.nsim, "q_minus");
  vars(ctx.q_choose, 7 * m.nsim, "q_choose");
  vars(ctx.u_minus, 6 * m.nsim, "u_minus");
  vars(ctx.u_plus, 6 * m.nsim, "u_plus");
  vars(ctx.ctrl, m.nu, "ctrl");
  ctx.h = ctx.g.variable("h");
}

void create_mass_parameters(Context& ctx, int b) {
  const Model& m = ctx.model;
  BodyState& body = ctx.bodies[b];
  const std::string& name = m.sim_name[b];
  const Mat3& inertia = m.sim_inertia[b];
  body.mass = ctx.param("mass:" + name, m.sim_mass[b]);
  body.inv_mass = 1.0 / body.mass;
  body.inertia_local = symmetric({ctx.param("inertia_xx:" + name, inertia(0, 0)),
                                  ctx.param("inertia_yy:" + name, inertia(1, 1)),
                                  ctx.param("inertia_zz:" + name, inertia(2, 2)),
                                  ctx.param("inertia_xy:" + name, inertia(0, 1)),
                                  ctx.param("inertia_xz:" + name, inertia(0, 2)),
                                  ctx.param("inertia_yz:" + name, inertia(1, 2))});
}

void build_body_state(Context& ctx, int b) {
  BodyState& body = ctx.bodies[b];
  const Vec3& com_local = ctx.model.sim_com[b];
  auto q = [&](int i) { return ctx.q_minus[7 * b + i]; };
  auto u = [&](const std::vector<Expr>& vec, int i) { return vec[6 * b + i]; };
  const V3 x_minus{q(0), q(1), q(2)};
  const Q4 quat_minus = normalized(Q4{q(3), q(4), q(5), q(6)});
  body.v_minus = {u(ctx.u_minus, 0), u(ctx.u_minus, 1), u(ctx.u_minus, 2)};
  body.w_minus = {u(ctx.u_minus, 3), u(ctx.u_minus, 4), u(ctx.u_minus, 5)};
  body.v_plus = {u(ctx.u_plus, 0), u(ctx.u_plus, 1), u(ctx.u_plus, 2)};
  body.w_plus = {u(ctx.u_plus, 3), u(ctx.u_plus, 4), u(ctx.u_plus, 5)};
  body.minus = make_frame(x_minus, quat_minus, com_local);
  auto c = [&](int i) { return ctx.q_choose[7 * b + i]; };
  body.choose = make_frame({c(0), c(1), c(2)}, normalized(Q4{c(3), c(4), c(5), c(6)}), com_local);

  const V3 x_plus = x_minus + ctx.h * body.v_plus;
  const Q4 quat_plus = normalized(quaternion_exp((0.5 * ctx.h) * body.w_plus) * quat_minus);
  body.plus = make_frame(x_plus, quat_plus, com_local);

  const M3& r = body.minus.rot;
  body.inertia_world_minus = r * body.inertia_local * transpose(r);
  body.inertia_world_inv_minus = r * symmetric_inverse(body.inertia_local) * transpose(r);
}

// The geoms' placements and sizes as the model's constants (the world's geoms: com_local 0).
void build_geom_inputs(Context& ctx) {
  ctx.geoms.reserve(ctx.model.ngeom);
  for (int geom = 0; geom < ctx.model.ngeom; ++geom) {
    const GeomPlacement p = geom_placement(ctx.model, geom);
    ctx.geoms.push_back(
        {constant(ctx.g, p.offset), constant(ctx.g, p.rot), constant(ctx.g, p.size)});
  }
}

}  // namespace

GeomPlacement geom_placement(const Model& model, int geom) {
  const int sim = model.geom_sim[geom];
  const Vec3 com_local = sim < 0 ? Vec3::Zero() : model.sim_com[sim];
  const Pose& local = model.geom_pose[geom];
  return {local.pos - com_local, local.quat.toRotationMatrix(), model.geom_size[geom]};
}

V3 Frame::point(const Vec3& p_local) const {
  return at(constant(com.x.graph(), Vec3(p_local - com_local)));
}

V3 Frame::direction(const Vec3& d_local) const {
  return rot * constant(com.x.graph(), d_local);
}

V3 Frame::at(const V3& offset_from_com) const {
  return com + rot * offset_from_com;
}

V3 Frame::direction(const V3& d_local) const {
  return rot * d_local;
}

void build_state(Context& ctx) {
  create_inputs(ctx);
  const int n = ctx.model.nsim;
  ctx.bodies.resize(n);
  for (int b = 0; b < n; ++b) create_mass_parameters(ctx, b);
  for (int b = 0; b < n; ++b) build_body_state(ctx, b);
  build_geom_inputs(ctx);
}

}  // namespace talon::ir::lower

namespace talon::ir {

std::vector<double> reference_configuration(const Model& model) {
  std::vector<double> q;
  q.reserve(7 * model.nsim);
  for (int b = 0; b < model.nsim; ++b) {
    const Pose& pose = model.sim_pose_world[b];
    const Vec3 com = pose.apply(model.sim_com[b]);
    const Quat quat = pose.quat.normalized();
    q.insert(q.end(), {com.x(), com.y(), com.z(), quat.w(), quat.x(), quat.y(), quat.z()});
  }
  return q;
}

}  // namespace talon::ir
