// `talon gradcheck --kernels` at its default 1e-6 bar on every shipped model and on MuJoCo's
// humanoid, and `talon ir --json` with per-kernel sizes.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "run_cli.h"
#include "skip.h"

namespace {

const std::string kModels = TALON_MODELS_DIR;
const std::string kHumanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";

// Few states and columns: the suite runs under ASan on two cores.
void check_gradcheck_passes(const std::string& model_args) {
  const CliResult r =
      run_talon("gradcheck " + model_args + " --kernels --json --samples 1 --max-columns 12");
  INFO(model_args << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("\"passed\":true") != std::string::npos);
  CHECK(json_number(r.out, "max_rel_error") <= 1e-6);
  CHECK(json_number(r.out, "tolerance") == 1e-6);  // the default bar
  // Entries at a kink are skipped, not compared: they must stay rare, or the bar would hold
  // over a fraction of the Jacobian only. Measured: none on the shipped models, 4 of 10 617 on
  // MuJoCo's humanoid (the first counts of the JSON).
  const double compared = json_number(r.out, "compared");
  CHECK(compared > 0);
  REQUIRE(r.out.find("\"skipped\":") != std::string::npos);
  CHECK(json_number(r.out, "skipped") <= 1e-3 * compared);
}

}  // namespace

TEST_CASE("gradcheck: every shipped model passes the 1e-6 bar") {
  for (const char* name :
       {"sphere_drop.xml", "sliding_box.xml", "box_stack.xml", "box_tower.xml", "push_box.xml",
        "primitive_pile.xml", "three_wheeler_scene.xml", "cartpole.urdf", "double_pendulum.urdf"}) {
    SECTION(name) {
      check_gradcheck_passes(kModels + "/" + name);
    }
  }
  SECTION("three_wheeler.urdf --floating-base") {
    check_gradcheck_passes(kModels + "/three_wheeler.urdf --floating-base");
  }
  // Its contacts written out pair by pair, not as per-type templates (the default).
  SECTION("primitive_pile.xml --no-pair-templates") {
    check_gradcheck_passes(kModels + "/primitive_pile.xml --no-pair-templates");
  }
}

TEST_CASE("gradcheck: MuJoCo's humanoid passes the 1e-6 bar") {
  TALON_SKIP_IF_MISSING(kHumanoid, "libmujoco-samples");
  check_gradcheck_passes(kHumanoid);
}

TEST_CASE("gradcheck: --help documents the noise model") {
  const CliResult r = run_talon("gradcheck --help");
  CHECK(r.status == 0);
  CHECK(r.out.find("Richardson") != std::string::npos);
  CHECK(r.out.find("skipped") != std::string::npos);
}

TEST_CASE("ir: --json lists every kernel with its size") {
  const CliResult r = run_talon("ir " + kModels + "/box_stack.xml --json");
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  for (const char* kernel : {"residual", "residual_frozen_w", "jhat", "c_diag", "mass", "diag_a",
                             "jvp_exact", "vjp_exact", "vjp_inputs"})
    CHECK(r.out.find(std::string("\"name\":\"") + kernel + "\"") != std::string::npos);
  // The first kernel's sizes (json_number finds the first occurrence of each key).
  CHECK(json_number(r.out, "nodes_after_cse") > 0);
  CHECK(json_number(r.out, "instructions") > 0);
  CHECK(json_number(r.out, "nodes_before_cse") >= json_number(r.out, "nodes_after_cse"));
}

// The per-type contact templates (the default) with the pairs that run each, and none with
// --no-pair-templates. box_stack.xml: three boxes on a plane, so plane–box for its 3 floor
// pairs and box–box for its 3 box pairs.
TEST_CASE("ir: lists the pair templates and their instances") {
  const CliResult r = run_talon("ir " + kModels + "/box_stack.xml");
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("pair templates") != std::string::npos);
  const CliResult json = run_talon("ir " + kModels + "/box_stack.xml --json");
  REQUIRE(json.status == 0);
  CHECK(json.out.find(R"X("pairs":"plane-box (static plane)","instances":3,"instructions":)X") !=
        std::string::npos);
  CHECK(json.out.find(R"("pairs":"box-box","instances":3,"instructions":)") != std::string::npos);
  const CliResult unrolled =
      run_talon("ir " + kModels + "/box_stack.xml --json --no-pair-templates");
  REQUIRE(unrolled.status == 0);
  CHECK(unrolled.out.find(R"("pair_templates":[])") != std::string::npos);
  // Written out, the pairs' code is in the program's own kernels: far more of it.
  CHECK(json_number(unrolled.out, "instructions") > 2 * json_number(json.out, "instructions"));
}

// The lowering's notes reach the user once, on stderr with the file's name (they used to be
// printed again at the end of the summary).
TEST_CASE("ir: each lowering note is printed once") {
  const CliResult r = run_talon("ir " TALON_TEST_DATA_DIR "/mjcf/good/inertia.xml");
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const std::string note = "no contact between box and ellipsoid geoms";
  const std::string all = r.out + r.err;
  const std::size_t first = all.find(note);
  REQUIRE(first != std::string::npos);
  CHECK(all.find(note, first + 1) == std::string::npos);
  CHECK(r.err.find("inertia.xml: note: " + note) != std::string::npos);
}
