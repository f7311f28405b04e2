// Contact rows: Fischer–Burmeister normal rows in their regimes, the friction weight W in
// sticking and sliding, the natural-map merit, and which geom pairs get slots.
#include <cmath>
#include <set>

#include "test_lower_support.h"

using namespace talon;
using namespace talon::lower_test;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

constexpr double kH = 0.01, kMu = 0.5, kRadius = 0.1, kMass = 2.0;

// A geom's contact parameters.
struct Contact {
  double mu = kMu;
  int condim = 3, priority = 0;
};

// A free ball (radius 0.1, 2 kg) above a floor plane, both with friction 0.5 by default.
Model ball_on_floor(Contact floor = {}, Contact ball = {}) {
  ModelSpec spec;
  spec.name = "ball";
  add_geom(spec, "floor", -1, GeomType::Plane, {0, 0, 1}, {}, floor.mu, floor.condim);
  spec.geoms.back().priority = floor.priority;
  const int body = add_box_body(spec, "ball", -1, {0, 0, kRadius}, kMass, {0.1, 0.1, 0.1}, false);
  add_joint(spec, "free", body, JointType::Free);
  add_geom(spec, "ball", body, GeomType::Sphere, {kRadius, 0, 0}, {}, ball.mu, ball.condim);
  spec.geoms.back().priority = ball.priority;
  return compile(spec);
}

struct BallRows {
  int normal, f1, f2;
};

BallRows rows_of(const ir::ResidualProgram& prog) {
  REQUIRE(prog.slots.size() == 1);
  const ir::ContactSlot& slot = prog.slots[0];
  return {slot.normal_row, slot.friction_row, slot.friction_row + 1};
}

ir::KernelPoint at_height(const ir::ResidualProgram& prog, double gap) {
  ir::KernelPoint p = rest_point(prog, kH);
  p.q_minus[2] = kRadius + gap;
  return p;
}

}  // namespace

TEST_CASE("contact rows: slots, blocks and metadata of a ball on the floor") {
  const ir::ResidualProgram prog = lower(ball_on_floor());
  const BallRows r = rows_of(prog);
  CHECK(prog.slots[0].kind == "plane-sphere");
  CHECK(prog.rows[r.normal].kind == ir::RowKind::ContactNormal);
  CHECK(prog.rows[r.f1].kind == ir::RowKind::Friction);
  CHECK(prog.rows[r.normal].body == 0);
  CHECK(prog.rows[r.normal].other == -1);
  CHECK(prog.block("contact_normal")->size() == 1);
  CHECK(prog.block("friction")->size() == 2);
  CHECK(prog.nfriction == 1);
  const ir::ResidualProgram frictionless = lower(ball_on_floor({kMu, 1}, {kMu, 1}));
  CHECK(frictionless.block("friction")->size() == 0);
  CHECK(frictionless.slots[0].friction_row == -1);
}

TEST_CASE("contact rows: the normal row is Fischer-Burmeister in all its regimes") {
  const ir::ResidualProgram prog = lower(ball_on_floor());
  const int n = rows_of(prog).normal;
  const double eps2 = ir::LowerOptions{}.fb_epsilon_sq * kH * kH;
  // r = h·J M⁻¹ Jᵀ = h/m: the normal passes through the centre, so no rotational term.
  const double r = kH / kMass;
  auto row = [&](double gap, double impulse) {
    ir::KernelPoint p = at_height(prog, gap);
    p.lambda[n] = impulse;
    return output(prog, "residual", "r_con", p)[n];
  };
  auto fb = [&](double c, double l) {
    return (c + r * l - std::sqrt(c * c + r * r * l * l + eps2)) / kH;
  };
  // Separated and free: ≈ 0. Penetrating without impulse: ≈ 2c/h. Touching and pushing: ≈ 0.
  CHECK_THAT(row(0.05, 0), WithinAbs(fb(0.05, 0), 1e-13));
  CHECK(std::abs(row(0.05, 0)) < 1e-4);
  CHECK_THAT(row(-0.01, 0), WithinRel(2 * -0.01 / kH, 1e-4));  // ε² shifts it by ~ε²/4c
  CHECK(std::abs(row(0, 0.5)) < 0.02 / kH * 1e-2);
  CHECK_THAT(row(0.02, 0.3), WithinAbs(fb(0.02, 0.3), 1e-12));
  CHECK(row(0.02, 0.3) > 0);  // both positive: complementarity violated
  // Merit equals the residual for normal rows.
  ir::KernelPoint p = at_height(prog, -0.01);
  CHECK(output(prog, "residual", "merit", p)[n] == output(prog, "residual", "r_con", p)[n]);
}

TEST_CASE("contact rows: friction weight W vanishes when sticking") {
  const ir::ResidualProgram prog = lower(ball_on_floor());
  const BallRows rows = rows_of(prog);
  ir::KernelPoint p = at_height(prog, 0);
  const double normal = kMass * 9.81 * kH;  // the impulse that holds the ball
  p.lambda[rows.normal] = normal;
  p.lambda[rows.f1] = 0.2 * kMu * normal;  // well inside the cone
  p.lambda[rows.f2] = -0.1 * kMu * normal;
  const double w = output(prog, "residual", "friction_w", p)[0];
  CHECK(w >= 0);
  CHECK(w < 1e-12);
  const std::vector<double> r = output(prog, "residual", "r_con", p);
  CHECK(std::abs(r[rows.f1]) < 1e-12);
  CHECK(std::abs(r[rows.f2]) < 1e-12);
  const std::vector<double> merit = output(prog, "residual", "merit", p);
  CHECK(std::abs(merit[rows.f1]) < 1e-12);
}

TEST_CASE("contact rows: friction W = |v_t|/|lambda_t| when sliding on the cone") {
  const ir::ResidualProgram prog = lower(ball_on_floor());
  const BallRows rows = rows_of(prog);
  ir::KernelPoint p = at_height(prog, 0);
  const double normal = kMass * 9.81 * kH, slip = 1.5;
  p.u_plus[0] = slip;  // the ball slides along +x (no spin): the contact point slips at 1.5
  p.lambda[rows.normal] = normal;
  p.lambda[rows.f1] = -kMu * normal;  // on the cone, opposing the slip
  const double w = output(prog, "residual", "friction_w", p)[0];
  CHECK_THAT(w, WithinRel(slip / (kMu * normal), 1e-8));
  const std::vector<double> r = output(prog, "residual", "r_con", p);
  CHECK(std::abs(r[rows.f1]) < 1e-8 * slip);
  CHECK(std::abs(r[rows.f2]) < 1e-12);
  const std::vector<double> merit = output(prog, "residual", "merit", p);
  CHECK(std::abs(merit[rows.f1]) < 1e-10);
  // The same slip with the force along the slip is no solution: the merit is k_t·2μλ_n,
  // k_t = 1/m + r²/I for a tangent at the bottom of the ball.
  p.lambda[rows.f1] = kMu * normal;
  REQUIRE(prog.param_info[2].name == "inertia_yy:ball");
  const double k = 1 / kMass + kRadius * kRadius / prog.param_info[2].value;
  CHECK_THAT(output(prog, "residual", "merit", p)[rows.f1], WithinRel(k * 2 * kMu * normal, 1e-9));
}

// MuJoCo's rule for a contact's parameters: the geom with the higher priority sets condim and
// friction; at equal priority condim and μ are the larger of the two.
TEST_CASE("contact rows: the geom with the higher priority sets condim and friction") {
  auto lowered = [](int ball_condim, double ball_mu, int ball_priority) {
    return lower(ball_on_floor({0.9, 3}, {ball_mu, ball_condim, ball_priority}));
  };
  // The friction coefficient a sliding contact's friction sits on: the natural-map merit
  // vanishes with λ_t = −μλ_n against the slip for that μ only.
  auto sliding_merit = [](const ir::ResidualProgram& prog, double mu) {
    const BallRows rows = rows_of(prog);
    ir::KernelPoint p = at_height(prog, 0);
    const double normal = kMass * 9.81 * kH;
    p.u_plus[0] = 1.5;
    p.lambda[rows.normal] = normal;
    p.lambda[rows.f1] = -mu * normal;
    return std::abs(output(prog, "residual", "merit", p)[rows.f1]);
  };
  // Friction rows whose coefficient is `applied`, not `other`.
  auto check_friction = [&](const ir::ResidualProgram& prog, double applied, double other) {
    CHECK(prog.block("friction")->size() == 2);
    CHECK(sliding_merit(prog, applied) < 1e-10);
    CHECK(sliding_merit(prog, other) > 1e-3);
  };
  SECTION("equal priority: the larger condim and the larger friction") {
    check_friction(lowered(1, 0.2, 0), 0.9, 0.2);
  }
  SECTION("the ball's priority: its condim 1 makes the contact frictionless") {
    const ir::ResidualProgram prog = lowered(1, 0.2, 1);
    CHECK(prog.block("friction")->size() == 0);
    CHECK(prog.slots[0].friction_row == -1);
  }
  SECTION("the ball's priority: its smaller friction applies") {
    check_friction(lowered(3, 0.2, 1), 0.2, 0.9);
  }
}

TEST_CASE("contact rows: at a separated contact the merit is zero where v_t + W lambda_t is not") {
  const ir::ResidualProgram prog = lower(ball_on_floor());
  const BallRows rows = rows_of(prog);
  ir::KernelPoint p = at_height(prog, 0.05);
  p.u_plus[0] = 1.0;
  const std::vector<double> r = output(prog, "residual", "r_con", p);
  const std::vector<double> merit = output(prog, "residual", "merit", p);
  CHECK_THAT(r[rows.f1], WithinAbs(1.0, 1e-9));
  CHECK(std::abs(merit[rows.f1]) < 1e-12);
  CHECK(std::abs(merit[rows.f2]) < 1e-12);
}

TEST_CASE("contact rows: friction impulses act at the contact point") {
  const ir::ResidualProgram prog = lower(ball_on_floor());
  const BallRows rows = rows_of(prog);
  ir::KernelPoint p = at_height(prog, 0);
  p.lambda[rows.f1] = 0.3;  // along +x at the bottom of the ball
  const std::vector<double> r = output(prog, "residual", "r_dyn", p);
  // r_dyn = −h m g − Jᵀλ: force −0.3 x̂; torque about the centre: (−r ẑ) × 0.3 x̂ = −0.03 ŷ.
  CHECK_THAT(r[0], WithinAbs(-0.3, 1e-15));
  CHECK_THAT(r[4], WithinAbs(0.3 * kRadius, 1e-15));
  CHECK_THAT(r[2], WithinAbs(kH * kMass * 9.81, 1e-14));
}

TEST_CASE("contact pairs: MuJoCo's filters decide which geom pairs get slots") {
  ModelSpec spec;
  spec.name = "filters";
  add_geom(spec, "floor", -1, GeomType::Plane, {0, 0, 1});
  add_geom(spec, "pedestal", -1, GeomType::Box, {0.1, 0.1, 0.1}, Pose{{2, 0, 0}, Quat::Identity()});
  const int a = add_box_body(spec, "a", -1, {0, 0, 1}, 1, {0.1, 0.1, 0.1}, false);
  add_joint(spec, "a_free", a, JointType::Free);
  add_geom(spec, "a1", a, GeomType::Sphere, {0.1, 0, 0});
  add_geom(spec, "a2", a, GeomType::Capsule, {0.05, 0.1, 0});
  const int b = add_box_body(spec, "b", a, {0, 0, -0.3}, 1, {0.1, 0.1, 0.1}, false);
  add_joint(spec, "b_hinge", b, JointType::Hinge);
  add_geom(spec, "b1", b, GeomType::Sphere, {0.1, 0, 0});
  const int c = add_box_body(spec, "c", b, {0, 0, -0.3}, 1, {0.1, 0.1, 0.1}, false);
  add_joint(spec, "c_hinge", c, JointType::Hinge);
  add_geom(spec, "c1", c, GeomType::Sphere, {0.1, 0, 0});
  add_geom(spec, "c2", c, GeomType::Cylinder, {0.1, 0.1, 0});
  spec.geoms.back().contype = 4;  // collides with masks 4 only ...
  spec.geoms.back().conaffinity = 4;
  const int d = add_box_body(spec, "d", -1, {1, 0, 1}, 1, {0.1, 0.1, 0.1}, false);
  add_joint(spec, "d_free", d, JointType::Free);
  add_geom(spec, "d1", d, GeomType::Cylinder, {0.1, 0.1, 0});
  spec.geoms.back().contype = 4;
  spec.geoms.back().conaffinity = 5;  // ... and d1 accepts masks 4 and 1
  spec.excludes.push_back({origin("<exclude>"), a, c});
  const Model model = compile(spec);
  Expected<ir::ResidualProgram> lowered = ir::lower_model(model);
  REQUIRE(lowered.ok());
  std::set<std::pair<std::string, std::string>> pairs;
  for (const ir::ContactSlot& slot : lowered->slots)
    pairs.insert({model.geom_name[slot.geom_a], model.geom_name[slot.geom_b]});
  const std::set<std::pair<std::string, std::string>> expected{
      {"floor", "a1"},    {"floor", "a2"},    {"floor", "b1"},    {"floor", "c1"},
      {"a1", "pedestal"}, {"a2", "pedestal"}, {"b1", "pedestal"}, {"c1", "pedestal"},
      {"floor", "d1"},    {"pedestal", "d1"}};
  CHECK(pairs == expected);
  // Pairs without a collider are noted: sphere-cylinder (a1, b1, c1 with d1),
  // capsule-cylinder (a2-d1), cylinder-cylinder (c2-d1).
  const std::string notes = lowered.diagnostics().format();
  CHECK_THAT(notes, Contains("no contact between sphere and cylinder"));
  CHECK_THAT(notes, Contains("no contact between capsule and cylinder"));
  CHECK_THAT(notes, Contains("no contact between cylinder and cylinder"));
  CHECK(lowered->stats.skipped_pairs == 5);
}

TEST_CASE("contact pairs: pairs between kinematic trees are capped") {
  ModelSpec spec;
  spec.name = "two_balls";
  add_geom(spec, "floor", -1, GeomType::Plane, {0, 0, 1});
  for (int k = 0; k < 2; ++k) {
    const std::string name = "ball" + std::to_string(k);
    const int body = add_box_body(spec, name, -1, {0.5 * k, 0, 1}, 1, {0.1, 0.1, 0.1}, false);
    add_joint(spec, name + "_free", body, JointType::Free);
    add_geom(spec, name, body, GeomType::Sphere, {0.1, 0, 0});
  }
  const Model model = compile(spec);
  CHECK(lower(model).slots.size() == 3);
  ir::LowerOptions capped;
  capped.max_inter_tree_pairs = 0;
  Expected<ir::ResidualProgram> lowered = ir::lower_model(model, capped);
  REQUIRE(lowered.ok());
  CHECK(lowered->slots.size() == 2);
  CHECK_THAT(lowered.diagnostics().format(), Contains("different kinematic trees"));
}
