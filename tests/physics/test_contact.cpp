// Contact and friction against analytic answers at h = 0.01, 0.05 and 0.1 (DESIGN "Known
// pitfalls": static friction must stick, sliding must decelerate at μg, converged forces are
// independent of h, separated/redundant contacts must not upset the solve, small and large h).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <iterator>
#include <numbers>
#include <sstream>

#include "runtime/runtime_fixtures.h"

namespace talon {
namespace {

using testing::com;
using testing::velocity;

constexpr double kG = 9.81;

double energy(runtime::WorldBatch& w) {
  const Vec3 v = velocity(w, 0, 0), omega = testing::angular_velocity(w, 0, 0);
  return kG * com(w, 0, 0).z() + 0.5 * v.squaredNorm() + 0.5 * 0.004 * omega.squaredNorm();
}

// A 1 kg cube of side 0.2 m resting on the floor (friction μ on both geoms), with gravity
// `gravity`: a horizontal component is a tangential load without an actuator.
// The costs of the regularised step (docs/design.md, "The step equations"; issue #15's
// bounds): sliding deceleration within 0.2 % of μg, creep of a sticking contact below 1e-6
// m/s, resting depth κ_n h² g ≤ 1e-5 m at h = 0.1.
constexpr double kDecelTolerance = 2e-3;
constexpr double kCreep = 1e-6;
constexpr double kRestDepth = 1e-5;

// A force (N) on a 1 kg body from a converged step is exact to 2 m · tolerance / h: the Newton
// iteration stops once ‖L F‖ is below the tolerance (m/s), and both the momentum balance and
// the contact row (whose error moves the impulse through the compliance) contribute.
double force_tolerance(double h) {
  return 2 * codegen::SolverOptions{}.convergence_tolerance / h;
}

std::string box_on_floor(double mu, const Vec3& gravity) {
  std::ostringstream xml;
  xml << "<mujoco model='box'><option gravity='" << gravity.x() << " " << gravity.y() << " "
      << gravity.z() << "'/><worldbody><geom name='floor' type='plane' size='0 0 1' friction='"
      << mu
      << "'/><body name='box' pos='0 0 0.1'><freejoint/><geom name='box' type='box' "
         "size='0.1 0.1 0.1' mass='1' friction='"
      << mu << "'/></body></worldbody></mujoco>";
  return xml.str();
}

// Σ over the frictional contacts of the impulse along world x (the floor's tangent basis is
// (x, y) for its normal +z: Duff et al.'s branch-free basis, used by the lowering).
double friction_impulse_x(const Simulator& sim, runtime::WorldBatch& worlds) {
  const std::vector<double> lambda = sim.impulses(worlds, 0);
  double sum = 0;
  for (const ir::ContactSlot& slot : sim.program().slots)
    if (slot.friction_row >= 0) sum += lambda[slot.friction_row];
  return sum;
}

double normal_impulse(const Simulator& sim, runtime::WorldBatch& worlds) {
  const std::vector<double> lambda = sim.impulses(worlds, 0);
  double sum = 0;
  for (const ir::ContactSlot& slot : sim.program().slots) sum += lambda[slot.normal_row];
  return sum;
}

}  // namespace

TEST_CASE("a dropped sphere comes to rest on the floor", "[physics][contact]") {
  const double h = GENERATE(0.01, 0.05, 0.1);
  INFO("h = " << h);
  const Simulator sim = testing::make_simulator(testing::shipped_model("sphere_drop.xml"));
  runtime::WorldBatch w = sim.make_worlds(1);
  double previous = energy(w), lowest_gap = INFINITY;
  const int steps = static_cast<int>(std::lround(1.5 / h));
  for (int k = 0; k < steps; ++k) {
    sim.step(w, h);
    REQUIRE(w.status[0] == runtime::kWorldOk);
    lowest_gap = std::min(lowest_gap, testing::smallest(sim.contact_gaps(w, 0)));
    // Backward Euler and inelastic contact never add energy. The compliant contact is a
    // spring, f = −g/(κ h² w) at gap g < 0 (w = 1/m = 1/kg through the centre), whose stored
    // energy g²/(2κh²w) counts: the impact compresses it, and it gives some back.
    double e = energy(w);
    for (const double gap : sim.contact_gaps(w, 0))
      if (gap < 0) e += gap * gap / (2 * ir::LowerOptions{}.contact_compliance * h * h);
    // Each step is solved to the Newton tolerance (velocity), so to m g h · tolerance in energy.
    CHECK(e <= previous + kG * h * codegen::SolverOptions{}.convergence_tolerance);
    previous = e;
  }
  CHECK(lowest_gap > -1e-4);  // penetration below 0.1 mm
  CHECK(com(w, 0, 0).z() == Approx(0.1).margin(1e-4));
  CHECK(velocity(w, 0, 0).norm() < 1e-6);
  // At rest the normal force carries the weight, whatever h: impulse / h = m g.
  CHECK(normal_impulse(sim, w) / h == Approx(kG).margin(force_tolerance(h)));
}

TEST_CASE("a box launched at 2 m/s decelerates at mu g and stops for good", "[physics][friction]") {
  const double h = GENERATE(0.01, 0.05, 0.1);
  INFO("h = " << h);
  const double mu = 0.5, decel = mu * kG;
  const Simulator sim = testing::make_simulator(testing::shipped_model("sliding_box.xml"));
  runtime::WorldBatch w = sim.make_worlds(1);
  w.u_of(0)[0] = 2;
  double v = 2, x = 0;  // the backward-Euler answer: v⁺ = max(v − μgh, 0), x⁺ = x + h v⁺
  double x_stopped = -1;
  const int steps = static_cast<int>(std::lround(1.0 / h));
  for (int k = 0; k < steps; ++k) {
    const double v_before = velocity(w, 0, 0).x();
    sim.step(w, h);
    REQUIRE(w.status[0] == runtime::kWorldOk);
    v = std::max(v - decel * h, 0.0);
    x += h * v;
    const double v_now = velocity(w, 0, 0).x();
    if (v > 0) {
      // μg to the regularisation's cost (docs/design.md, "The step equations"): the
      // compliant corners let the normal force ring by ~1e-4 of m g as the box pitches under
      // its friction; the bound is 0.2 %.
      CHECK((v_before - v_now) / h == Approx(decel).epsilon(kDecelTolerance));
      CHECK(v_now == Approx(v).margin(kDecelTolerance * (2 - v) + 1e-9));
    } else {
      CHECK(std::abs(v_now) < 1e-4);
      if (x_stopped < 0) x_stopped = com(w, 0, 0).x();
      CHECK(com(w, 0, 0).x() > x_stopped - 1e-5);  // no creeping back
    }
    CHECK(std::abs(velocity(w, 0, 0).y()) < 1e-8);
  }
  CHECK(com(w, 0, 0).x() == Approx(x).margin(kDecelTolerance * x));
  CHECK(std::abs(velocity(w, 0, 0).x()) < kCreep);
}

// A box rolled along the floor, end over end about its x axis, at 30 rad/s. The step sees the
// contact only at the end pose: where a step turned the box by π/2 it landed flush on its next
// face with no edge in between, so no impact took energy out, and at h = 0.05 it rolled on at
// 31.4 rad/s for ever. With the turn of a geom in contact capped at π/4 a step
// (talon_contact_turns_resolved, codegen/solver/talon_newton.h) it stops at every h. Where it
// stops is first order in the turn a step takes: 0.40 m at h = 0.002, 0.47 m at h = 0.01,
// 1.43 m at h = 0.05 (bench/RESULTS.md, thirtieth session); before, 3.7 m in 2 s and rolling.
TEST_CASE("a box rolled end over end along the floor stops at every h", "[physics][contact]") {
  const double h = GENERATE(0.01, 0.05, 0.1);
  INFO("h = " << h);
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(R"(
<mujoco model="rolled box"><worldbody>
  <geom name="floor" type="plane" size="0 0 1" friction="0.5"/>
  <body name="box" pos="0 0 0.05"><freejoint/>
    <geom type="box" size="0.07 0.06 0.05" mass="1" friction="0.5"/></body>
</worldbody></mujoco>)"));
  runtime::WorldBatch w = sim.make_worlds(1);
  const std::array<double, 6> rolling{0, -1.8, 0, 30, 0, 0};
  std::copy(rolling.begin(), rolling.end(), w.u_of(0).begin());
  for (int k = 0; k < static_cast<int>(std::lround(2 / h)); ++k) {
    sim.step(w, h);
    REQUIRE((w.status[0] & runtime::kWorldFailed) == 0);
  }
  CHECK(velocity(w, 0, 0).norm() < 1e-4);
  CHECK(testing::angular_velocity(w, 0, 0).norm() < 1e-3);
  CHECK(com(w, 0, 0).y() > -2);  // rolled towards -y, and stopped
  CHECK(com(w, 0, 0).y() < -0.3);
  // lying on one of its faces: the half-sizes 0.05, 0.06, 0.07 m
  const double height = com(w, 0, 0).z();
  CHECK(std::min({std::abs(height - 0.05), std::abs(height - 0.06), std::abs(height - 0.07)}) <
        1e-4);
}

// A capsule lying on the floor, spun about its own axis, skids until it rolls. Friction acts
// at the contact line, so the angular momentum about it, I ω + m r v, is the same before and
// after: it rolls at ω = I ω₀ / (I + m r²), v = ω r.
TEST_CASE("a capsule spun about its axis on the floor rolls away at I w0 over I + m r r",
          "[physics][contact]") {
  const double h = GENERATE(0.01, 0.05, 0.1);
  INFO("h = " << h);
  const Model model = testing::model_from_mjcf(R"(
<mujoco model="skidding capsule"><worldbody>
  <geom name="floor" type="plane" size="0 0 1" friction="0.5"/>
  <body name="capsule" pos="0 0 0.04" euler="90 0 0"><freejoint/>
    <geom type="capsule" size="0.04 0.1" mass="1" friction="0.5"/></body>
</worldbody></mujoco>)");
  const Simulator sim = testing::make_simulator(model);
  const double mass = model.sim_mass[0], radius = 0.04, spin = 100;
  const Vec3 axis = model.sim_pose_world[0].quat * Vec3(0, 0, 1);  // along the world's y
  REQUIRE(std::abs(axis.y()) == Approx(1));
  const double inertia =
      axis.dot(model.sim_pose_world[0].quat * (model.sim_inertia[0] * Vec3(0, 0, 1)));
  runtime::WorldBatch w = sim.make_worlds(1);
  const std::array<double, 6> spun{0, 0, 0, 0, spin, 0};
  std::copy(spun.begin(), spun.end(), w.u_of(0).begin());
  for (int k = 0; k < static_cast<int>(std::lround(1 / h)); ++k) {
    sim.step(w, h);
    REQUIRE(w.status[0] == runtime::kWorldOk);
  }
  const double rolling = inertia * spin / (inertia + mass * radius * radius);
  CHECK(testing::angular_velocity(w, 0, 0).y() == Approx(rolling).epsilon(1e-3));
  CHECK(velocity(w, 0, 0).x() == Approx(rolling * radius).epsilon(1e-3));
  CHECK(std::abs(velocity(w, 0, 0).y()) < 1e-6);
}

TEST_CASE("static friction holds a 2 N load under a 5 N limit", "[physics][friction]") {
  const double h = GENERATE(0.01, 0.05, 0.1);
  INFO("h = " << h);
  // μ m g_z = 5 N; the load is gravity's 2 N horizontal component.
  const Simulator sim =
      testing::make_simulator(testing::model_from_mjcf(box_on_floor(5 / kG, Vec3(2, 0, -kG))));
  runtime::WorldBatch w = sim.make_worlds(1);
  const int steps = static_cast<int>(std::lround(1.0 / h));
  for (int k = 0; k < steps; ++k) {
    sim.step(w, h);
    REQUIRE(w.status[0] == runtime::kWorldOk);
    // Sticking sticks: the regularised friction creeps at R_t λ_t = κ_t k_t λ_t (2e-7 m/s
    // at h = 0.1), bound 1e-6 m/s. The first step settles the box, placed at zero gap, into
    // its compliant rest pose (sunk and tilted by the rest depth), so it is not creep.
    if (k > 0) CHECK(velocity(w, 0, 0).head<2>().norm() < kCreep);
  }
  // The compliant corners tilt the box by ~κ h² g / 0.2 m under the load: its centre moves
  // by at most the contact's rest depth (1e-5 m at h = 0.1), never by creep.
  CHECK(std::abs(com(w, 0, 0).x()) < kRestDepth);
  // Converged forces do not depend on h: friction −2 N, normal m g_z, to the Newton
  // tolerance (1e-6 m/s on the velocity, so m·1e-6/h on a force).
  CHECK(friction_impulse_x(sim, w) / h == Approx(-2).margin(force_tolerance(h)));
  CHECK(normal_impulse(sim, w) / h == Approx(kG).margin(force_tolerance(h)));
}

TEST_CASE("a 6 N load beyond the 5 N limit slides at (6 - 5) / m", "[physics][friction]") {
  const double h = GENERATE(0.01, 0.05, 0.1);
  INFO("h = " << h);
  const Simulator sim =
      testing::make_simulator(testing::model_from_mjcf(box_on_floor(5 / kG, Vec3(6, 0, -kG))));
  runtime::WorldBatch w = sim.make_worlds(1);
  const int steps = static_cast<int>(std::lround(1.0 / h));
  sim.rollout(w, h, steps);
  REQUIRE(w.status[0] == runtime::kWorldOk);
  CHECK(velocity(w, 0, 0).x() == Approx(1.0 * steps * h).epsilon(kDecelTolerance));
  CHECK(friction_impulse_x(sim, w) / h == Approx(-5).margin(force_tolerance(h)));
}

TEST_CASE("a box on a 40 degree incline with mu 0.6 slides at g (sin - mu cos)",
          "[physics][friction]") {
  const double h = GENERATE(0.01, 0.05, 0.1);
  INFO("h = " << h);
  const double theta = 40 * std::numbers::pi / 180, mu = 0.6;
  // The plane and the box turned by 40° about y: the normal leans to +x, downhill is
  // d = (cos θ, 0, −sin θ).
  const Vec3 n(std::sin(theta), 0, std::cos(theta)), down(std::cos(theta), 0, -std::sin(theta));
  const Vec3 start = 0.1 * n;
  std::ostringstream xml;
  xml << "<mujoco model='incline'><worldbody><geom name='ramp' type='plane' size='0 0 1' "
         "euler='0 40 0' friction='0.6'/><body name='box' pos='"
      << start.x() << " 0 " << start.z()
      << "' euler='0 40 0'><freejoint/><geom type='box' size='0.1 0.1 0.1' mass='1' "
         "friction='0.6'/></body></worldbody></mujoco>";
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(xml.str()));
  runtime::WorldBatch w = sim.make_worlds(1);
  const int steps = static_cast<int>(std::lround(1.0 / h));
  sim.rollout(w, h, steps);
  REQUIRE(w.status[0] == runtime::kWorldOk);
  const double expected = kG * (std::sin(theta) - mu * std::cos(theta));
  CHECK(velocity(w, 0, 0).dot(down) / (steps * h) == Approx(expected).epsilon(0.01));
  CHECK(std::abs(velocity(w, 0, 0).dot(n)) < 1e-6);  // it stays on the ramp
  CHECK(testing::angular_velocity(w, 0, 0).norm() < 1e-4);
}

// At h = 0.4 the launched box has to stop within its first step (2 m/s − μgh = 0.04 m/s);
// Newton does not converge there in 16 iterations and the box tumbles (finite, flagged not
// converged): a known limit, reported with the step issue.
TEST_CASE("drop and slide stay finite from h = 1e-3 to 0.4", "[physics][contact]") {
  const double h = GENERATE(1e-3, 3e-3, 0.01, 0.03, 0.1, 0.2, 0.4);
  INFO("h = " << h);
  for (const char* file : {"sphere_drop.xml", "sliding_box.xml"}) {
    INFO(file);
    const Simulator sim = testing::make_simulator(testing::shipped_model(file));
    runtime::WorldBatch w = sim.make_worlds(1);
    if (std::string(file) == "sliding_box.xml") w.u_of(0)[0] = 2;  // a sphere would roll on
    const int steps = std::max(2, static_cast<int>(std::lround(1.2 / h)));
    double lowest_gap = INFINITY;
    for (int k = 0; k < steps; ++k) {
      sim.step(w, h);
      REQUIRE((w.status[0] & runtime::kWorldFailed) == 0);
      lowest_gap = std::min(lowest_gap, testing::smallest(sim.contact_gaps(w, 0)));
    }
    if (h > 0.2) continue;  // finite is all that is asked of h = 0.4 (see below)
    CHECK(lowest_gap > -1e-3);
    CHECK(com(w, 0, 0).z() == Approx(0.1).margin(1e-3));  // resting on the floor
    CHECK(velocity(w, 0, 0).norm() < 1e-3);
  }
}

// Equal boxes stacked exactly: each box-box pair's faces coincide, and the separating-axis
// collider (ir/lower/box_box.h) holds each upper box on its four bottom corners. Resting
// contact between moving bodies: every box stays where it was put, the stack does not sink
// into itself or creep sideways.
// Steps `sim` for 3 s at h = 0.1 and checks that every box stays within 1 mm of where it was
// put, at rest, with no contact penetrating by more than 0.1 mm, and, with `whole_steps`, that
// no step split into substeps (issue #15's bar for box stacks).
void check_stack_rests(const Simulator& sim, bool whole_steps = true) {
  runtime::WorldBatch w = sim.make_worlds(1);
  const int boxes = sim.program().nsim;
  std::vector<Vec3> placed;
  for (int b = 0; b < boxes; ++b) placed.push_back(com(w, 0, b));
  for (int k = 0; k < 30; ++k) {
    INFO("step " << k + 1);
    sim.step(w, 0.1);
    REQUIRE((w.status[0] & runtime::kWorldFailed) == 0);
    if (whole_steps) CHECK(w.stats_of(0)[codegen::kStatSubsteps] == 1);
    CHECK(testing::smallest(sim.contact_gaps(w, 0)) > -1e-4);
  }
  for (int b = 0; b < boxes; ++b) {
    INFO("box " << b);
    CHECK((com(w, 0, b) - placed[b]).norm() < 1e-3);
    CHECK(velocity(w, 0, b).norm() < 1e-4);
  }
}

TEST_CASE("three stacked boxes rest on each other at h = 0.1", "[physics][contact]") {
  const Simulator sim = testing::make_simulator(testing::shipped_model("box_stack.xml"));
  check_stack_rests(sim);
}

// Boxes of different sizes stacked offset, the top one's face flush with the middle one's
// (models/box_tower.xml): reference faces of either box, contact polygons clipped to the
// smaller face, and an edge on an edge of the support.
TEST_CASE("a tower of three different boxes, offset, one edge flush, rests at h = 0.1",
          "[physics][contact]") {
  const Simulator sim = testing::make_simulator(testing::shipped_model("box_tower.xml"));
  check_stack_rests(sim);
}

// The same stack with the upper boxes shifted and turned about z: face contact on clipped
// polygons (an octagon where two boxes turn against each other), not only coincident faces.
TEST_CASE("three boxes stacked askew rest on each other at h = 0.1", "[physics][contact]") {
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(R"(
<mujoco model="askew_stack">
  <default><geom type="box" size="0.1 0.1 0.1" mass="1"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body pos="0 0 0.1"><freejoint/><geom/></body>
    <body pos="0.03 -0.02 0.3" euler="0 0 10"><freejoint/><geom/></body>
    <body pos="-0.01 0.03 0.5" euler="0 0 -25"><freejoint/><geom/></body>
  </worldbody>
</mujoco>)"));
  check_stack_rests(sim);
}

// A box lying on its side on a larger box's top, overhanging one of its corners (the pose
// the primitive pile's upper box came to rest in). The two faces lie flat on each other, so
// which of them is the reference face ties and flips with rounding between the step's start
// and its end pose; box-box's slots follow the box whose edge holds each point, so the
// settle's re-choice keeps every impulse on its point. By reference and incident role the
// halves of the slots swapped at the flip, and every step split (37.8 Newton updates a step;
// bench/RESULTS.md, twenty-third session).
TEST_CASE("a box lying on its side over a box's corner rests at h = 0.1 without a split step",
          "[physics][contact]") {
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(R"(
<mujoco model="box_on_corner">
  <default><geom type="box" friction="0.8" mass="0.5"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body pos="0 0 0.1"><freejoint/><geom size="0.1 0.1 0.1"/></body>
    <body pos="0.0832 -0.0859 0.26" quat="0.6875 0.6875 0.1654 0.1654">
      <freejoint/><geom size="0.07 0.06 0.05"/>
    </body>
  </worldbody>
</mujoco>)"));
  check_stack_rests(sim);
}

}  // namespace talon

namespace talon {

// A capsule lying across a box, its ends beyond the box's sides, rests on its axis clipped to
// the box's top (capsule-box's clipped slots, over the top's two edges). With the end spheres
// alone nothing touched the box, and the capsule fell through it to the floor. It lies over
// the box's centre line y = 0: off it, its weight tilts the box on the floor's compliance
// (~5e-6 rad), and a capsule rolls down any slope (0.16 mm in 3 s from y = 0.01).
TEST_CASE("a capsule lying across a box rests on it at h = 0.1 and 0.05", "[physics][contact]") {
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(R"(
<mujoco model="capsule_across_box">
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1" friction="0.5"/>
    <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body pos="0.02 0 0.24" euler="0 90 0">
      <freejoint/><geom type="capsule" size="0.04 0.2" mass="0.5"/>
    </body>
  </worldbody>
</mujoco>)"));
  check_stack_rests(sim);
  for (const double h : {0.1, 0.05}) {
    INFO("h = " << h);
    runtime::WorldBatch w = sim.make_worlds(1);
    for (int k = 0; k < 20; ++k) sim.step(w, h);
    CHECK(com(w, 0, 1).z() == Approx(0.24).margin(1e-4));  // box top 0.2 + capsule radius
  }
}

// The cylinder colliders (ir/lower/contact_geometry.h): a ball on an upright post's top disc,
// and a capsule lying across two horizontal rollers (a log on two rails) touching each at
// the capsule's point over the roller's axis. Both rest where the geometry puts them.
TEST_CASE("a ball rests on a post and a capsule across two rollers", "[physics][contact]") {
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(R"(
<mujoco model="cylinder_pairs">
  <worldbody>
    <geom name="post" type="cylinder" size="0.2 0.1" pos="0 0 0.1"/>
    <geom name="roller_a" type="cylinder" size="0.1 0.3" pos="1 -0.15 0.1" euler="0 90 0"/>
    <geom name="roller_b" type="cylinder" size="0.1 0.3" pos="1 0.15 0.1" euler="0 90 0"/>
    <body name="ball" pos="0.05 0.02 0.25"><freejoint/><geom type="sphere" size="0.05" mass="1"/></body>
    <body name="log" pos="1.02 0 0.23" euler="90 0 0">
      <freejoint/><geom type="capsule" size="0.03 0.25" mass="2"/>
    </body>
  </worldbody>
</mujoco>)"));
  // Ball: the post, two rollers, the log (1 slot each); log: the post and two rollers (3 each).
  REQUIRE(sim.program().slots.size() == 4 + 3 * 3);
  check_stack_rests(sim);
  runtime::WorldBatch w = sim.make_worlds(1);
  for (int k = 0; k < 30; ++k) sim.step(w, 0.1);
  CHECK(com(w, 0, 0).z() == Approx(0.25).margin(1e-4));  // post top 0.2 + ball radius
  CHECK(com(w, 0, 1).z() == Approx(0.23).margin(1e-4));  // roller top 0.2 + capsule radius
}

// An upright cylinder on the floor rests on its disc's centre, and one let go 3° off upright
// rights itself (plane_cylinder's point moves to the rim in proportion to the tilt,
// kUprightBlend; it used to jump there within 1e-9 rad, and both cans diverged).
TEST_CASE("cans standing on the floor, one let go tilted, rest upright at h = 0.1",
          "[physics][contact]") {
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(R"(
<mujoco model="cans_on_floor">
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body pos="0 0 0.1"><freejoint/><geom type="cylinder" size="0.1 0.1" mass="1"/></body>
    <body pos="1 0 0.1" euler="3 0 0"><freejoint/><geom type="cylinder" size="0.1 0.1" mass="1"/></body>
  </worldbody>
</mujoco>)"));
  runtime::WorldBatch w = sim.make_worlds(1);
  for (int k = 0; k < 30; ++k) {
    sim.step(w, 0.1);
    REQUIRE(w.status[0] == runtime::kWorldOk);
  }
  for (int b = 0; b < 2; ++b) {
    INFO("can " << b);
    CHECK(com(w, 0, b).z() <= 0.1);
    CHECK(com(w, 0, b).z() >= 0.1 - kRestDepth);
    const Quat turn(w.q[7 * b + 3], w.q[7 * b + 4], w.q[7 * b + 5], w.q[7 * b + 6]);
    CHECK((turn * Vec3::UnitZ()).z() > 1 - 1e-9);
    CHECK(velocity(w, 0, b).norm() < 1e-6);
  }
}

// Cylinder against cylinder (ir/lower/contact_geometry.cpp, cylinder_cylinder;
// tests/data/scenes/cylinder_stacks.xml): a can on a post, a smaller can on it 6 cm off
// axis, a log across two rollers. Each rests flat at the height the geometry gives, less the
// compliant rows' depth: a contact holding a share λ of a weight sinks by κ_n h² w_nn λ/h
// (w_nn its row's inverse effective mass); the four lens corners that share each can's load
// have w_nn ≈ 2.6 (the can's tilt lever included), about kRestDepth per layer of the stack,
// and the log's two roller contacts each hold 1 kg with w_nn = 1/2 + 0.15²/I (I = 0.043 kg m²
// about the rollers' direction): 1.03 kRestDepth.
TEST_CASE("cans stacked on a post and a log across two rollers rest at h = 0.1",
          "[physics][contact]") {
  const Simulator sim = testing::make_simulator(testing::test_scene("cylinder_stacks.xml"));
  // No step splits. From the cold start the first step does not converge: the proximal term
  // of the Newton direction (codegen/solver/talon_newton.h, ρ = 0.1 ‖F‖) damps the cans' tilt
  // through their friction rows, each update takes only ~0.4 of the residual off, and the 16
  // updates run out (bench/RESULTS.md, seventeenth session). The step is then solved again
  // from the free-flight start (talon_retry_step; a first step has no warm start) and
  // converges there (bench/RESULTS.md, twenty-fifth session).
  check_stack_rests(sim);
  runtime::WorldBatch w = sim.make_worlds(1);
  for (int k = 0; k < 30; ++k) sim.step(w, 0.1);
  const double placed[] = {0.3, 0.45, 0.25}, depth[] = {1.5, 3, 1.03};
  for (int b = 0; b < 3; ++b) {
    INFO("body " << b);
    CHECK(com(w, 0, b).z() <= placed[b]);
    CHECK(com(w, 0, b).z() >= placed[b] - depth[b] * kRestDepth);
    const Quat turn(w.q[7 * b + 3], w.q[7 * b + 4], w.q[7 * b + 5], w.q[7 * b + 6]);
    const Vec3 axis = turn * Vec3::UnitZ();
    CHECK(std::abs(b == 2 ? axis.y() : axis.z()) > 1 - 1e-6);  // flat (the log along y)
  }
}

// The can of cylinder_stacks.xml alone on its post (tests/data/scenes/can_on_post.xml): no
// step splits. Its first step did while the lens corners were measured against the nearest
// surface of the can: the cold solve's first update sank it 3.9 cm, below its corners'
// distance to its rim, where that surface is its side, and the corners pushed sideways
// (ir/lower/contact_geometry.cpp, end_plane_distance).
TEST_CASE("a can standing on a wider post rests at h = 0.1 without a split step",
          "[physics][contact]") {
  check_stack_rests(testing::make_simulator(testing::test_scene("can_on_post.xml")));
}

}  // namespace talon

namespace talon {

namespace {

// A scene of tests/data/scenes with its mesh geom `mesh_geom` (the whole element) replaced by
// `primitive` and its assets dropped: the reference a mesh collider must agree with.
Model scene_with_primitive(const std::string& file, const std::string& mesh_geom,
                           const std::string& primitive) {
  std::ifstream in(std::string(TALON_TEST_DATA_DIR) + "/scenes/" + file);
  std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t geom = xml.find(mesh_geom);
  REQUIRE(geom != std::string::npos);
  xml.replace(geom, mesh_geom.size(), primitive);
  const std::size_t asset = xml.find("<asset>"), end = xml.find("</asset>");
  REQUIRE(end != std::string::npos);
  xml.erase(asset, end + std::string("</asset>").size() - asset);
  return testing::model_from_mjcf(xml, file);
}

// Steps a scene and its reference for `seconds` at h; the scene's world must stay finite.
void step_side_by_side(const Simulator& sim, runtime::WorldBatch& w, const Simulator& reference,
                       runtime::WorldBatch& reference_w, double h, double seconds) {
  for (int k = 0; k < static_cast<int>(std::lround(seconds / h)); ++k) {
    sim.step(w, h);
    reference.step(reference_w, h);
    REQUIRE(w.status[0] == runtime::kWorldOk);
  }
}

}  // namespace

// A mesh geom collides through its convex hull's support points (ir/lower/contact_geometry.h,
// plane_hull): a cube given as an OBJ mesh (tests/data/scenes/mesh_cube_drop.xml: the unit
// cube with a corner at the origin, scaled to 0.1 m, turned 25° about z) dropped from 5 cm
// comes to rest flat on a face, its centre half a side above the floor to within the
// resting depth, and where the same cube as a box primitive rests.
TEST_CASE("a mesh cube dropped on the floor rests on a face at h = 0.1 and 0.05",
          "[physics][contact][mesh]") {
  const Simulator mesh = testing::make_simulator(testing::test_scene("mesh_cube_drop.xml"));
  REQUIRE(mesh.program().slots.size() == 8);
  const Simulator box = testing::make_simulator(testing::model_from_mjcf(R"(
<mujoco model="box_cube_drop">
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1" friction="0.8"/>
    <body name="cube" pos="0 0 0.05" euler="0 0 25">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05" pos="0.05 0.05 0.05" friction="0.8" density="1000"/>
    </body>
  </worldbody>
</mujoco>)"));
  for (const double h : {0.1, 0.05}) {
    INFO("h = " << h);
    runtime::WorldBatch w = mesh.make_worlds(1), reference = box.make_worlds(1);
    step_side_by_side(mesh, w, box, reference, h, 2);
    // The centre is half the side above the face, less the resting depth.
    CHECK(com(w, 0, 0).z() <= 0.05);
    CHECK(com(w, 0, 0).z() >= 0.05 - kRestDepth);
    const Quat turn(w.q[3], w.q[4], w.q[5], w.q[6]);
    CHECK(std::abs((turn * Vec3::UnitZ()).z() - 1) < 1e-9);  // flat on its face
    CHECK(velocity(w, 0, 0).norm() < 1e-6);
    CHECK((com(w, 0, 0) - com(reference, 0, 0)).norm() < kRestDepth);
  }
}

}  // namespace talon

namespace talon {

// Mesh hulls on mesh hulls and on a box (ir/lower/polytope_contacts.h;
// tests/data/scenes/mesh_stacks.xml): a cube on a cube, turned 30° and shifted 3 cm, and a
// cube on a box slab, each dropped from touching. Every body comes to rest flat where it was
// put, lower by the compliant rows' depth, which grows with the load a body carries and its
// contacts' levers (κ_n h² w_nn λ/h per row, λ ∝ h): at h = 0.1 the bottom cube (two cubes'
// weight on four corners) sinks 1.07e-5 m, the top one 1.82e-5 m (its own and the bottom's
// depth), the slab 2.2e-5 m and the cube on it 3.6e-5 m; four times less at h = 0.05.
TEST_CASE("mesh cubes stacked on a mesh cube and on a box rest at h = 0.1 and 0.05",
          "[physics][contact][mesh]") {
  const Simulator sim = testing::make_simulator(testing::test_scene("mesh_stacks.xml"));
  REQUIRE(sim.program().slots.size() == 3 * 8 + 8 + 2 * 16);  // three plane–mesh pairs
  const double placed[] = {0.05, 0.15, 0.025, 0.1}, depth[] = {1.5, 2.5, 3, 4.5};
  for (const double h : {0.1, 0.05}) {
    INFO("h = " << h);
    runtime::WorldBatch w = sim.make_worlds(1);
    std::vector<Vec3> start;
    for (int b = 0; b < 4; ++b) start.push_back(com(w, 0, b));
    for (int k = 0; k < static_cast<int>(std::lround(2 / h)); ++k) {
      sim.step(w, h);
      REQUIRE(w.status[0] == runtime::kWorldOk);
    }
    for (int b = 0; b < 4; ++b) {
      INFO("body " << b);
      CHECK(com(w, 0, b).z() <= placed[b]);
      CHECK(com(w, 0, b).z() >= placed[b] - depth[b] * (h / 0.1) * (h / 0.1) * kRestDepth);
      CHECK((com(w, 0, b) - start[b]).head<2>().norm() < 1e-5);
      const Quat turn(w.q[7 * b + 3], w.q[7 * b + 4], w.q[7 * b + 5], w.q[7 * b + 6]);
      CHECK((turn * Vec3::UnitZ()).z() > 1 - 1e-9);  // flat
      CHECK(velocity(w, 0, b).norm() < 1e-6);
    }
  }
}

}  // namespace talon

namespace talon {

// Spheres and capsules against a mesh hull (ir/lower/polytope_contacts.h, point_polytope;
// tests/data/scenes/mesh_ledge.xml): on a static mesh block a ball and a capsule rest exactly
// where they rest on the same block as a box primitive, and a small ball rolling at 0.4 m/s
// goes over the block's edge and rolls on along the floor to where it goes from the box: the
// hull measures a point as point_box measures a box, its edges too. (Where it ends depends on
// h, the edge turning it within one or two steps: x = 1.089, 1.334 and 0.910 at h = 0.1, 0.05
// and 0.01. Measured along the edge's direction at the step's start, the mesh block's ended
// at 0.909 at h = 0.1 and 0.05 and 0.887 at h = 0.01: bench/RESULTS.md, twenty-sixth session.)
TEST_CASE("a ball and a capsule rest on a mesh block as on a box, a ball rolls off its edge",
          "[physics][contact][mesh]") {
  const Simulator mesh = testing::make_simulator(testing::test_scene("mesh_ledge.xml"));
  // the floor: ball 1, capsule 2, roller 1; the block: the same, the capsule 2 more for its
  // clipped axis; the three bodies pairwise: 1 each
  REQUIRE(mesh.program().slots.size() == 4 + 6 + 3);
  const Simulator box = testing::make_simulator(scene_with_primitive(
      "mesh_ledge.xml", R"(<geom name="block" type="mesh" mesh="block" pos="-0.1 -0.1 0"/>)",
      R"(<geom name="block" type="box" size="0.1 0.1 0.1" pos="0 0 0.1"/>)"));
  for (const double h : {0.1, 0.05}) {
    INFO("h = " << h);
    runtime::WorldBatch w = mesh.make_worlds(1), reference = box.make_worlds(1);
    for (runtime::WorldBatch* batch : {&w, &reference}) {
      batch->u[12] = 0.4;  // the roller: 0.4 m/s along x, rolling (ω_y = v / r)
      batch->u[16] = 16;
    }
    step_side_by_side(mesh, w, box, reference, h, 2);
    for (int b = 0; b < 2; ++b) {
      INFO("body " << b);
      CHECK((com(w, 0, b) - com(reference, 0, b)).norm() < 1e-9);
      CHECK(velocity(w, 0, b).norm() < 1e-6);
    }
    // The roller's two runs part by the solves' tolerance (1e-6 m/s) over its 2 s of rolling:
    // 7e-7 m at h = 0.1 (0.18 m at h = 0.1 with the edge measured at the start).
    CHECK((com(w, 0, 2) - com(reference, 0, 2)).norm() < 1e-5);
    CHECK(com(w, 0, 0).z() >= 0.25 - kRestDepth);
    CHECK(com(w, 0, 2).x() > 0.5);
    CHECK(com(w, 0, 2).z() <= 0.025);
    CHECK(com(w, 0, 2).z() >= 0.025 - kRestDepth);
    CHECK(std::abs(com(w, 0, 2).y() + 0.06) < 1e-6);
  }
}

// A capsule lying across a mesh block, both its ends beyond the block's sides, rests on its
// axis clipped to the block's top (capsule–mesh's clipped slots; tests/data/scenes/
// capsule_across_mesh.xml) where it rests on the same block as a box primitive. With the end
// spheres alone nothing touched the block, and it fell through it to the floor (z = 0.04).
TEST_CASE("a capsule lying across a mesh block rests on it as on a box",
          "[physics][contact][mesh]") {
  const Simulator mesh = testing::make_simulator(testing::test_scene("capsule_across_mesh.xml"));
  const Simulator box = testing::make_simulator(scene_with_primitive(
      "capsule_across_mesh.xml",
      R"(<geom name="block" type="mesh" mesh="block" pos="-0.1 -0.1 0" friction="0.5"/>)",
      R"(<geom name="block" type="box" size="0.1 0.1 0.1" pos="0 0 0.1" friction="0.5"/>)"));
  for (const double h : {0.1, 0.05}) {
    INFO("h = " << h);
    runtime::WorldBatch w = mesh.make_worlds(1), reference = box.make_worlds(1);
    step_side_by_side(mesh, w, box, reference, h, 3);
    CHECK(com(w, 0, 0).z() == Approx(0.24).margin(1e-4));  // block top 0.2 + capsule radius
    CHECK((com(w, 0, 0) - com(reference, 0, 0)).norm() < 1e-9);
    CHECK(velocity(w, 0, 0).norm() < 1e-6);
  }
}
}  // namespace talon

namespace talon {

// Cylinders on a box and on the same box as a mesh hull (box_cylinder and cylinder_hull,
// ir/lower/contact_geometry.cpp; tests/data/scenes/cans_on_mesh_table.xml): an upright can
// rests on its disc's centre and a can let go 3° off upright rights itself, on both tables
// alike. On the box the upright can used to diverge (its rim point jumped from the disc's
// centre to the rim within 1e-9 rad of tilt, as on a plane before kUprightBlend).
TEST_CASE("cans on a table, a box or a mesh hull, rest upright at h = 0.1 and 0.05",
          "[physics][contact][mesh]") {
  const Simulator mesh = testing::make_simulator(testing::test_scene("cans_on_mesh_table.xml"));
  const Simulator box = testing::make_simulator(
      scene_with_primitive("cans_on_mesh_table.xml",
                           R"(<geom name="table" type="mesh" mesh="table" pos="-0.3 -0.3 0"/>)",
                           R"(<geom name="table" type="box" size="0.3 0.3 0.1" pos="0 0 0.1"/>)"));
  const double placed[] = {0.3, 0.26};
  for (const double h : {0.1, 0.05}) {
    INFO("h = " << h);
    runtime::WorldBatch w = mesh.make_worlds(1), reference = box.make_worlds(1);
    step_side_by_side(mesh, w, box, reference, h, 3);
    REQUIRE(reference.status[0] == runtime::kWorldOk);
    for (int b = 0; b < 2; ++b) {
      INFO("can " << b);
      CHECK(com(reference, 0, b).z() <= placed[b]);
      CHECK(com(reference, 0, b).z() >= placed[b] - kRestDepth);
      const Quat turn(reference.q[7 * b + 3], reference.q[7 * b + 4], reference.q[7 * b + 5],
                      reference.q[7 * b + 6]);
      CHECK((turn * Vec3::UnitZ()).z() > 1 - 1e-9);
      CHECK(velocity(reference, 0, b).norm() < 1e-6);
      CHECK((com(w, 0, b) - com(reference, 0, b)).norm() < 1e-9);
    }
  }
}

}  // namespace talon
