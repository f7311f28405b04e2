// Central finite differences of whole rollouts against their adjoint gradients
// (`talon gradcheck MODEL --steps H`, tests/gradients). The differences run as worlds of one
// batch: world 2i is input i nudged up, world 2i + 1 nudged down; the adjoint is one world's
// record_rollout + rollout_backward. The loss is linear in the final state,
// L = wq·q_H + wu·u_H.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/expected.h"
#include "runtime/simulator.h"

namespace talon {

struct RolloutSetup {
  double h = 0.1;
  int steps = 1;
  std::function<void(runtime::WorldBatch&, int world)> initial;  // a world's state, params
  ControlSchedule controls;  // per step (FD nudges are added on top)
  std::vector<double> wq, wu;
};

// One differentiated input: an initial velocity or position entry, a parameter, or one
// actuator's control at one step.
struct RolloutInput {
  enum Kind { U0, Q0, Param, Ctrl } kind = U0;
  int index = 0, step = 0;
  double epsilon = 1e-6;
  std::string label() const;
};

struct RolloutCheck {
  std::vector<std::string> labels;
  std::vector<double> adjoint, difference;
  int unconverged_steps = 0;  // steps of the adjoint's run above the convergence tolerance
  double loss = 0;            // of the unperturbed run
  // max over the inputs of |a − d| / max(|d|, floor); floor < 0: 1e-3 of the largest |d|.
  double max_relative_error(double floor = -1) const;
  double cosine() const;  // of the adjoint and difference vectors
};

// Errors when the unit has no backward step or a run fails (non-finite or diverged world).
Expected<RolloutCheck> check_rollout_gradients(const Simulator& sim, const RolloutSetup& setup,
                                               const std::vector<RolloutInput>& inputs);

}  // namespace talon
