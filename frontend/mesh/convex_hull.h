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

HullResult convex_hull_vertices(const std::vector<Vec3>& points);

}  // namespace talon::mesh
