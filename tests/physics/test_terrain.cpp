// Geoms on a triangle-mesh terrain (LoadOptions::terrain, the CLI's --terrain): the step
// measures each geom against the terrain's tangent plane under it, queried by the generated
// code and settled at the step's end (codegen/solver/talon_newton.h, talon_settle).
// Checked against the exact distance from the geoms to the mesh (brute force here).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include "frontend/compile.h"
#include "frontend/scene_options.h"
#include "gradients/gradient_fixtures.h"
#include "height_field.h"
#include "runtime/runtime_fixtures.h"

namespace talon {
namespace {

constexpr double kH = 0.1;

// A height field z = height(x, y) over [-extent, extent]² as `cells`² squares.
template <class Height>
mesh::TriangleMesh height_field(int cells, double extent, Height height) {
  mesh::TriangleMesh out;
  testing::height_field(cells, cells, -extent, -extent, 2 * extent / cells, height, out.vertices,
                        out.faces);
  return out;
}

// The mesh as an OBJ file in the test's temporary directory.
std::string write_obj(const mesh::TriangleMesh& terrain, const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "talon-test-terrain";
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / name;
  std::ofstream out(path);
  out.precision(17);
  for (const Vec3& v : terrain.vertices)
    out << "v " << v.x() << ' ' << v.y() << ' ' << v.z() << '\n';
  for (const auto& f : terrain.faces)
    out << "f " << f[0] + 1 << ' ' << f[1] + 1 << ' ' << f[2] + 1 << '\n';
  return path.string();
}

// Ericson, Real-Time Collision Detection §5.1.5: the point of triangle abc closest to p.
Vec3 closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + d1 / (d1 - d3) * ab;
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + d2 / (d2 - d6) * ac;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
    return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
  const double denom = 1 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

// Signed distance from p to the terrain: negative below it (under the closest triangle's
// face).
double distance_to_terrain(const mesh::TriangleMesh& terrain, const Vec3& p) {
  double best = INFINITY, sign = 1;
  for (const auto& f : terrain.faces) {
    const Vec3 &a = terrain.vertices[f[0]], &b = terrain.vertices[f[1]],
               &c = terrain.vertices[f[2]];
    const Vec3 q = closest_on_triangle(p, a, b, c);
    const double d = (p - q).norm();
    if (d < best) {
      best = d;
      sign = (p - q).dot((b - a).cross(c - a)) < 0 ? -1 : 1;
    }
  }
  return sign * best;
}

// The height of the terrain straight under p (a height field: the face whose projection
// holds p's x, y), or -inf where none does.
double height_under(const mesh::TriangleMesh& terrain, const Vec3& p) {
  for (const auto& f : terrain.faces) {
    const Vec3 &a = terrain.vertices[f[0]], &b = terrain.vertices[f[1]],
               &c = terrain.vertices[f[2]];
    const double det = (b.x() - a.x()) * (c.y() - a.y()) - (c.x() - a.x()) * (b.y() - a.y());
    const double lb = ((p.x() - a.x()) * (c.y() - a.y()) - (c.x() - a.x()) * (p.y() - a.y())) / det;
    const double lc = ((b.x() - a.x()) * (p.y() - a.y()) - (p.x() - a.x()) * (b.y() - a.y())) / det;
    if (lb >= 0 && lc >= 0 && lb + lc <= 1)
      return a.z() + lb * (b.z() - a.z()) + lc * (c.z() - a.z());
  }
  return -INFINITY;
}

Model on_terrain(const std::string& xml, const LoadOptions& options) {
  return testing::model_from_mjcf(xml, "terrain_test.xml", &options);
}

int substeps(const runtime::WorldBatch& w) {
  return static_cast<int>(w.stats_of(0)[codegen::kStatSubsteps]);
}

int newton_iterations(const runtime::WorldBatch& w) {
  return static_cast<int>(w.stats_of(0)[codegen::kStatNewtonIterations]);
}

}  // namespace

TEST_CASE("a ball dropped into a hollow of a triangle-mesh terrain comes to rest on it at h = 0.1",
          "[physics][contact][terrain]") {
  // Hollows of z = 0.05 (cos(2πx) + cos(2πy)) at x, y = ±0.5, a vertex at each bottom:
  // curvature radius 1/(0.05 (2π)²) = 0.5 m, larger than the ball's 0.1 m, so the ball
  // rests at the bottom on one point, its centre at (0.5, 0.5, -0.1 + 0.1).
  const double pi = std::numbers::pi;
  const mesh::TriangleMesh terrain = height_field(40, 1.0, [&](double x, double y) {
    return 0.05 * (std::cos(2 * pi * x) + std::cos(2 * pi * y));
  });
  LoadOptions options;
  options.terrain = write_obj(terrain, "hollows.obj");
  const double radius = 0.1;
  const Simulator sim = testing::make_simulator(on_terrain(R"(
    <mujoco model="ball_on_terrain"><worldbody>
      <body name="ball" pos="0.47 0.52 0.6"><freejoint/>
        <geom type="sphere" size="0.1" mass="1"/></body>
    </worldbody></mujoco>)",
                                                           options));
  REQUIRE(sim.program().terrain_probes.size() == 1);
  runtime::WorldBatch w = sim.make_worlds(1);
  const auto surface = [&](const Vec3& c) {
    return 0.05 * (std::cos(2 * pi * c.x()) + std::cos(2 * pi * c.y()));
  };
  double lowest_on_surface = INFINITY, lowest_bottom = INFINITY, lowest = INFINITY;
  for (int k = 0; k < 100; ++k) {  // 10 s: it lands at 3 m/s, then rolls about the bottom
    sim.step(w, kH);
    REQUIRE((w.status[0] & runtime::kWorldFailed) == 0);
    CHECK(substeps(w) == 1);
    const Vec3 c = testing::com(w, 0, 0);
    lowest_on_surface = std::min(lowest_on_surface, c.z() - radius - surface(c));
    lowest_bottom = std::min(lowest_bottom, c.z() - radius - height_under(terrain, c));
    lowest = std::min(lowest, distance_to_terrain(terrain, c) - radius);
  }
  // The ball stands on the smooth surface through the mesh's vertices (talon_terrain_patch.h):
  // its lowest point never dips below the surface the mesh samples by more than the resting
  // depth of hard contact (κ_n h² g ≤ 1e-5 m, test_contact.cpp) plus the planes' settling
  // tolerance (tolerance × h = 1e-7 m).
  CHECK(lowest_on_surface > -2e-5);
  // Where the surface curves up the facets pass above it, by at most M d²/8 (linear
  // interpolation over edges of length ≤ d, second derivative ≤ M = 0.05 (2π)²): that much,
  // and no more, the ball may sink below the facets or overlap one.
  const double cell = 2.0 / 40, sag = 0.05 * 4 * pi * pi * 2 * cell * cell / 8;
  INFO("the facets' sag above the surface " << sag << " m");
  CHECK(lowest_bottom > -(2e-5 + sag));
  CHECK(lowest > -(2e-5 + sag));
  // at rest at the bottom of the hollow (the implicit step damps the rolling)
  const Vec3 end = testing::com(w, 0, 0);
  CHECK((end - Vec3(0.5, 0.5, 0)).norm() < 1e-4);
  CHECK(testing::velocity(w, 0, 0).norm() < 1e-3);
}

namespace {

// 5 × 5 m, 72² cells of two triangles (10 368), 0.24 m of relief in gentle bumps.
mesh::TriangleMesh bumps() {
  return height_field(72, 2.5, [](double x, double y) {
    return 0.06 * (std::sin(1.2 * x) + std::cos(0.9 * y)) + 0.02 * std::sin(3.1 * x + 1.7 * y);
  });
}

// The URDF three-wheeler on `terrain` (bumps()), 2 cm above it at x = −1, its wheels driven by
// velocity servos (kv = 10).
Simulator three_wheeler_on(const mesh::TriangleMesh& terrain, const SimulatorOptions& solver) {
  LoadOptions options;
  options.floating_base = true;
  options.terrain = write_obj(terrain, "bumps.obj");
  options.base_pos =
      Vec3(-1.0, 0, 0.08 + 0.06 * (std::sin(-1.2) + 1) + 0.02 * std::sin(-3.1) + 0.02);
  for (const char* joint : {"left_wheel_joint", "right_wheel_joint"})
    options.servos.push_back({joint, ActuatorType::Velocity, 10});
  return testing::make_simulator(testing::shipped_model("three_wheeler.urdf", options), solver);
}

}  // namespace

TEST_CASE("the URDF three-wheeler drives across a bumpy 10k-triangle terrain at h = 0.1",
          "[physics][robot][terrain]") {
  const mesh::TriangleMesh terrain = bumps();
  REQUIRE(terrain.faces.size() >= 10000);
  const Simulator sim = three_wheeler_on(terrain, testing::test_options());
  runtime::WorldBatch w = sim.make_worlds(1);
  for (const char* joint : {"left_wheel_joint", "right_wheel_joint"})
    w.ctrl_of(0)[sim.model().find_actuator(joint)] = 5;  // 0.4 m/s
  const Vec3 start = testing::com(w, 0, 0);
  int newton = 0, split = 0;
  const int steps = 50;  // 5 s
  double lowest_gap = INFINITY;
  for (int k = 0; k < steps; ++k) {
    sim.step(w, kH);
    REQUIRE((w.status[0] & runtime::kWorldFailed) == 0);
    newton += newton_iterations(w);
    split += substeps(w) > 1;
    if (k > 2) lowest_gap = std::min(lowest_gap, testing::smallest(sim.contact_gaps(w, 0)));
  }
  const Vec3 end = testing::com(w, 0, 0);
  INFO("from " << start.transpose() << " to " << end.transpose() << ", mean Newton "
               << double(newton) / steps << ", split " << split);
  CHECK(end.allFinite());
  CHECK(end.x() - start.x() > 1.5);            // 0.4 m/s for 5 s, less the start
  CHECK(std::abs(end.y() - start.y()) < 0.3);  // roughly straight
  CHECK(split == 0);
  CHECK(double(newton) / steps <= 12);
  CHECK(lowest_gap > -1e-3);  // not sinking into the terrain
  // the chassis stays above the terrain under it by about its ride height
  CHECK(distance_to_terrain(terrain, end) > 0.05);
}

// The issue's acceptance check: the adjoint of 20 steps of that drive against central
// differences of the rollout. The planes under the wheels turn with where the wheels go
// (ir/lower/contacts.cpp, terrain_plane), so the adjoint sees the surface's curvature;
// before, with the planes as fixed data over facets, `talon gradcheck --steps 20` of this
// drive was 0.115 off (0.83 on models/bumps.obj; bench/RESULTS.md, 2026-12-04).
TEST_CASE("gradients: 20 steps of the three-wheeler's drive across the bumpy terrain",
          "[gradients][robot][terrain]") {
  const Simulator sim = three_wheeler_on(bumps(), testing::gradient_options());
  testing::Rollout r;
  r.h = kH;
  r.steps = 20;
  r.controls = [](int, runtime::WorldBatch& w) {
    for (int i = 0; i < w.count; ++i)
      for (double& c : w.ctrl_of(i)) c = 5;
  };
  r.wq.assign(sim.nq(), 0.0);
  r.wq[0] = 1;    // the chassis' final x
  r.wq[1] = 0.3;  // and y
  r.wq[2] = 2;    // and height
  r.wu.assign(sim.nv(), 0.0);
  r.wu[0] = 0.1;  // and forward speed
  std::vector<testing::Input> inputs;
  // from step 2 on: at step 0 the robot lands, and a difference across the landing measures
  // when the wheels touch down, not a derivative
  for (int k : {2, 5, 10, 15, 19})
    for (int a = 0; a < 2; ++a) inputs.push_back({testing::Input::Ctrl, a, k, 1e-5});
  const testing::Comparison c = testing::compare_gradients(sim, r, inputs);
  CHECK(c.max_relative_error() < 1e-4);
  CHECK(c.cosine() > 1 - 1e-8);
}

TEST_CASE("a ball dropped on an MJCF hfield comes to rest on it at h = 0.1",
          "[physics][contact][terrain][mjcf]") {
  // A flat 3 × 3 hfield (nrow, ncol without a file: all zero, as in MuJoCo) at z = 0.3.
  const Simulator sim = testing::make_simulator(testing::model_from_mjcf(R"(
    <mujoco model="ball_on_hfield">
      <asset><hfield name="pad" nrow="3" ncol="3" size="1 1 0.5 0.1"/></asset>
      <worldbody>
        <geom type="hfield" hfield="pad" pos="0 0 0.3"/>
        <body name="ball" pos="0.1 -0.2 0.8"><freejoint/>
          <geom type="sphere" size="0.1" mass="1"/></body>
      </worldbody></mujoco>)"));
  REQUIRE(sim.program().terrain_probes.size() == 1);
  runtime::WorldBatch w = sim.make_worlds(1);
  for (int k = 0; k < 20; ++k) {
    sim.step(w, kH);
    REQUIRE((w.status[0] & runtime::kWorldFailed) == 0);
    CHECK(substeps(w) == 1);
  }
  // on the hfield's top, z = 0.3, by its radius, less the resting depth (≤ 1e-5 m)
  const Vec3 end = testing::com(w, 0, 0);
  CHECK(end.z() == Approx(0.4).margin(1e-5));
  CHECK((end.head<2>() - Vec3(0.1, -0.2, 0).head<2>()).norm() < 1e-9);
  CHECK(testing::velocity(w, 0, 0).norm() < 1e-6);
}

}  // namespace talon
