// One step of the lowered residual solved by a dense Newton method (exact Jacobian from
// jvp_exact, minimum-norm steps for the redundant corner contacts, the cone safeguard on
// friction impulses): the formulation must stick, slide at μg and rest, independently of h
// (DESIGN "Known pitfalls").
#include <cmath>

#include <Eigen/Dense>

#include "frontend/load.h"
#include "test_lower_support.h"

using namespace talon;
using namespace talon::lower_test;

namespace {

// r = [r_dyn; r_con] at the point.
Eigen::VectorXd residual(const ir::ResidualProgram& prog, const ir::KernelPoint& p) {
  const std::vector<double> all = ir::evaluate_kernel(prog, "residual", p);
  return Eigen::Map<const Eigen::VectorXd>(all.data(), prog.ndyn() + prog.nrows);
}

// The NCP measure of best-iterate selection: [r_dyn; merit] (the merit is r_con, the
// natural map on friction rows).
Eigen::VectorXd merit(const ir::ResidualProgram& prog, const ir::KernelPoint& p) {
  Eigen::VectorXd out = residual(prog, p);
  const std::vector<double> m = output(prog, "residual", "merit", p);
  for (int i = 0; i < prog.nrows; ++i) out[prog.ndyn() + i] = m[i];
  return out;
}

// ∂r/∂(u⁺, λ), one jvp_exact column per unknown.
Eigen::MatrixXd jacobian(const ir::ResidualProgram& prog, const ir::KernelPoint& p) {
  const int n = prog.ndyn() + prog.nrows;
  Eigen::MatrixXd jac(n, n);
  std::vector<double> tangent(n, 0.0);
  for (int c = 0; c < n; ++c) {
    tangent[c] = 1;
    const std::vector<double> col = ir::evaluate_kernel(prog, "jvp_exact", p, tangent);
    jac.col(c) = Eigen::Map<const Eigen::VectorXd>(col.data(), n);
    tangent[c] = 0;
  }
  return jac;
}

// Newton on (u⁺, λ) from u⁺ = u⁻, λ = 0, with the design's friction safeguard after every
// step (|λ_t| ≤ μλ_n); keeps the iterate of least merit, and returns that merit's norm.
double solve_step(const ir::ResidualProgram& prog, ir::KernelPoint& p, double mu) {
  const int n = prog.ndyn() + prog.nrows;
  p.u_plus = p.u_minus;
  p.lambda.assign(prog.nrows, 0.0);
  ir::KernelPoint best = p;
  double best_norm = merit(prog, p).norm();
  for (int it = 0; it < 100 && best_norm > 1e-12; ++it) {
    const Eigen::VectorXd r = residual(prog, p);
    // Rows scaled to unit largest entry (the rows' units differ).
    Eigen::MatrixXd jac = jacobian(prog, p);
    Eigen::VectorXd rhs = -r;
    for (int i = 0; i < n; ++i) {
      const double scale = std::max(jac.row(i).cwiseAbs().maxCoeff(), 1e-300);
      jac.row(i) /= scale;
      rhs[i] /= scale;
    }
    const Eigen::VectorXd dx = jac.completeOrthogonalDecomposition().solve(rhs);
    for (int i = 0; i < prog.ndyn(); ++i) p.u_plus[i] += dx[i];
    for (int i = 0; i < prog.nrows; ++i) p.lambda[i] += dx[prog.ndyn() + i];
    for (const ir::ContactSlot& slot : prog.slots) {
      if (slot.friction_row < 0) continue;
      double* t = &p.lambda[slot.friction_row];
      const double limit = mu * std::max(p.lambda[slot.normal_row], 0.0),
                   norm = std::hypot(t[0], t[1]);
      if (norm > limit) {
        t[0] *= limit / norm;
        t[1] *= limit / norm;
      }
    }
    const double norm = merit(prog, p).norm();
    if (norm < best_norm) {
      best_norm = norm;
      best = p;
    }
  }
  p = best;
  if (best_norm > 1e-9) {
    const Eigen::VectorXd r = merit(prog, p);
    for (int i = 0; i < r.size(); ++i)
      if (std::abs(r[i]) > 1e-9)
        UNSCOPED_INFO(
            "residual " << i << " = " << r[i] << " "
                        << (i < prog.ndyn() ? "dynamics" : prog.rows[i - prog.ndyn()].label));
  }
  return best_norm;
}

constexpr double kG = 9.81, kMu = 0.5;
// Compliances of the contact rows (LowerOptions' defaults: the tests use those).
const double kKappa = ir::LowerOptions{}.contact_compliance;
const double kKappaT = ir::LowerOptions{}.friction_compliance;

// The depth at which a 1 kg, 0.2 m cube rests on its four corners: each corner's row
// c = g + κ h w λ vanishes with λ = m g h/4 and w = 1/m + |arm × n|²/I = 1 + 0.02·150 = 4
// (a corner's arm (±0.1, ±0.1, −0.1)), so g = −κ h² g.
double rest_depth(double h) {
  return kKappa * kG * h * h;
}

// Velocities the solve leaves uncertain: solve_step stops at a merit of 1e-12 (in velocity and
// impulse units, m = 1), an order of magnitude more for the conditioning.
constexpr double kSolved = 1e-11;

ir::ResidualProgram sliding_box() {
  Expected<Model> model = load_model(std::string(TALON_MODELS_DIR) + "/sliding_box.xml");
  REQUIRE(model.ok());
  return lower(*model);
}

// A 1 kg box on the floor (μ = 0.5) that can only translate in x and z, pushed along x by
// a motor of `force` newtons.
Model pushed_box(double force) {
  ModelSpec spec;
  spec.name = "pushed_box";
  add_geom(spec, "floor", -1, GeomType::Plane, {0, 0, 1}, {}, 0.5);
  const int box = add_box_body(spec, "box", -1, {0, 0, 0.1}, 1.0, {0.1, 0.1, 0.1}, false);
  add_geom(spec, "box", box, GeomType::Box, {0.1, 0.1, 0.1}, {}, 0.5);
  const int x = add_joint(spec, "x", box, JointType::Slide, Vec3::UnitX());
  add_joint(spec, "z", box, JointType::Slide, Vec3::UnitZ());
  ActuatorSpec motor;
  motor.name = "push";
  motor.joint = x;
  motor.gain = force;
  spec.actuators.push_back(motor);
  return compile(spec);
}

}  // namespace

TEST_CASE("physics: a box put on the floor sinks to its compliant depth") {
  // From gap 0 at rest: the rows give h u_z + κ h (g h + u_z) = 0 (λ per corner
  // m (g h + u_z)/4, w = 4), so u_z = −κ g h/(1 + κ): the box sinks κ g h²/(1 + κ).
  const ir::ResidualProgram prog = sliding_box();
  for (double h : {0.01, 0.1, 0.4}) {
    ir::KernelPoint p = rest_point(prog, h);
    CHECK(solve_step(prog, p, kMu) < 1e-9);
    CHECK(p.u_plus[2] == Approx(-kKappa * kG * h / (1 + kKappa)).epsilon(1e-6).margin(kSolved));
    for (int i : {0, 1, 3, 4, 5}) CHECK(std::abs(p.u_plus[i]) < kSolved);
  }
}

TEST_CASE("physics: a box at rest stays at rest and carries its weight") {
  const ir::ResidualProgram prog = sliding_box();
  for (double h : {0.001, 0.01, 0.1, 0.4}) {
    ir::KernelPoint p = rest_point(prog, h);
    p.q_minus[2] -= rest_depth(h);
    CHECK(solve_step(prog, p, kMu) < 1e-9);
    // From gap 0 it would sink at κ g h ≥ 1e-6 (the previous test).
    for (int i = 0; i < 6; ++i) CHECK(std::abs(p.u_plus[i]) < kSolved);
    double normal = 0;
    for (const ir::ContactSlot& slot : prog.slots) normal += p.lambda[slot.normal_row];
    CHECK(normal == Approx(kG * h).epsilon(1e-9));
  }
}

TEST_CASE("physics: a sliding box decelerates at mu g, independently of h") {
  const ir::ResidualProgram prog = sliding_box();
  // Not h = 0.4: there this Newton (started at u⁺ = u⁻) finds a spurious solution of the
  // discrete step in which the box tumbles 166° and lands on its top corners.
  for (double h : {0.001, 0.01, 0.1, 0.2}) {
    ir::KernelPoint p = rest_point(prog, h);
    p.q_minus[2] -= rest_depth(h);
    p.u_minus[0] = 2.0;
    CHECK(solve_step(prog, p, kMu) < 1e-9);
    // Every corner slips along x̂ (a tilt about y adds only x and z velocity at the corners),
    // so the natural map puts λ_t = −μλ_n x̂ exactly: R_t λ_t is parallel to v_t and only
    // changes |y|. Hence m Δu_x = −μ Σλ_n = −μ m (g h + u_z) exactly ...
    CHECK(p.u_plus[0] == Approx(2.0 - kMu * (kG * h + p.u_plus[2])).margin(kSolved));
    // ... and u_z, from the friction torque's tilt against the compliant corners, is of
    // second order in the tilt: the deceleration is μ g.
    CHECK(p.u_plus[0] == Approx(2.0 - kMu * kG * h).epsilon(1e-6));
    CHECK(std::abs(p.u_plus[1]) < 1e-8);
  }
}

TEST_CASE("physics: a slow box stops within the step instead of reversing") {
  const ir::ResidualProgram prog = sliding_box();
  const double h = 0.1;
  ir::KernelPoint p = rest_point(prog, h);
  p.q_minus[2] -= rest_depth(h);
  p.u_minus[0] = 0.3;  // μ g h = 0.49 > 0.3
  CHECK(solve_step(prog, p, kMu) < 1e-9);
  // The corners stick: each creeps at v_t = −R_t λ_t (R_t = κ_t k_t, k_t = 4 as w above),
  // at most κ_t μ g h.
  double friction = 0;
  for (const ir::ContactSlot& slot : prog.slots) {
    const double lt = p.lambda[slot.friction_row];
    friction += lt;
    if (p.lambda[slot.normal_row] > 0)                        // the four bottom corners
      CHECK(std::abs(lt) < kMu * p.lambda[slot.normal_row]);  // strictly inside the cone
    else
      CHECK(lt == 0);
    CHECK(std::abs(p.lambda[slot.friction_row + 1]) < 1e-12);
  }
  // A corner's velocity along x: u_x + (ω × arm)_x = u_x − 0.1 ω_y (arm_z = −0.1).
  const double slip = p.u_plus[0] - 0.1 * p.u_plus[4];
  // The friction torque rocks the box against its compliant corners, so the four shares of
  // Σλ_t differ slightly (0.5 % here) and the mean share gives the creep to about that.
  CHECK(slip == Approx(-kKappaT * 4 * (friction / 4)).epsilon(1e-2).margin(kSolved));
  CHECK(slip > 0);  // still forward, not reversed
  CHECK(slip <= kKappaT * kMu * kG * h);
  // The friction impulse takes the momentum: m (u_x − u⁻_x) = Σλ_t.
  CHECK(friction == Approx(p.u_plus[0] - 0.3).epsilon(1e-9));
}

TEST_CASE("physics: a box pushed below its static friction limit sticks") {
  // 2 N against μ m g = 4.9 N (the reference implementation's failing case). The box
  // translates only (slide joints x and z): every corner slips at u_x, which must creep at
  // −R_t λ_t: with the four corners' λ_t = (u_x − F h)/4 (m = 1) and R_t = κ_t k_t,
  // u_x = c F h/(1 + c), c = κ_t k_t/4, ≤ κ_t μ g h. k_t = 1/m + (arm × t)ᵀ I⁻¹ (arm × t) with
  // I⁻¹ = 150 and the contact point midway between the surfaces: arm (±0.1, ±0.1, −(0.1 − δ/2))
  // at the rest depth δ (k_t = 4 at δ = 0).
  const double force = 2.0;
  const ir::ResidualProgram prog = lower(pushed_box(force));
  for (double h : {0.001, 0.01, 0.1, 0.4}) {
    ir::KernelPoint p = rest_point(prog, h);
    p.q_minus[2] -= rest_depth(h);
    p.ctrl = {1.0};
    CHECK(solve_step(prog, p, kMu) < 1e-9);
    const double arm_z = 0.1 - rest_depth(h) / 2;
    const double c = kKappaT * (1 + 150 * (arm_z * arm_z + 0.01)) / 4;
    CHECK(p.u_plus[0] == Approx(c * force * h / (1 + c)).epsilon(1e-6).margin(kSolved));
    CHECK(p.u_plus[0] <= kKappaT * kMu * kG * h);
  }
  // 8 N slides: a = (8 − 4.905)/1 (at the rest depth, Σλ_n = m g h).
  const ir::ResidualProgram strong = lower(pushed_box(8.0));
  ir::KernelPoint p = rest_point(strong, 0.1);
  p.q_minus[2] -= rest_depth(0.1);
  p.ctrl = {1.0};
  CHECK(solve_step(strong, p, kMu) < 1e-9);
  CHECK(p.u_plus[0] == Approx((8.0 - kMu * kG) * 0.1).epsilon(1e-9));
}

// Issue #15's conditioning bar. A box resting on four corners has four normal rows for three
// constrained motions and eight friction rows for three: rigid, the step's Jacobian is
// singular (the impulses are not unique); the compliances inside the rows (κ_n = 1e-4,
// κ_t = 1e-6) make it invertible with condition number ~1/κ_t. Measured as the solver
// measures the residual, in velocity units: L J with L = diag(M̃⁻¹, I).
TEST_CASE("physics: the Jacobian of a box resting on four corners is well conditioned") {
  const auto condition = [](const ir::ResidualProgram& prog, const ir::KernelPoint& p) {
    Eigen::MatrixXd jac = jacobian(prog, p);
    // M̃ = diag(m I₃, I_body) at q⁻: the box's rows are its mass and (diagonal) inertia.
    const std::vector<double> mass = ir::evaluate_kernel(prog, "mass", p);
    for (int i = 0; i < 3; ++i) {
      jac.row(i) /= mass[0];
      jac.row(3 + i) /= mass[1 + i];
    }
    const Eigen::VectorXd s = Eigen::JacobiSVD<Eigen::MatrixXd>(jac).singularValues();
    return s[0] / s[s.size() - 1];
  };
  const ir::ResidualProgram prog = sliding_box();
  ir::LowerOptions rigid;
  rigid.contact_compliance = 0;
  rigid.friction_compliance = 0;
  Expected<Model> model = load_model(std::string(TALON_MODELS_DIR) + "/sliding_box.xml");
  REQUIRE(model.ok());
  const ir::ResidualProgram rigid_prog = lower(*model, rigid);
  for (double h : {0.01, 0.1}) {
    INFO("h = " << h);
    ir::KernelPoint p = rest_point(prog, h);
    p.q_minus[2] -= rest_depth(h);
    REQUIRE(solve_step(prog, p, kMu) < 1e-9);
    const double compliant = condition(prog, p);
    INFO("condition number " << compliant);
    CHECK(compliant < 1e9);
    // The same point with rigid rows: singular to rounding (the bar can fail).
    ir::KernelPoint q = p;
    q.params.clear();
    for (const ir::ParamInfo& info : rigid_prog.param_info) q.params.push_back(info.value);
    CHECK(condition(rigid_prog, q) > 1e12);
  }
}
