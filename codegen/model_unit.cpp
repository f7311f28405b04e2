// generate_model_unit: checks the program's kernel layout, renders the kernels and pastes
// the unit together (header, kernels, configuration, loops, tables, API).
#include "codegen/model_unit.h"

#include <algorithm>

#include "codegen/c_renderer.h"
#include "codegen/cuda_renderer.h"
#include "codegen/model_unit_parts.h"
#include "codegen/solver/solver_text.h"
#include "codegen/symbols.h"
#include "codegen/terrain_bvh.h"

namespace talon::codegen {
namespace {

using unit::Layout;

constexpr const char* kKernelPrefix = "talon_kernel_";
// The backward step's workspace holds every substep of a step: 2^depth of them.
constexpr int kMaxBackwardDepth = 8;
constexpr const char* kBaseInputs[] = {"q_minus", "u_minus", "u_plus",  "lambda",  "ctrl",
                                       "params",  "h",       "terrain", "q_choose"};

// Collects layout mismatches as errors: they are lowering bugs, but a user sees them as a
// message rather than a crash.
class LayoutChecker {
 public:
  const ir::Slice* input(const ir::Kernel& k, const char* name, int size) {
    return check(k, k.input(name), name, size, "input");
  }
  const ir::Slice* output(const ir::Kernel& k, const char* name, int size) {
    return check(k, k.output(name), name, size, "output");
  }
  // The same slice (offset and size) as `reference`.
  void same_input(const ir::Kernel& k, const char* name, const ir::Slice* reference) {
    const ir::Slice* s = k.input(name);
    if (reference && s && (s->offset != reference->offset || s->size != reference->size))
      fail(k.function.name + ": input '" + name + "' is not where the residual kernel has it");
  }
  void fail(const std::string& message) {
    diagnostics_.error(
        {}, "", "the lowered program does not have the layout the solver loops expect: " + message);
  }
  Diagnostics& diagnostics() { return diagnostics_; }

 private:
  const ir::Slice* check(const ir::Kernel& k, const ir::Slice* s, const char* name, int size,
                         const char* what) {
    if (!s) {
      fail(k.function.name + ": no " + what + " '" + name + "'");
    } else if (size >= 0 && s->size != size) {
      fail(k.function.name + ": " + what + " '" + name + "' has " + std::to_string(s->size) +
           " entries, expected " + std::to_string(size));
    }
    return s;
  }

  Diagnostics diagnostics_;
};

int count_rows(const ir::ResidualProgram& p, ir::RowKind kind) {
  int n = 0;
  for (const ir::ConstraintRowInfo& row : p.rows) n += row.kind == kind;
  return n;
}

// The slices of the backward step's kernels (vjp_exact, vjp_inputs, vjp_q_plus).
void backward_layout(const ir::ResidualProgram& p, const SolverOptions& solver,
                     LayoutChecker& check, Layout& l) {
  const ir::Kernel& residual = p.kernel("residual");
  const ir::Kernel& vjp = p.kernel("vjp_exact");
  const ir::Kernel& inputs = p.kernel("vjp_inputs");
  const ir::Kernel& pose = p.kernel("vjp_q_plus");
  for (const ir::Kernel* k : {&vjp, &inputs, &pose})
    for (const char* input : kBaseInputs) check.same_input(*k, input, residual.input(input));
  const ir::Slice* dyn = check.input(vjp, "cotangent_dyn", l.nv);
  const ir::Slice* con = check.input(vjp, "cotangent_con", l.nrows);
  check.same_input(inputs, "cotangent_dyn", dyn);
  check.same_input(inputs, "cotangent_con", con);
  check.output(vjp, "vjp", l.nv + l.nrows);
  const ir::Slice* outs[] = {
      check.output(inputs, "q_minus", l.nq), check.output(inputs, "u_minus", l.nv),
      check.output(inputs, "ctrl", l.nctrl), check.output(inputs, "params", l.nparam)};
  const ir::Slice* cot_q = check.input(pose, "cotangent_q", l.nq);
  const ir::Slice* pose_q = check.output(pose, "q_minus", l.nq);
  const ir::Slice* pose_u = check.output(pose, "u_plus", l.nv);
  if (!dyn || !con || !outs[0] || !outs[1] || !outs[2] || !outs[3] || !cot_q || !pose_q || !pose_u)
    return;
  l.adjoint = solver.adjoint_iterations;
  l.vjp_cot_dyn = dyn->offset;
  l.vjp_cot_con = con->offset;
  l.vjp_in_size = static_cast<int>(vjp.function.inputs.size());
  l.vjpi_q_minus = outs[0]->offset;
  l.vjpi_u_minus = outs[1]->offset;
  l.vjpi_ctrl = outs[2]->offset;
  l.vjpi_params = outs[3]->offset;
  l.vjpi_out_size = static_cast<int>(inputs.function.outputs.size());
  l.pose_cot_q = cot_q->offset;
  l.pose_in_size = static_cast<int>(pose.function.inputs.size());
  l.pose_q_minus = pose_q->offset;
  l.pose_u_plus = pose_u->offset;
  l.pose_out_size = static_cast<int>(pose.function.outputs.size());
  l.max_substeps = 1 << solver.max_substep_depth;
}

Expected<Layout> compute_layout(const ir::ResidualProgram& p, const SolverOptions& solver) {
  Layout l;
  l.nsim = p.nsim;
  l.resolve_split_steps = solver.resolve_split_steps && solver.max_substep_depth > 0;
  l.nv = 6 * p.nsim;
  l.nq = 7 * p.nsim;
  l.nrows = p.nrows;
  l.dense_rows = std::min(p.nrows, solver.dense_rows);
  l.nnz = static_cast<int>(p.jhat_row.size());
  l.nfriction = p.nfriction;
  l.nnormal = count_rows(p, ir::RowKind::ContactNormal);
  l.nctrl = p.nu;
  l.nparam = static_cast<int>(p.params.size());
  l.nprobe = static_cast<int>(p.terrain_probes.size());
  l.chooses = std::any_of(p.slots.begin(), p.slots.end(),
                          [](const ir::ContactSlot& s) { return s.chooses; });
  for (const ir::RowBlock& b : p.blocks) l.block_names.push_back(b.name);
  l.nblocks = static_cast<int>(l.block_names.size());
  l.mass_size = 20 * p.nsim;

  LayoutChecker check;
  if (l.block_names.empty() || l.block_names.front() != "dynamics")
    check.fail("the first block is not 'dynamics'");
  const ir::Kernel& residual = p.kernel("residual");
  const int base_sizes[] = {
      l.nq, l.nv, l.nv, l.nrows, l.nctrl, l.nparam, 1, ir::TerrainProbe::kInputs * l.nprobe, l.nq};
  int* base_offsets[] = {&l.in_q_minus, &l.in_u_minus, &l.in_u_plus,  &l.in_lambda,  &l.in_ctrl,
                         &l.in_params,  &l.in_h,       &l.in_terrain, &l.in_q_choose};
  static_assert(std::size(base_sizes) == std::size(kBaseInputs));
  for (std::size_t i = 0; i < std::size(kBaseInputs); ++i)
    if (const ir::Slice* s = check.input(residual, kBaseInputs[i], base_sizes[i]))
      *base_offsets[i] = s->offset;
  for (const char* name : {"mass", "jhat", "c_diag", "diag_a"})
    for (const char* input : kBaseInputs)
      check.same_input(p.kernel(name), input, residual.input(input));
  const ir::Slice* w = check.input(p.kernel("jhat"), "friction_w", l.nfriction);
  for (const char* name : {"c_diag", "diag_a"}) check.same_input(p.kernel(name), "friction_w", w);
  if (w) l.in_w = w->offset;
  l.in_size = static_cast<int>(p.kernel("jhat").function.inputs.size());

  const ir::Slice* outs[] = {
      check.output(residual, "r_dyn", l.nv), check.output(residual, "r_con", l.nrows),
      check.output(residual, "merit", l.nrows), check.output(residual, "q_plus", l.nq),
      check.output(residual, "friction_w", l.nfriction)};
  int* res_offsets[] = {&l.res_dyn, &l.res_con, &l.res_merit, &l.res_q_plus, &l.res_w};
  for (int i = 0; i < 5; ++i)
    if (outs[i]) *res_offsets[i] = outs[i]->offset;
  if (const ir::Slice* gap = check.output(residual, "gap", l.nnormal)) l.res_gap = gap->offset;
  l.res_size = static_cast<int>(residual.function.outputs.size());
  check.output(p.kernel("jhat"), "values", l.nnz);
  check.output(p.kernel("c_diag"), "c_diag", l.nrows);
  check.output(p.kernel("diag_a"), "diag_a", l.nrows);
  check.output(p.kernel("mass"), "mass", l.mass_size);
  l.lin_jhat = 0;
  l.lin_c = l.nnz;
  l.lin_diag = l.nnz + l.nrows;
  l.lin_size = l.nnz + 2 * l.nrows;
  {
    const ir::Kernel& jvp = p.kernel("jvp_exact");
    for (const char* input : kBaseInputs) check.same_input(jvp, input, residual.input(input));
    const ir::Slice* tu = check.input(jvp, "tangent_u", l.nv);
    const ir::Slice* tl = check.input(jvp, "tangent_lambda", l.nrows);
    check.output(jvp, "jvp", l.nv + l.nrows);
    if (tu && tl) {
      l.krylov = solver.krylov_iterations;
      l.jvp_tangent_u = tu->offset;
      l.jvp_tangent_lambda = tl->offset;
      l.jvp_in_size = static_cast<int>(jvp.function.inputs.size());
      l.jvp_out_size = l.nv + l.nrows;
      l.jvp_cache_size = unit::jvp_cache_size(p);
    }
  }
  if (solver.adjoint_iterations > 0) {
    if (p.find_kernel("vjp_exact") == nullptr)
      check.fail(
          "the unit has a backward step (adjoint_iterations > 0) but the program was "
          "lowered without its kernels (LowerOptions::backward_kernels)");
    else
      backward_layout(p, solver, check, l);
  }
  l.trace_capacity = std::max(solver.trace_capacity, 0);
  l.trace_width = l.trace_capacity > 0 ? kTraceBlockResiduals + l.nblocks + 2 * l.nsim : 0;
  if (check.diagnostics().has_errors()) return check.diagnostics();
  return l;
}

// The generated query searches one terrain's triangles (model_unit_tables.cpp), of which
// some must have an area.
Diagnostics check_terrains(const Model& model, const ir::ResidualProgram& program) {
  Diagnostics diagnostics;
  if (program.terrain_probes.empty()) return diagnostics;
  const int terrain = program.terrain_probes.front().terrain_geom;
  for (const ir::TerrainProbe& probe : program.terrain_probes)
    if (probe.terrain_geom != terrain) {
      diagnostics.error({}, "",
                        "the model has more than one terrain geom that geoms touch; a model unit "
                        "searches one terrain (merge the meshes into one file)");
      return diagnostics;
    }
  if (build_terrain_bvh(model.geom_terrain[terrain]).node_count() == 0)
    diagnostics.error({}, "", "every triangle of the terrain has zero area");
  return diagnostics;
}

Diagnostics check_name(const std::string& name) {
  Diagnostics diagnostics;
  std::vector<std::string> symbols;
  for (const char* suffix : {"_step", "_step_params", "_step_batch", "_workspace", "_stats",
                             "_initial_state", "_default_params", "_real"})
    symbols.push_back(name + suffix);
  if (!is_c_identifier(name))
    diagnostics.error({}, "", "'" + name + "' is not a C identifier (model unit name)");
  else
    check_symbols(symbols, diagnostics);
  return diagnostics;
}

// The unit's kernels `functions` rendered, or only declared for a build from the IR.
Expected<std::string> rendered_kernels(std::span<const ir::Function> functions,
                                       const ModelUnitOptions& options) {
  Expected<RenderedSource> rendered = [&]() -> Expected<RenderedSource> {
    if (options.target == UnitTarget::Cuda) {
      CudaRenderOptions o;
      o.precision = options.precision;
      o.prefix = kKernelPrefix;
      o.kernels = false;
      return render_cuda(functions, o);
    }
    CRenderOptions o;
    o.precision = options.precision;
    o.prefix = kKernelPrefix;
    if (options.kernels_from_ir) {
      Expected<std::string> declared = unit::declared_kernels(functions, o);
      if (!declared) return declared.diagnostics();
      return RenderedSource{std::move(*declared), {}, {}};
    }
    return render_c(functions, o);
  }();
  if (!rendered) return rendered.diagnostics();
  return rendered->code;
}

}  // namespace

ir::LowerOptions unit_lower_options(ir::LowerOptions lower, const SolverOptions& solver) {
  if (solver.adjoint_iterations == 0) lower.backward_kernels = false;
  return lower;
}

Expected<ModelUnit> generate_model_unit(const Model& model, const ir::ResidualProgram& program,
                                        const ModelUnitOptions& options) {
  Diagnostics name_errors = check_name(options.name);
  if (name_errors.has_errors()) return name_errors;
  const int depth = options.solver.max_substep_depth;
  if (options.solver.adjoint_iterations > 0 && (depth < 0 || depth > kMaxBackwardDepth)) {
    Diagnostics errors;
    errors.error({}, "",
                 "the backward step records every substep of a step: max_substep_depth must be "
                 "0.." +
                     std::to_string(kMaxBackwardDepth) + " with it, not " + std::to_string(depth));
    return errors;
  }
  if (options.solver.krylov_iterations < 1) {
    Diagnostics errors;
    errors.error({}, "",
                 "krylov_iterations must be at least 1: every Newton direction is an FGMRES "
                 "solve of the exact Jacobian system");
    return errors;
  }
  if (Diagnostics terrain = check_terrains(model, program); terrain.has_errors()) return terrain;
  if (options.kernels_from_ir &&
      (options.target != UnitTarget::C || options.precision != ir::CPrecision::Double)) {
    Diagnostics errors;
    errors.error({}, "", "kernels built from the IR are f64 code for the CPU (C target) only");
    return errors;
  }
  Expected<Layout> layout = compute_layout(program, options.solver);
  if (!layout) return layout.diagnostics();
  // In f32 the factor would count the friction compliance's pivots as dependent rows
  // (codegen/solver/talon_dense.h): PCR solves the Schur system, no factor is generated.
  if (options.precision != ir::CPrecision::Double) layout->dense_rows = 0;

  const bool cuda = options.target == UnitTarget::Cuda;
  const unit::BoundedInstances bounded =
      unit::bounded_instances(program, options.solver.broadphase);
  layout->nbounded = bounded.count;
  layout->nbounded_rows = bounded.rows;
  // The loops' prelude defines talon_real, which the tables use; the loops read the tables.
  const std::string rest =
      unit::config_text(*layout, options) + "\n" + solver_prelude_text() + "\n" +
      unit::table_text(model, program, *layout, options) + "\n" +
      unit::broadphase_text(model, program, bounded, options.precision) + "\n" +
      unit::pair_text(program, options, bounded, layout->krylov > 0, layout->adjoint > 0) +
      (layout->nprobe > 0 ? solver_terrain_text() + "\n" : std::string()) + solver_loop_text() +
      "\n" + (cuda ? unit::cuda_entry_text(options) : unit::c_api_text(options)) +
      (!cuda && layout->adjoint > 0 ? "\n" + unit::c_backward_api_text(options) : "") +
      (!cuda && layout->trace_capacity > 0 ? "\n" + unit::c_trace_api_text(options) : "");
  std::vector<ir::Function> functions =
      unit::unit_functions(program, layout->krylov > 0, layout->adjoint > 0);
  Expected<std::string> kernels = rendered_kernels(functions, options);
  if (!kernels) return kernels.diagnostics();

  ModelUnit out;
  out.name = options.name;
  out.nq = layout->nq;
  out.nv = layout->nv;
  out.nctrl = layout->nctrl;
  out.nparam = layout->nparam;
  out.nrows = layout->nrows;
  out.ncontacts = layout->nnormal;
  out.nstats = kStatBlockResiduals + layout->nblocks;
  out.block_names = layout->block_names;
  out.trace_capacity = layout->trace_capacity;
  out.trace_width = layout->trace_width;
  if (options.kernels_from_ir) {
    out.kernels = std::move(functions);
    out.kernel_prefix = kKernelPrefix;
  }
  const std::string header = unit::header_text(model, program, *layout, options, !cuda);
  if (!cuda) out.header = header;
  // One buffer of the final size: a copy of megabytes costs its pages' first touch on every
  // cache hit, which generates the text to hash it.
  out.source.reserve(header.size() + kernels->size() + rest.size() + 2);
  out.source.append(header).append("\n").append(*kernels).append("\n").append(rest);
  return out;
}

}  // namespace talon::codegen
