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

// The template's own model: geoms a and b, each on a free body of its own (named like the
// geom) or on the world. Its values are placeholders: every one the rows read is an input.
Model template_model(const PairTemplateKey& key) {
  Model m;
  m.source_file = "pair template";
  const GeomType types[2] = {key.a, key.b};
  const bool on_world[2] = {key.a_static, key.b_static};
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
    m.geom_hull_vertices.emplace_back();
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

}  // namespace

bool pair_has_template(GeomType a, GeomType b) {
  for (GeomType t : {a, b})
    if (t == GeomType::Mesh || t == GeomType::Terrain) return false;
  return lower::contact_slot_count(a, b) > 0;
}

PairTemplate lower_pair_template(const PairTemplateKey& key, const LowerOptions& options) {
  TALON_INTERNAL_ASSERT(pair_has_template(key.a, key.b) && !(key.a_static && key.b_static),
                        "no template for this pair");
  PairTemplate t;
  t.key = key;
  ResidualProgram& prog = t.program;
  prog.graph = std::make_unique<Graph>();
  const Model model = template_model(key);
  LowerOptions unfolded = options;
  unfolded.fold_params = false;  // the parameters are the instance's inputs
  lower::Context ctx(model, unfolded, *prog.graph);
  lower::build_state(ctx);
  for (int i = 0; i < 2; ++i) ctx.geoms[i] = geom_input_variables(ctx.g, i, ctx.geom_inputs);
  lower::build_pair_rows(ctx, {{0, 1}});
  TALON_INTERNAL_ASSERT(!ctx.diag.has_errors(), "a pair template failed to lower");
  lower::Dynamics share;
  for (Expr impulse : lower::constraint_impulses(ctx)) share.residual.push_back(-impulse);
  lower::build_kernels(ctx, share, prog, lower::KernelSet::Template);
  lower::fill_metadata(ctx, prog);
  return t;
}

PairTemplates pair_templates(const Model& model, const ResidualProgram& program,
                             const LowerOptions& options) {
  TALON_INTERNAL_ASSERT(program.params.size() == program.param_info.size(),
                        "pair templates need a program with unfolded parameters");
  std::map<std::string, int> param_index;
  for (std::size_t i = 0; i < program.param_info.size(); ++i)
    param_index[program.param_info[i].name] = static_cast<int>(i);
  std::map<PairTemplateKey, int> template_of_key;
  PairTemplates out;
  for (const auto& [first, last] : pair_slot_ranges(program)) {
    PairInstance instance;
    instance.geom_a = program.slots[first].geom_a;
    instance.geom_b = program.slots[first].geom_b;
    const int sim_a = model.geom_sim[instance.geom_a], sim_b = model.geom_sim[instance.geom_b];
    const PairTemplateKey key{model.geom_type[instance.geom_a], model.geom_type[instance.geom_b],
                              sim_a < 0, sim_b < 0, program.slots[first].friction_row >= 0};
    if (!pair_has_template(key.a, key.b)) {
      ++out.unrolled_pairs;
      continue;
    }
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
    append_geom_constants(model, instance.geom_a, instance.geom_inputs);
    append_geom_constants(model, instance.geom_b, instance.geom_inputs);
    out.instances.push_back(std::move(instance));
  }
  return out;
}

KernelPoint instance_point(const PairTemplate& t, const PairInstance& instance,
                           const KernelPoint& program_point) {
  const KernelPoint& p = program_point;
  KernelPoint out;
  const std::tuple<const std::vector<double>*, std::vector<double>*, int> body_groups[] = {
      {&p.q_minus, &out.q_minus, 7}, {&p.u_minus, &out.u_minus, 6}, {&p.u_plus, &out.u_plus, 6}};
  for (const auto& [from, to, width] : body_groups)
    for (int body : instance.bodies)
      to->insert(to->end(), from->begin() + width * body, from->begin() + width * (body + 1));
  for (int row : instance.rows) out.lambda.push_back(p.lambda[row]);
  for (int param : instance.params) out.params.push_back(p.params[param]);
  out.h = p.h;
  for (int w : instance.friction_w) out.friction_w.push_back(p.friction_w[w]);
  out.geoms = instance.geom_inputs;
  TALON_INTERNAL_ASSERT(out.base().size() == t.program.kernel("residual").function.inputs.size(),
                        "an instance's inputs do not match its template");
  return out;
}

}  // namespace talon::ir
