// Model: the compiled, immutable description of a robot (like MuJoCo's mjModel).
//
// Plain structure of arrays; every array's shape is in its comment. Two views of the
// bodies live side by side:
//   * source bodies: as written in the file (world excluded; MuJoCo's nbody - 1), used
//     for reporting and for comparison with MuJoCo;
//   * simulated bodies ("sim bodies"): the rigid bodies left after welding every body
//     without a moving joint (URDF fixed joints, MJCF bodies without joints) into its
//     parent. Maximal-coordinate simulation has one pose and one twist per sim body.
// A sim body's frame is the frame of its root source body; its mass, centre of mass and
// inertia combine those of every body welded into it.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "common/math.h"
#include "frontend/spec.h"

namespace talon {

struct Model {
  std::string name;
  std::string source_file;

  // ---- source bodies (as written) ----------------------------------------------------
  int nbody = 0;
  std::vector<std::string> body_name;        // [nbody]
  std::vector<int> body_parent;              // [nbody] source body index, -1 = world
  std::vector<int> body_sim;                 // [nbody] sim body carrying it, -1 = world
  std::vector<Pose> body_pose_world;         // [nbody] frame at the reference config
  std::vector<double> body_mass;             // [nbody]
  std::vector<Vec3> body_com_world;          // [nbody] centre of mass, reference config
  std::vector<Vec3> body_principal_inertia;  // [nbody] eigenvalues of the inertia, ascending

  // ---- simulated bodies --------------------------------------------------------------
  int nsim = 0;
  std::vector<std::string> sim_name;  // [nsim] name of the root source body
  std::vector<int> sim_root_body;     // [nsim] source body whose frame it uses
  std::vector<int> sim_parent;        // [nsim] sim body it hangs from, -1 = world
  std::vector<Pose> sim_pose_rel;     // [nsim] frame in the parent's frame (ref config)
  std::vector<Pose> sim_pose_world;   // [nsim] frame in the world (ref config)
  std::vector<double> sim_mass;       // [nsim] > 0
  std::vector<Vec3> sim_com;          // [nsim] centre of mass, sim frame
  std::vector<Mat3> sim_inertia;      // [nsim] about the COM, sim-frame axes; SPD

  // ---- joints (all of them move sim bodies; fixed joints are gone after welding) --------
  int njnt = 0;
  int nq = 0;                            // joint-coordinate position size (MuJoCo's nq)
  int nv = 0;                            // joint-coordinate velocity size (MuJoCo's nv)
  std::vector<std::string> jnt_name;     // [njnt]
  std::vector<JointType> jnt_type;       // [njnt] never Fixed
  std::vector<int> jnt_sim;              // [njnt] the sim body it moves
  std::vector<int> jnt_qposadr;          // [njnt] first qpos index
  std::vector<int> jnt_dofadr;           // [njnt] first qvel index
  std::vector<Vec3> jnt_pos;             // [njnt] anchor, sim frame of jnt_sim
  std::vector<Vec3> jnt_axis;            // [njnt] unit axis, sim frame of jnt_sim
  std::vector<bool> jnt_limited;         // [njnt]
  std::vector<double> jnt_range;         // [njnt * 2] lower, upper
  std::vector<double> jnt_damping;       // [njnt]
  std::vector<double> jnt_stiffness;     // [njnt]
  std::vector<double> jnt_springref;     // [njnt]
  std::vector<double> jnt_armature;      // [njnt]
  std::vector<double> jnt_frictionloss;  // [njnt]
  std::vector<std::string> jnt_mimic;    // [njnt] URDF mimic target ("" = none)
  std::vector<double> qpos0;             // [nq] reference configuration

  // Joint-type census of the file, fixed joints included (for reports).
  int njnt_fixed = 0;

  // ---- geoms ---------------------------------------------------------------------------
  int ngeom = 0;
  std::vector<std::string> geom_name;       // [ngeom]
  std::vector<GeomType> geom_type;          // [ngeom]
  std::vector<int> geom_sim;                // [ngeom] sim body, -1 = world (static)
  std::vector<int> geom_body;               // [ngeom] source body, -1 = world
  std::vector<Vec3> geom_size;              // [ngeom] MuJoCo's size convention (spec.h)
  std::vector<Pose> geom_pose;              // [ngeom] in the sim frame (world if static)
  std::vector<Vec3> geom_friction;          // [ngeom] sliding, torsional, rolling
  std::vector<int> geom_contype;            // [ngeom]
  std::vector<int> geom_conaffinity;        // [ngeom]
  std::vector<int> geom_condim;             // [ngeom]
  std::vector<int> geom_priority;           // [ngeom] (contact_condim, contact_friction_geoms)
  std::vector<std::string> geom_mesh_file;  // [ngeom] "" unless a mesh
  std::vector<Vec3> geom_mesh_scale;        // [ngeom]
  std::vector<std::vector<Vec3>> geom_hull_vertices;  // [ngeom] GeomSpec::hull_vertices
  // [ngeom] a terrain's triangles in the world frame (its pose applied); empty otherwise.
  std::vector<mesh::TriangleMesh> geom_terrain;

  // ---- actuators (joint transmission) ---------------------------------------------------
  int nu = 0;
  std::vector<std::string> act_name;    // [nu]
  std::vector<ActuatorType> act_type;   // [nu]
  std::vector<int> act_joint;           // [nu]
  std::vector<double> act_gear;         // [nu]
  std::vector<double> act_gain;         // [nu]
  std::vector<double> act_bias;         // [nu * 3]
  std::vector<bool> act_ctrl_limited;   // [nu]
  std::vector<double> act_ctrl_range;   // [nu * 2]
  std::vector<bool> act_force_limited;  // [nu]
  std::vector<double> act_force_range;  // [nu * 2]

  // ---- keyframes -------------------------------------------------------------------------
  int nkey = 0;
  std::vector<std::string> key_name;  // [nkey]
  std::vector<double> key_qpos;       // [nkey * nq]
  std::vector<double> key_qvel;       // [nkey * nv]
  std::vector<double> key_ctrl;       // [nkey * nu]

  // ---- contact filters -------------------------------------------------------------------
  std::vector<std::pair<int, int>> exclude_sim_pairs;  // [nexclude] sim body pairs, i <= j

  // ---- options ---------------------------------------------------------------------------
  double timestep = 0.002;
  Vec3 gravity{0, 0, -9.81};

  // Notes from reading and compiling (formatted "file:line: note: ...").
  std::vector<std::string> notes;

  double total_mass() const;
  int find_body(const std::string& name) const;      // -1 if absent
  int find_joint(const std::string& name) const;     // -1 if absent
  int find_actuator(const std::string& name) const;  // -1 if absent
  int find_keyframe(const std::string& name) const;  // -1 if absent
};

// MuJoCo's rule for the parameters of a contact between geoms a and b: the geom with the
// higher priority sets them; at equal priority condim is the larger of the two and the
// friction coefficient the larger of the two.
int contact_condim(const Model& m, int a, int b);
// The geoms whose friction coefficients enter the pair's max: {a, b} at equal priority, else
// the higher-priority geom twice.
std::array<int, 2> contact_friction_geoms(const Model& m, int a, int b);

// The principal moments (ascending) of a body inertia about its centre of mass.
Vec3 principal_moments(const Mat3& inertia);
// Whether principal moments make an inertia positive definite as every simulated body's must
// be: the smallest above 1e-14 of the largest (of 1 kg·m² for smaller ones), so that rounding
// of a degenerate inertia does not pass.
bool positive_definite_moments(const Vec3& moments);

}  // namespace talon
