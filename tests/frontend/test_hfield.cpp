// MJCF height fields (frontend/mjcf/hfield.cpp) read as terrains, against MuJoCo 2.2.2's
// rules written out by hand: elevations from its binary file normalised to [0, 1], point
// (r, c) at x = −rx + 2 rx c/(ncol − 1), y = −ry + 2 ry r/(nrow − 1), z = ez · elevation, in
// the geom's frame.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "frontend/compile.h"
#include "frontend/load.h"

using namespace talon;

namespace {

// MuJoCo's binary hfield file: int32 nrow, int32 ncol, float32 data, row major.
std::string write_hfield(const std::string& name, std::int32_t nrow, std::int32_t ncol,
                         const std::vector<float>& data) {
  const auto dir = std::filesystem::temp_directory_path() / "talon-test-hfield";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&nrow), sizeof nrow);
  out.write(reinterpret_cast<const char*>(&ncol), sizeof ncol);
  out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size() * 4));
  return path.string();
}

Expected<Model> load(const std::string& xml) {
  Expected<ModelSpec> spec = read_mjcf_string(xml, "hfield_test.xml", {});
  if (!spec) return spec.diagnostics();
  return compile_model(*spec);
}

}  // namespace

TEST_CASE("an MJCF hfield is a terrain: MuJoCo's grid, normalised elevations, the geom's frame",
          "[mjcf][terrain]") {
  // 3 rows × 4 columns of elevations from 2 to 6 (normalised: (e − 2)/4)
  const std::vector<float> data = {2, 3, 4, 5, 6, 2, 2, 2, 4, 4, 4, 4};
  const std::string file = write_hfield("ramp.bin", 3, 4, data);
  const Expected<Model> model =
      load("<mujoco><asset><hfield name='ramp' file='" + file +
           "' size='1.5 0.5 0.2 0.1'/></asset><worldbody><geom type='hfield' hfield='ramp' "
           "pos='1 2 0.3' euler='0 0 90'/></worldbody></mujoco>");
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  REQUIRE(model->geom_type.size() == 1);
  CHECK(model->geom_type[0] == GeomType::Terrain);
  const mesh::TriangleMesh& terrain = model->geom_terrain[0];
  REQUIRE(terrain.vertices.size() == 12);
  CHECK(terrain.faces.size() == 2 * 2 * 3);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) {
      // in the geom's frame, then turned 90° about z and moved to (1, 2, 0.3)
      const Vec3 local(-1.5 + 3.0 * c / 3, -0.5 + 1.0 * r / 2, 0.2 * (data[r * 4 + c] - 2) / 4);
      const Vec3 world(1 - local.y(), 2 + local.x(), 0.3 + local.z());
      INFO("row " << r << ", column " << c);
      CHECK((terrain.vertices[r * 4 + c] - world).norm() < 1e-12);
    }
  for (const auto& f : terrain.faces) {  // counter-clockwise seen from above
    const Vec3& a = terrain.vertices[f[0]];
    CHECK((terrain.vertices[f[1]] - a).cross(terrain.vertices[f[2]] - a).z() > 0);
  }
}

TEST_CASE("an hfield given by nrow and ncol without a file is flat, as in MuJoCo",
          "[mjcf][terrain]") {
  const Expected<Model> model = load(
      "<mujoco><asset><hfield name='pad' nrow='3' ncol='3' size='1 1 0.5 0.1'/></asset>"
      "<worldbody><geom type='hfield' hfield='pad'/></worldbody></mujoco>");
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  for (const Vec3& v : model->geom_terrain[0].vertices) CHECK(v.z() == 0);
}

TEST_CASE("a malformed hfield is an error saying what is wrong", "[mjcf][terrain][errors]") {
  struct Case {
    std::string asset, message;
  };
  const std::string short_file = write_hfield("short.bin", 3, 3, {1, 2, 3});
  const std::string nan_file =
      write_hfield("nan.bin", 2, 2, {0, 1, std::numeric_limits<float>::quiet_NaN(), 1});
  const Case cases[] = {
      {"<hfield name='t' file='" + short_file + "' size='1 1 1 1'/>",
       "is not 8 + 4·nrow·ncol bytes long (nrow 3, ncol 3)"},
      {"<hfield name='t' file='" + nan_file + "' size='1 1 1 1'/>",
       "hfield 't' has a non-finite elevation"},
      {"<hfield name='t' nrow='3' ncol='3' size='1 1 0 1'/>",
       "hfield size (radius_x radius_y elevation_z base_z) must be positive"},
      {"<hfield name='t' nrow='1' ncol='3' size='1 1 1 1'/>",
       "hfield 't' needs at least 2 rows and 2 columns"},
      {"<hfield name='t' size='1 1 1 1'/>", "hfield 't' needs a 'file' or positive 'nrow'"},
  };
  for (const Case& c : cases) {
    INFO(c.asset);
    const Expected<Model> model = load("<mujoco><asset>" + c.asset +
                                       "</asset><worldbody><geom type='hfield' hfield='t'/>"
                                       "</worldbody></mujoco>");
    REQUIRE_FALSE(model.ok());
    CHECK(model.diagnostics().format().find(c.message) != std::string::npos);
    CHECK(model.diagnostics().format().find("hfield_test.xml:1") != std::string::npos);
  }
  const Expected<Model> unknown =
      load("<mujoco><worldbody><geom type='hfield' hfield='nowhere'/></worldbody></mujoco>");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.diagnostics().format().find("unknown hfield 'nowhere'") != std::string::npos);
}
