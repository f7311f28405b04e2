#include "frontend/mjcf/geom_inertia.h"

#include <numbers>

namespace talon::mjcf {
namespace {

// MuJoCo's mjMINVAL: the smallest value used as a denominator.
constexpr double kMinVal = 1e-15;
constexpr double kPi = std::numbers::pi;

Vec3 box_like(double mass, const Vec3& s, double divisor) {
  return Vec3(mass * (s.y() * s.y() + s.z() * s.z()) / divisor,
              mass * (s.x() * s.x() + s.z() * s.z()) / divisor,
              mass * (s.x() * s.x() + s.y() * s.y()) / divisor);
}

Vec3 capsule_inertia(double mass, double radius, double half_length) {
  const double h = 2 * half_length;
  // Mass split by volume: the two caps form one sphere of volume 4/3 pi r^3.
  const double sphere_mass = mass * 4 * radius / (4 * radius + 3 * h);
  const double cylinder_mass = mass - sphere_mass;
  const double cylinder_axial = cylinder_mass * radius * radius / 2;
  const double cylinder_transverse = cylinder_mass * (3 * radius * radius + h * h) / 12;
  const double sphere_inertia = 2 * sphere_mass * radius * radius / 5;
  const double cap_offset = sphere_mass * h * (3 * radius + 2 * h) / 8;
  const double transverse = cylinder_transverse + sphere_inertia + cap_offset;
  return Vec3(transverse, transverse, cylinder_axial + sphere_inertia);
}

}  // namespace

double geom_volume(MjcfGeomType type, const Vec3& size) {
  const double r = size.x();
  switch (type) {
    case MjcfGeomType::Sphere:
      return 4 * kPi * r * r * r / 3;
    case MjcfGeomType::Capsule:
      return kPi * (r * r * (2 * size.y()) + 4 * r * r * r / 3);
    case MjcfGeomType::Cylinder:
      return kPi * r * r * (2 * size.y());
    case MjcfGeomType::Ellipsoid:
      return 4 * kPi * size.x() * size.y() * size.z() / 3;
    case MjcfGeomType::Box:
      return 8 * size.x() * size.y() * size.z();
    case MjcfGeomType::Plane:
    case MjcfGeomType::Hfield:
    case MjcfGeomType::Mesh:
      return 0;
  }
  return 0;
}

Vec3 geom_diag_inertia(MjcfGeomType type, const Vec3& size, double mass) {
  const double r = size.x();
  switch (type) {
    case MjcfGeomType::Sphere:
      return Vec3::Constant(2 * mass * r * r / 5);
    case MjcfGeomType::Capsule:
      return capsule_inertia(mass, r, size.y());
    case MjcfGeomType::Cylinder: {
      const double h = 2 * size.y();
      const double transverse = mass * (3 * r * r + h * h) / 12;
      return Vec3(transverse, transverse, mass * r * r / 2);
    }
    case MjcfGeomType::Ellipsoid:
      return box_like(mass, size, 5);
    case MjcfGeomType::Box:
      return box_like(mass, size, 3);
    case MjcfGeomType::Plane:
    case MjcfGeomType::Hfield:
    case MjcfGeomType::Mesh:
      return Vec3::Zero();
  }
  return Vec3::Zero();
}

double geom_mass(MjcfGeomType type, const Vec3& size, std::optional<double> explicit_mass,
                 double density) {
  const double volume = geom_volume(type, size);
  if (!explicit_mass) return density * volume;
  if (*explicit_mass == 0 || volume <= kMinVal) return 0;
  return *explicit_mass;
}

Mat3 rotated_inertia(const Quat& quat, const Vec3& diag) {
  const Mat3 r = quat.normalized().toRotationMatrix();
  return r * diag.asDiagonal() * r.transpose();
}

std::optional<BodyMass> combine_geoms(const std::vector<GeomMass>& geoms) {
  BodyMass body;
  if (geoms.empty()) return body;
  if (geoms.size() == 1) {
    body.mass = geoms[0].mass;
    body.com = geoms[0].pos;
    body.inertia = rotated_inertia(geoms[0].quat, geoms[0].diag_inertia);
    return body;
  }
  Vec3 first_moment = Vec3::Zero();
  for (const GeomMass& g : geoms) {
    body.mass += g.mass;
    first_moment += g.mass * g.pos;
  }
  if (body.mass < kMinVal) return std::nullopt;
  body.com = first_moment / body.mass;
  for (const GeomMass& g : geoms) {
    const Vec3 d = g.pos - body.com;
    body.inertia += rotated_inertia(g.quat, g.diag_inertia) +
                    g.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  }
  return body;
}

}  // namespace talon::mjcf
