// Lowering: servo rows from the implicit actuator law, motors and passive springs as forces.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "frontend/load.h"
#include "test_lower_support.h"

using namespace talon;
using namespace talon::lower_test;
using Catch::Matchers::WithinAbs;

namespace {

constexpr double kH = 0.02;

ActuatorSpec actuator(const std::string& name, int joint, ActuatorType type, double gear,
                      double gain, std::array<double, 3> bias) {
  ActuatorSpec a;
  a.name = name;
  a.origin = origin("<actuator name='" + name + "'>");
  a.type = type;
  a.joint = joint;
  a.gear = gear;
  a.gain = gain;
  a.bias = bias;
  return a;
}

// A pendulum under the world, hinge about y: a position servo (kp 10, kv 2), a velocity
// servo (kv 3), a motor (gear 5) and a spring (k 4, ref 0.1, damping 0.5).
ModelSpec pendulum() {
  ModelSpec spec;
  spec.name = "pendulum";
  const int link = add_box_body(spec, "link", -1, {0, 0, 1}, 1.0, {0.05, 0.05, 0.25}, false);
  spec.bodies[link].com = {0, 0, -0.25};
  const int j = add_joint(spec, "hinge", link, JointType::Hinge, Vec3::UnitY());
  spec.joints[j].stiffness = 4;
  spec.joints[j].springref = 0.1;
  spec.joints[j].damping = 0.5;
  spec.actuators.push_back(actuator("position", j, ActuatorType::Position, 1, 10, {0, -10, -2}));
  spec.actuators.push_back(actuator("velocity", j, ActuatorType::Velocity, 1, 3, {0, 0, -3}));
  spec.actuators.push_back(actuator("motor", j, ActuatorType::Motor, 5, 1, {0, 0, 0}));
  return spec;
}

Quat about_y(double angle) {
  return Quat(Eigen::AngleAxisd(angle, Vec3::UnitY()));
}

ir::KernelPoint swinging(const Model& model, const ir::ResidualProgram& prog, double theta,
                         double rate) {
  ir::KernelPoint p = rest_point(prog, kH);
  set_pose(model, p.q_minus, 0, Pose{model.sim_pose_world[0].pos, about_y(theta)});
  p.u_plus[4] = rate;
  p.ctrl = {0.2, -0.4, 0.3};
  return p;
}

}  // namespace

TEST_CASE("servos: position and velocity servos follow the implicit law at the step's end") {
  const Model model = compile(pendulum());
  const ir::ResidualProgram prog = lower(model);
  REQUIRE(prog.block("servo")->size() == 3);  // and the passive spring's row
  ir::KernelPoint p = swinging(model, prog, 0.3, 0.5);
  const int pos = find_row(prog, "servo 'position'"), vel = find_row(prog, "servo 'velocity'");
  p.lambda[pos] = 0.7;
  p.lambda[vel] = -0.2;
  const std::vector<double> r = output(prog, "residual", "r_con", p);
  // e = θ̇⁺ + k_p(θ⁻ − θ*)/(h k_p + k_v), α = 1/(h(h k_p + k_v)); θ̇⁺ = 0.5 exactly here.
  const double stiff = kH * 10 + 2;
  CHECK_THAT(r[pos], WithinAbs(0.5 + 10 * (0.3 - 0.2) / stiff + 0.7 / (kH * stiff), 1e-12));
  // Velocity: e = θ̇⁺ − θ̇*, α = 1/(h k_v).
  CHECK_THAT(r[vel], WithinAbs(0.5 - -0.4 + -0.2 / (kH * 3), 1e-12));
  CHECK(prog.rows[pos].actuator == 0);
  CHECK(prog.rows[pos].joint == 0);
}

TEST_CASE("servos: the servo impulse is a torque about the hinge axis") {
  const Model model = compile(pendulum());
  const ir::ResidualProgram prog = lower(model);
  ir::KernelPoint p = swinging(model, prog, 0.0, 0.0);
  p.ctrl = {0, 0, 0};
  const int pos = find_row(prog, "servo 'position'");
  const std::vector<double> before = output(prog, "residual", "r_dyn", p);
  p.lambda[pos] = 0.7;
  const std::vector<double> after = output(prog, "residual", "r_dyn", p);
  for (int i = 0; i < 6; ++i)
    CHECK_THAT(after[i] - before[i], WithinAbs(i == 4 ? -0.7 : 0.0, 1e-14));
}

TEST_CASE("servos: motors, and passive springs when asked, are explicit joint forces") {
  const Model model = compile(pendulum());
  const ir::ResidualProgram prog = lower(model, {.implicit_joint_springs = false});
  ir::KernelPoint p = swinging(model, prog, 0.3, 0.8);
  p.u_minus[4] = 0.8;  // u⁺ = u⁻: only the applied forces remain in r_dyn's angular rows
  const std::vector<double> r = output(prog, "residual", "r_dyn", p);
  const double torque = 5 * 0.3 - 4 * (0.3 - 0.1) - 0.5 * 0.8;
  CHECK_THAT(r[4], WithinAbs(-kH * torque, 1e-14));
  CHECK_THAT(r[3], WithinAbs(0, 1e-14));
  CHECK_THAT(r[5], WithinAbs(0, 1e-14));
}

TEST_CASE("servos: motor controls and forces are clamped to their ranges") {
  ModelSpec spec = pendulum();
  spec.actuators[2].ctrl_limited = true;
  spec.actuators[2].ctrl_lower = -0.1;
  spec.actuators[2].ctrl_upper = 0.1;
  const Model model = compile(spec);
  const ir::ResidualProgram prog = lower(model);
  ir::KernelPoint p = swinging(model, prog, 0.1, 0.0);  // spring torque −4·0 = 0 at θ = ref
  CHECK_THAT(output(prog, "residual", "r_dyn", p)[4], WithinAbs(-kH * 5 * 0.1, 1e-14));
}

TEST_CASE("servos: implicit passive springs become rows of the same law") {
  const Model model = compile(pendulum());
  ir::LowerOptions options;
  options.implicit_joint_springs = true;
  const ir::ResidualProgram prog = lower(model, options);
  REQUIRE(prog.block("servo")->size() == 3);
  ir::KernelPoint p = swinging(model, prog, 0.3, 0.5);
  const int spring = find_row(prog, "spring 'hinge'");
  p.lambda[spring] = 0.1;
  const double stiff = kH * 4 + 0.5;
  CHECK_THAT(output(prog, "residual", "r_con", p)[spring],
             WithinAbs(0.5 + 4 * (0.3 - 0.1) / stiff + 0.1 / (kH * stiff), 1e-12));
  // No explicit spring force remains: only the motor's torque.
  p.u_plus[4] = 0;
  p.lambda.assign(prog.nrows, 0.0);
  CHECK_THAT(output(prog, "residual", "r_dyn", p)[4], WithinAbs(-kH * 5 * 0.3, 1e-14));
}

TEST_CASE("servos: actuators on ball joints are unsupported") {
  ModelSpec spec;
  spec.name = "ball_motor";
  const int link = add_box_body(spec, "link", -1, {0, 0, 1}, 1.0, {0.05, 0.05, 0.25}, false);
  const int j = add_joint(spec, "ball", link, JointType::Ball);
  spec.actuators.push_back(actuator("m", j, ActuatorType::Motor, 1, 1, {0, 0, 0}));
  Expected<ir::ResidualProgram> prog = ir::lower_model(compile(spec));
  REQUIRE_FALSE(prog.ok());
  CHECK_THAT(prog.diagnostics().format(),
             Catch::Matchers::Contains("unsupported:") && Catch::Matchers::Contains("ball joint"));
}

// Regression: the Model's servo bias already holds one gear factor (b₁ = −g·k_p), so the
// lowering must multiply by g once more, not twice. MuJoCo's law for <position gear="g">:
// force = k_p(ctrl − gθ), torque = g·force, i.e. K_p = g²k_p and τ₀ = g·k_p·ctrl.
TEST_CASE("servos: a position servo with gear 3 has stiffness g²k_p (gear counted once)") {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("talon_gear_servo_" + std::to_string(::getpid()) + ".xml");
  std::ofstream(path) << R"(<mujoco model="geared">
  <worldbody>
    <body name="link" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05" mass="1"/>
    </body>
  </worldbody>
  <actuator>
    <position name="servo" joint="hinge" gear="3" kp="10"/>
  </actuator>
</mujoco>
)";
  Expected<Model> model = load_model(path.string());
  std::filesystem::remove(path);
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  const ir::ResidualProgram prog = lower(*model);
  REQUIRE(prog.block("servo")->size() == 1);
  const int row = find_row(prog, "servo 'servo'");

  // θ⁻ = 0.3, θ̇⁺ = 0.5, ctrl 0.2, λ 0.7.
  ir::KernelPoint p = rest_point(prog, kH);
  set_pose(*model, p.q_minus, 0, Pose{model->sim_pose_world[0].pos, about_y(0.3)});
  p.u_plus[4] = 0.5;
  p.ctrl = {0.2};
  p.lambda[row] = 0.7;
  // K_d = 0: e = θ̇⁺ + (K_pθ⁻ − τ₀)/(hK_p), α = 1/(h²K_p).
  const double stiffness = 3 * 3 * 10, torque0 = 3 * 10 * 0.2;
  const double expected =
      0.5 + (stiffness * 0.3 - torque0) / (kH * stiffness) + 0.7 / (kH * kH * stiffness);
  CHECK_THAT(output(prog, "residual", "r_con", p)[row], WithinAbs(expected, 1e-12));

  // The row's impulse is the joint torque impulse itself: no gear factor on the coupling.
  const std::vector<double> with_impulse = output(prog, "residual", "r_dyn", p);
  p.lambda[row] = 0;
  const std::vector<double> without = output(prog, "residual", "r_dyn", p);
  CHECK_THAT(with_impulse[4] - without[4], WithinAbs(-0.7, 1e-14));
}
