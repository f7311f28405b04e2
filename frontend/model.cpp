#include "frontend/model.h"

#include <algorithm>
#include <numeric>

#include <Eigen/Eigenvalues>

namespace talon {
namespace {

int index_of(const std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

}  // namespace

Vec3 principal_moments(const Mat3& inertia) {
  return Eigen::SelfAdjointEigenSolver<Mat3>(inertia).eigenvalues();
}

bool positive_definite_moments(const Vec3& moments) {
  return moments[0] > 1e-14 * std::max(1.0, moments.cwiseAbs().maxCoeff());
}

int contact_condim(const Model& m, int a, int b) {
  const std::array<int, 2> g = contact_friction_geoms(m, a, b);
  return std::max(m.geom_condim[g[0]], m.geom_condim[g[1]]);
}

std::array<int, 2> contact_friction_geoms(const Model& m, int a, int b) {
  if (m.geom_priority[a] > m.geom_priority[b]) return {a, a};
  if (m.geom_priority[b] > m.geom_priority[a]) return {b, b};
  return {a, b};
}

double Model::total_mass() const {
  return std::accumulate(body_mass.begin(), body_mass.end(), 0.0);
}
int Model::find_body(const std::string& name) const {
  return index_of(body_name, name);
}
int Model::find_joint(const std::string& name) const {
  return index_of(jnt_name, name);
}
int Model::find_actuator(const std::string& name) const {
  return index_of(act_name, name);
}
int Model::find_keyframe(const std::string& name) const {
  return index_of(key_name, name);
}

}  // namespace talon
