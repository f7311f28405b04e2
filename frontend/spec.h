// ModelSpec: the one builder API that both readers (URDF, MJCF) fill.
//
// A spec is what the file *says*, already in SI units and in MuJoCo's conventions (the
// conventions Talon's Model uses): radians, metres, quaternions (w, x, y, z), each body's
// frame given relative to its parent at the reference configuration, joints expressed in
// the frame of the body they move. `compile_model` (compile.h) validates a spec and turns
// it into the immutable Model. Readers resolve file-format rules (MJCF defaults, URDF
// joint origins, inertia from geoms); compile owns the rules that hold for any format
// (positive mass and inertia, tree structure, unique names, merging welded bodies).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "common/math.h"
#include "frontend/mesh/triangle_mesh.h"

namespace talon {

enum class JointType { Free, Ball, Hinge, Slide, Planar, Fixed };
// Terrain: a static triangle mesh (not its hull) that geoms touch where they stand on it
// (ir/lower/terrain.h).
enum class GeomType { Plane, Sphere, Capsule, Box, Cylinder, Ellipsoid, Mesh, Terrain };
enum class ActuatorType { Motor, Position, Velocity, General };

const char* joint_type_name(JointType type);  // "free", "ball", "hinge", ...
const char* geom_type_name(GeomType type);
const char* actuator_type_name(ActuatorType type);

// Number of position / velocity coordinates a joint adds (MuJoCo's nq / nv).
int joint_nq(JointType type);
int joint_nv(JointType type);

// Where a spec element came from: used in every diagnostic about it.
struct SpecOrigin {
  SourceLoc loc;
  std::string element;  // e.g. "<body name='torso'>"
};

struct BodySpec {
  std::string name;
  SpecOrigin origin;
  int parent = -1;  // index into ModelSpec::bodies; -1 = the world
  Pose pose;        // this body's frame in the parent's frame, reference configuration
  double mass = 0;
  Vec3 com = Vec3::Zero();      // centre of mass, body frame
  Mat3 inertia = Mat3::Zero();  // about the centre of mass, body frame axes
  SpecOrigin inertial_origin;   // where mass/inertia came from (the <inertial> or body)
};

struct JointSpec {
  std::string name;
  SpecOrigin origin;
  int body = -1;  // the body this joint moves (relative to its parent)
  JointType type = JointType::Hinge;
  Vec3 pos = Vec3::Zero();    // anchor, body frame
  Vec3 axis = Vec3::UnitZ();  // hinge/slide axis, planar normal; body frame; any length > 0
  double ref = 0;             // hinge/slide coordinate at the reference configuration
  bool limited = false;
  double range_lower = 0, range_upper = 0;  // radians or metres
  double damping = 0, stiffness = 0, springref = 0, armature = 0, frictionloss = 0;
  double effort_limit = 0, velocity_limit = 0;  // URDF <limit>; 0 = none given
  std::string mimic_joint;                      // URDF <mimic>: recorded, not simulated
  double mimic_multiplier = 1, mimic_offset = 0;
};

struct GeomSpec {
  std::string name;
  SpecOrigin origin;
  int body = -1;  // -1 = the world
  GeomType type = GeomType::Sphere;
  // MuJoCo's size convention: sphere (r); capsule, cylinder (r, half-length);
  // box (half-sizes); ellipsoid (radii); plane (half-x, half-y, grid spacing; 0 = infinite)
  Vec3 size = Vec3::Zero();
  Pose pose;                          // geom frame in the body frame
  Vec3 friction{1.0, 0.005, 0.0001};  // sliding, torsional, rolling
  int contype = 1, conaffinity = 1, condim = 3;
  int priority = 0;       // MuJoCo's: the higher of two touching geoms sets condim and friction
  std::string mesh_file;  // resolved path, GeomType::Mesh only
  Vec3 mesh_scale = Vec3::Ones();
  // The mesh's convex hull vertices (scaled, geom frame): what it collides with. Empty when
  // the mesh was not read (URDF) or has no hull (flat).
  std::vector<Vec3> hull_vertices;
  // GeomType::Terrain only: its triangles (geom frame, faces counter-clockwise seen from
  // above: the side geoms stand on).
  mesh::TriangleMesh terrain;
};

// Joint torque = gear * (gain * ctrl + bias[0] + bias[1] * q + bias[2] * qdot), q the joint
// coordinate: MuJoCo's affine actuator with a joint transmission, whose bias acts on the
// actuator length gear * q — so bias[1] and bias[2] hold MuJoCo's biasprm times gear.
// With gear 1: motor gain 1; position gain kp, bias (0, -kp, -kv); velocity gain kv,
// bias (0, 0, -kv).
struct ActuatorSpec {
  std::string name;
  SpecOrigin origin;
  ActuatorType type = ActuatorType::Motor;
  int joint = -1;
  double gear = 1;
  double gain = 1;
  std::array<double, 3> bias{0, 0, 0};
  bool ctrl_limited = false;
  double ctrl_lower = 0, ctrl_upper = 0;
  bool force_limited = false;
  double force_lower = 0, force_upper = 0;
};

struct KeyframeSpec {
  std::string name;
  SpecOrigin origin;
  std::vector<double> qpos;  // empty = the reference configuration; else nq values
  std::vector<double> qvel;  // empty = zero; else nv values
  std::vector<double> ctrl;  // empty = zero; else nu values
};

struct ExcludeSpec {
  SpecOrigin origin;
  int body1 = -1, body2 = -1;
};

struct OptionSpec {
  double timestep = 0.002;
  Vec3 gravity{0, 0, -9.81};
};

struct ModelSpec {
  std::string name;
  std::string source_file;
  std::vector<BodySpec> bodies;
  std::vector<JointSpec> joints;
  std::vector<GeomSpec> geoms;
  std::vector<ActuatorSpec> actuators;
  std::vector<KeyframeSpec> keyframes;
  std::vector<ExcludeSpec> excludes;
  OptionSpec options;
  // A simulated body whose positive-definite inertia violates A + B >= C: an error for MJCF
  // (MuJoCo's rule, with balanceinertia as the repair), a note for URDF, where such CAD
  // exports are common and load in the libraries URDF users trust (the dynamics are well
  // defined for any positive-definite inertia).
  bool triangle_violation_is_error = true;
  Diagnostics notes;  // notes the reader produced (no errors: a reader with errors returns none)
};

}  // namespace talon
