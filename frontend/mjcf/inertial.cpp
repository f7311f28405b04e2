#include "frontend/mjcf/inertial.h"

#include <algorithm>

#include "frontend/mjcf/attributes.h"

namespace talon::mjcf {
namespace {

bool has_orientation(const XmlNode& node) {
  for (const char* attr : {"quat", "axisangle", "xyaxes", "zaxis", "euler"})
    if (node.attribute(attr)) return true;
  return false;
}

// fullinertia = (Ixx, Iyy, Izz, Ixy, Ixz, Iyz) in the body frame.
Mat3 full_inertia_matrix(const double (&f)[6]) {
  Mat3 m;
  m << f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2];
  return m;
}

void read_required(const XmlNode& node, const char* attr, double* target, int n,
                   Diagnostics& diag) {
  if (!node.attribute(attr)) {
    report(diag, node, std::string("attribute '") + attr + "' is required");
    return;
  }
  read_exact(node, attr, target, n, diag);
}

BodyMass read_inertial(const XmlNode& node, const AngleConvention& angles, Diagnostics& diag) {
  BodyMass result;
  read_required(node, "pos", result.com.data(), 3, diag);
  read_required(node, "mass", &result.mass, 1, diag);
  double full[6];
  if (read_exact(node, "fullinertia", full, 6, diag)) {
    if (node.attribute("diaginertia"))
      report(diag, node, "give either 'diaginertia' or 'fullinertia', not both");
    if (has_orientation(node))
      report(diag, node,
             "'fullinertia' is already expressed in the body frame; it takes no quat, "
             "axisangle, xyaxes, zaxis or euler");
    result.inertia = full_inertia_matrix(full);
    return result;
  }
  Vec3 diagonal = Vec3::Zero();
  read_exact(node, "diaginertia", diagonal.data(), 3, diag);
  OrientationSpec orientation;
  read_orientation(node, orientation, diag);
  std::string why;
  const std::optional<Quat> quat = resolve_orientation(orientation, angles, why);
  if (!quat) {
    report(diag, node, why);
    return result;
  }
  result.inertia = rotated_inertia(*quat, diagonal);
  return result;
}

// boundmass, boundinertia (applied to the principal moments) and balanceinertia. Negative
// values are left alone for compile_model to report.
void apply_bounds(const CompilerSettings& c, BodyMass& m) {
  if (m.mass >= 0) m.mass = std::max(m.mass, c.boundmass);
  if (!(c.boundinertia > 0) && !c.balanceinertia) return;
  Eigen::SelfAdjointEigenSolver<Mat3> eig(m.inertia);
  Vec3 moments = eig.eigenvalues();
  if (moments.minCoeff() < 0) return;
  moments = moments.cwiseMax(c.boundinertia);
  if (c.balanceinertia && moments[0] + moments[1] < moments[2])
    moments.setConstant(moments.sum() / 3);  // MuJoCo's balanceinertia
  m.inertia = eig.eigenvectors() * moments.asDiagonal() * eig.eigenvectors().transpose();
}

bool uses_geoms(InertiaFromGeom mode, bool has_inertial) {
  return mode == InertiaFromGeom::True || (mode == InertiaFromGeom::Auto && !has_inertial);
}

}  // namespace

void resolve_body_inertia(ReaderContext& ctx, const XmlNode& body_node,
                          const InertiaSources& sources, BodySpec& body) {
  BodyMass result;
  if (sources.inertial) {
    result = read_inertial(*sources.inertial, ctx.compiler.angles, ctx.diag);
    body.inertial_origin = origin_of(*sources.inertial);
  }
  if (uses_geoms(ctx.compiler.inertia_from_geom, sources.inertial != nullptr)) {
    if (sources.meshless) {
      report(ctx.diag, *sources.meshless->geom,
             sources.meshless->why +
                 ", so it cannot give the body's inertia; give the body an "
                 "<inertial>");
      return;
    }
    if (!sources.geoms.empty()) {
      const std::optional<BodyMass> combined = combine_geoms(sources.geoms);
      if (!combined) {
        report(ctx.diag, body_node,
               "body mass is too small to compute a centre of mass: its geoms weigh nothing");
        return;
      }
      result = *combined;
      body.inertial_origin = {};
    }
  }
  apply_bounds(ctx.compiler, result);
  body.mass = result.mass;
  body.com = result.com;
  body.inertia = result.inertia;
}

}  // namespace talon::mjcf
