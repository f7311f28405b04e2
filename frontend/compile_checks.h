// The per-element checks of compile_model (compile.cpp), kept apart so each stays small.
#pragma once

#include <vector>

#include "common/diagnostics.h"
#include "frontend/spec.h"

namespace talon {

// Finite numbers, mass >= 0, symmetric inertias, non-zero quaternions and axes, limit order,
// sensible geom sizes and friction, positive timestep.
void check_spec_values(const ModelSpec& spec, Diagnostics& diag);

// A simulated body (the links welded to `root` by fixed joints, combined): mass > 0, a
// positive-definite inertia (errors at the root's <inertial>), and the triangle inequality
// A + B >= C (an error or a note, ModelSpec::triangle_violation_is_error).
void check_simulated_inertia(const ModelSpec& spec, int root, double mass, const Mat3& inertia,
                             Diagnostics& diag);

// A note when a link that is not simulated on its own (welded with others into `into`: a
// moving body, or the world) has an indefinite inertia, which would be an error on a body of
// its own.
void note_welded_indefinite_inertia(const ModelSpec& spec, int link, const std::string& into,
                                    Diagnostics& diag);

// Names are unique per kind (empty names are allowed and never clash).
void check_unique_names(const ModelSpec& spec, Diagnostics& diag);

// The joints of one body form a combination Talon supports: a free joint alone on a
// top-level body; a fixed joint alone. Returns false (with an error) otherwise.
bool check_body_joint_combination(const ModelSpec& spec, const std::vector<int>& joints, int body,
                                  Diagnostics& diag);

// Appends the joint's reference coordinates to qpos0 (MuJoCo's qpos0): a free joint's
// body pose in the world, a ball's identity quaternion, a hinge/slide's `ref`.
void append_reference_qpos(const JointSpec& joint, const Pose& body_world,
                           std::vector<double>& qpos0);

}  // namespace talon
