// The broadphase (codegen/model_unit_broadphase.cpp): contact pairs whose bounding volumes
// cannot meet within a step are set to their root, no impulse, instead of evaluated, and the
// Newton directions' Jacobian-vector products leave out the evaluated pairs that are open at
// their iterate (talon_open_pairs). The step's root is the same with them as without, so the
// trajectories must agree to the solver's tolerance, through falls onto each other, contacts
// that open and close, and rests.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/runtime_fixtures.h"

namespace talon {
namespace {

using testing::com;
using testing::velocity;

// Balls and capsules falling onto a box, a capsule lying across it and each other, and a ball
// far from everything: pairs that start apart, close, open again and rest, of every kind of
// bounding volume (a point with a radius, a capsule's segment, the floor's half-space) and on
// the world (the post).
const char* const kScene = R"(
<mujoco model="broadphase_scene">
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1" friction="0.6"/>
    <geom name="post" type="cylinder" size="0.05 0.15" pos="-0.6 0 0.15"/>
    <body name="box" pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="log" pos="0.03 0 0.26" euler="0 90 0">
      <freejoint/><geom type="capsule" size="0.04 0.2" mass="0.5"/>
    </body>
    <body name="ball" pos="0.05 0.02 0.6"><freejoint/><geom type="sphere" size="0.05" mass="0.3"/></body>
    <body name="stick" pos="-0.02 0.1 0.9" euler="30 60 0">
      <freejoint/><geom type="capsule" size="0.03 0.12" mass="0.2"/>
    </body>
    <body name="far_ball" pos="2 2 0.3"><freejoint/><geom type="sphere" size="0.05" mass="0.3"/></body>
    <body name="capped" pos="-0.6 0.01 0.5"><freejoint/><geom type="sphere" size="0.04" mass="0.2"/></body>
  </worldbody>
</mujoco>)";

Simulator scene_simulator(bool broadphase) {
  SimulatorOptions options = testing::test_options();
  options.solver.broadphase = broadphase;
  // Both runs converge far below the default tolerance, so that what differs between them is
  // the path Newton took to the one root, not where it stopped.
  options.solver.convergence_tolerance = 1e-10;
  options.solver.trace_capacity = 512;
  return testing::make_simulator(testing::model_from_mjcf(kScene), options);
}

// The merit of every attempt's iterate 0 in a step's trace.
std::vector<double> start_merits(const Simulator& sim, runtime::WorldBatch& worlds) {
  std::vector<double> merits;
  for (const NewtonIterate& iterate : sim.newton_trace(worlds, 0).iterates)
    if (iterate.k == 0) merits.push_back(iterate.merit);
  return merits;
}

}  // namespace

TEST_CASE("the broadphase leaves the step's answer as it is", "[physics][contact][broadphase]") {
  const Simulator with = scene_simulator(true), without = scene_simulator(false);
  // Every pair is bounded: the six bodies' fifteen pairs among themselves, their six with the
  // post and their six with the floor (a half-space).
  CHECK(with.unit().source.find("#define TALON_NBOUNDED 27\n") != std::string::npos);
  CHECK(without.unit().source.find("#define TALON_NBOUNDED 0\n") != std::string::npos);
  // At h where every step converges whole: a step that does not is split, and a split is
  // another answer (backward Euler at h/2) wherever Newton's path decides it.
  for (const double h : {0.02, 0.05}) {
    INFO("h = " << h);
    runtime::WorldBatch a = with.make_worlds(1), b = without.make_worlds(1);
    with.set_trace(a, 0, true);
    without.set_trace(b, 0, true);
    const int bodies = with.program().nsim;
    for (int k = 0; k < static_cast<int>(std::lround(1 / h)); ++k) {
      INFO("step " << k + 1);
      with.step(a, h);
      without.step(b, h);
      REQUIRE((a.status[0] & runtime::kWorldFailed) == 0);
      REQUIRE((b.status[0] & runtime::kWorldFailed) == 0);
      REQUIRE(a.stats_of(0)[codegen::kStatSubsteps] == 1);
      REQUIRE(b.stats_of(0)[codegen::kStatSubsteps] == 1);
      // Every attempt starts from the same iterate 0: the broadphase keeps a pair that holds
      // the last step's impulse (talon_broadphase_update), where setting it apart would clear
      // that impulse and start Newton elsewhere, towards another root of a step that has two
      // (its retry started from θ = 2.1e3 instead of 4.4e3). The states agree to ~1e-9, and so
      // do the merits, relatively.
      const std::vector<double> starts = start_merits(with, a),
                                reference = start_merits(without, b);
      REQUIRE(starts.size() == reference.size());
      for (size_t i = 0; i < starts.size(); ++i)
        CHECK(starts[i] == Approx(reference[i]).epsilon(1e-6).margin(1e-20));
      for (int body = 0; body < bodies; ++body) {
        INFO("body " << body);
        CHECK((com(a, 0, body) - com(b, 0, body)).norm() < 1e-9);
        CHECK((velocity(a, 0, body) - velocity(b, 0, body)).norm() < 1e-8);
      }
    }
    CHECK(com(a, 0, 2).z() < 0.5);                               // the ball fell
    CHECK(com(a, 0, 4).z() == Approx(0.05).margin(1e-4));        // the far ball rests
    CHECK(com(a, 0, 5).z() == Approx(0.3 + 0.04).margin(1e-4));  // on the post
  }
}

}  // namespace talon
