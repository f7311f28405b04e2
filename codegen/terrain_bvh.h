// A static triangle-mesh terrain as data for a model unit: a bounding-volume hierarchy built
// here, rendered as the unit's tables, and searched by one generic routine,
// talon_terrain_query (codegen/solver/talon_terrain.h), whatever the mesh. A terrain of 10^5
// triangles is tables of that size, not code of that size.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "common/math.h"
#include "frontend/mesh/triangle_mesh.h"
#include "ir/ops.h"

namespace talon::codegen {

// Flat arrays, in the layout the rendered tables keep (so the C query indexes them alike):
//   vertices      x, y, z of every input vertex, in input order (unused ones included, so
//                 that indices stay the caller's).
//   triangles     3 vertex indices per kept triangle, in the caller's winding (outward normal
//                 counter-clockwise), reordered so that every leaf's triangles are contiguous.
//   source_faces  per triangle, its index in the input faces.
//   node_boxes    6 per node: lo x, y, z, then hi x, y, z of the axis-aligned box around the
//                 node's triangles (exact: the min / max of their vertex coordinates).
//   node_links    2 per node: (first, count). count > 0: a leaf holding triangles
//                 first .. first + count - 1 (1 to kMaxLeafTriangles of them). count == 0: an
//                 inner node whose two children are nodes first and first + 1 (children are
//                 allocated in pairs, so one index names both).
// Node 0 is the root. depth is the most inner nodes on a path from the root to a leaf (0 when
// the root is a leaf): the query's stack holds at most one deferred child per inner level.
struct TerrainBvh {
  static constexpr int kMaxLeafTriangles = 4;

  std::vector<double> vertices;
  std::vector<int> triangles;
  std::vector<int> source_faces;
  std::vector<double> node_boxes;
  std::vector<int> node_links;
  int depth = 0;
  // Input faces dropped for having no area to rounding (|e1 x e2| <= 64 eps |longest edge|^2:
  // repeated or collinear vertices), so that the caller can say so. Their normals would be
  // noise, and a mesh without them has the same surface up to rounding.
  int degenerate_triangles = 0;

  int vertex_count() const { return static_cast<int>(vertices.size() / 3); }
  int triangle_count() const { return static_cast<int>(triangles.size() / 3); }
  int node_count() const { return static_cast<int>(node_links.size() / 2); }
};

// The hierarchy over `faces` (vertex indices into `vertices`, counter-clockwise seen from
// outside, as mesh::TriangleMesh holds them): a median split on the longest axis of the
// centroids' bounds, until a node holds at most kMaxLeafTriangles. Deterministic (ties in the
// split go by face index; a leaf lists its triangles by face index). O(n log n). With no
// triangle left (no face, or only degenerate ones) the result has no node. Internal error
// (throws): a vertex index out of range or a non-finite vertex, which the mesh reader rejects.
TerrainBvh build_terrain_bvh(const std::vector<Vec3>& vertices,
                             const std::vector<std::array<int, 3>>& faces);
inline TerrainBvh build_terrain_bvh(const mesh::TriangleMesh& mesh) {
  return build_terrain_bvh(mesh.vertices, mesh.faces);
}

// The unit's terrain tables, after talon_real is defined (talon_math.h) and before
// talon_terrain.h's text, with TALON_TABLE defined by the unit:
//   TALON_TABLE talon_real talon_terrain_vertices[3 * TALON_TERRAIN_VERTICES]
//   TALON_TABLE int        talon_terrain_triangles[3 * TALON_TERRAIN_TRIANGLES]
//   TALON_TABLE talon_real talon_terrain_normals[3 * TALON_TERRAIN_TRIANGLES]  unit, outward
//   TALON_TABLE talon_real talon_terrain_node_boxes[6 * TALON_TERRAIN_NODES]
//   TALON_TABLE int        talon_terrain_node_links[2 * TALON_TERRAIN_NODES]
// (layout as TerrainBvh's) and the macros TALON_TERRAIN_VERTICES, TALON_TERRAIN_TRIANGLES,
// TALON_TERRAIN_NODES, TALON_TERRAIN_STACK (the query's stack: max(depth, 1) entries) and
// TALON_TERRAIN_NORMAL_TOLERANCE (the distance below which a probe counts as on the surface:
// 1e-9 x the root box's diagonal, raised to 64 ulps of the largest coordinate where
// `precision` cannot resolve that). Reals are exact literals in `precision`; normals are
// computed here in double. Internal error: a hierarchy without a triangle.
std::string render_terrain_tables(const TerrainBvh& bvh, ir::CPrecision precision);

}  // namespace talon::codegen
