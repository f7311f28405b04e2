// Evaluating contact slots of posed geoms, and oracles for their points (tests of
// ir/lower/contact_geometry.h and ir/lower/polytope_contacts.h).
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "ir/interpreter.h"
#include "ir/lower/box_box.h"
#include "ir/lower/contact_geometry.h"

namespace talon::testing {

using namespace talon::ir;
using namespace talon::ir::lower;
using Catch::Matchers::WithinAbs;

// Geoms whose pose entries are Var inputs, so the slot expressions are evaluated by the
// interpreter rather than folded away.
class Scene {
 public:
  // symbolic_sizes: the geoms' sizes are Var inputs too, as a per-type template's are
  // (docs/design.md, "Kernels per type"); otherwise constants, as the model's lowering has them.
  explicit Scene(bool symbolic_sizes = false) : symbolic_sizes_(symbolic_sizes) {}

  // `hull`: a mesh's convex hull vertices, in the geom's frame (kept by the caller).
  GeomPose geom(GeomType type, const Vec3& size, const Vec3& centre,
                const Quat& orientation = Quat::Identity(),
                const std::vector<Vec3>* hull = nullptr) {
    GeomPose p;
    p.type = type;
    p.size = symbolic_sizes_ ? V3{input(size.x()), input(size.y()), input(size.z())}
                             : constant(graph_, size);
    p.hull = hull;
    for (int i = 0; i < 3; ++i) p.center[i] = input(centre[i]);
    const Mat3 r = orientation.normalized().toRotationMatrix();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) p.rot.m[i][j] = input(r(i, j));
    return p;
  }

  struct Slot {
    double gap;
    Vec3 point, normal;
  };

  std::vector<Slot> slots(const GeomPose& a, const GeomPose& b) {
    return evaluate_slots(a.type, b.type, contact_points(a, b));
  }

  // The slots at the end of a step from (a_minus, b_minus) to (a_plus, b_plus): the colliders
  // that choose features choose them at the start (the step's first choice pose).
  std::vector<Slot> step_slots(const GeomPose& a_minus, const GeomPose& b_minus,
                               const GeomPose& a_plus, const GeomPose& b_plus) {
    return evaluate_slots(
        a_plus.type, b_plus.type,
        contact_points_of_step(a_minus, b_minus, a_plus, b_plus, a_minus, b_minus).plus);
  }

 private:
  std::vector<Slot> evaluate_slots(GeomType a, GeomType b,
                                   const std::vector<ContactPoint>& points) {
    REQUIRE(static_cast<int>(points.size()) == contact_slot_count(a, b));
    Function f{"slots", inputs_, {}};
    for (const ContactPoint& c : points)
      f.outputs.insert(f.outputs.end(), {c.gap, c.point.x, c.point.y, c.point.z, c.normal.x,
                                         c.normal.y, c.normal.z});
    const std::vector<double> v = evaluate(f, values_);
    std::vector<Slot> out;
    for (std::size_t k = 0; k < points.size(); ++k) {
      const double* s = &v[7 * k];
      out.push_back({s[0], Vec3(s[1], s[2], s[3]), Vec3(s[4], s[5], s[6])});
    }
    return out;
  }

  Expr input(double value) {
    inputs_.push_back(graph_.variable("x" + std::to_string(inputs_.size())));
    values_.push_back(value);
    return inputs_.back();
  }

  bool symbolic_sizes_;
  Graph graph_;
  std::vector<Expr> inputs_;
  std::vector<double> values_;
};

inline void check_vec(const Vec3& a, const Vec3& b, double tol = 1e-12) {
  for (int i = 0; i < 3; ++i) CHECK_THAT(a[i], WithinAbs(b[i], tol));
}

inline Quat about(const Vec3& axis, double angle) {
  return Quat(Eigen::AngleAxisd(angle, axis.normalized()));
}

inline double min_gap(const std::vector<Scene::Slot>& slots) {
  double m = INFINITY;
  for (const auto& s : slots) m = std::min(m, s.gap);
  return m;
}

inline const Vec3 kUp = Vec3::UnitZ();

using Vec2 = Eigen::Vector2d;

inline std::vector<int> active_slots(const std::vector<Scene::Slot>& slots) {
  std::vector<int> out;
  for (int k = 0; k < static_cast<int>(slots.size()); ++k)
    if (slots[k].gap < kInactiveGap) out.push_back(k);
  return out;
}

// The vertices of the incident face's shadow (`incident`, 2D, convex, counter-clockwise)
// clipped to the rectangle |x| <= hx, |y| <= hy: Sutherland-Hodgman against its four sides, in
// doubles, as an oracle independent of the symbolic clipping.
inline std::vector<Vec2> clip_to_rectangle(std::vector<Vec2> polygon, double hx, double hy) {
  const std::array<Vec3, 4> sides = {Vec3(1, 0, hx), Vec3(-1, 0, hx), Vec3(0, 1, hy),
                                     Vec3(0, -1, hy)};  // inside: (a, b)·p <= c
  for (const Vec3& side : sides) {
    auto outside = [&](const Vec2& p) { return side.head<2>().dot(p) - side.z(); };
    std::vector<Vec2> kept;
    for (std::size_t k = 0; k < polygon.size(); ++k) {
      const Vec2 p = polygon[k], q = polygon[(k + 1) % polygon.size()];
      const double dp = outside(p), dq = outside(q);
      if (dp <= 0) kept.push_back(p);
      if ((dp < 0 && dq > 0) || (dp > 0 && dq < 0)) kept.push_back(p + dp / (dp - dq) * (q - p));
    }
    polygon = kept;
  }
  return polygon;
}

// Every expected point is one active slot's (x, y) and every active slot is an expected point.
inline void check_points_xy(const std::vector<Scene::Slot>& slots,
                            const std::vector<Vec2>& expected, double tol = 1e-12) {
  const std::vector<int> active = active_slots(slots);
  REQUIRE(active.size() == expected.size());
  for (const Vec2& e : expected) {
    INFO("expected point " << e.transpose());
    int matches = 0;
    for (int k : active) matches += (slots[k].point.head<2>() - e).norm() < tol;
    CHECK(matches == 1);
  }
}

// (x, y) of the bottom face's corners of a cube of half-size `half` turned by q about its
// centre, counter-clockwise.
inline std::vector<Vec2> bottom_corners_xy(const Quat& q, const Vec3& centre, double half) {
  std::vector<Vec2> out;
  for (const Vec2& c : {Vec2(-1, -1), Vec2(1, -1), Vec2(1, 1), Vec2(-1, 1)})
    out.push_back((centre + q * Vec3(half * c.x(), half * c.y(), -half)).head<2>());
  return out;
}

}  // namespace talon::testing
