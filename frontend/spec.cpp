#include "frontend/spec.h"

namespace talon {

const char* joint_type_name(JointType type) {
  switch (type) {
    case JointType::Free:
      return "free";
    case JointType::Ball:
      return "ball";
    case JointType::Hinge:
      return "hinge";
    case JointType::Slide:
      return "slide";
    case JointType::Planar:
      return "planar";
    case JointType::Fixed:
      return "fixed";
  }
  return "?";
}

const char* geom_type_name(GeomType type) {
  switch (type) {
    case GeomType::Plane:
      return "plane";
    case GeomType::Sphere:
      return "sphere";
    case GeomType::Capsule:
      return "capsule";
    case GeomType::Box:
      return "box";
    case GeomType::Cylinder:
      return "cylinder";
    case GeomType::Ellipsoid:
      return "ellipsoid";
    case GeomType::Mesh:
      return "mesh";
    case GeomType::Terrain:
      return "terrain";
  }
  return "?";
}

const char* actuator_type_name(ActuatorType type) {
  switch (type) {
    case ActuatorType::Motor:
      return "motor";
    case ActuatorType::Position:
      return "position";
    case ActuatorType::Velocity:
      return "velocity";
    case ActuatorType::General:
      return "general";
  }
  return "?";
}

int joint_nq(JointType type) {
  switch (type) {
    case JointType::Free:
      return 7;
    case JointType::Ball:
      return 4;
    case JointType::Hinge:
    case JointType::Slide:
      return 1;
    case JointType::Planar:
      return 3;
    case JointType::Fixed:
      return 0;
  }
  return 0;
}

int joint_nv(JointType type) {
  switch (type) {
    case JointType::Free:
      return 6;
    case JointType::Ball:
      return 3;
    case JointType::Hinge:
    case JointType::Slide:
      return 1;
    case JointType::Planar:
      return 3;
    case JointType::Fixed:
      return 0;
  }
  return 0;
}

}  // namespace talon
