// Geom and body mass properties exactly as MuJoCo 2.2.2 computes them
// (src/user/user_objects.cc: mjCGeom::GetVolume, mjCGeom::SetInertia, mjCGeom::Compile's
// mass rule, mjCBody::GeomFrame).
#pragma once

#include <optional>
#include <vector>

#include "common/math.h"

namespace talon::mjcf {

// MJCF geom types (MuJoCo's mjtGeom order); an hfield is read as a terrain (hfield.cpp).
enum class MjcfGeomType { Plane, Hfield, Sphere, Capsule, Ellipsoid, Cylinder, Box, Mesh };

// Volume of a primitive from MuJoCo's size convention; 0 for plane, hfield and mesh.
double geom_volume(MjcfGeomType type, const Vec3& size);

// Principal moments about the geom's centre, in the geom frame, for a solid of `mass`.
// The capsule is a cylinder plus two hemispherical caps; MuJoCo 2.2.2 moves each cap's
// inertia with sphere_mass * h * (3r + 2h) / 8 (h = cylinder length) — reproduced as is.
Vec3 geom_diag_inertia(MjcfGeomType type, const Vec3& size, double mass);

// MuJoCo's geom mass rule: an explicit mass (0 allowed) wins over density * volume; a
// non-zero explicit mass on a geom without volume leaves the geom massless.
double geom_mass(MjcfGeomType type, const Vec3& size, std::optional<double> explicit_mass,
                 double density);

// One geom's contribution to its body's mass properties.
struct GeomMass {
  double mass = 0;
  Vec3 pos = Vec3::Zero();       // geom centre, body frame
  Quat quat = Quat::Identity();  // geom frame in the body frame
  Vec3 diag_inertia = Vec3::Zero();
};

// Mass, centre of mass and inertia about the centre of mass in the body frame.
struct BodyMass {
  double mass = 0;
  Vec3 com = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
};

// mjCBody::GeomFrame: one geom is copied as is; several combine about their mass-weighted
// centre with the parallel-axis theorem. Returns nothing when several geoms weigh (almost)
// nothing together (MuJoCo: "body mass is too small, cannot compute center of mass").
// An empty list gives an empty BodyMass.
std::optional<BodyMass> combine_geoms(const std::vector<GeomMass>& geoms);

// Inertia matrix of principal moments `diag` in the frame `quat`.
Mat3 rotated_inertia(const Quat& quat, const Vec3& diag);

}  // namespace talon::mjcf
