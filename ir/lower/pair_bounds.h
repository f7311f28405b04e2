// The broadphase's data (docs/design.md, "Kernels per type", item 6): each contact pair but a
// terrain's has a bounding volume per geom, and a pair whose volumes stay apart at the step's
// end cannot touch in that step. Its rows' root is then known without
// its collider: no impulse (λ = 0), which the unit's solver sets instead of calling the
// pair's template (codegen/model_unit_broadphase.cpp).
#pragma once

#include <array>

#include "common/math.h"
#include "frontend/model.h"
#include "ir/lower/pair_templates.h"

namespace talon::ir {

// The largest distance of a point of the geom from its centre (0 for a plane or a terrain,
// which have no extent).
double geom_reach(const Model& model, int geom);

// Below this slope of a friction cone's projection a contact counts as separated
// (ir/lower/contacts.cpp, friction_terms): its rows' weight s = 1/slope − 1 is at most
// kSeparatedFrictionWeight, the value every separated contact's residual reports (the
// preconditioner's frozen row then has C = s k_t, which dominates its diagonal).
constexpr double kMinProjectionSlope = 1e-8;
constexpr double kSeparatedFrictionWeight = 1.0 / kMinProjectionSlope - 1.0;

// Whether a template's instances have bounding volumes: a contact pair of two geoms of finite
// extent, or of a plane on the world and one of finite extent (no terrain).
bool has_bounds(const PairTemplate& t);

// The bounding volumes of one such instance's geoms a and b: each a sphere swept along a
// segment (a capsule's or a cylinder's axis; a point for the other geoms, with their reach as
// the radius). Per geom: its sim body (-1: the world), the segment's ends (from the body's
// centre of mass, in the sim frame; in the world frame for a geom on the world) and the radius.
// A plane (always geom a, on the world) is a half-space instead: `plane`, and its ends are a
// point of it and its unit normal, radius 0.
struct PairBounds {
  bool plane = false;
  std::array<int, 2> body{-1, -1};
  std::array<std::array<Vec3, 2>, 2> ends{};
  std::array<double, 2> radius{0, 0};
};
PairBounds pair_bounds(const Model& model, const PairInstance& instance);

}  // namespace talon::ir
