// Differential test of the MJCF reader against MuJoCo 2.2.2 (libmujoco), the oracle.
//
// Every sample model of libmujoco-samples (/usr/share/mujoco/model), every MJCF model Talon
// ships and the feature models of tests/data/mjcf/good are loaded by both. Talon either
// refuses a sample with an "unsupported" error (it uses features Talon does not simulate)
// or must agree with MuJoCo on
//   * structure: bodies in MuJoCo's order with the same names and parents, qpos0;
//   * joints: type, addresses, anchor, axis, limits, stiffness, damping, armature,
//     friction loss, spring reference;
//   * geoms: body, sizes, friction, contact bits and world pose at qpos0;
//   * actuators, keyframes, timestep and gravity;
//   * every body's mass, centre of mass at qpos0 and principal moments of inertia,
// to 1e-9 relative (1e-12 absolute floor).
#include <mujoco/mujoco.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "frontend/load.h"

namespace {

namespace fs = std::filesystem;

const char* const kSampleDir = "/usr/share/mujoco/model";

bool close(double a, double b, double relative = 1e-9) {
  return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b)) + 1e-12;
}

// MuJoCo keeps mesh vertices in single precision (mjModel::mesh_vert is float*) and computes
// a mesh geom's mass properties from them: a body with a mesh geom agrees to float's
// round-off, not double's.
constexpr double kFloatVertexRelative = 1e-6;

bool has_mesh_geom(const mjModel* m, int mujoco_body) {
  for (int g = 0; g < m->ngeom; ++g)
    if (m->geom_bodyid[g] == mujoco_body && m->geom_type[g] == mjGEOM_MESH) return true;
  return false;
}

struct MujocoModel {
  std::unique_ptr<mjModel, decltype(&mj_deleteModel)> model{nullptr, mj_deleteModel};
  std::unique_ptr<mjData, decltype(&mj_deleteData)> data{nullptr, mj_deleteData};
  std::string error;
};

// Loads with MuJoCo and runs mj_forward at qpos0 (so xipos holds the world COMs).
MujocoModel load_with_mujoco(const std::string& path) {
  MujocoModel result;
  char error[1000] = "";
  result.model.reset(mj_loadXML(path.c_str(), nullptr, error, sizeof(error)));
  if (!result.model) {
    result.error = error;
    return result;
  }
  result.data.reset(mj_makeData(result.model.get()));
  mj_forward(result.model.get(), result.data.get());
  return result;
}

template <class Iterator>
std::vector<std::string> xml_files(Iterator entries) {
  std::vector<std::string> files;
  for (const auto& entry : entries)
    if (entry.is_regular_file() && entry.path().extension() == ".xml")
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> xml_files_under(const std::string& dir) {
  return xml_files(fs::recursive_directory_iterator(dir));
}

std::vector<std::string> xml_files_in(const std::string& dir) {
  return xml_files(fs::directory_iterator(dir));
}

std::string name_or_empty(const mjModel* m, mjtObj type, int id) {
  const char* name = mj_id2name(m, type, id);
  return name ? name : "";
}

void check_close(const char* what, double talon_value, double mujoco_value) {
  INFO(what << ": talon " << talon_value << " mujoco " << mujoco_value);
  CHECK(close(talon_value, mujoco_value));
}

void compare_counts_and_bodies(const mjModel* m, const talon::Model& t) {
  REQUIRE(t.nbody == m->nbody - 1);
  REQUIRE(t.njnt == m->njnt);
  REQUIRE(t.ngeom == m->ngeom);
  REQUIRE(t.nu == m->nu);
  REQUIRE(t.nkey == m->nkey);
  REQUIRE(t.nq == m->nq);
  REQUIRE(t.nv == m->nv);
  for (int b = 0; b < t.nbody; ++b) {
    CHECK(t.body_name[b] == name_or_empty(m, mjOBJ_BODY, b + 1));
    CHECK(t.body_parent[b] == m->body_parentid[b + 1] - 1);
  }
  for (int i = 0; i < m->nq; ++i) check_close("qpos0", t.qpos0[i], m->qpos0[i]);
}

talon::JointType mujoco_joint_type(int type) {
  switch (type) {
    case mjJNT_FREE:
      return talon::JointType::Free;
    case mjJNT_BALL:
      return talon::JointType::Ball;
    case mjJNT_SLIDE:
      return talon::JointType::Slide;
    default:
      return talon::JointType::Hinge;
  }
}

// Joints move bodies that root their own sim body, so the sim frame is the body frame.
void compare_joints(const mjModel* m, const talon::Model& t) {
  for (int j = 0; j < t.njnt; ++j) {
    INFO("joint " << j << " '" << t.jnt_name[j] << "'");
    CHECK(t.jnt_name[j] == name_or_empty(m, mjOBJ_JOINT, j));
    CHECK(t.jnt_type[j] == mujoco_joint_type(m->jnt_type[j]));
    CHECK(t.jnt_qposadr[j] == m->jnt_qposadr[j]);
    CHECK(t.jnt_dofadr[j] == m->jnt_dofadr[j]);
    CHECK(t.jnt_limited[j] == (m->jnt_limited[j] != 0));
    const int dof = m->jnt_dofadr[j];
    for (int k = 0; k < 3; ++k) {
      check_close("jnt_pos", t.jnt_pos[j][k], m->jnt_pos[3 * j + k]);
      check_close("jnt_axis", t.jnt_axis[j][k], m->jnt_axis[3 * j + k]);
    }
    if (m->jnt_limited[j])
      for (int k = 0; k < 2; ++k)
        check_close("jnt_range", t.jnt_range[2 * j + k], m->jnt_range[2 * j + k]);
    check_close("stiffness", t.jnt_stiffness[j], m->jnt_stiffness[j]);
    check_close("damping", t.jnt_damping[j], m->dof_damping[dof]);
    check_close("armature", t.jnt_armature[j], m->dof_armature[dof]);
    check_close("frictionloss", t.jnt_frictionloss[j], m->dof_frictionloss[dof]);
    if (m->jnt_type[j] == mjJNT_HINGE || m->jnt_type[j] == mjJNT_SLIDE)
      check_close("springref", t.jnt_springref[j], m->qpos_spring[m->jnt_qposadr[j]]);
  }
}

// Geom sizes, contact parameters and world poses (at qpos0) of every non-mesh geom
// (MuJoCo re-centres mesh geoms on the mesh's inertial frame).
void compare_geoms(const mjModel* m, const mjData* d, const talon::Model& t) {
  for (int g = 0; g < t.ngeom; ++g) {
    INFO("geom " << g << " '" << t.geom_name[g] << "'");
    CHECK(t.geom_body[g] == m->geom_bodyid[g] - 1);
    CHECK(t.geom_contype[g] == m->geom_contype[g]);
    CHECK(t.geom_conaffinity[g] == m->geom_conaffinity[g]);
    CHECK(t.geom_condim[g] == m->geom_condim[g]);
    CHECK(t.geom_priority[g] == m->geom_priority[g]);
    for (int k = 0; k < 3; ++k)
      check_close("friction", t.geom_friction[g][k], m->geom_friction[3 * g + k]);
    if (m->geom_type[g] == mjGEOM_MESH) continue;
    for (int k = 0; k < 3; ++k) check_close("size", t.geom_size[g][k], m->geom_size[3 * g + k]);
    const int sim = t.geom_sim[g];
    const talon::Pose world = sim < 0 ? t.geom_pose[g] : t.sim_pose_world[sim] * t.geom_pose[g];
    const talon::Mat3 rotation = world.quat.normalized().toRotationMatrix();
    for (int k = 0; k < 3; ++k) {
      check_close("geom world position", world.pos[k], d->geom_xpos[3 * g + k]);
      for (int c = 0; c < 3; ++c)
        check_close("geom world rotation", rotation(k, c), d->geom_xmat[9 * g + 3 * k + c]);
    }
  }
}

// Talon's affine bias acts on q and qdot, MuJoCo's on gear * q and gear * qdot.
void compare_actuators(const mjModel* m, const talon::Model& t) {
  for (int u = 0; u < t.nu; ++u) {
    INFO("actuator " << u << " '" << t.act_name[u] << "'");
    CHECK(t.act_name[u] == name_or_empty(m, mjOBJ_ACTUATOR, u));
    CHECK(t.act_joint[u] == m->actuator_trnid[2 * u]);
    const double gear = m->actuator_gear[6 * u];
    check_close("gear", t.act_gear[u], gear);
    check_close("gain", t.act_gain[u], m->actuator_gainprm[mjNGAIN * u]);
    const bool affine = m->actuator_biastype[u] == mjBIAS_AFFINE;
    const double* bias = m->actuator_biasprm + mjNBIAS * u;
    check_close("bias0", t.act_bias[3 * u], affine ? bias[0] : 0);
    check_close("bias1", t.act_bias[3 * u + 1], affine ? bias[1] * gear : 0);
    check_close("bias2", t.act_bias[3 * u + 2], affine ? bias[2] * gear : 0);
    CHECK(t.act_ctrl_limited[u] == (m->actuator_ctrllimited[u] != 0));
    CHECK(t.act_force_limited[u] == (m->actuator_forcelimited[u] != 0));
    for (int k = 0; k < 2; ++k) {
      if (m->actuator_ctrllimited[u])
        check_close("ctrlrange", t.act_ctrl_range[2 * u + k], m->actuator_ctrlrange[2 * u + k]);
      if (m->actuator_forcelimited[u])
        check_close("forcerange", t.act_force_range[2 * u + k], m->actuator_forcerange[2 * u + k]);
    }
  }
}

void compare_keyframes(const mjModel* m, const talon::Model& t) {
  for (int k = 0; k < t.nkey; ++k) {
    INFO("keyframe " << k << " '" << t.key_name[k] << "'");
    CHECK(t.key_name[k] == name_or_empty(m, mjOBJ_KEY, k));
    for (int i = 0; i < m->nq; ++i)
      check_close("qpos", t.key_qpos[k * m->nq + i], m->key_qpos[k * m->nq + i]);
    for (int i = 0; i < m->nv; ++i)
      check_close("qvel", t.key_qvel[k * m->nv + i], m->key_qvel[k * m->nv + i]);
    for (int i = 0; i < m->nu; ++i)
      check_close("ctrl", t.key_ctrl[k * m->nu + i], m->key_ctrl[k * m->nu + i]);
  }
}

void compare_options(const mjModel* m, const talon::Model& t) {
  check_close("timestep", t.timestep, m->opt.timestep);
  for (int k = 0; k < 3; ++k) check_close("gravity", t.gravity[k], m->opt.gravity[k]);
}

void compare_mass_properties(const mjModel* m, const mjData* d, const talon::Model& t) {
  CHECK(close(t.total_mass(), mj_getTotalmass(m), m->nmesh > 0 ? kFloatVertexRelative : 1e-9));
  for (int b = 0; b < t.nbody; ++b) {
    const int mb = b + 1;
    INFO("body " << b << " '" << t.body_name[b] << "'");
    const double relative = has_mesh_geom(m, mb) ? kFloatVertexRelative : 1e-9;
    INFO("mass: talon " << t.body_mass[b] << " mujoco " << m->body_mass[mb]);
    CHECK(close(t.body_mass[b], m->body_mass[mb], relative));
    // A massless body's "centre of mass" is a convention (MuJoCo puts it at the body's
    // offset from its parent), not physics.
    if (m->body_mass[mb] > 0)
      for (int k = 0; k < 3; ++k) {
        INFO("com[" << k << "] talon " << t.body_com_world[b][k] << " mujoco "
                    << d->xipos[3 * mb + k]);
        CHECK(close(t.body_com_world[b][k], d->xipos[3 * mb + k], relative));
      }
    std::vector<double> expected(m->body_inertia + 3 * mb, m->body_inertia + 3 * mb + 3);
    std::sort(expected.begin(), expected.end());
    for (int k = 0; k < 3; ++k) {
      INFO("principal inertia[" << k << "] talon " << t.body_principal_inertia[b][k] << " mujoco "
                                << expected[static_cast<std::size_t>(k)]);
      CHECK(close(t.body_principal_inertia[b][k], expected[static_cast<std::size_t>(k)], relative));
    }
  }
}

enum class Outcome { Compared, Unsupported, MujocoRejects };

std::string first_error(const talon::Diagnostics& diag) {
  for (const talon::Diagnostic& d : diag.items())
    if (d.severity == talon::Severity::Error) return d.format();
  return {};
}

// Loads `path` with both; compares, or checks that Talon's refusal says "unsupported".
// MuJoCo (slow on the big composite samples) is only asked when its answer matters.
Outcome compare_file(const std::string& path, bool talon_must_load) {
  INFO("model " << path);
  const talon::Expected<talon::Model> talon_model = talon::load_model(path);
  const std::string errors = talon_model.diagnostics().format();
  const bool unsupported = !talon_model && errors.find("unsupported") != std::string::npos;
  if (!talon_model && unsupported && !talon_must_load) {
    std::cout << "  unsupported: " << path << "\n    " << first_error(talon_model.diagnostics())
              << "\n";
    return Outcome::Unsupported;
  }
  const MujocoModel mujoco = load_with_mujoco(path);
  if (!mujoco.model) {
    // Not a model on its own (a file meant to be included): both must refuse it.
    std::cout << "  MuJoCo cannot load " << path << " alone: " << mujoco.error << "\n";
    CHECK_FALSE(talon_must_load);
    CHECK_FALSE(talon_model.ok());
    return Outcome::MujocoRejects;
  }
  INFO(errors);
  REQUIRE(talon_model.ok());
  const mjModel* m = mujoco.model.get();
  const mjData* d = mujoco.data.get();
  compare_counts_and_bodies(m, *talon_model);
  compare_joints(m, *talon_model);
  compare_geoms(m, d, *talon_model);
  compare_actuators(m, *talon_model);
  compare_keyframes(m, *talon_model);
  compare_options(m, *talon_model);
  compare_mass_properties(m, d, *talon_model);
  std::cout << "  compared: " << path << " (" << talon_model->nbody << " bodies)\n";
  return Outcome::Compared;
}

}  // namespace

// docs/status.md names the oracle's version: the library these tests load must be it.
TEST_CASE("the oracle is MuJoCo 2.2.2", "[mujoco]") {
  CHECK(mjVERSION_HEADER == 222);
  CHECK(mj_version() == 222);
}

TEST_CASE("MJCF reader agrees with MuJoCo 2.2.2 on its sample models", "[mujoco][mjcf]") {
  INFO("the MuJoCo samples (package libmujoco-samples) must be installed at " << kSampleDir);
  REQUIRE(fs::is_directory(kSampleDir));
  std::cout << "MuJoCo sample models:\n";
  std::vector<std::string> compared;
  for (const std::string& path : xml_files_under(kSampleDir))
    if (compare_file(path, false) == Outcome::Compared)
      compared.push_back(fs::path(path).filename().string());
  for (const char* required : {"humanoid.xml", "22_humanoids.xml", "humanoid100.xml"}) {
    INFO("required sample " << required);
    CHECK(std::find(compared.begin(), compared.end(), required) != compared.end());
  }
}

// Every file must load in both and agree; returns how many did.
int compare_all(const std::vector<std::string>& paths) {
  int compared = 0;
  for (const std::string& path : paths) {
    const bool agreed = compare_file(path, true) == Outcome::Compared;
    CHECK(agreed);
    compared += agreed ? 1 : 0;
  }
  return compared;
}

TEST_CASE("Talon's shipped MJCF models agree with MuJoCo 2.2.2", "[mujoco][mjcf]") {
  std::cout << "Shipped MJCF models:\n";
  // sphere_drop, sliding_box, box_stack, three_wheeler_scene
  CHECK(compare_all(xml_files_in(TALON_MODELS_DIR)) >= 4);
}

// Small models exercising orientations, euler sequences, fromto, inertia rules, defaults,
// actuator shortcuts, keyframes and includes (tests/data/mjcf/good; parts/ holds files
// that are only included).
TEST_CASE("MJCF feature models agree with MuJoCo 2.2.2", "[mujoco][mjcf]") {
  std::cout << "MJCF feature models:\n";
  CHECK(compare_all(xml_files_in(TALON_TEST_DATA_DIR "/mjcf/good")) >= 6);
}
