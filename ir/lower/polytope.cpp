// Faces of a convex polytope from its vertices (see polytope.h).
//
// Every plane through three vertices that has all vertices on one side is a face's plane
// (brute force over the triples: hulls here have at most 32 vertices, 4960 triples, so this
// costs microseconds and needs no qhull facet bookkeeping). The vertices within the tolerance
// of the plane are the face's; sorted by angle about their centroid they are its boundary.
#include "ir/lower/polytope.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace talon::ir::lower {
namespace {

constexpr double kCoplanarTolerance = 1e-7;  // of the polytope's size

struct Plane {
  Vec3 normal;
  double offset;
};

double size_of(const std::vector<Vec3>& vertices) {
  Vec3 lo = vertices.front(), hi = vertices.front();
  for (const Vec3& v : vertices) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  return (hi - lo).norm();
}

// The outward plane through vertices i, j, k when every vertex lies on its inner side.
bool supporting_plane(const std::vector<Vec3>& v, int i, int j, int k, double tol, Plane& out) {
  Vec3 n = (v[j] - v[i]).cross(v[k] - v[i]);
  const double length = n.norm();
  if (length <= tol * tol) return false;
  n /= length;
  bool above = false, below = false;
  for (const Vec3& p : v) {
    const double d = n.dot(p - v[i]);
    above = above || d > tol;
    below = below || d < -tol;
  }
  if (above == below) return false;  // vertices on both sides, or all on the plane (flat)
  if (above) n = -n;
  out = {n, n.dot(v[i])};
  return true;
}

bool same_plane(const Plane& a, const Plane& b, double tol) {
  return a.normal.dot(b.normal) > 1 - 1e-9 && std::abs(a.offset - b.offset) <= tol;
}

// The face's vertices (those on the plane) in counter-clockwise order about its normal,
// thinned to kFaceVertices evenly spread ones.
std::vector<Vec3> boundary(const std::vector<Vec3>& v, const Plane& plane, double tol) {
  std::vector<Vec3> on;
  for (const Vec3& p : v)
    if (std::abs(plane.normal.dot(p) - plane.offset) <= tol) on.push_back(p);
  Vec3 centroid = Vec3::Zero();
  for (const Vec3& p : on) centroid += p / static_cast<double>(on.size());
  const Vec3 u = (on.front() - centroid).normalized(), w = plane.normal.cross(u);
  auto angle = [&](const Vec3& p) { return std::atan2(w.dot(p - centroid), u.dot(p - centroid)); };
  std::sort(on.begin(), on.end(),
            [&](const Vec3& a, const Vec3& b) { return angle(a) < angle(b); });
  if (on.size() <= static_cast<std::size_t>(kFaceVertices)) return on;
  std::vector<Vec3> thinned;
  for (int k = 0; k < kFaceVertices; ++k)
    thinned.push_back(on[static_cast<std::size_t>(k) * on.size() / kFaceVertices]);
  return thinned;
}

PolytopeFace face_of(const Plane& plane, const std::vector<Vec3>& corners) {
  PolytopeFace f;
  f.normal = plane.normal;
  const int n = static_cast<int>(corners.size());
  for (int k = 0; k < kFaceVertices; ++k) {
    f.valid[k] = k < n;
    f.start[k] = f.valid[k] ? corners[k] : corners.front();
    f.end[k] = f.valid[k] ? corners[(k + 1) % n] : corners.front();
    f.inward[k] =
        f.valid[k] ? plane.normal.cross(f.end[k] - f.start[k]).normalized() : Vec3::Zero();
  }
  return f;
}

}  // namespace

Polytope polytope_of(const std::vector<Vec3>& vertices) {
  Polytope out{vertices, {}};
  const int n = static_cast<int>(vertices.size());
  if (n < 4) return out;
  const double tol = kCoplanarTolerance * size_of(vertices);
  std::vector<Plane> planes;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int k = j + 1; k < n; ++k) {
        Plane p;
        if (!supporting_plane(vertices, i, j, k, tol, p)) continue;
        const bool seen = std::any_of(planes.begin(), planes.end(),
                                      [&](const Plane& q) { return same_plane(p, q, tol); });
        if (!seen) planes.push_back(p);
      }
  for (const Plane& p : planes) {
    const std::vector<Vec3> corners = boundary(vertices, p, tol);
    if (corners.size() >= 3) out.faces.push_back(face_of(p, corners));
  }
  return out;
}

std::vector<Vec3> box_corners(const Vec3& half) {
  std::vector<Vec3> out;
  for (int k = 0; k < 8; ++k)
    out.push_back(
        {(k & 1 ? 1 : -1) * half.x(), (k & 2 ? 1 : -1) * half.y(), (k & 4 ? 1 : -1) * half.z()});
  return out;
}

}  // namespace talon::ir::lower
