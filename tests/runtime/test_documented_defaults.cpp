// The defaults README.md and docs/ (solver_options.md, cli.md, design.md) state, asserted where
// they are defined: a change of a default fails here until the documentation says the new
// value (issue #18: every number in the README is asserted by a test or points to
// bench/RESULTS.md).
#include <catch2/catch.hpp>

#include "ir/lower/gradcheck.h"
#include "runtime/kernel_cache_entries.h"
#include "runtime/runtime_fixtures.h"

namespace talon {

TEST_CASE("the solver defaults are docs/solver_options.md's", "[runtime][docs]") {
  const codegen::SolverOptions solver;
  CHECK(solver.newton_iterations == 16);
  CHECK(solver.pcr_iterations == 64);
  CHECK(solver.krylov_iterations == 16);
  CHECK(solver.krylov_tolerance == 1e-3);
  CHECK(solver.dense_rows == 512);
  CHECK(solver.line_search_steps == 10);
  CHECK(solver.convergence_tolerance == 1e-6);
  CHECK(solver.max_substep_depth == 5);  // the finest substep h/32
  CHECK(solver.resolve_split_steps);
  CHECK(solver.broadphase);
  CHECK(solver.divergence_tolerance == 1.0);  // "a finest substep still above 1 m/s fails"
  // `talon gradient` and the API's gradients: K = 32, PCR 64.
  const codegen::SolverOptions gradient = gradient_solver_options();
  CHECK(gradient.newton_iterations == 32);
  CHECK(gradient.pcr_iterations == 64);
}

TEST_CASE("the compliances are docs/solver_options.md's and docs/design.md's", "[runtime][docs]") {
  const ir::LowerOptions lower = default_lower_options();
  CHECK(lower.contact_compliance == 1e-4);
  CHECK(lower.limit_compliance == 1e-4);
  CHECK(lower.friction_compliance == 1e-6);
  CHECK(lower.joint_compliance == 0);
}

TEST_CASE("the kernel cache's cap and grace are docs/cli.md's", "[runtime][docs][cache]") {
  CHECK(runtime::kDefaultCacheMaxMegabytes == 1024);  // 1 GiB
  CHECK(runtime::kEvictionGrace == std::chrono::minutes(1));
}

TEST_CASE("gradcheck --kernels compares entries as docs/cli.md says", "[runtime][docs]") {
  const ir::GradcheckOptions gradcheck;
  CHECK(gradcheck.floor_fraction == 1e-3);  // "1e-3 of the largest entry of its column"
}

}  // namespace talon
