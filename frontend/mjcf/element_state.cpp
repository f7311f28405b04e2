#include "frontend/mjcf/element_state.h"

namespace talon::mjcf {

void apply_joint_attributes(const XmlNode& node, JointState& joint, Diagnostics& diag) {
  int type = 0;
  if (read_keyword(node, "type",
                   {{"free", static_cast<int>(JointType::Free)},
                    {"ball", static_cast<int>(JointType::Ball)},
                    {"slide", static_cast<int>(JointType::Slide)},
                    {"hinge", static_cast<int>(JointType::Hinge)}},
                   type, diag))
    joint.type = static_cast<JointType>(type);
  read_tristate(node, "limited", joint.limited, diag);
  read_exact(node, "pos", joint.pos.data(), 3, diag);
  read_exact(node, "axis", joint.axis.data(), 3, diag);
  read_exact(node, "springdamper", joint.springdamper.data(), 2, diag);
  read_double(node, "stiffness", joint.stiffness, diag);
  read_exact(node, "range", joint.range.data(), 2, diag);
  read_double(node, "ref", joint.ref, diag);
  read_double(node, "springref", joint.springref, diag);
  read_double(node, "armature", joint.armature, diag);
  read_double(node, "damping", joint.damping, diag);
  read_double(node, "frictionloss", joint.frictionloss, diag);
}

void apply_geom_attributes(const XmlNode& node, GeomState& geom, Diagnostics& diag) {
  int type = 0;
  if (read_keyword(node, "type",
                   {{"plane", static_cast<int>(MjcfGeomType::Plane)},
                    {"hfield", static_cast<int>(MjcfGeomType::Hfield)},
                    {"sphere", static_cast<int>(MjcfGeomType::Sphere)},
                    {"capsule", static_cast<int>(MjcfGeomType::Capsule)},
                    {"ellipsoid", static_cast<int>(MjcfGeomType::Ellipsoid)},
                    {"cylinder", static_cast<int>(MjcfGeomType::Cylinder)},
                    {"box", static_cast<int>(MjcfGeomType::Box)},
                    {"mesh", static_cast<int>(MjcfGeomType::Mesh)}},
                   type, diag))
    geom.type = static_cast<MjcfGeomType>(type);
  read_prefix(node, "size", geom.size.data(), 3, diag);
  read_int(node, "contype", geom.contype, diag);
  read_int(node, "conaffinity", geom.conaffinity, diag);
  read_int(node, "condim", geom.condim, diag);
  read_int(node, "group", geom.group, diag);
  read_int(node, "priority", geom.priority, diag);
  read_prefix(node, "friction", geom.friction.data(), 3, diag);
  read_string(node, "hfield", geom.hfield);
  read_string(node, "mesh", geom.mesh);
  double mass = 0;
  if (read_double(node, "mass", mass, diag)) geom.mass = mass;
  read_double(node, "density", geom.density, diag);
  std::array<double, 6> fromto{};
  if (read_exact(node, "fromto", fromto.data(), 6, diag)) geom.fromto = fromto;
  read_exact(node, "pos", geom.pos.data(), 3, diag);
  read_orientation(node, geom.orientation, diag);
}

}  // namespace talon::mjcf
