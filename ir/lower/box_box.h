// Box–box contact slots (internal to ir/lower/; contact_geometry.cpp dispatches here).
//
// A separating-axis test over the 15 axes of two boxes (3 + 3 face normals, 9 edge–edge
// cross products) picks the axis of least penetration. Every choice (the axis, the reference
// and incident faces, the edges, which slots hold a vertex) is made at the chooser poses (the
// program's q_choose, contact_geometry.h) and every point and gap measured at the geoms' own
// poses, so that within a Newton solve the slots are continuous in q⁺. A face axis gives face
// contact: the face of the other box most anti-parallel to the reference face (the incident face)
// is clipped to the reference face, and every vertex of the clipped polygon is a point. An
// edge–edge axis gives one point: the closest points of the two edges.
//
// Slots (kBoxBoxSlots = 9), each with its gap measured along the pair's normal (first box to
// second). With A's face the reference (B's the incident face):
//   0–3  face point k: where incident edge k (incident corner k to k + 1) enters the
//        reference face (incident corner k itself when it lies over the face);
//   4–7  face point 4 + k: where reference edge k enters the incident face's shadow (reference
//        corner k itself when it lies under the incident face);
//   8    edge–edge: the closest points of the two edges.
// With B's face the reference the halves swap: slots 0–3 are B's edges and 4–7 A's either way,
// so a point keeps its slot where the two faces tie as the reference (box_box.cpp).
// Walking the clipped polygon's boundary, each vertex starts exactly one piece of it, and that
// piece lies on an incident edge or on a reference edge: slots 0–7 are its vertex set, without
// duplicates. A slot that holds no vertex (or, for 0–7, when an edge–edge axis is chosen, and
// for 8, when a face axis is) has the gap kInactiveGap: separated, no impulse.
#pragma once

#include <string>
#include <vector>

#include "ir/lower/contact_geometry.h"

namespace talon::ir::lower {

inline constexpr int kBoxBoxFaceSlots = 8;
inline constexpr int kBoxBoxSlots = kBoxBoxFaceSlots + 1;
// Metres: the gap of a slot that holds no contact point. Any positive value leaves its impulse
// at zero; 1 m keeps it far from every contact tolerance.
inline constexpr double kInactiveGap = 1.0;

// Shared by the face clipping here and in polytope_contacts.h:
// Metres. A later axis (in the order A's faces, B's faces, edges) must separate the solids
// by this much more than the best so far to replace it: aligned stacks, whose face and edge
// axes tie up to rounding, pick the same face axis at every step.
inline constexpr double kTieBias = 1e-5;
// Metres. An incident edge within this distance outside the reference face still holds a
// vertex, and a reference edge must reach this far inside the incident face's shadow to hold
// one: when the two faces coincide up to rounding (equal boxes stacked), every corner is
// claimed by exactly one slot, the incident corner's, and µm drift does not switch slots on
// and off. The points themselves are exact wherever the edges meet the faces, except that an
// incident corner within this distance outside the reference face is its slot's point itself,
// not its edge's crossing into the face. The crossing's gap carries the edge's tilt against
// the face into the normal impulse's generalised force (a force along the face of λ times
// the tilt), which a corner flush with the face's edge (a box on a larger box with an edge
// flush) would switch on and off as rounding moves it in or out: the settle's choice at the
// end pose then differs from the start's, and the re-solve has no root (bench/RESULTS.md,
// sixteenth session). The polytope clipping decides its starts the same way.
inline constexpr double kClipMargin = 1e-5;
// Metres: an edge whose extent across a clipping line is below this runs parallel to it
// (inside or outside it entirely), so its crossing parameters are not divided out.
inline constexpr double kParallelExtent = 1e-12;

// Clipping a segment to a rectangle with the choices (whether it meets the rectangle, where
// it enters) made at the chooser pose and the entry measured at q⁺: box–box clips the incident
// face's edges so, capsule–box its axis (contact_geometry.cpp).
// 2D coordinates of a point in a face's (u, v) frame, and the rectangle |x| ≤ hx, |y| ≤ hy.
struct Coords {
  Expr x, y;
};
// A segment in a rectangle's frame at the chooser pose and at q⁺, and the rectangle.
struct StepSegment {
  Coords chooser_start, chooser_end, value_start, value_end;
  Expr half_x, half_y;
};
// t ∈ [0, 1]: where the segment enters the rectangle at q⁺ (0 when it starts inside); hits:
// whether it meets the rectangle grown by `margin` at the chooser pose; from_start: whether
// its start lies within that (or kClipMargin) there.
struct Entry {
  Expr t, hits, from_start;
};
// The margin (shrinking the rectangle when negative) only decides which slots hold a vertex,
// as kClipMargin says: the point is the entry into the rectangle itself wherever the segment
// meets it.
Entry clipped_entry(const StepSegment& s, double margin);

// The kBoxBoxSlots slots of two boxes at poses (a, b), normal from `a` to `b`, with every
// choice (the separating axis, the reference and incident faces, the edges, which slots hold
// a vertex) made at (a_chooser, b_chooser): the step's start (contact_geometry.h).
std::vector<ContactPoint> box_box_contacts(const GeomPose& a, const GeomPose& b,
                                           const GeomPose& a_chooser, const GeomPose& b_chooser);
// "face point 3", "edge-edge".
std::string box_box_slot_kind(int slot);

}  // namespace talon::ir::lower
