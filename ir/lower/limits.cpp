// Joint limits: Fischer–Burmeister rows on the gaps θ⁺ − lower ≥ 0 and upper − θ⁺ ≥ 0 of
// every limited hinge and slide, exactly as for normal contact (Context::
// add_complementarity_row). The FB scale r = h·J_θ M̃⁻¹ J_θᵀ uses the coordinate's velocity
// Jacobian J_θ = ∂θ̇/∂u at q⁻, so both FB arguments are in the coordinate's units.
#include "ir/lower/context.h"
#include "ir/passes/derivative.h"

namespace talon::ir::lower {
namespace {

// J_θ M̃⁻¹ J_θᵀ of joint j at q⁻.
Expr coordinate_inverse_mass(const Context& ctx, int joint) {
  const JointSet& set = ctx.joint_sets[ctx.joint_set_of_joint[joint]];
  std::vector<int> bodies{set.body};
  if (set.parent >= 0) bodies.push_back(set.parent);
  std::vector<Expr> wrt;
  for (int b : bodies)
    for (int i = 0; i < 6; ++i) wrt.push_back(ctx.u_minus[6 * b + i]);
  const std::vector<Expr> jac = gradient(ctx.joint_velocity_minus[joint], wrt);
  std::vector<std::array<Expr, 6>> directions(bodies.size());
  for (std::size_t k = 0; k < bodies.size(); ++k)
    for (int i = 0; i < 6; ++i) directions[k][i] = jac[6 * k + i];
  return generalized_inverse_mass(ctx, bodies, directions);
}

}  // namespace

void build_limit_rows(Context& ctx) {
  const Model& m = ctx.model;
  const int first = static_cast<int>(ctx.rows.size());
  Expr compliance;
  for (int j = 0; j < m.njnt; ++j) {
    if (!m.jnt_limited[j]) continue;
    if (m.jnt_type[j] != JointType::Hinge && m.jnt_type[j] != JointType::Slide) {
      ctx.note(std::string("limits of ") + joint_type_name(m.jnt_type[j]) +
               " joints are not modelled (joint '" + m.jnt_name[j] + "')");
      continue;
    }
    if (ctx.joint_set_of_joint[j] < 0) continue;
    if (!compliance) compliance = ctx.param("limit_compliance", ctx.options.limit_compliance);
    const std::string name = "limit '" + m.jnt_name[j] + "' ";
    const bool templated = ctx.options.uses_joint_templates();
    // A placeholder needs no gap: its rows are its joint set's template's.
    std::pair<Expr, const char*> gaps[2] = {{Expr(), "lower"}, {Expr(), "upper"}};
    Expr fb_scale;
    if (!templated) {
      const Expr theta = ctx.coord_plus[j].value();
      fb_scale = ctx.h * coordinate_inverse_mass(ctx, j);
      gaps[0].first = theta - ctx.joints[j].lower;
      gaps[1].first = ctx.joints[j].upper - theta;
    }
    for (const auto& [gap, side] : gaps) {
      Row& row = templated ? ctx.add_placeholder_row(RowKind::Limit, name + side)
                           : ctx.add_complementarity_row(RowKind::Limit, name + side, gap, fb_scale,
                                                         compliance);
      row.info.joint = j;
      row.info.body = m.jnt_sim[j];
      row.info.other = m.sim_parent[m.jnt_sim[j]];
    }
  }
  ctx.close_block("limit", first);
}

}  // namespace talon::ir::lower
