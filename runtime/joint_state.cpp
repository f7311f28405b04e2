#include "runtime/joint_state.h"

#include <cmath>
#include <numbers>

namespace talon::runtime {
namespace {

// The instantaneous motion a joint coordinate produces: angular velocity `angular` about the
// world point `anchor` plus `linear`, per unit rate.
struct Screw {
  Vec3 angular = Vec3::Zero();
  Vec3 linear = Vec3::Zero();
  Vec3 anchor = Vec3::Zero();
  int dof = -1;  // qvel index
};

std::vector<std::vector<int>> joints_by_body(const Model& m) {
  std::vector<std::vector<int>> out(m.nsim);
  for (int j = 0; j < m.njnt; ++j) out[m.jnt_sim[j]].push_back(j);
  return out;
}

// A rotation R about the local point p: x -> p + R (x - p).
Pose about_point(const Vec3& p, const Quat& r) {
  return {p - r * p, r};
}

// Applies the (non-free) joints `joints` of a body to its reference frame `pose`, MuJoCo's way:
// each in the frame moved by the previous ones. Appends one screw per DOF.
Pose apply_joints(const Model& m, const std::vector<int>& joints, Pose pose, const double* qpos,
                  std::vector<Screw>* screws) {
  for (int j : joints) {
    const int a = m.jnt_qposadr[j], d = m.jnt_dofadr[j];
    const Vec3& p = m.jnt_pos[j];
    const Vec3 anchor = pose.apply(p), axis = pose.quat * m.jnt_axis[j];
    switch (m.jnt_type[j]) {
      case JointType::Hinge:
        if (screws) screws->push_back({axis, Vec3::Zero(), anchor, d});
        pose = pose * about_point(p, Quat(Eigen::AngleAxisd(qpos[a] - m.qpos0[a], m.jnt_axis[j])));
        break;
      case JointType::Slide:
        if (screws) screws->push_back({Vec3::Zero(), axis, anchor, d});
        pose = pose * Pose{m.jnt_axis[j] * (qpos[a] - m.qpos0[a]), Quat::Identity()};
        break;
      case JointType::Ball: {
        const Quat r = Quat(qpos[a], qpos[a + 1], qpos[a + 2], qpos[a + 3]).normalized();
        pose = pose * about_point(p, r);
        // MuJoCo's ball qvel is the angular velocity in the rotated (child) frame.
        if (screws)
          for (int k = 0; k < 3; ++k)
            screws->push_back({pose.quat * Vec3::Unit(k), Vec3::Zero(), anchor, d + k});
        break;
      }
      default:
        break;
    }
  }
  return pose;
}

bool is_free(const Model& m, const std::vector<int>& joints) {
  return joints.size() == 1 && m.jnt_type[joints[0]] == JointType::Free;
}

struct BodyMotion {
  Pose pose;
  Vec3 omega = Vec3::Zero(), v_origin = Vec3::Zero();
};

// The reference frame of body s given its parent's motion: rigidly carried.
Pose base_pose(const Model& m, int s, const BodyMotion* parent) {
  return parent ? parent->pose * m.sim_pose_rel[s] : m.sim_pose_rel[s];
}

Vec3 carried_velocity(const BodyMotion* parent, const Vec3& point) {
  return parent ? Vec3(parent->v_origin + parent->omega.cross(point - parent->pose.pos))
                : Vec3::Zero();
}

Diagnostics error(const Model& m, const std::string& message) {
  Diagnostics d;
  d.error({m.source_file, 0}, "", message);
  return d;
}

// Maximal coordinates of a body frame's motion.
void write_maximal(const Model& m, int s, const BodyMotion& b, std::vector<double>& q,
                   std::vector<double>& u) {
  const Vec3 com = b.pose.apply(m.sim_com[s]);
  const Vec3 v = b.v_origin + b.omega.cross(com - b.pose.pos);
  const Quat r = b.pose.quat.normalized();
  for (int i = 0; i < 3; ++i) {
    q[7 * s + i] = com[i];
    u[6 * s + i] = v[i];
    u[6 * s + 3 + i] = b.omega[i];
  }
  q[7 * s + 3] = r.w();
  q[7 * s + 4] = r.x();
  q[7 * s + 5] = r.y();
  q[7 * s + 6] = r.z();
}

BodyMotion read_maximal(const Model& m, int s, const std::vector<double>& q,
                        const std::vector<double>& u) {
  BodyMotion b;
  b.pose.quat = Quat(q[7 * s + 3], q[7 * s + 4], q[7 * s + 5], q[7 * s + 6]).normalized();
  const Vec3 com(q[7 * s], q[7 * s + 1], q[7 * s + 2]);
  b.pose.pos = com - b.pose.quat * m.sim_com[s];
  b.omega = Vec3(u[6 * s + 3], u[6 * s + 4], u[6 * s + 5]);
  b.v_origin = Vec3(u[6 * s], u[6 * s + 1], u[6 * s + 2]) - b.omega.cross(com - b.pose.pos);
  return b;
}

double nearest_branch(double angle, double previous) {
  const double turn = 2 * std::numbers::pi;
  return angle + turn * std::round((previous - angle) / turn);
}

// Rotation vector of a quaternion (angle · axis).
Vec3 rotation_vector(const Quat& r) {
  const Eigen::AngleAxisd aa(r.w() < 0 ? Quat(-r.coeffs()) : r);
  return aa.angle() * aa.axis();
}

// Gauss–Newton for the hinge/slide coordinates of a body whose displaced frame is `target`.
// It stops at a residual of 1e-13 or once a step moves the coordinates by at most 1e-12: a
// simulated pose meets its joints only to the solver's tolerance, so the least-squares residual
// has a floor above zero (MuJoCo's humanoid: 2e-13 to 3e-11 for its two- and three-hinge
// bodies), and waiting for 1e-13 alone ran all 30 iterations for those bodies at every step
// of `talon simulate` (3 % of its run; bench/RESULTS.md, thirty-fifth session).
void solve_coordinates(const Model& m, const std::vector<int>& joints, const Pose& base,
                       const Pose& target, std::vector<double>& qpos) {
  std::vector<int> coords;
  for (int j : joints) coords.push_back(m.jnt_qposadr[j]);
  const int k = static_cast<int>(coords.size());
  auto residual = [&](const std::vector<double>& x) {
    const Pose p = apply_joints(m, joints, base, x.data(), nullptr);
    Eigen::Matrix<double, 6, 1> r;
    r.head<3>() = rotation_vector(target.quat.conjugate() * p.quat);
    r.tail<3>() = p.pos - target.pos;
    return r;
  };
  for (int iteration = 0; iteration < 30; ++iteration) {
    const Eigen::Matrix<double, 6, 1> r = residual(qpos);
    if (r.norm() < 1e-13) break;
    Eigen::MatrixXd jac(6, k);
    for (int c = 0; c < k; ++c) {
      std::vector<double> x = qpos;
      x[coords[c]] += 1e-7;
      jac.col(c) = (residual(x) - r) / 1e-7;
    }
    const Eigen::VectorXd step = jac.completeOrthogonalDecomposition().solve(-r);
    for (int c = 0; c < k; ++c) qpos[coords[c]] += step[c];
    if (step.norm() <= 1e-12) break;
  }
}

}  // namespace

Expected<MaximalState> maximal_from_joint(const Model& m, const std::vector<double>& qpos,
                                          const std::vector<double>& qvel_in) {
  if (static_cast<int>(qpos.size()) != m.nq)
    return error(m, "qpos has " + std::to_string(qpos.size()) +
                        " values, the model nq = " + std::to_string(m.nq));
  const std::vector<double> qvel = qvel_in.empty() ? std::vector<double>(m.nv, 0.0) : qvel_in;
  if (static_cast<int>(qvel.size()) != m.nv)
    return error(m, "qvel has " + std::to_string(qvel.size()) +
                        " values, the model nv = " + std::to_string(m.nv));
  for (int j = 0; j < m.njnt; ++j)
    if (m.jnt_type[j] == JointType::Planar)
      return error(m,
                   "unsupported: planar joint '" + m.jnt_name[j] + "' in a joint-coordinate state");
  const std::vector<std::vector<int>> joints = joints_by_body(m);
  MaximalState out{std::vector<double>(7 * m.nsim), std::vector<double>(6 * m.nsim)};
  std::vector<BodyMotion> motion(m.nsim);
  for (int s = 0; s < m.nsim; ++s) {  // parents come before children
    const BodyMotion* parent = m.sim_parent[s] >= 0 ? &motion[m.sim_parent[s]] : nullptr;
    BodyMotion& b = motion[s];
    if (is_free(m, joints[s])) {
      const int a = m.jnt_qposadr[joints[s][0]], d = m.jnt_dofadr[joints[s][0]];
      b.pose = {Vec3(qpos[a], qpos[a + 1], qpos[a + 2]),
                Quat(qpos[a + 3], qpos[a + 4], qpos[a + 5], qpos[a + 6]).normalized()};
      b.v_origin = Vec3(qvel[d], qvel[d + 1], qvel[d + 2]);
      b.omega = b.pose.quat * Vec3(qvel[d + 3], qvel[d + 4], qvel[d + 5]);
    } else {
      std::vector<Screw> screws;
      b.pose = apply_joints(m, joints[s], base_pose(m, s, parent), qpos.data(), &screws);
      b.omega = parent ? parent->omega : Vec3::Zero();
      b.v_origin = carried_velocity(parent, b.pose.pos);
      for (const Screw& screw : screws) {
        const double rate = qvel[screw.dof];
        b.omega += rate * screw.angular;
        b.v_origin += rate * (screw.linear + screw.angular.cross(b.pose.pos - screw.anchor));
      }
    }
    write_maximal(m, s, b, out.q, out.u);
  }
  return out;
}

namespace {

// joint_from_maximal; without `rates` qvel stays zero (the positions alone, for tracking the
// hinge angles' branches every step).
JointState decompose(const Model& m, const std::vector<double>& q, const std::vector<double>& u,
                     const std::vector<double>& previous, bool rates) {
  JointState out{previous.size() == static_cast<std::size_t>(m.nq) ? previous : m.qpos0,
                 std::vector<double>(m.nv, 0.0)};
  const std::vector<std::vector<int>> joints = joints_by_body(m);
  std::vector<BodyMotion> motion(m.nsim);
  for (int s = 0; s < m.nsim; ++s) motion[s] = read_maximal(m, s, q, u);
  for (int s = 0; s < m.nsim; ++s) {
    const std::vector<int>& js = joints[s];
    if (js.empty()) continue;
    const BodyMotion& b = motion[s];
    const BodyMotion* parent = m.sim_parent[s] >= 0 ? &motion[m.sim_parent[s]] : nullptr;
    if (is_free(m, js)) {
      const int a = m.jnt_qposadr[js[0]], d = m.jnt_dofadr[js[0]];
      const Vec3 w_local = b.pose.quat.conjugate() * b.omega;
      const double values[] = {b.pose.pos.x(),  b.pose.pos.y(),  b.pose.pos.z(), b.pose.quat.w(),
                               b.pose.quat.x(), b.pose.quat.y(), b.pose.quat.z()};
      for (int i = 0; i < 7; ++i) out.qpos[a + i] = values[i];
      for (int i = 0; i < 3; ++i) {
        out.qvel[d + i] = b.v_origin[i];
        out.qvel[d + 3 + i] = w_local[i];
      }
      continue;
    }
    const Pose base = base_pose(m, s, parent);
    const Pose local = base.inverse() * b.pose;
    if (js.size() == 1 && m.jnt_type[js[0]] == JointType::Ball) {
      const Quat r = local.quat.w() < 0 ? Quat(-local.quat.coeffs()) : local.quat;
      const int a = m.jnt_qposadr[js[0]];
      out.qpos[a] = r.w();
      out.qpos[a + 1] = r.x();
      out.qpos[a + 2] = r.y();
      out.qpos[a + 3] = r.z();
    } else if (js.size() == 1 && m.jnt_type[js[0]] == JointType::Hinge) {
      const int a = m.jnt_qposadr[js[0]];
      const double angle =
          2 * std::atan2(m.jnt_axis[js[0]].dot(local.quat.vec()), local.quat.w()) + m.qpos0[a];
      out.qpos[a] = nearest_branch(angle, out.qpos[a]);
    } else if (js.size() == 1 && m.jnt_type[js[0]] == JointType::Slide) {
      const int a = m.jnt_qposadr[js[0]];
      out.qpos[a] = m.jnt_axis[js[0]].dot(local.pos) + m.qpos0[a];
    } else {
      solve_coordinates(m, js, base, b.pose, out.qpos);
    }
    if (!rates) continue;
    // Rates: least squares of the screws (at the solved configuration) against the motion
    // relative to the parent.
    std::vector<Screw> screws;
    apply_joints(m, js, base, out.qpos.data(), &screws);
    Eigen::MatrixXd s_mat(6, screws.size());
    for (std::size_t c = 0; c < screws.size(); ++c) {
      s_mat.col(c).head<3>() = screws[c].angular;
      s_mat.col(c).tail<3>() =
          screws[c].linear + screws[c].angular.cross(b.pose.pos - screws[c].anchor);
    }
    Eigen::Matrix<double, 6, 1> relative;
    relative.head<3>() = b.omega - (parent ? parent->omega : Vec3::Zero());
    relative.tail<3>() = b.v_origin - carried_velocity(parent, b.pose.pos);
    const Eigen::VectorXd joint_rates = s_mat.completeOrthogonalDecomposition().solve(relative);
    for (std::size_t c = 0; c < screws.size(); ++c) out.qvel[screws[c].dof] = joint_rates[c];
  }
  return out;
}

}  // namespace

JointState joint_from_maximal(const Model& m, const std::vector<double>& q,
                              const std::vector<double>& u, const std::vector<double>& previous) {
  return decompose(m, q, u, previous, true);
}

std::vector<double> joint_positions_from_maximal(const Model& m, const std::vector<double>& q,
                                                 const std::vector<double>& previous) {
  return decompose(m, q, std::vector<double>(6 * m.nsim, 0.0), previous, false).qpos;
}

Expected<MaximalState> keyframe_state(const Model& m, const std::string& name) {
  const int k = m.find_keyframe(name);
  if (k < 0) return error(m, "no keyframe named '" + name + "'");
  const std::vector<double> qpos(m.key_qpos.begin() + k * m.nq,
                                 m.key_qpos.begin() + (k + 1) * m.nq);
  const std::vector<double> qvel(m.key_qvel.begin() + k * m.nv,
                                 m.key_qvel.begin() + (k + 1) * m.nv);
  return maximal_from_joint(m, qpos, qvel);
}

}  // namespace talon::runtime
