// The faces of a convex polytope given by its vertices (a mesh's convex hull, a box's
// corners), as the polytope–polytope contact slots use them (internal to ir/lower/; see
// polytope_contacts.h). Plain numbers in the geom's frame: computed once per pair while
// lowering, never in generated code.
#pragma once

#include <array>
#include <vector>

#include "common/math.h"

namespace talon::ir::lower {

// Vertices kept per face. A face with more (a mesh cylinder's cap) keeps this many of its
// vertices, evenly spread around it: the polygon they span lies inside the face, so contact
// is clipped to a slightly smaller region, never a larger one.
inline constexpr int kFaceVertices = 8;

// A face: its outward unit normal and its boundary as kFaceVertices edges, counter-clockwise
// about the normal. Edge k runs from start[k] to end[k]; inward[k] is the unit vector in the
// face's plane, perpendicular to the edge, pointing into the face. A face with fewer vertices
// than kFaceVertices fills the rest with edges marked invalid (start = end = the first vertex,
// inward = 0), which clip nothing and hold no contact point.
struct PolytopeFace {
  Vec3 normal = Vec3::Zero();
  std::array<Vec3, kFaceVertices> start{}, end{}, inward{};
  std::array<bool, kFaceVertices> valid{};
};

struct Polytope {
  std::vector<Vec3> vertices;
  std::vector<PolytopeFace> faces;
};

// The faces of the convex hull of `vertices` (each a vertex of the hull: a mesh's collision
// hull, a box's corners). Coplanar hull triangles are merged into one face, within a
// tolerance of 1e-7 of the polytope's size. Empty faces when the vertices span no volume.
Polytope polytope_of(const std::vector<Vec3>& vertices);

// The eight corners of the box with half-sizes `half`, centred at the origin.
std::vector<Vec3> box_corners(const Vec3& half);

}  // namespace talon::ir::lower
