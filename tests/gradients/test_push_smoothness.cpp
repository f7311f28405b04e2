// Issue #15's smoothness bar on a statically indeterminate scene (models/push_box.xml: a
// servo-driven pusher pushing a free box, friction at both contacts). Rigid, the floor's
// normal force under the box could take any value in an interval, and Newton picked one by
// accident: a 1 cm jump of the box for 0.1 % of control. With the compliances inside the
// step equations (docs/design.md, "The step equations") the step has one root, so the box's
// final position is a smooth function of the control, and the adjoint is its derivative.
#include "gradients/gradient_fixtures.h"

namespace talon {
namespace {

using testing::Input;
using testing::Rollout;

constexpr int kBox = 1;  // simulated body 0 is the pusher, 1 the box

Simulator push_box(const SimulatorOptions& options) {
  Simulator sim = testing::make_simulator(testing::shipped_model("push_box.xml"), options);
  REQUIRE(sim.model().sim_name[kBox] == "box");
  return sim;
}

}  // namespace

// Controls c − δ, c, c + δ (δ = 1e-3) for 1 s: the second difference of the box's final x is
// the curvature times δ², ~1e-6 × (a few m per unit of control²) for a smooth answer, and the
// size of the jump for one that is not.
TEST_CASE("the pushed box's final position is smooth in the control at h = 0.01, 0.05, 0.1",
          "[gradients][contact]") {
  const Simulator sim = push_box(testing::test_options());
  const double h = GENERATE(0.01, 0.05, 0.1);
  INFO("h = " << h);
  constexpr double kControl = 1.0, kDelta = 1e-3;
  runtime::WorldBatch w = sim.make_worlds(3);
  const int steps = static_cast<int>(std::lround(1.0 / h));
  sim.rollout(w, h, steps, [&](int, runtime::WorldBatch& worlds) {
    for (int i = 0; i < 3; ++i) worlds.ctrl_of(i)[0] = kControl + (i - 1) * kDelta;
  });
  double x[3];
  for (int i = 0; i < 3; ++i) {
    REQUIRE_FALSE(w.status[i] & runtime::kWorldFailed);
    x[i] = testing::com(w, i, kBox).x();
  }
  INFO("final box x: " << x[0] << " " << x[1] << " " << x[2]);
  CHECK(x[1] > 0.5);                          // it was pushed (about 0.9 m at 1 m/s for 1 s)
  CHECK(x[2] - x[1] > 0.5 * kDelta);          // a faster pusher pushes it farther
  CHECK(std::abs(x[2] - 2 * x[1] + x[0]) <= 1e-5);
}

// `talon gradcheck --steps 20` on the same scene: the adjoint against central differences
// with nudges of 1e-4 and 1e-6 (a jump in the rollout would show as a difference far off
// the adjoint at the small nudge).
TEST_CASE("the pushed box's rollout gradient matches differences of 1e-4 and 1e-6",
          "[gradients][contact]") {
  const Simulator sim = push_box(testing::gradient_options());
  const double epsilon = GENERATE(1e-4, 1e-6);
  INFO("finite-difference step " << epsilon);
  Rollout r;
  r.h = 0.05;
  r.steps = 20;
  r.controls = [](int, runtime::WorldBatch& w) {
    for (int i = 0; i < w.count; ++i) w.ctrl_of(i)[0] = 1.0;
  };
  r.wq.assign(14, 0.0);
  r.wq[7 * kBox] = 1;  // the box's final x
  std::vector<Input> inputs;
  for (int k : {0, 3, 7, 12, 19}) inputs.push_back({Input::Ctrl, 0, k, epsilon});
  inputs.push_back({Input::U0, 6 * kBox, 0, epsilon});  // the box's initial velocity along x
  const testing::Comparison c = testing::compare_gradients(sim, r, inputs);
  CHECK(c.cosine() >= 0.999);
  CHECK(c.max_relative_error(1e-3) <= 4e-3);
}

}  // namespace talon
