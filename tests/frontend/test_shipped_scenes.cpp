// The shipped scenes are what docs/models.md says they are (issue #18: every number in the
// documentation is asserted by a test): friction, sizes, body counts and the drive commands.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "frontend/load.h"

namespace talon {
namespace {

Model load_shipped(const std::string& file) {
  Expected<Model> model = load_model(std::string(TALON_MODELS_DIR) + "/" + file);
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  return std::move(*model);
}

int geom_named(const Model& model, const std::string& name) {
  for (int g = 0; g < model.ngeom; ++g)
    if (model.geom_name[g] == name) return g;
  FAIL("no geom " << name);
  return -1;
}

}  // namespace

TEST_CASE("sliding_box.xml: a box on a plane with mu = 0.5", "[models]") {
  const Model model = load_shipped("sliding_box.xml");
  CHECK(model.nsim == 1);
  CHECK(model.geom_friction[geom_named(model, "floor")].x() == 0.5);
  CHECK(model.geom_friction[geom_named(model, "box")].x() == 0.5);
}

TEST_CASE("push_box.xml: a pusher and a free box, friction 0.5 at both contacts", "[models]") {
  const Model model = load_shipped("push_box.xml");
  REQUIRE(model.nsim == 2);
  CHECK(model.sim_name[0] == "pusher");
  CHECK(model.sim_name[1] == "box");
  CHECK(model.find_actuator("push") >= 0);
  for (int g = 0; g < model.ngeom; ++g) CHECK(model.geom_friction[g].x() == 0.5);
}

TEST_CASE("primitive_pile.xml: six spheres, capsules and boxes", "[models]") {
  const Model model = load_shipped("primitive_pile.xml");
  CHECK(model.nsim == 6);
}

TEST_CASE("three_wheeler_scene.xml: a 1.5 cm box obstacle", "[models]") {
  const Model model = load_shipped("three_wheeler_scene.xml");
  const int obstacle = geom_named(model, "obstacle");
  CHECK(model.geom_type[obstacle] == GeomType::Box);
  CHECK(model.geom_sim[obstacle] == -1);                      // static
  CHECK(2 * model.geom_size[obstacle].z() == Approx(0.015));  // half-size: 1.5 cm high
  CHECK(model.timestep == 0.1);
}

// models/three_wheeler_drive.csv: both wheels ramp to 5 rad/s, then hold, 1.5 s at h = 0.1.
TEST_CASE("three_wheeler_drive.csv: a ramp to 5 rad/s, 1.5 s straight ahead", "[models]") {
  std::ifstream csv(std::string(TALON_MODELS_DIR) + "/three_wheeler_drive.csv");
  std::string line;
  REQUIRE(std::getline(csv, line));
  CHECK(line == "left_motor,right_motor");
  std::vector<std::pair<double, double>> rows;
  double left = 0, right = 0;
  char comma = 0;
  while (csv >> left >> comma >> right) rows.emplace_back(left, right);
  CHECK(rows.size() == 15);                       // one row per step of 0.1 s
  for (const auto& [l, r] : rows) CHECK(l == r);  // straight ahead
  CHECK(rows.back().first == 5);
  for (std::size_t k = 1; k < rows.size(); ++k) CHECK(rows[k].first >= rows[k - 1].first);
}

}  // namespace talon
