// Every shipped model and MuJoCo's humanoid lower without errors, within the time budget.
#include <chrono>
#include <filesystem>
#include <fstream>

#include "frontend/load.h"
#include "skip.h"
#include "test_lower_support.h"

using namespace talon;
using namespace talon::lower_test;

namespace {

const char* kHumanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";
const char* kHumanoids22 = "/usr/share/mujoco/model/humanoid/22_humanoids.xml";

Expected<ir::ResidualProgram> load_and_lower(const std::string& path, bool floating = false,
                                             const ir::LowerOptions& options = {}) {
  LoadOptions load;
  load.floating_base = floating;
  Expected<Model> model = load_model(path, load);
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  return ir::lower_model(*model, options);
}

void describe(const std::string& name, const ir::ResidualProgram& prog) {
  std::string blocks;
  for (const ir::RowBlock& b : prog.blocks) blocks += " " + b.name + "=" + std::to_string(b.size());
  std::size_t instructions = 0;
  for (const ir::KernelStats& k : prog.stats.kernels) instructions += k.instructions;
  WARN(name << ": " << prog.nsim << " bodies, " << prog.nrows << " rows (" << blocks << " ), "
            << prog.stats.graph_nodes << " graph nodes, " << instructions
            << " kernel instructions, lowered in " << prog.stats.build_seconds << " s");
}

}  // namespace

TEST_CASE("lowering: every shipped model lowers without errors") {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TALON_MODELS_DIR)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".xml" && entry.path().extension() != ".urdf") continue;
    for (bool floating : {false, true}) {
      // Only the wheeled robot is meant to float (the cart-pole's rail is massless).
      if (floating && path.find("three_wheeler.urdf") == std::string::npos) continue;
      INFO(path << (floating ? " (floating base)" : ""));
      Expected<ir::ResidualProgram> prog = load_and_lower(path, floating);
      INFO(prog.diagnostics().format());
      REQUIRE(prog.ok());
      CHECK(prog->nsim > 0);
      CHECK(prog->kernels.size() == 10);
      ++count;
    }
  }
  CHECK(count >= 7);
}

TEST_CASE("lowering: the wheeled robot's scene has plane, box and cylinder contacts") {
  Expected<ir::ResidualProgram> prog =
      load_and_lower(std::string(TALON_MODELS_DIR) + "/three_wheeler_scene.xml");
  REQUIRE(prog.ok());
  int plane_cylinder = 0, box_cylinder = 0, caster = 0;
  for (const ir::ContactSlot& slot : prog->slots) {
    plane_cylinder += slot.kind.rfind("plane-cylinder", 0) == 0;
    box_cylinder += slot.kind.rfind("box-cylinder", 0) == 0;
    if (slot.kind.rfind("plane-sphere", 0) == 0 || slot.kind.rfind("sphere-box", 0) == 0) {
      ++caster;
      CHECK(slot.friction_row == -1);  // the ball caster's contacts are frictionless
    }
  }
  CHECK(plane_cylinder == 2);  // two wheels, one rim slot each
  CHECK(box_cylinder == 2);    // the same against the obstacle
  CHECK(caster == 2);          // the ball caster against the floor and the obstacle
  CHECK(prog->block("servo")->size() == 2);
}

TEST_CASE("lowering: kernel statistics count the DAG, the expanded tree and instructions") {
  Expected<ir::ResidualProgram> prog = load_and_lower(
      std::string(TALON_MODELS_DIR) + "/sliding_box.xml", false, {.kernel_stats = true});
  REQUIRE(prog.ok());
  const ir::LowerStats& stats = prog->stats;
  REQUIRE(stats.kernels.size() == prog->kernels.size());
  for (const ir::KernelStats& k : stats.kernels) {
    INFO(k.name);
    CHECK(k.dag_nodes > 0);
    CHECK(k.dag_nodes <= stats.graph_nodes);
    CHECK(k.instructions == k.dag_nodes);
    CHECK(k.tree_nodes >= static_cast<double>(k.dag_nodes));
  }
  // Sharing matters: the residual's tree is far larger than its DAG.
  CHECK(stats.kernels[0].name == "residual");
  CHECK(stats.kernels[0].tree_nodes > 10.0 * static_cast<double>(stats.kernels[0].dag_nodes));
  CHECK(stats.blocks.size() == 6);
  CHECK(stats.contact_pairs == 1);
}

TEST_CASE("lowering: MuJoCo's humanoid lowers with its multi-hinge bodies") {
  TALON_SKIP_IF_MISSING(kHumanoid, "libmujoco-samples");
  Expected<ir::ResidualProgram> prog = load_and_lower(kHumanoid, false, {.kernel_stats = true});
  INFO(prog.diagnostics().format());
  REQUIRE(prog.ok());
  describe("humanoid.xml", *prog);
  CHECK(prog->nsim == 13);
  // 12 jointed bodies: abdomen (2 hinges, 4 rows), pelvis (1, 5), thighs (3, 3), shins
  // (1, 5), feet (2 skew, 4), upper arms (2, 4), lower arms (1, 5).
  CHECK(prog->block("joint")->size() == 4 + 5 + 2 * (3 + 5 + 4) + 2 * (4 + 5));
  CHECK(prog->block("limit")->size() == 2 * 21);
  // Motors are explicit forces; each of the 21 hinges has armature 0.01 and a passive
  // spring (stiffness and damping from its defaults): one implicit row each.
  CHECK(prog->block("servo")->size() == 2 * 21);
  // Every contact with the floor has friction (floor condim 3); body-body pairs (condim 1)
  // have none.
  int floor_slots = 0;
  for (const ir::ContactSlot& slot : prog->slots) floor_slots += slot.friction_row >= 0;
  CHECK(prog->block("friction")->size() == 2 * floor_slots);
  CHECK(floor_slots > 0);
}

// The IR grows linearly with the model (22 humanoids: 22x the bodies, under 30x the graph).
// Its time is bench_lowering's to measure (bench/RESULTS.md). No longer hidden ([.slow]):
// 3.6 s of CPU and 0.7 GB here (RelWithDebInfo), affordable in CI even at ASan's ~3x.
TEST_CASE("lowering: 22 humanoids lower to a graph linear in the model", "[ir][large]") {
  TALON_SKIP_IF_MISSING(kHumanoids22, "libmujoco-samples");
  Expected<ir::ResidualProgram> one = load_and_lower(kHumanoid);
  Expected<ir::ResidualProgram> many = load_and_lower(kHumanoids22);
  INFO(many.diagnostics().format());
  REQUIRE(one.ok());
  REQUIRE(many.ok());
  describe("humanoid.xml", *one);
  describe("22_humanoids.xml", *many);
  CHECK(many->nsim == 22 * 13);
  CHECK(many->stats.graph_nodes < 30 * one->stats.graph_nodes);
}
