// MJCF frame orientations (quat, axisangle, xyaxes, zaxis, euler) and `fromto` segments,
// converted exactly as MuJoCo 2.2.2 does (user_objects.cc mjCAlternative::Set,
// user_util.cc mjuu_z2quat / mjuu_frame2quat, mjCGeom::Compile for fromto).
#pragma once

#include <array>
#include <optional>
#include <string>

#include "common/diagnostics.h"
#include "common/math.h"
#include "frontend/mjcf/xml_tree.h"

namespace talon::mjcf {

using Vec4 = Eigen::Vector4d;
using Vec6 = Eigen::Matrix<double, 6, 1>;

// The orientation attributes an element (or its default class) gave. MuJoCo 2.2.2 keeps
// every alternative it has seen, the class's included, and applies them over `quat` in the
// order axisangle, xyaxes, zaxis, euler, so the last one given wins; we do the same.
struct OrientationSpec {
  Vec4 quat{1, 0, 0, 0};          // (w, x, y, z) as written
  std::optional<Vec4> axisangle;  // axis (3) + angle
  std::optional<Vec6> xyaxes;
  std::optional<Vec3> zaxis;
  std::optional<Vec3> euler;
};

// compiler angle="degree"|"radian" and eulerseq: how angles in the file are read.
struct AngleConvention {
  bool degrees = true;  // MuJoCo's default
  std::string eulerseq = "xyz";
};

// Reads quat/axisangle/xyaxes/zaxis/euler of `node` into `spec`. MuJoCo 2.2.1+ refuses an
// element that gives more than one of them; so do we.
void read_orientation(const XmlNode& node, OrientationSpec& spec, Diagnostics& diag);

// The rotation `spec` describes; on a degenerate spec (zero quaternion, zero axis...)
// returns nothing and sets `why`.
std::optional<Quat> resolve_orientation(const OrientationSpec& spec, const AngleConvention& angles,
                                        std::string& why);

// Rotation by `angle` radians about `axis` (any non-zero length).
Quat axis_angle_quat(const Vec3& axis, double angle);
// Euler angles (radians) composed in `sequence`: lower case = rotating (intrinsic) axes,
// upper case = fixed (extrinsic) axes. `sequence` must be 3 of x y z X Y Z.
Quat euler_quat(const Vec3& angles, const std::string& sequence);
// MuJoCo's minimal rotation taking +z onto `direction` (unit); a half turn about x when
// `direction` is -z.
Quat z_axis_quat(const Vec3& direction);
// The frame whose x axis is `x` and whose y axis is `y` made orthogonal to x.
std::optional<Quat> xy_axes_quat(const Vec3& x, const Vec3& y, std::string& why);

// A capsule/cylinder/box/ellipsoid given by the segment from `a` to `b`.
struct Segment {
  Vec3 center;
  Quat quat;           // the geom's z axis along (a - b), MuJoCo's choice
  double half_length;  // |a - b| / 2
};
std::optional<Segment> fromto_segment(const std::array<double, 6>& fromto, std::string& why);

}  // namespace talon::mjcf
