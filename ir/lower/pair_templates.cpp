#include "ir/lower/pair_templates.h"

#include <map>
#include <string>
#include <tuple>

#include "ir/lower/contact_geometry.h"
#include "ir/lower/contact_pairs.h"
#include "ir/lower/kernels.h"

namespace talon::ir {
namespace {

using lower::GeomInputs;

constexpr const char* kGeomNames[2] = {"a", "b"};

std::vector<Vec3> hull_vertices(const std::vector<std::array<double, 3>>& hull) {
  std::vector<Vec3> out;
  for (const auto& v : hull) out.emplace_back(v[0], v[1], v[2]);
  return out;
}

std::vector<std::array<double, 3>> hull_key(const std::vector<Vec3>& vertices) {
  std::vector<std::array<double, 3>> out;
  for (const Vec3& v : vertices) out.push_back({v.x(), v.y(), v.z()});
  return out;
}

// The template's own model: geoms a and b, each on a free body of its own (named like the
// geom) or on the world, a mesh with its hull. Its other values are placeholders: every one
// the rows read is an input.
Model template_model(const PairTemplateKey& key) {
  Model m;
  m.source_file = "pair template";
  const GeomType types[2] = {key.a, key.b};
  const bool on_world[2] = {key.a_static, key.b_static};
  const std::vector<std::array<double, 3>>* hulls[2] = {&key.hull_a, &key.hull_b};
  for (int i = 0; i < 2; ++i) {
    int sim = -1;
    if (!on_world[i]) {
      sim = m.nsim++;
      m.sim_name.push_back(kGeomNames[i]);
      m.sim_parent.push_back(-1);
      m.sim_pose_world.push_back(Pose{});
      m.sim_mass.push_back(1.0);
      m.sim_com.push_back(Vec3::Zero());
      m.sim_inertia.push_back(Mat3::Identity());
    }
    ++m.ngeom;
    m.geom_name.push_back(kGeomNames[i]);
    m.geom_type.push_back(types[i]);
    m.geom_sim.push_back(sim);
    m.geom_body.push_back(sim);
    m.geom_size.push_back(Vec3::Ones());
    m.geom_pose.push_back(Pose{});
    m.geom_friction.push_back(Vec3(1, 0, 0));
    m.geom_contype.push_back(1);
    m.geom_conaffinity.push_back(1);
    m.geom_condim.push_back(key.friction ? 3 : 1);
    m.geom_priority.push_back(0);
    m.geom_mesh_file.emplace_back();
    m.geom_mesh_scale.push_back(Vec3::Ones());
    m.geom_hull_vertices.push_back(hull_vertices(*hulls[i]));
  }
  return m;
}

// Geom `i`'s GeomInputs as variables, appended to `inputs` in GeomInputs order.
GeomInputs geom_input_variables(Graph& g, int i, std::vector<Expr>& inputs) {
  auto next = [&]() {
    inputs.push_back(g.variable("geom_" + std::string(kGeomNames[i]) + "_" +
                                std::to_string(inputs.size() % GeomInputs::kInputs)));
    return inputs.back();
  };
  GeomInputs out;
  for (int r = 0; r < 3; ++r) out.offset[r] = next();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) out.rot.m[r][c] = next();
  for (int r = 0; r < 3; ++r) out.size[r] = next();
  return out;
}

// The program's name of a template parameter: "mass:a" is the mass of the body geom a is on,
// "friction:b" the friction of the second geom that sets the pair's μ; the compliances keep
// their names.
std::string program_param_name(const Model& model, const PairInstance& instance,
                               const std::string& name) {
  const std::size_t colon = name.find(':');
  if (colon == std::string::npos) return name;
  const std::string kind = name.substr(0, colon);
  const int which = name.substr(colon + 1) == "a" ? 0 : 1;
  if (kind == "friction") {
    const int geom = contact_friction_geoms(model, instance.geom_a, instance.geom_b)[which];
    return kind + ":" + lower::param_suffix_of_geom(model, geom);
  }
  const int geom = which == 0 ? instance.geom_a : instance.geom_b;
  return kind + ":" + model.sim_name[model.geom_sim[geom]];
}

void append_geom_constants(const Model& model, int geom, std::vector<double>& out) {
  const lower::GeomPlacement p = lower::geom_placement(model, geom);
  out.insert(out.end(), p.offset.data(), p.offset.data() + 3);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) out.push_back(p.rot(r, c));
  out.insert(out.end(), p.size.data(), p.size.data() + 3);
}

// The slots of a program's pairs: [first, last) ranges of consecutive slots of one pair.
std::vector<std::pair<int, int>> pair_slot_ranges(const ResidualProgram& program) {
  std::vector<std::pair<int, int>> ranges;
  const auto& slots = program.slots;
  for (int first = 0, n = static_cast<int>(slots.size()); first < n;) {
    int last = first + 1;
    while (last < n && slots[last].geom_a == slots[first].geom_a &&
           slots[last].geom_b == slots[first].geom_b)
      ++last;
    ranges.emplace_back(first, last);
    first = last;
  }
  return ranges;
}

// A terrain pair's probe (the one the lowering made for its geom on that terrain): its
// entries of the program's `terrain` inputs. None for other pairs.
std::vector<int> terrain_entries(const ResidualProgram& program, const PairInstance& instance) {
  std::vector<int> out;
  for (const TerrainProbe& probe : program.terrain_probes)
    if (probe.terrain_geom == instance.geom_a && probe.geom == instance.geom_b)
      for (int k = 0; k < TerrainProbe::kInputs; ++k) out.push_back(probe.input + k);
  return out;
}

}  // namespace

std::string pair_template_name(const PairTemplateKey& key) {
  auto geom_name = [](GeomType type, const std::vector<std::array<double, 3>>& hull) {
    std::string name = geom_type_name(type);
    if (!hull.empty()) name += " (hull of " + std::to_string(hull.size()) + " vertices)";
    return name;
  };
  std::string name = geom_name(key.a, key.hull_a) + "-" + geom_name(key.b, key.hull_b);
  if (key.a_static) name += " (static " + std::string(geom_type_name(key.a)) + ")";
  if (key.b_static) name += " (static " + std::string(geom_type_name(key.b)) + ")";
  if (!key.friction) name += ", frictionless";
  return name;
}

PairTemplate lower_pair_template(const PairTemplateKey& key, const LowerOptions& options) {
  TALON_INTERNAL_ASSERT(
      lower::contact_slot_count(key.a, key.b) > 0 && !(key.a_static && key.b_static),
      "no template for this pair");
  PairTemplate t;
  t.key = key;
  t.name = pair_template_name(key);
  ResidualProgram& prog = t.program;
  prog.graph = std::make_unique<Graph>();
  const Model model = template_model(key);
  LowerOptions unfolded = options;
  unfolded.fold_params = false;   // the parameters are the instance's inputs
  unfolded.set_templates(false);  // its own rows are what it is
  lower::Context ctx(model, unfolded, *prog.graph);
  lower::build_state(ctx);
  for (int i = 0; i < 2; ++i) ctx.geoms[i] = geom_input_variables(ctx.g, i, ctx.instance_inputs);
  lower::build_pair_rows(ctx, {{0, 1}});
  TALON_INTERNAL_ASSERT(!ctx.diag.has_errors(), "a pair template failed to lower");
  lower::Dynamics share;
  for (Expr impulse : lower::constraint_impulses(ctx)) share.residual.push_back(-impulse);
  lower::build_kernels(ctx, share, prog, lower::KernelSet::Template);
  lower::fill_metadata(ctx, prog);
  if (options.kernel_stats) compute_kernel_stats(prog);
  return t;
}

PairTemplates pair_templates(const Model& model, const ResidualProgram& program,
                             const LowerOptions& options) {
  TALON_INTERNAL_ASSERT(program.params.size() == program.param_info.size(),
                        "pair templates need a program with unfolded parameters");
  const std::map<std::string, int> param_index = program.param_indices();
  std::map<PairTemplateKey, int> template_of_key;
  PairTemplates out;
  for (const auto& [first, last] : pair_slot_ranges(program)) {
    PairInstance instance;
    instance.geom_a = program.slots[first].geom_a;
    instance.geom_b = program.slots[first].geom_b;
    const int sim_a = model.geom_sim[instance.geom_a], sim_b = model.geom_sim[instance.geom_b];
    const PairTemplateKey key{model.geom_type[instance.geom_a],
                              model.geom_type[instance.geom_b],
                              sim_a < 0,
                              sim_b < 0,
                              program.slots[first].friction_row >= 0,
                              hull_key(model.geom_hull_vertices[instance.geom_a]),
                              hull_key(model.geom_hull_vertices[instance.geom_b])};
    auto [found, inserted] = template_of_key.emplace(key, static_cast<int>(out.templates.size()));
    if (inserted) out.templates.push_back(lower_pair_template(key, options));
    instance.template_index = found->second;
    const ResidualProgram& t = out.templates[found->second].program;
    TALON_INTERNAL_ASSERT(static_cast<int>(t.slots.size()) == last - first,
                          "a pair's slots differ from its template's");

    for (int sim : {sim_a, sim_b})
      if (sim >= 0) instance.bodies.push_back(sim);
    for (int s = first; s < last; ++s) instance.rows.push_back(program.slots[s].normal_row);
    for (int s = first; s < last && key.friction; ++s) {
      instance.rows.insert(instance.rows.end(),
                           {program.slots[s].friction_row, program.slots[s].friction_row + 1});
      instance.friction_w.push_back(program.slots[s].friction_index);
    }
    for (const ParamInfo& param : t.param_info)
      instance.params.push_back(param_index.at(program_param_name(model, instance, param.name)));
    append_geom_constants(model, instance.geom_a, instance.constants);
    append_geom_constants(model, instance.geom_b, instance.constants);
    instance.terrain = terrain_entries(program, instance);
    out.instances.push_back(std::move(instance));
  }
  return out;
}

namespace {

// Which of an instance's lists fills a template kernel's group `name` (kernels.cpp names the
// groups of a template's kernels as the program's).
InstanceGroup::Source group_source(const std::string& name) {
  using S = InstanceGroup::Source;
  if (name == "constants") return S::Constants;
  for (const char* group : {"u_minus", "u_plus", "tangent_u", "cotangent_dyn", "r_dyn"})
    if (name == group) return S::BodyVelocities;
  for (const char* group :
       {"lambda", "tangent_lambda", "cotangent_con", "r_con", "merit", "c_diag", "diag_a"})
    if (name == group) return S::Rows;
  if (name == "q_minus" || name == "q_choose" || name == "q_plus" || name == "cotangent_q")
    return S::BodyPoses;
  if (name == "jvp" || name == "vjp") return S::StateRows;  // [r_dyn; r_con] or [u⁺; λ]
  if (name == "gap") return S::Gap;
  if (name == "params") return S::Params;
  if (name == "friction_w") return S::FrictionW;
  if (name == "values") return S::JhatEntries;
  if (name == "h") return S::Step;
  if (name == "terrain") return S::Terrain;
  if (name == "ctrl") return S::Ctrl;
  if (name == "mass") return S::BodyMasses;  // a joint set's share of ũ (dynamics.cpp)
  TALON_INTERNAL_ASSERT(false, "a template's group without a place in the program: " + name);
  return S::Constants;
}

// The entries, within the program kernel's group, of an instance's entries of a template
// kernel's group that `source` fills, appended to `out` (at `offset`).
void append_group_entries(const ResidualProgram& program, const PairInstance& instance,
                          InstanceGroup::Source source, int offset, std::vector<int>& out) {
  using S = InstanceGroup::Source;
  auto append = [&](const std::vector<int>& entries) {
    for (int entry : entries) out.push_back(offset + entry);
  };
  auto append_bodies = [&](int width) {
    for (int body : instance.bodies)
      for (int i = 0; i < width; ++i) out.push_back(offset + width * body + i);
  };
  switch (source) {
    case S::Constants:
      break;  // instance_map's own
    case S::BodyVelocities:
      return append_bodies(6);
    case S::BodyPoses:
      return append_bodies(7);
    case S::BodyMasses:
      return append_bodies(20);
    case S::Rows:
      return append(instance.rows);
    case S::StateRows:
      append_bodies(6);
      for (int row : instance.rows) out.push_back(offset + program.ndyn() + row);
      return;
    case S::Gap: {  // the contact normal rows, the first of the instance's
      const int first_normal = program.block("contact_normal")->begin - program.ndyn();
      for (int row : instance.rows)
        if (program.rows[row].kind == RowKind::ContactNormal)
          out.push_back(offset + row - first_normal);
      return;
    }
    case S::Params:
      return append(instance.params);
    case S::FrictionW:
      return append(instance.friction_w);
    case S::JhatEntries:
      return append(instance.jhat_entries);
    case S::Step:
      out.push_back(offset);
      return;
    case S::Terrain:
      return append(instance.terrain);
    case S::Ctrl:
      return append(instance.ctrl);
  }
}

// Each of the template kernel's groups, in order, and where it lies in the program kernel's.
std::vector<InstanceGroup> group_plan(const std::vector<Slice>& template_slices,
                                      const std::vector<Slice>& program_slices) {
  std::vector<InstanceGroup> out;
  for (const Slice& s : template_slices) {
    const InstanceGroup::Source source = group_source(s.name);
    const Slice* in_program = nullptr;
    for (const Slice& p : program_slices)
      if (p.name == s.name) in_program = &p;
    TALON_INTERNAL_ASSERT(source == InstanceGroup::Source::Constants || in_program != nullptr,
                          "a template's group the program lacks: " + s.name);
    out.push_back({source, in_program != nullptr ? in_program->offset : 0, s.size});
  }
  return out;
}

// The program kernel's entries of the template kernel's groups, in order.
std::vector<int> plan_entries(const ResidualProgram& program, const PairInstance& instance,
                              const std::vector<InstanceGroup>& groups) {
  std::vector<int> out;
  for (const InstanceGroup& group : groups) {
    const std::size_t before = out.size();
    if (group.source == InstanceGroup::Source::Constants) {  // the instance's constants
      for (int k = 0; k < group.size; ++k) out.push_back(-1 - k);
      continue;
    }
    append_group_entries(program, instance, group.source, group.offset, out);
    TALON_INTERNAL_ASSERT(out.size() - before == static_cast<std::size_t>(group.size),
                          "an instance's group does not match its template's");
  }
  return out;
}

Kernel& mutable_kernel(ResidualProgram& program, const std::string& name) {
  for (Kernel& k : program.kernels)
    if (k.function.name == name) return k;
  TALON_INTERNAL_ASSERT(false, "no kernel named " + name);
  return program.kernels.front();
}

}  // namespace

void attach_templates(PairTemplates templates, ResidualProgram& program) {
  if (templates.instances.empty()) return;
  auto pairs = std::make_shared<PairTemplates>(std::move(templates));
  Kernel& jhat = mutable_kernel(program, "jhat");
  TALON_INTERNAL_ASSERT(jhat.outputs.size() == 1 && jhat.outputs[0].name == "values",
                        "the jhat kernel has one output group");
  for (PairInstance& instance : pairs->instances) {
    const ResidualProgram& t = pairs->templates[instance.template_index].program;
    for (std::size_t k = 0; k < t.jhat_row.size(); ++k) {
      instance.jhat_entries.push_back(static_cast<int>(program.jhat_row.size()));
      program.jhat_row.push_back(instance.rows[t.jhat_row[k]]);
      program.jhat_col.push_back(6 * instance.bodies[t.jhat_col[k] / 6] + t.jhat_col[k] % 6);
      jhat.function.outputs.push_back(program.graph->constant(0.0));
    }
  }
  jhat.outputs[0].size = static_cast<int>(jhat.function.outputs.size());
  program.pairs = std::move(pairs);
}

InstanceMapPlan instance_map_plan(const ResidualProgram& program, const PairTemplate& t,
                                  const std::string& kernel) {
  const Kernel& in_program = program.kernel(kernel);
  const Kernel& in_template = t.program.kernel(kernel);
  return {group_plan(in_template.inputs, in_program.inputs),
          group_plan(in_template.outputs, in_program.outputs)};
}

InstanceMap instance_map(const ResidualProgram& program, const InstanceMapPlan& plan,
                         const PairInstance& instance) {
  return {plan_entries(program, instance, plan.inputs),
          plan_entries(program, instance, plan.outputs)};
}

InstanceMap instance_map(const ResidualProgram& program, const PairTemplate& t,
                         const PairInstance& instance, const std::string& kernel) {
  return instance_map(program, instance_map_plan(program, t, kernel), instance);
}

void add_pair_instances(const ResidualProgram& program, const std::string& kernel,
                        std::span<const double> inputs, std::vector<double>& outputs,
                        const TemplateEvaluator& evaluate) {
  if (!program.pairs) return;
  for (const PairInstance& instance : program.pairs->instances) {
    const PairTemplate& t = program.pairs->templates[instance.template_index];
    if (!t.program.find_kernel(kernel)) continue;  // a kernel it has no share of
    const InstanceMap map = instance_map(program, t, instance, kernel);
    std::vector<double> in;
    in.reserve(map.gather.size());
    for (int g : map.gather) in.push_back(g >= 0 ? inputs[g] : instance.constants[-1 - g]);
    const std::vector<double> out = evaluate(instance.template_index, kernel, in);
    for (std::size_t o = 0; o < out.size(); ++o) outputs[map.scatter[o]] += out[o];
  }
}

KernelPoint instance_point(const PairTemplate& t, const PairInstance& instance,
                           const KernelPoint& program_point) {
  const KernelPoint& p = program_point;
  KernelPoint out;
  const std::tuple<const std::vector<double>*, std::vector<double>*, int> body_groups[] = {
      {&p.q_minus, &out.q_minus, 7},
      {&p.u_minus, &out.u_minus, 6},
      {&p.u_plus, &out.u_plus, 6},
      {p.q_choose.empty() ? &p.q_minus : &p.q_choose, &out.q_choose, 7}};
  for (const auto& [from, to, width] : body_groups)
    for (int body : instance.bodies)
      to->insert(to->end(), from->begin() + width * body, from->begin() + width * (body + 1));
  for (int row : instance.rows) out.lambda.push_back(p.lambda[row]);
  for (int param : instance.params) out.params.push_back(p.params[param]);
  out.h = p.h;
  for (int w : instance.friction_w) out.friction_w.push_back(p.friction_w[w]);
  for (int k : instance.terrain) out.terrain.push_back(p.terrain[k]);
  for (int a : instance.ctrl) out.ctrl.push_back(p.ctrl[a]);
  out.constants = instance.constants;
  TALON_INTERNAL_ASSERT(out.base().size() == t.program.kernel("residual").function.inputs.size(),
                        "an instance's inputs do not match its template");
  return out;
}

}  // namespace talon::ir
