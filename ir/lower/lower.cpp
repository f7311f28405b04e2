// lower_model: runs the lowering passes in block order (every block's rows contiguous),
// then derives the kernels and fills the program's metadata.
#include "ir/lower/lower.h"

#include <chrono>

#include "ir/lower/body_templates.h"
#include "ir/lower/context.h"
#include "ir/lower/joint_templates.h"
#include "ir/lower/kernels.h"
#include "ir/lower/pair_templates.h"
#include "ir/lower/stats.h"

namespace talon::ir {
namespace {

using lower::Context;

Diagnostics notes_as_diagnostics(const Context& ctx) {
  Diagnostics out;
  for (const std::string& note : ctx.notes) out.note({ctx.model.source_file, 0}, "", note);
  return out;
}

}  // namespace

void lower::fill_metadata(Context& ctx, ResidualProgram& prog) {
  prog.nsim = ctx.model.nsim;
  prog.nrows = static_cast<int>(ctx.rows.size());
  prog.nu = ctx.model.nu;
  prog.nfriction = static_cast<int>(ctx.friction_w.size());
  prog.fb_epsilon_sq = ctx.options.fb_epsilon_sq;
  prog.q_minus = ctx.q_minus;
  prog.q_choose = ctx.q_choose;
  prog.u_minus = ctx.u_minus;
  prog.u_plus = ctx.u_plus;
  prog.lambda = ctx.lambda;
  prog.ctrl = ctx.ctrl;
  prog.params = ctx.params;
  prog.h = ctx.h;
  prog.terrain = ctx.terrain;
  prog.instance_inputs = ctx.instance_inputs;
  prog.terrain_probes = ctx.terrain_probes;
  prog.friction_w = ctx.friction_w;
  prog.param_info = ctx.param_info;
  prog.blocks.push_back({"dynamics", 0, 6 * ctx.model.nsim});
  prog.blocks.insert(prog.blocks.end(), ctx.blocks.begin(), ctx.blocks.end());
  for (const lower::Row& row : ctx.rows) prog.rows.push_back(row.info);
  prog.slots = ctx.slots;
  prog.reference_q = reference_configuration(ctx.model);
  prog.notes = ctx.notes;
}

void compute_kernel_stats(ResidualProgram& prog) {
  lower::fill_stats(prog);
}

Expected<ResidualProgram> lower_model(const Model& model, const LowerOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  ResidualProgram prog;
  prog.graph = std::make_unique<Graph>();
  Context ctx(model, options, *prog.graph);
  lower::build_state(ctx);
  lower::build_joint_sets(ctx);
  if (ctx.diag.has_errors()) return ctx.diag;
  // With joint templates the joint rows here are placeholders: the templates compute the
  // coordinates their rows need (joint_templates.cpp), and this graph needs none.
  if (!options.uses_joint_templates()) lower::build_joint_coordinates(ctx);
  lower::build_joint_rows(ctx);
  lower::build_limit_rows(ctx);
  lower::build_contact_rows(ctx);
  lower::build_servo_rows(ctx);
  if (ctx.diag.has_errors()) return ctx.diag;
  lower::build_joint_forces(ctx);
  // With body templates the bodies' own terms are the template's; the rows' and forces' stay.
  const lower::Dynamics dynamics =
      options.uses_body_templates() ? lower::constraint_share(ctx) : lower::build_dynamics(ctx);
  lower::build_kernels(ctx, dynamics, prog);
  lower::fill_metadata(ctx, prog);
  PairTemplates templates;
  if (options.uses_pair_templates()) templates = pair_templates(model, prog, options);
  if (options.uses_joint_templates()) lower::add_joint_templates(ctx, prog, templates);
  if (options.uses_body_templates()) lower::add_body_templates(ctx, prog, templates);
  attach_templates(std::move(templates), prog);
  prog.stats.graph_nodes = prog.graph->num_nodes();
  prog.stats.blocks = prog.blocks;
  if (options.kernel_stats) compute_kernel_stats(prog);
  prog.stats.contact_pairs = ctx.contact_pairs;
  prog.stats.skipped_pairs = ctx.skipped_pairs;
  prog.stats.build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Expected<ResidualProgram>(std::move(prog), notes_as_diagnostics(ctx));
}

}  // namespace talon::ir
