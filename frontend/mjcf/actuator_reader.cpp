// <actuator>: motor, position, velocity and general actuators with a joint transmission,
// turned into Talon's affine actuator (spec.h): force = gear * (gain * ctrl + bias0 +
// bias1 * q + bias2 * qdot).
//
// MuJoCo's affine bias acts on the actuator length and velocity, which for a joint
// transmission are gear * q and gear * qdot (engine_core_smooth.c mj_transmission), so
// bias1 and bias2 carry the gear once more.
#include <array>
#include <set>

#include "frontend/mjcf/attributes.h"
#include "frontend/mjcf/reader_context.h"

namespace talon::mjcf {
namespace {

const std::set<std::string, std::less<>> kUnsupportedKinds = {"intvelocity", "damper", "cylinder",
                                                              "muscle", "adhesion"};

ActuatorType actuator_type(const std::string& kind) {
  if (kind == "motor") return ActuatorType::Motor;
  if (kind == "position") return ActuatorType::Position;
  if (kind == "velocity") return ActuatorType::Velocity;
  return ActuatorType::General;
}

// The joint the actuator drives, or -1 (reported).
int find_transmission_joint(const XmlNode& node, const ReaderContext& ctx, Diagnostics& diag) {
  int targets = 0;
  for (const char* attr : {"joint", "jointinparent", "tendon", "cranksite", "site", "body"})
    if (node.attribute(attr)) ++targets;
  if (targets > 1) {
    report(diag, node, "an actuator can have only one transmission target");
    return -1;
  }
  for (const char* attr : {"jointinparent", "tendon", "cranksite", "slidersite", "cranklength",
                           "site", "refsite", "body"})
    if (node.attribute(attr)) {
      report(diag, node,
             std::string("unsupported: actuator transmission '") + attr +
                 "' (Talon supports joint transmissions only)");
      return -1;
    }
  const std::string* name = node.attribute("joint");
  if (!name) {
    report(diag, node, "the actuator needs a 'joint' (Talon supports joint transmissions only)");
    return -1;
  }
  for (std::size_t j = 0; j < ctx.spec.joints.size(); ++j)
    if (ctx.spec.joints[j].name == *name) return static_cast<int>(j);
  report(diag, node, "unknown joint '" + *name + "'");
  return -1;
}

// The dynamics Talon can represent: no activation state, a constant gain, an affine bias.
bool check_supported_dynamics(const XmlNode& node, const ActuatorState& s, Diagnostics& diag) {
  if (s.dyntype != DynType::None) {
    report(diag, node, "unsupported: actuator dyntype other than 'none' (activation dynamics)");
    return false;
  }
  const bool affine_gain_is_constant = s.gainprm[1] == 0 && s.gainprm[2] == 0;
  if (s.gaintype != GainType::Fixed &&
      !(s.gaintype == GainType::Affine && affine_gain_is_constant)) {
    report(diag, node,
           "unsupported: actuator gaintype other than 'fixed' (or 'affine' with constant gain)");
    return false;
  }
  if (s.biastype != BiasType::None && s.biastype != BiasType::Affine) {
    report(diag, node, "unsupported: actuator biastype other than 'none' or 'affine'");
    return false;
  }
  return true;
}

// ctrllimited/forcelimited "auto": limited when a range is given, an error unless
// autolimits (mjCActuator::Compile); a limited range must be increasing.
bool resolve_limit(const XmlNode& node, TriState state, const std::array<double, 2>& range,
                   const char* what, bool autolimits, Diagnostics& diag) {
  const bool has_range = !(range[0] == 0 && range[1] == 0);
  bool limited = state == TriState::True;
  if (state == TriState::Auto) {
    if (has_range && !autolimits)
      report(diag, node,
             std::string("actuator has '") + what + "range' but not '" + what +
                 "limited'; set it to \"true\" or \"false\", or the compiler option "
                 "autolimits=\"true\" (MuJoCo 2.2.2 rule)");
    limited = has_range;
  }
  if (limited && range[0] >= range[1])
    report(diag, node,
           std::string("invalid ") + what +
               "range: lower limit must be smaller "
               "than the upper limit");
  return limited;
}

void read_actuator(const XmlNode& node, ReaderContext& ctx) {
  Diagnostics& diag = ctx.diag;
  if (kUnsupportedKinds.count(node.name)) {
    report(diag, node,
           "unsupported: <" + node.name +
               "> actuators (activation dynamics or "
               "non-affine forces)");
    return;
  }
  const int cls = ctx.defaults.class_of(node, DefaultClasses::kMain, diag);
  ActuatorState state = ctx.defaults[cls].actuator;
  apply_actuator_attributes(node, state, diag);
  ActuatorSpec act;
  read_string(node, "name", act.name);
  act.origin = origin_of(node);
  act.type = actuator_type(node.name);
  act.joint = find_transmission_joint(node, ctx, diag);
  if (act.joint < 0 || !check_supported_dynamics(node, state, diag)) return;
  const JointType joint_type = ctx.spec.joints[static_cast<std::size_t>(act.joint)].type;
  if (joint_type == JointType::Free || joint_type == JointType::Ball) {
    report(diag, node, "unsupported: actuators on free or ball joints");
    return;
  }
  act.gear = state.gear[0];
  act.gain = state.gainprm[0];
  if (state.biastype == BiasType::Affine)
    act.bias = {state.biasprm[0], state.biasprm[1] * act.gear, state.biasprm[2] * act.gear};
  const bool autolimits = ctx.compiler.autolimits;
  act.ctrl_limited =
      resolve_limit(node, state.ctrllimited, state.ctrlrange, "ctrl", autolimits, diag);
  act.force_limited =
      resolve_limit(node, state.forcelimited, state.forcerange, "force", autolimits, diag);
  if (act.ctrl_limited) {
    act.ctrl_lower = state.ctrlrange[0];
    act.ctrl_upper = state.ctrlrange[1];
  }
  if (act.force_limited) {
    act.force_lower = state.forcerange[0];
    act.force_upper = state.forcerange[1];
  }
  ctx.spec.actuators.push_back(act);
}

}  // namespace

void read_actuators(ReaderContext& ctx) {
  for (int section : ctx.sections("actuator"))
    for (int child : ctx.tree[section].children) read_actuator(ctx.tree[child], ctx);
}

}  // namespace talon::mjcf
