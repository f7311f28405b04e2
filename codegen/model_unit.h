// The model unit: one translation unit that steps one model — its kernels (rendered from the
// ResidualProgram), its constants, the solver loops (codegen/solver/) and a small public API.
//
// C target: freestanding C99 (only <math.h>; no heap, no stdio; fixed-size arrays sized here),
// compiling cleanly with `-std=c99 -pedantic -Wall -Wextra -Werror`. The API, with NAME the
// symbol prefix and NAME_real double (f64) or float (f32):
//   NAME_NQ = 7·bodies, NAME_NV = 6·bodies, NAME_NCTRL, NAME_NPARAM, NAME_NROWS, ...
//   NAME_workspace                 every array a step needs (allocate it statically if you like)
//   void NAME_initial_state(NAME_real q[], NAME_real u[])   reference pose, zero velocity
//   void NAME_default_params(NAME_real params[])            the model's θ
//   void NAME_workspace_init(NAME_workspace* ws)            forget the warm start
//   int  NAME_step(q, u, ctrl, h, ws)                      advances in place; 0 = success
//   int  NAME_step_params(q, u, ctrl, params, h, ws)        the same with per-call θ
//   void NAME_step_statistics(const NAME_workspace*, NAME_real out[NAME_NSTATS])
//   void NAME_impulses(const NAME_workspace*, NAME_real out[NAME_NROWS])  the last step's λ
//   void NAME_contact_gaps(NAME_workspace*, NAME_real gaps[NAME_NCONTACTS])
//   long NAME_workspace_size(void)
//   void NAME_set_trace(ws, on), int NAME_trace(ws, out)   the Newton trace, in units
//                                                          generated with a trace capacity
// q per body: x, y, z (world position of its centre of mass), qw, qx, qy, qz (orientation of
// its frame); u per body: v (COM velocity), ω (angular velocity), both in the world frame.
// The header lists the bodies, controls, parameters and row blocks in order.
//
// CUDA target: the same text with TALON_CALLABLE = __device__ and batched entry points
//   extern "C" __global__ void NAME_step_batch(q, u, ctrl, params, h, ws, status, count)
//   NAME_step_backward_batch(q, u, ctrl, params, h, warm, dq, du, dctrl, dparams, ws, status,
//   count) (with the backward step), NAME_reset_batch(ws, count) and
//   NAME_contact_gaps_batch(ws, gaps, count)
// (world-major arrays, one thread per world; params may be null: the model's values), for
// NVRTC (codegen/nvrtc_compiler.h); `talon compile --target cuda` writes it and its PTX.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codegen/c_style.h"
#include "common/expected.h"
#include "frontend/model.h"
#include "ir/lower/lower.h"
#include "ir/lower/program.h"

namespace talon::codegen {

// The Newton + PCR loop's settings (docs/design.md, "The Newton iteration"), compiled into the
// unit.
struct SolverOptions {
  // The step's Newton iteration (codegen/solver/talon_newton.h): F(z) = [r_dyn; r_con] = 0
  // for z = (u⁺, λ), directions from the exact Jacobian by FGMRES preconditioned with the
  // frozen-W Schur step, a (non-monotone) Armijo line search on ‖L F‖², stop at the tolerance.
  int newton_iterations = 16;  // K: Newton updates at most
  // Operator applications per preconditioner solve at most. The FGMRES directions are only as
  // good as the frozen step PCR approximates: truncated at 16, the three-wheeler's drive onto
  // the obstacle (77 rows) stalled at a wheel's edge contact and split 8 of 30 steps; solved
  // to the tolerance (64), none.
  int pcr_iterations = 64;
  double pcr_tolerance = 1e-12;  // a PCR solve stops when ‖r‖ ≤ this · ‖r₀‖ (scaled residuals)
  // The preconditioner's Schur system is factored (Cholesky, codegen/solver/talon_dense.h)
  // instead of solved by PCR when at most this many of its rows are coupled: PCR's residual
  // leaves the compliance-fixed modes unresolved, and on MuJoCo's humanoid the direct solve
  // halves the Newton updates per step (bench/RESULTS.md, twenty-second session). Its factor
  // takes n(n+1)/2 values of the workspace (n = min(this, the rows)); 0: always PCR.
  int dense_rows = 512;
  // The step converged when ‖L F‖ ≤ this (m/s; L = diag(M̃⁻¹, I) puts every row in velocity
  // units), or ≤ 4 ε (|q|/h + |u|) where that round-off floor is higher (f32:
  // codegen/solver/talon_convergence.h); the iteration stops there. Otherwise
  // NAME_stats.converged = 0.
  double convergence_tolerance = 1e-6;
  bool warm_start = true;  // iterate 0: the better of the previous step's impulses and 0
  // FGMRES iterations per Newton direction at most (≥ 1); each stops earlier once its
  // residual is at most η ‖L F‖, η = min(krylov_tolerance, ‖L F‖^½) (the forcing term). A
  // residual norm hides the error along the Jacobian's small eigenvalues (the
  // compliance-fixed modes, ~κ_t of the others): with Eisenstat–Walker's min(0.1, ‖L F‖^½)
  // the humanoid's Newton updates crawled along them and cycled at friction cones; a cap of
  // 1e-2 still split 5 % of its steps, 1e-3 to 1e-9 gave the same counts (bench/RESULTS.md,
  // twenty-second session).
  int krylov_iterations = 16;
  double krylov_tolerance = 1e-3;
  // Trust region: one Newton update turns no body's end-of-step orientation by more than this
  // (rad, h·|Δω|): the line search starts from that fraction of the direction.
  double max_rotation = 0.5;
  // Line search: a direction is halved at most this many times until ‖L F‖² falls below the
  // largest of the last few merits by Armijo's sufficient decrease; a direction that never
  // does ends the iteration.
  int line_search_steps = 10;
  // A step whose Newton iteration did not converge is retried as two half steps, at most this
  // many times nested (the finest substep is h / 2^depth); 0 = never split. A fallback, counted
  // in NAME_stats.substeps (bench/scenes.sh reports how often each scene needs it).
  int max_substep_depth = 5;
  // After a split, the whole step is solved once more at h from the split's end state; when
  // that converges it is the step's answer (the root of the full step's equations, the same
  // function of the data whether or not the step needed splitting, so finite differences
  // across a split agree with the adjoint). The split then only found the root's basin: still
  // needed where Newton does not converge from the warm start at full h (the three-wheeler's
  // wheels dropping off the obstacle, bench/RESULTS.md).
  bool resolve_split_steps = true;
  // Broadphase: a contact pair (other than a terrain's) whose bounding volumes cannot meet
  // by the step's end is not evaluated; its rows are set to their root there, no
  // impulse (codegen/model_unit_broadphase.cpp). The step's answer is the same (to the
  // convergence tolerance): on MuJoCo's humanoid most of its 161 pairs are apart at any time.
  bool broadphase = true;
  // A finest substep still unconverged with ‖L F‖ above this (m/s) fails the step
  // (NAME_STEP_DIVERGED, state unchanged) instead of returning a garbage iterate.
  double divergence_tolerance = 1.0;
  // > 0: the unit also gets the backward step (NAME_step_backward, codegen/solver/
  // talon_adjoint.h), whose transposed exact system is solved by FGMRES with this many
  // iterations per cycle, restarted at most adjoint_restarts times, until the residual is
  // below adjoint_tolerance relative to the right-hand side. 0: no backward (smaller code).
  int adjoint_iterations = 0;
  int adjoint_restarts = 8;
  double adjoint_tolerance = 1e-8;
  // > 0: the unit can record every Newton iterate of a step (NAME_set_trace, NAME_trace), up
  // to this many per step: to see why a step did not converge. 0: no trace (no code, no
  // workspace memory).
  int trace_capacity = 0;
};

enum class UnitTarget { C, Cuda };

struct ModelUnitOptions {
  std::string name = "model";  // symbol prefix NAME: a C identifier
  ir::CPrecision precision = ir::CPrecision::Double;
  UnitTarget target = UnitTarget::C;
  SolverOptions solver;
  // C target, f64: the kernels kept as IR (ModelUnit::kernels) and only declared in the text,
  // for a build that compiles them from the IR (codegen/unit_compiler.h: the runtime's
  // in-process build). The text alone is then not the whole unit.
  bool kernels_from_ir = false;
};

struct ModelUnit {
  std::string name;
  std::string header;  // NAME.h (C target; empty for CUDA)
  std::string source;  // NAME.c / the CUDA text: self-contained (it embeds the header)
  int nq = 0, nv = 0, nctrl = 0, nparam = 0, nrows = 0;
  int ncontacts = 0;                        // contact normal rows (NAME_contact_gaps)
  int nstats = 0;                           // values of NAME_step_statistics
  int trace_capacity = 0, trace_width = 0;  // NAME_trace: entries per step, values per entry
  std::vector<std::string> block_names;     // residual blocks, "dynamics" first
  // With ModelUnitOptions::kernels_from_ir: the kernels the text declares, each defining
  // kernel_prefix + its name (of the program's graph: they live as long
  // as the ResidualProgram the unit was generated from).
  std::vector<ir::Function> kernels;
  std::string kernel_prefix;
};

// `lower` as a unit with `solver` needs it: without a backward step (adjoint_iterations = 0)
// the unit calls no reverse-sweep kernels, and they are not lowered
// (ir::LowerOptions::backward_kernels).
ir::LowerOptions unit_lower_options(ir::LowerOptions lower, const SolverOptions& solver);

// Errors (diagnostics) when the name is not a usable C identifier or the program's kernels do
// not have the layout the loops expect.
Expected<ModelUnit> generate_model_unit(const Model& model, const ir::ResidualProgram& program,
                                        const ModelUnitOptions& options = {});

// Indices into NAME_step_statistics' output.
enum StepStatistic {
  kStatNewtonIterations = 0,  // Newton updates performed
  kStatBestIterate = 1,       // index of the returned iterate (0 = initial guess)
  kStatPcrIterations = 2,     // PCR iterations summed over the updates
  kStatConverged = 3,         // 1 when √merit ≤ the step's bar (convergence_tolerance, or
                              // its round-off floor in f32: talon_convergence.h)
  kStatMerit = 4,             // merit of the returned iterate ((m/s)²)
  kStatSubsteps = 5,          // substeps taken (1 = the step was not split)
  kStatBlockResiduals = 6,    // then one √Σ squares per block (block_names order)
};

// Indices into one entry of NAME_trace (an iterate of one attempt of a step).
enum TraceValue {
  kTraceH = 0,               // the attempt's step size (h, or a substep of it)
  kTraceIterate = 1,         // k (0 = the initial guess)
  kTraceMerit = 2,           // the iterate's merit ((m/s)²)
  kTraceStep = 3,            // the step length α that reached it (0: an attempt's start)
  kTraceForcing = 4,         // that direction's relative linear residual η (0: a start)
  kTraceBlockResiduals = 5,  // then √Σ squares per block (block_names order), then per body
                             // |M̃⁻¹ r_dyn| of its linear and of its angular part
};

}  // namespace talon::codegen
