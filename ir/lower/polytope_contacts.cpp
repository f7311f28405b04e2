// Polytope–polytope contact slots (see polytope_contacts.h).
//
// The separating-axis test over face normals and the clipping of the incident face against
// the reference face follow box_box.cpp (Gottschalk, Lin & Manocha, "OBBTree", SIGGRAPH
// 1996; Catto, "Contact Manifolds", GDC 2007); the rectangles' slab clipping becomes
// Cyrus–Beck clipping against a convex polygon's edges (Cyrus & Beck, "Generalized two- and
// three-dimensional clipping", Computers & Graphics 1978). Every choice is a select, as there.
#include "ir/lower/polytope_contacts.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "ir/lower/box_box.h"

namespace talon::ir::lower {
namespace {

// The incident face's normal must make at least this cosine with the reference normal for
// its shadow to be used (the height above the reference face divides by it).
constexpr double kMinShadowCosine = 1e-3;

// A face in its geom's frame as expressions: a select among the constant faces (at q⁻).
struct LocalFace {
  V3 normal;
  std::array<V3, kFaceVertices> start, end, inward;
  std::array<Expr, kFaceVertices> valid;  // 1 or 0
};

// The same face placed in the world at a pose.
using WorldFace = LocalFace;

WorldFace select(Expr cond, const WorldFace& if_true, const WorldFace& if_false) {
  WorldFace f{select(cond, if_true.normal, if_false.normal), {}, {}, {}, {}};
  for (int k = 0; k < kFaceVertices; ++k) {
    f.start[k] = select(cond, if_true.start[k], if_false.start[k]);
    f.end[k] = select(cond, if_true.end[k], if_false.end[k]);
    f.inward[k] = select(cond, if_true.inward[k], if_false.inward[k]);
    f.valid[k] = select(cond, if_true.valid[k], if_false.valid[k]);
  }
  return f;
}

// A box's polytope is the unit box's (contact_geometry.cpp, polytope_of_geom) with its
// vertices scaled by the half-sizes, which a pair template takes as an input; a hull's
// vertices are its own (scale 1, folded away).
V3 vertex_scale(const GeomPose& pose) {
  return pose.type == GeomType::Box ? pose.size
                                    : constant(pose.center.x.graph(), Vec3(Vec3::Ones()));
}

V3 scaled(const V3& scale, const Vec3& v) {
  return {scale.x * v.x(), scale.y * v.y(), scale.z * v.z()};
}

// A face of the polytope in its geom's frame; a box's scaled by its half-sizes (the normals
// and in-face directions of an axis-aligned box do not change with them).
LocalFace local_face(const PolytopeFace& face, const V3& scale) {
  Graph& g = scale.x.graph();
  LocalFace f{constant(g, face.normal), {}, {}, {}, {}};
  for (int k = 0; k < kFaceVertices; ++k) {
    f.start[k] = scaled(scale, face.start[k]);
    f.end[k] = scaled(scale, face.end[k]);
    f.inward[k] = constant(g, face.inward[k]);
    f.valid[k] = g.constant(face.valid[k] ? 1.0 : 0.0);
  }
  return f;
}

V3 to_world(const GeomPose& pose, const V3& local) {
  return pose.center + pose.rot * local;
}

WorldFace world_face(const LocalFace& local, const GeomPose& pose) {
  WorldFace f{pose.rot * local.normal, {}, {}, {}, local.valid};
  for (int k = 0; k < kFaceVertices; ++k) {
    f.start[k] = to_world(pose, local.start[k]);
    f.end[k] = to_world(pose, local.end[k]);
    f.inward[k] = pose.rot * local.inward[k];
  }
  return f;
}

// A polytope with its pose: the q⁻ pose at which faces are chosen.
struct Posed {
  const Polytope& shape;
  const GeomPose& pose;
  V3 scale = vertex_scale(pose);
};

// A candidate reference face: its separation at q⁻ (> 0: the polytopes lie apart along its
// normal), the face in its owner's frame, and whether the owner is the second polytope.
struct FaceAxis {
  Expr separation;
  LocalFace face;
  Expr on_b;
};

FaceAxis select(Expr cond, const FaceAxis& if_true, const FaceAxis& if_false) {
  return {select(cond, if_true.separation, if_false.separation),
          select(cond, if_true.face, if_false.face), select(cond, if_true.on_b, if_false.on_b)};
}

// The faces of `owner` as candidate axes: face f separates by min over the other's vertices v
// of n_f·(v − a point of f).
void add_face_axes(const Posed& owner, const Posed& other, double on_b,
                   std::vector<FaceAxis>& out) {
  Graph& g = owner.pose.center.x.graph();
  std::vector<V3> other_vertices;
  for (const Vec3& v : other.shape.vertices)
    other_vertices.push_back(to_world(other.pose, scaled(other.scale, v)));
  for (const PolytopeFace& face : owner.shape.faces) {
    const LocalFace local = local_face(face, owner.scale);
    const V3 n = owner.pose.rot * local.normal;
    const Expr level = dot(n, to_world(owner.pose, local.start[0]));
    Expr separation = dot(n, other_vertices.front());
    for (const V3& v : other_vertices) separation = min(separation, dot(n, v));
    out.push_back({separation - level, local, g.constant(on_b)});
  }
}

// The face of least penetration; a later one must exceed the best so far by kTieBias.
FaceAxis reference_face(const Posed& a, const Posed& b) {
  std::vector<FaceAxis> axes;
  add_face_axes(a, b, 0.0, axes);
  add_face_axes(b, a, 1.0, axes);
  FaceAxis best = axes.front();
  for (std::size_t k = 1; k < axes.size(); ++k)
    best = select(lt(best.separation + kTieBias, axes[k].separation), axes[k], best);
  return best;
}

// The face of `p` whose outward normal is most anti-parallel to the world direction n.
LocalFace incident_face(const Posed& p, const V3& n) {
  LocalFace best = local_face(p.shape.faces.front(), p.scale);
  Expr best_alignment = dot(p.pose.rot * best.normal, n);
  for (std::size_t k = 1; k < p.shape.faces.size(); ++k) {
    const LocalFace face = local_face(p.shape.faces[k], p.scale);
    const Expr alignment = dot(p.pose.rot * face.normal, n);
    const Expr take = lt(alignment, best_alignment);
    best = select(take, face, best);
    best_alignment = min(alignment, best_alignment);
  }
  return best;
}

// The face at the step's start (q⁻), where the clipping is decided, and at its end (q⁺),
// where the points are measured.
struct StepFace {
  WorldFace minus, plus;
};

// Where the segment y0 → y1 enters the prism over a face, {y : inward_k·(y − start_k) ≥
// −margin for each valid edge k}, decided at q⁻ (Cyrus–Beck: each edge bounds the segment's
// parameter from below where the segment comes in across it and from above where it leaves):
// whether any of the segment is inside, and the edge across which it enters, as the face's
// edge at q⁺ (none when y0 is inside). The margin decides which slots hold a point, as
// kClipMargin says; the point itself is where the q⁺ segment crosses the chosen edge's line.
struct EntryChoice {
  Expr hits, from_start;
  V3 start, inward;  // the entering edge at q⁺
};

EntryChoice choose_entry(const V3& y0, const V3& y1, const StepFace& f, double margin) {
  Graph& g = y0.x.graph();
  const Expr zero = g.constant(0.0), one = g.constant(1.0);
  EntryChoice out{zero, one, f.plus.start[0], f.plus.inward[0]};
  Expr enter = zero, exit = one;
  for (int k = 0; k < kFaceVertices; ++k) {
    // Invalid edges have inward = 0 and no margin: inside for every t.
    const Expr inside_by =
        dot(f.minus.inward[k], y0 - f.minus.start[k]) + margin * f.minus.valid[k];
    const Expr rate = dot(f.minus.inward[k], y1 - y0);
    const Expr parallel = lt(abs(rate), g.constant(kParallelExtent));
    const Expr crossing = -inside_by / select(parallel, one, rate);
    const Expr inside = le(zero, inside_by);
    const Expr enters = select(parallel, select(inside, zero, g.constant(2.0)),
                               select(lt(zero, rate), crossing, zero));
    const Expr take = lt(enter, enters);
    out.from_start = select(take, zero, out.from_start);
    out.start = select(take, f.plus.start[k], out.start);
    out.inward = select(take, f.plus.inward[k], out.inward);
    enter = max(enter, enters);
    exit = min(exit, select(parallel, select(inside, one, g.constant(-1.0)),
                            select(lt(rate, zero), crossing, one)));
  }
  out.hits = lt(min(enter, one), exit);
  return out;
}

// The parameter where the q⁺ segment y0 → y1 crosses the chosen edge's line, in [0, 1]; 0
// when it starts inside (or runs parallel to the line at q⁺).
Expr entry_at(const EntryChoice& c, const V3& y0, const V3& y1) {
  Graph& g = y0.x.graph();
  const Expr zero = g.constant(0.0), one = g.constant(1.0);
  const Expr rate = dot(c.inward, y1 - y0);
  const Expr parallel = lt(abs(rate), g.constant(kParallelExtent));
  const Expr crossing = -dot(c.inward, y0 - c.start) / select(parallel, one, rate);
  return select(max(c.from_start, parallel), zero, clamp(crossing, zero, one));
}

// A clipped polygon's vertex: the point on the incident face, its height above the reference
// face along the reference normal, and whether the slot holds a vertex.
struct FacePoint {
  V3 incident;
  Expr gap, hits;
};

Expr both(Expr a, Expr b) {
  return a * b;  // of two 0/1 flags
}

// Incident edge k is run backwards, from end to start: counter-clockwise about the incident
// face's outward normal, which points against the reference normal, is clockwise about the
// reference normal, and both boundaries must run the same way round for each vertex of the
// clipped polygon to start exactly one piece of its boundary (the argument of box_box.h).
FacePoint incident_edge_point(const StepFace& ref, const StepFace& inc, int k) {
  const EntryChoice c = choose_entry(inc.minus.end[k], inc.minus.start[k], ref, kClipMargin);
  const V3 p0 = inc.plus.end[k], p1 = inc.plus.start[k];
  const V3 p = p0 + entry_at(c, p0, p1) * (p1 - p0);
  return {p, dot(ref.plus.normal, p - ref.plus.start[0]), both(c.hits, inc.plus.valid[k])};
}

// The incident plane lies at height s(x) = (c_I − x)·n_I / (n·n_I) above a point x of the
// reference face; the segment lifted onto it is again a segment, clipped to the incident face.
struct Shadow {
  const WorldFace& ref;
  const WorldFace& inc;
  Expr usable, cosine;

  Shadow(const WorldFace& ref_face, const WorldFace& inc_face) : ref(ref_face), inc(inc_face) {
    Graph& g = ref.normal.x.graph();
    const Expr raw = dot(ref.normal, inc.normal);
    usable = lt(g.constant(kMinShadowCosine), -raw);
    cosine = select(usable, raw, g.constant(-1.0));
  }
  Expr height(const V3& x) const { return dot(inc.start[0] - x, inc.normal) / cosine; }
  V3 lift(const V3& x) const { return x + height(x) * ref.normal; }
};

FacePoint reference_edge_point(const StepFace& ref, const StepFace& inc, int k) {
  const Shadow minus(ref.minus, inc.minus), plus(ref.plus, inc.plus);
  const EntryChoice c =
      choose_entry(minus.lift(ref.minus.start[k]), minus.lift(ref.minus.end[k]), inc, -kClipMargin);
  const V3 r0 = ref.plus.start[k], r1 = ref.plus.end[k];
  const V3 x = r0 + entry_at(c, plus.lift(r0), plus.lift(r1)) * (r1 - r0);
  const Expr gap = plus.height(x);
  return {x + gap * ref.plus.normal, gap,
          both(both(c.hits, ref.plus.valid[k]), both(minus.usable, plus.usable))};
}

// A feature of a polytope in its frame: a face (edge = 0, normal its outward normal) or an
// edge from `start` to start + edge (normal = 0), whose ends are the vertices.
struct Feature {
  V3 start, edge, normal;
  Expr is_face;
};

Feature select(Expr cond, const Feature& if_true, const Feature& if_false) {
  return {select(cond, if_true.start, if_false.start), select(cond, if_true.edge, if_false.edge),
          select(cond, if_true.normal, if_false.normal),
          select(cond, if_true.is_face, if_false.is_face)};
}

// The feature's point nearest x (a face's first corner: only its plane is used).
V3 nearest_on_feature(const Feature& f, const V3& x) {
  Graph& g = x.x.graph();
  const Expr t = dot(x - f.start, f.edge) / (dot(f.edge, f.edge) + 1e-30);
  return f.start + clamp(t, g.constant(0.0), g.constant(1.0)) * f.edge;
}

// Each edge of the polytope once (the faces list each twice).
std::vector<std::pair<Vec3, Vec3>> unique_edges(const Polytope& shape) {
  std::vector<std::pair<Vec3, Vec3>> out;
  for (const PolytopeFace& f : shape.faces)
    for (int k = 0; k < kFaceVertices; ++k) {
      if (!f.valid[k]) continue;
      const bool seen = std::any_of(out.begin(), out.end(), [&](const auto& e) {
        return (e.first == f.end[k] && e.second == f.start[k]) ||
               (e.first == f.start[k] && e.second == f.end[k]);
      });
      if (!seen) out.emplace_back(f.start[k], f.end[k]);
    }
  return out;
}

// The hull's feature nearest the local point x outside it (see point_polytope): the face
// whose polygon x lies over (distance: to its plane) or the nearest edge, by a select chain
// whose conditions are evaluated at x.
Feature outside_feature(const Polytope& shape, const V3& x) {
  Graph& g = x.x.graph();
  const Expr far = g.constant(1e30), zero = g.constant(0.0), one = g.constant(1.0);
  std::optional<Feature> nearest;
  Expr nearest_distance = far;
  for (const PolytopeFace& face : shape.faces) {
    const LocalFace f = local_face(face, constant(g, Vec3(Vec3::Ones())));  // a hull: scale 1
    const Feature feature{f.start[0], zero_vector(g), f.normal, one};
    const Expr above = dot(f.normal, x - f.start[0]);
    Expr over_polygon = one;
    for (int k = 0; k < kFaceVertices; ++k)
      over_polygon = over_polygon * le(zero, dot(f.inward[k], x - f.start[k]));
    const Expr distance = select(over_polygon * le(zero, above), above, far);
    nearest = nearest ? select(lt(distance, nearest_distance), feature, *nearest) : feature;
    nearest_distance = min(distance, nearest_distance);
  }
  for (const auto& [a, b] : unique_edges(shape)) {
    const Feature feature{constant(g, a), constant(g, Vec3(b - a)), zero_vector(g), zero};
    const Expr distance = squared_norm(x - nearest_on_feature(feature, x));
    const Expr take = lt(distance, nearest_distance * nearest_distance);
    nearest = select(take, feature, *nearest);
    nearest_distance = select(take, sqrt(distance), nearest_distance);
  }
  return *nearest;
}

// The face of `shape` (its vertices scaled by `scale`) of largest signed distance at the point
// x of its frame, the least-penetrated face where x is inside, and that distance; a later face
// is taken only where it exceeds the best so far by `tie_bias`.
std::pair<LocalFace, Expr> highest_face(const Polytope& shape, const V3& scale, const V3& x,
                                        double tie_bias) {
  auto height = [&](const LocalFace& f) { return dot(f.normal, x - f.start[0]); };
  LocalFace best = local_face(shape.faces.front(), scale);
  Expr best_height = height(best);
  for (std::size_t k = 1; k < shape.faces.size(); ++k) {
    const LocalFace face = local_face(shape.faces[k], scale);
    const Expr face_height = height(face);
    const Expr take = lt(best_height + tie_bias, face_height);
    best = select(take, face, best);
    best_height = select(take, face_height, best_height);
  }
  return {best, best_height};
}

}  // namespace

SolidDistance point_polytope(const Polytope& shape, const GeomPose& pose, const V3& p,
                             const GeomPose& pose_chooser, const V3& p_chooser) {
  Graph& g = p.x.graph();
  // A hull flatter than polytope_of's tolerance has no faces: nothing to touch.
  if (shape.faces.empty()) return {g.constant(kInactiveGap), constant(g, Vec3(Vec3::UnitZ()))};
  const V3 x = transpose_times(pose.rot, p - pose.center);
  const V3 x_minus = transpose_times(pose_chooser.rot, p_chooser - pose_chooser.center);
  // Outside at q⁺: the exact distance to the hull (its nearest face or edge there).
  const Feature f = outside_feature(shape, x);
  const V3 off_edge = x - nearest_on_feature(f, x);
  const Expr edge_distance = smooth_norm(off_edge, 1e-12);
  const Expr out_distance = select(f.is_face, dot(f.normal, x - f.start), edge_distance);
  const V3 out_normal = select(f.is_face, f.normal, (1.0 / edge_distance) * off_edge);
  // Inside at q⁺: the face chosen at q⁻ (the face the point came through).
  const V3 unit_scale = constant(g, Vec3(Vec3::Ones()));  // a hull's vertices are its own
  const LocalFace face = highest_face(shape, unit_scale, x_minus, 0).first;
  const Expr inside = le(highest_face(shape, unit_scale, x, 0).second, g.constant(kSurfaceBand));
  const V3 normal = select(inside, face.normal, out_normal);
  return {select(inside, dot(face.normal, x - face.start[0]), out_distance), pose.rot * normal};
}

FaceEntry polytope_face_entry(const Polytope& shape, const GeomPose& pose,
                              const GeomPose& pose_chooser, const V3& near_chooser,
                              const SegmentAtStep& segment) {
  Graph& g = near_chooser.x.graph();
  if (shape.faces.empty())  // as point_polytope: no faces, no contact
    return {segment.start,
            {g.constant(kInactiveGap), constant(g, Vec3(Vec3::UnitZ()))},
            g.constant(0.0)};
  // The face of largest signed distance at q⁻; a later one must exceed the best by kTieBias.
  const LocalFace best =
      highest_face(shape, vertex_scale(pose_chooser),
                   transpose_times(pose_chooser.rot, near_chooser - pose_chooser.center), kTieBias)
          .first;
  const StepFace face{world_face(best, pose_chooser), world_face(best, pose)};
  const EntryChoice entry =
      choose_entry(segment.start_chooser, segment.end_chooser, face, kClipMargin);
  const Expr t = entry_at(entry, segment.start, segment.end);
  const V3 point = segment.start + t * (segment.end - segment.start);
  // The same entry at q⁻, to tell whether it lay outside the polytope there.
  const StepFace at_start{face.minus, face.minus};
  const Expr t_chooser =
      entry_at(choose_entry(segment.start_chooser, segment.end_chooser, at_start, kClipMargin),
               segment.start_chooser, segment.end_chooser);
  const V3 point_chooser =
      segment.start_chooser + t_chooser * (segment.end_chooser - segment.start_chooser);
  const Expr outside_chooser =
      le(g.constant(0.0), dot(face.minus.normal, point_chooser - face.minus.start[0]));
  return {point,
          {dot(face.plus.normal, point - face.plus.start[0]), face.plus.normal},
          entry.hits * (1.0 - entry.from_start) * outside_chooser};
}

std::vector<ContactPoint> polytope_contacts(const Polytope& a, const Polytope& b,
                                            const GeomPose& a_pose, const GeomPose& b_pose,
                                            const GeomPose& a_chooser, const GeomPose& b_chooser) {
  Graph& g = a_pose.center.x.graph();
  if (a.faces.empty() || b.faces.empty())  // as point_polytope: no faces, no contact
    return std::vector<ContactPoint>(kPolytopeSlots, {g.constant(kInactiveGap), a_pose.center,
                                                      constant(g, Vec3(Vec3::UnitZ()))});
  const Posed a_minus{a, a_chooser}, b_minus{b, b_chooser};
  const FaceAxis axis = reference_face(a_minus, b_minus);
  const V3 ref_normal_minus =
      select(axis.on_b, b_chooser.rot * axis.face.normal, a_chooser.rot * axis.face.normal);
  const LocalFace incident = select(axis.on_b, incident_face(a_minus, ref_normal_minus),
                                    incident_face(b_minus, ref_normal_minus));

  auto at = [&](const LocalFace& face, bool on_reference, const GeomPose& a_at,
                const GeomPose& b_at) {
    // The reference face is the second polytope's when on_b; the incident face the other's.
    return on_reference ? select(axis.on_b, world_face(face, b_at), world_face(face, a_at))
                        : select(axis.on_b, world_face(face, a_at), world_face(face, b_at));
  };
  const StepFace ref{at(axis.face, true, a_chooser, b_chooser),
                     at(axis.face, true, a_pose, b_pose)};
  const StepFace inc{at(incident, false, a_chooser, b_chooser),
                     at(incident, false, a_pose, b_pose)};
  // The reference normal points out of its polytope: from a to b when it is a's face.
  const V3 normal = select(axis.on_b, -ref.plus.normal, ref.plus.normal);
  const Expr inactive = g.constant(kInactiveGap);
  std::vector<ContactPoint> out;
  for (int slot = 0; slot < kPolytopeSlots; ++slot) {
    const FacePoint p = slot < kFaceVertices ? incident_edge_point(ref, inc, slot)
                                             : reference_edge_point(ref, inc, slot - kFaceVertices);
    out.push_back(
        {select(p.hits, p.gap, inactive), p.incident - (0.5 * p.gap) * ref.plus.normal, normal});
  }
  return out;
}

std::string polytope_slot_kind(int slot) {
  return slot < kFaceVertices ? "incident edge " + std::to_string(slot)
                              : "reference edge " + std::to_string(slot - kFaceVertices);
}

}  // namespace talon::ir::lower
