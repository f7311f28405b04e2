#include "codegen/terrain_bvh.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <sstream>

#include "common/diagnostics.h"

namespace talon::codegen {
namespace {

Vec3 vertex(const TerrainBvh& bvh, int index) {
  return Vec3(bvh.vertices[3 * index], bvh.vertices[3 * index + 1], bvh.vertices[3 * index + 2]);
}

// Degenerate to rounding: the cross product's length is at the level of its own rounding
// error, so its direction (the face normal) carries no correct digit.
bool degenerate(const Vec3& a, const Vec3& b, const Vec3& c) {
  const double longest2 =
      std::max({(b - a).squaredNorm(), (c - a).squaredNorm(), (c - b).squaredNorm()});
  return !((b - a).cross(c - a).norm() > 64 * DBL_EPSILON * longest2);
}

class Builder {
 public:
  Builder(const std::vector<Vec3>& vertices, const std::vector<std::array<int, 3>>& faces,
          TerrainBvh& out)
      : vertices_(vertices), faces_(faces), out_(out) {}

  void run() {
    for (int f = 0; f < static_cast<int>(faces_.size()); ++f) {
      const std::array<int, 3>& face = faces_[f];
      const Vec3 &a = vertices_[face[0]], &b = vertices_[face[1]], &c = vertices_[face[2]];
      if (degenerate(a, b, c)) {
        ++out_.degenerate_triangles;
        continue;
      }
      kept_.push_back(f);
      centroids_.push_back((a + b + c) / 3);
    }
    if (kept_.empty()) return;
    order_.resize(kept_.size());
    std::iota(order_.begin(), order_.end(), 0);
    add_node();
    split(0, 0, static_cast<int>(order_.size()), 0);
    for (int position : order_) {
      const int f = kept_[position];
      out_.source_faces.push_back(f);
      out_.triangles.insert(out_.triangles.end(), faces_[f].begin(), faces_[f].end());
    }
  }

 private:
  int add_node() {
    out_.node_boxes.insert(out_.node_boxes.end(), 6, 0.0);
    out_.node_links.insert(out_.node_links.end(), 2, 0);
    return out_.node_count() - 1;
  }

  // Node `node` over order_[begin, end): its box, then a leaf or two children.
  void split(int node, int begin, int end, int level) {
    set_box(node, begin, end);
    if (end - begin <= TerrainBvh::kMaxLeafTriangles) {
      // By face index, so that the leaf's order does not depend on how the partition went.
      std::sort(order_.begin() + begin, order_.begin() + end);
      out_.node_links[2 * node] = begin;
      out_.node_links[2 * node + 1] = end - begin;
      out_.depth = std::max(out_.depth, level);
      return;
    }
    const int axis = longest_centroid_axis(begin, end);
    const int middle = begin + (end - begin) / 2;
    // A strict total order (coordinate, then index): the halves are the same sets whatever
    // nth_element's internals, even with equal centroids.
    std::nth_element(order_.begin() + begin, order_.begin() + middle, order_.begin() + end,
                     [&](int a, int b) {
                       const double ca = centroids_[a][axis], cb = centroids_[b][axis];
                       return ca < cb || (ca == cb && a < b);
                     });
    const int left = add_node();
    add_node();
    out_.node_links[2 * node] = left;
    out_.node_links[2 * node + 1] = 0;
    split(left, begin, middle, level + 1);
    split(left + 1, middle, end, level + 1);
  }

  void set_box(int node, int begin, int end) {
    Vec3 lo = Vec3::Constant(INFINITY), hi = Vec3::Constant(-INFINITY);
    for (int i = begin; i < end; ++i)
      for (int v : faces_[kept_[order_[i]]]) {
        lo = lo.cwiseMin(vertices_[v]);
        hi = hi.cwiseMax(vertices_[v]);
      }
    for (int k = 0; k < 3; ++k) {
      out_.node_boxes[6 * node + k] = lo[k];
      out_.node_boxes[6 * node + 3 + k] = hi[k];
    }
  }

  // Ties go to the lowest axis.
  int longest_centroid_axis(int begin, int end) const {
    Vec3 lo = centroids_[order_[begin]], hi = lo;
    for (int i = begin + 1; i < end; ++i) {
      lo = lo.cwiseMin(centroids_[order_[i]]);
      hi = hi.cwiseMax(centroids_[order_[i]]);
    }
    int axis = 0;
    for (int k = 1; k < 3; ++k)
      if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
    return axis;
  }

  const std::vector<Vec3>& vertices_;
  const std::vector<std::array<int, 3>>& faces_;
  TerrainBvh& out_;
  // Kept faces are numbered by position in kept_ (ascending input index, so comparing
  // positions compares face indices).
  std::vector<int> kept_;        // position -> input face
  std::vector<Vec3> centroids_;  // per position
  std::vector<int> order_;       // positions, in leaf order once split
};

void check_input(const std::vector<Vec3>& vertices, const std::vector<std::array<int, 3>>& faces) {
  for (const Vec3& v : vertices)
    TALON_INTERNAL_ASSERT(v.allFinite(), "terrain mesh with a non-finite vertex");
  const int n = static_cast<int>(vertices.size());
  for (const std::array<int, 3>& face : faces)
    for (int v : face)
      TALON_INTERNAL_ASSERT(v >= 0 && v < n, "terrain mesh face with a vertex index out of range");
}

void macro(std::ostringstream& out, const char* name, const std::string& value) {
  out << "#define " << name << " " << value << "\n";
}

// `TALON_TABLE type name[n] = {...};`, n >= 1 (the caller guarantees values).
template <class T, class Format>
void table(std::ostringstream& out, const char* type, const char* name,
           const std::vector<T>& values, Format format) {
  out << "TALON_TABLE " << type << " " << name << "[" << values.size() << "] = {";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i % 12 == 0) out << "\n   ";
    out << " " << format(values[i]) << (i + 1 < values.size() ? "," : "");
  }
  out << "};\n";
}

std::vector<double> unit_normals(const TerrainBvh& bvh) {
  std::vector<double> normals;
  normals.reserve(bvh.triangles.size());
  for (int t = 0; t < bvh.triangle_count(); ++t) {
    const Vec3 a = vertex(bvh, bvh.triangles[3 * t]), b = vertex(bvh, bvh.triangles[3 * t + 1]),
               c = vertex(bvh, bvh.triangles[3 * t + 2]);
    const Vec3 n = (b - a).cross(c - a).normalized();
    normals.insert(normals.end(), n.data(), n.data() + 3);
  }
  return normals;
}

// Per vertex, the unit mean of its triangles' normals weighted by their angles there (Thürmer
// and Wüthrich 1998: independent of how the surface around the vertex is triangulated). The
// surface model interpolates them across each triangle (talon_terrain_model), so its normal
// turns continuously across edges. A vertex of no kept triangle gets (0, 0, 1).
std::vector<double> vertex_normals(const TerrainBvh& bvh) {
  std::vector<Vec3> sum(bvh.vertex_count(), Vec3::Zero());
  for (int t = 0; t < bvh.triangle_count(); ++t) {
    const int* v = &bvh.triangles[3 * t];
    const Vec3 n = (vertex(bvh, v[1]) - vertex(bvh, v[0]))
                       .cross(vertex(bvh, v[2]) - vertex(bvh, v[0]))
                       .normalized();
    for (int k = 0; k < 3; ++k) {
      const Vec3 e1 = vertex(bvh, v[(k + 1) % 3]) - vertex(bvh, v[k]);
      const Vec3 e2 = vertex(bvh, v[(k + 2) % 3]) - vertex(bvh, v[k]);
      sum[v[k]] += std::atan2(e1.cross(e2).norm(), e1.dot(e2)) * n;
    }
  }
  std::vector<double> out;
  out.reserve(3 * sum.size());
  for (const Vec3& s : sum) {
    const Vec3 n = s.norm() > 0 ? Vec3(s.normalized()) : Vec3::UnitZ();
    out.insert(out.end(), n.data(), n.data() + 3);
  }
  return out;
}

// 1e-9 of the mesh's size; but never below what `precision` resolves at the mesh's
// coordinates, or rounding alone would decide whether a probe on the surface is above it.
double normal_tolerance(const TerrainBvh& bvh, ir::CPrecision precision) {
  double diagonal2 = 0, extent = 0;
  for (int k = 0; k < 3; ++k) {
    const double lo = bvh.node_boxes[k], hi = bvh.node_boxes[3 + k];
    diagonal2 += (hi - lo) * (hi - lo);
    extent = std::max({extent, std::fabs(lo), std::fabs(hi)});
  }
  const double epsilon = precision == ir::CPrecision::Float ? FLT_EPSILON : DBL_EPSILON;
  return std::max(1e-9 * std::sqrt(diagonal2), 64 * epsilon * extent);
}

}  // namespace

TerrainBvh build_terrain_bvh(const std::vector<Vec3>& vertices,
                             const std::vector<std::array<int, 3>>& faces) {
  check_input(vertices, faces);
  TerrainBvh out;
  for (const Vec3& v : vertices) out.vertices.insert(out.vertices.end(), v.data(), v.data() + 3);
  Builder(vertices, faces, out).run();
  return out;
}

std::string render_terrain_tables(const TerrainBvh& bvh, ir::CPrecision precision) {
  TALON_INTERNAL_ASSERT(bvh.triangle_count() > 0 && bvh.node_count() > 0,
                        "terrain tables for a mesh without a triangle");
  const auto real = [&](double v) { return ir::c_literal(v, precision); };
  const auto integer = [](int v) { return std::to_string(v); };
  std::ostringstream out;
  out << "/* Terrain: " << bvh.triangle_count() << " triangles in a BVH of " << bvh.node_count()
      << " nodes, depth " << bvh.depth << " (codegen/terrain_bvh.h). */\n";
  macro(out, "TALON_TERRAIN_VERTICES", std::to_string(bvh.vertex_count()));
  macro(out, "TALON_TERRAIN_TRIANGLES", std::to_string(bvh.triangle_count()));
  macro(out, "TALON_TERRAIN_NODES", std::to_string(bvh.node_count()));
  macro(out, "TALON_TERRAIN_STACK", std::to_string(std::max(bvh.depth, 1)));
  macro(out, "TALON_TERRAIN_NORMAL_TOLERANCE", real(normal_tolerance(bvh, precision)));
  table(out, "talon_real", "talon_terrain_vertices", bvh.vertices, real);
  table(out, "int", "talon_terrain_triangles", bvh.triangles, integer);
  table(out, "talon_real", "talon_terrain_normals", unit_normals(bvh), real);
  table(out, "talon_real", "talon_terrain_vertex_normals", vertex_normals(bvh), real);
  table(out, "talon_real", "talon_terrain_node_boxes", bvh.node_boxes, real);
  table(out, "int", "talon_terrain_node_links", bvh.node_links, integer);
  return out.str();
}

}  // namespace talon::codegen
