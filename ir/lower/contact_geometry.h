// Symbolic contact geometry of primitive pairs: fixed slots whose gap, point and normal are
// expressions of the two geoms' poses (internal to ir/lower/).
//
// Pairs are handled in a canonical order of types (plane < sphere < capsule < box <
// cylinder); the normal points from the first geom to the second, and the gap is the
// signed distance along it (negative = penetration). The point is midway between the two
// surfaces. Slots per pair:
//   plane–sphere 1, plane–capsule 2 (end spheres), plane–box 8 (corners),
//   plane–cylinder 1 (the lowest rim point; mid-width when upright), sphere–sphere 1,
//   sphere–capsule 1, capsule–capsule 1 (closest points of the segments), sphere–box 1,
//   capsule–box 4 (end spheres, a centre inside the box pushed out of the face chosen at the
//   step's start as for sphere–box, and the axis clipped to the box face it lies against
//   from either end: capsule_box_clipped), box–box 9 (separating axes: up to 8 vertices of
//   the incident face clipped to the reference face, or one edge–edge point; see
//   box_box.h), box–cylinder 1 (the rim point of one circle towards the box, as against a
//   plane), sphere–cylinder 1 (exact point–cylinder distance), capsule–cylinder 3 (end
//   spheres and the sphere closest to the cylinder's axis), cylinder–cylinder 7 (the first's
//   point lowest against the second, each one's side point facing the other, four corners of
//   the lens where end discs lie flat on each other, each switched on where it applies: see
//   cylinder_cylinder), plane–mesh 8 (support points of the mesh's convex hull: see
//   plane_hull), box–mesh and mesh–mesh 16 (the hulls' faces clipped to each other: see
//   polytope_contacts.h), sphere–mesh 1 and capsule–mesh 4 (the centre or end spheres, each
//   measured as point_box measures a box, the face for a centre inside chosen at the step's
//   start: point_polytope; and a
//   capsule's axis clipped to the hull face it lies against from either end, as capsule–box:
//   capsule_hull_clipped), cylinder–mesh 1 (box–cylinder's rim point, against the hull's
//   nearest feature).
// A terrain pairs as a plane (the same slots): the lowering hands these colliders the
// terrain's tangent plane under the geom, a plane whose point and normal are inputs
// (contacts.cpp, terrain_plane). Other pairs (ellipsoids) have none.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "frontend/spec.h"
#include "ir/lower/symbolic.h"

namespace talon::ir::lower {

struct GeomPose {
  GeomType type = GeomType::Sphere;
  V3 center;
  M3 rot;  // geom axes in the world (columns)
  // MuJoCo's size convention. Expressions, so that one collider serves both lowerings: the
  // model's sizes as constants (folded exactly as numbers would be) or a per-type template's
  // inputs (docs/design.md, "Kernels per type").
  V3 size;
  const std::vector<Vec3>* hull = nullptr;  // a mesh's convex hull vertices (geom frame)
};

struct ContactPoint {
  Expr gap;
  V3 point;
  V3 normal;  // unit, from the first geom to the second
};

// Signed distance from a point to a solid (negative inside) and the solid's outward unit
// normal there (towards the point).
// Metres: a point this close outside a box, cylinder or mesh hull is measured as on its
// surface (point_box, point_cylinder, point_polytope): the gap is then the distance to the
// nearest face's plane, short of the true distance by at most (√3 − 1)·kSurfaceBand near a
// corner.
inline constexpr double kSurfaceBand = 1e-9;

struct SolidDistance {
  Expr gap;
  V3 normal;
};

// True when a canonically ordered pair collides as two convex polytopes (a mesh hull against
// a box or another mesh hull: polytope_contacts.h).
bool polytope_pair(GeomType a, GeomType b);
// True when (a, b) is already in canonical order.
bool canonical_pair_order(GeomType a, GeomType b);
// Number of slots of a canonically ordered pair; 0 = no symbolic collider.
int contact_slot_count(GeomType a, GeomType b);
// "plane-box corner 3" and the like.
std::string contact_slot_kind(GeomType a, GeomType b, int slot);
// The slots of a canonically ordered pair (contact_slot_count of them).
std::vector<ContactPoint> contact_points(const GeomPose& a, const GeomPose& b);

// The slots at the step's start (q⁻) and end (q⁺) poses. Colliders that choose features
// (box–box's separating axis, faces and clipped vertices; the hull's support vertices of
// plane–mesh; which of cylinder–cylinder's slots are on; a hull's faces, or the face a centre
// inside it is pushed out of;
// the face that sphere–box and capsule–box push a centre inside the box out of)
// choose them at the chooser poses for both, so that the step's residual is continuous and
// piecewise smooth in q⁺ (a choice made at q⁺ switches a slot's impulse to another point or
// off within one Newton step: the residual jumps there, and Newton stalls at the jump); the
// others are contact_points at each pose.
bool choosing_pair(GeomType a, GeomType b);  // a canonically ordered pair whose collider chooses
struct StepContactPoints {
  std::vector<ContactPoint> minus, plus;
};
StepContactPoints contact_points_of_step(const GeomPose& a_minus, const GeomPose& b_minus,
                                         const GeomPose& a_plus, const GeomPose& b_plus,
                                         const GeomPose& a_chooser, const GeomPose& b_chooser);

// Closest points of the segments centre_a + s·half_a and centre_b + t·half_b, s, t ∈ [−1, 1]
// (capsule axes, box edges).
std::pair<V3, V3> closest_segment_points(const V3& centre_a, const V3& half_a, const V3& centre_b,
                                         const V3& half_b);

}  // namespace talon::ir::lower
