// A model unit in parts (codegen/model_unit_split.cpp): its kernels compile in parallel, one
// translation unit per part, and the unit steps bit for bit as the same unit in one part;
// the kernel cache keeps the parts' objects as one archive.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "codegen/clang_compiler.h"
#include "common/read_file.h"
#include "runtime/runtime_fixtures.h"
#include "runtime/unit_stepper.h"
#include "runtime/verified_entry.h"
#include "scratch_directory.h"

namespace talon {
namespace {

// The pushed box (contact pairs and joint sets as templates) stepped 20 times at h = 0.05
// with its pusher driven, as a unit in `parts` parts.
std::vector<testing::UnitStepRecord> push(int parts) {
  codegen::ModelUnitOptions options;
  options.name = "pushed";
  options.parts = parts;
  testing::UnitStepper<double> stepper(testing::shipped_model("push_box.xml"), options);
  CHECK(stepper.unit().parts == parts);
  CHECK(codegen::model_unit_parts(stepper.unit().source) == parts);
  const std::vector<double> ctrl(stepper.unit().nctrl, 0.5);
  std::vector<testing::UnitStepRecord> out;
  for (int i = 0; i < 20; ++i) out.push_back(stepper.step(ctrl, 0.05));
  return out;
}

}  // namespace

TEST_CASE("a unit in parts steps bit for bit as the unit in one part", "[runtime][unit]") {
  const std::vector<testing::UnitStepRecord> one = push(1), three = push(3);
  REQUIRE(one.size() == three.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    INFO("step " << i);
    CHECK(one[i].status == 0);
    CHECK(three[i].q == one[i].q);
    CHECK(three[i].u == one[i].u);
    CHECK(three[i].statistics == one[i].statistics);
  }
}

TEST_CASE("a unit's text in parts is also the whole unit in one translation unit",
          "[runtime][unit]") {
  codegen::ModelUnitOptions options;
  options.name = "pushed";
  options.parts = 4;
  const Model model = testing::shipped_model("push_box.xml");
  Expected<ir::ResidualProgram> program = ir::lower_model(model);
  REQUIRE(program.ok());
  Expected<codegen::ModelUnit> unit = codegen::generate_model_unit(model, *program, options);
  REQUIRE(unit.ok());
  // Without TALON_UNIT_PART every part is in (what a C compiler given NAME.c sees).
  Expected<std::string> whole = codegen::compile_c_object(unit->source, "pushed.c");
  INFO(whole.diagnostics().format());
  REQUIRE(whole.ok());
  Expected<codegen::ObjectCode> code = codegen::ObjectCode::load(*whole, "pushed.c");
  INFO(code.diagnostics().format());
  REQUIRE(code.ok());
  CHECK(code->symbol("pushed_step").ok());

  for (const int bad : {0, codegen::kMaxUnitParts + 1}) {
    options.parts = bad;
    Expected<codegen::ModelUnit> refused = codegen::generate_model_unit(model, *program, options);
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.diagnostics().format(), Catch::Contains("parts"));
  }
}

TEST_CASE("a simulator compiles its unit's parts into one archive entry", "[runtime][cache]") {
  std::vector<double> final_q[2];
  const int parts[2] = {1, 3};
  for (int i = 0; i < 2; ++i) {
    const codegen::TemporaryDirectory cache = testing::scratch_directory("talon-unit-parts-");
    SimulatorOptions options = testing::test_options();
    options.cache.directory = cache.path();
    options.unit_parts = parts[i];
    Simulator sim = testing::make_simulator(testing::shipped_model("sphere_drop.xml"), options);
    CHECK(sim.unit().parts == parts[i]);
    runtime::WorldBatch worlds = sim.make_worlds(1);
    sim.rollout(worlds, 0.05, 12);
    final_q[i] = worlds.q;

    std::vector<std::filesystem::path> entries;
    for (const auto& file : std::filesystem::directory_iterator(cache.path()))
      if (runtime::is_entry_file_name(file.path().filename().string()))
        entries.push_back(file.path());
    REQUIRE(entries.size() == 1);
    CHECK(entries.front().extension() == ".a");
    Expected<std::string> entry = read_text_file(entries.front().string(), "cannot read");
    REQUIRE(entry.ok());
    CHECK(entry->starts_with("!<arch>\n"));
    for (int k = 0; k < 4; ++k) {
      INFO("part" << k << ".o");
      CHECK((entry->find("part" + std::to_string(k) + ".o") != std::string::npos) ==
            (k < parts[i]));
    }
  }
  CHECK(final_q[0] == final_q[1]);
}

}  // namespace talon
