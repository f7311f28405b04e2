// Joint coordinates (MuJoCo's qpos / qvel) <-> Talon's maximal coordinates (per sim body: COM
// position, frame quaternion; COM velocity, angular velocity, world frame).
//
// Forward: MuJoCo's mj_kinematics over the sim-body tree (parents first, a loop, not
// recursion): a body's frame is its parent's composed with its reference pose, then each of
// its joints in written order, applied in the moving frame — hinge: rotation by qpos − qpos0
// about the axis through the anchor; slide: translation by qpos − qpos0 along the axis; ball:
// the quaternion about the anchor; free: the world pose itself. Velocities follow the same
// screws: qvel of a hinge/slide is a rate along its world axis, of a ball the angular velocity
// in the child frame, of a free joint the world velocity of the frame origin and the angular
// velocity in the body frame (MuJoCo's conventions).
// Inverse: the relative pose of each body to its parent, decomposed per joint set — analytic
// for free, ball, a single hinge or slide; Gauss–Newton over the coordinates otherwise.
// Hinge angles are unwrapped to the value nearest `previous` (so a wheel's angle keeps
// counting turns when called every step).
#pragma once

#include <vector>

#include "common/expected.h"
#include "frontend/model.h"

namespace talon::runtime {

struct MaximalState {
  std::vector<double> q;  // [7·nsim]
  std::vector<double> u;  // [6·nsim]
};

// qpos [nq], qvel [nv] (empty qvel = zero). Errors for sizes that do not match the model, and
// for joints whose coordinates are not mapped (planar).
Expected<MaximalState> maximal_from_joint(const Model& model, const std::vector<double>& qpos,
                                          const std::vector<double>& qvel = {});

struct JointState {
  std::vector<double> qpos;  // [nq]
  std::vector<double> qvel;  // [nv]
};

// The joint coordinates of a maximal state. `previous` (qpos [nq], may be empty) picks the
// hinge angles' 2π branch and seeds the iterative decompositions.
JointState joint_from_maximal(const Model& model, const std::vector<double>& q,
                              const std::vector<double>& u,
                              const std::vector<double>& previous = {});

// joint_from_maximal's qpos alone, without the rates' least squares: what a run needs every
// step to keep the hinge angles on their branches (`previous` as there), the rates taken
// once at its end.
std::vector<double> joint_positions_from_maximal(const Model& model, const std::vector<double>& q,
                                                 const std::vector<double>& previous);

// The state of keyframe `name` (qpos, qvel) in maximal coordinates.
Expected<MaximalState> keyframe_state(const Model& model, const std::string& name);

}  // namespace talon::runtime
