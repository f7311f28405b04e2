#include "ir/lower/body_templates.h"

#include <map>
#include <string>

#include "ir/lower/kernels.h"

namespace talon::ir::lower {
namespace {

// One free body under the model's gravity; every number the dynamics read of it (mass,
// inertia) is a parameter, so an input.
Model body_model(const Model& model) {
  Model m;
  m.source_file = "body template";
  m.gravity = model.gravity;
  m.nsim = 1;
  m.sim_name = {"body"};
  m.sim_parent = {-1};
  m.sim_pose_rel = m.sim_pose_world = {Pose{}};
  m.sim_mass = {1.0};
  m.sim_com = {Vec3::Zero()};
  m.sim_inertia = {Mat3::Identity()};
  return m;
}

PairTemplate lower_body_template(const Model& model, const LowerOptions& options) {
  PairTemplate t;
  t.kind = TemplateKind::Body;
  t.name = "free body";
  ResidualProgram& prog = t.program;
  prog.graph = std::make_unique<Graph>();
  const Model m = body_model(model);
  LowerOptions own = options;
  own.fold_params = false;  // the mass parameters are the instance's inputs
  own.set_templates(false);
  Context ctx(m, own, *prog.graph);
  build_state(ctx);
  build_kernels(ctx, build_dynamics(ctx), prog, KernelSet::BodyTemplate);
  fill_metadata(ctx, prog);
  if (options.kernel_stats) compute_kernel_stats(prog);
  return t;
}

}  // namespace

void add_body_templates(Context& ctx, const ResidualProgram& program, PairTemplates& templates) {
  const Model& m = ctx.model;
  if (m.nsim == 0) return;
  const int index = static_cast<int>(templates.templates.size());
  templates.templates.push_back(lower_body_template(m, ctx.options));
  const std::map<std::string, int> param_index = program.param_indices();
  const ResidualProgram& t = templates.templates.back().program;
  for (int b = 0; b < m.nsim; ++b) {
    PairInstance instance;
    instance.template_index = index;
    instance.bodies = {b};
    for (const ParamInfo& param : t.param_info) {
      const std::string kind = param.name.substr(0, param.name.find(':') + 1);  // "mass:"
      instance.params.push_back(param_index.at(kind + m.sim_name[b]));
    }
    templates.instances.push_back(std::move(instance));
  }
}

}  // namespace talon::ir::lower
