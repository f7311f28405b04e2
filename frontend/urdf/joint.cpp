// <joint>: type, origin, parent/child links, axis, limits, dynamics, mimic.
#include <string_view>

#include "frontend/urdf/elements.h"

namespace talon::urdf {
namespace {

struct JointKind {
  std::string_view name;
  JointType type;
  bool has_axis;     // reads <axis> (planar: the plane's normal)
  bool needs_limit;  // urdfdom rejects revolute/prismatic joints without <limit>
};

constexpr JointKind kJointKinds[] = {
    {"revolute", JointType::Hinge, true, true},  {"continuous", JointType::Hinge, true, false},
    {"prismatic", JointType::Slide, true, true}, {"fixed", JointType::Fixed, false, false},
    {"floating", JointType::Free, false, false}, {"planar", JointType::Planar, true, false},
};

const JointKind* find_kind(std::string_view name) {
  for (const JointKind& kind : kJointKinds)
    if (kind.name == name) return &kind;
  return nullptr;
}

const JointKind* read_kind(const ParseContext& ctx, const XMLElement* element,
                           const std::string& owner) {
  std::string type;
  if (!read_string(ctx, element, "type", owner, type, Need::Required)) return nullptr;
  const JointKind* kind = find_kind(type);
  if (!kind)
    ctx.error(element, owner,
              "unknown joint type '" + type +
                  "' (URDF joints are revolute, continuous, prismatic, fixed, floating or "
                  "planar)");
  return kind;
}

LinkRef read_link_ref(const ParseContext& ctx, const XMLElement* element, const char* tag,
                      const std::string& owner) {
  LinkRef ref;
  ref.loc = ctx.loc(element);
  const XMLElement* child = unique_child(ctx, element, tag, owner, Need::Required);
  if (!child) return ref;
  ref.loc = ctx.loc(child);
  read_string(ctx, child, "link", owner, ref.link, Need::Required);
  return ref;
}

// <axis xyz>: in the joint frame, which is the child link's frame. Default (1, 0, 0).
void read_axis(const ParseContext& ctx, const XMLElement* element, const std::string& owner,
               JointSpec& joint) {
  joint.axis = Vec3::UnitX();
  if (const XMLElement* axis = unique_child(ctx, element, "axis", owner))
    read_vec3(ctx, axis, "xyz", owner, joint.axis);
}

// <limit lower upper effort velocity>. Only revolute and prismatic joints are limited; a
// continuous joint's limit carries effort and velocity only (urdfdom ignores its range).
void read_limit(const ParseContext& ctx, const XMLElement* element, const std::string& owner,
                const JointKind& kind, JointSpec& joint) {
  const XMLElement* limit = unique_child(ctx, element, "limit", owner);
  if (!limit) {
    if (kind.needs_limit)
      ctx.error(element, owner,
                std::string(kind.name) +
                    " joint has no <limit> (URDF requires one on revolute and prismatic "
                    "joints)");
    return;
  }
  read_number(ctx, limit, "effort", owner, joint.effort_limit);
  read_number(ctx, limit, "velocity", owner, joint.velocity_limit);
  if (!kind.needs_limit) return;
  joint.limited = true;
  read_number(ctx, limit, "lower", owner, joint.range_lower);
  read_number(ctx, limit, "upper", owner, joint.range_upper);
}

void read_dynamics(const ParseContext& ctx, const XMLElement* element, const std::string& owner,
                   JointSpec& joint) {
  const XMLElement* dynamics = unique_child(ctx, element, "dynamics", owner);
  if (!dynamics) return;
  read_number(ctx, dynamics, "damping", owner, joint.damping);
  read_number(ctx, dynamics, "friction", owner, joint.frictionloss);
}

// <mimic joint multiplier offset>: recorded for tools downstream, not simulated.
void read_mimic(const ParseContext& ctx, const XMLElement* element, const std::string& owner,
                JointSpec& joint) {
  const XMLElement* mimic = unique_child(ctx, element, "mimic", owner);
  if (!mimic) return;
  read_string(ctx, mimic, "joint", owner, joint.mimic_joint, Need::Required);
  read_number(ctx, mimic, "multiplier", owner, joint.mimic_multiplier);
  read_number(ctx, mimic, "offset", owner, joint.mimic_offset);
}

}  // namespace

UrdfJoint read_joint(const ParseContext& ctx, const XMLElement* element) {
  UrdfJoint urdf;
  JointSpec& joint = urdf.joint;
  const std::string owner = describe(element);
  read_string(ctx, element, "name", owner, joint.name, Need::Required);
  joint.origin = {ctx.loc(element), owner};
  // The child link's frame is the joint frame, so the joint sits at the child's origin.
  urdf.origin = read_origin(ctx, element, owner);
  urdf.parent = read_link_ref(ctx, element, "parent", owner);
  urdf.child = read_link_ref(ctx, element, "child", owner);
  if (const JointKind* kind = read_kind(ctx, element, owner)) {
    joint.type = kind->type;
    if (kind->has_axis) read_axis(ctx, element, owner, joint);
    read_limit(ctx, element, owner, *kind, joint);
  }
  read_dynamics(ctx, element, owner, joint);
  read_mimic(ctx, element, owner, joint);
  note_unknown_children(ctx, element,
                        {"origin", "parent", "child", "axis", "limit", "dynamics", "mimic",
                         "safety_controller", "calibration"},
                        owner);
  return urdf;
}

}  // namespace talon::urdf
