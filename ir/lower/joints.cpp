// Bilateral joint rows: c(q⁺)/h + (E/h²)λ = 0 per constrained direction (impulse form, so
// every row is a velocity; E is the joint set's compliance parameter, default 0).
//
// With F0 the joint reference frame (joint_sets.cpp) and d = x_child(A) − x_F0(A) the drift
// of the anchor A:
//   ball      d = 0                                         3 rows
//   planar    (F0 bₖ)·(C a) = 0 for bₖ ⟂ a, (F0 a)·d = 0     3 rows
//   chain     rotation: no hinge → 2·vec(q_rel) = 0 (3 rows); one hinge a → (F0 bₖ)·(C a)
//             = 0, bₖ ⟂ a (2 rows); two hinges → (F0 a₁)·(C a₂) = a₁·a₂ (the universal-joint
//             row, 1); three → none.
//             position: d = 0 without slides (3 rows); with slides, d's components along
//             the complement of the slide axes (3 − #slides rows, axes in the frame the
//             slides act in).
//   two hinges with anchors A₁ ≠ A₂ (skew): the intermediate frame K = F0·R₁ has
//             K a₁ = F0 a₁ = n₁ and K a₂ = C a₂ = n₂, and x_C(A₂) − x_F0(A₁) = K(A₂ − A₁)
//             = α n₁ + β n₂ + γ n₁×n₂ with (α, β, γ) the reference offset in the basis
//             (a₁, a₂, a₁×a₂): 3 position rows + the universal row.
#include "ir/lower/context.h"

namespace talon::ir::lower {
namespace {

struct Constraint {
  Expr value;
  std::string what;
};

const char* kAxisNames[3] = {"x", "y", "z"};

void anchor_rows(const V3& drift, const std::string& what, std::vector<Constraint>& out) {
  for (int i = 0; i < 3; ++i) out.push_back({drift[i], what + " " + kAxisNames[i]});
}

V3 anchor_drift(const Context& ctx, const JointSet& set) {
  return child_anchor(ctx, set, Time::Plus) - parent_anchor(ctx, set, Time::Plus);
}

// (F0 bₖ)·(C a) for the directions bₖ ⟂ a: the child's axis a stays the parent's axis.
void axis_rows(const Context& ctx, const JointSet& set, std::vector<Constraint>& out) {
  const V3 child_axis = ctx.frame(set.body, Time::Plus).direction(set.inputs.axes[0]);
  const Frame& parent = ctx.frame(set.parent, Time::Plus);
  int k = 0;
  for (const V3& b : set.inputs.axis_normals_parent)
    out.push_back({dot(parent.direction(b), child_axis), "axis " + std::to_string(++k)});
}

// n₁ = F0 a₁ and n₂ = C a₂ of two hinges.
std::pair<V3, V3> hinge_axes_world(const Context& ctx, const JointSet& set) {
  return {ctx.frame(set.parent, Time::Plus).direction(set.inputs.axes_parent[0]),
          ctx.frame(set.body, Time::Plus).direction(set.inputs.axes[1])};
}

void rotation_rows(const Context& ctx, const JointSet& set, std::vector<Constraint>& out) {
  if (set.hinges.empty()) {
    const Q4 q_rel = joint_relative_rotation(ctx, set, Time::Plus);
    anchor_rows(2.0 * q_rel.vec(), "rotation", out);
  } else if (set.hinges.size() == 1) {
    axis_rows(ctx, set, out);
  } else if (set.hinges.size() == 2) {
    const auto [n1, n2] = hinge_axes_world(ctx, set);
    out.push_back({dot(n1, n2) - set.inputs.axes_dot, "universal"});
  }
}

void skew_rows(const Context& ctx, const JointSet& set, std::vector<Constraint>& out) {
  const auto [n1, n2] = hinge_axes_world(ctx, set);
  const V3& c = set.inputs.skew_coefficients;
  const V3 offset = c.x * n1 + c.y * n2 + c.z * cross(n1, n2);
  const V3 drift = ctx.frame(set.body, Time::Plus).at(set.inputs.anchor2_child) -
                   parent_anchor(ctx, set, Time::Plus);
  anchor_rows(drift - offset, "anchors", out);
}

void position_rows(const Context& ctx, const JointSet& set, std::vector<Constraint>& out) {
  if (set.skew) return skew_rows(ctx, set, out);
  const V3 drift = anchor_drift(ctx, set);
  if (set.slides.empty()) return anchor_rows(drift, "anchor", out);
  const Frame& frame = slide_frame(ctx, set, Time::Plus);
  int k = 0;
  for (const V3& normal : set.inputs.position_normals)
    out.push_back({dot(frame.direction(normal), drift), "slide normal " + std::to_string(++k)});
}

std::vector<Constraint> constraints(const Context& ctx, const JointSet& set) {
  std::vector<Constraint> out;
  switch (set.kind) {
    case JointSetKind::Free:
      break;
    case JointSetKind::Ball:
      anchor_rows(anchor_drift(ctx, set), "anchor", out);
      break;
    case JointSetKind::Planar: {
      axis_rows(ctx, set, out);
      const V3 normal = ctx.frame(set.parent, Time::Plus).direction(set.inputs.axes_parent[0]);
      out.push_back({dot(normal, anchor_drift(ctx, set)), "plane"});
      break;
    }
    case JointSetKind::Chain:
      rotation_rows(ctx, set, out);
      position_rows(ctx, set, out);
      break;
  }
  return out;
}

}  // namespace

void build_joint_rows(Context& ctx) {
  const int first = static_cast<int>(ctx.rows.size());
  const Expr h2 = ctx.h * ctx.h;
  for (const JointSet& set : ctx.joint_sets) {
    const std::vector<Constraint> rows = constraints(ctx, set);
    if (rows.empty()) continue;
    const std::string& body = ctx.model.sim_name[set.body];
    const Expr compliance = ctx.param("joint_compliance:" + body, ctx.options.joint_compliance);
    const std::string joint = "'" + ctx.model.jnt_name[set.joints.front()] + "'";
    for (const Constraint& c : rows) {
      const std::string label = joint + " " + c.what;
      Row& row = ctx.options.uses_joint_templates()
                     ? ctx.add_placeholder_row(RowKind::Joint, label)
                     : ctx.add_compliant_row(RowKind::Joint, label, c.value / ctx.h,
                                             compliance / h2, c.value / ctx.h);
      row.info.body = set.body;
      row.info.other = set.parent;
      row.info.joint = set.joints.front();
    }
  }
  ctx.close_block("joint", first);
}

}  // namespace talon::ir::lower
