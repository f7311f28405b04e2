// A free rigid body at large steps: the implicit gyroscopic torque (ir/lower/dynamics.cpp)
// keeps a tumbling body's kinetic energy from growing and its spin about a symmetry axis
// exact, at any h.
#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>

#include "runtime/runtime_fixtures.h"

namespace talon {
namespace {

Quat orientation(runtime::WorldBatch& w, int b) {
  const auto q = w.q_of(0);
  return Quat(q[7 * b + 3], q[7 * b + 4], q[7 * b + 5], q[7 * b + 6]).normalized();
}

// The inertia about the COM in world axes (the sim frame's inertia turned by its orientation).
Mat3 world_inertia(const Simulator& sim, runtime::WorldBatch& w, int b) {
  const Mat3 r = orientation(w, b).toRotationMatrix();
  return r * sim.model().sim_inertia[b] * r.transpose();
}

double kinetic_energy(const Simulator& sim, runtime::WorldBatch& w, int b) {
  const Vec3 v = testing::velocity(w, 0, b), omega = testing::angular_velocity(w, 0, b);
  return 0.5 * sim.model().sim_mass[b] * v.squaredNorm() +
         0.5 * omega.dot(world_inertia(sim, w, b) * omega);
}

}  // namespace

// A capsule tumbling in zero gravity at 72 rad/s, 3.6 rad a step at h = 0.05: the torque-free
// motion conserves its energy and its spin about its axis. Backward Euler damps the
// precession (the energy may fall) but must never add energy, and the step keeps the axial
// spin exactly (Euler's third equation has no torque for a symmetric body, and q⁺ turns the
// body about ω⁺ itself). With the gyroscopic torque taken at ω⁻ the same capsule spun up to
// 2000 rad/s within 16 steps and every step split (bench/RESULTS.md, twenty-fourth session).
TEST_CASE("a tumbling capsule neither gains energy nor loses its axial spin at h = 0.1 and 0.05",
          "[physics][dynamics]") {
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(R"(
<mujoco model="tumbling_capsule">
  <option gravity="0 0 0"/>
  <worldbody>
    <body pos="0 0 1" euler="30 20 10">
      <freejoint/><geom type="capsule" size="0.035 0.1" mass="0.3"/>
    </body>
  </worldbody>
</mujoco>)"));
  // The symmetry axis (sim frame): the eigenvector of the one distinct principal moment, the
  // smallest for a capsule longer than it is wide.
  const Eigen::SelfAdjointEigenSolver<Mat3> principal(sim.model().sim_inertia[0]);
  const Vec3 symmetry_axis = principal.eigenvectors().col(0);
  REQUIRE(principal.eigenvalues()(1) == Approx(principal.eigenvalues()(2)));
  REQUIRE(principal.eigenvalues()(0) < 0.5 * principal.eigenvalues()(1));
  for (const double h : {0.1, 0.05}) {
    INFO("h = " << h);
    runtime::WorldBatch w = sim.make_worlds(1);
    const Vec3 spin(5, 48, -54);
    for (int i = 0; i < 3; ++i) w.u_of(0)[3 + i] = spin[i];
    auto axial_spin = [&] {
      return testing::angular_velocity(w, 0, 0).dot(orientation(w, 0) * symmetry_axis);
    };
    const double axial = axial_spin();
    REQUIRE(std::abs(axial) > 10);
    double energy = kinetic_energy(sim, w, 0);
    for (int k = 0; k < 16; ++k) {
      INFO("step " << k + 1);
      sim.step(w, h);
      REQUIRE(w.status[0] == runtime::kWorldOk);
      CHECK(w.stats[codegen::kStatSubsteps] == 1);
      const double next = kinetic_energy(sim, w, 0);
      CHECK(next <= energy * (1 + 1e-9));
      energy = next;
      CHECK(axial_spin() == Approx(axial).epsilon(1e-9));
    }
  }
}

}  // namespace talon
