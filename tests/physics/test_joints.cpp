// Joints, limits and servos at large steps: a swinging hinge chain keeps its joints together,
// limits hold, a stiff position servo is stable at h = 0.1, a velocity servo follows its law.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <string>

#include "runtime/joint_state.h"
#include "runtime/runtime_fixtures.h"

namespace talon {
namespace {

// The largest distance between a hinge's anchor as the child and as the parent carry it.
double joint_drift(const Model& m, runtime::WorldBatch& w) {
  const auto q = w.q_of(0);
  auto frame = [&](int s) {
    if (s < 0) return Pose{};
    const Quat r(q[7 * s + 3], q[7 * s + 4], q[7 * s + 5], q[7 * s + 6]);
    const Vec3 com(q[7 * s], q[7 * s + 1], q[7 * s + 2]);
    return Pose{com - r * m.sim_com[s], r};
  };
  double drift = 0;
  for (int j = 0; j < m.njnt; ++j) {
    const int s = m.jnt_sim[j];
    const Vec3 child = frame(s).apply(m.jnt_pos[j]);
    const Vec3 parent = (frame(m.sim_parent[s]) * m.sim_pose_rel[s]).apply(m.jnt_pos[j]);
    drift = std::max(drift, (child - parent).norm());
  }
  return drift;
}

void set_joint_state(const Simulator& sim, runtime::WorldBatch& w, const std::vector<double>& qpos,
                     const std::vector<double>& qvel = {}) {
  Expected<runtime::MaximalState> s = runtime::maximal_from_joint(sim.model(), qpos, qvel);
  REQUIRE(s.ok());
  std::copy(s->q.begin(), s->q.end(), w.q_of(0).begin());
  std::copy(s->u.begin(), s->u.end(), w.u_of(0).begin());
  sim.reset_world(w, 0);
}

double joint_angle(const Simulator& sim, runtime::WorldBatch& w, int joint = 0) {
  const runtime::JointState js =
      runtime::joint_from_maximal(sim.model(), {w.q.begin(), w.q.end()}, {w.u.begin(), w.u.end()});
  return js.qpos[sim.model().jnt_qposadr[joint]];
}

double joint_rate(const Simulator& sim, runtime::WorldBatch& w, int joint = 0) {
  const runtime::JointState js =
      runtime::joint_from_maximal(sim.model(), {w.q.begin(), w.q.end()}, {w.u.begin(), w.u.end()});
  return js.qvel[sim.model().jnt_dofadr[joint]];
}

}  // namespace

TEST_CASE("a swinging hinge chain stays together at h = 0.1", "[physics][joints]") {
  const Simulator sim = testing::make_simulator(testing::shipped_model("double_pendulum.urdf"));
  runtime::WorldBatch w = sim.make_worlds(1);
  set_joint_state(sim, w, {std::numbers::pi / 2, 0.3});  // released from horizontal
  double drift = 0, lowest = INFINITY;
  for (int k = 0; k < 30; ++k) {
    sim.step(w, 0.1);
    REQUIRE(w.status[0] == runtime::kWorldOk);
    drift = std::max(drift, joint_drift(sim.model(), w));
    lowest = std::min(lowest, testing::com(w, 0, 1).z());
  }
  CHECK(drift < 1e-5);
  CHECK(lowest < 1.5);  // it swung down (from 2 m; the second link's COM hangs at 1.25 m)
}

TEST_CASE("joint limits hold", "[physics][joints]") {
  const double h = GENERATE(0.01, 0.1);
  INFO("h = " << h);
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(R"(
<mujoco model="limited">
  <compiler angle="degree"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" limited="true" range="-30 30"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/>
    </body>
  </worldbody>
</mujoco>)"));
  runtime::WorldBatch w = sim.make_worlds(1);
  set_joint_state(sim, w, {0}, {4});  // gravity and a push both drive it into the upper limit
  const double upper = 30 * std::numbers::pi / 180;
  double highest = -INFINITY;
  for (int k = 0; k < static_cast<int>(std::lround(2 / h)); ++k) {
    sim.step(w, h);
    REQUIRE(w.status[0] == runtime::kWorldOk);
    highest = std::max(highest, joint_angle(sim, w));
  }
  CHECK(highest < upper + 1e-3);
  CHECK(joint_angle(sim, w) == Approx(upper).margin(1e-3));  // resting on the limit
  CHECK(std::abs(joint_rate(sim, w)) < 1e-6);
}

TEST_CASE("a stiff position servo (kp = 1e6 on 10 g) is stable at h = 0.1", "[physics][servo]") {
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(R"(
<mujoco model="servo">
  <worldbody>
    <body name="link" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.01" mass="0.01"/>
    </body>
  </worldbody>
  <actuator><position name="servo" joint="hinge" kp="1e6"/></actuator>
</mujoco>)"));
  runtime::WorldBatch w = sim.make_worlds(1);
  w.ctrl_of(0)[0] = 0.5;
  double largest = 0;
  for (int k = 0; k < 20; ++k) {
    sim.step(w, 0.1);
    REQUIRE(w.status[0] == runtime::kWorldOk);
    largest = std::max(largest, std::abs(joint_angle(sim, w)));
  }
  CHECK(largest < 0.5 + 1e-3);  // no overshoot: the implicit law has none
  CHECK(joint_angle(sim, w) == Approx(0.5).margin(1e-6));  // gravity's sag: m g l/(2 kp) ≈ 5e-9
  CHECK(std::abs(joint_rate(sim, w)) < 1e-6);
}

// Each step is solved to the Newton tolerance τ (rad/s); the law contracts an earlier error
// by I/(I + h kv), so the rate stays within τ (I + h kv)/(h kv) of the exact recursion.
double servo_tolerance(double inertia, double h_kv) {
  return codegen::SolverOptions{}.convergence_tolerance * (inertia + h_kv) / h_kv;
}

TEST_CASE("a velocity servo follows its implicit law", "[physics][servo]") {
  // A disc (I = m r²/2 = 0.005 kg m²) on a vertical axis, kv = 2: each step solves
  // I (ω⁺ − ω⁻) = h kv (ω* − ω⁺), i.e. ω⁺ = (I ω⁻ + h kv ω*) / (I + h kv).
  const double h = GENERATE(0.01, 0.1);
  INFO("h = " << h);
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(testing::kSpinner));
  runtime::WorldBatch w = sim.make_worlds(1);
  const double inertia = 0.005, kv = 2;
  double omega = 0;
  for (int k = 0; k < 20; ++k) {
    const double target = k < 10 ? 3.0 : -2.0;
    w.ctrl_of(0)[0] = target;
    sim.step(w, h);
    REQUIRE(w.status[0] == runtime::kWorldOk);
    omega = (inertia * omega + h * kv * target) / (inertia + h * kv);
    CHECK(testing::angular_velocity(w, 0, 0).z() ==
          Approx(omega).margin(servo_tolerance(inertia, h * kv)));
  }
  CHECK(omega == Approx(-2).epsilon(1e-3));  // and it tracks the command
}

TEST_CASE("joint armature adds rotor inertia to the joint's motion", "[physics][servo]") {
  // The spinner with armature a = 0.015 on its hinge: the joint's inertia is I + a = 0.02, so
  // (I + a)(ω⁺ − ω⁻) = h kv (ω* − ω⁺) each step. The armature's own impulse −a(ω⁺ − ω⁻) is a
  // parameter of the step ("armature:spin"), like the servo's gain.
  const double h = GENERATE(0.01, 0.1);
  INFO("h = " << h);
  std::string xml = testing::kSpinner;
  xml.replace(xml.find("axis=\"0 0 1\""), 12, "axis=\"0 0 1\" armature=\"0.015\"");
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(xml));
  CHECK(testing::param_index(sim, "armature:spin") >= 0);
  runtime::WorldBatch w = sim.make_worlds(1);
  const double inertia = 0.005 + 0.015, kv = 2;
  double omega = 0;
  for (int k = 0; k < 20; ++k) {
    const double target = k < 10 ? 3.0 : -2.0;
    w.ctrl_of(0)[0] = target;
    sim.step(w, h);
    REQUIRE(w.status[0] == runtime::kWorldOk);
    omega = (inertia * omega + h * kv * target) / (inertia + h * kv);
    CHECK(testing::angular_velocity(w, 0, 0).z() ==
          Approx(omega).margin(servo_tolerance(inertia, h * kv)));
  }
}

}  // namespace talon
