// Lowering: state layout, kinematics (q⁺) and the dynamics rows of a free body.
#include <cmath>

#include "ir/interpreter.h"
#include "ir/passes/derivative.h"
#include "test_lower_support.h"

using namespace talon;
using namespace talon::lower_test;
using Catch::Matchers::WithinAbs;

namespace {

// A free box (2 kg, half-sizes 0.1 x 0.2 x 0.3) whose centre of mass is off its frame origin.
Model free_box() {
  ModelSpec spec;
  spec.name = "free_box";
  const int box = add_box_body(spec, "box", -1, {0, 0, 1}, 2.0, {0.1, 0.2, 0.3}, false);
  spec.bodies[box].com = {0.05, -0.02, 0.01};
  add_joint(spec, "root", box, JointType::Free);
  return compile(spec);
}

Quat test_orientation() {
  return Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized())).normalized();
}

ir::KernelPoint moving_point(const Model& model, const ir::ResidualProgram& prog) {
  ir::KernelPoint p = rest_point(prog, 0.05);
  set_pose(model, p.q_minus, 0, Pose{{0.1, 0.2, 1.0}, test_orientation()});
  p.u_minus = {0.5, -0.1, 0.2, 0.3, -0.4, 0.8};
  p.u_plus = {0.3, -0.2, 0.1, 1.0, 2.0, -0.5};
  return p;
}

}  // namespace

TEST_CASE("lowering: state layout of a free body has no constraint rows") {
  const Model model = free_box();
  const ir::ResidualProgram prog = lower(model);
  CHECK(prog.nsim == 1);
  CHECK(prog.nrows == 0);
  CHECK(prog.q_minus.size() == 7);
  CHECK(prog.u_plus.size() == 6);
  // Mass and the six inertia entries are parameters with the Model's values.
  REQUIRE(prog.params.size() == 7);
  CHECK(prog.param_info[0].name == "mass:box");
  CHECK(prog.param_info[0].value == 2.0);
  CHECK(prog.reference_q[2] == Approx(1.01));  // COM, not the frame origin
  const ir::ResidualProgram folded = lower(model, {.fold_params = true});
  CHECK(folded.params.empty());
  CHECK(folded.param_info.size() == 7);
}

TEST_CASE("lowering: q_plus is x + h v and the exponential map of h omega") {
  const Model model = free_box();
  const ir::ResidualProgram prog = lower(model);
  const ir::KernelPoint p = moving_point(model, prog);
  const std::vector<double> q = output(prog, "residual", "q_plus", p);
  for (int i = 0; i < 3; ++i) CHECK_THAT(q[i], WithinAbs(p.q_minus[i] + p.h * p.u_plus[i], 1e-15));
  const Vec3 omega(p.u_plus[3], p.u_plus[4], p.u_plus[5]);
  const Quat expected =
      Quat(Eigen::AngleAxisd(p.h * omega.norm(), omega.normalized())) * test_orientation();
  CHECK_THAT(q[3], WithinAbs(expected.w(), 1e-14));
  CHECK_THAT(q[4], WithinAbs(expected.x(), 1e-14));
  CHECK_THAT(q[5], WithinAbs(expected.y(), 1e-14));
  CHECK_THAT(q[6], WithinAbs(expected.z(), 1e-14));
}

TEST_CASE("lowering: the exponential map is exact on both sides of its Taylor switch") {
  const Model model = free_box();
  const ir::ResidualProgram prog = lower(model);
  ir::KernelPoint p = moving_point(model, prog);
  // |hω/2|² = 1e-4 is the switch: probe just below and above it.
  for (double half_angle : {0.99e-2, 1.01e-2, 1e-7}) {
    const double w = 2 * half_angle / p.h;
    p.u_plus = {0, 0, 0, 0, w, 0};
    const std::vector<double> q = output(prog, "residual", "q_plus", p);
    const Quat expected =
        Quat(Eigen::AngleAxisd(2 * half_angle, Vec3::UnitY())) * test_orientation();
    CHECK_THAT(q[3], WithinAbs(expected.w(), 1e-15));
    CHECK_THAT(q[5], WithinAbs(expected.y(), 1e-15));
  }
}

TEST_CASE("lowering: q_plus is differentiable at omega = 0 with the analytic derivative") {
  const Model model = free_box();
  // Unrolled: the program's own q⁺ expressions are differentiated here (with body templates
  // they are the body template's, lowered by the same build_state).
  const ir::ResidualProgram prog = lower_unrolled(model);
  const ir::Kernel& residual = prog.kernel("residual");
  const ir::Slice* slice = residual.output("q_plus");
  const std::vector<ir::Expr> quat(residual.function.outputs.begin() + slice->offset + 3,
                                   residual.function.outputs.begin() + slice->offset + 7);
  const std::vector<ir::Expr> omega(prog.u_plus.begin() + 3, prog.u_plus.end());
  const ir::SparseJacobian jac = ir::jacobian(quat, omega);
  ir::Function f{"dquat_domega", residual.function.inputs, jac.value};
  ir::KernelPoint p = moving_point(model, prog);
  for (int i = 3; i < 6; ++i) p.u_plus[i] = 0;
  const std::vector<double> values = ir::evaluate(f, p.base());
  // d quat⁺ / dω at ω = 0 is (h/2) (0, e_k) ⊗ quat⁻.
  const Quat q0 = test_orientation();
  double dense[4][3] = {};
  for (std::size_t e = 0; e < values.size(); ++e) dense[jac.row[e]][jac.col[e]] = values[e];
  for (int k = 0; k < 3; ++k) {
    Vec3 axis = Vec3::Zero();
    axis[k] = 1;
    const Quat d = Quat(0, axis.x(), axis.y(), axis.z()) * q0;
    CHECK_THAT(dense[0][k], WithinAbs(p.h / 2 * d.w(), 1e-14));
    CHECK_THAT(dense[1][k], WithinAbs(p.h / 2 * d.x(), 1e-14));
    CHECK_THAT(dense[2][k], WithinAbs(p.h / 2 * d.y(), 1e-14));
    CHECK_THAT(dense[3][k], WithinAbs(p.h / 2 * d.z(), 1e-14));
  }
}

TEST_CASE("lowering: free fall solves the dynamics rows exactly") {
  const Model model = free_box();
  const ir::ResidualProgram prog = lower(model);
  ir::KernelPoint p = moving_point(model, prog);
  p.u_minus = {0.5, -0.1, 0.2, 0, 0, 0};
  p.u_plus = p.u_minus;
  p.u_plus[2] += p.h * -9.81;
  for (double r : output(prog, "residual", "r_dyn", p)) CHECK_THAT(r, WithinAbs(0, 1e-14));
}

// The gyroscopic torque at ω⁺ (implicit; ir/lower/dynamics.cpp says why) with I_w at q⁻.
TEST_CASE("lowering: dynamics rows carry M(u+ - u-) and the implicit gyroscopic torque") {
  const Model model = free_box();
  const ir::ResidualProgram prog = lower(model);
  const ir::KernelPoint p = moving_point(model, prog);
  const std::vector<double> r = output(prog, "residual", "r_dyn", p);
  const Mat3 rot = test_orientation().toRotationMatrix();
  const Mat3 inertia = rot * model.sim_inertia[0] * rot.transpose();
  const Vec3 w_minus(p.u_minus[3], p.u_minus[4], p.u_minus[5]);
  const Vec3 w_plus(p.u_plus[3], p.u_plus[4], p.u_plus[5]);
  const Vec3 expected_ang = inertia * (w_plus - w_minus) + p.h * w_plus.cross(inertia * w_plus);
  for (int i = 0; i < 3; ++i) {
    const double lin = 2.0 * (p.u_plus[i] - p.u_minus[i]) - p.h * 2.0 * model.gravity[i];
    CHECK_THAT(r[i], WithinAbs(lin, 1e-14));
    CHECK_THAT(r[3 + i], WithinAbs(expected_ang[i], 1e-14));
  }
}

TEST_CASE("lowering: the mass kernel gives M, its inverse and u_tilde") {
  const Model model = free_box();
  const ir::ResidualProgram prog = lower(model);
  const ir::KernelPoint p = moving_point(model, prog);
  const std::vector<double> mass = output(prog, "mass", "mass", p);
  REQUIRE(mass.size() == 20);
  const Mat3 rot = test_orientation().toRotationMatrix();
  const Mat3 inertia = rot * model.sim_inertia[0] * rot.transpose();
  const Mat3 inverse = inertia.inverse();
  CHECK(mass[0] == Approx(2.0));
  CHECK(mass[7] == Approx(0.5));
  const int sym[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  for (int k = 0; k < 6; ++k) {
    CHECK_THAT(mass[1 + k], WithinAbs(inertia(sym[k][0], sym[k][1]), 1e-14));
    CHECK_THAT(mass[8 + k], WithinAbs(inverse(sym[k][0], sym[k][1]), 1e-10));
  }
  const Vec3 w(p.u_minus[3], p.u_minus[4], p.u_minus[5]);
  const Vec3 w_tilde = w;  // no torque but the gyroscopic one, which is at ω⁺ (not in ũ)
  for (int i = 0; i < 3; ++i) {
    CHECK_THAT(mass[14 + i], WithinAbs(p.u_minus[i] + p.h * model.gravity[i], 1e-14));
    CHECK_THAT(mass[17 + i], WithinAbs(w_tilde[i], 1e-12));
  }
}
