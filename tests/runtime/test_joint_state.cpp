// Joint coordinates <-> maximal coordinates: the reference configuration, keyframes, round
// trips, and velocities consistent with positions.
#include <catch2/catch.hpp>

#include <random>

#include "ir/lower/lower.h"
#include "runtime/joint_state.h"
#include "runtime/runtime_fixtures.h"

namespace talon {
namespace {

std::vector<Model> models_with_joints() {
  LoadOptions floating;
  floating.floating_base = true;
  std::vector<Model> out;
  out.push_back(testing::shipped_model("double_pendulum.urdf"));
  out.push_back(testing::shipped_model("cartpole.urdf"));
  out.push_back(testing::shipped_model("three_wheeler_scene.xml"));
  out.push_back(testing::shipped_model("three_wheeler.urdf", floating));
  const std::string humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  if (std::filesystem::exists(humanoid)) {
    Expected<Model> m = load_model(humanoid);
    if (m) out.push_back(std::move(*m));
  }
  return out;
}

// A random joint state near the reference: hinge and slide offsets, ball and free rotations.
void random_state(const Model& m, std::mt19937& rng, std::vector<double>& qpos,
                  std::vector<double>& qvel) {
  std::uniform_real_distribution<double> u(-0.8, 0.8);
  qpos = m.qpos0;
  qvel.assign(m.nv, 0.0);
  for (double& v : qvel) v = u(rng);
  for (int j = 0; j < m.njnt; ++j) {
    const int a = m.jnt_qposadr[j];
    switch (m.jnt_type[j]) {
      case JointType::Hinge:
      case JointType::Slide:
        qpos[a] += u(rng);
        break;
      case JointType::Free: {
        for (int i = 0; i < 3; ++i) qpos[a + i] += u(rng);
        const Quat r = Quat(Eigen::AngleAxisd(u(rng), Vec3(u(rng), u(rng), 1).normalized()));
        qpos[a + 3] = r.w(), qpos[a + 4] = r.x(), qpos[a + 5] = r.y(), qpos[a + 6] = r.z();
        break;
      }
      case JointType::Ball: {
        const Quat r = Quat(Eigen::AngleAxisd(u(rng), Vec3(1, u(rng), u(rng)).normalized()));
        qpos[a] = r.w(), qpos[a + 1] = r.x(), qpos[a + 2] = r.y(), qpos[a + 3] = r.z();
        break;
      }
      default:
        break;
    }
  }
}

// A random joint state (random_state) in maximal coordinates.
runtime::MaximalState random_maximal(const Model& m, std::mt19937& rng, std::vector<double>& qpos,
                                     std::vector<double>& qvel) {
  random_state(m, rng, qpos, qvel);
  Expected<runtime::MaximalState> s = runtime::maximal_from_joint(m, qpos, qvel);
  REQUIRE(s.ok());
  return *s;
}

}  // namespace

TEST_CASE("the joint-coordinate reference maps to the model's reference pose",
          "[runtime][joints]") {
  for (const Model& m : models_with_joints()) {
    INFO(m.name);
    Expected<runtime::MaximalState> s = runtime::maximal_from_joint(m, m.qpos0);
    REQUIRE(s.ok());
    const std::vector<double> reference = ir::reference_configuration(m);
    for (std::size_t i = 0; i < reference.size(); ++i)
      CHECK(s->q[i] == Approx(reference[i]).margin(1e-12));
    for (double v : s->u) CHECK(v == 0);
  }
}

TEST_CASE("joint states survive the round trip through maximal coordinates", "[runtime][joints]") {
  std::mt19937 rng(7);
  for (const Model& m : models_with_joints()) {
    INFO(m.name);
    for (int sample = 0; sample < 5; ++sample) {
      std::vector<double> qpos, qvel;
      const runtime::MaximalState s = random_maximal(m, rng, qpos, qvel);
      const runtime::JointState back = runtime::joint_from_maximal(m, s.q, s.u, qpos);
      for (int j = 0; j < m.njnt; ++j) {
        INFO("joint " << m.jnt_name[j]);
        const int a = m.jnt_qposadr[j];
        const int n = m.jnt_type[j] == JointType::Free   ? 7
                      : m.jnt_type[j] == JointType::Ball ? 4
                                                         : 1;
        const double sign = n == 4 && back.qpos[a] * qpos[a] < 0 ? -1 : 1;  // q and −q: one turn
        for (int i = 0; i < n; ++i)
          CHECK(sign * back.qpos[a + i] == Approx(qpos[a + i]).margin(1e-8));
      }
      for (int d = 0; d < m.nv; ++d) CHECK(back.qvel[d] == Approx(qvel[d]).margin(1e-8));
    }
  }
}

TEST_CASE("maximal velocities are the rates of the maximal positions", "[runtime][joints]") {
  std::mt19937 rng(11);
  for (const Model& m : models_with_joints()) {
    INFO(m.name);
    std::vector<double> qpos, qvel;
    random_maximal(m, rng, qpos, qvel);
    // Hinge and slide coordinates move along qvel directly (free and ball joints integrate
    // differently, so they are left at rest here).
    const double eps = 1e-6;
    std::vector<double> moved = qpos, rates = qvel;
    for (int j = 0; j < m.njnt; ++j) {
      const int a = m.jnt_qposadr[j], d = m.jnt_dofadr[j];
      if (m.jnt_type[j] == JointType::Hinge || m.jnt_type[j] == JointType::Slide) {
        moved[a] += eps * qvel[d];
      } else {
        const int nv = m.jnt_type[j] == JointType::Free ? 6 : 3;
        for (int i = 0; i < nv; ++i) rates[d + i] = 0;
      }
    }
    Expected<runtime::MaximalState> at = runtime::maximal_from_joint(m, qpos, rates);
    Expected<runtime::MaximalState> ahead = runtime::maximal_from_joint(m, moved);
    REQUIRE((at.ok() && ahead.ok()));
    for (int b = 0; b < m.nsim; ++b)
      for (int i = 0; i < 3; ++i)
        CHECK((ahead->q[7 * b + i] - at->q[7 * b + i]) / eps ==
              Approx(at->u[6 * b + i]).margin(1e-5));
  }
}

TEST_CASE("keyframes map to maximal states", "[runtime][joints]") {
  const Model m = testing::shipped_model("sliding_box.xml");
  Expected<runtime::MaximalState> s = runtime::keyframe_state(m, "launched");
  REQUIRE(s.ok());
  CHECK(s->q == std::vector<double>{0, 0, 0.1, 1, 0, 0, 0});
  CHECK(s->u == std::vector<double>{2, 0, 0, 0, 0, 0});
  Expected<runtime::MaximalState> missing = runtime::keyframe_state(m, "nope");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.diagnostics().format().find("no keyframe named 'nope'") != std::string::npos);
  CHECK_FALSE(runtime::maximal_from_joint(m, {0, 0, 0}).ok());
}

TEST_CASE("hinge angles keep counting turns when tracked", "[runtime][joints]") {
  const Model m = testing::shipped_model("double_pendulum.urdf");
  std::vector<double> previous = m.qpos0;
  for (double angle = 0; angle < 20; angle += 0.5) {
    Expected<runtime::MaximalState> s = runtime::maximal_from_joint(m, {angle, -angle});
    REQUIRE(s.ok());
    previous = runtime::joint_from_maximal(m, s->q, s->u, previous).qpos;
    CHECK(previous[0] == Approx(angle).margin(1e-9));
    CHECK(previous[1] == Approx(-angle).margin(1e-9));
  }
}

// A simulated pose meets its joints only to the solver's tolerance: decomposed, it gives the
// coordinates nearest it (a nudge of 1e-9 m moves them by about as much), and the positions
// alone are the full decomposition's.
TEST_CASE("a pose slightly off its joints decomposes to the nearest coordinates",
          "[runtime][joints]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> nudge(-1e-9, 1e-9);
  for (const Model& m : models_with_joints()) {
    INFO(m.name);
    std::vector<double> qpos, qvel;
    const runtime::MaximalState s = random_maximal(m, rng, qpos, qvel);
    std::vector<double> off = s.q;
    for (int b = 0; b < m.nsim; ++b)
      for (int i = 0; i < 3; ++i) off[7 * b + i] += nudge(rng);
    const runtime::JointState back = runtime::joint_from_maximal(m, off, s.u, qpos);
    CHECK(runtime::joint_positions_from_maximal(m, off, qpos) == back.qpos);
    for (int j = 0; j < m.njnt; ++j)
      if (m.jnt_type[j] == JointType::Hinge || m.jnt_type[j] == JointType::Slide) {
        INFO("joint " << m.jnt_name[j]);
        CHECK(back.qpos[m.jnt_qposadr[j]] == Approx(qpos[m.jnt_qposadr[j]]).margin(1e-7));
      }
  }
}

}  // namespace talon
