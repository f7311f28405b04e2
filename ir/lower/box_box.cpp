// Box–box contact by separating axes and face clipping (see box_box.h).
//
// The 15 axes and their separations are the OBB overlap test (Gottschalk, Lin & Manocha,
// "OBBTree", SIGGRAPH 1996; Ericson, Real-Time Collision Detection §4.4.1); the reference and
// incident faces and the clipping follow ODE's dBoxBox and Catto's "Contact Manifolds" (GDC 2007).
// Here every choice is a select, so the slots compile into branch-free kernels and differentiate
// symbolically: selects and min/max route derivatives through the branch taken, and no branch not
// taken divides by zero.
#include "ir/lower/box_box.h"

#include <algorithm>
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

// A box at the pose where its contact features are chosen (the step's start) and at the pose
// where its points are measured (the step's end). Every condition below reads `chooser`, every
// value `value`: within a step the choices are constants, so the slots are continuous (and
// piecewise smooth) in q⁺ and the step's residual has no jumps for Newton to stall on.
struct StepBox {
  Box chooser, value;
};

// A face at the chooser pose and at q⁺.
struct StepFace {
  Face chooser, value;
};

StepFace select(Expr cond, const StepFace& if_true, const StepFace& if_false) {
  return {select(cond, if_true.chooser, if_false.chooser),
          select(cond, if_true.value, if_false.value)};
}

StepFace face_of(const StepBox& b, int i, Expr sign) {
  return {face_of(b.chooser, i, sign), face_of(b.value, i, sign)};
}

// A face axis: the reference face it would make and whose face it is.
struct FaceAxis {
  StepFace reference;
  Expr on_b;  // 1 when the reference face is the second box's
};

FaceAxis select(Expr cond, const FaceAxis& if_true, const FaceAxis& if_false) {
  return {select(cond, if_true.reference, if_false.reference),
          select(cond, if_true.on_b, if_false.on_b)};
}

// An edge–edge axis at q⁺: the unit normal from A to B and the two edges (centre ± half).
struct EdgeAxis {
  V3 normal, centre_a, half_a, centre_b, half_b;
};

EdgeAxis select(Expr cond, const EdgeAxis& if_true, const EdgeAxis& if_false) {
  return {select(cond, if_true.normal, if_false.normal),
          select(cond, if_true.centre_a, if_false.centre_a),
          select(cond, if_true.half_a, if_false.half_a),
          select(cond, if_true.centre_b, if_false.centre_b),
          select(cond, if_true.half_b, if_false.half_b)};
}

// A candidate axis: its separation where the choice is made and what it gives at q⁺.
template <class Axis>
struct Candidate {
  Expr separation;  // at the chooser pose; > 0: separated along this axis
  Axis axis;
};

// The candidate with the largest separation; a later one must exceed the best so far by
// kTieBias.
template <class Axis>
Candidate<Axis> least_penetration(const std::vector<Candidate<Axis>>& candidates) {
  Candidate<Axis> best = candidates.front();
  for (std::size_t k = 1; k < candidates.size(); ++k) {
    const Expr take = lt(best.separation + kTieBias, candidates[k].separation);
    best = {select(take, candidates[k].separation, best.separation),
            select(take, candidates[k].axis, best.axis)};
  }
  return best;
}

// The six face axes, A's first. With d = c_B − c_A, A's face i separates by
// |d·a_i| − h_i − (B's half-width along a_i); its reference face faces B.
std::vector<Candidate<FaceAxis>> face_axes(const StepBox& a, const StepBox& b) {
  Graph& g = a.value.centre.x.graph();
  const V3 d = b.chooser.centre - a.chooser.centre;
  std::vector<Candidate<FaceAxis>> out;
  for (int i = 0; i < 3; ++i) {
    const Expr along = dot(d, a.chooser.axis[i]);
    out.push_back({abs(along) - a.chooser.half[i] - half_width(b.chooser, a.chooser.axis[i]),
                   {face_of(a, i, sign_nonnegative(along)), g.constant(0.0)}});
  }
  for (int j = 0; j < 3; ++j) {
    const Expr along = dot(d, b.chooser.axis[j]);
    out.push_back({abs(along) - b.chooser.half[j] - half_width(a.chooser, b.chooser.axis[j]),
                   {face_of(b, j, -sign_nonnegative(along)), g.constant(1.0)}});
  }
  return out;
}

// a_i × b_j normalised (ε-guarded: parallel axes give l = 0, whose plain norm has an infinite
// derivative) with the sign `sign`, and its length before normalising (sin of the angle).
struct EdgeDirection {
  V3 normal;
  Expr sine;
};

EdgeDirection edge_direction(const Box& a, const Box& b, int i, int j, Expr sign) {
  const V3 l = cross(a.axis[i], b.axis[j]);
  const Expr sine = smooth_norm(l, 1e-12);
  return {(sign / sine) * l, sine};
}

// The nine edge axes a_i × b_j, pointing from A to B; near-parallel pairs (sin < kMinEdgeSine)
// get kExcludedSeparation. Each edge is the one of its box's four parallel edges farthest
// along the normal (A) or against it (B).
std::vector<Candidate<EdgeAxis>> edge_axes(const StepBox& a, const StepBox& b) {
  Graph& g = a.value.centre.x.graph();
  const V3 d = b.chooser.centre - a.chooser.centre;
  std::vector<Candidate<EdgeAxis>> out;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const Expr sign = sign_nonnegative(dot(d, cross(a.chooser.axis[i], b.chooser.axis[j])));
      const EdgeDirection at_choice = edge_direction(a.chooser, b.chooser, i, j, sign);
      const V3 n = edge_direction(a.value, b.value, i, j, sign).normal, m = at_choice.normal;
      const Expr separation =
          abs(dot(d, m)) - half_width(a.chooser, m, i) - half_width(b.chooser, m, j);
      V3 centre_a = a.value.centre, centre_b = b.value.centre;
      for (int k = 0; k < 3; ++k) {
        if (k != i)
          centre_a = centre_a + (a.value.half[k] * sign_nonnegative(dot(a.chooser.axis[k], m))) *
                                    a.value.axis[k];
        if (k != j)
          centre_b = centre_b - (b.value.half[k] * sign_nonnegative(dot(b.chooser.axis[k], m))) *
                                    b.value.axis[k];
      }
      out.push_back({select(lt(g.constant(kMinEdgeSine), at_choice.sine), separation,
                            g.constant(kExcludedSeparation)),
                     {n, centre_a, a.value.half[i] * a.value.axis[i], centre_b,
                      b.value.half[j] * b.value.axis[j]}});
    }
  }
  return out;
}

// The incident face: the face of `other` whose outward normal is most anti-parallel to the
// reference normal n (both at the chooser pose).
StepFace incident_face(const StepBox& other, const V3& n) {
  StepFace best = face_of(other, 0, -sign_nonnegative(dot(other.chooser.axis[0], n)));
  Expr best_alignment = abs(dot(other.chooser.axis[0], n));
  for (int j = 1; j < 3; ++j) {
    const Expr along = dot(other.chooser.axis[j], n);
    const Expr take = lt(best_alignment, abs(along));
    best = select(take, face_of(other, j, -sign_nonnegative(along)), best);
    best_alignment = select(take, abs(along), best_alignment);
  }
  return best;
}

// The parameters [enter, exit] of the segment c0 + t (c1 − c0) inside the slab |c| ≤ half
// (Liang & Barsky, "A New Concept and Method for Line Clipping", ACM TOG 1984), and the side
// (±1: c = ±half) it enters across. A segment parallel to the slab is inside it for every t
// or for none.
struct Interval {
  Expr enter, exit, side;
};

Interval slab(Expr c0, Expr c1, Expr half) {
  Graph& g = c0.graph();
  const Expr extent = c1 - c0;
  const Expr parallel = lt(abs(extent), g.constant(kParallelExtent));
  const Expr safe = select(parallel, g.constant(1.0), extent);
  const Expr ta = (-half - c0) / safe, tb = (half - c0) / safe;
  const Expr inside = le(abs(c0), half);
  return {select(parallel, select(inside, g.constant(0.0), g.constant(2.0)), min(ta, tb)),
          select(parallel, select(inside, g.constant(1.0), g.constant(-1.0)), max(ta, tb)),
          -sign_nonnegative(extent)};
}

// Where a segment enters a rectangle |x| ≤ hx + grow, |y| ≤ hy + grow, decided at the chooser
// pose: whether it meets the rectangle grown by the clipping margin at all, and, for the
// rectangle itself where it meets that and else for the grown one (`grow`), whether it starts
// inside or across which side it enters (x or y, and the sign).
struct EntryChoice {
  Expr hits, from_start, through_x, side, grow;
};

// The margin (shrinking the rectangle when negative) only decides which slots hold a vertex,
// as kClipMargin says: the point is the entry into the rectangle itself wherever the segment
// meets it.
EntryChoice choose_entry(const StepSegment& s, double margin) {
  Graph& g = s.half_x.graph();
  const Expr zero = g.constant(0.0), one = g.constant(1.0);
  auto slabs = [&](Expr grow) {
    return std::array<Interval, 2>{slab(s.chooser_start.x, s.chooser_end.x, s.half_x + grow),
                                   slab(s.chooser_start.y, s.chooser_end.y, s.half_y + grow)};
  };
  auto meets = [&](const std::array<Interval, 2>& sl) {
    const Expr enter = max(zero, max(sl[0].enter, sl[1].enter));
    return lt(enter, min(one, min(sl[0].exit, sl[1].exit)));
  };
  const Expr grow = select(meets(slabs(zero)), zero, g.constant(margin));
  const std::array<Interval, 2> sl = slabs(grow);
  const Expr through_x = lt(sl[1].enter, sl[0].enter);
  // A start within a positive margin outside is the vertex itself (kClipMargin).
  const std::array<Interval, 2> start = slabs(g.constant(std::max(margin, 0.0)));
  return {meets(slabs(g.constant(margin))), le(max(start[0].enter, start[1].enter), zero),
          through_x, select(through_x, sl[0].side, sl[1].side), grow};
}

// The entry parameter t ∈ [0, 1] at q⁺: where the segment crosses the chosen side's line (0
// when it starts inside, or runs parallel to that line at q⁺).
Expr entry_at(const EntryChoice& c, const StepSegment& s) {
  Graph& g = s.half_x.graph();
  const Expr zero = g.constant(0.0), one = g.constant(1.0);
  const Expr c0 = select(c.through_x, s.value_start.x, s.value_start.y);
  const Expr c1 = select(c.through_x, s.value_end.x, s.value_end.y);
  const Expr half = select(c.through_x, s.half_x, s.half_y) + c.grow;
  const Expr extent = c1 - c0;
  const Expr parallel = lt(abs(extent), g.constant(kParallelExtent));
  const Expr crossing = (c.side * half - c0) / select(parallel, one, extent);
  return select(max(c.from_start, parallel), zero, clamp(crossing, zero, one));
}

}  // namespace

Entry clipped_entry(const StepSegment& s, double margin) {
  const EntryChoice c = choose_entry(s, margin);
  return {entry_at(c, s), c.hits, c.from_start};
}

namespace {

// A vertex of the clipped polygon: the incident face's point there, its gap above the
// reference face along the reference normal, and whether the slot holds a vertex at all.
struct FacePoint {
  V3 incident;
  Expr gap, hits;
};

// Slot k (0–3): where incident edge k enters the reference face (deciding with kClipMargin), in the
// reference face's frame (u, v ⟂ n, so dot(p − centre, u) projects along n).
FacePoint incident_edge_point(const StepFace& ref, const StepFace& inc, int k) {
  auto coords = [](const Face& r, const V3& p) {
    return Coords{dot(p - r.centre, r.u), dot(p - r.centre, r.v)};
  };
  const int next = (k + 1) % 4;
  const V3 p0 = corner(inc.value, k), p1 = corner(inc.value, next);
  const Entry e = clipped_entry(
      {coords(ref.chooser, corner(inc.chooser, k)), coords(ref.chooser, corner(inc.chooser, next)),
       coords(ref.value, p0), coords(ref.value, p1), ref.value.half_u, ref.value.half_v},
      kClipMargin);
  const V3 p = p0 + e.t * (p1 - p0);
  return {p, dot(p - ref.value.centre, ref.value.normal), e.hits};
}

// The incident plane lies at height s(x) = (c_I − x)·n_I / (n·n_I) above a point x of the
// reference face; |n·n_I| ≥ 1/√3 since the incident face is the most anti-parallel. `shadow`
// is x lifted onto it in the incident face's frame.
struct Shadow {
  const Face& ref;
  const Face& inc;
  Expr height(const V3& x) const {
    return dot(inc.centre - x, inc.normal) / dot(ref.normal, inc.normal);
  }
  Coords shadow(const V3& x) const {
    const V3 above = x + height(x) * ref.normal - inc.centre;
    return Coords{dot(above, inc.u), dot(above, inc.v)};
  }
};

// Slot 4 + k: where reference edge k enters the incident face's shadow along n (deciding with
// −kClipMargin).
FacePoint reference_edge_point(const StepFace& ref, const StepFace& inc, int k) {
  const int next = (k + 1) % 4;
  const Shadow chooser{ref.chooser, inc.chooser}, value{ref.value, inc.value};
  const V3 p0 = corner(ref.value, k), p1 = corner(ref.value, next);
  const Entry e = clipped_entry(
      {chooser.shadow(corner(ref.chooser, k)), chooser.shadow(corner(ref.chooser, next)),
       value.shadow(p0), value.shadow(p1), inc.value.half_u, inc.value.half_v},
      -kClipMargin);
  const V3 x = p0 + e.t * (p1 - p0);
  const Expr gap = value.height(x);
  return {x + gap * ref.value.normal, gap, e.hits};
}

}  // namespace

std::vector<ContactPoint> box_box_contacts(const GeomPose& a_pose, const GeomPose& b_pose,
                                           const GeomPose& a_chooser, const GeomPose& b_chooser) {
  Graph& g = a_pose.center.x.graph();
  const StepBox a{box_of(a_chooser), box_of(a_pose)}, b{box_of(b_chooser), box_of(b_pose)};
  const Candidate<FaceAxis> face = least_penetration(face_axes(a, b));
  const Candidate<EdgeAxis> edge = least_penetration(edge_axes(a, b));
  const Expr edge_contact = lt(face.separation + kTieBias, edge.separation);
  const Expr inactive = g.constant(kInactiveGap);

  const StepFace& ref = face.axis.reference;
  const Expr on_b = face.axis.on_b;
  const StepFace inc =
      select(on_b, incident_face(a, ref.chooser.normal), incident_face(b, ref.chooser.normal));
  // The reference normal points out of the reference box: from A to B when it is A's face.
  const V3 normal = select(on_b, -ref.value.normal, ref.value.normal);
  std::vector<ContactPoint> by_role;  // incident edges' points, then the reference edges'
  for (int k = 0; k < kBoxBoxFaceSlots; ++k) {
    const FacePoint p =
        k < 4 ? incident_edge_point(ref, inc, k) : reference_edge_point(ref, inc, k - 4);
    const Expr gap = select(edge_contact, inactive, select(p.hits, p.gap, inactive));
    by_role.push_back({gap, p.incident - (0.5 * p.gap) * ref.value.normal, normal});
  }
  // Slots by the box whose edge holds the point: B's edges 0–3, A's 4–7, whichever face is
  // the reference. Where A's and B's faces lie flat on each other their separations tie, and
  // which is the reference flips with rounding; the polygon's points stay where they are (to
  // first order), and so do their slots and the impulses on them. By role, the slots swapped
  // halves at such a flip: the settle's choice at the end pose moved a resting box's impulses
  // onto slots that no longer held a point, its re-solve started at θ = 334 and every step
  // split (a box lying on its side on a box's corner, bench/RESULTS.md, twenty-third session).
  std::vector<ContactPoint> out;
  for (int slot = 0; slot < kBoxBoxFaceSlots; ++slot) {
    const ContactPoint& own = by_role[slot];
    const ContactPoint& swapped = by_role[(slot + 4) % kBoxBoxFaceSlots];
    out.push_back(
        {select(on_b, swapped.gap, own.gap), select(on_b, swapped.point, own.point), normal});
  }

  const EdgeAxis& e = edge.axis;
  const auto [on_a, on_edge_b] = closest_segment_points(e.centre_a, e.half_a, e.centre_b, e.half_b);
  const Expr gap = dot(on_edge_b - on_a, e.normal);
  out.push_back(
      {select(edge_contact, gap, inactive), on_edge_b - (0.5 * gap) * e.normal, e.normal});
  return out;
}

std::string box_box_slot_kind(int slot) {
  return slot < kBoxBoxFaceSlots ? "face point " + std::to_string(slot) : "edge-edge";
}

}  // namespace talon::ir::lower
