// apply_actuator_attributes: MuJoCo 2.2.2's actuator shortcuts (xml_native_reader.cc,
// mjXReader::OneActuator). Every shortcut rewrites the one actuator object a default class
// holds, so e.g. <velocity/> after a class's <position kp="7"/> keeps gainprm[0] = 7 as its
// kv when it gives none; we reproduce that.
#include <numbers>

#include "frontend/mjcf/element_state.h"

namespace talon::mjcf {
namespace {

void set_types(ActuatorState& a, DynType dyn, GainType gain, BiasType bias) {
  a.dyntype = dyn;
  a.gaintype = gain;
  a.biastype = bias;
}

void read_common(const XmlNode& node, ActuatorState& a, Diagnostics& diag) {
  read_tristate(node, "ctrllimited", a.ctrllimited, diag);
  read_tristate(node, "forcelimited", a.forcelimited, diag);
  read_exact(node, "ctrlrange", a.ctrlrange.data(), 2, diag);
  read_exact(node, "forcerange", a.forcerange.data(), 2, diag);
  read_prefix(node, "gear", a.gear.data(), 6, diag);
}

void read_general(const XmlNode& node, ActuatorState& a, Diagnostics& diag) {
  int value = 0;
  if (read_keyword(node, "dyntype",
                   {{"none", 0}, {"integrator", 1}, {"filter", 2}, {"muscle", 3}, {"user", 4}},
                   value, diag))
    a.dyntype = static_cast<DynType>(value);
  if (read_keyword(node, "gaintype", {{"fixed", 0}, {"affine", 1}, {"muscle", 2}, {"user", 3}},
                   value, diag))
    a.gaintype = static_cast<GainType>(value);
  if (read_keyword(node, "biastype", {{"none", 0}, {"affine", 1}, {"muscle", 2}, {"user", 3}},
                   value, diag))
    a.biastype = static_cast<BiasType>(value);
  read_prefix(node, "dynprm", a.dynprm.data(), 10, diag);
  read_prefix(node, "gainprm", a.gainprm.data(), 10, diag);
  read_prefix(node, "biasprm", a.biasprm.data(), 10, diag);
}

// position: force = kp * ctrl - kp * length; velocity: kv * ctrl - kv * velocity.
void read_servo(const XmlNode& node, ActuatorState& a, const char* gain_attr, int bias_slot,
                Diagnostics& diag) {
  a.biasprm.fill(0);
  read_double(node, gain_attr, a.gainprm[0], diag);
  a.biasprm[static_cast<std::size_t>(bias_slot)] = -a.gainprm[0];
  set_types(a, DynType::None, GainType::Fixed, BiasType::Affine);
}

// A shortcut whose control range MuJoCo requires and keeps non-negative.
void read_required_nonnegative_ctrlrange(const XmlNode& node, ActuatorState& a, Diagnostics& diag) {
  if (!node.attribute("ctrlrange")) {
    report(diag, node, "attribute 'ctrlrange' is required for <" + node.name + ">");
  } else if (a.ctrlrange[0] < 0 || a.ctrlrange[1] < 0) {
    report(diag, node, "the control range of <" + node.name + "> cannot be negative");
  }
  a.ctrllimited = TriState::True;
}

void read_damper(const XmlNode& node, ActuatorState& a, Diagnostics& diag) {
  a.gainprm.fill(0);
  read_double(node, "kv", a.gainprm[2], diag);
  if (a.gainprm[2] < 0) report(diag, node, "damping coefficient kv cannot be negative");
  a.gainprm[2] = -a.gainprm[2];
  read_required_nonnegative_ctrlrange(node, a, diag);
  set_types(a, DynType::None, GainType::Affine, BiasType::None);
}

void read_cylinder(const XmlNode& node, ActuatorState& a, Diagnostics& diag) {
  read_double(node, "timeconst", a.dynprm[0], diag);
  read_exact(node, "bias", a.biasprm.data(), 3, diag);
  read_double(node, "area", a.gainprm[0], diag);
  double diameter = 0;
  if (read_double(node, "diameter", diameter, diag))
    a.gainprm[0] = std::numbers::pi / 4 * diameter * diameter;
  set_types(a, DynType::Filter, GainType::Fixed, BiasType::Affine);
}

void read_muscle(const XmlNode& node, ActuatorState& a, Diagnostics& diag) {
  // MuJoCo's muscle defaults replace parameters still at the global defaults.
  const std::array<double, 9> muscle_defaults{0.75, 1.05, -1, 200, 0.5, 1.6, 1.5, 1.3, 1.2};
  const std::array<double, 9> global_defaults{1, 0, 0, 0, 0, 0, 0, 0, 0};
  if (a.dynprm[0] == 1) a.dynprm[0] = 0.01;
  if (a.dynprm[1] == 0) a.dynprm[1] = 0.04;
  for (std::size_t i = 0; i < muscle_defaults.size(); ++i)
    if (a.gainprm[i] == global_defaults[i]) a.gainprm[i] = muscle_defaults[i];
  read_exact(node, "timeconst", a.dynprm.data(), 2, diag);
  read_exact(node, "range", a.gainprm.data(), 2, diag);
  const char* scalars[] = {"force", "scale", "lmin", "lmax", "vmax", "fpmax", "fvmax"};
  for (std::size_t i = 0; i < 7; ++i) read_double(node, scalars[i], a.gainprm[i + 2], diag);
  std::copy(a.gainprm.begin(), a.gainprm.begin() + 9, a.biasprm.begin());
  set_types(a, DynType::Muscle, GainType::Muscle, BiasType::Muscle);
}

void read_adhesion(const XmlNode& node, ActuatorState& a, Diagnostics& diag) {
  a.biasprm.fill(0);
  a.gainprm.fill(0);
  a.gainprm[0] = 1;
  read_double(node, "gain", a.gainprm[0], diag);
  if (a.gainprm[0] < 0) report(diag, node, "adhesion gain cannot be negative");
  read_required_nonnegative_ctrlrange(node, a, diag);
  set_types(a, DynType::None, GainType::Fixed, BiasType::None);
}

}  // namespace

void apply_actuator_attributes(const XmlNode& node, ActuatorState& a, Diagnostics& diag) {
  read_common(node, a, diag);
  const std::string& kind = node.name;
  if (kind == "general") {
    read_general(node, a, diag);
  } else if (kind == "motor") {
    a.gainprm[0] = 1;
    set_types(a, DynType::None, GainType::Fixed, BiasType::None);
  } else if (kind == "position") {
    read_servo(node, a, "kp", 1, diag);
  } else if (kind == "velocity") {
    read_servo(node, a, "kv", 2, diag);
  } else if (kind == "intvelocity") {
    read_servo(node, a, "kp", 1, diag);
    a.dyntype = DynType::Integrator;
  } else if (kind == "damper") {
    read_damper(node, a, diag);
  } else if (kind == "cylinder") {
    read_cylinder(node, a, diag);
  } else if (kind == "muscle") {
    read_muscle(node, a, diag);
  } else if (kind == "adhesion") {
    read_adhesion(node, a, diag);
  }
}

}  // namespace talon::mjcf
