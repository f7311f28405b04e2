// Box–box contact by separating axes and face clipping (see box_box.h).
//
// The 15 axes and their separations are the OBB overlap test (Gottschalk, Lin & Manocha,
// "OBBTree", SIGGRAPH 1996; Ericson, Real-Time Collision Detection §4.4.1); the reference and
// incident faces and the clipping follow ODE's dBoxBox and Catto's "Contact Manifolds" (GDC 2007).
// Here every choice is a select, so the slots compile into branch-free kernels and differentiate
// symbolically: selects and min/max route derivatives through the branch taken, and no branch not
// taken divides by zero.
#include "ir/lower/box_box.h"

#include <array>

namespace talon::ir::lower {
namespace {

// sin of the angle below which two edges count as parallel: their cross product is no axis
// (its separation duplicates a face axis's and its direction is rounding).
constexpr double kMinEdgeSine = 1e-3;
// Metres: the separation of an edge axis left out as parallel (below any real separation).
constexpr double kExcludedSeparation = -1e30;

struct Box {
  V3 centre;
  std::array<V3, 3> axis;    // unit, in the world
  std::array<Expr, 3> half;  // half-sizes
};

Box box_of(const GeomPose& p) {
  Box b{p.center, {}, {}};
  for (int i = 0; i < 3; ++i) {
    b.axis[i] = column(p.rot, i);
    b.half[i] = p.size[i];
  }
  return b;
}

Box select(Expr cond, const Box& if_true, const Box& if_false) {
  Box b{select(cond, if_true.centre, if_false.centre), {}, {}};
  for (int i = 0; i < 3; ++i) {
    b.axis[i] = select(cond, if_true.axis[i], if_false.axis[i]);
    b.half[i] = select(cond, if_true.half[i], if_false.half[i]);
  }
  return b;
}

// Σ_k h_k |axis_k · w| over k ≠ skip: the box's half-width along a unit w (Ericson §4.4.1);
// the axis `skip` is perpendicular to w by construction and left out.
Expr half_width(const Box& b, const V3& w, int skip = -1) {
  Expr sum = b.centre.x.graph().constant(0.0);
  for (int k = 0; k < 3; ++k)
    if (k != skip) sum = sum + b.half[k] * abs(dot(b.axis[k], w));
  return sum;
}

// A box face: centre, outward unit normal, in-plane unit axes u, v and half extents.
struct Face {
  V3 centre, normal, u, v;
  Expr half_u, half_v;
};

// The face of `b` whose outward normal is sign · axis i (sign ±1).
Face face_of(const Box& b, int i, Expr sign) {
  const int j = (i + 1) % 3, k = (i + 2) % 3;
  const V3 n = sign * b.axis[i];
  return {b.centre + b.half[i] * n, n, b.axis[j], b.axis[k], b.half[j], b.half[k]};
}

Face select(Expr cond, const Face& if_true, const Face& if_false) {
  return {
      select(cond, if_true.centre, if_false.centre), select(cond, if_true.normal, if_false.normal),
      select(cond, if_true.u, if_false.u),           select(cond, if_true.v, if_false.v),
      select(cond, if_true.half_u, if_false.half_u), select(cond, if_true.half_v, if_false.half_v)};
}

// Corner k of a face, counter-clockwise about its normal's axis: (−,−), (+,−), (+,+), (−,+).
V3 corner(const Face& f, int k) {
  const double su = (k == 1 || k == 2) ? 1 : -1, sv = k >= 2 ? 1 : -1;
  return f.centre + (su * f.half_u) * f.u + (sv * f.half_v) * f.v;
}

// A face axis: the reference face it would make, its separation and whose face it is.
struct FaceAxis {
  Expr separation;  // > 0: separated along this axis
  Face reference;
  Expr on_b;  // 1 when the reference face is the second box's
};

FaceAxis select(Expr cond, const FaceAxis& if_true, const FaceAxis& if_false) {
  return {select(cond, if_true.separation, if_false.separation),
          select(cond, if_true.reference, if_false.reference),
          select(cond, if_true.on_b, if_false.on_b)};
}

// An edge–edge axis: the unit normal from A to B and the two edges (centre ± half).
struct EdgeAxis {
  Expr separation;
  V3 normal, centre_a, half_a, centre_b, half_b;
};

EdgeAxis select(Expr cond, const EdgeAxis& if_true, const EdgeAxis& if_false) {
  return {select(cond, if_true.separation, if_false.separation),
          select(cond, if_true.normal, if_false.normal),
          select(cond, if_true.centre_a, if_false.centre_a),
          select(cond, if_true.half_a, if_false.half_a),
          select(cond, if_true.centre_b, if_false.centre_b),
          select(cond, if_true.half_b, if_false.half_b)};
}

// The candidate with the largest separation; a later one must exceed the best so far by
// kTieBias.
template <class Axis>
Axis least_penetration(const std::vector<Axis>& candidates) {
  Axis best = candidates.front();
  for (std::size_t k = 1; k < candidates.size(); ++k)
    best = select(lt(best.separation + kTieBias, candidates[k].separation), candidates[k], best);
  return best;
}

// The six face axes, A's first. With d = c_B − c_A, A's face i separates by
// |d·a_i| − h_i − (B's half-width along a_i); its reference face faces B.
std::vector<FaceAxis> face_axes(const Box& a, const Box& b) {
  Graph& g = a.centre.x.graph();
  const V3 d = b.centre - a.centre;
  std::vector<FaceAxis> out;
  for (int i = 0; i < 3; ++i) {
    const Expr along = dot(d, a.axis[i]);
    out.push_back({abs(along) - a.half[i] - half_width(b, a.axis[i]),
                   face_of(a, i, sign_nonnegative(along)), g.constant(0.0)});
  }
  for (int j = 0; j < 3; ++j) {
    const Expr along = dot(d, b.axis[j]);
    out.push_back({abs(along) - b.half[j] - half_width(a, b.axis[j]),
                   face_of(b, j, -sign_nonnegative(along)), g.constant(1.0)});
  }
  return out;
}

// The nine edge axes a_i × b_j, normalised and pointing from A to B; near-parallel pairs
// (sin < kMinEdgeSine) get kExcludedSeparation. Each edge is the one of its box's four
// parallel edges farthest along the normal (A) or against it (B).
std::vector<EdgeAxis> edge_axes(const Box& a, const Box& b) {
  Graph& g = a.centre.x.graph();
  const V3 d = b.centre - a.centre;
  std::vector<EdgeAxis> out;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const V3 l = cross(a.axis[i], b.axis[j]);
      // ε-guarded: parallel axes give l = 0, whose plain norm has an infinite derivative.
      const Expr sine = smooth_norm(l, 1e-12);
      const V3 n = (sign_nonnegative(dot(d, l)) / sine) * l;
      const Expr separation = abs(dot(d, n)) - half_width(a, n, i) - half_width(b, n, j);
      V3 centre_a = a.centre, centre_b = b.centre;
      for (int k = 0; k < 3; ++k) {
        if (k != i)
          centre_a = centre_a + (a.half[k] * sign_nonnegative(dot(a.axis[k], n))) * a.axis[k];
        if (k != j)
          centre_b = centre_b - (b.half[k] * sign_nonnegative(dot(b.axis[k], n))) * b.axis[k];
      }
      out.push_back(
          {select(lt(g.constant(kMinEdgeSine), sine), separation, g.constant(kExcludedSeparation)),
           n, centre_a, a.half[i] * a.axis[i], centre_b, b.half[j] * b.axis[j]});
    }
  }
  return out;
}

// The incident face: the face of `other` whose outward normal is most anti-parallel to the
// reference normal n.
Face incident_face(const Box& other, const V3& n) {
  Face best = face_of(other, 0, -sign_nonnegative(dot(other.axis[0], n)));
  Expr best_alignment = abs(dot(other.axis[0], n));
  for (int j = 1; j < 3; ++j) {
    const Expr along = dot(other.axis[j], n);
    const Expr take = lt(best_alignment, abs(along));
    best = select(take, face_of(other, j, -sign_nonnegative(along)), best);
    best_alignment = select(take, abs(along), best_alignment);
  }
  return best;
}

// 2D coordinates of a point in a face's (u, v) frame, and the rectangle |x| ≤ hx, |y| ≤ hy.
struct Coords {
  Expr x, y;
};

// The parameters [enter, exit] of the segment c0 + t (c1 − c0) inside the slab |c| ≤ half
// (Liang & Barsky, "A New Concept and Method for Line Clipping", ACM TOG 1984). A segment
// parallel to the slab is inside it for every t or for none.
struct Interval {
  Expr enter, exit;
};

Interval slab(Expr c0, Expr c1, Expr half) {
  Graph& g = c0.graph();
  const Expr extent = c1 - c0;
  const Expr parallel = lt(abs(extent), g.constant(kParallelExtent));
  const Expr safe = select(parallel, g.constant(1.0), extent);
  const Expr ta = (-half - c0) / safe, tb = (half - c0) / safe;
  const Expr inside = le(abs(c0), half);
  return {select(parallel, select(inside, g.constant(0.0), g.constant(2.0)), min(ta, tb)),
          select(parallel, select(inside, g.constant(1.0), g.constant(-1.0)), max(ta, tb))};
}

// Where the segment from p0 to p1 (coordinates in a rectangle's frame) enters the rectangle
// of half extents (hx, hy): t ∈ [0, 1] (0 when p0 is inside), and whether any of it is inside.
struct Entry {
  Expr t, hits;
};

Entry entry_into_rectangle(const Coords& p0, const Coords& p1, Expr hx, Expr hy) {
  Graph& g = hx.graph();
  const Interval sx = slab(p0.x, p1.x, hx), sy = slab(p0.y, p1.y, hy);
  const Expr enter = max(g.constant(0.0), max(sx.enter, sy.enter));
  const Expr exit = min(g.constant(1.0), min(sx.exit, sy.exit));
  return {min(enter, g.constant(1.0)), lt(enter, exit)};
}

// The entry into the rectangle itself, and whether the segment meets the rectangle grown by
// `margin` on every side (shrunk when negative). The margin only decides which slots hold a
// vertex; the point is the exact entry whenever the segment meets the rectangle, and the
// entry into the grown one (within the margin of it) otherwise.
Entry clipped_entry(const Coords& p0, const Coords& p1, Expr hx, Expr hy, double margin) {
  const Entry exact = entry_into_rectangle(p0, p1, hx, hy);
  const Entry decided = entry_into_rectangle(p0, p1, hx + margin, hy + margin);
  return {select(exact.hits, exact.t, decided.t), decided.hits};
}

// A vertex of the clipped polygon: the incident face's point there, its gap above the
// reference face along the reference normal, and whether the slot holds a vertex at all.
struct FacePoint {
  V3 incident;
  Expr gap, hits;
};

// Slot k (0–3): where incident edge k enters the reference face (deciding with kClipMargin), in the
// reference face's frame (u, v ⟂ n, so dot(p − centre, u) projects along n).
FacePoint incident_edge_point(const Face& ref, const Face& inc, int k) {
  const V3 p0 = corner(inc, k), p1 = corner(inc, (k + 1) % 4);
  auto coords = [&](const V3& p) {
    return Coords{dot(p - ref.centre, ref.u), dot(p - ref.centre, ref.v)};
  };
  const Entry e = clipped_entry(coords(p0), coords(p1), ref.half_u, ref.half_v, kClipMargin);
  const V3 p = p0 + e.t * (p1 - p0);
  return {p, dot(p - ref.centre, ref.normal), e.hits};
}

// Slot 4 + k: where reference edge k enters the incident face's shadow along n (deciding with
// −kClipMargin). The incident plane lies at height s(x) = (c_I − x)·n_I / (n·n_I) above a point
// x of the reference face; |n·n_I| ≥ 1/√3 since the incident face is the most anti-parallel.
FacePoint reference_edge_point(const Face& ref, const Face& inc, int k) {
  const V3 p0 = corner(ref, k), p1 = corner(ref, (k + 1) % 4);
  const Expr cosine = dot(ref.normal, inc.normal);
  auto height = [&](const V3& x) { return dot(inc.centre - x, inc.normal) / cosine; };
  auto coords = [&](const V3& x) {
    const V3 above = x + height(x) * ref.normal - inc.centre;
    return Coords{dot(above, inc.u), dot(above, inc.v)};
  };
  const Entry e = clipped_entry(coords(p0), coords(p1), inc.half_u, inc.half_v, -kClipMargin);
  const V3 x = p0 + e.t * (p1 - p0);
  const Expr gap = height(x);
  return {x + gap * ref.normal, gap, e.hits};
}

}  // namespace

std::vector<ContactPoint> box_box_contacts(const GeomPose& a_pose, const GeomPose& b_pose) {
  Graph& g = a_pose.center.x.graph();
  const Box a = box_of(a_pose), b = box_of(b_pose);
  const FaceAxis face = least_penetration(face_axes(a, b));
  const EdgeAxis edge = least_penetration(edge_axes(a, b));
  const Expr edge_contact = lt(face.separation + kTieBias, edge.separation);
  const Expr inactive = g.constant(kInactiveGap);

  const Face& ref = face.reference;
  const Face inc = incident_face(select(face.on_b, a, b), ref.normal);
  // The reference normal points out of the reference box: from A to B when it is A's face.
  const V3 normal = select(face.on_b, -ref.normal, ref.normal);
  std::vector<ContactPoint> out;
  for (int slot = 0; slot < kBoxBoxFaceSlots; ++slot) {
    const FacePoint p =
        slot < 4 ? incident_edge_point(ref, inc, slot) : reference_edge_point(ref, inc, slot - 4);
    const Expr gap = select(edge_contact, inactive, select(p.hits, p.gap, inactive));
    out.push_back({gap, p.incident - (0.5 * p.gap) * ref.normal, normal});
  }

  const auto [on_a, on_b] =
      closest_segment_points(edge.centre_a, edge.half_a, edge.centre_b, edge.half_b);
  const Expr gap = dot(on_b - on_a, edge.normal);
  out.push_back(
      {select(edge_contact, gap, inactive), on_b - (0.5 * gap) * edge.normal, edge.normal});
  return out;
}

std::string box_box_slot_kind(int slot) {
  return slot < kBoxBoxFaceSlots ? "face point " + std::to_string(slot) : "edge-edge";
}

}  // namespace talon::ir::lower
