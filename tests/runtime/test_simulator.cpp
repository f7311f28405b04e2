// talon::Simulator: batched worlds (per-world controls, parameters and status), thread-count
// invariance, the kernel cache, and the step's return codes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "runtime/runtime_fixtures.h"

namespace talon {
namespace {

using testing::make_simulator;
using testing::param_index;

}  // namespace

TEST_CASE("a non-finite world is flagged and never disturbs the others", "[runtime][sim]") {
  const Simulator sim = make_simulator(testing::shipped_model("sliding_box.xml"));
  runtime::WorldBatch solo = sim.make_worlds(1);
  runtime::WorldBatch worlds = sim.make_worlds(3);
  for (runtime::WorldBatch* batch : {&solo, &worlds})
    for (int w = 0; w < batch->count; ++w) batch->u_of(w)[0] = 1.5;
  worlds.q_of(1)[2] = std::numeric_limits<double>::quiet_NaN();
  sim.rollout(solo, 0.02, 20);
  sim.rollout(worlds, 0.02, 20);
  CHECK((worlds.status[1] & runtime::kWorldNonFinite) != 0);
  CHECK(std::isnan(worlds.q_of(1)[2]));  // left as it was: no step ran on it
  for (int w : {0, 2}) {
    CHECK(worlds.status[w] == runtime::kWorldOk);
    for (int i = 0; i < worlds.nq; ++i) CHECK(worlds.q_of(w)[i] == solo.q_of(0)[i]);
  }
}

TEST_CASE("worlds take their own parameters and controls", "[runtime][sim]") {
  SECTION("friction per world") {
    const Simulator sim = make_simulator(testing::shipped_model("sliding_box.xml"));
    runtime::WorldBatch worlds = sim.make_worlds(2);
    for (int w = 0; w < 2; ++w) worlds.u_of(w)[0] = 2;
    // μ of a contact is the larger of its geoms' (MuJoCo's rule): change both.
    for (const char* geom : {"friction:floor", "friction:box"})
      worlds.params_of(1)[param_index(sim, geom)] = 0.25;
    sim.rollout(worlds, 0.01, 100);
    // Stopping distances v0²/(2μg) ≈ 0.408 m and 0.815 m (less h·v0/2 for backward Euler).
    CHECK(testing::com(worlds, 0, 0).x() == Approx(0.3978).margin(2e-3));
    CHECK(testing::com(worlds, 1, 0).x() == Approx(0.8055).margin(5e-3));
  }
  SECTION("controls per world") {
    const Simulator sim = make_simulator(testing::model_from_mjcf(testing::kSpinner));
    runtime::WorldBatch worlds = sim.make_worlds(2);
    worlds.ctrl_of(0)[0] = 3;
    worlds.ctrl_of(1)[0] = -5;
    sim.rollout(worlds, 0.01, 300);
    CHECK(testing::angular_velocity(worlds, 0, 0).z() == Approx(3).epsilon(1e-6));
    CHECK(testing::angular_velocity(worlds, 1, 0).z() == Approx(-5).epsilon(1e-6));
  }
}

TEST_CASE("results do not depend on the number of threads", "[runtime][sim]") {
  SimulatorOptions one = testing::test_options(), three = testing::test_options();
  one.threads = 1;
  three.threads = 3;
  const Simulator a = make_simulator(testing::shipped_model("sliding_box.xml"), one);
  const Simulator b = make_simulator(testing::shipped_model("sliding_box.xml"), three);
  runtime::WorldBatch wa = a.make_worlds(7), wb = b.make_worlds(7);
  for (int w = 0; w < 7; ++w) wa.u_of(w)[0] = wb.u_of(w)[0] = 0.3 * w;
  a.rollout(wa, 0.05, 10);
  b.rollout(wb, 0.05, 10);
  CHECK(wa.q == wb.q);
  CHECK(wa.u == wb.u);
}

// The sliding box launched at 2 m/s, one step of h = 0.1 (it converges without a split).
TEST_CASE("the Newton trace lists every iterate of a step and changes nothing", "[runtime][sim]") {
  SimulatorOptions traced_options = testing::test_options();
  traced_options.solver.trace_capacity = 200;
  const Simulator traced =
      make_simulator(testing::shipped_model("sliding_box.xml"), traced_options);
  const Simulator plain = make_simulator(testing::shipped_model("sliding_box.xml"));
  CHECK(traced.has_trace());
  CHECK_FALSE(plain.has_trace());
  runtime::WorldBatch a = traced.make_worlds(1), b = plain.make_worlds(1);
  a.u_of(0)[0] = b.u_of(0)[0] = 2;
  traced.set_trace(a, 0, true);
  traced.step(a, 0.1);
  plain.step(b, 0.1);
  CHECK(a.q == b.q);
  CHECK(a.u == b.u);

  const NewtonTrace trace = traced.newton_trace(a, 0);
  const std::span<const double> stats = a.stats_of(0);
  REQUIRE(stats[codegen::kStatSubsteps] == 1);
  // Iterates 0 .. K' of the one attempt, K' the Newton updates it made.
  REQUIRE(trace.iterates.size() == stats[codegen::kStatNewtonIterations] + 1);
  CHECK(trace.dropped == 0);
  int full_steps = 0;
  for (std::size_t i = 0; i < trace.iterates.size(); ++i) {
    const NewtonIterate& it = trace.iterates[i];
    CHECK(it.k == static_cast<int>(i));
    CHECK(it.h == 0.1);
    CHECK(it.body_linear.size() == 1);
    CHECK(it.block_residual.size() == traced.unit().block_names.size());
    // The update that reached it: an accepted step length and its direction's forcing term
    // (none for the initial guess).
    if (i == 0) {
      CHECK(it.step == 0);
      CHECK(it.forcing == 0);
    } else {
      CHECK(it.step > 0);
      CHECK(it.step <= 1);
      CHECK(it.forcing >= 0);
      CHECK(it.forcing < 1);
      full_steps += it.step == 1;
    }
  }
  CHECK(full_steps > 0);  // Newton's own steps near the root
  // The returned iterate is the traced one with the statistics' index, merit and blocks.
  const NewtonIterate& best = trace.iterates.at(static_cast<int>(stats[codegen::kStatBestIterate]));
  CHECK(best.merit == stats[codegen::kStatMerit]);
  for (std::size_t i = 0; i < best.block_residual.size(); ++i)
    CHECK(best.block_residual[i] == stats[codegen::kStatBlockResiduals + i]);
  // Its dynamics block is √(|M̃⁻¹ r_dyn|² summed over the body's linear and angular parts).
  CHECK(best.block_residual[0] ==
        Approx(std::hypot(best.body_linear[0], best.body_angular[0])).epsilon(1e-12));

  traced.set_trace(a, 0, false);
  traced.step(a, 0.1);
  CHECK(traced.newton_trace(a, 0).iterates.empty());
}

TEST_CASE("a Newton trace beyond its capacity keeps the first iterates", "[runtime][sim]") {
  SimulatorOptions options = testing::test_options();
  options.solver.trace_capacity = 2;
  const Simulator sim = make_simulator(testing::shipped_model("sliding_box.xml"), options);
  runtime::WorldBatch worlds = sim.make_worlds(1);
  worlds.u_of(0)[0] = 2;
  sim.set_trace(worlds, 0, true);
  sim.step(worlds, 0.1);
  const NewtonTrace trace = sim.newton_trace(worlds, 0);
  REQUIRE(trace.iterates.size() == 2);
  CHECK(trace.iterates[1].k == 1);
  CHECK(trace.dropped == worlds.stats_of(0)[codegen::kStatNewtonIterations] + 1 - 2);
}

// A ball 3 cm above the floor falling at 2 m/s lands within one step of 0.1 s. With the
// default budget Newton converges on that step without splitting it; with 3 updates it cannot,
// and the step falls back to substeps (counted). The fallback's answer is
// another discretisation (the landing resolved at h/2^k), O(h) away from the full step's.
TEST_CASE("a step that does not converge falls back to substeps, counted", "[runtime][sim]") {
  struct Result {
    double vz;
    double substeps;
    double newton;
    uint8_t status;
  };
  auto run = [](int newton_iterations) {
    SimulatorOptions options = testing::test_options();
    options.solver.newton_iterations = newton_iterations;
    options.solver.resolve_split_steps = false;  // keep the split's own answer
    const Simulator sim = make_simulator(testing::shipped_model("sphere_drop.xml"), options);
    runtime::WorldBatch w = sim.make_worlds(1);
    w.q_of(0)[2] = 0.13;
    w.u_of(0)[2] = -2;
    sim.step(w, 0.1);
    REQUIRE((w.status[0] & runtime::kWorldFailed) == 0);
    return Result{w.u_of(0)[2], w.stats_of(0)[codegen::kStatSubsteps],
                  w.stats_of(0)[codegen::kStatNewtonIterations], w.status[0]};
  };
  const Result full = run(codegen::SolverOptions{}.newton_iterations), split = run(3);
  CHECK(full.substeps == 1);
  CHECK(full.status == runtime::kWorldOk);
  CHECK(full.newton <= 8);
  CHECK(split.substeps > 1);
  CHECK(std::abs(split.vz - full.vz) < 0.5);
}

TEST_CASE("the kernel cache reuses compiled units", "[runtime][cache]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("talon-cache-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  SimulatorOptions options = testing::test_options();
  options.cache.directory = dir;
  {
    const Simulator first = make_simulator(testing::shipped_model("sphere_drop.xml"), options);
    CHECK_FALSE(first.library().from_cache());
    CHECK(first.library().path().parent_path() == dir);
    const Simulator second = make_simulator(testing::shipped_model("sphere_drop.xml"), options);
    CHECK(second.library().from_cache());
    CHECK(second.library().path() == first.library().path());
    // Different solver options are a different unit, so a different entry.
    options.solver.newton_iterations = 7;
    const Simulator third = make_simulator(testing::shipped_model("sphere_drop.xml"), options);
    CHECK_FALSE(third.library().from_cache());
    CHECK(third.library().path() != first.library().path());
  }
  SECTION("TALON_CACHE_DIR overrides the default location") {
    ::setenv("TALON_CACHE_DIR", dir.c_str(), 1);
    CHECK(runtime::default_cache_directory() == dir);
    ::unsetenv("TALON_CACHE_DIR");
    CHECK(runtime::default_cache_directory() != dir);
  }
  SECTION("without the cache the library lives in a private directory") {
    options.cache.enabled = false;
    const Simulator sim = make_simulator(testing::shipped_model("sphere_drop.xml"), options);
    CHECK_FALSE(sim.library().from_cache());
    CHECK(sim.library().path().parent_path() != dir);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a step with a bad h or a non-finite state fails cleanly", "[runtime][sim]") {
  const Simulator sim = make_simulator(testing::shipped_model("sphere_drop.xml"));
  runtime::WorldBatch worlds = sim.make_worlds(1);
  const std::vector<double> q0 = worlds.q;
  for (double h : {0.0, -0.01, std::numeric_limits<double>::infinity()}) {
    sim.step(worlds, h);
    CHECK(worlds.status[0] == runtime::kWorldBadStep);
    CHECK(worlds.q == q0);
  }
  worlds.u_of(0)[3] = std::numeric_limits<double>::infinity();
  sim.step(worlds, 0.01);
  CHECK(worlds.status[0] == runtime::kWorldNonFinite);
  worlds.u_of(0)[3] = 0;
  sim.step(worlds, 0.01);  // a non-finite world stays flagged until reset
  CHECK(worlds.q == q0);
  sim.reset_world(worlds, 0);
  sim.step(worlds, 0.01);
  CHECK(worlds.status[0] == runtime::kWorldOk);
  CHECK(worlds.q_of(0)[2] < q0[2]);  // it falls
}

}  // namespace talon
