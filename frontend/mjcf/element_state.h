// The settable state of MJCF joints, geoms and actuators, and how an element's attributes
// change it.
//
// MuJoCo models defaults as whole objects: a default class holds one joint, one geom and
// one actuator; a class starts as a copy of its parent's; an element starts as a copy of
// its class's and its attributes overwrite fields. The same "apply attributes" functions
// serve <default> children and real elements, as in MuJoCo's xml_native_reader.cc, so
// inheritance follows MuJoCo's rules field by field (including partial vectors: size="1"
// keeps the default's second and third size).
#pragma once

#include <array>
#include <optional>
#include <string>

#include "common/diagnostics.h"
#include "common/math.h"
#include "frontend/mjcf/attributes.h"
#include "frontend/mjcf/geom_inertia.h"
#include "frontend/mjcf/orientation.h"
#include "frontend/mjcf/xml_tree.h"
#include "frontend/spec.h"

namespace talon::mjcf {

struct JointState {
  JointType type = JointType::Hinge;
  Vec3 pos = Vec3::Zero();
  Vec3 axis = Vec3::UnitZ();
  TriState limited = TriState::Auto;
  std::array<double, 2> range{0, 0};  // in the file's angle unit
  double stiffness = 0, damping = 0, armature = 0, frictionloss = 0;
  double ref = 0, springref = 0;  // in the file's angle unit for hinges
  std::array<double, 2> springdamper{0, 0};
};

struct GeomState {
  MjcfGeomType type = MjcfGeomType::Sphere;
  Vec3 size = Vec3::Zero();
  int contype = 1, conaffinity = 1, condim = 3, group = 0, priority = 0;
  Vec3 friction{1, 0.005, 0.0001};
  std::optional<double> mass;  // explicit mass; else density * volume
  double density = 1000;
  std::optional<std::array<double, 6>> fromto;
  Vec3 pos = Vec3::Zero();
  OrientationSpec orientation;
  std::string mesh;    // asset name
  std::string hfield;  // asset name (an hfield geom: frontend/mjcf/hfield.cpp)
};

enum class DynType { None, Integrator, Filter, Muscle, User };
enum class GainType { Fixed, Affine, Muscle, User };
enum class BiasType { None, Affine, Muscle, User };

// MuJoCo's general actuator parameters (mjNDYN = mjNGAIN = mjNBIAS = 10 in 2.2.2).
struct ActuatorState {
  TriState ctrllimited = TriState::Auto, forcelimited = TriState::Auto;
  std::array<double, 2> ctrlrange{0, 0}, forcerange{0, 0};
  std::array<double, 6> gear{1, 0, 0, 0, 0, 0};
  DynType dyntype = DynType::None;
  GainType gaintype = GainType::Fixed;
  BiasType biastype = BiasType::None;
  std::array<double, 10> dynprm{1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  std::array<double, 10> gainprm{1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  std::array<double, 10> biasprm{};
};

void apply_joint_attributes(const XmlNode& node, JointState& joint, Diagnostics& diag);
void apply_geom_attributes(const XmlNode& node, GeomState& geom, Diagnostics& diag);
// The element name (general, motor, position, velocity, intvelocity, damper, cylinder,
// muscle, adhesion) selects MuJoCo's shortcut semantics.
void apply_actuator_attributes(const XmlNode& node, ActuatorState& actuator, Diagnostics& diag);

}  // namespace talon::mjcf
