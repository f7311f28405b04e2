// Box–box contact slots (internal to ir/lower/; contact_geometry.cpp dispatches here).
//
// A separating-axis test over the 15 axes of two boxes (3 + 3 face normals, 9 edge–edge
// cross products) picks the axis of least penetration. A face axis gives face contact: the
// face of the other box most anti-parallel to the reference face (the incident face) is
// clipped to the reference face, and every vertex of the clipped polygon is a point. An
// edge–edge axis gives one point: the closest points of the two edges.
//
// Slots (kBoxBoxSlots = 9), each with its gap measured along the pair's normal (first box to
// second):
//   0–3  face point k: where incident edge k (incident corner k to k + 1) enters the
//        reference face (incident corner k itself when it lies over the face);
//   4–7  face point 4 + k: where reference edge k enters the incident face's shadow (reference
//        corner k itself when it lies under the incident face);
//   8    edge–edge: the closest points of the two edges.
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

// The kBoxBoxSlots slots of two boxes, normal from `a` to `b`.
std::vector<ContactPoint> box_box_contacts(const GeomPose& a, const GeomPose& b);
// "face point 3", "edge-edge".
std::string box_box_slot_kind(int slot);

}  // namespace talon::ir::lower
