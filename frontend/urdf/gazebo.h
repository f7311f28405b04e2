// The one part of URDF's <gazebo> extension blocks that changes contact: a link's friction.
#pragma once

#include "frontend/spec.h"
#include "frontend/urdf/parse_util.h"

namespace talon::urdf {

// For each <gazebo reference="LINK"> with <mu1> (and <mu2>), gives LINK's collision geoms
// that friction coefficient, with priority 1 so that it is what their contacts use: Gazebo
// takes the smaller coefficient of two touching surfaces, MuJoCo's rule (Talon's) the larger
// unless one geom has priority, and a link that names its own friction (a ball caster's
// mu = 0) means it against the default-friction ground. mu = 0 also makes the geoms
// frictionless (condim 1), as in MJCF. Everything else in <gazebo> is skipped, with one note
// per file; a <gazebo> block naming no link of the file is a note.
void apply_gazebo_friction(const ParseContext& ctx, const XMLElement* robot, ModelSpec& spec);

}  // namespace talon::urdf
