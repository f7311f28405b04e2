// The state shared by the lowering passes (internal to ir/lower/).
//
// Each pass (state, joints, limits, contacts, servos, dynamics, kernels) reads the Model
// and appends to the context: symbolic body frames, constraint rows with their impulses,
// applied joint forces. lower.cpp runs them in block order so every block's rows are
// contiguous.
#pragma once

#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "frontend/model.h"
#include "ir/lower/lower.h"
#include "ir/lower/symbolic.h"

namespace talon::ir::lower {

// Which end of the step a symbolic quantity is evaluated at; Choose: the pose at which
// colliders make their discrete choices (q_choose, ResidualProgram).
enum class Time { Minus, Plus, Choose };

// The symbolic pose of a sim body (or of the world) at one instant.
struct Frame {
  V3 com;                         // world position of the centre of mass
  Q4 quat;                        // unit quaternion of the sim frame
  M3 rot;                         // its rotation matrix
  Vec3 com_local = Vec3::Zero();  // centre of mass in the sim frame (constant)

  V3 point(const Vec3& p_local) const;  // world position of a sim-frame point
  V3 direction(const Vec3& d_local) const;
  // The same for a point given by its offset from the centre of mass, and a direction, in
  // the sim frame as expressions (a template's inputs or a model's constants).
  V3 at(const V3& offset_from_com) const;
  V3 direction(const V3& d_local) const;
};

struct BodyState {
  Frame minus, plus;  // at q⁻ (normalised) and at q⁺(q⁻, u⁺, h)
  Frame choose;       // at q_choose (normalised): where colliders choose their features
  V3 v_minus, w_minus, v_plus, w_plus;
  Expr mass;               // parameter
  M3 inertia_local;        // parameter, about the COM, sim-frame axes
  M3 inertia_world_minus;  // R⁻ I Rᵀ⁻
  M3 inertia_world_inv_minus;
  Expr inv_mass;
};

// One constraint row under construction.
struct Row {
  ConstraintRowInfo info;
  Expr lambda;           // its impulse (a Var)
  Expr residual;         // exact
  Expr residual_frozen;  // with the friction weight W an input (== residual for other rows)
  Expr merit;            // NCP natural-map residual (best-iterate selection)
  // Geometric velocity measure: the row's impulse enters the dynamics as (∂rho/∂u⁺)ᵀ λ.
  // Null for friction rows, whose impulses are added explicitly (see ExplicitImpulse).
  Expr rho;
  Expr fb_scale;        // r of Fischer–Burmeister rows (null otherwise)
  Expr gap;             // the geometric gap g(q⁺) of Fischer–Burmeister rows (null otherwise)
  Expr friction_scale;  // k_t = [J_t M̃⁻¹ J_tᵀ] of friction rows (null otherwise)
};

// The model's values of a geom's GeomInputs.
struct GeomPlacement {
  Vec3 offset;
  Mat3 rot;
  Vec3 size;
};
GeomPlacement geom_placement(const Model& model, int geom);  // state.cpp

// A geom's placement on its sim body and its size, as expressions: the model's constants when a
// model is lowered (build_state), one instance's inputs when a per-type template is
// (pair_templates.cpp; docs/design.md, "Kernels per type").
struct GeomInputs {
  static constexpr int kInputs = 15;  // offset, rot (row-major), size
  V3 offset;  // the geom's centre from its sim body's centre of mass (world: origin), sim frame
  M3 rot;     // the geom's axes in the sim frame (columns)
  V3 size;    // MuJoCo's size convention
};

// A generalised impulse added to r_dyn directly: J_tᵀ λ_t of a friction pair.
struct ExplicitImpulse {
  int body = -1;
  V3 linear, angular;
};

// A generalised force on a joint coordinate, applied at the start of the step (f_ext).
struct JointForce {
  int joint = -1;
  Expr torque;
};

// A joint coordinate as a function of the frames: θ = offset + factor·atan2(y, x) for
// hinges, θ = offset + s for slides.
struct Coordinate {
  bool angular = true;
  Expr y, x;
  double factor = 1;
  Expr s;
  Expr offset;  // the joint's qpos0
  Expr value() const;
};

// What a joint set's rows read of the model besides the bodies' state and the parameters, as
// expressions: the model's numbers when a model is lowered (build_joint_sets), one instance's
// inputs when a per-type template is (docs/design.md, "Kernels per type"). Points are offsets
// from a body's centre of mass; "parent" vectors are in the parent's sim frame (the world's
// for a body on the world), already carried through the child's reference pose F0
// (joint_sets.cpp), the others in the child's sim frame, which is F0's axes.
struct JointSetInputs {
  Q4 rel_quat;  // F0's orientation in the parent's frame
  V3 anchor_child, anchor_parent;
  V3 anchor2_child;             // skew: the second hinge's anchor
  V3 skew_coefficients;         // skew: JointSet::skew_coefficients
  std::vector<V3> axes;         // the hinge axes in order, or the planar normal (child frame)
  std::vector<V3> axes_parent;  // the same in the parent's frame
  // One hinge or planar: the two directions ⟂ the axis (orthogonal_complement), parent frame.
  std::vector<V3> axis_normals_parent;
  V3 e3;                             // two or three hinges: a₁ × a₂
  Expr axes_dot;                     // two hinges: a₁ · a₂
  std::vector<V3> position_normals;  // JointSet::position_normals in the slides' frame
  std::vector<V3> slide_duals;       // JointSet::slide_duals in the slides' frame
};

// A hinge's or slide's numbers as expressions (as JointSetInputs).
struct JointInputs {
  Expr qpos0, lower, upper, springref;
};

// An actuator's numbers as expressions (as JointSetInputs).
struct ActuatorInputs {
  Expr gear, ctrl_lower, ctrl_upper, force_lower, force_upper;
};

// How a sim body's joints constrain it relative to its parent (joint_sets.cpp).
enum class JointSetKind { Free, Ball, Planar, Chain };

struct JointSet {
  int body = -1;    // sim body
  int parent = -1;  // its sim parent, -1 = world
  JointSetKind kind = JointSetKind::Free;
  std::vector<int> joints;     // Model joint indices in written order
  std::vector<int> hinges;     // Chain: hinge joints in order
  std::vector<int> slides;     // Chain: slide joints in order
  bool slides_first = true;    // Chain: slides act before the hinges (axes in the parent frame)
  Vec3 anchor = Vec3::Zero();  // sim frame: common hinge anchor / ball / planar / slide point
  // Two hinges with different anchors (MuJoCo humanoid ankles): the anchor of the second.
  bool skew = false;
  Vec3 anchor2 = Vec3::Zero();
  Vec3 skew_coefficients = Vec3::Zero();  // anchor2 − anchor in the basis (a1, a2, a1×a2)
  std::vector<Vec3> position_normals;     // sim frame; span ⟂ slide axes (position rows)
  std::vector<Vec3> slide_duals;          // sim frame; slide coordinate = dual · offset
  // Chain: the slides' axes are the parent's (F0's), else the child's.
  bool slides_in_parent() const { return slides_first || hinges.empty(); }
  JointSetInputs inputs;  // what the rows read, as expressions
};

class Context {
 public:
  Context(const Model& model, const LowerOptions& options, Graph& graph);

  Graph& g;
  const Model& model;
  const LowerOptions& options;
  Diagnostics diag;
  std::vector<std::string> notes;

  // Inputs.
  std::vector<Expr> q_minus, u_minus, u_plus, ctrl, params;
  std::vector<Expr> q_choose;    // [7·nsim] (ResidualProgram::q_choose)
  std::vector<Expr> lambda;      // grows with rows
  std::vector<Expr> friction_w;  // grows with frictional contacts
  std::vector<Expr> friction_w_exact;
  Expr h;
  std::vector<Expr> terrain;  // grows with terrain probes (ResidualProgram::terrain)
  std::vector<TerrainProbe> terrain_probes;
  std::vector<ParamInfo> param_info;

  std::vector<BodyState> bodies;  // [nsim]
  std::vector<GeomInputs> geoms;  // [ngeom]
  // The inputs a per-type template's instance differs by besides the bodies' state and the
  // parameters: a pair's geom placements (pair_templates.cpp), a joint set's JointSetInputs
  // (joint_templates.cpp). Empty when a model is lowered (those are constants).
  std::vector<Expr> instance_inputs;
  Frame world;                                      // identity frame with constant entries
  std::vector<JointSet> joint_sets;                 // one per sim body that has joints (not free)
  std::vector<int> joint_set_of_joint;              // [njnt] index into joint_sets, -1 for free
  std::vector<Coordinate> coord_minus, coord_plus;  // [njnt] (hinge/slide only)
  std::vector<Expr> joint_velocity_minus;           // [njnt] θ̇ at (q⁻, u⁻)
  std::vector<JointInputs> joints;                  // [njnt] (hinge/slide of a joint set)
  std::vector<ActuatorInputs> actuators;            // [nu]

  std::vector<Row> rows;
  std::vector<ExplicitImpulse> explicit_impulses;
  std::vector<JointForce> joint_forces;
  struct ActuatorParams {
    Expr gain, bias0, bias1, bias2;
  };
  std::vector<ActuatorParams> actuator_params;  // [nu], created by build_servo_rows
  std::vector<ContactSlot> slots;
  std::vector<RowBlock> blocks;
  int contact_pairs = 0, skipped_pairs = 0;

  const Frame& frame(int sim, Time t) const;  // sim = -1: the world
  Expr param(const std::string& name, double value);
  Row& add_row(RowKind kind, const std::string& label);
  // A bilateral or servo row e + αλ (velocity units) whose impulse acts through ∂rho/∂u⁺.
  Row& add_compliant_row(RowKind kind, const std::string& label, Expr e, Expr alpha, Expr rho);
  // A Fischer–Burmeister row on a gap g(q⁺) ≥ 0 ⟂ λ ≥ 0 (docs/design.md, "The step
  // equations"), impulse form:
  //   φ = c + rλ − √(c² + r²λ² + ε²h²), c = g + E λ/h, residual φ/h,
  // r = h·w (`fb_scale`, w = [J M̃⁻¹ Jᵀ] at q⁻) so both arguments are lengths, and the
  // compliance E = κ h² w scaled by the row's effective mass (κ = `relative_compliance`,
  // dimensionless): it means the same at every h and mass, and it makes the step's equations
  // well posed where rigid contact is statically indeterminate (a resting body on four
  // corners, a box pushed by a body with friction): the impulses are then unique. At rest the
  // row sinks by κ h w λ (κ h² g for a body resting on the floor: 9.8 µm at h = 0.1, κ = 1e-4).
  // The impulse acts through ∂(g/h)/∂u⁺.
  Row& add_complementarity_row(RowKind kind, const std::string& label, Expr gap, Expr fb_scale,
                               Expr relative_compliance);
  // A row whose equations a per-type template adds (pair_templates.h, joint_templates.h):
  // zero in every kernel, no impulse on the bodies here; its impulse and label are its own.
  Row& add_placeholder_row(RowKind kind, const std::string& label);
  // Appends a row block covering the rows added since `first_row`.
  void close_block(const std::string& name, int first_row);
  void note(const std::string& message);
  std::string body_name(int sim) const;              // "world" for -1
  std::string geom_label(int geom) const;            // "'floor'" or "#3" when unnamed
  std::string param_suffix_of_geom(int geom) const;  // "floor" or "geom3" when unnamed
  // An `unsupported:` error at the model file.
  void unsupported(const std::string& element, const std::string& message);
  // Fischer–Burmeister φ(a, b) = a + b − sqrt(a² + b² + eps²).
  Expr fischer_burmeister(Expr a, Expr b, double eps_sq) const;
  // J M̃⁻¹ Jᵀ at q⁻ of a direction acting at a world point on up to two bodies (-1 = none):
  // Σ_b 1/m_b |d|² + (ρ_b × d)ᵀ I_b⁻¹ (ρ_b × d), ρ_b the arm from the body's COM.
  Expr point_inverse_mass(int body_a, int body_b, const V3& point, const V3& direction);
};

// "knee" or "joint3", "motor" or "actuator2" for an unnamed one: the suffix of a joint's or
// an actuator's parameters' names (servos.cpp).
std::string joint_param_suffix(const Model& model, int joint);
// An actuator with a servo's law (b₁ < 0 or b₂ < 0): a row, not an explicit force (servos.cpp).
bool is_servo_actuator(const Model& model, int actuator);
std::string actuator_param_suffix(const Model& model, int actuator);

// "floor", or "geom3" for an unnamed geom: the suffix of its parameters' names.
std::string param_suffix_of_geom(const Model& model, int geom);

// The passes, in the order lower.cpp runs them.
void build_state(Context& ctx);         // state.cpp: inputs, params, frames, q⁺
void build_joint_sets(Context& ctx);    // joint_sets.cpp: classification, coordinates
void build_joint_rows(Context& ctx);    // joints.cpp
void build_limit_rows(Context& ctx);    // limits.cpp
void build_contact_rows(Context& ctx);  // contacts.cpp (pairs from contact_pairs.cpp)
void build_servo_rows(Context& ctx);    // servos.cpp
void build_joint_forces(Context& ctx);  // servos.cpp: motors and passive springs (f_ext)

// dynamics.cpp
struct Dynamics {
  std::vector<Expr> residual;  // r_dyn [6n]
  std::vector<Expr> mass;      // the mass kernel's outputs [20n]
};
Dynamics build_dynamics(Context& ctx);
// What the context's rows and joint forces add to their bodies' dynamics: to r_dyn
// −h J_θᵀτ − Σ Jᵀλ, to the mass kernel's ũ h M̃⁻¹ J_θᵀτ (zeros elsewhere). A joint set's
// template's share (joint_templates.cpp), and a program's dynamics when its bodies' own are
// a template's (body_templates.h): with build_dynamics' body terms, build_dynamics.
Dynamics constraint_share(Context& ctx);

// Σ (∂ρ/∂u⁺)ᵀλ over the rows' geometric measures plus the explicit friction impulses, per u
// entry [6·nsim]: what the constraints put into r_dyn.
std::vector<Expr> constraint_impulses(const Context& ctx);

// Generalised forces of the joint forces (motors, explicit springs), J_θᵀτ per u entry [6n].
std::vector<Expr> joint_generalized_forces(const Context& ctx);

// Inverse effective mass j M̃⁻¹ jᵀ of a generalised direction j (sparse over bodies, 6 entries
// per body) at q⁻.
Expr generalized_inverse_mass(const Context& ctx, const std::vector<int>& bodies,
                              const std::vector<std::array<Expr, 6>>& directions);

// joint_sets.cpp helpers. The joint reference frame F0 is the parent's frame composed with
// the child's reference pose relative to it: at the reference configuration it coincides
// with the child's sim frame, so sim-frame vectors of the joint mean the same in both.
// The child's rotation relative to F0 (identity at the reference configuration).
Q4 joint_relative_rotation(const Context& ctx, const JointSet& set, Time t);
// The joint's anchor carried by the parent (F0's) and by the child.
V3 parent_anchor(const Context& ctx, const JointSet& set, Time t);
V3 child_anchor(const Context& ctx, const JointSet& set, Time t);
// The frame the set's slides act in (JointSet::slides_in_parent).
const Frame& slide_frame(const Context& ctx, const JointSet& set, Time t);
// Unit vectors spanning the orthogonal complement of `axes` (which must be independent).
std::vector<Vec3> orthogonal_complement(const std::vector<Vec3>& axes);

// joint_coordinates.cpp: coord_minus, coord_plus and joint_velocity_minus. A model lowered
// with joint templates has placeholder joint rows and leaves them empty (lower.cpp).
void build_joint_coordinates(Context& ctx);
// The sign σ of a three-hinge set's third axis along a₁ × a₂ (structure, not an input: it
// selects the formula's factor; joint templates key on it).
double third_axis_sign(const Model& m, const JointSet& set);
// θ⁺ − θ⁻ without the ±π wrap of atan2.
Expr coordinate_increment(const Coordinate& minus, const Coordinate& plus);

}  // namespace talon::ir::lower
