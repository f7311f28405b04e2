#include "ir/lower/joint_templates.h"

#include <map>
#include <string>

#include "ir/lower/kernels.h"

namespace talon::ir::lower {
namespace {

constexpr int kLimited = 1, kSprung = 2, kArmature = 4;

int place_in_set(const JointSet& set, int joint) {
  for (std::size_t k = 0; k < set.joints.size(); ++k)
    if (set.joints[k] == joint) return static_cast<int>(k);
  return -1;
}

// The actuators on the set's joints, in the order of their joints in the set (and in actuator
// order on one joint): sets that differ only in the order their actuators were declared
// (the humanoid's abdomen_z, abdomen_y against its hips' y, z) are one kind.
std::vector<int> set_actuators(const Model& m, const JointSet& set) {
  std::vector<int> out;
  for (int j : set.joints)
    for (int a = 0; a < m.nu; ++a)
      if (m.act_joint[a] == j) out.push_back(a);
  return out;
}

JointTemplateKey template_key(const Context& ctx, const JointSet& set) {
  const Model& m = ctx.model;
  JointTemplateKey key;
  for (int j : set.joints) {
    key.types.push_back(m.jnt_type[j]);
    key.terms.push_back((m.jnt_limited[j] ? kLimited : 0) |
                        (m.jnt_stiffness[j] != 0 || m.jnt_damping[j] != 0 ? kSprung : 0) |
                        (m.jnt_armature[j] != 0 ? kArmature : 0));
  }
  for (int a : set_actuators(m, set))
    key.actuators.push_back({place_in_set(set, m.act_joint[a]), is_servo_actuator(m, a) ? 1 : 0,
                             m.act_ctrl_limited[a] ? 1 : 0, m.act_force_limited[a] ? 1 : 0});
  key.parent_static = set.parent < 0;
  key.skew = set.skew;
  if (set.hinges.size() == 3) key.third_axis_sign = static_cast<int>(third_axis_sign(m, set));
  return key;
}

// "hinge (limited, sprung) + hinge (limited), skew, 2 actuators": a template's joint set.
std::string template_name(const JointTemplateKey& key) {
  std::string name;
  for (std::size_t k = 0; k < key.types.size(); ++k) {
    std::string terms;
    for (const auto& [bit, what] : {std::pair{kLimited, "limited"}, std::pair{kSprung, "sprung"},
                                    std::pair{kArmature, "armature"}})
      if (key.terms[k] & bit) terms += (terms.empty() ? "" : ", ") + std::string(what);
    name += (k == 0 ? "" : " + ") + std::string(joint_type_name(key.types[k]));
    if (!terms.empty()) name += " (" + terms + ")";
  }
  if (key.skew) name += ", skew";
  if (key.parent_static) name += ", on the world";
  if (!key.actuators.empty())
    name += ", " + std::to_string(key.actuators.size()) +
            (key.actuators.size() == 1 ? " actuator" : " actuators");
  return name;
}

// Appends sim body `sim` of `from` to `to` under `name`, hanging from `parent`.
void copy_sim_body(const Model& from, int sim, const std::string& name, int parent, Model& to) {
  ++to.nsim;
  to.sim_name.push_back(name);
  to.sim_parent.push_back(parent);
  to.sim_pose_rel.push_back(from.sim_pose_rel[sim]);
  to.sim_pose_world.push_back(from.sim_pose_world[sim]);
  to.sim_mass.push_back(from.sim_mass[sim]);
  to.sim_com.push_back(from.sim_com[sim]);
  to.sim_inertia.push_back(from.sim_inertia[sim]);
}

void copy_joint(const Model& from, int j, int sim, Model& to) {
  const int qpos = from.jnt_qposadr[j];
  const int nq = joint_nq(from.jnt_type[j]);
  to.jnt_name.push_back("j" + std::to_string(to.njnt++));
  to.jnt_type.push_back(from.jnt_type[j]);
  to.jnt_sim.push_back(sim);
  to.jnt_qposadr.push_back(to.nq);
  to.jnt_dofadr.push_back(to.nv);
  to.nq += nq;
  to.nv += joint_nv(from.jnt_type[j]);
  to.qpos0.insert(to.qpos0.end(), from.qpos0.begin() + qpos, from.qpos0.begin() + qpos + nq);
  to.jnt_pos.push_back(from.jnt_pos[j]);
  to.jnt_axis.push_back(from.jnt_axis[j]);
  to.jnt_limited.push_back(from.jnt_limited[j]);
  to.jnt_range.insert(to.jnt_range.end(), {from.jnt_range[2 * j], from.jnt_range[2 * j + 1]});
  to.jnt_damping.push_back(from.jnt_damping[j]);
  to.jnt_stiffness.push_back(from.jnt_stiffness[j]);
  to.jnt_springref.push_back(from.jnt_springref[j]);
  to.jnt_armature.push_back(from.jnt_armature[j]);
  to.jnt_frictionloss.push_back(0.0);
  to.jnt_mimic.emplace_back();
}

void copy_actuator(const Model& from, int a, int joint, Model& to) {
  to.act_name.push_back("a" + std::to_string(to.nu++));
  to.act_type.push_back(from.act_type[a]);
  to.act_joint.push_back(joint);
  to.act_gear.push_back(from.act_gear[a]);
  to.act_gain.push_back(from.act_gain[a]);
  to.act_bias.insert(to.act_bias.end(), from.act_bias.begin() + 3 * a,
                     from.act_bias.begin() + 3 * a + 3);
  to.act_ctrl_limited.push_back(from.act_ctrl_limited[a]);
  to.act_ctrl_range.insert(to.act_ctrl_range.end(),
                           {from.act_ctrl_range[2 * a], from.act_ctrl_range[2 * a + 1]});
  to.act_force_limited.push_back(from.act_force_limited[a]);
  to.act_force_range.insert(to.act_force_range.end(),
                            {from.act_force_range[2 * a], from.act_force_range[2 * a + 1]});
}

// The template's own model: the set's parent (unless the world) and child with the set's
// joints and actuators, copied from one instance; the rows read none of its numbers but
// through inputs (its joints' structure is the key's).
Model template_model(const Model& m, const JointSet& set) {
  Model t;
  t.source_file = "joint set template";
  const bool parent_moves = set.parent >= 0;
  if (parent_moves) copy_sim_body(m, set.parent, "parent", -1, t);
  copy_sim_body(m, set.body, "child", parent_moves ? 0 : -1, t);
  const int child = t.nsim - 1;
  for (int j : set.joints) copy_joint(m, j, child, t);
  for (int a : set_actuators(m, set)) copy_actuator(m, a, place_in_set(set, m.act_joint[a]), t);
  return t;
}

// Every number of one joint set the rows read, as the expressions that hold it, in one order
// (the template's `constants` inputs): the set's JointSetInputs, its joints' JointInputs, its
// actuators' ActuatorInputs. Expressions a set does not have (e3 of one hinge) are skipped.
std::vector<Expr*> instance_expressions(Context& ctx, JointSet& set) {
  std::vector<Expr*> out;
  auto vector = [&](V3& v) {
    if (v.x) out.insert(out.end(), {&v.x, &v.y, &v.z});
  };
  JointSetInputs& in = set.inputs;
  out.insert(out.end(), {&in.rel_quat.w, &in.rel_quat.x, &in.rel_quat.y, &in.rel_quat.z});
  for (V3* v :
       {&in.anchor_child, &in.anchor_parent, &in.anchor2_child, &in.skew_coefficients, &in.e3})
    vector(*v);
  for (std::vector<V3>* list :
       {&in.axes, &in.axes_parent, &in.axis_normals_parent, &in.position_normals, &in.slide_duals})
    for (V3& v : *list) vector(v);
  if (in.axes_dot) out.push_back(&in.axes_dot);
  for (int j : set.joints) {
    JointInputs& joint = ctx.joints[j];
    out.insert(out.end(), {&joint.qpos0, &joint.lower, &joint.upper, &joint.springref});
  }
  for (int a : set_actuators(ctx.model, set)) {
    ActuatorInputs& act = ctx.actuators[a];
    out.insert(out.end(),
               {&act.gear, &act.ctrl_lower, &act.ctrl_upper, &act.force_lower, &act.force_upper});
  }
  return out;
}

PairTemplate lower_joint_template(const Model& model, const JointSet& set,
                                  const JointTemplateKey& key, const LowerOptions& options) {
  PairTemplate t;
  t.kind = TemplateKind::JointSet;
  t.name = template_name(key);
  ResidualProgram& prog = t.program;
  prog.graph = std::make_unique<Graph>();
  const Model m = template_model(model, set);
  LowerOptions own = options;
  own.fold_params = false;  // the parameters are the instance's inputs
  own.set_templates(false);
  Context ctx(m, own, *prog.graph);
  build_state(ctx);
  build_joint_sets(ctx);
  TALON_INTERNAL_ASSERT(ctx.joint_sets.size() == 1, "a joint set template lowers one set");
  for (Expr* e : instance_expressions(ctx, ctx.joint_sets[0])) {
    *e = ctx.g.variable("constant" + std::to_string(ctx.instance_inputs.size()));
    ctx.instance_inputs.push_back(*e);
  }
  build_joint_coordinates(ctx);
  build_joint_rows(ctx);
  build_limit_rows(ctx);
  build_servo_rows(ctx);
  build_joint_forces(ctx);
  TALON_INTERNAL_ASSERT(!ctx.diag.has_errors(), "a joint set template failed to lower");
  build_kernels(ctx, constraint_share(ctx), prog, KernelSet::Template);
  fill_metadata(ctx, prog);
  if (options.kernel_stats) compute_kernel_stats(prog);
  return t;
}

// The program's name of a template parameter: "mass:child" is the child body's mass,
// "stiffness:j1" the stiffness of the set's second joint, "gain:a0" its first actuator's.
std::string program_param_name(const Model& m, const JointSet& set, const std::string& name) {
  const std::size_t colon = name.find(':');
  if (colon == std::string::npos) return name;
  const std::string kind = name.substr(0, colon + 1), who = name.substr(colon + 1);
  if (who == "parent") return kind + m.sim_name[set.parent];
  if (who == "child") return kind + m.sim_name[set.body];
  const int k = std::stoi(who.substr(1));
  if (who[0] == 'j') return kind + joint_param_suffix(m, set.joints[k]);
  return kind + actuator_param_suffix(m, set_actuators(m, set)[k]);
}

// The program's joint, limit and servo rows by the body they act on (contact rows are the
// pair templates'), in row order: each joint set reads its body's list instead of scanning
// every row (O(sets × rows) on humanoid100.xml).
std::vector<std::vector<int>> joint_rows_by_body(const ResidualProgram& program, int nbodies) {
  std::vector<std::vector<int>> out(static_cast<std::size_t>(nbodies));
  for (int r = 0; r < program.nrows; ++r) {
    const ConstraintRowInfo& row = program.rows[r];
    if (row.body < 0 || row.body >= nbodies || row.kind == RowKind::ContactNormal ||
        row.kind == RowKind::Friction)
      continue;
    out[static_cast<std::size_t>(row.body)].push_back(r);
  }
  return out;
}

// The program rows of the set (`body_rows`: its body's, joint_rows_by_body), in the
// template's row order: an actuator's servo row is the row of the instance's actuator in the
// same place; other rows, per row kind, in the order the passes added them (the template's
// passes add them in the same relative order).
std::vector<int> instance_rows(const ResidualProgram& program, const ResidualProgram& t,
                               const Model& m, const JointSet& set,
                               const std::vector<int>& body_rows) {
  std::map<RowKind, std::vector<int>> of_kind;
  std::map<int, int> of_actuator;
  for (const int r : body_rows) {
    const ConstraintRowInfo& row = program.rows[r];
    if (row.actuator >= 0)
      of_actuator[row.actuator] = r;
    else
      of_kind[row.kind].push_back(r);
  }
  const std::vector<int> actuators = set_actuators(m, set);
  std::map<RowKind, std::size_t> used;
  std::vector<int> out;
  for (const ConstraintRowInfo& row : t.rows) {
    if (row.actuator >= 0) {
      const auto found = of_actuator.find(actuators[row.actuator]);
      TALON_INTERNAL_ASSERT(found != of_actuator.end(),
                            "a joint set's servo rows differ from its template's");
      out.push_back(found->second);
      continue;
    }
    const std::vector<int>& rows = of_kind[row.kind];
    TALON_INTERNAL_ASSERT(used[row.kind] < rows.size(),
                          "a joint set's rows differ from its template's");
    out.push_back(rows[used[row.kind]++]);
  }
  return out;
}

}  // namespace

void add_joint_templates(Context& ctx, const ResidualProgram& program, PairTemplates& templates) {
  const Model& m = ctx.model;
  const std::map<std::string, int> param_index = program.param_indices();
  std::map<JointTemplateKey, int> template_of_key;
  const std::vector<std::vector<int>> rows_of_body = joint_rows_by_body(program, m.nsim);
  for (JointSet& set : ctx.joint_sets) {
    const JointTemplateKey key = template_key(ctx, set);
    auto [found, inserted] =
        template_of_key.emplace(key, static_cast<int>(templates.templates.size()));
    if (inserted) templates.templates.push_back(lower_joint_template(m, set, key, ctx.options));
    const ResidualProgram& t = templates.templates[found->second].program;
    PairInstance instance;
    instance.template_index = found->second;
    if (set.parent >= 0) instance.bodies.push_back(set.parent);
    instance.bodies.push_back(set.body);
    instance.rows = instance_rows(program, t, m, set, rows_of_body[set.body]);
    for (const ParamInfo& param : t.param_info)
      instance.params.push_back(param_index.at(program_param_name(m, set, param.name)));
    instance.ctrl = set_actuators(m, set);
    for (const Expr* e : instance_expressions(ctx, set))
      instance.constants.push_back(e->constant());
    templates.instances.push_back(std::move(instance));
  }
}

}  // namespace talon::ir::lower
