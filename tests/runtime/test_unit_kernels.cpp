// A model unit whose kernels are built from the IR (codegen/unit_compiler.h) steps bit for bit
// as its C text compiled whole; its text then only declares the kernels; the kernel cache
// keeps the objects as one archive, keyed by the kernels' IR.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "common/read_file.h"
#include "runtime/runtime_fixtures.h"
#include "runtime/unit_stepper.h"
#include "runtime/verified_entry.h"
#include "scratch_directory.h"

namespace talon {
namespace {

// The pushed box (contact pairs and joint sets as templates) stepped 20 times at h = 0.05
// with its pusher driven, its kernels compiled from their C text or from the IR.
std::vector<testing::UnitStepRecord> push(bool kernels_from_ir) {
  codegen::ModelUnitOptions options;
  options.name = "pushed";
  options.kernels_from_ir = kernels_from_ir;
  testing::UnitStepper<double> stepper(testing::shipped_model("push_box.xml"), options);
  const std::vector<double> ctrl(stepper.unit().nctrl, 0.5);
  std::vector<testing::UnitStepRecord> out;
  for (int i = 0; i < 20; ++i) out.push_back(stepper.step(ctrl, 0.05));
  return out;
}

void check_same_steps(const std::vector<testing::UnitStepRecord>& one,
                      const std::vector<testing::UnitStepRecord>& other) {
  REQUIRE(one.size() == other.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    INFO("step " << i);
    CHECK(one[i].status == 0);
    CHECK(other[i].q == one[i].q);
    CHECK(other[i].u == one[i].u);
    CHECK(other[i].statistics == one[i].statistics);
  }
}

}  // namespace

// The kernels' LLVM IR computes the C text's IEEE operations in the same order, and calls the
// same libm: the results are the same bits.
TEST_CASE("a unit whose kernels are built from the IR steps bit for bit as its C text",
          "[runtime][unit]") {
  check_same_steps(push(false), push(true));
}

TEST_CASE("kernels from the IR: the text declares them, and only f64 CPU units have them",
          "[runtime][unit]") {
  const Model model = testing::shipped_model("push_box.xml");
  Expected<ir::ResidualProgram> program = ir::lower_model(model);
  REQUIRE(program.ok());
  codegen::ModelUnitOptions options;
  options.name = "pushed";
  Expected<codegen::ModelUnit> text_only = codegen::generate_model_unit(model, *program, options);
  REQUIRE(text_only.ok());
  CHECK(text_only->kernels.empty());
  options.kernels_from_ir = true;
  Expected<codegen::ModelUnit> unit = codegen::generate_model_unit(model, *program, options);
  REQUIRE(unit.ok());
  REQUIRE_FALSE(unit->kernels.empty());
  // The text declares each kernel and defines none: a unit's text has the rest of it (the
  // tables, loops and API) and the same text otherwise.
  const std::string& whole_text = text_only->source;
  std::size_t last_prototype_end = 0;
  for (const ir::Function& f : unit->kernels) {
    const std::string symbol = unit->kernel_prefix + f.name;
    INFO(symbol);
    CHECK(whole_text.find("void " + symbol + "(") != std::string::npos);
    const std::size_t declared = unit->source.find("void " + symbol + "(");
    REQUIRE(declared != std::string::npos);
    const std::size_t end = unit->source.find(')', declared);
    CHECK(unit->source.compare(end, 3, ");\n") == 0);
    last_prototype_end = std::max(last_prototype_end, end + 3);
  }
  CHECK(unit->source.size() < whole_text.size());
  CHECK(whole_text.ends_with(std::string_view(unit->source).substr(last_prototype_end)));

  for (const bool f32 : {true, false}) {
    codegen::ModelUnitOptions refused = options;
    if (f32)
      refused.precision = ir::CPrecision::Float;
    else
      refused.target = codegen::UnitTarget::Cuda;
    Expected<codegen::ModelUnit> none = codegen::generate_model_unit(model, *program, refused);
    REQUIRE_FALSE(none.ok());
    CHECK_THAT(none.diagnostics().format(), Catch::Contains("from the IR"));
  }
}

TEST_CASE("a simulator compiles its unit's text and kernels into one archive entry",
          "[runtime][cache]") {
  // Build jobs given, or (0) as many as the simulator's threads.
  std::vector<double> final_q[3];
  const int build_jobs[3] = {1, 3, 0}, threads[3] = {2, 2, 1}, jobs[3] = {1, 3, 1};
  for (int i = 0; i < 3; ++i) {
    const codegen::TemporaryDirectory cache = testing::scratch_directory("talon-unit-objects-");
    SimulatorOptions options = testing::test_options();
    options.cache.directory = cache.path();
    options.cache.build_jobs = build_jobs[i];
    options.threads = threads[i];
    Simulator sim = testing::make_simulator(testing::shipped_model("sphere_drop.xml"), options);
    CHECK_FALSE(sim.unit().kernels.empty());
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
    // The text's object, then one per job's group of kernels (sphere_drop has more
    // kernels than jobs).
    for (int k = 0; k < 5; ++k) {
      INFO("part" << k << ".o");
      CHECK((entry->find("part" + std::to_string(k) + ".o") != std::string::npos) ==
            (k <= jobs[i]));
    }
  }
  CHECK(final_q[0] == final_q[1]);
  CHECK(final_q[0] == final_q[2]);
}

}  // namespace talon
