#include "frontend/mjcf/orientation.h"

#include <cmath>
#include <numbers>

#include "frontend/mjcf/attributes.h"

namespace talon::mjcf {
namespace {

// MuJoCo's mjEPS (user_util.h): vectors shorter than this are "too small".
constexpr double kEps = 1e-14;

double to_radians(double angle, const AngleConvention& angles) {
  return angles.degrees ? angle / 180.0 * std::numbers::pi : angle;
}

Quat quat_from_wxyz(const Vec4& q) {
  return Quat(q[0], q[1], q[2], q[3]);
}

}  // namespace

void read_orientation(const XmlNode& node, OrientationSpec& spec, Diagnostics& diag) {
  int given = 0;
  double values[6];
  if (read_exact(node, "quat", values, 4, diag)) {
    spec.quat = Vec4(values[0], values[1], values[2], values[3]);
  }
  if (node.attribute("quat")) ++given;
  if (read_exact(node, "axisangle", values, 4, diag))
    spec.axisangle = Vec4(values[0], values[1], values[2], values[3]);
  if (node.attribute("axisangle")) ++given;
  if (read_exact(node, "xyaxes", values, 6, diag)) spec.xyaxes = Eigen::Map<Vec6>(values);
  if (node.attribute("xyaxes")) ++given;
  if (read_exact(node, "zaxis", values, 3, diag))
    spec.zaxis = Vec3(values[0], values[1], values[2]);
  if (node.attribute("zaxis")) ++given;
  if (read_exact(node, "euler", values, 3, diag))
    spec.euler = Vec3(values[0], values[1], values[2]);
  if (node.attribute("euler")) ++given;
  if (given > 1)
    report(diag, node,
           "multiple orientation specifiers (quat, axisangle, xyaxes, zaxis, euler) are not "
           "allowed");
}

Quat axis_angle_quat(const Vec3& axis, double angle) {
  const Vec3 unit = axis.normalized();
  const double s = std::sin(angle / 2);
  return Quat(std::cos(angle / 2), s * unit.x(), s * unit.y(), s * unit.z());
}

Quat euler_quat(const Vec3& angles, const std::string& sequence) {
  Quat q = Quat::Identity();
  for (int i = 0; i < 3; ++i) {
    const char axis_name = sequence[static_cast<std::size_t>(i)];
    Vec3 axis = Vec3::Zero();
    axis[std::tolower(static_cast<unsigned char>(axis_name)) - 'x'] = 1;
    const Quat step = axis_angle_quat(axis, angles[i]);
    // Lower case: about the rotating frame's axis (post-multiply); upper case: about the
    // fixed frame's axis (pre-multiply).
    q = std::islower(static_cast<unsigned char>(axis_name)) ? q * step : step * q;
  }
  return q.normalized();
}

Quat z_axis_quat(const Vec3& direction) {
  Vec3 axis = Vec3::UnitZ().cross(direction);
  const double s = axis.norm();
  axis = s < 1e-10 ? Vec3::UnitX() : Vec3(axis / s);
  const double angle = std::atan2(s, direction.z());
  return Quat(std::cos(angle / 2), std::sin(angle / 2) * axis.x(), std::sin(angle / 2) * axis.y(),
              std::sin(angle / 2) * axis.z());
}

std::optional<Quat> xy_axes_quat(const Vec3& x_in, const Vec3& y_in, std::string& why) {
  if (x_in.norm() < kEps) {
    why = "xyaxes: the x axis has zero length";
    return std::nullopt;
  }
  const Vec3 x = x_in.normalized();
  Vec3 y = y_in - x * x.dot(y_in);
  if (y.norm() < kEps) {
    why = "xyaxes: the y axis has zero length or is parallel to the x axis";
    return std::nullopt;
  }
  y.normalize();
  Mat3 frame;
  frame << x, y, x.cross(y).normalized();
  return Quat(frame).normalized();
}

std::optional<Quat> resolve_orientation(const OrientationSpec& spec, const AngleConvention& angles,
                                        std::string& why) {
  const bool has_alternative = spec.axisangle || spec.xyaxes || spec.zaxis || spec.euler;
  Quat q = Quat::Identity();
  if (!has_alternative) {
    if (spec.quat.norm() < kEps) {
      why = "quaternion has zero length";
      return std::nullopt;
    }
    q = quat_from_wxyz(spec.quat).normalized();
  }
  if (spec.axisangle) {
    const Vec3 axis = spec.axisangle->head<3>();
    if (axis.norm() < kEps) {
      why = "axisangle: the axis has zero length";
      return std::nullopt;
    }
    q = axis_angle_quat(axis, to_radians((*spec.axisangle)[3], angles));
  }
  if (spec.xyaxes) {
    auto frame = xy_axes_quat(spec.xyaxes->head<3>(), spec.xyaxes->tail<3>(), why);
    if (!frame) return std::nullopt;
    q = *frame;
  }
  if (spec.zaxis) {
    if (spec.zaxis->norm() < kEps) {
      why = "zaxis has zero length";
      return std::nullopt;
    }
    q = z_axis_quat(spec.zaxis->normalized());
  }
  if (spec.euler) {
    const Vec3 radians(to_radians((*spec.euler)[0], angles), to_radians((*spec.euler)[1], angles),
                       to_radians((*spec.euler)[2], angles));
    q = euler_quat(radians, angles.eulerseq);
  }
  return q;
}

std::optional<Segment> fromto_segment(const std::array<double, 6>& fromto, std::string& why) {
  const Vec3 a(fromto[0], fromto[1], fromto[2]);
  const Vec3 b(fromto[3], fromto[4], fromto[5]);
  const Vec3 d = a - b;
  const double half_length = d.norm() / 2;
  if (half_length < kEps) {
    why = "fromto: the two points coincide (zero length)";
    return std::nullopt;
  }
  return Segment{(a + b) / 2, z_axis_quat(d / d.norm()), half_length};
}

}  // namespace talon::mjcf
