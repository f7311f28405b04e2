// The Newton/PCR settings `talon simulate` and `talon compile` share (codegen/solver/
// talon_newton.h); defaults are codegen::SolverOptions'.
#include "cli/commands.h"
#include "cli/usage.h"

namespace talon::cli {

void add_solver_args(CLI::App& command, codegen::SolverOptions& solver) {
  const char* group = "Solver";
  command
      .add_option("--newton-iterations", solver.newton_iterations,
                  "Newton updates per step at most (K)")
      ->check(CLI::Range(1, 10000))
      ->group(group)
      ->capture_default_str();
  command
      .add_option("--pcr-iterations", solver.pcr_iterations,
                  "Conjugate-residual iterations per preconditioner solve at most")
      ->check(CLI::Range(1, 100000))
      ->group(group)
      ->capture_default_str();
  command
      .add_option("--krylov-iterations", solver.krylov_iterations,
                  "FGMRES iterations per Newton direction at most (exact Jacobian)")
      ->check(CLI::Range(1, 1000))
      ->group(group)
      ->capture_default_str();
  command
      .add_option("--krylov-tolerance", solver.krylov_tolerance,
                  "FGMRES stops at min(this, |F|^1/2) times the Newton residual (forcing term)")
      ->check(positive_number())
      ->group(group)
      ->capture_default_str();
  command
      .add_option("--dense-rows", solver.dense_rows,
                  "Factor the preconditioner's Schur system (Cholesky) when at most this many"
                  " rows are coupled, else PCR (0: always PCR)")
      ->check(CLI::Range(0, 4096))
      ->group(group)
      ->capture_default_str();
  command
      .add_option("--convergence-tolerance", solver.convergence_tolerance,
                  "Newton stops once the step's residual is below this (m/s)")
      ->check(positive_number())
      ->group(group)
      ->capture_default_str();
  command
      .add_option("--max-substep-depth", solver.max_substep_depth,
                  "Halvings of a step whose Newton iteration does not converge (0: never)")
      ->check(CLI::Range(0, 8))
      ->group(group)
      ->capture_default_str();
  command
      .add_option("--resolve-split-steps", solver.resolve_split_steps,
                  "After a split, solve the whole step again from the split's end and keep"
                  " that root when it converges (true/false)")
      ->group(group)
      ->capture_default_str();
  command
      .add_option("--broadphase", solver.broadphase,
                  "Skip the contact pairs whose bounding volumes cannot meet within the step"
                  " (their rows are set to no impulse); the answer is the same to the"
                  " convergence tolerance (true/false)")
      ->group(group)
      ->capture_default_str();
  command
      .add_option("--line-search-steps", solver.line_search_steps,
                  "Halvings of a Newton direction until the residual falls enough (Armijo)")
      ->check(CLI::Range(0, 60))
      ->group(group)
      ->capture_default_str();
}

void add_adjoint_args(CLI::App& command, codegen::SolverOptions& solver) {
  const char* group = "Backward step";
  command
      .add_option("--adjoint-iterations", solver.adjoint_iterations,
                  "FGMRES iterations per cycle of the backward step's transposed solve"
                  " (0: no backward step)")
      ->check(CLI::Range(0, 1000))
      ->group(group)
      ->capture_default_str();
  command
      .add_option("--adjoint-tolerance", solver.adjoint_tolerance,
                  "Relative residual the backward step's solve stops at")
      ->check(positive_number())
      ->group(group)
      ->capture_default_str();
}

}  // namespace talon::cli
