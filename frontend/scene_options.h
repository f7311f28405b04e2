// Scene options: what a robot file without a world of its own (a URDF has no ground and no
// actuators) needs to be simulated in one: a ground plane, the floating base's start, servos
// on its joints. They edit the spec after reading (LoadOptions::ground, base_pos, servos), so
// the CLI's flags and the API's options give the same spec and so the same compiled kernel.
#pragma once

#include <string>

#include "common/expected.h"
#include "frontend/load.h"
#include "frontend/spec.h"

namespace talon {

// "JOINT=velocity:KV" or "JOINT=position:KP" (the CLI's --actuate, the API's Options::actuate).
// The error, one line, quotes the text: no '=' or ':', another kind, a gain that is not a
// finite positive number. Whether the joint exists is for with_scene_options to say.
Expected<JointServo> parse_joint_servo(const std::string& text);

// The servo as the --actuate text that asks for it (how diagnostics name it).
std::string joint_servo_text(const JointServo& servo);

// The spec with the scene `options` asks for: a plane z = 0 on the world (friction 1, as an
// MJCF floor with friction="1"), a terrain read from a triangle mesh file (world frame,
// friction 1), the floating base's reference position, one actuator per
// servo (named after its joint, so a control CSV's columns are the joint names). Errors, one
// line each naming the option: a terrain file that cannot be read; base_pos without floating_base or with no floating root body;
// a servo on a joint that does not exist, does not move (fixed) or is not a one-coordinate
// joint; a joint given two servos; a servo whose name an actuator of the file already has.
Expected<ModelSpec> with_scene_options(ModelSpec spec, const LoadOptions& options);

}  // namespace talon
