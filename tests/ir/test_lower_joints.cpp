// Lowering: bilateral joint rows and joint coordinates on hand-computed configurations.
//
// With u⁺ = 0 the end-of-step pose equals q⁻, so r_con = c(q⁻)/h for joint rows (λ = 0).
// Joint angles are read through position servos with k_v = 0 and ctrl = 0, whose rows are
// e = θ⁻·k_p/(h·k_p) = θ⁻/h at u⁺ = 0.
#include <cmath>
#include <fstream>

#include "frontend/load.h"
#include "skip.h"

#include "test_lower_support.h"

using namespace talon;
using namespace talon::lower_test;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;

namespace {

constexpr double kH = 0.01;

void add_angle_probe(ModelSpec& spec, int joint) {
  ActuatorSpec act;
  act.name = "probe_" + spec.joints[joint].name;
  act.origin = origin("<position>");
  act.type = ActuatorType::Position;
  act.joint = joint;
  act.gain = 10;
  act.bias = {0, -10, 0};
  spec.actuators.push_back(act);
}

// One body under the world at (0, 0, 1) with the given joints; the body's COM is off its
// frame origin so that COM and frame conversions are exercised.
struct JointModel {
  ModelSpec spec;
  int body = -1;
};

JointModel one_body() {
  JointModel m;
  m.spec.name = "joints";
  m.body = add_box_body(m.spec, "link", -1, {0, 0, 1}, 1.5, {0.05, 0.06, 0.25}, false);
  m.spec.bodies[m.body].com = {0.01, 0.02, -0.2};
  return m;
}

std::vector<double> joint_rows(const ir::ResidualProgram& prog, const ir::KernelPoint& p) {
  const std::vector<double> r = output(prog, "residual", "r_con", p);
  const ir::RowBlock* block = prog.block("joint");
  return std::vector<double>(r.begin() + block->begin - prog.ndyn(),
                             r.begin() + block->end - prog.ndyn());
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// θ of every probed joint, in actuator order.
std::vector<double> probed_angles(const ir::ResidualProgram& prog, const ir::KernelPoint& p) {
  const std::vector<double> r = output(prog, "residual", "r_con", p);
  std::vector<double> out;
  for (int i = 0; i < prog.nrows; ++i)
    if (prog.rows[i].kind == ir::RowKind::Servo) out.push_back(r[i] * p.h);
  return out;
}

// The world pose of a body rotated by `rotation` about the world point `pivot`, starting
// from the frame `reference`.
Pose rotated_about(const Pose& reference, const Vec3& pivot, const Quat& rotation) {
  return {pivot + rotation * (reference.pos - pivot), rotation * reference.quat};
}

Quat about(const Vec3& axis, double angle) {
  return Quat(Eigen::AngleAxisd(angle, axis.normalized()));
}

}  // namespace

TEST_CASE("lowering: hinge rows vanish along the hinge and measure drift") {
  JointModel jm = one_body();
  const Vec3 anchor(0, 0, 0.1);
  const int j = add_joint(jm.spec, "knee", jm.body, JointType::Hinge, Vec3::UnitY(), anchor);
  add_angle_probe(jm.spec, j);
  const Model model = compile(jm.spec);
  const ir::ResidualProgram prog = lower(model);
  REQUIRE(prog.block("joint")->size() == 5);
  ir::KernelPoint p = rest_point(prog, kH);
  CHECK(max_abs(joint_rows(prog, p)) < 1e-14);
  CHECK_THAT(probed_angles(prog, p)[0], WithinAbs(0, 1e-14));

  const Pose reference = model.sim_pose_world[0];
  const Vec3 pivot = reference.apply(anchor);
  set_pose(model, p.q_minus, 0, rotated_about(reference, pivot, about(Vec3::UnitY(), 0.7)));
  CHECK(max_abs(joint_rows(prog, p)) < 1e-13);
  CHECK_THAT(probed_angles(prog, p)[0], WithinAbs(0.7, 1e-12));

  // A translation d: anchor rows d/h, axis rows 0.
  const Vec3 d(0.01, -0.02, 0.03);
  set_pose(model, p.q_minus, 0, Pose{reference.pos + d, reference.quat});
  const std::vector<double> rows = joint_rows(prog, p);
  const int ax = find_row(prog, "anchor x");
  for (int i = 0; i < 3; ++i) CHECK_THAT(rows[ax + i], WithinAbs(d[i] / kH, 1e-12));
  CHECK_THAT(rows[find_row(prog, "axis 1")], WithinAbs(0, 1e-13));

  // A tilt φ about x through the anchor: the axis rows measure sin φ.
  const double phi = 0.1;
  set_pose(model, p.q_minus, 0, rotated_about(reference, pivot, about(Vec3::UnitX(), phi)));
  const std::vector<double> tilted = joint_rows(prog, p);
  const double a1 = tilted[find_row(prog, "axis 1")], a2 = tilted[find_row(prog, "axis 2")];
  CHECK_THAT(std::hypot(a1, a2), WithinAbs(std::sin(phi) / kH, 1e-12));
  CHECK_THAT(
      tilted[ax] * tilted[ax] + tilted[ax + 1] * tilted[ax + 1] + tilted[ax + 2] * tilted[ax + 2],
      WithinAbs(0, 1e-20));
}

TEST_CASE("lowering: hinge angles use the joint's ref and cover more than half a turn") {
  JointModel jm = one_body();
  const int j = add_joint(jm.spec, "wheel", jm.body, JointType::Hinge, Vec3::UnitY());
  jm.spec.joints[j].ref = 0.25;
  add_angle_probe(jm.spec, j);
  const Model model = compile(jm.spec);
  const ir::ResidualProgram prog = lower(model);
  ir::KernelPoint p = rest_point(prog, kH);
  const Pose reference = model.sim_pose_world[0];
  for (double angle : {0.0, -1.2, 2.9, 3.5, -4.0}) {
    set_pose(model, p.q_minus, 0,
             rotated_about(reference, reference.pos, about(Vec3::UnitY(), angle)));
    CHECK_THAT(probed_angles(prog, p)[0], WithinAbs(0.25 + angle, 1e-12));
  }
}

TEST_CASE("lowering: slide rows keep the orientation and the perpendicular position") {
  JointModel jm = one_body();
  add_joint(jm.spec, "rail", jm.body, JointType::Slide, Vec3(1, 1, 0));
  const Model model = compile(jm.spec);
  const ir::ResidualProgram prog = lower(model);
  REQUIRE(prog.block("joint")->size() == 5);
  ir::KernelPoint p = rest_point(prog, kH);
  const Pose reference = model.sim_pose_world[0];
  set_pose(model, p.q_minus, 0, Pose{reference.pos + Vec3(0.3, 0.3, 0), reference.quat});
  CHECK(max_abs(joint_rows(prog, p)) < 1e-13);
  // Off the axis by δ ⟂: the two normal rows have norm δ/h.
  set_pose(model, p.q_minus, 0, Pose{reference.pos + Vec3(0.3, 0.3, 0.02), reference.quat});
  const std::vector<double> rows = joint_rows(prog, p);
  const double n1 = rows[find_row(prog, "slide normal 1")],
               n2 = rows[find_row(prog, "slide normal 2")];
  CHECK_THAT(std::hypot(n1, n2), WithinAbs(0.02 / kH, 1e-12));
  // A rotation by φ about z: rotation rows 2 sin(φ/2) ẑ / h.
  const double phi = 0.2;
  set_pose(model, p.q_minus, 0, rotated_about(reference, reference.pos, about(Vec3::UnitZ(), phi)));
  const std::vector<double> turned = joint_rows(prog, p);
  CHECK_THAT(turned[find_row(prog, "rotation z")], WithinAbs(2 * std::sin(phi / 2) / kH, 1e-12));
  CHECK_THAT(turned[find_row(prog, "rotation x")], WithinAbs(0, 1e-12));
}

TEST_CASE("lowering: ball rows keep the anchor and allow any rotation about it") {
  JointModel jm = one_body();
  const Vec3 anchor(0.02, 0, 0.05);
  add_joint(jm.spec, "shoulder", jm.body, JointType::Ball, Vec3::UnitZ(), anchor);
  const Model model = compile(jm.spec);
  const ir::ResidualProgram prog = lower(model);
  REQUIRE(prog.block("joint")->size() == 3);
  ir::KernelPoint p = rest_point(prog, kH);
  const Pose reference = model.sim_pose_world[0];
  set_pose(model, p.q_minus, 0,
           rotated_about(reference, reference.apply(anchor), about(Vec3(1, -2, 0.5), 1.1)));
  CHECK(max_abs(joint_rows(prog, p)) < 1e-13);
}

TEST_CASE("lowering: two hinges sharing an anchor give a universal joint with Euler angles") {
  JointModel jm = one_body();
  const Vec3 anchor(0, 0, 0.065);
  const int z = add_joint(jm.spec, "abdomen_z", jm.body, JointType::Hinge, Vec3::UnitZ(), anchor);
  const int y = add_joint(jm.spec, "abdomen_y", jm.body, JointType::Hinge, Vec3::UnitY(), anchor);
  add_angle_probe(jm.spec, z);
  add_angle_probe(jm.spec, y);
  const Model model = compile(jm.spec);
  const ir::ResidualProgram prog = lower(model);
  REQUIRE(prog.block("joint")->size() == 4);  // 3 anchor + 1 universal
  ir::KernelPoint p = rest_point(prog, kH);
  const Pose reference = model.sim_pose_world[0];
  const Quat r = about(Vec3::UnitZ(), 0.4) * about(Vec3::UnitY(), -0.3);
  set_pose(model, p.q_minus, 0, rotated_about(reference, reference.apply(anchor), r));
  CHECK(max_abs(joint_rows(prog, p)) < 1e-13);
  const std::vector<double> angles = probed_angles(prog, p);
  CHECK_THAT(angles[0], WithinAbs(0.4, 1e-12));
  CHECK_THAT(angles[1], WithinAbs(-0.3, 1e-12));
  // A rotation about x (not reachable) violates the universal row by sin φ.
  set_pose(model, p.q_minus, 0,
           rotated_about(reference, reference.apply(anchor), about(Vec3::UnitX(), 0.05)));
  CHECK_THAT(std::abs(joint_rows(prog, p)[find_row(prog, "universal")]),
             WithinAbs(std::sin(0.05) / kH, 1e-12));
}

TEST_CASE("lowering: three orthogonal hinges decompose into their Euler angles") {
  JointModel jm = one_body();
  // The humanoid's hip order: x, z, y (a₃ = −(a₁ × a₂)).
  const Vec3 axes[3] = {Vec3::UnitX(), Vec3::UnitZ(), Vec3::UnitY()};
  for (int k = 0; k < 3; ++k)
    add_angle_probe(
        jm.spec, add_joint(jm.spec, "hip" + std::to_string(k), jm.body, JointType::Hinge, axes[k]));
  const Model model = compile(jm.spec);
  const ir::ResidualProgram prog = lower(model);
  REQUIRE(prog.block("joint")->size() == 3);
  ir::KernelPoint p = rest_point(prog, kH);
  const Pose reference = model.sim_pose_world[0];
  const double theta[3] = {0.3, -0.5, 0.8};
  const Quat r = about(axes[0], theta[0]) * about(axes[1], theta[1]) * about(axes[2], theta[2]);
  set_pose(model, p.q_minus, 0, rotated_about(reference, reference.pos, r));
  CHECK(max_abs(joint_rows(prog, p)) < 1e-13);
  const std::vector<double> angles = probed_angles(prog, p);
  for (int k = 0; k < 3; ++k) CHECK_THAT(angles[k], WithinAbs(theta[k], 1e-12));
}

TEST_CASE("lowering: two hinges with different anchors (humanoid ankle) follow MuJoCo's chain") {
  JointModel jm = one_body();
  const Vec3 p1(0, 0, 0.08), p2(0, 0, 0.04), a1 = Vec3::UnitY(), a2 = Vec3(1, 0, 0.5).normalized();
  const int j1 = add_joint(jm.spec, "ankle_y", jm.body, JointType::Hinge, a1, p1);
  const int j2 = add_joint(jm.spec, "ankle_x", jm.body, JointType::Hinge, Vec3(1, 0, 0.5), p2);
  add_angle_probe(jm.spec, j1);
  add_angle_probe(jm.spec, j2);
  const Model model = compile(jm.spec);
  const ir::ResidualProgram prog = lower(model);
  REQUIRE(prog.block("joint")->size() == 4);  // 3 anchor offset + 1 universal
  ir::KernelPoint p = rest_point(prog, kH);
  // mj_kinematics: rotate about anchor 1, then about anchor 2 in the rotated frame.
  const Pose reference = model.sim_pose_world[0];
  const double t1 = 0.6, t2 = -0.35;
  const Quat q1 = reference.quat * about(a1, t1);
  const Vec3 pos1 = reference.apply(p1) - q1 * p1;
  const Vec3 anchor2 = pos1 + q1 * p2;
  const Quat q2 = q1 * about(a2, t2);
  set_pose(model, p.q_minus, 0, Pose{anchor2 - q2 * p2, q2});
  CHECK(max_abs(joint_rows(prog, p)) < 1e-13);
  const std::vector<double> angles = probed_angles(prog, p);
  CHECK_THAT(angles[0], WithinAbs(t1, 1e-12));
  CHECK_THAT(angles[1], WithinAbs(t2, 1e-12));
}

TEST_CASE("lowering: slides then a hinge (planar root) constrain the rest") {
  JointModel jm = one_body();
  add_joint(jm.spec, "rootx", jm.body, JointType::Slide, Vec3::UnitX());
  add_joint(jm.spec, "rootz", jm.body, JointType::Slide, Vec3::UnitZ());
  add_angle_probe(jm.spec, add_joint(jm.spec, "rooty", jm.body, JointType::Hinge, Vec3::UnitY()));
  const Model model = compile(jm.spec);
  const ir::ResidualProgram prog = lower(model);
  REQUIRE(prog.block("joint")->size() == 3);  // 2 axis + 1 position (y)
  ir::KernelPoint p = rest_point(prog, kH);
  const Pose reference = model.sim_pose_world[0];
  const Pose moved = rotated_about(Pose{reference.pos + Vec3(0.4, 0, -0.2), reference.quat},
                                   reference.pos + Vec3(0.4, 0, -0.2), about(Vec3::UnitY(), 1.0));
  set_pose(model, p.q_minus, 0, moved);
  CHECK(max_abs(joint_rows(prog, p)) < 1e-13);
  CHECK_THAT(probed_angles(prog, p)[0], WithinAbs(1.0, 1e-12));
  set_pose(model, p.q_minus, 0, Pose{reference.pos + Vec3(0, 0.03, 0), reference.quat});
  CHECK_THAT(std::abs(joint_rows(prog, p)[find_row(prog, "slide normal 1")]),
             WithinAbs(0.03 / kH, 1e-12));
}

TEST_CASE("lowering: unsupported joint combinations are errors naming the body") {
  JointModel jm = one_body();
  add_joint(jm.spec, "a", jm.body, JointType::Hinge, Vec3::UnitX());
  add_joint(jm.spec, "b", jm.body, JointType::Hinge, Vec3(1, 1, 0));
  Expected<ir::ResidualProgram> skewed = ir::lower_model(compile(jm.spec));
  REQUIRE_FALSE(skewed.ok());
  CHECK_THAT(skewed.diagnostics().format(),
             Contains("unsupported:") && Contains("'link'") && Contains("non-orthogonal"));

  JointModel interleaved = one_body();
  add_joint(interleaved.spec, "s1", interleaved.body, JointType::Slide, Vec3::UnitX());
  add_joint(interleaved.spec, "h", interleaved.body, JointType::Hinge, Vec3::UnitY());
  add_joint(interleaved.spec, "s2", interleaved.body, JointType::Slide, Vec3::UnitZ());
  Expected<ir::ResidualProgram> bad = ir::lower_model(compile(interleaved.spec));
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.diagnostics().format(), Contains("unsupported:") && Contains("'link'"));
}

TEST_CASE("lowering: limit rows are Fischer-Burmeister rows on the angle gaps") {
  JointModel jm = one_body();
  const int j = add_joint(jm.spec, "elbow", jm.body, JointType::Hinge, Vec3::UnitY());
  jm.spec.joints[j].limited = true;
  jm.spec.joints[j].range_lower = -1.0;
  jm.spec.joints[j].range_upper = 0.5;
  const Model model = compile(jm.spec);
  const ir::ResidualProgram prog = lower(model);
  REQUIRE(prog.block("limit")->size() == 2);
  ir::KernelPoint p = rest_point(prog, kH);
  const Pose reference = model.sim_pose_world[0];
  const double angle = 0.8;  // beyond the upper limit by 0.3
  set_pose(model, p.q_minus, 0,
           rotated_about(reference, reference.pos, about(Vec3::UnitY(), angle)));
  const std::vector<double> r = output(prog, "residual", "r_con", p);
  const double eps2 = ir::LowerOptions{}.fb_epsilon_sq * kH * kH;
  auto fb_at_zero_impulse = [&](double c) { return (c - std::sqrt(c * c + eps2)) / kH; };
  CHECK_THAT(r[find_row(prog, "elbow' lower")], WithinAbs(fb_at_zero_impulse(angle + 1.0), 1e-12));
  CHECK_THAT(r[find_row(prog, "elbow' upper")], WithinAbs(fb_at_zero_impulse(0.5 - angle), 1e-12));
  CHECK(r[find_row(prog, "elbow' upper")] == Approx(2 * (0.5 - angle) / kH).epsilon(1e-6));
  // With an impulse λ on the upper row: FB(c, rλ)/h on the compliant gap c = g + κ r λ, with
  // r = h J_θ M̃⁻¹ J_θᵀ = h/I_yy (θ̇ = ω_y; a turn about y keeps I_yy), κ = limit_compliance.
  const int upper = find_row(prog, "elbow' upper");
  const double impulse = 0.2, scale = kH / (1.5 / 3 * (0.05 * 0.05 + 0.25 * 0.25));
  const double kappa = ir::LowerOptions{}.limit_compliance;
  REQUIRE(kappa > 0);
  p.lambda[upper] = impulse;
  auto fb = [&](double gap, double compliance) {
    const double c = gap + compliance * scale * impulse, b = scale * impulse;
    return (c + b - std::sqrt(c * c + b * b + eps2)) / kH;
  };
  const double row = output(prog, "residual", "r_con", p)[upper];
  CHECK_THAT(row, WithinAbs(fb(0.5 - angle, kappa), 1e-12));
  CHECK(std::abs(row - fb(0.5 - angle, 0)) > 1e-4);  // the compliance is there
}

TEST_CASE("lowering: hinges in rotated frames on a moving parent measure relative angles") {
  ModelSpec spec;
  spec.name = "chain";
  // The upper link is turned 30° about z, the lower one 45° about x relative to it; both
  // hinge about their own y axis, the lower one at an offset anchor.
  const int upper = add_box_body(spec, "upper", -1, {0.1, 0.2, 1.5}, 1.0, {0.05, 0.05, 0.2}, false);
  spec.bodies[upper].pose.quat = about(Vec3::UnitZ(), M_PI / 6);
  spec.bodies[upper].com = {0, 0, -0.2};
  const int fore = add_box_body(spec, "fore", upper, {0, 0, -0.4}, 0.5, {0.04, 0.04, 0.2}, false);
  spec.bodies[fore].pose.quat = about(Vec3::UnitX(), M_PI / 4);
  spec.bodies[fore].com = {0.01, 0, -0.15};
  const Vec3 lower_anchor(0, 0.02, 0.05);
  add_angle_probe(spec, add_joint(spec, "shoulder", upper, JointType::Hinge, Vec3::UnitY()));
  add_angle_probe(spec,
                  add_joint(spec, "elbow", fore, JointType::Hinge, Vec3::UnitY(), lower_anchor));
  const Model model = compile(spec);
  const ir::ResidualProgram prog = lower(model);
  ir::KernelPoint p = rest_point(prog, kH);
  CHECK(max_abs(joint_rows(prog, p)) < 1e-13);

  // Forward kinematics: rotate the upper link by α about its hinge (through its origin),
  // then the lower link by β about its own hinge, as MuJoCo composes them.
  const double alpha = 0.5, beta = -0.8;
  const Pose upper_ref = model.sim_pose_world[0], lower_rel = model.sim_pose_rel[1];
  const Pose upper_pose{upper_ref.pos, upper_ref.quat * about(Vec3::UnitY(), alpha)};
  const Pose lower_frame = upper_pose * lower_rel;  // before the elbow turns
  const Quat lower_quat = lower_frame.quat * about(Vec3::UnitY(), beta);
  const Vec3 anchor_world = lower_frame.apply(lower_anchor);
  set_pose(model, p.q_minus, 0, upper_pose);
  set_pose(model, p.q_minus, 1, Pose{anchor_world - lower_quat * lower_anchor, lower_quat});
  CHECK(max_abs(joint_rows(prog, p)) < 1e-12);
  const std::vector<double> angles = probed_angles(prog, p);
  CHECK_THAT(angles[0], WithinAbs(alpha, 1e-12));
  CHECK_THAT(angles[1], WithinAbs(beta, 1e-12));
}

TEST_CASE("lowering: MuJoCo's humanoid satisfies every joint row at its reference pose") {
  const char* path = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  TALON_SKIP_IF_MISSING(path, "libmujoco-samples");
  Expected<Model> model = load_model(path);
  REQUIRE(model.ok());
  const ir::ResidualProgram prog = lower(*model);
  const ir::KernelPoint p = rest_point(prog, kH);
  CHECK(max_abs(joint_rows(prog, p)) < 1e-12);
  // Every limit gap is θ − lower = −lower or upper at θ = 0: positive, so FB(c, 0) ≈ 0.
  const std::vector<double> r = output(prog, "residual", "r_con", p);
  const ir::RowBlock* limits = prog.block("limit");
  for (int i = limits->begin; i < limits->end; ++i) CHECK(std::abs(r[i - prog.ndyn()]) < 1e-6);
}
