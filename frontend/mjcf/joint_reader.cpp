// <joint> and <freejoint>: MuJoCo 2.2.2's joint rules (user_objects.cc mjCJoint::Compile).
#include <numbers>

#include "frontend/mjcf/attributes.h"
#include "frontend/mjcf/body_elements.h"

namespace talon::mjcf {
namespace {

constexpr double kPi = std::numbers::pi;

// MuJoCo 2.2.2 (mjCJoint::Compile): `limited` "auto" means "limited if a range is given",
// which is an error unless compiler autolimits="true"; angles are converted for hinges
// and balls; a ball's range is (0, max angle).
void resolve_limits(const ReaderContext& ctx, const XmlNode& node, const JointState& state,
                    JointSpec& joint) {
  const bool has_range = !(state.range[0] == 0 && state.range[1] == 0);
  bool limited = state.limited == TriState::True;
  if (state.limited == TriState::Auto) {
    if (has_range && !ctx.compiler.autolimits && joint.type != JointType::Free)
      report(ctx.diag, node,
             "joint has 'range' but not 'limited'; set limited=\"true\" or \"false\", or the "
             "compiler option autolimits=\"true\" (MuJoCo 2.2.2 rule)");
    limited = has_range;
  }
  if (joint.type == JointType::Free || !limited) return;
  joint.limited = true;
  if (joint.type == JointType::Ball && state.range[0] != 0)
    report(ctx.diag, node, "the lower limit of a ball joint's range must be 0");
  if (joint.type != JointType::Ball && state.range[0] >= state.range[1])
    report(ctx.diag, node, "lower limit must be smaller than the upper limit in 'range'");
  const bool angular = joint.type == JointType::Hinge || joint.type == JointType::Ball;
  const double scale = angular && ctx.compiler.angles.degrees ? kPi / 180 : 1;
  joint.range_lower = state.range[0] * scale;
  joint.range_upper = state.range[1] * scale;
}

}  // namespace

void read_joint_element(ReaderContext& ctx, const XmlNode& node, int body, int body_class) {
  const std::size_t errors_before = ctx.diag.error_count();
  JointState state = ctx.defaults[ctx.defaults.class_of(node, body_class, ctx.diag)].joint;
  apply_joint_attributes(node, state, ctx.diag);
  if (ctx.diag.error_count() > errors_before) return;  // one error per bad attribute is enough
  JointSpec joint;
  read_string(node, "name", joint.name);
  joint.origin = origin_of(node);
  joint.body = body;
  joint.type = state.type;
  if (state.springdamper[0] != 0 || state.springdamper[1] != 0)
    report(ctx.diag, node,
           "unsupported: springdamper (stiffness and damping from a time constant)");
  if (state.armature < 0)
    report(
        ctx.diag, node,
        "negative armature " + std::to_string(state.armature) + " (a rotor inertia must be >= 0)");
  const bool has_axis = state.type == JointType::Hinge || state.type == JointType::Slide;
  joint.pos = state.type == JointType::Free ? Vec3::Zero() : state.pos;
  joint.axis = has_axis ? state.axis : Vec3::UnitZ();
  resolve_limits(ctx, node, state, joint);
  const double scale =
      state.type == JointType::Hinge && ctx.compiler.angles.degrees ? kPi / 180 : 1;
  joint.ref = state.ref * scale;
  joint.springref = state.springref * scale;
  joint.stiffness = state.stiffness;
  joint.damping = state.damping;
  joint.armature = state.armature;
  joint.frictionloss = state.frictionloss;
  ctx.spec.joints.push_back(joint);
}

void read_freejoint_element(ReaderContext& ctx, const XmlNode& node, int body) {
  JointSpec joint;
  read_string(node, "name", joint.name);
  joint.origin = origin_of(node);
  joint.body = body;
  joint.type = JointType::Free;
  ctx.spec.joints.push_back(joint);
}

}  // namespace talon::mjcf
