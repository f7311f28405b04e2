// Contact slots of two convex polytopes (mesh hulls, and a box against a mesh hull): the
// face clipping of box_box.h generalised to faces of up to kFaceVertices vertices (internal
// to ir/lower/; contact_geometry.cpp dispatches here).
//
// At the step's start pose (q⁻) a separating-axis test over both polytopes' face normals
// picks the reference face (the face of least penetration), and the incident face is the
// other polytope's face most anti-parallel to it; the incident face is clipped to the
// reference face there too. Slots 0 … kFaceVertices − 1: where incident edge k, run from its
// end to its start, enters the reference face's prism (the edge's end itself when it lies over
// the face); slots kFaceVertices + k: where reference edge k enters the incident face's
// shadow. As for boxes, each vertex of the clipped polygon is in exactly one slot; a slot that
// holds none has the gap kInactiveGap. What q⁻ decides (the faces, which slots hold a vertex,
// and the edge whose line each vertex lies on) is constant for the step; the points are where
// those lines cross at q⁺, so the slots are smooth in q⁺. (Clipped at q⁺ instead, the
// mesh_stacks scene took 20–60 % more Newton updates per step: bench/RESULTS.md.)
//
// There are no edge–edge axes: an edge resting across another edge is held by the clipped
// points of the face the test picks, with the normal of that face.
#pragma once

#include <string>
#include <vector>

#include "ir/lower/contact_geometry.h"
#include "ir/lower/polytope.h"

namespace talon::ir::lower {

inline constexpr int kPolytopeSlots = 2 * kFaceVertices;

// The slots of polytopes `a` and `b` posed at `a_pose`, `b_pose` (normal from a to b), with
// the faces chosen at `a_chooser`, `b_chooser` (the q⁻ poses).
std::vector<ContactPoint> polytope_contacts(const Polytope& a, const Polytope& b,
                                            const GeomPose& a_pose, const GeomPose& b_pose,
                                            const GeomPose& a_chooser, const GeomPose& b_chooser);
// The signed distance from the point `p` to the polytope posed at `pose`, as point_box
// measures a box: outside, the exact distance at q⁺ (to the face whose polygon the point lies
// over, or to the nearest edge, chosen there); inside, the distance to the face of largest
// signed distance at the step's start (`p_chooser` against `pose_chooser`, the q⁻ values: the
// face the point came through). The choice pose decides only which face, so the distance's
// derivative with respect to it is zero, as the adjoint takes it (measured along the
// direction from the edge at q⁻ instead, an edge contact's gradient missed that term:
// bench/RESULTS.md, twenty-sixth session). Used for spheres and capsules against mesh hulls,
// and a cylinder's rim point.
SolidDistance point_polytope(const Polytope& shape, const GeomPose& pose, const V3& p,
                             const GeomPose& pose_chooser, const V3& p_chooser);
// A segment at the step's end (start → end, q⁺) and start (q⁻).
struct SegmentAtStep {
  V3 start, end, start_chooser, end_chooser;
};
// Where a segment enters the prism over a face of the polytope posed at `pose`: the face
// that the point `near_chooser` lies against at q⁻ (the face of largest signed distance
// there), the entry decided at q⁻ (Cyrus–Beck against the face's edges, with kClipMargin)
// and measured at q⁺ where the segment crosses the chosen edge's line, with its distance from
// the face's plane along the face's normal. `on` is 1 only where the segment enters across an
// edge (its start does not already lie over the face), and where the entry lay outside the
// polytope at q⁻. Capsule–mesh's clipped slots (contact_geometry.cpp, capsule_hull_clipped).
struct FaceEntry {
  V3 point;
  SolidDistance distance;
  Expr on;
};
FaceEntry polytope_face_entry(const Polytope& shape, const GeomPose& pose,
                              const GeomPose& pose_chooser, const V3& near_chooser,
                              const SegmentAtStep& segment);
// "incident edge 3", "reference edge 0".
std::string polytope_slot_kind(int slot);

}  // namespace talon::ir::lower
