// Parameters set by name (runtime/param_overrides.h, SimulatorOptions::param_overrides,
// `--param NAME=VALUE`): what is accepted, what is refused and why, and that a new value acts
// on the step without recompiling.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "cli/run_cli.h"
#include "runtime/param_overrides.h"
#include "runtime/runtime_fixtures.h"

namespace talon {
namespace {

using runtime::ParamOverride;

std::vector<ir::ParamInfo> box_params() {
  return {{"mass:box", 1.0},       {"inertia_xx:box", 0.1}, {"inertia_yy:box", 0.1},
          {"inertia_zz:box", 0.1}, {"inertia_xy:box", 0},   {"inertia_xz:box", 0},
          {"inertia_yz:box", 0},   {"friction:floor", 0.5}, {"contact_compliance", 1e-4},
          {"gain:push", 200}};
}

std::vector<double> values(const std::vector<ir::ParamInfo>& info) {
  std::vector<double> out;
  for (const ir::ParamInfo& p : info) out.push_back(p.value);
  return out;
}

// The error of applying `overrides` to box_params(); "" when they apply.
std::string refusal(const std::vector<ParamOverride>& overrides) {
  const Expected<std::vector<double>> out =
      runtime::apply_param_overrides(box_params(), values(box_params()), overrides);
  return out ? "" : out.diagnostics().format();
}

TEST_CASE("parameter overrides replace the named values and nothing else", "[runtime][params]") {
  const Expected<std::vector<double>> out = runtime::apply_param_overrides(
      box_params(), values(box_params()),
      {{"contact_compliance", 1e-3}, {"mass:box", 2}, {"gain:push", -5}});
  REQUIRE(out.ok());
  std::vector<double> expected = values(box_params());
  expected[0] = 2;
  expected[8] = 1e-3;
  expected[9] = -5;  // gains may have either sign
  CHECK(*out == expected);
}

TEST_CASE("parameter overrides refuse unknown names and physically invalid values",
          "[runtime][params]") {
  CHECK(refusal({{"mass:crate", 1}})
            .find("parameter 'mass:crate': the model has no such "
                  "parameter (its mass parameters: mass:box)") != std::string::npos);
  CHECK(refusal({{"kp:push", 1}})
            .find("(its kinds of parameter: mass, inertia_xx, inertia_yy, "
                  "inertia_zz, inertia_xy, inertia_xz, inertia_yz, "
                  "friction, contact_compliance, gain)") != std::string::npos);
  CHECK(refusal({{"mass:box", 0}}).find("'mass:box': the value must be positive") !=
        std::string::npos);
  CHECK(refusal({{"inertia_yy:box", -0.1}}).find("must be positive") != std::string::npos);
  CHECK(refusal({{"friction:floor", -0.1}}).find("must not be negative") != std::string::npos);
  CHECK(refusal({{"contact_compliance", -1e-4}}).find("must not be negative") != std::string::npos);
  CHECK(refusal({{"gain:push", std::numeric_limits<double>::quiet_NaN()}})
            .find("'gain:push': the value is not a finite number") != std::string::npos);
  CHECK(refusal({{"mass:box", INFINITY}}).find("not a finite number") != std::string::npos);
  // Each entry positive, the whole not positive definite (|I_xy| > √(I_xx I_yy)).
  CHECK(refusal({{"inertia_xy:box", 0.2}})
            .find("the inertia of body 'box' is not positive "
                  "definite") != std::string::npos);
  CHECK(refusal({{"inertia_xy:box", 0.05}}).empty());
}

TEST_CASE("parameter overrides need parameters the unit takes as inputs", "[runtime][params]") {
  const Expected<std::vector<double>> folded =
      runtime::apply_param_overrides(box_params(), {}, {{"mass:box", 2}});
  REQUIRE_FALSE(folded.ok());
  CHECK(folded.diagnostics().format().find("folds its parameters") != std::string::npos);
  CHECK(runtime::apply_param_overrides(box_params(), {}, {}).ok());  // nothing to set
}

TEST_CASE("NAME=VALUE texts parse to overrides, split at the last '='", "[runtime][params]") {
  const Expected<ParamOverride> plain = runtime::parse_param_override("friction:floor=0.3");
  REQUIRE(plain.ok());
  CHECK(plain->first == "friction:floor");
  CHECK(plain->second == 0.3);
  const Expected<ParamOverride> odd = runtime::parse_param_override("mass:a=b=1e-2");
  REQUIRE(odd.ok());
  CHECK(odd->first == "mass:a=b");
  CHECK(odd->second == 1e-2);
  for (const char* bad : {"mass:box", "=1", "mass:box=", "mass:box=1kg", "mass:box=x"}) {
    INFO(bad);
    CHECK_FALSE(runtime::parse_param_override(bad).ok());
  }
}

// docs/design.md, "The compliances": a body resting on the ground sinks κ_n h² g. The ball
// of sphere_drop.xml, resting at h = 0.1, with κ_n set when the Simulator is made: the same
// compiled unit (θ is an input), ten times the compliance, ten times the depth.
TEST_CASE("a contact compliance set by name sinks a resting ball by κ_n h² g",
          "[runtime][params]") {
  const double h = 0.1, g = 9.81;
  for (const double kappa : {1e-4, 1e-3}) {
    INFO("kappa_n " << kappa);
    SimulatorOptions options = testing::test_options();
    options.param_overrides = {{"contact_compliance", kappa}};
    const Simulator sim =
        testing::make_simulator(testing::shipped_model("sphere_drop.xml"), options);
    CHECK(sim.default_params()[testing::param_index(sim, "contact_compliance")] == kappa);
    runtime::WorldBatch worlds = sim.make_worlds(1);
    sim.rollout(worlds, h, 20);  // falls 0.9 m in 0.43 s, then rests
    REQUIRE(worlds.status[0] == runtime::kWorldOk);
    CHECK(testing::smallest(sim.contact_gaps(worlds, 0)) ==
          Approx(-kappa * h * h * g).epsilon(1e-3));
  }
}

TEST_CASE("talon simulate --param: an unknown name or a bad value is one clear error",
          "[runtime][params][cli]") {
  ::setenv("TALON_CACHE_DIR", testing::test_cache_directory().c_str(), 1);
  const std::string model = std::string(TALON_MODELS_DIR) + "/sphere_drop.xml --steps 1 ";
  const CliResult unknown = run_talon("simulate " + model + "--param friction:ground=1");
  CHECK(unknown.status == 1);
  CHECK(unknown.err.find("parameter 'friction:ground': the model has no such parameter") !=
        std::string::npos);
  const CliResult malformed = run_talon("simulate " + model + "--param mass:ball=heavy");
  CHECK(malformed.status == 2);  // a usage error
  CHECK(malformed.err.find("--param mass:ball=heavy: 'heavy' is not a number") !=
        std::string::npos);
  const CliResult kernels = run_talon("gradcheck " + std::string(TALON_MODELS_DIR) +
                                      "/sphere_drop.xml --kernels --param contact_compliance=1e-3");
  CHECK(kernels.status == 2);
  CHECK(kernels.err.find("--param sets the parameters of a rollout") != std::string::npos);
}

}  // namespace
}  // namespace talon
