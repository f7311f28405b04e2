// Joint sets: how the joints of one sim body constrain it relative to its parent.
//
// MuJoCo composes a body's joints in the order written (mj_kinematics): a slide translates
// along its axis in the current frame, a hinge rotates about its axis through its anchor
// in the current frame. Talon supports the combinations whose constraint rows and joint
// coordinates have closed forms:
//   * free (no rows), ball (3 anchor rows), planar (2 rotation + 1 position rows);
//   * chains of up to three slides and up to three hinges, slides all before or all after
//     the hinges, with mutually orthogonal hinge axes sharing one anchor — or exactly two
//     orthogonal hinges with different anchors (the humanoid's ankles).
// Everything else is an `unsupported:` error naming the body.
#include <cmath>
#include <sstream>

#include "ir/lower/context.h"

namespace talon::ir::lower {
namespace {

constexpr double kOrthogonalityTolerance = 1e-6;
constexpr double kAnchorTolerance = 1e-9;
constexpr double kIndependenceTolerance = 1e-6;

std::string body_element(const Context& ctx, int sim) {
  return "<body name='" + ctx.model.sim_name[sim] + "'>";
}

bool same_point(const Vec3& a, const Vec3& b) {
  return (a - b).norm() <= kAnchorTolerance * std::max(1.0, std::max(a.norm(), b.norm()));
}

bool axes_orthogonal(const Context& ctx, const std::vector<int>& hinges) {
  for (std::size_t i = 0; i < hinges.size(); ++i)
    for (std::size_t j = i + 1; j < hinges.size(); ++j)
      if (std::abs(ctx.model.jnt_axis[hinges[i]].dot(ctx.model.jnt_axis[hinges[j]])) >
          kOrthogonalityTolerance)
        return false;
  return true;
}

// Splits the chain into slides and hinges; false if they interleave (S H S or H S H).
bool split_chain(const Context& ctx, JointSet& set) {
  int changes = 0;
  for (std::size_t k = 0; k < set.joints.size(); ++k) {
    const int j = set.joints[k];
    const bool hinge = ctx.model.jnt_type[j] == JointType::Hinge;
    (hinge ? set.hinges : set.slides).push_back(j);
    if (k > 0 && hinge != (ctx.model.jnt_type[set.joints[k - 1]] == JointType::Hinge)) ++changes;
  }
  set.slides_first = ctx.model.jnt_type[set.joints.front()] == JointType::Slide;
  return changes <= 1;
}

bool set_slide_geometry(const Context& ctx, JointSet& set) {
  std::vector<Vec3> axes;
  for (int j : set.slides) axes.push_back(ctx.model.jnt_axis[j]);
  if (axes.empty()) {
    set.position_normals = orthogonal_complement({});
    return true;
  }
  Eigen::MatrixXd a(3, static_cast<int>(axes.size()));
  for (std::size_t i = 0; i < axes.size(); ++i) a.col(static_cast<int>(i)) = axes[i];
  const Eigen::MatrixXd gram = a.transpose() * a;
  if (std::abs(gram.determinant()) < kIndependenceTolerance) return false;
  const Eigen::MatrixXd duals = a * gram.inverse();  // dualᵢ · axisⱼ = δᵢⱼ, in the span
  for (int i = 0; i < duals.cols(); ++i) set.slide_duals.push_back(duals.col(i));
  set.position_normals = orthogonal_complement(axes);
  return true;
}

// Anchors of the hinges: one shared point, or two hinges with two points (skew).
bool set_hinge_anchors(const Context& ctx, JointSet& set) {
  const Model& m = ctx.model;
  set.anchor = m.jnt_pos[set.hinges.front()];
  bool shared = true;
  for (int j : set.hinges) shared = shared && same_point(m.jnt_pos[j], set.anchor);
  if (shared) return true;
  if (set.hinges.size() != 2 || !set.slides.empty()) return false;
  set.skew = true;
  set.anchor2 = m.jnt_pos[set.hinges[1]];
  const Vec3& a1 = m.jnt_axis[set.hinges[0]];
  const Vec3& a2 = m.jnt_axis[set.hinges[1]];
  Mat3 basis;
  basis << a1, a2, a1.cross(a2);
  set.skew_coefficients = basis.inverse() * (set.anchor2 - set.anchor);
  return true;
}

bool classify_chain(Context& ctx, JointSet& set) {
  const std::string element = body_element(ctx, set.body);
  for (int j : set.joints) {
    const JointType type = ctx.model.jnt_type[j];
    if (type != JointType::Hinge && type != JointType::Slide) {
      ctx.unsupported(element, std::string("a ") + joint_type_name(type) +
                                   " joint combined with other joints on body '" +
                                   ctx.model.sim_name[set.body] + "'");
      return false;
    }
  }
  if (!split_chain(ctx, set) || set.hinges.size() > 3 || set.slides.size() > 3) {
    ctx.unsupported(element, "joint combination of body '" + ctx.model.sim_name[set.body] +
                                 "' (Talon supports up to 3 slides all before or all after up "
                                 "to 3 hinges)");
    return false;
  }
  set.kind = JointSetKind::Chain;
  if (!set_slide_geometry(ctx, set)) {
    ctx.unsupported(element,
                    "linearly dependent slide axes on body '" + ctx.model.sim_name[set.body] + "'");
    return false;
  }
  if (set.hinges.empty()) {
    set.anchor = ctx.model.jnt_pos[set.slides.front()];
    return true;
  }
  if (set.hinges.size() > 1 && !axes_orthogonal(ctx, set.hinges)) {
    ctx.unsupported(element, "non-orthogonal hinge axes on body '" + ctx.model.sim_name[set.body] +
                                 "' (several hinges on one body need orthogonal axes)");
    return false;
  }
  if (!set_hinge_anchors(ctx, set)) {
    ctx.unsupported(element, "hinges with different anchors on body '" +
                                 ctx.model.sim_name[set.body] +
                                 "' (supported only for exactly two hinges without slides)");
    return false;
  }
  return true;
}

bool classify(Context& ctx, JointSet& set) {
  const Model& m = ctx.model;
  const int first = set.joints.front();
  const JointType type = m.jnt_type[first];
  if (set.joints.size() == 1 && type != JointType::Hinge && type != JointType::Slide) {
    set.kind = type == JointType::Free   ? JointSetKind::Free
               : type == JointType::Ball ? JointSetKind::Ball
                                         : JointSetKind::Planar;
    set.anchor = m.jnt_pos[first];
    return true;
  }
  return classify_chain(ctx, set);
}

// The set's numbers as constants (JointSetInputs). A vector of F0 in the parent's frame is
// the parent's sim frame composed with the child's reference pose (sim_pose_rel).
JointSetInputs joint_set_constants(const Context& ctx, const JointSet& set) {
  const Model& m = ctx.model;
  Graph& g = ctx.g;
  const Pose& rel = m.sim_pose_rel[set.body];
  const Vec3 child_com = m.sim_com[set.body];
  const Vec3 parent_com = set.parent < 0 ? Vec3::Zero() : m.sim_com[set.parent];
  auto in_parent = [&](const Vec3& d) { return constant(g, Vec3(rel.quat * d)); };
  auto vectors = [&](const std::vector<Vec3>& vs, bool parent_frame) {
    std::vector<V3> out;
    for (const Vec3& v : vs) out.push_back(parent_frame ? in_parent(v) : constant(g, v));
    return out;
  };
  JointSetInputs in;
  in.rel_quat = constant(g, rel.quat.normalized());
  in.anchor_child = constant(g, Vec3(set.anchor - child_com));
  in.anchor_parent = constant(g, Vec3(rel.apply(set.anchor) - parent_com));
  in.anchor2_child = constant(g, Vec3(set.anchor2 - child_com));
  in.skew_coefficients = constant(g, set.skew_coefficients);
  std::vector<Vec3> axes;
  if (set.kind == JointSetKind::Planar) axes.push_back(m.jnt_axis[set.joints[0]]);
  for (int j : set.hinges) axes.push_back(m.jnt_axis[j]);
  in.axes = vectors(axes, false);
  in.axes_parent = vectors(axes, true);
  if (axes.size() == 1) in.axis_normals_parent = vectors(orthogonal_complement(axes), true);
  if (axes.size() >= 2) {
    in.e3 = constant(g, Vec3(axes[0].cross(axes[1])));
    in.axes_dot = g.constant(axes[0].dot(axes[1]));
  }
  in.position_normals = vectors(set.position_normals, set.slides_in_parent());
  in.slide_duals = vectors(set.slide_duals, set.slides_in_parent());
  return in;
}

void build_joint_constants(Context& ctx) {
  const Model& m = ctx.model;
  Graph& g = ctx.g;
  for (JointSet& set : ctx.joint_sets) set.inputs = joint_set_constants(ctx, set);
  ctx.joints.resize(m.njnt);
  for (int j = 0; j < m.njnt; ++j)
    ctx.joints[j] = {g.constant(m.qpos0[m.jnt_qposadr[j]]), g.constant(m.jnt_range[2 * j]),
                     g.constant(m.jnt_range[2 * j + 1]), g.constant(m.jnt_springref[j])};
  for (int a = 0; a < m.nu; ++a)
    ctx.actuators.push_back({g.constant(m.act_gear[a]), g.constant(m.act_ctrl_range[2 * a]),
                             g.constant(m.act_ctrl_range[2 * a + 1]),
                             g.constant(m.act_force_range[2 * a]),
                             g.constant(m.act_force_range[2 * a + 1])});
}

}  // namespace

std::vector<Vec3> orthogonal_complement(const std::vector<Vec3>& axes) {
  if (axes.empty()) return {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()};
  Eigen::MatrixXd a(3, static_cast<int>(axes.size()));
  for (std::size_t i = 0; i < axes.size(); ++i) a.col(static_cast<int>(i)) = axes[i];
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(a, Eigen::ComputeFullU);
  std::vector<Vec3> out;
  for (int c = static_cast<int>(axes.size()); c < 3; ++c) out.push_back(svd.matrixU().col(c));
  return out;
}

Q4 joint_relative_rotation(const Context& ctx, const JointSet& set, Time t) {
  const Q4 parent = ctx.frame(set.parent, t).quat;
  return conjugate(parent * set.inputs.rel_quat) * ctx.frame(set.body, t).quat;
}

V3 parent_anchor(const Context& ctx, const JointSet& set, Time t) {
  return ctx.frame(set.parent, t).at(set.inputs.anchor_parent);
}

V3 child_anchor(const Context& ctx, const JointSet& set, Time t) {
  return ctx.frame(set.body, t).at(set.inputs.anchor_child);
}

const Frame& slide_frame(const Context& ctx, const JointSet& set, Time t) {
  return ctx.frame(set.slides_in_parent() ? set.parent : set.body, t);
}

void build_joint_sets(Context& ctx) {
  const Model& m = ctx.model;
  std::vector<std::vector<int>> body_joints(m.nsim);
  for (int j = 0; j < m.njnt; ++j) body_joints[m.jnt_sim[j]].push_back(j);
  ctx.joint_set_of_joint.assign(m.njnt, -1);
  for (int b = 0; b < m.nsim; ++b) {
    if (body_joints[b].empty()) continue;
    JointSet set;
    set.body = b;
    set.parent = m.sim_parent[b];
    set.joints = body_joints[b];
    if (!classify(ctx, set) || set.kind == JointSetKind::Free) continue;
    for (int j : set.joints) ctx.joint_set_of_joint[j] = static_cast<int>(ctx.joint_sets.size());
    ctx.joint_sets.push_back(std::move(set));
  }
  build_joint_constants(ctx);
}

}  // namespace talon::ir::lower
