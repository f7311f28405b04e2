#include "frontend/compile_checks.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "frontend/model.h"

namespace talon {
namespace {

bool finite(const Vec3& v) {
  return v.allFinite();
}
bool finite(const Quat& q) {
  return q.coeffs().allFinite();
}
bool finite(const Mat3& m) {
  return m.allFinite();
}
bool finite(double x) {
  return std::isfinite(x);
}

template <class... Values>
bool all_finite(const Values&... values) {
  return (finite(values) && ...);
}

void error(Diagnostics& diag, const SpecOrigin& origin, const std::string& message) {
  diag.error(origin.loc, origin.element, message);
}

std::string str(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

const SpecOrigin& inertial_origin(const BodySpec& body) {
  return body.inertial_origin.loc.line ? body.inertial_origin : body.origin;
}

void check_quat(const Quat& q, const SpecOrigin& origin, const char* what, Diagnostics& diag) {
  if (q.norm() < 1e-12) error(diag, origin, std::string(what) + " quaternion has zero length");
}

// Per link only what no welding can mend: a negative mass, an asymmetric tensor. Definiteness
// and the triangle inequality are properties of the simulated (welded) body:
// check_simulated_inertia.
void check_inertia(const BodySpec& body, Diagnostics& diag) {
  const SpecOrigin& at = inertial_origin(body);
  if (body.mass < 0) {
    error(diag, at, "negative mass " + str(body.mass));
    return;
  }
  const Mat3& inertia = body.inertia;
  const double scale = std::max(1e-300, inertia.cwiseAbs().maxCoeff());
  if ((inertia - inertia.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale)
    error(diag, at, "inertia matrix is not symmetric");
}

std::string moments_text(const Vec3& moments) {
  std::ostringstream out;
  out << moments.transpose();
  return out.str();
}

void check_body(const BodySpec& body, Diagnostics& diag) {
  if (!all_finite(body.pose.pos, body.pose.quat, body.mass, body.com, body.inertia)) {
    error(diag, body.origin, "non-finite number in body pose or inertial");
    return;
  }
  check_quat(body.pose.quat, body.origin, "body", diag);
  check_inertia(body, diag);
}

bool joint_has_axis(JointType type) {
  return type == JointType::Hinge || type == JointType::Slide || type == JointType::Planar;
}

void check_joint(const JointSpec& joint, Diagnostics& diag) {
  if (!all_finite(joint.pos, joint.axis, joint.ref, joint.range_lower, joint.range_upper,
                  joint.damping, joint.stiffness, joint.springref, joint.armature,
                  joint.frictionloss)) {
    error(diag, joint.origin, "non-finite number in joint");
    return;
  }
  if (joint_has_axis(joint.type) && joint.axis.norm() < 1e-12)
    error(diag, joint.origin, "joint axis has zero length");
  if (joint.limited && joint.range_lower > joint.range_upper)
    error(diag, joint.origin,
          "lower limit " + str(joint.range_lower) + " is greater than upper limit " +
              str(joint.range_upper));
  if (joint.damping < 0 || joint.stiffness < 0 || joint.armature < 0 || joint.frictionloss < 0)
    error(diag, joint.origin, "joint damping, stiffness, armature and friction must be >= 0");
}

// A terrain is static scenery with triangles to stand on.
void check_terrain(const GeomSpec& geom, Diagnostics& diag) {
  if (geom.body != -1)
    error(diag, geom.origin, "a terrain must belong to the world body (it does not move)");
  if (geom.terrain.faces.empty()) error(diag, geom.origin, "the terrain has no triangles");
  const auto& corner = geom.terrain.vertices;
  const bool faces_up =
      std::any_of(geom.terrain.faces.begin(), geom.terrain.faces.end(), [&](const auto& f) {
        return (corner[f[1]] - corner[f[0]]).cross(corner[f[2]] - corner[f[0]]).z() > 0;
      });
  if (!geom.terrain.faces.empty() && !faces_up)
    error(diag, geom.origin,
          "no triangle of the terrain faces up (counter-clockwise seen from above): geoms stand "
          "on its surface seen from above; reverse the faces' winding");
  for (const Vec3& v : geom.terrain.vertices)
    if (!v.allFinite()) {
      error(diag, geom.origin, "non-finite vertex in the terrain");
      break;
    }
}

void check_geom(const GeomSpec& geom, Diagnostics& diag) {
  if (!all_finite(geom.size, geom.pose.pos, geom.pose.quat, geom.friction, geom.mesh_scale)) {
    error(diag, geom.origin, "non-finite number in geom");
    return;
  }
  check_quat(geom.pose.quat, geom.origin, "geom", diag);
  int needed = 0;  // how many leading size entries must be positive
  switch (geom.type) {
    case GeomType::Sphere:
      needed = 1;
      break;
    case GeomType::Capsule:
    case GeomType::Cylinder:
      needed = 2;
      break;
    case GeomType::Box:
    case GeomType::Ellipsoid:
      needed = 3;
      break;
    case GeomType::Plane:
    case GeomType::Mesh:
    case GeomType::Terrain:
      needed = 0;
      break;
  }
  if (geom.type == GeomType::Terrain) check_terrain(geom, diag);
  for (int i = 0; i < needed; ++i)
    if (!(geom.size[i] > 0)) {
      error(diag, geom.origin,
            std::string(geom_type_name(geom.type)) + " geom size must be positive");
      break;
    }
  if ((geom.friction.array() < 0).any()) error(diag, geom.origin, "friction must be >= 0");
  if (geom.condim != 1 && geom.condim != 3 && geom.condim != 4 && geom.condim != 6)
    error(diag, geom.origin, "condim must be 1, 3, 4 or 6");
}

void check_actuator(const ActuatorSpec& act, Diagnostics& diag) {
  if (!all_finite(act.gear, act.gain, act.bias[0], act.bias[1], act.bias[2], act.ctrl_lower,
                  act.ctrl_upper, act.force_lower, act.force_upper)) {
    error(diag, act.origin, "non-finite number in actuator");
    return;
  }
  if (act.ctrl_limited && act.ctrl_lower > act.ctrl_upper)
    error(diag, act.origin, "ctrlrange lower limit is greater than upper limit");
  if (act.force_limited && act.force_lower > act.force_upper)
    error(diag, act.origin, "forcerange lower limit is greater than upper limit");
}

template <class Item>
void check_names(const std::vector<Item>& items, const char* kind, Diagnostics& diag) {
  std::map<std::string, const Item*> seen;
  for (const Item& item : items) {
    if (item.name.empty()) continue;
    auto [it, inserted] = seen.emplace(item.name, &item);
    if (!inserted) {
      const SourceLoc& first = it->second->origin.loc;
      error(diag, item.origin,
            std::string("duplicate ") + kind + " name '" + item.name + "' (first defined at " +
                first.file + ":" + std::to_string(first.line) + ")");
    }
  }
}

}  // namespace

void check_spec_values(const ModelSpec& spec, Diagnostics& diag) {
  for (const BodySpec& body : spec.bodies) check_body(body, diag);
  for (const JointSpec& joint : spec.joints) check_joint(joint, diag);
  for (const GeomSpec& geom : spec.geoms) check_geom(geom, diag);
  for (const ActuatorSpec& act : spec.actuators) check_actuator(act, diag);
  for (const KeyframeSpec& key : spec.keyframes) {
    bool ok = true;
    for (const auto* values : {&key.qpos, &key.qvel, &key.ctrl})
      for (double x : *values) ok = ok && std::isfinite(x);
    if (!ok) error(diag, key.origin, "non-finite number in keyframe");
  }
  const OptionSpec& opt = spec.options;
  if (!std::isfinite(opt.timestep) || opt.timestep <= 0 || !opt.gravity.allFinite())
    diag.error({spec.source_file, 0}, "<option>", "timestep must be > 0 and gravity finite");
}

void check_simulated_inertia(const ModelSpec& spec, int root, double mass, const Mat3& inertia,
                             Diagnostics& diag) {
  const BodySpec& body = spec.bodies[root];
  const SpecOrigin& at = inertial_origin(body);
  if (mass <= 0) {
    error(diag, at,
          "moving body '" + body.name + "' has zero mass (mass " + str(mass) +
              "); every body moved by a joint needs mass > 0");
    return;
  }
  const Vec3 moments = principal_moments(inertia);
  if (!positive_definite_moments(moments)) {
    error(diag, at,
          "inertia of moving body '" + body.name +
              "' is not positive definite (principal moments " + moments_text(moments) + ")");
    return;
  }
  // A rigid body's principal moments satisfy A + B >= C (equality for a flat lamina).
  const double ratio = (moments[0] + moments[1]) / moments[2];
  if (ratio >= 1 - 1e-9) return;
  std::ostringstream what;
  what << "inertia of moving body '" << body.name
       << "' violates the triangle inequality: A + B = " << ratio << " C, " << 100 * (1 - ratio)
       << " % short (principal moments " << moments_text(moments) << ")";
  if (spec.triangle_violation_is_error) {
    error(diag, at, what.str() + "; a rigid body needs A + B >= C");
    return;
  }
  diag.note(at.loc, at.element,
            what.str() +
                "; loaded as given: it is positive definite, so the dynamics are "
                "well defined, but no rigid body has it");
}

void note_welded_indefinite_inertia(const ModelSpec& spec, int link, const std::string& into,
                                    Diagnostics& diag) {
  const BodySpec& body = spec.bodies[link];
  const Vec3 moments = principal_moments(body.inertia);
  if (moments[0] >= -1e-12 * std::max(1.0, moments.cwiseAbs().maxCoeff())) return;
  const SpecOrigin& at = inertial_origin(body);
  diag.note(at.loc, at.element,
            "inertia of '" + body.name + "' is not positive semi-definite (principal moments " +
                moments_text(moments) + "); it is welded into " + into +
                ", and only that body's inertia is simulated and checked");
}

void check_unique_names(const ModelSpec& spec, Diagnostics& diag) {
  check_names(spec.bodies, "body", diag);
  check_names(spec.joints, "joint", diag);
  check_names(spec.geoms, "geom", diag);
  check_names(spec.actuators, "actuator", diag);
  check_names(spec.keyframes, "keyframe", diag);
}

bool check_body_joint_combination(const ModelSpec& spec, const std::vector<int>& joints, int body,
                                  Diagnostics& diag) {
  const BodySpec& b = spec.bodies[body];
  for (int j : joints) {
    const JointSpec& joint = spec.joints[j];
    if (joint.type == JointType::Free) {
      if (joints.size() > 1) {
        error(diag, joint.origin, "a free joint must be the only joint of its body");
        return false;
      }
      if (b.parent != -1) {
        error(diag, joint.origin,
              "free joint is only allowed on a top-level body (child of the "
              "world), body '" +
                  b.name + "' has a parent body");
        return false;
      }
    }
    if (joint.type == JointType::Fixed && joints.size() > 1) {
      error(diag, joint.origin, "a fixed joint must be the only joint of its body");
      return false;
    }
  }
  return true;
}

void append_reference_qpos(const JointSpec& joint, const Pose& body_world,
                           std::vector<double>& qpos0) {
  switch (joint.type) {
    case JointType::Free: {
      const Quat& q = body_world.quat;
      qpos0.insert(qpos0.end(), {body_world.pos.x(), body_world.pos.y(), body_world.pos.z(), q.w(),
                                 q.x(), q.y(), q.z()});
      break;
    }
    case JointType::Ball:
      qpos0.insert(qpos0.end(), {1.0, 0.0, 0.0, 0.0});
      break;
    case JointType::Hinge:
    case JointType::Slide:
      qpos0.push_back(joint.ref);
      break;
    case JointType::Planar:
      qpos0.insert(qpos0.end(), {0.0, 0.0, 0.0});
      break;
    case JointType::Fixed:
      break;
  }
}

}  // namespace talon
