// load_model: read a URDF or MJCF file (chosen by content) and compile it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/expected.h"
#include "frontend/model.h"
#include "frontend/spec.h"

namespace talon {

// An implicit servo the user puts on a joint (`--actuate JOINT=velocity:KV` or
// `JOINT=position:KP`): MuJoCo's <velocity kv> or <position kp>, named after the joint.
struct JointServo {
  std::string joint;
  ActuatorType type = ActuatorType::Velocity;  // Velocity or Position
  double gain = 0;                             // kv (N m s/rad, N s/m) or kp (N m/rad, N/m); > 0
};

struct LoadOptions {
  bool floating_base = false;              // URDF: attach the root link with a free joint
  std::vector<std::string> package_paths;  // URDF: roots for package:// (plus ROS_PACKAGE_PATH)
  // The scene around the robot (frontend/scene_options.h), for files that bring none (URDF).
  bool ground = false;             // a static plane z = 0 in the world, friction 1
  std::optional<Vec3> base_pos;    // the floating base's initial position (world frame)
  std::vector<JointServo> servos;  // one actuator each, in this order
  std::string terrain;  // a triangle mesh file (STL, OBJ, DAE): static terrain, world frame
};

// Readers: file -> spec. Each returns the spec or the diagnostics (file:line) explaining
// why it could not be read. They never throw on bad input.
Expected<ModelSpec> read_urdf(const std::string& path, const LoadOptions& options);
Expected<ModelSpec> read_mjcf(const std::string& path, const LoadOptions& options);

// In-memory variants (for fuzzers and tests); `path` names the text in diagnostics and
// is the base for relative file references.
Expected<ModelSpec> read_urdf_string(const std::string& xml, const std::string& path,
                                     const LoadOptions& options);
Expected<ModelSpec> read_mjcf_string(const std::string& xml, const std::string& path,
                                     const LoadOptions& options);

// Reads the file (URDF if the root element is <robot>, MJCF if <mujoco>) and compiles it.
Expected<Model> load_model(const std::string& path, const LoadOptions& options = {});

}  // namespace talon
