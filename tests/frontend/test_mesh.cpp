// Mesh files (frontend/mesh): reading STL and OBJ through assimp, the errors of unreadable,
// empty and malformed meshes, and the mass properties of the solid a mesh bounds against
// closed forms. (Mesh geoms' masses against MuJoCo 2.2.2 itself: tests/mujoco,
// tests/data/mjcf/good/mesh_inertia.xml.)
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "frontend/mesh/convex_hull.h"
#include "frontend/mesh/triangle_mesh.h"

namespace {

using talon::Mat3;
using talon::Vec3;
using talon::mesh::MeshMassResult;
using talon::mesh::TriangleMesh;

const std::string kAssets = TALON_TEST_DATA_DIR "/mjcf/assets/";

TriangleMesh read(const std::string& file) {
  talon::Expected<TriangleMesh> mesh = talon::mesh::read_triangle_mesh(kAssets + file);
  INFO(mesh.diagnostics().format());
  REQUIRE(mesh.ok());
  return *mesh;
}

std::string read_error(const std::string& path) {
  talon::Expected<TriangleMesh> mesh = talon::mesh::read_triangle_mesh(path);
  REQUIRE_FALSE(mesh.ok());
  const talon::Diagnostic& error = mesh.diagnostics().items().at(0);
  CHECK(error.loc.file == path);
  return error.message;
}

void check_matrix(const Mat3& actual, const Mat3& expected) {
  INFO("actual\n" << actual << "\nexpected\n" << expected);
  CHECK((actual - expected).cwiseAbs().maxCoeff() <= 1e-12);
}

}  // namespace

TEST_CASE("an OBJ cube of quads is read as 12 triangles on 8 vertices", "[frontend][mesh]") {
  const TriangleMesh cube = read("cube.obj");
  CHECK(cube.vertices.size() == 8);
  CHECK(cube.faces.size() == 12);
  const MeshMassResult solid = talon::mesh::mesh_mass(cube);
  REQUIRE(solid.error.empty());
  CHECK(solid.mass.volume == Approx(1).epsilon(1e-12));
  CHECK((solid.mass.centroid - Vec3(0.5, 0.5, 0.5)).norm() <= 1e-12);
  check_matrix(solid.mass.inertia_per_density, Mat3::Identity() / 6);  // m (1 + 1) / 12
}

TEST_CASE("a scaled cube is a box, a mirrored one too", "[frontend][mesh]") {
  const TriangleMesh cube = read("cube.obj");
  for (const Vec3& scale : {Vec3(0.2, 0.1, 0.3), Vec3(0.2, -0.1, 0.3)}) {
    INFO("scale " << scale.transpose());
    const MeshMassResult solid = talon::mesh::mesh_mass(talon::mesh::scaled(cube, scale));
    REQUIRE(solid.error.empty());
    const double volume = 0.2 * 0.1 * 0.3;
    CHECK(solid.mass.volume == Approx(volume).epsilon(1e-12));
    CHECK((solid.mass.centroid - scale / 2).norm() <= 1e-12);
    // A box's moments: V (b² + c²) / 12 and so on.
    const Vec3 sq = scale.cwiseProduct(scale);
    check_matrix(solid.mass.inertia_per_density,
                 (volume / 12 * Vec3(sq.y() + sq.z(), sq.x() + sq.z(), sq.x() + sq.y()))
                     .asDiagonal()
                     .toDenseMatrix());
  }
}

TEST_CASE("the unit tetrahedron's volume, centroid and inertia", "[frontend][mesh]") {
  const MeshMassResult solid = talon::mesh::mesh_mass(read("tetrahedron.obj"));
  REQUIRE(solid.error.empty());
  CHECK(solid.mass.volume == Approx(1.0 / 6).epsilon(1e-12));
  CHECK((solid.mass.centroid - Vec3::Constant(0.25)).norm() <= 1e-12);
  // About the centroid: ∫x² = 1/60 − V/16 = 1/160, ∫xy = 1/120 − V/16 = −1/480, so
  // J = diag(2/160) off-diagonal +1/480.
  Mat3 expected = Mat3::Constant(1.0 / 480);
  expected.diagonal().setConstant(1.0 / 80);
  check_matrix(solid.mass.inertia_per_density, expected);
}

TEST_CASE("a binary STL wedge", "[frontend][mesh]") {
  const TriangleMesh wedge = read("wedge.stl");
  CHECK(wedge.vertices.size() == 6);
  CHECK(wedge.faces.size() == 8);
  const MeshMassResult solid = talon::mesh::mesh_mass(wedge);
  REQUIRE(solid.error.empty());
  CHECK(solid.mass.volume == Approx(0.4 * 0.2 / 2 * 0.3).epsilon(1e-6));  // float vertices
  CHECK((solid.mass.centroid - Vec3(0.4 / 3, 0.2 / 3, 0.15)).norm() <= 1e-7);
}

TEST_CASE("unreadable and empty mesh files are errors naming the file", "[frontend][mesh]") {
  CHECK_THAT(read_error(kAssets + "empty.stl"), Catch::Contains("holds no triangle"));
  CHECK_THAT(read_error(kAssets + "no_such_file.obj"), Catch::Contains("cannot read the mesh"));
  const std::filesystem::path garbage =
      std::filesystem::temp_directory_path() / "talon_test_garbage_mesh.stl";
  std::ofstream(garbage, std::ios::binary) << std::string("\x01\x02 not a mesh \xff", 16);
  CHECK_FALSE(read_error(garbage.string()).empty());
  std::filesystem::remove(garbage);
}

TEST_CASE("meshes that bound no solid say why", "[frontend][mesh]") {
  CHECK(talon::mesh::mesh_mass(read("inconsistent_faces.obj")).error ==
        "the mesh's faces have inconsistent orientation");
  TriangleMesh flat;
  flat.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0), Vec3(0, 1, 0)};
  flat.faces = {{0, 1, 2}, {0, 2, 3}};
  CHECK(talon::mesh::mesh_mass(flat).error == "the mesh encloses no volume (a flat surface)");
  // A mug's cavity faces its surface centroid from behind: not star-shaped.
  const std::string mug = "/usr/share/mujoco/model/mug/mug.obj";
  if (!std::filesystem::exists(mug)) {
    WARN("SKIPPED: MuJoCo's mug (libmujoco-samples) is not installed");
    return;
  }
  const talon::Expected<TriangleMesh> cup = talon::mesh::read_triangle_mesh(mug);
  REQUIRE(cup.ok());
  CHECK_THAT(talon::mesh::mesh_mass(*cup).error, Catch::StartsWith("unsupported: "));
}

TEST_CASE("faces facing inwards weigh what outward ones do, as in MuJoCo", "[frontend][mesh]") {
  TriangleMesh cube = read("cube.obj");
  for (auto& face : cube.faces) std::swap(face[1], face[2]);
  const MeshMassResult solid = talon::mesh::mesh_mass(cube);
  REQUIRE(solid.error.empty());
  CHECK(solid.mass.volume == Approx(1).epsilon(1e-12));
}

TEST_CASE("a convex hull keeps the corners and drops the inside", "[frontend][mesh]") {
  std::vector<Vec3> points = read("cube.obj").vertices;
  points.push_back(Vec3(0.5, 0.5, 0.5));  // inside
  points.push_back(Vec3(0.5, 0.5, 1.0));  // on a face
  const talon::mesh::HullResult hull = talon::mesh::convex_hull_vertices(points);
  REQUIRE(hull.error.empty());
  CHECK(hull.vertices.size() == 8);
  for (const Vec3& v : hull.vertices) CHECK((v.array() == 0 || v.array() == 1).all());
  const std::vector<Vec3> flat = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 1, 0)};
  CHECK_FALSE(talon::mesh::convex_hull_vertices(flat).error.empty());
  CHECK_FALSE(talon::mesh::convex_hull_vertices({Vec3::Zero()}).error.empty());
}
