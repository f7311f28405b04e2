// `talon inspect` end to end: the shipped models, MuJoCo's own models (MuJoCo is the
// oracle for counts and mass), and clean failures on bad input.
#include <unistd.h>
#include <catch2/catch.hpp>
#include <filesystem>

#include "run_cli.h"
#include "skip.h"

#ifdef TALON_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace {
const std::string kModels = TALON_MODELS_DIR;
}

TEST_CASE("inspect --json reports the three-wheeled robot (URDF, floating base)") {
  CliResult r = run_talon("inspect " + kModels + "/three_wheeler.urdf --floating-base --json");
  REQUIRE(r.status == 0);
  CHECK(json_number(r.out, "bodies") == 4);
  CHECK(json_number(r.out, "sim_bodies") == 3);  // the ball caster is welded to base_link
  CHECK(json_number(r.out, "dof") == 8);         // free base 6 + 2 wheel hinges
  CHECK(json_number(r.out, "total_mass") == Approx(5.2));
  CHECK(json_number(r.out, "free") == 1);
  CHECK(json_number(r.out, "hinge") == 2);
  // The extension tags are skipped with one note each.
  CHECK_THAT(r.out, Catch::Contains("gazebo"));
}

TEST_CASE("inspect without --floating-base fixes a URDF root to the world") {
  CliResult r = run_talon("inspect " + kModels + "/three_wheeler.urdf --json");
  REQUIRE(r.status == 0);
  CHECK(json_number(r.out, "dof") == 2);
  CHECK(json_number(r.out, "sim_bodies") == 2);  // the wheels; base_link is the world's
}

TEST_CASE("inspect prints readable text by default") {
  CliResult r = run_talon("inspect " + kModels + "/cartpole.urdf");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("dof         2"));
  CHECK_THAT(r.out, Catch::Contains("1 slide"));
}

TEST_CASE("inspect fails cleanly on bad input") {
  SECTION("missing file") {
    CliResult r = run_talon("inspect /nonexistent/robot.urdf");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("/nonexistent/robot.urdf: error: cannot open file"));
  }
  SECTION("not a model") {
    const std::string path = "/tmp/talon_not_a_model.xml";
    std::ofstream(path) << "<?xml version='1.0'?>\n<html></html>\n";
    CliResult r = run_talon("inspect " + path);
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("must be <robot> (URDF) or <mujoco> (MJCF)"));
  }
  SECTION("usage errors exit 2 with help") {
    CliResult r = run_talon("inspect");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("model is required"));
  }
}

namespace {

#ifdef TALON_HAVE_MUJOCO
void compare_with_mujoco(const std::string& path) {
  INFO(path);
  char error[1000] = "";
  mjModel* mj = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
  REQUIRE(mj != nullptr);
  CliResult r = run_talon("inspect " + path + " --json");
  REQUIRE(r.status == 0);
  CHECK(json_number(r.out, "bodies") == mj->nbody - 1);
  CHECK(json_number(r.out, "dof") == mj->nv);
  CHECK(json_number(r.out, "nq") == mj->nq);
  CHECK(json_number(r.out, "geoms") == mj->ngeom);
  CHECK(json_number(r.out, "actuators") == mj->nu);
  double mass = 0;
  for (int b = 1; b < mj->nbody; ++b) mass += mj->body_mass[b];
  CHECK(json_number(r.out, "total_mass") == Approx(mass).epsilon(1e-9));
  mj_deleteModel(mj);
}
#endif

// Without libmujoco-dev the MuJoCo comparisons still exist, as skipped tests.
#ifdef TALON_HAVE_MUJOCO
#define TALON_SKIP_WITHOUT_MUJOCO() (void)0
#else
#define TALON_SKIP_WITHOUT_MUJOCO() \
  TALON_SKIP("built without libmujoco-dev: no MuJoCo to compare with")
#endif

}  // namespace

TEST_CASE("inspect matches MuJoCo on the shipped MJCF models") {
  TALON_SKIP_WITHOUT_MUJOCO();
#ifdef TALON_HAVE_MUJOCO
  for (const char* name :
       {"sphere_drop.xml", "sliding_box.xml", "box_stack.xml", "three_wheeler_scene.xml"})
    compare_with_mujoco(kModels + "/" + name);
#endif
}

TEST_CASE("inspect matches MuJoCo on its humanoid") {
  TALON_SKIP_WITHOUT_MUJOCO();
  const std::string humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  TALON_SKIP_IF_MISSING(humanoid, "libmujoco-samples");
#ifdef TALON_HAVE_MUJOCO
  compare_with_mujoco(humanoid);
#endif
}
