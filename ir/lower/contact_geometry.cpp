// Gap, point and normal of each primitive pair's slots (see contact_geometry.h).
//
// Clamps (segment ends, box faces) and the inside/outside switch of point–box distances
// are min/max/select: continuous in the pose, with kinks of measure zero. Normalisations
// use ε-guarded norms so that coincident centres give a finite (if arbitrary) normal.
#include "ir/lower/contact_geometry.h"

#include <array>
#include <cmath>
#include <numbers>
#include <optional>

#include "ir/lower/box_box.h"
#include "ir/lower/polytope_contacts.h"

namespace talon::ir::lower {
namespace {

constexpr double kNormEps = 1e-12;  // metres: guards normalising centre offsets
// sin of the tilt below which an upright cylinder's contact point moves from its disc's
// centre to the rim in proportion to the tilt (capped_direction) instead of jumping there:
// a point that jumps over 1e-9 rad gives the exact Jacobian a lever arm of R·1e9 m/rad, and
// Newton found no step along its directions (an upright can on the floor diverged at its
// first step). The price is the gap of the disc's lowest point, overestimated by at most
// R·kUprightBlend/4 (0.5 mm for R = 0.1 m) while tilted by less than kUprightBlend; upright
// or tilted further it is exact. An upright cylinder stands while its tilt's lever
// R/kUprightBlend exceeds its centre's height, i.e. up to an aspect L/R of 50.
constexpr double kUprightBlend = 0.02;
constexpr double kDirectionEps = 1e-9;  // unitless: guards the length of a rim direction
// sin of the tilt at which a cylinder's one contact point (plane and box) reaches the lower
// end circle. Its axial position moves L/kTiltBlend per radian of tilt about upright, and the
// normal impulse's lever with it: at 0.02 that was 1 m/rad on the robot's wheels, a torque
// the Newton matrix does not see, and Newton at h = 0.1 alternated between updates that
// broke a wheel's angular momentum balance by ~40 rad/s and updates that repaired it. The
// price is the gap, overestimated by at most L·kTiltBlend/4 (at sin(tilt) = kTiltBlend/2:
// 1.25 mm on those wheels, which never tilt that far).
constexpr double kTiltBlend = 0.25;
// Slots of a mesh against a plane, and the tilt of their support directions (plane_hull).
constexpr int kHullPlaneSlots = 8;
constexpr double kSupportTilt = 0.2;     // rad
constexpr double kTieBreakTilt = 1e-3;   // rad: the deepest-vertex slot's direction
constexpr double kSupportAzimuth = 0.1;  // rad: the directions' offset from the plane's x axis
constexpr double kInactiveGap = 1.0;     // m: the gap of a slot switched off for the step
// Cylinder end discs lying on each other (lens_corners).
constexpr double kLensInset = 0.02;     // of the way from each corner to the lens' middle
constexpr double kFacingCos = 0.9;      // cos of the largest angle between facing ends' axes
constexpr double kLensAxisTilt = 1e-3;  // of b's radius: e's pull towards b's x axis

int rank(GeomType t) {
  switch (t) {
    case GeomType::Plane:
    case GeomType::Terrain:  // collides as its tangent plane (contacts.cpp, terrain_plane)
      return 0;
    case GeomType::Sphere:
      return 1;
    case GeomType::Capsule:
      return 2;
    case GeomType::Box:
      return 3;
    case GeomType::Cylinder:
      return 4;
    case GeomType::Ellipsoid:
      return 5;
    case GeomType::Mesh:
      return 6;
  }
  return 7;
}

Graph& graph_of(const GeomPose& p) {
  return p.center.x.graph();
}

V3 axis(const GeomPose& p, int i) {
  return column(p.rot, i);
}

V3 local_to_world(const GeomPose& p, const V3& local) {
  return p.center + p.rot * local;
}

// Segment of a capsule or cylinder: centre ± half_length · axis z.
V3 segment_end(const GeomPose& p, double sign) {
  return p.center + (sign * p.size.y) * axis(p, 2);
}

ContactPoint midway(const V3& point_on_b_side, const V3& normal, Expr gap) {
  return {gap, point_on_b_side - (0.5 * gap) * normal, normal};
}

// A point (a sphere of radius r when r > 0) above a plane (the plane's +z side).
ContactPoint plane_point(const GeomPose& plane, const V3& p, Expr r) {
  const V3 n = axis(plane, 2);
  const Expr gap = dot(n, p - plane.center) - r;
  return midway(p - r * n, n, gap);
}

// A point of a solid above a plane: plane_point with r = 0.
ContactPoint plane_point(const GeomPose& plane, const V3& p) {
  return plane_point(plane, p, graph_of(plane).constant(0.0));
}

ContactPoint sphere_sphere(const V3& pa, Expr ra, const V3& pb, Expr rb) {
  const V3 d = pb - pa;
  const Expr dist = smooth_norm(d, kNormEps);
  const V3 n = (1.0 / dist) * d;
  const Expr gap = dist - ra - rb;
  return midway(pb - rb * n, n, gap);
}

// The point of a capsule's (or cylinder's) axis segment closest to p.
V3 closest_on_segment(const GeomPose& seg, const V3& p) {
  const V3 a = axis(seg, 2);
  const Expr half = seg.size.y;
  const Expr t = clamp(dot(p - seg.center, a), -half, half);
  return seg.center + t * a;
}

}  // namespace

// Ericson, Real-Time Collision Detection §5.1.9, with the segments parametrised as
// centre + s·half, s ∈ [−1, 1]. The parallel case (denominator → 0) falls back to s = 0
// through a guarded denominator.
std::pair<V3, V3> closest_segment_points(const V3& centre_a, const V3& half_a, const V3& centre_b,
                                         const V3& half_b) {
  Graph& g = centre_a.x.graph();
  const V3 r = centre_a - centre_b;
  const Expr aa = dot(half_a, half_a), ee = dot(half_b, half_b), bb = dot(half_a, half_b);
  const Expr c = dot(half_a, r), f = dot(half_b, r);
  const Expr denom = max(aa * ee - bb * bb, 1e-12 * aa * ee + 1e-30);
  const Expr one = g.constant(1.0), minus_one = g.constant(-1.0);
  const Expr s0 = clamp((bb * f - c * ee) / denom, minus_one, one);
  const Expr t = clamp((bb * s0 + f) / (ee + 1e-30), minus_one, one);
  const Expr s = clamp((bb * t - c) / (aa + 1e-30), minus_one, one);
  return {centre_a + s * half_a, centre_b + t * half_b};
}

namespace {

// The outward unit normal (box frame) of the face of a box (half sizes `half`) that the point
// at `local` (box frame) penetrates least, or where it is outside, lies farthest out of.
V3 least_penetrated_face(const V3& local, const V3& half) {
  Expr depth[3];
  for (int i = 0; i < 3; ++i) depth[i] = abs(local[i]) - half[i];
  const Expr pick0 = le(depth[1], depth[0]) * le(depth[2], depth[0]);
  const Expr pick1 = (1.0 - pick0) * le(depth[2], depth[1]);
  const Expr pick2 = (1.0 - pick0) * (1.0 - pick1);
  return {pick0 * sign_nonnegative(local.x), pick1 * sign_nonnegative(local.y),
          pick2 * sign_nonnegative(local.z)};
}

// Signed distance from a point p to a box, and the box's outward normal there (towards p).
// Outside: the distance to the clamped point. On or inside: the distance to the plane of the
// face chosen with the box at `box_chooser` and the point at `p_chooser` (the least-penetrated
// face there). Chosen at the pose itself that is the least-penetrated face at p, continuous
// across the surface. Chosen at the step's start it is the face the point comes through: a
// sphere that falls through a box's top within one step (the primitive pile's upper capsule
// at 3.9 m/s onto a 0.2 m box at h = 0.1) ends nearer the bottom face, which pushed it on
// downwards; the step's equations had no root there and Newton stalled at θ ≈ 56 for 16
// updates (bench/RESULTS.md, twenty-third session).
SolidDistance point_box(const GeomPose& box, const V3& p, const GeomPose& box_chooser,
                        const V3& p_chooser) {
  Graph& g = graph_of(box);
  const V3 local = transpose_times(box.rot, p - box.center);
  V3 excess;
  Expr deepest;
  for (int i = 0; i < 3; ++i) {
    const Expr half = box.size[i];
    excess[i] = local[i] - clamp(local[i], -half, half);
    const Expr depth = abs(local[i]) - half;  // < 0 inside along axis i
    deepest = i == 0 ? depth : max(deepest, depth);
  }
  // On the surface the outside branch has no direction (0/0): take the face, within
  // kSurfaceBand (rounding puts a touching point 1e-17 m outside, where excess/|excess|
  // guarded by kNormEps is a vector of length 1e-5).
  const Expr inside = le(deepest, g.constant(kSurfaceBand));
  const Expr out_dist = smooth_norm(excess, kNormEps);
  const V3 out_normal = (1.0 / out_dist) * excess;
  const V3 in_normal = least_penetrated_face(
      transpose_times(box_chooser.rot, p_chooser - box_chooser.center), box_chooser.size);
  const Expr in_dist =
      dot(in_normal, local) - (abs(in_normal.x) * box.size.x + abs(in_normal.y) * box.size.y +
                               abs(in_normal.z) * box.size.z);
  const V3 normal_local{select(inside, in_normal.x, out_normal.x),
                        select(inside, in_normal.y, out_normal.y),
                        select(inside, in_normal.z, out_normal.z)};
  return {select(inside, in_dist, out_dist), box.rot * normal_local};
}

// The same with the face chosen at the pose itself.
SolidDistance point_box(const GeomPose& box, const V3& p) {
  return point_box(box, p, box, p);
}

// Signed distance from a point to a solid cylinder (radius R, half-length L along its z), and
// the cylinder's outward normal there, as point_box with two directions instead of three:
// radial (ρ, the offset from the axis) and axial (z). Outside: the distance to the clamped
// point (ρ clamped to R, z to ±L), exact on the curved side, the flat ends and their rims.
// Inside: the less-penetrated of the side and the nearer end.
SolidDistance point_cylinder(const GeomPose& cyl, const V3& p) {
  Graph& g = graph_of(cyl);
  const V3 a = axis(cyl, 2);
  const V3 offset = p - cyl.center;
  const Expr z = dot(offset, a);
  const V3 radial = offset - z * a;
  const Expr rho = smooth_norm(radial, kNormEps);
  const V3 radial_dir = (1.0 / rho) * radial;
  const Expr radius = cyl.size.x, half = cyl.size.y;
  const Expr radial_excess = max(rho - radius, g.constant(0.0));
  const Expr axial_excess = z - clamp(z, -half, half);
  const Expr radial_depth = rho - radius, axial_depth = abs(z) - half;  // < 0 inside
  const Expr deepest = max(radial_depth, axial_depth);
  const Expr inside = le(deepest, g.constant(kSurfaceBand));  // as point_box
  const V3 excess = radial_excess * radial_dir + axial_excess * a;
  const Expr out_dist = smooth_norm(excess, kNormEps);
  const Expr side = le(axial_depth, radial_depth);  // inside: the side is the nearer surface
  const V3 in_normal = side * radial_dir + ((1.0 - side) * sign_nonnegative(z)) * a;
  const V3 out_normal = (1.0 / out_dist) * excess;
  return {select(inside, deepest, out_dist), select(inside, in_normal, out_normal)};
}

// A box's 8 corners above a plane.
std::vector<ContactPoint> plane_box(const GeomPose& plane, const GeomPose& box) {
  std::vector<ContactPoint> out;
  for (int k = 0; k < 8; ++k) {
    const V3 corner{((k & 1) ? 1.0 : -1.0) * box.size.x, ((k & 2) ? 1.0 : -1.0) * box.size.y,
                    ((k & 4) ? 1.0 : -1.0) * box.size.z};
    out.push_back(plane_point(plane, local_to_world(box, corner)));
  }
  return out;
}

// v / max(|v|, floor): the unit vector along v where |v| ≥ floor, shorter in proportion to
// |v| below (continuous, Lipschitz: see kUprightBlend).
V3 capped_direction(const V3& v, const Expr& floor) {
  return (1.0 / max(smooth_norm(v, kNormEps), floor)) * v;
}

// The point of an end circle's rim towards `towards` (a unit vector): centre + r · (its part
// in the circle's plane), moved inside the disc when that part is shorter than kUprightBlend.
V3 rim_point_towards(const GeomPose& cyl, const V3& centre, const V3& towards) {
  const V3 a = axis(cyl, 2);
  const V3 in_plane = towards - dot(towards, a) * a;
  return centre + cyl.size.x * capped_direction(in_plane, graph_of(cyl).constant(kUprightBlend));
}

// The centre of the circle at axial offset −L·s, s = clamp((a·n)/kTiltBlend, −1, 1), of a
// cylinder (axis a, half-length L) touching a surface of outward normal n.
V3 contact_circle_centre(const GeomPose& cyl, const V3& n) {
  Graph& g = graph_of(cyl);
  const V3 a = axis(cyl, 2);
  const Expr s = clamp(dot(a, n) * (1.0 / kTiltBlend), g.constant(-1.0), g.constant(1.0));
  return cyl.center - (cyl.size.y * s) * a;
}

// The point of a cylinder lowest against a surface whose outward normal (towards the
// cylinder) is n: the rim point of contact_circle_centre's circle furthest along −n; upright
// on the surface (n along the axis) the circle's centre.
V3 cylinder_point_against(const GeomPose& cyl, const V3& n) {
  return rim_point_towards(cyl, contact_circle_centre(cyl, n), -n);
}

// One slot: the cylinder's lowest rim point, on the circle at axial offset −L·s with
// s = clamp((a·n)/kTiltBlend, −1, 1). Tilted by more than kTiltBlend that is the lower end
// circle (exact); upright (a wheel) the whole width touches along a line, and one point at
// its middle carries it. One point per end circle would be exact there too, but while they
// stick the split of the friction impulse between them is not unique, and once one share
// reaches its cone the step's answer depends on that arbitrary split: the wheeled robot's
// 20-step rollout gradient had cosine 0.10 to finite differences with two points, 0.9999999996
// with one (sphere wheels). In between the point overestimates the gap by at most
// L·sin(tilt)·(1 − s) ≤ L·kTiltBlend/4.
std::vector<ContactPoint> plane_cylinder(const GeomPose& plane, const GeomPose& cyl) {
  return {plane_point(plane, cylinder_point_against(cyl, axis(plane, 2)))};
}

// A cylinder's rim point against a solid: the point of the circle centred at `centre` that
// reaches furthest into the solid, whose distance from `centre` is d (normal from the solid
// towards `centre`), and the rim point's gap along that normal: d's less the disc's reach
// r·|n_p| (n_p the normal's part in the circle's plane).
struct RimContact {
  Expr gap;
  V3 rim, normal;
};

// As rim_point_towards, the point moves to the centre in proportion to |n_p| below
// kUprightBlend; above it (every wheel) the arithmetic is box_cylinder's before the blend,
// operation for operation, so that the wheeled robot's trajectories did not move by a bit.
RimContact rim_against(const GeomPose& cyl, const V3& centre, const SolidDistance& d) {
  Graph& g = graph_of(cyl);
  const V3 a = axis(cyl, 2);
  const V3& n = d.normal;
  const V3 in_plane = n - dot(n, a) * a;
  const Expr length = smooth_norm(in_plane, kDirectionEps);
  const Expr blend = g.constant(kUprightBlend);
  const V3 rim = centre - (cyl.size.x / max(length, blend)) * in_plane;
  const Expr reach = cyl.size.x * length * min(g.constant(1.0), length / blend);
  return {d.gap - reach, rim, n};
}

// One slot, as against a plane: the circle at axial offset −L·s, s = clamp((a·n₀)/kTiltBlend,
// −1, 1) with n₀ the box's outward normal towards the cylinder's centre (upright on a face or
// an edge: the middle circle; tilted: the lower end circle). For that circle (centre c,
// radius r), with p the box's closest point to c and n the box's outward normal there
// (c − p = |c − p| n, smooth while c is outside the box, i.e. for any penetration shallower
// than r), the disc's support towards the box is r·|n_p|, n_p the part of n in the circle's
// plane, so the gap along n is |c − p| − r·|n_p|: exact for a rim on a face or an edge and
// continuous in between. Measuring the rim point itself against the box (as a point) instead
// picks the least-penetrated face once it is inside: on an edge that face flips between top
// and front from one Newton iterate to the next. One point per end circle (as before) gave a
// wheel on the box's top face or edge two points for one slip (see plane_cylinder) and split
// the wheeled robot's steps onto the obstacle 2-11 times at h = 0.1; with one, none.
//
// The rim point moves to the circle's centre as the circle turns parallel to the face
// (rim_against, as plane_cylinder's does): an upright can on a box jumped from the centre to
// the rim within 1e-9 rad of tilt and diverged, as on a plane.
std::vector<ContactPoint> box_cylinder(const GeomPose& box, const GeomPose& cyl) {
  const V3 centre = contact_circle_centre(cyl, point_box(box, cyl.center).normal);
  const RimContact c = rim_against(cyl, centre, point_box(box, centre));
  return {midway(c.rim, c.normal, c.gap)};
}

// A sphere (centre p, radius r; first) against a solid whose distance from p is d (second).
ContactPoint sphere_against(const V3& p, Expr r, const SolidDistance& d) {
  // d.normal points from the solid (second) to the sphere (first).
  return {d.gap - r, p - (0.5 * (d.gap + r)) * d.normal, -d.normal};
}

// The hull vertex farthest along the world direction d (the hull's support point), in the
// hull's frame, by a select chain over the vertices.
V3 hull_support(const GeomPose& hull, const V3& d) {
  Graph& g = graph_of(hull);
  const V3 local = transpose_times(hull.rot, d);
  const std::vector<Vec3>& vertices = *hull.hull;
  V3 best = constant(g, vertices[0]);
  Expr best_reach = dot(local, best);
  for (std::size_t i = 1; i < vertices.size(); ++i) {
    const V3 vertex = constant(g, vertices[i]);
    const Expr reach = dot(local, vertex);
    best = select(lt(best_reach, reach), vertex, best);
    best_reach = max(best_reach, reach);
  }
  return best;
}

// A mesh's convex hull above a plane, in kHullPlaneSlots slots, each one hull vertex: the
// hull's support point along −n (its deepest vertex; the direction tilted by kTieBreakTilt,
// see below) and along −n tilted by kSupportTilt
// towards seven tangent directions 2π/7 apart. A hull resting on a face (a mesh cube on the
// floor) then has each of the face's corners in some slot, whatever its yaw (a corner is the
// support of every tilted direction within the corner's quarter turn, and 2π/7 < π/2), so
// the face is held at its corners as plane_box holds a box; tilted past kSupportTilt it
// rests on its lowest vertex. The tilt bounds how flat a resting face can be: a box half as
// high as its half diagonal keeps its bottom corners the supports (tan 0.2 < 1/2). Slots may
// coincide (a vertex that is the support of several directions); the compliant rows share
// the load.
//
// No direction is exactly −n, nor at a multiple of 45° from the plane's axes: the vertices
// of a resting face are equally deep, and an axis-aligned box's corners equally far along
// such a direction, so rounding would pick a different vertex from step to step and the
// warm start's impulses would land on the wrong slots (measured: a resting mesh cube needed
// 3, 6, 9, 3, 6, 9, ... updates per step instead of 0–1).
//
// The vertices are chosen at the step's start pose (`chooser`) and measured at `hull`: a
// tilted direction's support jumps between vertices of different heights when the choice
// changes, so chosen within the Newton iteration the gap would jump with it (measured: the
// cube of tests/data/scenes/mesh_cube_drop.xml at h = 0.1 took 13.1 updates per step, 73 at
// most, against 1.2 and 7 for the same cube as a box). Chosen at q⁻, each slot's gap is a
// smooth function of q⁺.
std::vector<ContactPoint> plane_hull(const GeomPose& plane, const GeomPose& hull,
                                     const GeomPose& chooser_plane, const GeomPose& chooser) {
  const V3 n = axis(chooser_plane, 2), t1 = axis(chooser_plane, 0), t2 = axis(chooser_plane, 1);
  std::vector<ContactPoint> out;
  for (int k = 0; k < kHullPlaneSlots; ++k) {
    const double tilt = k == 0 ? kTieBreakTilt : kSupportTilt;
    const double phi =
        kSupportAzimuth + (k == 0 ? 0 : 2 * std::numbers::pi * (k - 1) / (kHullPlaneSlots - 1));
    const V3 d = (-std::cos(tilt)) * n + std::sin(tilt) * (std::cos(phi) * t1 + std::sin(phi) * t2);
    const V3 vertex = hull_support(chooser, d);
    out.push_back(plane_point(plane, hull.center + hull.rot * vertex));
  }
  return out;
}

ContactPoint sphere_cylinder(const V3& p, Expr r, const GeomPose& cyl) {
  return sphere_against(p, r, point_cylinder(cyl, p));
}

// A capsule as the two spheres at its segment's ends, each collided by `collide(centre, r)`.
template <class Collide>
std::vector<ContactPoint> end_spheres(const GeomPose& capsule, Collide collide) {
  std::vector<ContactPoint> out;
  for (double sign : {-1.0, 1.0})
    out.push_back(collide(segment_end(capsule, sign), capsule.size.x));
  return out;
}

// Three slots: the capsule's two end spheres (a capsule lying on a flat end or along the
// curved side touches along a line, and two points carry it) and the sphere at the capsule
// axis' point closest to the cylinder's axis segment (where crossing capsules and cylinders
// touch, which neither end sees).
std::vector<ContactPoint> capsule_cylinder(const GeomPose& capsule, const GeomPose& cyl) {
  std::vector<ContactPoint> out =
      end_spheres(capsule, [&](const V3& p, Expr r) { return sphere_cylinder(p, r, cyl); });
  const V3 on_capsule = closest_segment_points(capsule.center, capsule.size.y * axis(capsule, 2),
                                               cyl.center, cyl.size.y * axis(cyl, 2))
                            .first;
  out.push_back(sphere_cylinder(on_capsule, capsule.size.x, cyl));
  return out;
}

// A slot switched on for the step where `on` is 1, else given kInactiveGap.
ContactPoint switched(ContactPoint c, const Expr& on) {
  c.gap = select(on, c.gap, c.gap.graph().constant(kInactiveGap));
  return c;
}

// The side point of `cyl` facing `other` at its axis point nearest the other's centre, on
// where its end faces the other and that point is inside its segment (see cylinder_cylinder).
ContactPoint cylinder_side_slot(const GeomPose& cyl, const GeomPose& other, const GeomPose& chooser,
                                const GeomPose& other_chooser) {
  Graph& g = graph_of(cyl);
  const V3 axis_c = axis(cyl, 2);
  const V3 on_c = closest_on_segment(cyl, other.center);
  const V3 towards = closest_on_segment(other, on_c) - on_c;
  const V3 across = towards - dot(towards, axis_c) * axis_c;
  const V3 side = on_c + cyl.size.x * capped_direction(across, kUprightBlend * cyl.size.x);
  // The switch, at the step's start: the end faces the other, and the side point is inside
  // the segment.
  const V3 chosen_axis = axis(chooser, 2);
  const Expr end_faces_other =
      le(g.constant(kTiltBlend),
         abs(dot(chosen_axis, point_cylinder(other_chooser, chooser.center).normal)));
  const Expr inside_segment =
      lt(abs(dot(other_chooser.center - chooser.center, chosen_axis)), cyl.size.y * (1 - 1e-9));
  return switched(sphere_cylinder(side, g.constant(0.0), other), end_faces_other * inside_segment);
}

// The end of `cyl` that faces `other` at the step's start: its outward axis (±z) and centre.
struct FacingEnd {
  V3 normal, centre;
};
FacingEnd facing_end(const GeomPose& cyl, const GeomPose& chooser, const GeomPose& other_chooser) {
  const Expr side = sign_nonnegative(dot(axis(chooser, 2), other_chooser.center - chooser.center));
  const V3 normal = side * axis(cyl, 2);
  return {normal, cyl.center + cyl.size.y * normal};
}

// 1 where the ends of a and b face each other at the step's start: their axes within
// kFacingCos of each other and each centre beyond the other's end plane (stacked, not side
// by side as parallel logs are).
Expr ends_face(const GeomPose& chooser_a, const GeomPose& chooser_b) {
  Graph& g = graph_of(chooser_a);
  const V3 axis_a = axis(chooser_a, 2), axis_b = axis(chooser_b, 2);
  const V3 offset = chooser_a.center - chooser_b.center;
  return le(g.constant(kFacingCos), abs(dot(axis_a, axis_b))) *
         le(chooser_b.size.y, abs(dot(axis_b, offset))) *
         le(chooser_a.size.y, abs(dot(axis_a, offset)));
}

// A point's signed distance from a cylinder's facing end plane (negative below it) and the
// plane's outward normal: lens corners are measured against it, as box–box measures a
// clipped point against its reference face. Not against the point's nearest feature of the
// cylinder (point_cylinder): below the end by more than the point's distance to the rim that
// is the side, whose normal is horizontal. A can cold-started flat on a post sank 3.9 cm at
// the first Newton update, its lens corners 2 mm inside its rim then pushed sideways, and the
// step stalled at merit 1.8e-3 (tests/data/scenes/can_on_post.xml, bench/RESULTS.md,
// seventeenth session).
SolidDistance end_plane_distance(const FacingEnd& end, const V3& p) {
  return {dot(p - end.centre, end.normal), end.normal};
}

// Four slots where a's facing end disc lies on b's: the corners of a diamond inscribed in
// the lens where the two discs overlap, seen along b's axis. With e the direction from b's
// disc centre to a's (distance d) in b's end plane, the lens spans x ∈ [max(−R_b, d − R_a),
// min(R_b, d + R_a)] along e; the corners are its two ends and the two points ±w across its
// middle, w the lens' half-width there, each moved kLensInset of the way to the diamond's
// centre (inside both discs, clear of either rim), then lifted along b's axis onto a's end
// face: points of a, measured against b's end plane (end_plane_distance).
// They hold a disc resting off axis flat, as box–box's clipped face holds a box. Coaxial
// discs leave e undefined: it is taken along the offset plus kLensAxisTilt·R_b along b's x
// axis, so that it turns smoothly to that axis there (a diamond on the smaller rim) and
// off axis by more than ~R_b/1000 is the offset's direction to within 1e-3 rad. On only
// where the ends face each other (ends_face), decided at q⁻.
std::array<ContactPoint, 4> lens_corners(const GeomPose& a, const GeomPose& b,
                                         const GeomPose& chooser_a, const GeomPose& chooser_b) {
  Graph& g = graph_of(a);
  const Expr ra = a.size.x, rb = b.size.x;
  const auto planar_offset = [](const FacingEnd& from, const FacingEnd& to) {
    const V3 offset = to.centre - from.centre;
    return offset - dot(offset, from.normal) * from.normal;
  };
  const FacingEnd end_a = facing_end(a, chooser_a, chooser_b);
  const FacingEnd end_b = facing_end(b, chooser_b, chooser_a);
  const V3 planar = planar_offset(end_b, end_a);
  const V3 tilted = planar + (kLensAxisTilt * rb) * axis(b, 0);
  const V3 e = (1.0 / smooth_norm(tilted, kNormEps)) * tilted, across = cross(end_b.normal, e);
  const Expr d = dot(planar, e);
  const Expr low = max(-rb, d - ra), high = min(rb, d + ra);
  const Expr middle = 0.5 * (low + high);
  // (Floored above 0: √ has no derivative there, and a NaN in a switched-off slot's point
  // still reaches the residual through 0 · NaN.)
  const Expr width = sqrt(
      max(min(rb * rb - middle * middle, ra * ra - (d - middle) * (d - middle)), 1e-12 * rb * rb));
  const Expr inset = g.constant(1 - kLensInset);
  const V3 centre = end_b.centre + middle * e;
  const V3 corners[] = {centre + (inset * (low - middle)) * e,
                        centre + (inset * (high - middle)) * e, centre + (inset * width) * across,
                        centre - (inset * width) * across};
  const Expr on = ends_face(chooser_a, chooser_b);
  std::array<ContactPoint, 4> out;
  for (int k = 0; k < 4; ++k) {
    // Along b's axis onto a's end plane (through end_a.centre, normal end_a.normal).
    const Expr lift = dot(end_a.centre - corners[k], end_a.normal) /
                      min(dot(end_b.normal, end_a.normal), g.constant(-0.1));
    const V3 point = corners[k] + lift * end_b.normal;
    out[k] = switched(sphere_against(point, g.constant(0.0), end_plane_distance(end_b, point)), on);
  }
  return out;
}

// A point of the second geom against the first, as a slot of the pair (first, second): the
// normal turned to run from the first to the second.
ContactPoint reversed(ContactPoint c) {
  c.normal = -1.0 * c.normal;
  return c;
}

// Seven slots, each a point of one cylinder measured against the other solid by
// point_cylinder, so no slot reports contact where the solids are apart (a point's distance
// to a convex solid is at least the solids' distance; a point inside the other solid is a
// true penetration):
//   0: a's point lowest against b (cylinder_point_against, with b's outward normal at a's
//      centre as the surface normal): a tilted end on the other's end (its lowest rim
//      point), an end on a side (a can standing on a log), a side on an end (a log lying
//      on a can), side on side where a's middle faces b (parallel logs);
//   1, 2: a's side point facing b at a's axis point nearest b's centre, and the same of b
//      against a: a log lying across a roller away from its own middle, which slot 0 misses;
//   3–6: the lens corners, where the end discs lie flat on each other (lens_corners).
// Switches, decided at the step's start (`chooser_a`, `chooser_b`, so that the residual
// stays smooth in q⁺; a switched-off slot has a gap of kInactiveGap): the side points only
// where the cylinder's end faces the other and its axis point is inside its segment; the
// lens corners only where the ends face each other (ends_face); slot 0 not where the discs
// lie flat (facing, turned by less than kUprightBlend). Elsewhere those slots would lie at
// another's point: two slots at one point that stick hold the same motion, only the
// tangential compliance κ_t (1e-6) splits the friction between them, and Newton's directions
// move that split by ~1/κ_t (talon_stick_slip_step's comment). Measured at h = 0.1
// (bench/RESULTS.md): two cans stacked coaxially took 38 Newton updates per step with slots
// 0–2 always on; a can off axis on another, held by slot 0's one point, rested tilted 0.7°
// with its low rim 0.3 mm in, and with both slot 0 and the corners its steps cycled through
// three states; as here, 1.7 and 3.6 updates, flat.
std::vector<ContactPoint> cylinder_cylinder(const GeomPose& a, const GeomPose& b,
                                            const GeomPose& chooser_a, const GeomPose& chooser_b) {
  // Slot 0 is off where the discs lie flat: there it sits at the disc's centre and moves only
  // by its lever (3, 46, 27 Newton updates in turn with it on). Turned further it is the
  // rim's lowest point, which no lens corner follows.
  Graph& g = graph_of(a);
  const Expr flat = ends_face(chooser_a, chooser_b) *
                    lt(smooth_norm(cross(axis(chooser_a, 2), axis(chooser_b, 2)), kNormEps),
                       g.constant(kUprightBlend));
  const V3 lowest = cylinder_point_against(a, point_cylinder(b, a.center).normal);
  std::vector<ContactPoint> out{switched(sphere_cylinder(lowest, g.constant(0.0), b), 1.0 - flat),
                                cylinder_side_slot(a, b, chooser_a, chooser_b),
                                reversed(cylinder_side_slot(b, a, chooser_b, chooser_a))};
  for (const ContactPoint& corner : lens_corners(a, b, chooser_a, chooser_b)) out.push_back(corner);
  return out;
}

}  // namespace

namespace {

// A hull's polytope, or the unit box's, which polytope_contacts scales by a box's half-sizes.
Polytope polytope_of_geom(const GeomPose& p) {
  return polytope_of(p.type == GeomType::Mesh ? *p.hull : box_corners(Vec3::Ones()));
}

// A sphere, or a capsule's two end spheres, against a convex solid: each centre measured by
// `measure(centre, centre at round_chooser)` (a SolidDistance whose choices are made there).
template <class Measure>
std::vector<ContactPoint> round_against(const GeomPose& round, const GeomPose& round_chooser,
                                        Measure measure) {
  auto collide = [&](const V3& centre, const V3& centre_chooser) {
    return sphere_against(centre, round.size.x, measure(centre, centre_chooser));
  };
  if (round.type == GeomType::Sphere) return {collide(round.center, round_chooser.center)};
  std::vector<ContactPoint> out;
  for (const double sign : {-1.0, 1.0})
    out.push_back(collide(segment_end(round, sign), segment_end(round_chooser, sign)));
  return out;
}

// Capsule–mesh's clipped slots: capsule_box_clipped (below) for a hull. The capsule's axis,
// from either end, where it enters the region over the hull face it lies against (the face
// of largest signed distance at the axis point nearest the hull's centre, at q⁻), measured
// from that face's plane (polytope_face_entry). With the end spheres alone a capsule lying
// across a hull with both ends beyond it fell through it (bench/RESULTS.md, twenty-sixth
// session). Off as capsule_box_clipped's are: where the end already lies over the face,
// where the axis misses it, and where the entry lay inside the hull at q⁻.
std::vector<ContactPoint> capsule_hull_clipped(const Polytope& shape, const GeomPose& capsule,
                                               const GeomPose& hull,
                                               const GeomPose& capsule_chooser,
                                               const GeomPose& hull_chooser) {
  const V3 near = closest_on_segment(capsule_chooser, hull_chooser.center);
  std::vector<ContactPoint> out;
  for (const double sign : {-1.0, 1.0}) {
    const FaceEntry entry = polytope_face_entry(
        shape, hull, hull_chooser, near,
        {segment_end(capsule, sign), segment_end(capsule, -sign),
         segment_end(capsule_chooser, sign), segment_end(capsule_chooser, -sign)});
    out.push_back(switched(sphere_against(entry.point, capsule.size.x, entry.distance), entry.on));
  }
  return out;
}

// A sphere or capsule against a mesh hull: each centre measured as point_box measures a box
// (point_polytope); a capsule also has its clipped slots.
std::vector<ContactPoint> round_hull(const GeomPose& round, const GeomPose& hull,
                                     const GeomPose& round_chooser, const GeomPose& hull_chooser) {
  const Polytope shape = polytope_of_geom(hull);
  std::vector<ContactPoint> out =
      round_against(round, round_chooser, [&](const V3& centre, const V3& centre_chooser) {
        return point_polytope(shape, hull, centre, hull_chooser, centre_chooser);
      });
  if (round.type == GeomType::Capsule)
    for (const ContactPoint& c :
         capsule_hull_clipped(shape, round, hull, round_chooser, hull_chooser))
      out.push_back(c);
  return out;
}

// Capsule–box's clipped slots: the capsule's axis clipped to the rectangle of the box face it
// lies against (the least-penetrated face at the axis point nearest the box's centre, chosen
// at the step's start), from either end: where the axis enters the region over the face
// (box–box's clipping, box_box.h). A capsule lying across a box with its ends beyond the
// box's sides rests on these two points, as a line contact needs; with the end spheres alone
// nothing touched the box and the capsule fell through it (bench/RESULTS.md, twenty-fourth
// session). Each is off where its end already lies over the face (within kClipMargin: that
// end's own slot holds the point), where the axis misses the face, and where the axis point
// lies inside the box at the step's start: a capsule that a large step has driven through a
// box is left to its end spheres, as before, instead of a slot that comes on centimetres deep
// (without this condition the twenty-third session's pile diverged on four of eight starts
// at h = 0.1, a clipped slot 7 cm deep at the settle's re-choice).
std::vector<ContactPoint> capsule_box_clipped(const GeomPose& capsule, const GeomPose& box,
                                              const GeomPose& capsule_chooser,
                                              const GeomPose& box_chooser) {
  auto local = [](const GeomPose& b, const V3& p) { return transpose_times(b.rot, p - b.center); };
  const V3 n = least_penetrated_face(
      local(box_chooser, closest_on_segment(capsule_chooser, box_chooser.center)),
      box_chooser.size);
  // The face's axis as 0/1 picks; the rectangle's axes are the next two, cyclically.
  const Expr pick_x = n.x * n.x, pick_y = n.y * n.y, pick_z = n.z * n.z;
  auto in_face = [&](const V3& l) {
    return Coords{pick_x * l.y + pick_y * l.z + pick_z * l.x,
                  pick_x * l.z + pick_y * l.x + pick_z * l.y};
  };
  const Coords half = in_face(box.size);
  const Expr face_offset = dot(V3{pick_x, pick_y, pick_z}, box_chooser.size);
  std::vector<ContactPoint> out;
  for (const double sign : {-1.0, 1.0}) {
    const V3 start = segment_end(capsule, sign), end = segment_end(capsule, -sign);
    const V3 start_chooser = segment_end(capsule_chooser, sign);
    const V3 end_chooser = segment_end(capsule_chooser, -sign);
    const Coords from = in_face(local(box_chooser, start_chooser));
    const Coords to = in_face(local(box_chooser, end_chooser));
    const Entry entry = clipped_entry(
        {from, to, in_face(local(box, start)), in_face(local(box, end)), half.x, half.y},
        kClipMargin);
    const Entry entry_chooser = clipped_entry({from, to, from, to, half.x, half.y}, kClipMargin);
    const V3 p = start + entry.t * (end - start);
    const V3 p_chooser = start_chooser + entry_chooser.t * (end_chooser - start_chooser);
    const Expr outside_chooser = le(face_offset, dot(n, local(box_chooser, p_chooser)));
    out.push_back(
        switched(sphere_against(p, capsule.size.x, point_box(box, p, box_chooser, p_chooser)),
                 entry.hits * (1.0 - entry.from_start) * outside_chooser));
  }
  return out;
}

// A sphere or capsule against a box: a centre inside the box is pushed out of the face chosen
// at q⁻ (point_box); a capsule also has its clipped slots.
std::vector<ContactPoint> round_box(const GeomPose& round, const GeomPose& box,
                                    const GeomPose& round_chooser, const GeomPose& box_chooser) {
  std::vector<ContactPoint> out =
      round_against(round, round_chooser, [&](const V3& centre, const V3& centre_chooser) {
        return point_box(box, centre, box_chooser, centre_chooser);
      });
  if (round.type == GeomType::Capsule)
    for (const ContactPoint& c : capsule_box_clipped(round, box, round_chooser, box_chooser))
      out.push_back(c);
  return out;
}

// A cylinder against a mesh hull: box_cylinder's slot with the hull's distance
// (point_polytope) in place of the box's.
std::vector<ContactPoint> cylinder_hull(const GeomPose& cyl, const GeomPose& hull,
                                        const GeomPose& cyl_chooser, const GeomPose& hull_chooser) {
  const Polytope shape = polytope_of_geom(hull);
  auto measure = [&](const V3& p, const V3& p_chooser) {
    return point_polytope(shape, hull, p, hull_chooser, p_chooser);
  };
  const V3 centre_chooser = contact_circle_centre(
      cyl_chooser,
      point_polytope(shape, hull_chooser, cyl_chooser.center, hull_chooser, cyl_chooser.center)
          .normal);
  const V3 centre = contact_circle_centre(cyl, measure(cyl.center, cyl_chooser.center).normal);
  const RimContact c = rim_against(cyl, centre, measure(centre, centre_chooser));
  // The pair is (cylinder, mesh): the normal from the cylinder to the hull.
  return {midway(c.rim - c.gap * c.normal, -c.normal, c.gap)};
}

bool round_hull_pair(GeomType a, GeomType b) {
  return b == GeomType::Mesh && (a == GeomType::Sphere || a == GeomType::Capsule);
}

std::vector<ContactPoint> hull_hull(const GeomPose& a, const GeomPose& b, const GeomPose& a_chooser,
                                    const GeomPose& b_chooser) {
  return polytope_contacts(polytope_of_geom(a), polytope_of_geom(b), a, b, a_chooser, b_chooser);
}

// The colliders that choose features at the step's start (the hull's support vertices of
// plane–mesh, box–box's separating axis and clipping, which of cylinder–cylinder's slots are
// on, a hull's faces and clipping or nearest feature, the face a sphere inside a box is
// pushed out of), by canonically ordered pair type; a terrain pairs as a plane.
enum class ChoosingCollider {
  None,
  RoundBox,
  PlaneHull,
  BoxBox,
  CylinderCylinder,
  HullHull,
  RoundHull,
  CylinderHull
};

ChoosingCollider choosing_collider_of(GeomType a, GeomType b) {
  using T = GeomType;
  if ((a == T::Plane || a == T::Terrain) && b == T::Mesh) return ChoosingCollider::PlaneHull;
  if ((a == T::Sphere || a == T::Capsule) && b == T::Box) return ChoosingCollider::RoundBox;
  if (a == T::Box && b == T::Box) return ChoosingCollider::BoxBox;
  if (a == T::Cylinder && b == T::Cylinder) return ChoosingCollider::CylinderCylinder;
  if (polytope_pair(a, b)) return ChoosingCollider::HullHull;
  if (round_hull_pair(a, b)) return ChoosingCollider::RoundHull;
  if (a == T::Cylinder && b == T::Mesh) return ChoosingCollider::CylinderHull;
  return ChoosingCollider::None;
}

// A choosing collider's slots at (a, b) with the choice made at (a_chooser, b_chooser);
// nullopt for the other pairs.
std::optional<std::vector<ContactPoint>> choosing_collider(const GeomPose& a, const GeomPose& b,
                                                           const GeomPose& a_chooser,
                                                           const GeomPose& b_chooser) {
  switch (choosing_collider_of(a.type, b.type)) {
    case ChoosingCollider::PlaneHull:
      return plane_hull(a, b, a_chooser, b_chooser);
    case ChoosingCollider::RoundBox:
      return round_box(a, b, a_chooser, b_chooser);
    case ChoosingCollider::BoxBox:
      return box_box_contacts(a, b, a_chooser, b_chooser);
    case ChoosingCollider::CylinderCylinder:
      return cylinder_cylinder(a, b, a_chooser, b_chooser);
    case ChoosingCollider::HullHull:
      return hull_hull(a, b, a_chooser, b_chooser);
    case ChoosingCollider::RoundHull:
      return round_hull(a, b, a_chooser, b_chooser);
    case ChoosingCollider::CylinderHull:
      return cylinder_hull(a, b, a_chooser, b_chooser);
    case ChoosingCollider::None:
      break;
  }
  return std::nullopt;
}

}  // namespace

bool polytope_pair(GeomType a, GeomType b) {
  return b == GeomType::Mesh && (a == GeomType::Box || a == GeomType::Mesh);
}

bool canonical_pair_order(GeomType a, GeomType b) {
  return rank(a) <= rank(b);
}

int contact_slot_count(GeomType a, GeomType b) {
  using T = GeomType;
  if (a == T::Plane || a == T::Terrain) {
    switch (b) {
      case T::Sphere:
        return 1;
      case T::Capsule:
        return 2;
      case T::Box:
        return 8;
      case T::Cylinder:
        return 1;
      case T::Mesh:
        return kHullPlaneSlots;
      default:
        return 0;
    }
  }
  if (a == T::Sphere && (b == T::Sphere || b == T::Capsule || b == T::Box)) return 1;
  if (a == T::Capsule && b == T::Capsule) return 1;
  if (a == T::Capsule && b == T::Box) return 4;
  if (a == T::Box && b == T::Box) return kBoxBoxSlots;
  if (a == T::Box && b == T::Cylinder) return 1;
  if (a == T::Sphere && b == T::Cylinder) return 1;
  if (a == T::Capsule && b == T::Cylinder) return 3;
  if (a == T::Cylinder && b == T::Cylinder) return 7;
  if (polytope_pair(a, b)) return kPolytopeSlots;
  if (round_hull_pair(a, b)) return a == T::Sphere ? 1 : 4;
  if (a == T::Cylinder && b == T::Mesh) return 1;
  return 0;
}

std::string contact_slot_kind(GeomType a, GeomType b, int slot) {
  std::string kind = std::string(geom_type_name(a)) + "-" + geom_type_name(b);
  const int n = contact_slot_count(a, b);
  if (n <= 1) return kind;
  if (a == GeomType::Box && b == GeomType::Box) return kind + " " + box_box_slot_kind(slot);
  if (b == GeomType::Box && a != GeomType::Capsule) return kind + " corner " + std::to_string(slot);
  if (a == GeomType::Capsule && b == GeomType::Cylinder)
    return kind + (slot < 2 ? " end " + std::to_string(slot) : std::string(" closest"));
  if (a == GeomType::Capsule && (b == GeomType::Box || b == GeomType::Mesh))
    return kind + (slot < 2 ? " end " : " clip ") + std::to_string(slot % 2);
  if (a == GeomType::Cylinder && b == GeomType::Cylinder)
    return kind + (slot == 0   ? std::string(" lowest")
                   : slot == 1 ? std::string(" first's side")
                   : slot == 2 ? std::string(" second's side")
                               : " lens corner " + std::to_string(slot - 3));
  if (polytope_pair(a, b)) return kind + " " + polytope_slot_kind(slot);
  if ((a == GeomType::Plane || a == GeomType::Terrain) && b == GeomType::Mesh)
    return kind + " support " + std::to_string(slot);
  return kind + " end " + std::to_string(slot);
}

std::vector<ContactPoint> contact_points(const GeomPose& a, const GeomPose& b) {
  using T = GeomType;
  if (auto chosen = choosing_collider(a, b, a, b)) return *chosen;
  if (a.type == T::Plane) {
    switch (b.type) {
      case T::Sphere:
        return {plane_point(a, b.center, b.size.x)};
      case T::Capsule:
        return end_spheres(b, [&](const V3& p, Expr r) { return plane_point(a, p, r); });
      case T::Box:
        return plane_box(a, b);
      case T::Cylinder:
        return plane_cylinder(a, b);
      default:
        return {};
    }
  }
  if (a.type == T::Sphere) {
    if (b.type == T::Sphere) return {sphere_sphere(a.center, a.size.x, b.center, b.size.x)};
    if (b.type == T::Capsule)
      return {sphere_sphere(a.center, a.size.x, closest_on_segment(b, a.center), b.size.x)};
    if (b.type == T::Cylinder) return {sphere_cylinder(a.center, a.size.x, b)};
  }
  if (a.type == T::Capsule && b.type == T::Cylinder) return capsule_cylinder(a, b);
  if (a.type == T::Capsule && b.type == T::Capsule) {
    const auto [pa, pb] =
        closest_segment_points(a.center, a.size.y * axis(a, 2), b.center, b.size.y * axis(b, 2));
    return {sphere_sphere(pa, a.size.x, pb, b.size.x)};
  }
  if (a.type == T::Box && b.type == T::Cylinder) return box_cylinder(a, b);
  return {};
}

StepContactPoints contact_points_of_step(const GeomPose& a_minus, const GeomPose& b_minus,
                                         const GeomPose& a_plus, const GeomPose& b_plus,
                                         const GeomPose& a_chooser, const GeomPose& b_chooser) {
  if (auto plus = choosing_collider(a_plus, b_plus, a_chooser, b_chooser))
    return {*choosing_collider(a_minus, b_minus, a_chooser, b_chooser), *plus};
  return {contact_points(a_minus, b_minus), contact_points(a_plus, b_plus)};
}

bool choosing_pair(GeomType a, GeomType b) {
  return choosing_collider_of(a, b) != ChoosingCollider::None;
}

}  // namespace talon::ir::lower
