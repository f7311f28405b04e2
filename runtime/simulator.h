// talon::Simulator: load a model, lower it, generate its model unit, compile it (CPU backend:
// clang's frontend in process and ORC, or the system C compiler, through the on-disk kernel
// cache: runtime/kernel_cache.h) and step batches of worlds on a thread pool.
//
//   Expected<Simulator> sim = talon::load("robot.xml");
//   runtime::WorldBatch worlds = sim->make_worlds(1024);
//   sim->rollout(worlds, 0.05, 100);
//
// Worlds are independent: per-world controls and parameters, per-world status (a NaN in one
// world flags that world only).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/model_unit.h"
#include "frontend/load.h"
#include "ir/lower/lower.h"
#include "runtime/kernel_cache.h"
#include "runtime/model_library.h"
#include "runtime/param_overrides.h"
#include "runtime/rollout_gradient.h"
#include "runtime/thread_pool.h"
#include "runtime/world_batch.h"

namespace talon {

// The lowering options Talon steps models with (`talon simulate` and `talon compile` alike):
// the defaults plus ε_c = 1e-6 on Fischer–Burmeister rows. Four box corners resting on a
// plane make the Schur matrix singular up to the FB smoothing (four rows, three DOF); PCR
// then finds huge null-space impulses in the rounding of an inconsistent right-hand side
// (a resting box at h = 0.2 jumped in tests/physics). ε_c bounds the smallest eigenvalue;
// it enters only the linearisation (c_diag), so the fixed point is unchanged. Likewise
// ε_t = 1e-3 on friction rows: two sticking points on one wheel rim constrain the same slip
// twice, and without it the three-wheeler's internal friction impulses grew without bound.
ir::LowerOptions default_lower_options();

// One Newton iterate of a traced step (Simulator::newton_trace).
struct NewtonIterate {
  double h = 0;        // the attempt's step size: h or a substep
  int k = 0;           // 0 = the initial guess
  double merit = 0;    // (m/s)²
  double step = 0;     // the line search's α for the update that reached it (0 for k = 0)
  double forcing = 0;  // that update's direction: its relative linear residual η (0 for k = 0)
  std::vector<double> block_residual;             // ModelUnit::block_names order
  std::vector<double> body_linear, body_angular;  // |M̃⁻¹ r_dyn| per body (m/s, rad/s)
};

// Every Newton iterate of every attempt of one step, in order: a split step lists its failed
// attempt at h, then its substeps' attempts.
struct NewtonTrace {
  std::vector<NewtonIterate> iterates;
  int dropped = 0;  // iterates beyond the unit's trace capacity (not kept)
};

// The adjoint FGMRES iterations per cycle of units built to differentiate, by default.
constexpr int kDefaultAdjointIterations = 32;

// The solver rollout gradients are taken with unless told otherwise (`talon gradient` and
// talon::api's Options::gradients): a forward converged with K = 32 Newton updates (a gradient
// is only as good as the forward's convergence) and the backward step. One definition, so the
// command and the API build the same unit, found under the same kernel cache key.
codegen::SolverOptions gradient_solver_options();

struct SimulatorOptions {
  // fold_params = true gives faster code but no per-world θ.
  ir::LowerOptions lower = default_lower_options();
  codegen::SolverOptions solver;
  runtime::KernelCacheOptions cache;
  // Threads that step the worlds, and that build the unit unless cache.build_jobs says
  // otherwise; 0: one per hardware thread.
  int threads = 0;
  // Parameters set by name (runtime/param_overrides.h): the values every world starts with.
  std::vector<runtime::ParamOverride> param_overrides;
};

class Simulator {
 public:
  static Expected<Simulator> create(Model model, const SimulatorOptions& options = {});

  const Model& model() const { return *model_; }
  const ir::ResidualProgram& program() const { return *program_; }
  const codegen::ModelUnit& unit() const { return unit_; }
  const runtime::ModelLibrary& library() const { return *library_; }
  int nq() const { return unit_.nq; }
  int nv() const { return unit_.nv; }
  int nctrl() const { return unit_.nctrl; }
  int nparam() const { return unit_.nparam; }
  // θ every world starts with: the model's values and SimulatorOptions::param_overrides.
  const std::vector<double>& default_params() const { return default_params_; }
  double lower_seconds() const { return lower_seconds_; }

  // `count` worlds at the model's reference pose, at rest, zero controls, default parameters.
  runtime::WorldBatch make_worlds(int count) const;
  // Clears world w's status and warm start (after the caller changed its state).
  void reset_world(runtime::WorldBatch& worlds, int w) const;
  // One step of h for every world not flagged non-finite.
  void step(runtime::WorldBatch& worlds, double h) const;
  // `steps` steps; before_step(k, worlds) runs before step k (set controls there).
  void rollout(runtime::WorldBatch& worlds, double h, int steps,
               const std::function<void(int, runtime::WorldBatch&)>& before_step = {}) const;
  // Signed contact gaps of world w after its last step (m; negative = penetration), one per
  // contact slot (ModelUnit::ncontacts).
  std::vector<double> contact_gaps(runtime::WorldBatch& worlds, int w) const;
  // World w's constraint impulses of its last step (N·s, ResidualProgram::rows order).
  std::vector<double> impulses(runtime::WorldBatch& worlds, int w) const;
  // The smallest contact gap of every world after its last step (m; +inf without contacts or
  // for a non-finite world), computed on the thread pool.
  std::vector<double> min_contact_gaps(runtime::WorldBatch& worlds) const;

  // The Newton trace (the unit needs SolverOptions::trace_capacity > 0): while it is on for
  // world w, each step of w records its iterates; newton_trace returns the last step's.
  bool has_trace() const { return library_->has_trace(); }
  void set_trace(runtime::WorldBatch& worlds, int w, bool on) const;
  NewtonTrace newton_trace(runtime::WorldBatch& worlds, int w) const;
  // Gradients (runtime/rollout_gradient.h; the unit needs SolverOptions::adjoint_iterations
  // > 0). record_rollout steps like rollout() and keeps the tape; checkpoint_every = k stores
  // every k-th state only (k ≥ 1).
  bool has_backward() const { return library_->has_backward(); }
  RolloutTape record_rollout(runtime::WorldBatch& worlds, double h, int steps,
                             const ControlSchedule& before_step = {},
                             int checkpoint_every = 1) const;
  // The reverse sweep over the tape: L's cotangents come from `loss` (called at every state,
  // the final one first). Errors only when the unit has no backward step.
  Expected<RolloutGradient> rollout_backward(const RolloutTape& tape,
                                             const StateCotangent& loss) const;

 private:
  Simulator() = default;

  std::unique_ptr<Model> model_;
  std::unique_ptr<ir::ResidualProgram> program_;
  codegen::ModelUnit unit_;
  std::unique_ptr<runtime::ModelLibrary> library_;
  std::unique_ptr<runtime::ThreadPool> pool_;
  std::vector<double> initial_q_, default_params_;
  double lower_seconds_ = 0;
};

// Reads (URDF or MJCF) and compiles the model, then creates its Simulator.
Expected<Simulator> load(const std::string& path, const SimulatorOptions& options = {},
                         const LoadOptions& load_options = {});

}  // namespace talon
