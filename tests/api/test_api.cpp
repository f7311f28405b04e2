// The public API (talon/talon.h) as a host uses it: errors as values, worlds, steps, gradients.
// Only the public header is included here, as in a host.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <talon/talon.h>

namespace api = talon::api;

namespace {

std::string model_path(const char* file) {
  return std::string(TALON_MODELS_DIR) + "/" + file;
}

// Options that use the test suites' kernel cache (tests/runtime/runtime_fixtures.h), shared by
// test runs so that a second run compiles nothing.
api::Options test_options() {
  api::Options options;
  options.cache_directory =
      (std::filesystem::temp_directory_path() / "talon-test-kernel-cache").string();
  return options;
}

api::Simulator load(const char* file, const api::Options& options = test_options()) {
  api::Result<api::Simulator> sim = api::Simulator::load(model_path(file), options);
  INFO(sim.error().message);
  REQUIRE(sim.ok());
  return std::move(*sim);
}

bool mentions(const api::Error& error, const std::string& text) {
  return error.message.find(text) != std::string::npos;
}

}  // namespace

TEST_CASE("loading reports a missing file and bad options as errors", "[api]") {
  api::Result<api::Simulator> missing = api::Simulator::load("/no/such/robot.xml", test_options());
  REQUIRE_FALSE(missing.ok());
  CHECK(mentions(missing.error(), "robot.xml"));

  api::Options options = test_options();
  options.solver.newton_iterations = 0;
  options.solver.convergence_tolerance = -1;
  api::Result<api::Simulator> bad = api::Simulator::load(model_path("sphere_drop.xml"), options);
  REQUIRE_FALSE(bad.ok());
  CHECK(mentions(bad.error(), "newton_iterations must be in [1, 10000], not 0"));
  CHECK(mentions(bad.error(), "convergence_tolerance must be a positive number"));

  options = test_options();
  options.solver.adjoint_iterations = 8;  // a backward setting without a backward step
  CHECK_FALSE(api::Simulator::load(model_path("sphere_drop.xml"), options).ok());
}

TEST_CASE("a ball dropped in three worlds from three heights rests on the floor", "[api]") {
  const api::Simulator sim = load("sphere_drop.xml");
  CHECK(sim.name() == "sphere_drop");
  CHECK(sim.body_names() == std::vector<std::string>{"ball"});
  CHECK(sim.nq() == 7);
  CHECK(sim.nv() == 6);
  CHECK(sim.nctrl() == 0);
  CHECK(sim.timestep() == 0.01);
  CHECK_FALSE(sim.has_gradients());

  api::Worlds worlds = sim.make_worlds(3);
  REQUIRE(worlds.count() == 3);
  REQUIRE(worlds.q().size() == 21);
  for (int w = 0; w < 3; ++w) {
    std::vector<double> q(worlds.q().begin() + 7 * w, worlds.q().begin() + 7 * (w + 1));
    q[2] = 1.0 + 0.25 * w;
    REQUIRE(worlds.set_state(w, q, std::vector<double>(6)).ok());
  }
  // Mistakes a host can make come back as errors and change nothing.
  api::Status wrong_size = worlds.set_state(0, std::vector<double>(6), std::vector<double>(6));
  CHECK(mentions(wrong_size.error(), "the positions q of a world are 7 numbers, not 6"));
  CHECK(mentions(worlds.set_controls(3, {}).error(), "world 3 does not exist (there are 3)"));
  CHECK(mentions(sim.step(worlds, 0).error(), "h must be a positive number"));
  CHECK(mentions(sim.rollout(worlds, 0.01, -1).error(), "must not be negative"));
  CHECK(worlds.q()[2] == 1.0);

  int calls = 0;
  REQUIRE(sim.rollout(worlds, 0.01, 100, [&](int k, api::Worlds&) { calls += k == calls; }).ok());
  CHECK(calls == 100);
  const std::vector<api::WorldStatus> status = worlds.status();
  const std::vector<api::StepStatistics> stats = worlds.statistics();
  for (int w = 0; w < 3; ++w) {
    INFO("world " << w);
    CHECK(worlds.q()[7 * w + 2] == Approx(0.1).margin(1e-4));  // the ball's radius
    CHECK(status[w].ok());
    CHECK(stats[w].converged);
    CHECK(stats[w].substeps == 1);
    CHECK(stats[w].residual <= 1e-6);
  }
  api::Result<std::vector<double>> gaps = sim.min_contact_gaps(worlds);
  REQUIRE(gaps.ok());
  for (double gap : *gaps) CHECK(std::abs(gap) < 1e-4);
}

TEST_CASE("worlds and rollouts are refused by a simulator that did not make them", "[api]") {
  const api::Simulator first = load("sphere_drop.xml");
  const api::Simulator second = load("sphere_drop.xml");
  CHECK(second.from_cache());
  CHECK(second.cache_key() == first.cache_key());
  api::Worlds worlds = first.make_worlds(1);
  CHECK(mentions(second.step(worlds, 0.01).error(), "made by another Simulator"));
  CHECK(first.step(worlds, 0.01).ok());
  CHECK(mentions(first.record_rollout(worlds, 0.01, 2).error(), "Options::gradients"));
}

TEST_CASE("the gradient of a free fall's final height", "[api]") {
  // z_N = z_0 + h (v_1 + ... + v_N) with v_k = v_0 − k g h (backward Euler): ∂z_N/∂z_0 = 1 and
  // ∂z_N/∂v_0 = N h, before the ball reaches the floor.
  api::Options options = test_options();
  options.gradients = true;
  const api::Simulator sim = load("sphere_drop.xml", options);
  REQUIRE(sim.has_gradients());
  api::Worlds worlds = sim.make_worlds(2);
  api::Result<api::Rollout> rollout = sim.record_rollout(worlds, 0.01, 10);
  REQUIRE(rollout.ok());
  CHECK(rollout->steps() == 10);
  CHECK(rollout->final_q()[2] == Approx(1 - 9.81 * 0.01 * 0.01 * 55));  // Σ k = 55
  api::Result<api::Gradient> gradient =
      sim.backward(*rollout, [](int k, int, const double*, const double*, double* dq, double*) {
        if (k == 10) dq[2] += 1;  // L = z_N
      });
  INFO(gradient.error().message);
  REQUIRE(gradient.ok());
  for (int w = 0; w < 2; ++w) {
    CHECK(gradient->failed_step[w] == -1);
    CHECK(gradient->dq0[7 * w + 2] == Approx(1).epsilon(1e-9));
    CHECK(gradient->du0[6 * w + 2] == Approx(0.1).epsilon(1e-9));
    CHECK(gradient->du0[6 * w] == Approx(0).margin(1e-9));
  }
  const api::Simulator other = load("sphere_drop.xml", options);
  CHECK(mentions(other.backward(*rollout, {}).error(), "recorded by another Simulator"));
}
