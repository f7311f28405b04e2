#include "frontend/scene_options.h"

#include <charconv>
#include <cmath>
#include <set>
#include <system_error>

namespace talon {
namespace {

constexpr std::size_t kJointsListed = 12;  // in an unknown-joint message, before "..."

Diagnostics option_error(const std::string& file, const std::string& option,
                         const std::string& message) {
  Diagnostics diag;
  diag.error({file, 0}, option, message);
  return diag;
}

// The shortest text that reads back as `value` ("10", not "10.000000").
std::string shortest_text(double value) {
  char buffer[32];
  const std::to_chars_result end = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, end.ptr);
}

// The whole of `text` as a finite number, or nullopt.
std::optional<double> whole_number(const std::string& text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const std::from_chars_result read = std::from_chars(text.data(), end, value);
  if (read.ec != std::errc() || read.ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string unique_geom_name(const ModelSpec& spec, std::string name) {
  for (bool clash = true; clash;) {
    clash = false;
    for (const GeomSpec& geom : spec.geoms) clash = clash || geom.name == name;
    if (clash) name += "_";
  }
  return name;
}

GeomSpec ground_plane(const ModelSpec& spec) {
  GeomSpec ground;
  ground.name = unique_geom_name(spec, "ground");
  ground.origin = {{spec.source_file, 0}, "--ground"};
  ground.body = -1;
  ground.type = GeomType::Plane;
  ground.size = Vec3(0, 0, 1);  // infinite; MuJoCo's grid spacing must be positive
  ground.friction.x() = 1;      // the torsional and rolling defaults stay, as in MJCF
  return ground;
}

// The static triangle mesh of `options.terrain` in the world frame (friction 1, as the ground).
Expected<GeomSpec> terrain_geom(const ModelSpec& spec, const std::string& path) {
  Expected<mesh::TriangleMesh> triangles = mesh::read_triangle_mesh(path);
  if (!triangles) return triangles.diagnostics();
  GeomSpec terrain;
  terrain.name = unique_geom_name(spec, "terrain");
  terrain.origin = {{path, 0}, "--terrain " + path};
  terrain.body = -1;
  terrain.type = GeomType::Terrain;
  terrain.friction.x() = 1;
  terrain.terrain = std::move(*triangles);
  return terrain;
}

// The one root body a free joint moves (the URDF floating base), or -1.
int floating_root_body(const ModelSpec& spec) {
  int found = -1;
  for (const JointSpec& joint : spec.joints) {
    const bool floats = joint.type == JointType::Free && joint.body >= 0 &&
                        spec.bodies[static_cast<std::size_t>(joint.body)].parent == -1;
    if (!floats) continue;
    if (found >= 0) return -1;  // several: which one is "the" base is not ours to guess
    found = joint.body;
  }
  return found;
}

Diagnostics place_base(ModelSpec& spec, const LoadOptions& options) {
  if (!options.base_pos) return {};
  const Vec3& pos = *options.base_pos;
  const std::string option = "--base-pos " + shortest_text(pos.x()) + "," + shortest_text(pos.y()) +
                             "," + shortest_text(pos.z());
  if (!pos.allFinite())
    return option_error(spec.source_file, option, "the position must be three finite numbers");
  if (!options.floating_base)
    return option_error(spec.source_file, option,
                        "needs --floating-base (it places the free joint that flag adds)");
  const int body = floating_root_body(spec);
  if (body < 0)
    return option_error(spec.source_file, option,
                        "the model has no floating base to place (one root link with a free "
                        "joint; a root link 'world' pins the robot down)");
  spec.bodies[static_cast<std::size_t>(body)].pose.pos = pos;
  return {};
}

std::string servo_joint_names(const ModelSpec& spec) {
  std::string names;
  std::size_t listed = 0;
  for (const JointSpec& joint : spec.joints) {
    if (joint.type != JointType::Hinge && joint.type != JointType::Slide) continue;
    if (listed++ == kJointsListed) return names + ", ...";
    names += (names.empty() ? "" : ", ") + joint.name;
  }
  return names.empty() ? "none" : names;
}

int find_joint(const ModelSpec& spec, const std::string& name) {
  for (std::size_t j = 0; j < spec.joints.size(); ++j)
    if (spec.joints[j].name == name) return static_cast<int>(j);
  return -1;
}

bool actuator_named(const ModelSpec& spec, const std::string& name) {
  for (const ActuatorSpec& actuator : spec.actuators)
    if (actuator.name == name) return true;
  return false;
}

// MuJoCo's <velocity kv> (gain kv, bias -kv qdot) or <position kp> (gain kp, bias -kp q),
// gear 1, controls unlimited: the joint is driven towards the control's speed or angle.
ActuatorSpec servo_actuator(const JointServo& servo, int joint, const SpecOrigin& origin) {
  ActuatorSpec actuator;
  actuator.name = servo.joint;
  actuator.origin = origin;
  actuator.type = servo.type;
  actuator.joint = joint;
  actuator.gain = servo.gain;
  if (servo.type == ActuatorType::Velocity) actuator.bias = {0, 0, -servo.gain};
  if (servo.type == ActuatorType::Position) actuator.bias = {0, -servo.gain, 0};
  return actuator;
}

Diagnostics add_servos(ModelSpec& spec, const LoadOptions& options) {
  Diagnostics diag;
  std::set<std::string> driven;
  for (const JointServo& servo : options.servos) {
    const SpecOrigin origin{{spec.source_file, 0}, "--actuate " + joint_servo_text(servo)};
    const int joint = find_joint(spec, servo.joint);
    if (joint < 0) {
      diag.error(origin.loc, origin.element,
                 "no joint '" + servo.joint +
                     "' in the model (joints a servo can drive: " + servo_joint_names(spec) + ")");
      continue;
    }
    const JointType type = spec.joints[static_cast<std::size_t>(joint)].type;
    if (type != JointType::Hinge && type != JointType::Slide) {
      diag.error(origin.loc, origin.element,
                 "joint '" + servo.joint + "' is " + joint_type_name(type) +
                     (type == JointType::Fixed ? " (it does not move)" : "") +
                     "; a servo drives a revolute, continuous or prismatic joint");
      continue;
    }
    if (!driven.insert(servo.joint).second) {
      diag.error(origin.loc, origin.element,
                 "joint '" + servo.joint + "' is given a servo more than once");
      continue;
    }
    if (actuator_named(spec, servo.joint)) {
      diag.error(origin.loc, origin.element,
                 "the file already has an actuator named '" + servo.joint + "'");
      continue;
    }
    spec.actuators.push_back(servo_actuator(servo, joint, origin));
  }
  // A keyframe that lists controls lists one per actuator: the new ones start at zero.
  for (KeyframeSpec& key : spec.keyframes)
    if (!key.ctrl.empty()) key.ctrl.resize(spec.actuators.size(), 0.0);
  return diag;
}

}  // namespace

Expected<JointServo> parse_joint_servo(const std::string& text) {
  const auto error = [&](const std::string& why) {
    return Expected<JointServo>(option_error("", "--actuate " + text, why));
  };
  const std::size_t equals = text.rfind('=');
  const std::size_t colon = equals == std::string::npos ? equals : text.find(':', equals);
  if (equals == 0 || colon == std::string::npos)
    return error("expected JOINT=velocity:KV or JOINT=position:KP");
  JointServo servo;
  servo.joint = text.substr(0, equals);
  const std::string kind = text.substr(equals + 1, colon - equals - 1);
  if (kind == "velocity")
    servo.type = ActuatorType::Velocity;
  else if (kind == "position")
    servo.type = ActuatorType::Position;
  else
    return error("unknown servo '" + kind + "' (velocity or position)");
  const std::string gain = text.substr(colon + 1);
  const std::optional<double> value = whole_number(gain);
  if (!value || !(*value > 0))
    return error("the gain must be a positive number, not '" + gain + "'");
  servo.gain = *value;
  return servo;
}

std::string joint_servo_text(const JointServo& servo) {
  return servo.joint + "=" + actuator_type_name(servo.type) + ":" + shortest_text(servo.gain);
}

Expected<ModelSpec> with_scene_options(ModelSpec spec, const LoadOptions& options) {
  Diagnostics diag = place_base(spec, options);
  diag.append(add_servos(spec, options));
  if (diag.has_errors()) return diag;
  if (options.ground) spec.geoms.push_back(ground_plane(spec));
  if (!options.terrain.empty()) {
    Expected<GeomSpec> terrain = terrain_geom(spec, options.terrain);
    if (!terrain) return terrain.diagnostics();
    spec.geoms.push_back(std::move(*terrain));
  }
  return spec;
}

}  // namespace talon
