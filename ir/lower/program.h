// ResidualProgram: a Model lowered to the residual of one backward-Euler step, in
// maximal coordinates and impulse form, plus the derivative kernels the runtime needs.
//
// Unknowns and data of one step (the `Var` inputs every kernel takes, in this order):
//   q_minus [7·nsim]  per sim body: x (world position of its centre of mass), then the
//                     quaternion (w, x, y, z) of its sim frame
//   u_minus [6·nsim]  per sim body: v (COM velocity, world), ω (angular velocity, world)
//   u_plus  [6·nsim]  the same at the end of the step (unknown)
//   lambda  [nrows]   constraint impulses (impulse = force·h), one per constraint row
//   ctrl    [nu]      actuator controls
//   params  [nparam]  physical parameters θ (empty when LowerOptions::fold_params)
//   h       [1]       the step
//   terrain [18·nprobe] per terrain probe: where it was queried, the terrain's tangent plane
//                     there (point, unit normal) and the normal's rate of turn with the geom's
//                     centre (TerrainProbe), filled by the solver's terrain query at the
//                     substep's start and at the solution's end (codegen/solver/talon_newton.h)
//   q_choose [7·nsim] a pose like q_minus at which the colliders that choose features
//                     (contact_geometry.h: separating axes, reference and incident faces,
//                     clipped vertices, a hull's nearest feature) make their choices: the
//                     substep's start at first, then the solution's end pose until the
//                     choices hold there (talon_newton.h, talon_settle). Only conditions read
//                     it: every kernel's derivative with respect to it is zero
// Residual layout (the stacked r = [r_dyn; r_con]):
//   r_dyn   [6·nsim]  M̃(u⁺ − ũ) − Σ Jᵀλ, per body: 3 linear, 3 angular rows
//   r_con   [nrows]   constraint rows, every one in velocity units, blocks in the order
//                     joint, limit, contact_normal, friction, servo (see `blocks`)
// Constraint row i's impulse is lambda[i].
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/math.h"
#include "ir/expr.h"
#include "ir/function.h"

namespace talon::ir {

enum class RowKind { Joint, Limit, ContactNormal, Friction, Servo };
const char* row_kind_name(RowKind kind);  // "joint", "limit", "contact_normal", ...

// A named range of the stacked residual [r_dyn; r_con]: `dynamics` is [0, 6·nsim); the
// constraint blocks follow (a constraint block's lambda indices are begin - 6·nsim ...).
struct RowBlock {
  std::string name;
  int begin = 0, end = 0;
  int size() const { return end - begin; }
};

// What one constraint row means (indices are Model indices; -1 = not applicable / world).
struct ConstraintRowInfo {
  RowKind kind = RowKind::Joint;
  int body = -1;      // sim body the row acts on (the child / second geom's body)
  int other = -1;     // the other sim body (parent / first geom's body), -1 = world
  int joint = -1;     // Joint, Limit, Servo (passive spring rows too)
  int actuator = -1;  // Servo rows of actuators
  int slot = -1;      // ContactNormal, Friction: index into ResidualProgram::slots
  std::string label;  // e.g. "hinge 'knee' axis 1", "limit 'knee' lower"
};

// A fixed contact slot of a geom pair: FB makes its impulse zero when it is not touching.
struct ContactSlot {
  int geom_a = -1, geom_b = -1;  // normal points from geom_a to geom_b
  std::string kind;              // e.g. "plane-box corner 5"
  int normal_row = -1;           // constraint row (lambda index)
  int friction_row = -1;         // first of two friction rows, -1 when frictionless
  int friction_index = -1;       // index into the friction weights W, -1 when frictionless
  bool chooses = false;          // its collider chooses features at q_choose (contact_geometry.h)
};

// A geom standing on a terrain. It stands on the tangent plane of the terrain's smooth (C¹)
// surface (codegen/solver/talon_terrain_patch.h) under its centre's foot
// (codegen/solver/talon_terrain.h, talon_terrain_plane). The generated code's terrain query
// evaluates that plane at the geom's centre c_q (`offset` from its sim body's centre of
// mass, in the sim frame) and the normal's rate of turn with the centre there, and writes
// them to the kInputs `terrain` inputs from `input`; the step carries the plane to the geom's
// pose to second order in the distance (ir/lower/contacts.cpp, terrain_plane). The query
// runs at the substep's start and again at the solution's end until the plane under the
// geom stays put (codegen/solver/talon_newton.h, talon_settle).
struct TerrainProbe {
  // c_q, point, unit normal, ∂normal/∂c (3×3 symmetric, row-major), world frame
  static constexpr int kInputs = 18;

  int geom = -1;          // the geom on the terrain
  int terrain_geom = -1;  // the terrain
  int sim_body = -1;      // the geom's sim body
  Vec3 offset = Vec3::Zero();
  double reach = 0;  // the geom's largest distance from its centre (how far a tilt moves it)
  int input = 0;     // index of its first entry in `terrain`
};

struct ParamInfo {
  std::string name;  // "mass:torso", "friction:floor", "gain:hip", "joint_compliance:shin"
  double value = 0;  // the Model's value (the default)
};

// A contiguous group of a kernel's inputs or outputs.
struct Slice {
  std::string name;
  int offset = 0, size = 0;
};

struct Kernel {
  Function function;
  std::vector<Slice> inputs;   // in Function::inputs order
  std::vector<Slice> outputs;  // in Function::outputs order
  const Slice* input(const std::string& name) const;
  const Slice* output(const std::string& name) const;
  // Appends a named group to the function's inputs (Var exprs) or outputs.
  void add_input(const std::string& name, const std::vector<Expr>& values);
  void add_output(const std::string& name, const std::vector<Expr>& values);
};

struct KernelStats {
  std::string name;
  std::size_t dag_nodes = 0;     // distinct nodes the outputs depend on (after CSE)
  double tree_nodes = 0;         // nodes if every shared subexpression were copied (before CSE)
  std::size_t instructions = 0;  // scheduled SSA instructions
};

struct LowerStats {
  double build_seconds = 0;          // lowering + every kernel's derivation and scheduling
  std::size_t graph_nodes = 0;       // nodes in the program's graph
  std::vector<KernelStats> kernels;  // empty unless LowerOptions::kernel_stats
  std::vector<RowBlock> blocks;      // rows per block (copy of ResidualProgram::blocks)
  int contact_pairs = 0;             // geom pairs with slots
  int skipped_pairs = 0;             // allowed pairs without a symbolic collider (see notes)
  std::size_t instructions() const;  // summed over `kernels`
};

struct PairTemplates;  // ir/lower/pair_templates.h

struct ResidualProgram {
  std::unique_ptr<Graph> graph;  // owns every Expr below

  int nsim = 0, nrows = 0, nu = 0, nfriction = 0;
  // ε² of the complementarity rows' smoothing (LowerOptions::fb_epsilon_sq, (m/s)²).
  double fb_epsilon_sq = 0;
  // Inputs (Var exprs of `graph`).
  std::vector<Expr> q_minus, u_minus, u_plus, lambda, ctrl, params;
  Expr h;
  std::vector<Expr> terrain;   // [TerrainProbe::kInputs · terrain_probes.size()]
  std::vector<Expr> q_choose;  // [7·nsim]
  // A per-type template's instance constants (kernel group "constants": a pair's geom
  // placements, a joint set's anchors and axes; ir/lower/pair_templates.h); empty for a model.
  std::vector<Expr> instance_inputs;
  // Extra inputs of some kernels.
  std::vector<Expr> friction_w;                 // [nfriction] frozen W (jhat, c_diag, diag_a)
  std::vector<Expr> tangent_u, tangent_lambda;  // jvp_exact, jvp_tangent
  std::vector<Expr> jvp_cache;  // a template's jvp_tangent: what jvp_primal computes
  std::vector<Expr> cotangent_dyn, cotangent_con;  // vjp_exact, vjp_inputs
  std::vector<Expr> cotangent_q;                   // vjp_q_plus

  std::vector<ParamInfo> param_info;    // [nparam] (listed even when folded)
  std::vector<RowBlock> blocks;         // dynamics, joint, limit, contact_normal, friction, servo
  std::vector<ConstraintRowInfo> rows;  // [nrows]
  std::vector<ContactSlot> slots;
  std::vector<TerrainProbe> terrain_probes;
  std::vector<double> reference_q;  // [7·nsim] the Model's reference configuration
  // Structural non-zeros of jhat (row = constraint row, col = u_plus index), the order of
  // the jhat kernel's outputs.
  std::vector<int> jhat_row, jhat_col;

  // Kernels: residual, residual_frozen_w, jhat, c_diag, mass, diag_a, jvp_exact, vjp_exact,
  // vjp_inputs, vjp_q_plus (see lower.h for their outputs).
  std::vector<Kernel> kernels;
  const Kernel& kernel(const std::string& name) const;       // asserts it exists
  const Kernel* find_kernel(const std::string& name) const;  // nullptr when it does not

  std::vector<std::string> notes;  // what was approximated or left out, one line each
  LowerStats stats;

  // With LowerOptions::pair_templates: the per-type templates of the primitive contact pairs
  // and their instances. The kernels above hold zeros at those pairs' rows (and their Ĵ
  // entries, appended to the pattern); each kernel's values are theirs plus every instance's
  // share (add_pair_instances). Null when every row is in the kernels.
  std::shared_ptr<const PairTemplates> pairs;

  int ndyn() const { return 6 * nsim; }
  const RowBlock* block(const std::string& name) const;
  // Every parameter's index by its name (ParamInfo::name): how a template's instance finds
  // the program's parameters.
  std::map<std::string, int> param_indices() const;
};

}  // namespace talon::ir
