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
