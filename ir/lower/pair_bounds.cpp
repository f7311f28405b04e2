#include "ir/lower/pair_bounds.h"

#include <algorithm>
#include <cmath>

namespace talon::ir {

double geom_reach(const Model& m, int geom) {
  const Vec3& size = m.geom_size[geom];
  switch (m.geom_type[geom]) {
    case GeomType::Sphere:
      return size.x();
    case GeomType::Capsule:
      return size.x() + size.y();
    case GeomType::Cylinder:
      return std::hypot(size.x(), size.y());
    case GeomType::Box:
    case GeomType::Ellipsoid:
      return size.norm();
    case GeomType::Mesh: {
      double reach = 0;
      for (const Vec3& v : m.geom_hull_vertices[geom]) reach = std::max(reach, v.norm());
      return reach;
    }
    case GeomType::Plane:
    case GeomType::Terrain:
      break;
  }
  return 0;
}

bool has_bounds(const PairTemplate& t) {
  const auto finite = [](GeomType type) {
    return type != GeomType::Plane && type != GeomType::Terrain;
  };
  const bool plane_on_world = t.key.a == GeomType::Plane && t.key.a_static;
  return t.kind == TemplateKind::Pair && (finite(t.key.a) || plane_on_world) && finite(t.key.b);
}

PairBounds pair_bounds(const Model& model, const PairInstance& instance) {
  PairBounds out;
  const int geoms[2] = {instance.geom_a, instance.geom_b};
  for (int side = 0; side < 2; ++side) {
    const int geom = geoms[side], sim = model.geom_sim[geom];
    const Vec3& size = model.geom_size[geom];
    const GeomType type = model.geom_type[geom];
    if (type == GeomType::Plane) {  // a half-space: a point and the normal, its frame's z
      out.plane = true;
      out.ends[side] = {model.geom_pose[geom].pos, model.geom_pose[geom].quat * Vec3(0, 0, 1)};
      continue;
    }
    const bool swept = type == GeomType::Capsule || type == GeomType::Cylinder;
    // A capsule's and a cylinder's half-length is size.y along the geom's z axis.
    const Vec3 half_axis =
        swept ? Vec3(model.geom_pose[geom].quat * Vec3(0, 0, size.y())) : Vec3(Vec3::Zero());
    Vec3 centre = model.geom_pose[geom].pos;
    if (sim >= 0) centre -= model.sim_com[sim];
    out.body[side] = sim;
    out.ends[side] = {centre - half_axis, centre + half_axis};
    out.radius[side] = swept ? size.x() : geom_reach(model, geom);
  }
  return out;
}

}  // namespace talon::ir
