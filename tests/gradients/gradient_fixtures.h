// Gradient tests: the adjoint of whole rollouts (Simulator::record_rollout / rollout_backward)
// against central finite differences of the same rollouts (runtime/rollout_check.h).
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "runtime/rollout_check.h"
#include "runtime/runtime_fixtures.h"

namespace talon::testing {

// Solver settings for gradient checks: a forward converged far below the differences' noise
// (a finite difference of a step converged to 1e-6 m/s is noise at ε = 1e-6), and the
// backward step. Rollout::require_converged makes sure no step of the nominal run was split
// (a nudged world that splits a step its neighbour does not lands O(h²) away: a jump, not a
// derivative).
inline SimulatorOptions gradient_options() {
  SimulatorOptions options = test_options();
  options.solver.newton_iterations = 32;
  options.solver.pcr_iterations = 64;
  // Finite differences of a rollout see each step's stopping error over their step δ: the
  // forward must be converged far below δ·|gradient| (1e-8 left the 20-step drive 1.1 % off).
  options.solver.convergence_tolerance = 1e-11;
  options.solver.adjoint_iterations = 32;
  return options;
}

// The wheeled robot, its forward converged to 1e-12 rather than gradient_options()' 1e-11:
// the differences over its rollouts see the steps' stopping errors, which at 1e-11 moved
// them by up to 1.5e-6 relative with nothing but the last bits of the contact code (the
// pairs written out or as per-type templates); at 1e-12 the crossing is 1.7e-7 written out
// and 1.3e-7 as templates, the ramp 3.7e-8 and 2.3e-7 (bench/RESULTS.md, thirteenth session).
// The same for its sticking wheels since the Newton direction's proximal term (fifteenth
// session): the last updates converge less far past the bar, and at 1e-11 the differences
// of the mass's gradient moved by 3.2e-6 relative. And 1e-13 since its wheels' joints run as
// per-type templates (eighteenth session): at 1e-12 the ramp's difference for the first
// control then stopped 1.3e-6 of it away from the adjoint (0.000788508 against 0.000788509;
// 6.6e-8 at 1e-13), the last bits of the joint rows moving where each step stops.
inline Simulator wheeled_robot_for_differences() {
  SimulatorOptions options = gradient_options();
  options.solver.convergence_tolerance = 1e-13;
  return make_simulator(shipped_model("three_wheeler_scene.xml"), options);
}

// A rollout with a loss linear in the final state, L = wq·q_H + wu·u_H.
struct Rollout : RolloutSetup {
  bool require_converged = true;  // every step of the nominal run below the tolerance
};

using Input = RolloutInput;
using Comparison = RolloutCheck;

// The adjoint gradient of the rollout's loss for every input, and its central differences
// (runtime/rollout_check.h).
inline Comparison compare_gradients(const Simulator& sim, const Rollout& r,
                                    const std::vector<Input>& inputs) {
  Expected<RolloutCheck> c = check_rollout_gradients(sim, r, inputs);
  INFO(c.diagnostics().format());
  REQUIRE(c.ok());
  if (r.require_converged) REQUIRE(c->unconverged_steps == 0);
  // Shown with a failure, and always with TALON_TEST_VERBOSE set.
  const bool verbose = std::getenv("TALON_TEST_VERBOSE") != nullptr;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    UNSCOPED_INFO(c->labels[i] << ": adjoint " << c->adjoint[i] << ", difference "
                               << c->difference[i]);
    if (verbose)
      std::cerr << c->labels[i] << ": adjoint " << c->adjoint[i] << ", difference "
                << c->difference[i] << '\n';
  }
  // What the tests' tolerances were set from.
  if (verbose)
    std::cerr << "max relative error " << c->max_relative_error()
              << " (floor 1e-2: " << c->max_relative_error(1e-2)
              << ", 1e-3: " << c->max_relative_error(1e-3) << "), 1 - cosine " << 1 - c->cosine()
              << '\n';
  return std::move(*c);
}

// Every entry of a velocity (u) and position (q, x y z per body) as inputs.
inline std::vector<Input> state_inputs(int nsim) {
  std::vector<Input> out;
  for (int i = 0; i < 6 * nsim; ++i) out.push_back({Input::U0, i});
  for (int b = 0; b < nsim; ++b)
    for (int i = 0; i < 3; ++i) out.push_back({Input::Q0, 7 * b + i});
  return out;
}

}  // namespace talon::testing
