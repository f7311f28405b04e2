// `talon gradient`: a pushed cart whose gradient is known in closed form, and its errors.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_cli.h"

namespace {

// A 2 kg cart on a frictionless slide along x, pushed by a motor (force = ctrl) with 1, 2
// and 3 N (tests/data/scenes/pushed_cart.xml, shared with tests/api/test_cache_key.cpp).
struct CartFiles {
  std::string model = TALON_TEST_DATA_DIR "/scenes/pushed_cart.xml";
  std::string ctrl = TALON_TEST_DATA_DIR "/scenes/pushed_cart.csv";
};

// The numbers of the JSON array of arrays after "key":.
std::vector<double> json_rows(const std::string& json, const std::string& key) {
  std::vector<double> out;
  std::size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return out;
  at = json.find('[', at) + 1;
  int depth = 1;
  while (at < json.size() && depth > 0) {
    const char c = json[at];
    if (c == '[')
      ++depth, ++at;
    else if (c == ']')
      --depth, ++at;
    else if (c == ',' || c == ' ')
      ++at;
    else {
      std::size_t used = 0;
      out.push_back(std::stod(json.substr(at), &used));
      at += used;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("gradient: a pushed cart's final x has dx/dF_j = h^2 (H - j) / m") {
  const CartFiles files;
  const CliResult r =
      run_talon("gradient " + files.model + " --ctrl " + files.ctrl + " --steps 3 --dt 0.1 " +
                "--loss final-pos:cart:x --wrt controls --wrt params --json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  // Backward Euler: v_k = v_{k−1} + h F_{k−1}/m, x_3 = h (v_1 + v_2 + v_3).
  CHECK(json_number(r.out, "loss") == Approx(0.01 / 2 * (3 * 1 + 2 * 2 + 1 * 3)).epsilon(1e-9));
  const std::vector<double> d = json_rows(r.out, "dloss_dctrl");
  REQUIRE(d.size() == 3);
  CHECK(d[0] == Approx(0.015).epsilon(1e-8));
  CHECK(d[1] == Approx(0.010).epsilon(1e-8));
  CHECK(d[2] == Approx(0.005).epsilon(1e-8));
  // dL/dm = −L/m: every velocity scales with 1/m.
  CHECK(json_number(r.out, "mass:cart") == Approx(-0.05 / 2).epsilon(1e-8));
  CHECK(json_number(r.out, "unconverged_steps") == 0);
  CHECK(json_number(r.out, "tape_bytes_per_world") > 0);
}

// A rollout with contacts, its pairs run unrolled and as per-type templates (issue #16).
TEST_CASE("gradient: per-type pair templates (the default) give --no-pair-templates' gradient") {
  // The controls, in a file of this process (the CLI tests do without codegen's scratch
  // directories).
  const std::string ctrl = (std::filesystem::temp_directory_path() /
                            ("talon-gradient-push-" + std::to_string(::getpid()) + ".csv"))
                               .string();
  std::ofstream(ctrl) << "push\n0.5\n0.6\n0.7\n0.8\n0.9\n";
  const std::string run = "gradient " TALON_MODELS_DIR "/push_box.xml --ctrl " + ctrl +
                          " --steps 5 --dt 0.05 --loss final-pos:box:x --wrt controls --json"
                          // as tests/gradients/test_pair_templates.cpp: the adjoints' own
                          // stopping errors below the units' round-off differences
                          " --adjoint-tolerance 1e-13"
                          // and the forwards': at the default 1e-6 m/s the box ends up to
                          // 1.6e-5 m from the root, and two units that differ in the last
                          // bits stop at points 4e-12 apart (bench/RESULTS.md, fifteenth
                          // session). At 1e-11 the loss still moved by 7e-11 to the root
                          // and the two units' by 6e-13 from each other once the Schur rows
                          // were ordered for the factor (talon_schur_order); at 1e-13
                          // they agree to 1e-15 (twenty-ninth session)
                          " --convergence-tolerance 1e-13";
  const CliResult unrolled = run_talon(run + " --no-pair-templates");
  const CliResult templated = run_talon(run);
  std::filesystem::remove(ctrl);
  INFO(unrolled.err << templated.err);
  REQUIRE(unrolled.status == 0);
  REQUIRE(templated.status == 0);
  CHECK(json_number(templated.out, "loss") ==
        Approx(json_number(unrolled.out, "loss")).epsilon(1e-12));
  const std::vector<double> expected = json_rows(unrolled.out, "dloss_dctrl");
  const std::vector<double> got = json_rows(templated.out, "dloss_dctrl");
  REQUIRE(expected.size() == 5);
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    CHECK(got[i] == Approx(expected[i]).epsilon(1e-6).margin(1e-9));
}

TEST_CASE("gradient: bad losses and missing files are clear errors") {
  const CartFiles files;
  const std::string base = "gradient " + files.model + " --ctrl " + files.ctrl + " --steps 2 ";
  const CliResult unknown = run_talon(base + "--loss final-pos:wagon:x");
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("no simulated body 'wagon' (the model's: cart)") != std::string::npos);
  const CliResult axis = run_talon(base + "--loss final-pos:cart:w");
  CHECK(axis.status == 2);
  CHECK(axis.err.find("the axis must be x, y or z") != std::string::npos);
  const CliResult kind = run_talon(base + "--loss speed:cart");
  CHECK(kind.status == 2);
  CHECK(kind.err.find("expected final-pos:BODY:x") != std::string::npos);
  const CliResult missing = run_talon("gradient " + files.model +
                                      " --ctrl /nonexistent.csv --steps 2 --loss final-pos:cart:x");
  CHECK(missing.status == 1);
  CHECK(missing.err.find("/nonexistent.csv") != std::string::npos);
  const CliResult no_loss = run_talon(base);
  CHECK(no_loss.status == 2);
}

TEST_CASE("gradcheck --steps: a rollout's adjoint against finite differences of the rollout") {
  const CartFiles files;
  for (const char* wrt : {"controls", "params", "initial-state"}) {
    INFO(wrt);
    const CliResult r = run_talon("gradcheck " + files.model + " --ctrl " + files.ctrl +
                                  " --steps 3 --dt 0.1 --wrt " + wrt + " --json");
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("\"passed\":true") != std::string::npos);
    CHECK(json_number(r.out, "max_rel_error") < 1e-4);
    CHECK(json_number(r.out, "cosine") > 0.9999);
    CHECK(json_number(r.out, "compared") >= 3);
    CHECK(json_number(r.out, "tolerance") == 1e-2);  // the default
  }
  // Without --kernels or --steps there is nothing to check: a usage error.
  CHECK(run_talon("gradcheck " + files.model).status == 2);
}

// Exit status 1 when the worst relative error exceeds the tolerance: a tolerance of half the
// error this check measures fails it.
TEST_CASE("gradcheck --steps exits 1 above its tolerance") {
  const CartFiles files;
  const std::string run =
      "gradcheck " + files.model + " --ctrl " + files.ctrl + " --steps 3 --dt 0.1 --json";
  const CliResult passing = run_talon(run);
  INFO(passing.err);
  REQUIRE(passing.status == 0);
  const double error = json_number(passing.out, "max_rel_error");
  REQUIRE(error > 0);  // rounding alone leaves differences off the adjoint
  std::ostringstream half;
  half << std::scientific << std::setprecision(3) << error / 2;
  const CliResult failing = run_talon(run + " --tolerance " + half.str());
  INFO(failing.err);
  CHECK(failing.status == 1);
  CHECK(failing.out.find("\"passed\":false") != std::string::npos);
}

namespace {

// `talon gradcheck MODEL ARGS --wrt controls --json` at its default nudge (1e-6) and
// convergence tolerance (1e-11): it passes, compares `entries` controls and stays within
// `max_error` at a cosine above 0.9999.
void check_controls_gradcheck(const std::string& model_and_args, double max_error, int entries) {
  const CliResult r =
      run_talon("gradcheck " TALON_MODELS_DIR "/" + model_and_args + " --wrt controls --json");
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(json_number(r.out, "max_rel_error") < max_error);
  CHECK(json_number(r.out, "cosine") > 0.9999);
  CHECK(json_number(r.out, "compared") == entries);
}

}  // namespace

// The README's rollout check, as it is written there: the three-wheeler's 20-step drive. With
// the forward converged to 1e-8 only, the nudged rollouts' stopping error over ε compared at
// 0.05.
TEST_CASE("gradcheck --steps: the README's check of the three-wheeler's drive passes") {
  check_controls_gradcheck("three_wheeler_scene.xml --steps 20 --dt 0.1 --ctrl " TALON_MODELS_DIR
                           "/three_wheeler_drive.csv",
                           1e-3, 40);
}

// The pushed box (models/push_box.xml, its pusher's servo at 1 m/s) at h = 0.01: each
// control's entry is O(h), so the forward's stopping error shows first here. At the defaults
// gradcheck compares at 0.0018 (cosine 1 − 7e-9); converged to 1e-8, as before, at 1.65
// (cosine 0.998).
TEST_CASE("gradcheck --steps: the pushed box at h = 0.01 passes at the defaults") {
  check_controls_gradcheck("push_box.xml --steps 20 --dt 0.01 --ctrl " TALON_TEST_DATA_DIR
                           "/scenes/push_box_1ms.csv",
                           4e-3, 20);
}
