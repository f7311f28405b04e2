// Contact rows: compliant Fischer–Burmeister normal rows in their regimes, the friction rows'
// natural map (sticking with creep, sliding, separated) with the preconditioner weight s, and
// which geom pairs get slots.
#include <cmath>
#include <set>

#include "ir/lower/polytope.h"
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

// A parameter's default value by name.
double param_value(const ir::ResidualProgram& prog, const std::string& name) {
  for (const ir::ParamInfo& info : prog.param_info)
    if (info.name == name) return info.value;
  FAIL("no parameter " << name);
  return 0;
}

// k_t = J_t M⁻¹ J_tᵀ of a tangent at the bottom of the ball: 1/m + r²/I (isotropic inertia,
// so both tangents agree).
double tangent_inverse_mass(const ir::ResidualProgram& prog) {
  return 1 / kMass + kRadius * kRadius / param_value(prog, "inertia_yy:ball");
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
  const double kappa = param_value(prog, "contact_compliance");
  REQUIRE(kappa == ir::LowerOptions{}.contact_compliance);
  REQUIRE(kappa > 0);
  // r = h·J M⁻¹ Jᵀ = h/m: the normal passes through the centre, so no rotational term.
  const double r = kH / kMass;
  auto row = [&](double gap, double impulse) {
    ir::KernelPoint p = at_height(prog, gap);
    p.lambda[n] = impulse;
    return output(prog, "residual", "r_con", p)[n];
  };
  // FB(c, rλ)/h on the compliant gap c = g + κ r λ (κ = 0: the rigid row).
  auto fb = [&](double gap, double l, double compliance) {
    const double c = gap + compliance * r * l;
    return (c + r * l - std::sqrt(c * c + r * r * l * l + eps2)) / kH;
  };
  // Separated and free: ≈ −ε²h²/(2c)/h. Penetrating without impulse: 2c/h (ε² shifts it by
  // ε²h/(4|c|), 1e-22 relative).
  CHECK_THAT(row(0.05, 0), WithinAbs(fb(0.05, 0, kappa), 1e-13));
  CHECK(std::abs(row(0.05, 0)) < 1e-15);
  CHECK_THAT(row(-0.01, 0), WithinRel(2 * -0.01 / kH, 1e-12));
  // Pushing with λ: the root is at the compliant depth g = −κ r λ (not at g = 0) ...
  const double push = 0.5, depth = kappa * r * push;
  // (1e-13: the height 0.1 − depth rounds by ~1e-17 m, 1e-15 in the row.)
  CHECK(std::abs(row(-depth, push)) < 1e-13);
  // ... and at g = 0 the row is FB(κ r λ, r λ)/h = κ r λ (1 − κ/2 + O(κ²))/h, not 0.
  CHECK_THAT(row(0, push), WithinRel(depth / kH, 1e-4));
  CHECK_THAT(row(0, push), WithinAbs(fb(0, push, kappa), 1e-13));
  // Both positive: complementarity violated. The compliance is visible at the tolerance.
  CHECK_THAT(row(0.02, 0.3), WithinAbs(fb(0.02, 0.3, kappa), 1e-12));
  CHECK(std::abs(row(0.02, 0.3) - fb(0.02, 0.3, 0)) > 1e-9);
  CHECK(row(0.02, 0.3) > 0);
  // Merit equals the residual for normal rows.
  ir::KernelPoint p = at_height(prog, -0.01);
  p.lambda[n] = push;
  CHECK(output(prog, "residual", "merit", p)[n] == output(prog, "residual", "r_con", p)[n]);
}

TEST_CASE("contact rows: friction is zero when sticking with v_t = -R_t lambda_t in the cone") {
  const ir::ResidualProgram prog = lower(ball_on_floor());
  const BallRows rows = rows_of(prog);
  const double k = tangent_inverse_mass(prog);
  const double regularization = param_value(prog, "friction_compliance") * k;  // R_t
  REQUIRE(regularization == ir::LowerOptions{}.friction_compliance * k);
  ir::KernelPoint p = at_height(prog, 0);
  const double normal = kMass * 9.81 * kH;  // the impulse that holds the ball
  const double lt[2] = {0.2 * kMu * normal, -0.1 * kMu * normal};  // well inside the cone
  p.lambda[rows.normal] = normal;
  p.lambda[rows.f1] = lt[0];
  p.lambda[rows.f2] = lt[1];
  // At rest (v_t = 0) the rows are k_t (λ_t − y) = R_t λ_t: the contact must creep.
  std::vector<double> r = output(prog, "residual", "r_con", p);
  CHECK_THAT(r[rows.f1], WithinRel(regularization * lt[0], 1e-9));
  CHECK_THAT(r[rows.f2], WithinRel(regularization * lt[1], 1e-9));
  // Creeping at v_t = −R_t λ_t (the ball slides without spin: the contact point moves with
  // its centre, along t₁ = x̂, t₂ = ŷ) the rows vanish.
  p.u_plus[0] = -regularization * lt[0];
  p.u_plus[1] = -regularization * lt[1];
  r = output(prog, "residual", "r_con", p);
  CHECK(std::abs(r[rows.f1]) < 1e-15);  // rounding of k_t λ_t; R_t λ_t is 2.5e-8
  CHECK(std::abs(r[rows.f2]) < 1e-15);
  const std::vector<double> merit = output(prog, "residual", "merit", p);
  CHECK(merit[rows.f1] == r[rows.f1]);
  CHECK(merit[rows.f2] == r[rows.f2]);
  // The projection's slope is 1: the preconditioner weight s = 1/d − 1 is 0, and the frozen
  // rows v_t + (s k_t + R_t) λ_t are the exact ones.
  const double s = output(prog, "residual", "friction_w", p)[0];
  CHECK(s == 0);
  p.friction_w = {s};
  const std::vector<double> frozen = output(prog, "residual_frozen_w", "r_con", p, {s});
  CHECK(std::abs(frozen[rows.f1]) < 1e-15);
  CHECK(std::abs(frozen[rows.f2]) < 1e-15);
}

TEST_CASE("contact rows: friction is zero when sliding with lambda_t = -mu lambda_n on the slip") {
  const ir::ResidualProgram prog = lower(ball_on_floor());
  const BallRows rows = rows_of(prog);
  const double k = tangent_inverse_mass(prog);
  const double regularization = param_value(prog, "friction_compliance") * k;
  ir::KernelPoint p = at_height(prog, 0);
  const double normal = kMass * 9.81 * kH, slip = 1.5;
  p.u_plus[0] = slip;  // the ball slides along +x (no spin): the contact point slips at 1.5
  p.lambda[rows.normal] = normal;
  p.lambda[rows.f1] = -kMu * normal;  // on the cone, opposing the slip
  const std::vector<double> r = output(prog, "residual", "r_con", p);
  CHECK(std::abs(r[rows.f1]) < 1e-15);
  CHECK(std::abs(r[rows.f2]) < 1e-15);
  const std::vector<double> merit = output(prog, "residual", "merit", p);
  CHECK(merit[rows.f1] == r[rows.f1]);
  // y = λ_t − (v_t + R_t λ_t)/k_t has |y| = μλ_n + (v − R_t μλ_n)/k_t, so the weight is
  // s = |y|/(μλ_n) − 1 = (|v_t| − R_t|λ_t|)/(k_t|λ_t|), and the frozen row
  // v_t + (s k_t + R_t) λ_t vanishes with the exact one.
  const double s = output(prog, "residual", "friction_w", p)[0];
  CHECK_THAT(s, WithinRel((slip - regularization * kMu * normal) / (k * kMu * normal), 1e-12));
  p.friction_w = {s};
  const std::vector<double> frozen = output(prog, "residual_frozen_w", "r_con", p, {s});
  CHECK(std::abs(frozen[rows.f1]) < 1e-14);
  CHECK(std::abs(frozen[rows.f2]) < 1e-15);
  // The same slip with the force along the slip is no solution: the residual is k_t·2μλ_n.
  p.lambda[rows.f1] = kMu * normal;
  CHECK_THAT(output(prog, "residual", "r_con", p)[rows.f1], WithinRel(k * 2 * kMu * normal, 1e-12));
  // Inside the cone while slipping is no solution either: y is far outside the cone
  // (|y| ≈ v/k_t), projected onto −μλ_n x̂, so the residual is k_t (λ_t + μλ_n).
  p.lambda[rows.f1] = -0.5 * kMu * normal;
  CHECK_THAT(output(prog, "residual", "r_con", p)[rows.f1],
             WithinRel(k * 0.5 * kMu * normal, 1e-12));
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

TEST_CASE("contact rows: at a separated contact the friction residual is k_t lambda_t") {
  const ir::ResidualProgram prog = lower(ball_on_floor());
  const BallRows rows = rows_of(prog);
  // k_t at the contact point of q⁻, midway between the surfaces: arm r + gap/2.
  const double gap = 0.05, arm = kRadius + gap / 2;
  const double k = 1 / kMass + arm * arm / param_value(prog, "inertia_yy:ball");
  ir::KernelPoint p = at_height(prog, gap);  // λ_n = 0: the cone is the point 0
  p.u_plus[0] = 1.0;
  // No impulse: zero whatever the slip.
  std::vector<double> r = output(prog, "residual", "r_con", p);
  CHECK(std::abs(r[rows.f1]) < 1e-20);
  CHECK(std::abs(r[rows.f2]) < 1e-20);
  // An impulse is projected to 0: the residual is k_t λ_t, independent of v_t.
  p.lambda[rows.f1] = 0.3;
  p.lambda[rows.f2] = -0.1;
  r = output(prog, "residual", "r_con", p);
  CHECK_THAT(r[rows.f1], WithinRel(k * 0.3, 1e-14));
  CHECK_THAT(r[rows.f2], WithinRel(k * -0.1, 1e-14));
  const std::vector<double> merit = output(prog, "residual", "merit", p);
  CHECK(merit[rows.f1] == r[rows.f1]);
  // The slope d is 0, clamped to 1e-8: s = 1/d − 1.
  CHECK(output(prog, "residual", "friction_w", p)[0] == Approx(1e8 - 1).epsilon(1e-14));
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

namespace {

using GeomNamePairs = std::set<std::pair<std::string, std::string>>;

// The geom pairs that got contact slots, by name.
GeomNamePairs slot_pairs(const Model& model, const ir::ResidualProgram& lowered) {
  GeomNamePairs out;
  for (const ir::ContactSlot& slot : lowered.slots)
    out.insert({model.geom_name[slot.geom_a], model.geom_name[slot.geom_b]});
  return out;
}

}  // namespace

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
  add_geom(spec, "c2", c, GeomType::Ellipsoid, {0.1, 0.1, 0.1});
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
  const GeomNamePairs pairs = slot_pairs(model, *lowered);
  const GeomNamePairs expected{{"floor", "a1"},    {"floor", "a2"},    {"floor", "b1"},
                               {"floor", "c1"},    {"a1", "pedestal"}, {"a2", "pedestal"},
                               {"b1", "pedestal"}, {"c1", "pedestal"}, {"floor", "d1"},
                               {"pedestal", "d1"}, {"a1", "d1"},       {"a2", "d1"},
                               {"b1", "d1"},       {"c1", "d1"}};
  CHECK(pairs == expected);
  // Pairs without a collider are noted: cylinder-ellipsoid (d1-c2).
  const std::string notes = lowered.diagnostics().format();
  CHECK_THAT(notes, Contains("no contact between cylinder and ellipsoid"));
  CHECK(lowered->stats.skipped_pairs == 1);
}

// A mesh collides with the world and with other trees, not with geoms of its own tree: an arm
// whose base and forearm are meshes (a box upper arm between them, a sphere hand on the
// forearm) and a mesh crate.
TEST_CASE("contact pairs: a mesh does not collide with its own kinematic tree") {
  ModelSpec spec;
  spec.name = "arm_and_crate";
  add_geom(spec, "floor", -1, GeomType::Plane, {0, 0, 1});
  const std::vector<Vec3> cube = ir::lower::box_corners({0.1, 0.1, 0.1});
  auto add_mesh = [&](const std::string& name, int body) {
    add_geom(spec, name, body, GeomType::Mesh, {0, 0, 0});
    spec.geoms.back().hull_vertices = cube;
  };
  const int base = add_box_body(spec, "base", -1, {0, 0, 1}, 1, {0.1, 0.1, 0.1}, false);
  add_joint(spec, "base_free", base, JointType::Free);
  add_mesh("base", base);
  const int upper = add_box_body(spec, "upper", base, {0, 0, 0.3}, 1, {0.1, 0.1, 0.1});
  add_joint(spec, "shoulder", upper, JointType::Hinge);
  const int lower = add_box_body(spec, "lower", upper, {0, 0, 0.3}, 1, {0.1, 0.1, 0.1}, false);
  add_joint(spec, "elbow", lower, JointType::Hinge);
  add_mesh("lower", lower);
  const int hand = add_box_body(spec, "hand", lower, {0, 0, 0.3}, 1, {0.1, 0.1, 0.1}, false);
  add_joint(spec, "wrist", hand, JointType::Hinge);
  add_geom(spec, "hand", hand, GeomType::Sphere, {0.05, 0, 0});
  const int crate = add_box_body(spec, "crate", -1, {1, 0, 1}, 1, {0.1, 0.1, 0.1}, false);
  add_joint(spec, "crate_free", crate, JointType::Free);
  add_mesh("crate", crate);
  const Model model = compile(spec);
  Expected<ir::ResidualProgram> lowered = ir::lower_model(model);
  REQUIRE(lowered.ok());
  CHECK(slot_pairs(model, *lowered) == GeomNamePairs{{"floor", "base"},
                                                     {"floor", "upper"},
                                                     {"floor", "lower"},
                                                     {"floor", "hand"},
                                                     {"floor", "crate"},
                                                     {"hand", "upper"},
                                                     {"base", "crate"},
                                                     {"upper", "crate"},
                                                     {"lower", "crate"},
                                                     {"hand", "crate"}});
  const std::string notes = lowered.diagnostics().format();
  CHECK_THAT(notes, Contains("no contact between mesh and mesh geoms (a mesh does not collide "
                             "with geoms of its own kinematic tree): 1 pair, e.g. "));
  CHECK_THAT(notes, Contains("no contact between sphere and mesh geoms (a mesh does not collide "
                             "with geoms of its own kinematic tree): 1 pair, e.g. "));
  CHECK(lowered->stats.skipped_pairs == 2);
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
