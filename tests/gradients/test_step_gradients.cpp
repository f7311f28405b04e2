// Single-step gradients (the backward step, codegen/solver/talon_adjoint.h) against central
// differences: an impulsive contact, a sliding box (the frozen-W shortcut's failure case),
// the wheeled robot's sticking wheels, a sliding wheel.
#include "gradients/gradient_fixtures.h"

namespace talon {
namespace {

using testing::Input;
using testing::param_index;
using testing::Rollout;

// The loss picks one entry of the final state; one rollout per picked entry.
std::vector<Rollout> one_entry_losses(const Rollout& base, const std::vector<int>& q_entries,
                                      const std::vector<int>& u_entries, int nq, int nv) {
  std::vector<Rollout> out;
  for (int i : q_entries) {
    Rollout r = base;
    r.wq.assign(nq, 0.0);
    r.wq[i] = 1;
    out.push_back(r);
  }
  for (int i : u_entries) {
    Rollout r = base;
    r.wu.assign(nv, 0.0);
    r.wu[i] = 1;
    out.push_back(r);
  }
  return out;
}

}  // namespace

TEST_CASE("gradients: a ball hitting the floor within the step, to 1e-6", "[gradients]") {
  const Simulator sim = testing::make_simulator(testing::shipped_model("sphere_drop.xml"),
                                                testing::gradient_options());
  REQUIRE(sim.has_backward());
  Rollout base;
  base.h = 0.1;
  base.steps = 1;
  // 5 cm above the floor at 2 m/s down and 1 m/s sideways: it lands 25 ms into the step,
  // and friction turns the sliding into rolling within it.
  base.initial = [](runtime::WorldBatch& w, int i) {
    w.q_of(i)[2] = 0.15;
    w.u_of(i)[0] = 1;
    w.u_of(i)[2] = -2;
  };
  std::vector<Input> inputs = testing::state_inputs(1);
  inputs.push_back({Input::Param, param_index(sim, "mass:ball")});
  for (const Rollout& r : one_entry_losses(base, {0, 1, 2}, {0, 1, 2, 3, 4, 5}, 7, 6)) {
    const testing::Comparison c = testing::compare_gradients(sim, r, inputs);
    CHECK(c.max_relative_error(1e-2) < 1e-6);  // measured (TALON_TEST_VERBOSE=1): 3.1e-8
  }
}

TEST_CASE("gradients: a box sliding at 2 m/s keeps dv+/dv- = 1 (the frozen-W shortcut gives 0.755)",
          "[gradients]") {
  const Simulator sim = testing::make_simulator(testing::shipped_model("sliding_box.xml"),
                                                testing::gradient_options());
  const double h = GENERATE(0.01, 0.1);
  INFO("h = " << h);
  Rollout r;
  r.h = h;
  r.steps = 1;
  const int box_friction = param_index(sim, "friction:box");
  r.initial = [&](runtime::WorldBatch& w, int i) {
    w.u_of(i)[0] = 2;
    w.params_of(i)[box_friction] = 0.3;  // the floor's 0.5 acts (away from max's kink)
  };
  r.wu = {1, 0, 0, 0, 0, 0};
  const std::vector<Input> inputs = {{Input::U0, 0},
                                     {Input::U0, 2},
                                     {Input::Param, param_index(sim, "mass:box")},
                                     {Input::Param, param_index(sim, "friction:floor")}};
  const testing::Comparison c = testing::compare_gradients(sim, r, inputs);
  // Sliding: v⁺ = v⁻ − μ g h for rigid contact, so dv⁺/dv⁻ = 1, dv⁺/dμ = −g h, independent of
  // the mass. The compliant contact (κ_n) lets the box, placed at zero gap, sink during the step,
  // which takes m g h κ/(1 + κ) off the normal impulse: the closed forms hold to 2κ relative
  // (the differences below check the adjoint itself).
  const double kappa = ir::LowerOptions{}.contact_compliance;
  CHECK(c.adjoint[0] == Approx(1).epsilon(1e-6));
  CHECK(c.adjoint[2] == Approx(0).margin(2 * kappa * 9.81 * h));
  CHECK(c.adjoint[3] == Approx(-9.81 * h).epsilon(2 * kappa));
  CHECK(c.max_relative_error(1e-2) < 1e-6);  // measured: 2.4e-8
}

TEST_CASE("gradients: the wheeled robot's sticking wheels at h = 0.1, to 2e-6", "[gradients]") {
  const Simulator sim = testing::wheeled_robot_for_differences();
  // Driving straight at 2 rad/s (reached over ten steps): both wheels roll without slipping.
  Rollout base;
  base.h = 0.1;
  base.steps = 11;
  base.controls = [](int k, runtime::WorldBatch& w) {
    for (int i = 0; i < w.count; ++i)
      for (double& c : w.ctrl_of(i)) c = 0.2 * std::min(k + 1, 10);
  };
  // The last step's gradients with respect to the state before it would need the state as an
  // input; the whole rollout's gradient with respect to the last step's controls and the
  // gains is the one-step check (the state before the last step is the same in every world).
  std::vector<Input> inputs = {{Input::Ctrl, 0, 10}, {Input::Ctrl, 1, 10}};
  inputs.push_back({Input::Param, param_index(sim, "gain:left_motor")});
  inputs.push_back({Input::Param, param_index(sim, "mass:base_link")});
  inputs.push_back({Input::Param, param_index(sim, "gain:right_motor")});
  // Every wheel DOF: the wheels' velocities and angular velocities (bodies 1 and 2).
  std::vector<int> wheel_dofs;
  for (int i = 6; i < 18; ++i) wheel_dofs.push_back(i);
  for (const Rollout& r : one_entry_losses(base, {}, wheel_dofs, 21, 18)) {
    const testing::Comparison c = testing::compare_gradients(sim, r, inputs);
    CHECK(c.max_relative_error(1e-2) < 2e-6);  // measured: at most 5.6e-7
  }
}

// The sliding wheel's forward converged to 1e-13, not gradient_options()' 1e-11: the
// differences see the step's stopping error over δ. Since the gyroscopic torque is implicit
// (ir/lower/dynamics.cpp; the wheel turns 2 rad in the step) the last update stops less far
// past 1e-11, and the differences moved 2.4e-6–6.2e-6 relative off the adjoint, which did not
// move (the same to the digit with its own tolerance 1e-13 instead of 1e-8).
namespace {
SimulatorOptions sliding_wheel_options() {
  SimulatorOptions options = testing::gradient_options();
  options.solver.convergence_tolerance = 1e-13;
  return options;
}
}  // namespace

// A free wheel (the robot's: radius 0.08 m, half-width 0.02 m, 0.5 kg) standing on the floor
// and spinning at 20 rad/s: its rim slips at 1.6 m/s, and at μ = 0.3 it still slips at the end
// of a 0.1 s step (friction changes v by μgh = 0.29 m/s and ωr by 0.59 m/s). The robot's own
// wheels only slide while its steps split (issue #4), so the sliding wheel stands alone.
TEST_CASE("gradients: a sliding wheel at h = 0.1, every wheel DOF to 1e-6", "[gradients]") {
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(R"(
<mujoco model="sliding_wheel">
  <option timestep="0.1"/>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1" friction="0.3"/>
    <body name="wheel" pos="0 0 0.08">
      <freejoint/>
      <geom name="wheel" type="cylinder" size="0.08 0.02" euler="90 0 0" mass="0.5"
            friction="0.2"/>
    </body>
  </worldbody>
</mujoco>)"),
                                                sliding_wheel_options());
  Rollout base;
  base.h = 0.1;
  base.steps = 1;
  base.initial = [](runtime::WorldBatch& w, int i) { w.u_of(i)[4] = 20; };
  std::vector<Input> inputs = testing::state_inputs(1);
  inputs.push_back({Input::Param, param_index(sim, "mass:wheel")});
  inputs.push_back({Input::Param, param_index(sim, "friction:floor")});  // the pair's μ (max)
  for (const Rollout& r : one_entry_losses(base, {0, 1, 2}, {0, 1, 2, 3, 4, 5}, 7, 6)) {
    const testing::Comparison c = testing::compare_gradients(sim, r, inputs);
    CHECK(c.max_relative_error(1e-2) < 1e-6);  // measured: at most 8.9e-8
  }
  // Still sliding at the end of the step: the contact point's velocity v + ω × (−r ẑ) =
  // v_x − rω_y is −(1.6 − μgh (1 + m r²/I)) = −0.72 m/s (Coulomb friction at μ m g all step).
  runtime::WorldBatch w = sim.make_worlds(1);
  w.u_of(0)[4] = 20;
  sim.step(w, 0.1);
  const double slip = w.u_of(0)[0] - 0.08 * w.u_of(0)[4];
  const double coulomb = 0.3 * 9.81 * 0.1 * (1 + 0.5 * 0.08 * 0.08 / 0.0016);
  // To the compliant contact's share 2κ of the Coulomb impulse (the wheel sinks in the step).
  CHECK_THAT(slip, Catch::Matchers::WithinAbs(-(1.6 - coulomb),
                                              2 * ir::LowerOptions{}.contact_compliance * coulomb));
}

}  // namespace talon
