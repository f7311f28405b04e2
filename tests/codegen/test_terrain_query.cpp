// A static triangle-mesh terrain: build_terrain_bvh's hierarchy (every triangle once, boxes
// that contain their contents, degenerate faces dropped and counted, determinism), and
// talon_terrain_query (codegen/solver/talon_terrain.h) over the rendered tables, compiled in
// process, against a brute-force closest point over every triangle computed another way.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "codegen/clang_compiler.h"
#include "codegen/object_code.h"
#include "codegen/solver/solver_text.h"
#include "codegen/terrain_bvh.h"
#include "height_field.h"
#ifdef TALON_HAVE_CUDA
#include "codegen/nvrtc_compiler.h"
#endif

using namespace talon;
using namespace talon::codegen;

namespace {

struct Mesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> faces;
};

double bump(double x, double y) {
  return 0.2 * std::sin(x) * std::cos(1.3 * y);
}

// nx x ny square cells of side `cell` from the origin, heights from bump().
Mesh grid_terrain(int nx, int ny, double cell) {
  Mesh mesh;
  talon::testing::height_field(nx, ny, 0, 0, cell, bump, mesh.vertices, mesh.faces);
  return mesh;
}

Vec3 face_normal(const Mesh& mesh, int f) {
  const auto& [a, b, c] = mesh.faces[f];
  return (mesh.vertices[b] - mesh.vertices[a])
      .cross(mesh.vertices[c] - mesh.vertices[a])
      .normalized();
}

Vec3 closest_on_segment(const Vec3& p, const Vec3& a, const Vec3& b) {
  const double s = std::clamp((p - a).dot(b - a) / (b - a).squaredNorm(), 0.0, 1.0);
  return a + s * (b - a);
}

// Not Ericson's region test (the query's): the projection onto the plane when it falls inside
// every edge, else the nearest of the three edges.
Vec3 closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 n = (b - a).cross(c - a).normalized();
  const Vec3 q = p - (p - a).dot(n) * n;
  if ((b - a).cross(q - a).dot(n) >= 0 && (c - b).cross(q - b).dot(n) >= 0 &&
      (a - c).cross(q - c).dot(n) >= 0)
    return q;
  const Vec3 candidates[3] = {closest_on_segment(p, a, b), closest_on_segment(p, b, c),
                              closest_on_segment(p, c, a)};
  Vec3 best = candidates[0];
  for (const Vec3& x : candidates)
    if ((p - x).squaredNorm() < (p - best).squaredNorm()) best = x;
  return best;
}

struct Candidate {
  Vec3 point, face_normal;
  double distance = 0;
};

// Every face whose distance to p is within `tolerance` of the smallest: the answers a correct
// query may give, rounding deciding between near ties.
std::vector<Candidate> brute_force(const Mesh& mesh, const Vec3& p, double tolerance) {
  std::vector<Candidate> all;
  double best = INFINITY;
  for (int f = 0; f < static_cast<int>(mesh.faces.size()); ++f) {
    const auto& [a, b, c] = mesh.faces[f];
    const Vec3 x = closest_on_triangle(p, mesh.vertices[a], mesh.vertices[b], mesh.vertices[c]);
    all.push_back({x, face_normal(mesh, f), (p - x).norm()});
    best = std::min(best, all.back().distance);
  }
  std::erase_if(all, [&](const Candidate& c) { return c.distance > best + tolerance; });
  return all;
}

double mesh_size(const Mesh& mesh) {
  Vec3 lo = mesh.vertices[0], hi = lo;
  for (const Vec3& v : mesh.vertices) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  return (hi - lo).norm();
}

// The translation unit a model unit would hold: the prelude, the tables, the query, and an
// entry point that runs it over a batch of probes.
std::string terrain_unit(const TerrainBvh& bvh, ir::CPrecision precision) {
  const bool single = precision == ir::CPrecision::Float;
  return std::string("#include <math.h>\n#define TALON_SINGLE_PRECISION ") + (single ? "1" : "0") +
         "\n#define TALON_CALLABLE\n#define TALON_TABLE static const\n" + solver_prelude_text() +
         "\n" + render_terrain_tables(bvh, precision) + "\n" + solver_terrain_text() +
         "\nvoid terrain_query_batch(int n, const talon_real* probes, talon_real* points,\n"
         "                          talon_real* normals) {\n"
         "  int i;\n"
         "  for (i = 0; i < n; ++i)\n"
         "    talon_terrain_query(probes + 3 * i, points + 3 * i, normals + 3 * i);\n"
         "}\n";
}

template <class Real>
struct QueryResults {
  std::vector<Vec3> points, normals;
};

// talon_terrain_query over `bvh`'s tables in Real (double or float), compiled in process as
// strict C99 with warnings as errors (the prelude's helpers this unit does not call aside).
template <class Real>
class CompiledQuery {
 public:
  explicit CompiledQuery(const TerrainBvh& bvh) : code_(load(bvh)) {
    Expected<void*> address = code_.symbol("terrain_query_batch");
    REQUIRE(address.ok());
    batch_ = reinterpret_cast<void (*)(int, const Real*, Real*, Real*)>(*address);
  }

  QueryResults<Real> operator()(const std::vector<Vec3>& probes) const {
    const int n = static_cast<int>(probes.size());
    std::vector<Real> in(3 * probes.size()), points(in.size()), normals(in.size());
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) in[3 * i + k] = static_cast<Real>(probes[i][k]);
    batch_(n, in.data(), points.data(), normals.data());
    QueryResults<Real> out;
    for (int i = 0; i < n; ++i) {
      out.points.emplace_back(points[3 * i], points[3 * i + 1], points[3 * i + 2]);
      out.normals.emplace_back(normals[3 * i], normals[3 * i + 1], normals[3 * i + 2]);
    }
    return out;
  }

 private:
  static ObjectCode load(const TerrainBvh& bvh) {
    constexpr bool single = sizeof(Real) == sizeof(float);
    const std::string source =
        terrain_unit(bvh, single ? ir::CPrecision::Float : ir::CPrecision::Double);
    InProcessCompilerOptions options;
    options.flags.insert(options.flags.end(),
                         {"-pedantic", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function"});
    Expected<std::string> object = compile_c_object(source, "terrain.c", options);
    INFO(object.diagnostics().format());
    REQUIRE(object.ok());
    Expected<ObjectCode> code = ObjectCode::load(*object, "terrain.c");
    INFO(code.diagnostics().format());
    REQUIRE(code.ok());
    return std::move(*code);
  }

  ObjectCode code_;
  void (*batch_)(int, const Real*, Real*, Real*) = nullptr;
};

// ~2000 probes of every kind: above and below the surface, far from it, beside its border,
// on it, and within 1e-9 .. 1e-2 of its edges and vertices.
std::vector<Vec3> random_probes(const Mesh& mesh, double extent, std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> gauss;
  const auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * unit(rng); };
  const auto gaussian3 = [&] { return Vec3(gauss(rng), gauss(rng), gauss(rng)); };
  const auto any_face = [&] { return mesh.faces[rng() % mesh.faces.size()]; };
  const auto tiny = [&] { return std::pow(10.0, uniform(-9, -2)); };
  std::vector<Vec3> probes;
  for (int i = 0; i < 300; ++i) {
    const double x = uniform(-1, extent + 1), y = uniform(-1, extent + 1);
    probes.emplace_back(x, y, bump(x, y) + uniform(0.01, 2));  // above
    probes.emplace_back(x, y, bump(x, y) - uniform(0.01, 1));  // below
  }
  const Vec3 centre(extent / 2, extent / 2, 0);
  for (int i = 0; i < 250; ++i)
    probes.push_back(centre + uniform(20, 50) * gaussian3().normalized());
  for (int i = 0; i < 200; ++i) {  // beside the border, at about the surface's height
    const double s = uniform(0, extent), off = uniform(0.001, 3);
    const Vec3 side[4] = {{-off, s, 0}, {extent + off, s, 0}, {s, -off, 0}, {s, extent + off, 0}};
    probes.push_back(side[i % 4] + Vec3(0, 0, uniform(-0.5, 0.5)));
  }
  for (int i = 0; i < 250; ++i) {  // on the surface: in a face, or exactly on an edge
    const auto f = any_face();
    double u = unit(rng), v = unit(rng);
    if (u + v > 1) u = 1 - u, v = 1 - v;
    if (i % 5 == 0) v = 0;
    const Vec3 &a = mesh.vertices[f[0]], &b = mesh.vertices[f[1]], &c = mesh.vertices[f[2]];
    probes.push_back(a + u * (b - a) + v * (c - a));
  }
  for (int i = 0; i < 400; ++i) {  // near an edge
    const auto f = any_face();
    const int e = i % 3;
    const Vec3 &a = mesh.vertices[f[e]], &b = mesh.vertices[f[(e + 1) % 3]];
    probes.push_back(a + unit(rng) * (b - a) + tiny() * gaussian3().normalized());
  }
  for (int i = 0; i < 300; ++i) {  // near a vertex
    const Vec3& v = mesh.vertices[rng() % mesh.vertices.size()];
    probes.push_back(v + tiny() * gaussian3().normalized());
  }
  return probes;
}

// Whether `normal` is what the query may return for probe p answered by `c`: d/|d| above the
// surface, n_t on or below it, either where p lies on that border to rounding.
bool normal_follows_rule(const Vec3& normal, const Vec3& p, const Candidate& c, double tolerance,
                         double scale, int& above, int& below) {
  const Vec3 d = p - c.point;
  const double length = d.norm();
  const double cosine = length > 0 ? d.dot(c.face_normal) / length : 0;
  const double length_slack = 1e-12 * scale;
  const bool may_be_above = cosine > -1e-9 && length > tolerance - length_slack;
  const bool may_be_below = cosine < 1e-9 || length < tolerance + length_slack;
  if (may_be_above && (normal - d / length).norm() <= 1e-12 + 1e-12 * scale / length) {
    above += !may_be_below;
    return true;
  }
  if (may_be_below && (normal - c.face_normal).norm() <= 1e-12) {
    below += !may_be_above;
    return true;
  }
  return false;
}

constexpr double kCell = 0.2;
constexpr int kCells = 60;

}  // namespace

TEST_CASE("Terrain BVH holds every triangle once, in boxes that contain them",
          "[codegen][terrain]") {
  const Mesh mesh = grid_terrain(kCells, kCells, kCell);
  const TerrainBvh bvh = build_terrain_bvh(mesh.vertices, mesh.faces);
  const int n = static_cast<int>(mesh.faces.size());
  REQUIRE(bvh.triangle_count() == n);
  CHECK(bvh.degenerate_triangles == 0);
  CHECK(bvh.vertex_count() == static_cast<int>(mesh.vertices.size()));

  std::vector<int> sources = bvh.source_faces;
  std::sort(sources.begin(), sources.end());
  for (int i = 0; i < n; ++i) REQUIRE(sources[i] == i);
  for (int t = 0; t < n; ++t)
    for (int k = 0; k < 3; ++k)
      REQUIRE(bvh.triangles[3 * t + k] == mesh.faces[bvh.source_faces[t]][k]);

  // Walk the tree: every node reached once, leaves covering [0, n) exactly, boxes around
  // their triangles and children, depth as stated.
  std::vector<int> covered(n, 0), reached(bvh.node_count(), 0);
  std::vector<std::pair<int, int>> stack = {{0, 0}};  // node, level
  int deepest = 0;
  const auto inside = [&](const Vec3& x, int node) {
    for (int k = 0; k < 3; ++k)
      if (x[k] < bvh.node_boxes[6 * node + k] || x[k] > bvh.node_boxes[6 * node + 3 + k])
        return false;
    return true;
  };
  while (!stack.empty()) {
    const auto [node, level] = stack.back();
    stack.pop_back();
    REQUIRE(node >= 0);
    REQUIRE(node < bvh.node_count());
    ++reached[node];
    const int first = bvh.node_links[2 * node], count = bvh.node_links[2 * node + 1];
    if (count > 0) {
      CHECK(count <= TerrainBvh::kMaxLeafTriangles);
      deepest = std::max(deepest, level);
      for (int t = first; t < first + count; ++t) {
        ++covered[t];
        for (int k = 0; k < 3; ++k) CHECK(inside(mesh.vertices[bvh.triangles[3 * t + k]], node));
      }
      continue;
    }
    for (int child : {first, first + 1}) {
      for (int k = 0; k < 3; ++k) {
        CHECK(bvh.node_boxes[6 * node + k] <= bvh.node_boxes[6 * child + k]);
        CHECK(bvh.node_boxes[6 * node + 3 + k] >= bvh.node_boxes[6 * child + 3 + k]);
      }
      stack.emplace_back(child, level + 1);
    }
  }
  CHECK(std::all_of(covered.begin(), covered.end(), [](int c) { return c == 1; }));
  CHECK(std::all_of(reached.begin(), reached.end(), [](int c) { return c == 1; }));
  CHECK(bvh.depth == deepest);
  // A median split halves the triangles per level: 7200 -> 1800 leaves of 4 at depth 11.
  CHECK(bvh.depth == 11);
}

TEST_CASE("Terrain BVH drops degenerate triangles, handles one, and is deterministic",
          "[codegen][terrain]") {
  Mesh mesh = grid_terrain(6, 5, 0.5);
  const int good = static_cast<int>(mesh.faces.size());
  mesh.faces.insert(mesh.faces.begin() + 3, {{0, 1, 1}});  // a repeated vertex
  const int extra = static_cast<int>(mesh.vertices.size());
  mesh.vertices.emplace_back(0, 0, 5);
  mesh.vertices.emplace_back(1, 1, 6);
  mesh.vertices.emplace_back(3, 3, 8);
  mesh.faces.push_back({{extra, extra + 1, extra + 2}});  // collinear
  // A sliver whose height is below the rounding of its edges.
  mesh.vertices.push_back(0.5 * (mesh.vertices[0] + mesh.vertices[1]) + Vec3(0, 0, 1e-18));
  mesh.faces.push_back({{0, extra + 3, 1}});
  const TerrainBvh bvh = build_terrain_bvh(mesh.vertices, mesh.faces);
  CHECK(bvh.degenerate_triangles == 3);
  CHECK(bvh.triangle_count() == good);
  for (int f : bvh.source_faces) {
    CHECK(f != 3);
    CHECK(f < good + 1);
  }

  // Same input, same tables, to the byte.
  const TerrainBvh again = build_terrain_bvh(mesh.vertices, mesh.faces);
  CHECK(again.triangles == bvh.triangles);
  CHECK(again.node_boxes == bvh.node_boxes);
  CHECK(again.node_links == bvh.node_links);
  CHECK(render_terrain_tables(again, ir::CPrecision::Double) ==
        render_terrain_tables(bvh, ir::CPrecision::Double));

  const TerrainBvh one = build_terrain_bvh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{{0, 1, 2}}});
  CHECK(one.triangle_count() == 1);
  CHECK(one.node_count() == 1);
  CHECK(one.depth == 0);
  const std::vector<int> links = {0, 1};
  CHECK(one.node_links == links);
  const std::string tables = render_terrain_tables(one, ir::CPrecision::Double);
  CHECK(tables.find("#define TALON_TERRAIN_STACK 1\n") != std::string::npos);
  CHECK(tables.find("TALON_TABLE int talon_terrain_node_links[2] = {\n    0, 1};") !=
        std::string::npos);

  const TerrainBvh none = build_terrain_bvh({{0, 0, 0}, {1, 0, 0}}, {{{0, 1, 1}}});
  CHECK(none.triangle_count() == 0);
  CHECK(none.node_count() == 0);
  CHECK(none.degenerate_triangles == 1);
}

TEST_CASE("Terrain BVH builds 10^5 triangles in linearithmic time", "[codegen][terrain]") {
  const Mesh mesh = grid_terrain(224, 224, 0.1);  // 100352 triangles
  const auto start = std::chrono::steady_clock::now();
  const TerrainBvh bvh = build_terrain_bvh(mesh.vertices, mesh.faces);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(bvh.triangle_count() == 100352);
  CHECK(bvh.depth <= 15);
  // About 0.05 s in a release build; the bound only catches quadratic work (minutes), with
  // room for sanitizer builds and loaded machines.
  CHECK(seconds < 5.0);
}

TEST_CASE("Terrain query finds the exact closest point and the normal the rule says",
          "[codegen][terrain]") {
  const Mesh mesh = grid_terrain(kCells, kCells, kCell);
  const TerrainBvh bvh = build_terrain_bvh(mesh.vertices, mesh.faces);
  const CompiledQuery<double> query(bvh);
  std::mt19937 rng(7);
  const std::vector<Vec3> probes = random_probes(mesh, kCells * kCell, rng);
  const QueryResults<double> got = query(probes);
  const double size = mesh_size(mesh), tolerance = 1e-9 * size;
  int above = 0, below = 0;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const Vec3& p = probes[i];
    const double scale = std::max(size, p.norm()), slack = 1e-12 * scale;
    const std::vector<Candidate> candidates = brute_force(mesh, p, slack);
    INFO("probe " << i << ": " << p.transpose());
    CHECK(std::abs((p - got.points[i]).norm() - candidates[0].distance) <= slack);
    CHECK(std::abs(got.normals[i].norm() - 1) <= 1e-12);
    const auto same_point = [&](const Candidate& c) {
      return (c.point - got.points[i]).norm() <= slack;
    };
    CHECK(std::any_of(candidates.begin(), candidates.end(), same_point));
    CHECK(std::any_of(candidates.begin(), candidates.end(), [&](const Candidate& c) {
      return same_point(c) &&
             normal_follows_rule(got.normals[i], p, c, tolerance, scale, above, below);
    }));
  }
  // Both sides of the rule were exercised, unambiguously.
  CHECK(above > 600);
  CHECK(below > 300);

  // The same probes answer bit for bit the same (ties go to the lower triangle index).
  const QueryResults<double> again = query(probes);
  CHECK(again.points == got.points);
  CHECK(again.normals == got.normals);
}

TEST_CASE("Terrain query stays exact far above a small triangle", "[codegen][terrain]") {
  // Up to 10^7 triangle sizes above its face: the foot to the probe's own rounding.
  const std::vector<Vec3> vertices = {{0.3, -0.2, 0.1}, {1.1, 0.4, 0.5}, {0.2, 0.9, -0.3}};
  const TerrainBvh bvh = build_terrain_bvh(vertices, {{{0, 1, 2}}});
  const Vec3 &a = vertices[0], &b = vertices[1], &c = vertices[2];
  const Vec3 n = (b - a).cross(c - a).normalized();
  std::vector<Vec3> feet, probes;
  for (int k = 0; k <= 7; ++k)
    for (const double u : {0.2, 0.45}) {
      feet.push_back(a + u * (b - a) + 0.3 * (c - a));
      probes.push_back(feet.back() + std::pow(10.0, k) * n);
    }
  const QueryResults<double> got = CompiledQuery<double>(bvh)(probes);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    INFO("probe " << i << ": " << probes[i].transpose());
    CHECK((got.points[i] - feet[i]).norm() <= 1e-12 * probes[i].norm());
    CHECK((got.normals[i] - n).norm() <= 1e-12);
  }
}

TEST_CASE("Terrain normal turns continuously above a convex edge", "[codegen][terrain]") {
  const Mesh mesh = grid_terrain(kCells, kCells, kCell);
  const TerrainBvh bvh = build_terrain_bvh(mesh.vertices, mesh.faces);
  // The sharpest convex interior edge: the face across it bends down, where the face
  // normal jumps by the dihedral angle.
  double sharpest = 0;
  Vec3 a = Vec3::Zero(), b = Vec3::Zero(), n1 = Vec3::Zero(), n2 = Vec3::Zero();
  for (int f = 0; f + 1 < static_cast<int>(mesh.faces.size()); f += 2) {
    // The cell's diagonal, shared by faces f (a, b, c) and f + 1 (a, c, d).
    const auto& lower = mesh.faces[f];
    const Vec3 m1 = face_normal(mesh, f), m2 = face_normal(mesh, f + 1);
    const Vec3& far_vertex = mesh.vertices[mesh.faces[f + 1][2]];
    const Vec3& origin = mesh.vertices[lower[0]];
    const double angle = std::acos(std::min(1.0, m1.dot(m2)));
    if ((far_vertex - origin).dot(m1) < 0 && angle > sharpest) {
      sharpest = angle;
      a = origin;
      b = mesh.vertices[lower[2]];
      n1 = m1;
      n2 = m2;
    }
  }
  REQUIRE(sharpest > 0.05);
  // Across the edge's midpoint, 0.03 above it, from over face f to over face f + 1.
  const Vec3 up = (n1 + n2).normalized();
  Vec3 across = (b - a).cross(up).normalized();
  if (across.dot(n2 - n1) < 0) across = -across;
  const double half_width = 0.04, height = 0.03;
  const int steps = 4000;
  std::vector<Vec3> probes;
  for (int i = 0; i <= steps; ++i)
    probes.push_back(0.5 * (a + b) + height * up +
                     (-half_width + 2 * half_width * i / steps) * across);
  const QueryResults<double> got = CompiledQuery<double>(bvh)(probes);
  CHECK((got.normals.front() - n1).norm() < 1e-9);
  CHECK((got.normals.back() - n2).norm() < 1e-9);
  // The normal turns at about 1/height radians per unit of travel; face normals would jump
  // by `sharpest` at once.
  const double step = 2 * half_width / steps;
  double largest_turn = 0;
  for (int i = 0; i < steps; ++i)
    largest_turn = std::max(largest_turn, (got.normals[i + 1] - got.normals[i]).norm());
  CHECK(largest_turn <= 1.5 * step / height);
  CHECK(largest_turn < sharpest / 20);
}

TEST_CASE("Terrain query compiles and answers in single precision", "[codegen][terrain]") {
  const Mesh mesh = grid_terrain(kCells, kCells, kCell);
  const TerrainBvh bvh = build_terrain_bvh(mesh.vertices, mesh.faces);
  const std::string tables = render_terrain_tables(bvh, ir::CPrecision::Float);
  CHECK(tables.find("TALON_TABLE talon_real talon_terrain_vertices[") != std::string::npos);
  CHECK(tables.find("f,") != std::string::npos);
  const CompiledQuery<float> query(bvh);
  std::mt19937 rng(11);
  std::vector<Vec3> probes = random_probes(mesh, kCells * kCell, rng);
  probes.resize(400);
  const QueryResults<float> got = query(probes);
  const double size = mesh_size(mesh);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    // The probe as the query saw it, rounded to float.
    const Vec3 p = probes[i].cast<float>().cast<double>();
    const double scale = std::max(size, p.norm());
    const std::vector<Candidate> candidates = brute_force(mesh, p, 0);
    INFO("probe " << i << ": " << p.transpose());
    CHECK(std::abs((p - got.points[i]).norm() - candidates[0].distance) <= 1e-5 * scale);
    CHECK(std::abs(got.normals[i].norm() - 1) <= 1e-5);
  }
}

#ifdef TALON_HAVE_CUDA
TEST_CASE("Terrain query compiles as CUDA device code", "[codegen][terrain][cuda]") {
  const Mesh mesh = grid_terrain(8, 8, kCell);
  const TerrainBvh bvh = build_terrain_bvh(mesh.vertices, mesh.faces);
  for (ir::CPrecision precision : {ir::CPrecision::Double, ir::CPrecision::Float}) {
    const std::string source =
        std::string("#define TALON_SINGLE_PRECISION ") +
        (precision == ir::CPrecision::Float ? "1" : "0") +
        "\n#define TALON_CALLABLE __device__\n#define TALON_TABLE static __device__ const\n" +
        solver_prelude_text() + "\n" + render_terrain_tables(bvh, precision) + "\n" +
        solver_terrain_text() +
        "\nextern \"C\" __global__ void terrain_kernel(const talon_real* probes, talon_real* "
        "points, talon_real* normals, int n) {\n"
        "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) talon_terrain_query(probes + 3 * i, points + 3 * i, normals + 3 * i);\n"
        "}\n";
    Expected<std::string> ptx = nvrtc_compile(source);
    INFO(ptx.diagnostics().format());
    CHECK(ptx.ok());
  }
}
#endif
