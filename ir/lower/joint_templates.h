// Kernels per type for the joints (docs/design.md, "Kernels per type"): the rows a body's
// joint set puts into the step — its joint rows, the limit and servo rows of its joints (and
// their springs and armature) — and its joints' explicit forces, lowered once per *kind* of
// joint set as a template, and the table of a program's sets of each kind (internal to
// ir/lower/).
//
// A kind is what changes the rows' formulas (JointTemplateKey): the joints' types in order,
// which are limited, sprung or have armature, the actuators on them (servo or motor, clamped
// or not), whether the parent is the world, a skew pair of hinges, a third hinge's sign. What
// an instance differs by is an input: the two bodies' state, the set's anchors, axes and
// reference pose (JointSetInputs), the joints' and actuators' numbers (JointInputs,
// ActuatorInputs), the parameters, the impulses, the controls, h. The template is lowered by
// the same passes as a model, on a model of the parent and the child alone, so evaluated at
// an instance's values it gives the instance's rows of the unrolled program exactly
// (tests/ir/test_pair_templates.cpp).
#pragma once

#include <array>
#include <compare>
#include <vector>

#include "ir/lower/context.h"
#include "ir/lower/pair_templates.h"

namespace talon::ir::lower {

struct JointTemplateKey {
  std::vector<JointType> types;  // the set's joints, written order
  // Per joint: 1 limited, 2 stiffness or damping, 4 armature (the rows it has).
  std::vector<int> terms;
  // Per actuator on the set's joints, in actuator order: the joint's place in the set, servo
  // (a row) or motor (a force), ctrl clamped, force clamped.
  std::vector<std::array<int, 4>> actuators;
  bool parent_static = false;
  bool skew = false;
  int third_axis_sign = 0;  // three hinges: σ (joint_coordinates.cpp), else 0
  auto operator<=>(const JointTemplateKey&) const = default;
};

// The templates of the joint sets of a program lowered from `ctx` with
// LowerOptions::joint_templates (placeholder rows), appended to `templates`, and one instance
// per joint set.
void add_joint_templates(Context& ctx, const ResidualProgram& program, PairTemplates& templates);

}  // namespace talon::ir::lower
