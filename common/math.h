// Small math vocabulary shared by every layer (Eigen underneath).
#pragma once

#include <Eigen/Dense>
#include <Eigen/Geometry>

namespace talon {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;  // (w, x, y, z); Eigen stores x, y, z, w

// A rigid transform: p_parent = pos + quat * p_child.
struct Pose {
  Vec3 pos = Vec3::Zero();
  Quat quat = Quat::Identity();

  Pose operator*(const Pose& child) const { return {pos + quat * child.pos, quat * child.quat}; }
  Vec3 apply(const Vec3& p) const { return pos + quat * p; }
  Pose inverse() const {
    Quat inv = quat.conjugate();
    return {-(inv * pos), inv};
  }
};

}  // namespace talon
