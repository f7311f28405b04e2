// The vertices of a point set's convex hull (qhull, Debian's libqhull-dev): what a mesh geom
// collides with (MuJoCo collides meshes through their convex hulls too), and far fewer
// points than a detailed mesh has (the support search of the mesh colliders visits each).
#pragma once

#include <string>
#include <vector>

#include "common/math.h"

namespace talon::mesh {

struct HullResult {
  std::vector<Vec3> vertices;  // in the input's order
  std::string error;           // empty on success (fewer than 4 points, all in one plane, ...)
};

// At most `max_vertices` (≥ 4): beyond that qhull stops adding points (its TA option, as
// MuJoCo's maxhullvert), leaving the hull of the farthest-out points found so far, inside
// the true hull.
HullResult convex_hull_vertices(const std::vector<Vec3>& points, int max_vertices = 1 << 30);

// The hull a mesh geom collides with: at most kCollisionHullVertices of the mesh's points.
// Each plane–mesh slot searches every hull vertex in the generated code (a select per
// vertex, ir/lower/contact_geometry.cpp), so detailed meshes are simplified; 32 is MuJoCo's
// advice for convex collision meshes. Empty when the mesh is flat.
constexpr int kCollisionHullVertices = 32;
std::vector<Vec3> collision_hull(const std::vector<Vec3>& points);

}  // namespace talon::mesh
