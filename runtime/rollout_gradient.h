// Gradients of whole rollouts over W worlds: a forward pass that keeps one start state per
// step (or per checkpoint) and a reverse sweep of backward steps (NAME_step_backward, the
// adjoint of DESIGN "Adjoint": one transposed exact-Jacobian solve per step, nothing of the
// Newton or PCR iterations stored).
//
//   SimulatorOptions options;
//   options.solver.adjoint_iterations = 32;              // the unit gets its backward step
//   Expected<Simulator> sim = talon::load("robot.xml", options);
//   runtime::WorldBatch worlds = sim->make_worlds(64);
//   RolloutTape tape = sim->record_rollout(worlds, 0.1, 60, set_controls);
//   Expected<RolloutGradient> g = sim->rollout_backward(tape, loss_cotangent);
//
// Memory per world: the tape holds (q, u, warm start) per stored state and the controls of
// every step; with checkpoint_every = k only every k-th state is stored and the stretch
// between two checkpoints is recomputed (k states at a time) during the sweep.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "runtime/world_batch.h"

namespace talon {

// Sets the controls of step k (worlds.ctrl) before it is taken.
using ControlSchedule = std::function<void(int step, runtime::WorldBatch& worlds)>;

// What a rollout's reverse sweep needs (per world; world-major inside each stored state).
struct RolloutTape {
  double h = 0;
  int steps = 0, worlds = 0, checkpoint_every = 1;
  int nq = 0, nv = 0, nctrl = 0, nparam = 0, nwarm = 0;
  std::vector<double> q, u, warm;        // [checkpoints][worlds][nq | nv | nwarm]
  std::vector<double> final_q, final_u;  // [worlds][nq | nv]: the state after the last step
  std::vector<double> ctrl;              // [steps][worlds][nctrl]
  std::vector<double> params;            // [worlds][nparam]
  std::vector<uint8_t> status;           // [worlds] WorldStatus bits the forward ended with
  std::vector<uint8_t> step_status;      // [steps][worlds] each step's WorldStatus bits

  int checkpoints() const { return steps == 0 ? 0 : (steps - 1) / checkpoint_every + 1; }
  // Bytes the tape holds per world (stored states, warm starts, controls, parameters).
  std::size_t bytes_per_world() const;
};

// ∂L/∂(state) of world `world` at state k (k = steps is the final state, 0 the initial one):
// the callback adds its loss's derivative with respect to (q_k, u_k) into (dq, du). It is
// called for k = steps, steps − 1, ..., 0 during the reverse sweep.
using StateCotangent =
    std::function<void(int k, int world, std::span<const double> q, std::span<const double> u,
                       std::span<double> dq, std::span<double> du)>;

// The gradient of L with respect to every input of the rollout, per world.
struct RolloutGradient {
  std::vector<double> dq0, du0;  // [worlds][nq | nv]: the initial state
  std::vector<double> dctrl;     // [steps][worlds][nctrl]
  std::vector<double> dparams;   // [worlds][nparam]
  std::vector<int> code;  // [worlds] 0, or the NAME_STEP_* code a recomputed step failed with
  std::vector<int> failed_step;          // [worlds] the step that failed (−1: none)
  long krylov_iterations = 0;            // FGMRES iterations of every backward step, all worlds
  long pcr_iterations = 0;               // PCR iterations inside them
  long backward_steps = 0;               // backward steps taken, all worlds
  double max_adjoint_residual = 0;       // the largest relative residual of an adjoint solve
  std::size_t peak_bytes_per_world = 0;  // tape + the recomputed stretch, per world

  double krylov_iterations_per_step() const {
    return backward_steps ? double(krylov_iterations) / backward_steps : 0.0;
  }
};

}  // namespace talon
