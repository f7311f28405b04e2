// compile_model: the format-independent half of reading a model.
//
// Rules checked here (each a user error with the spec element's file:line):
//   * every number finite; names unique per kind (bodies, joints, geoms, actuators, keys);
//   * the body graph is a forest rooted at the world (parent indices valid, no cycles);
//   * mass >= 0 and a symmetric inertia on every link;
//   * every *moving* rigid body (after welding: checked on what is simulated, so a massless
//     root link welded to a trunk is fine) has mass > 0 and a positive definite inertia:
//     maximal coordinates give each one its own 6x6 mass block, which must be invertible;
//     its principal moments obey the triangle inequality A + B >= C (a physical rigid body's
//     always do): an error for MJCF as in MuJoCo, a note for URDF (spec.h);
//   * a link welded into another body (or the world) with an indefinite inertia is a note;
//   * quaternions and axes of non-zero length; limits with lower <= upper;
//   * a free joint is the only joint of a top-level body; a fixed joint stands alone;
//   * keyframe vectors have the model's sizes; references are in range.
// Welding: a body whose joints are all fixed (URDF) or that has none (MJCF) is part of
// its parent's rigid body; masses, centres of mass and inertias combine exactly
// (parallel-axis theorem).
#include "frontend/compile.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_map>

#include "frontend/compile_checks.h"
#include "frontend/model.h"

namespace talon {
namespace {

bool body_is_moving(const ModelSpec& spec, const std::vector<std::vector<int>>& body_joints,
                    int body) {
  for (int j : body_joints[body])
    if (spec.joints[j].type != JointType::Fixed) return true;
  return false;
}

// Orders bodies parents-first without recursion; reports cycles. Returns false on error.
bool topological_body_order(const ModelSpec& spec, Diagnostics& diag, std::vector<int>& order) {
  const int n = static_cast<int>(spec.bodies.size());
  std::vector<std::vector<int>> children(n);
  std::vector<int> roots;
  bool ok = true;
  for (int b = 0; b < n; ++b) {
    const BodySpec& body = spec.bodies[b];
    if (body.parent < -1 || body.parent >= n || body.parent == b) {
      diag.error(body.origin.loc, body.origin.element, "invalid parent body index");
      ok = false;
    } else if (body.parent == -1) {
      roots.push_back(b);
    } else {
      children[body.parent].push_back(b);
    }
  }
  if (!ok) return false;
  order.clear();
  std::vector<int> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    int b = stack.back();
    stack.pop_back();
    order.push_back(b);
    for (auto it = children[b].rbegin(); it != children[b].rend(); ++it) stack.push_back(*it);
  }
  if (static_cast<int>(order.size()) == n) return true;
  std::vector<bool> reached(n, false);
  for (int b : order) reached[b] = true;
  for (int b = 0; b < n; ++b)
    if (!reached[b]) {
      diag.error(spec.bodies[b].origin.loc, spec.bodies[b].origin.element,
                 "body is part of a cycle (it never reaches the world)");
      return false;
    }
  return false;
}

// Mass properties of one or more bodies expressed in a common frame.
struct MassProperties {
  double mass = 0;
  Vec3 first_moment = Vec3::Zero();  // sum m_i c_i
  std::vector<std::pair<double, Vec3>> point_masses;
  Mat3 rotational = Mat3::Zero();  // sum R_i I_i R_i^T

  void add(double m, const Vec3& com, const Mat3& inertia_about_com) {
    mass += m;
    first_moment += m * com;
    point_masses.emplace_back(m, com);
    rotational += inertia_about_com;
  }
  Vec3 com() const { return mass > 0 ? Vec3(first_moment / mass) : Vec3::Zero(); }
  // Inertia about the combined centre of mass (parallel-axis theorem).
  Mat3 inertia() const {
    Mat3 total = rotational;
    const Vec3 c = com();
    for (const auto& [m, p] : point_masses) {
      const Vec3 d = p - c;
      total += m * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
    }
    return total;
  }
};

Mat3 rotate_inertia(const Quat& q, const Mat3& inertia) {
  const Mat3 r = q.toRotationMatrix();
  return r * inertia * r.transpose();
}

// A terrain's triangles in the world frame (`world` is its geom frame in the world): the
// query of the generated code searches them without transforming each probe.
mesh::TriangleMesh world_terrain(const GeomSpec& geom, const Pose& world) {
  mesh::TriangleMesh out;
  if (geom.type != GeomType::Terrain) return out;
  out = geom.terrain;
  for (Vec3& v : out.vertices) v = world.apply(v);
  return out;
}

class Compiler {
 public:
  explicit Compiler(const ModelSpec& spec) : spec_(spec) {}

  Expected<Model> run() {
    check_spec_values(spec_, diag_);
    check_unique_names(spec_, diag_);
    if (!diag_.has_errors()) build_bodies();
    if (!diag_.has_errors()) build_joints();
    if (!diag_.has_errors()) build_geoms();
    if (!diag_.has_errors()) build_actuators();
    if (!diag_.has_errors()) build_keyframes();
    if (!diag_.has_errors()) build_excludes();
    if (diag_.has_errors()) {
      Diagnostics all = spec_.notes;
      all.append(diag_);
      return all;
    }
    model_.name = spec_.name;
    model_.source_file = spec_.source_file;
    model_.timestep = spec_.options.timestep;
    model_.gravity = spec_.options.gravity;
    Diagnostics notes = spec_.notes;
    notes.append(diag_);
    model_.notes = notes.notes();
    return Expected<Model>(std::move(model_), std::move(notes));
  }

 private:
  void build_bodies();
  void combine_sim_mass_properties();
  void build_joints();
  void build_geoms();
  void build_actuators();
  void build_keyframes();
  void build_excludes();

  const ModelSpec& spec_;
  Diagnostics diag_;
  Model model_;
  std::vector<std::vector<int>> body_joints_;  // [nbody] spec joint indices
  std::vector<int> spec_joint_to_model_;       // [spec joints] model joint index, -1 = fixed
};

void Compiler::build_bodies() {
  const int n = static_cast<int>(spec_.bodies.size());
  body_joints_.assign(n, {});
  for (int j = 0; j < static_cast<int>(spec_.joints.size()); ++j) {
    const JointSpec& joint = spec_.joints[j];
    if (joint.body < 0 || joint.body >= n) {
      diag_.error(joint.origin.loc, joint.origin.element, "joint refers to no body");
      continue;
    }
    body_joints_[joint.body].push_back(j);
  }
  std::vector<int> order;
  if (diag_.has_errors() || !topological_body_order(spec_, diag_, order)) return;

  Model& m = model_;
  m.nbody = n;
  m.body_name.resize(n);
  m.body_parent.resize(n);
  m.body_sim.assign(n, -1);
  m.body_pose_world.resize(n);
  m.body_mass.resize(n);
  m.body_com_world.resize(n);
  m.body_principal_inertia.resize(n);
  for (int b : order) {
    const BodySpec& body = spec_.bodies[b];
    m.body_name[b] = body.name;
    m.body_parent[b] = body.parent;
    Pose local = body.pose;
    local.quat.normalize();
    m.body_pose_world[b] = body.parent < 0 ? local : m.body_pose_world[body.parent] * local;
    m.body_mass[b] = body.mass;
    m.body_com_world[b] = m.body_pose_world[b].apply(body.com);
    m.body_principal_inertia[b] = principal_moments(body.inertia);
    if (body_is_moving(spec_, body_joints_, b)) {
      m.body_sim[b] = m.nsim++;
      m.sim_name.push_back(body.name);
      m.sim_root_body.push_back(b);
      const int parent_sim = body.parent < 0 ? -1 : m.body_sim[body.parent];
      m.sim_parent.push_back(parent_sim);
      const Pose parent_world = parent_sim < 0 ? Pose{} : m.sim_pose_world[parent_sim];
      m.sim_pose_world.push_back(m.body_pose_world[b]);
      m.sim_pose_rel.push_back(parent_world.inverse() * m.body_pose_world[b]);
    } else {
      m.body_sim[b] = body.parent < 0 ? -1 : m.body_sim[body.parent];
    }
  }
  combine_sim_mass_properties();
}

void Compiler::combine_sim_mass_properties() {
  Model& m = model_;
  std::vector<MassProperties> props(m.nsim);
  for (int b = 0; b < m.nbody; ++b) {
    const int s = m.body_sim[b];
    if (s < 0) continue;
    const BodySpec& body = spec_.bodies[b];
    // The body's frame expressed in its sim body's frame.
    const Pose in_sim = m.sim_pose_world[s].inverse() * m.body_pose_world[b];
    props[s].add(body.mass, in_sim.apply(body.com), rotate_inertia(in_sim.quat, body.inertia));
  }
  for (int s = 0; s < m.nsim; ++s) {
    m.sim_mass.push_back(props[s].mass);
    m.sim_com.push_back(props[s].com());
    m.sim_inertia.push_back(props[s].inertia());
    check_simulated_inertia(spec_, m.sim_root_body[s], props[s].mass, m.sim_inertia.back(), diag_);
  }
  std::vector<int> links(m.nsim, 0);  // links welded into each simulated body
  for (int b = 0; b < m.nbody; ++b)
    if (m.body_sim[b] >= 0) ++links[m.body_sim[b]];
  for (int b = 0; b < m.nbody; ++b) {
    const int s = m.body_sim[b];
    if (s >= 0 && links[s] == 1) continue;  // a body of one link: checked above
    note_welded_indefinite_inertia(
        spec_, b, s < 0 ? std::string("the world") : "moving body '" + m.sim_name[s] + "'", diag_);
  }
}

void Compiler::build_joints() {
  Model& m = model_;
  spec_joint_to_model_.assign(spec_.joints.size(), -1);
  for (int b = 0; b < m.nbody; ++b) check_body_joint_combination(spec_, body_joints_[b], b, diag_);
  if (diag_.has_errors()) return;
  for (int j = 0; j < static_cast<int>(spec_.joints.size()); ++j) {
    const JointSpec& joint = spec_.joints[j];
    if (joint.type == JointType::Fixed) {
      ++m.njnt_fixed;
      continue;
    }
    spec_joint_to_model_[j] = m.njnt++;
    m.jnt_name.push_back(joint.name);
    m.jnt_type.push_back(joint.type);
    m.jnt_sim.push_back(m.body_sim[joint.body]);
    m.jnt_qposadr.push_back(m.nq);
    m.jnt_dofadr.push_back(m.nv);
    m.nq += joint_nq(joint.type);
    m.nv += joint_nv(joint.type);
    m.jnt_pos.push_back(joint.pos);
    m.jnt_axis.push_back(joint.axis.normalized());
    m.jnt_limited.push_back(joint.limited);
    m.jnt_range.push_back(joint.range_lower);
    m.jnt_range.push_back(joint.range_upper);
    m.jnt_damping.push_back(joint.damping);
    m.jnt_stiffness.push_back(joint.stiffness);
    m.jnt_springref.push_back(joint.springref);
    m.jnt_armature.push_back(joint.armature);
    m.jnt_frictionloss.push_back(joint.frictionloss);
    m.jnt_mimic.push_back(joint.mimic_joint);
    append_reference_qpos(joint, m.body_pose_world[joint.body], m.qpos0);
  }
}

void Compiler::build_geoms() {
  Model& m = model_;
  for (const GeomSpec& geom : spec_.geoms) {
    const int sim = geom.body < 0 ? -1 : m.body_sim[geom.body];
    if (geom.type == GeomType::Plane && sim >= 0) {
      diag_.error(geom.origin.loc, geom.origin.element,
                  "unsupported: plane geom on a moving body (planes must be static)");
      continue;
    }
    const Pose body_world = geom.body < 0 ? Pose{} : m.body_pose_world[geom.body];
    const Pose frame_world = sim < 0 ? Pose{} : m.sim_pose_world[sim];
    Pose local = geom.pose;
    local.quat.normalize();
    ++m.ngeom;
    m.geom_name.push_back(geom.name);
    m.geom_type.push_back(geom.type);
    m.geom_sim.push_back(sim);
    m.geom_body.push_back(geom.body);
    m.geom_size.push_back(geom.size);
    m.geom_pose.push_back(frame_world.inverse() * body_world * local);
    m.geom_friction.push_back(geom.friction);
    m.geom_contype.push_back(geom.contype);
    m.geom_conaffinity.push_back(geom.conaffinity);
    m.geom_condim.push_back(geom.condim);
    m.geom_priority.push_back(geom.priority);
    m.geom_mesh_file.push_back(geom.mesh_file);
    m.geom_mesh_scale.push_back(geom.mesh_scale);
    m.geom_hull_vertices.push_back(geom.hull_vertices);
    m.geom_terrain.push_back(world_terrain(geom, frame_world * m.geom_pose.back()));
  }
}

void Compiler::build_actuators() {
  Model& m = model_;
  for (const ActuatorSpec& act : spec_.actuators) {
    const int joint = act.joint >= 0 && act.joint < static_cast<int>(spec_.joints.size())
                          ? spec_joint_to_model_[act.joint]
                          : -1;
    if (joint < 0) {
      diag_.error(act.origin.loc, act.origin.element,
                  "actuator needs a moving joint (its joint is missing or fixed)");
      continue;
    }
    ++m.nu;
    m.act_name.push_back(act.name);
    m.act_type.push_back(act.type);
    m.act_joint.push_back(joint);
    m.act_gear.push_back(act.gear);
    m.act_gain.push_back(act.gain);
    m.act_bias.insert(m.act_bias.end(), act.bias.begin(), act.bias.end());
    m.act_ctrl_limited.push_back(act.ctrl_limited);
    m.act_ctrl_range.push_back(act.ctrl_lower);
    m.act_ctrl_range.push_back(act.ctrl_upper);
    m.act_force_limited.push_back(act.force_limited);
    m.act_force_range.push_back(act.force_lower);
    m.act_force_range.push_back(act.force_upper);
  }
}

void Compiler::build_keyframes() {
  Model& m = model_;
  for (const KeyframeSpec& key : spec_.keyframes) {
    auto sized = [&](const std::vector<double>& values, int expected, const char* what,
                     const std::vector<double>& fallback) -> std::vector<double> {
      if (values.empty()) return fallback;
      if (static_cast<int>(values.size()) != expected) {
        std::ostringstream msg;
        msg << what << " has " << values.size() << " values, the model needs " << expected;
        diag_.error(key.origin.loc, key.origin.element, msg.str());
        return fallback;
      }
      return values;
    };
    const auto qpos = sized(key.qpos, m.nq, "qpos", m.qpos0);
    const auto qvel = sized(key.qvel, m.nv, "qvel", std::vector<double>(m.nv, 0.0));
    const auto ctrl = sized(key.ctrl, m.nu, "ctrl", std::vector<double>(m.nu, 0.0));
    ++m.nkey;
    m.key_name.push_back(key.name);
    m.key_qpos.insert(m.key_qpos.end(), qpos.begin(), qpos.end());
    m.key_qvel.insert(m.key_qvel.end(), qvel.begin(), qvel.end());
    m.key_ctrl.insert(m.key_ctrl.end(), ctrl.begin(), ctrl.end());
  }
}

void Compiler::build_excludes() {
  Model& m = model_;
  for (const ExcludeSpec& ex : spec_.excludes) {
    if (ex.body1 < -1 || ex.body1 >= m.nbody || ex.body2 < -1 || ex.body2 >= m.nbody) {
      diag_.error(ex.origin.loc, ex.origin.element, "exclude refers to no body");
      continue;
    }
    int a = ex.body1 < 0 ? -1 : m.body_sim[ex.body1];
    int b = ex.body2 < 0 ? -1 : m.body_sim[ex.body2];
    if (a > b) std::swap(a, b);
    m.exclude_sim_pairs.emplace_back(a, b);
  }
}

}  // namespace

Expected<Model> compile_model(const ModelSpec& spec) {
  return Compiler(spec).run();
}

}  // namespace talon
