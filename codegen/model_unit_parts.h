// Internal to codegen/model_unit*.cpp: the layout of a model unit and the text of its parts.
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <span>

#include "codegen/c_renderer.h"
#include "codegen/model_unit.h"

namespace talon::ir {
struct PairTemplate;  // ir/lower/pair_templates.h
}

namespace talon::codegen::unit {

// Offsets and sizes the generated loops and API use (all in elements).
struct Layout {
  int nsim = 0, nv = 0, nq = 0, nrows = 0, nnz = 0, nfriction = 0, nnormal = 0;
  int nctrl = 0, nparam = 0, nblocks = 0;
  // The one input array every kernel reads: base inputs, then the frozen friction weights.
  int in_q_minus = 0, in_u_minus = 0, in_u_plus = 0, in_lambda = 0, in_ctrl = 0, in_params = 0,
      in_h = 0, in_terrain = 0, in_q_choose = 0, in_w = 0, in_size = 0;
  int nprobe = 0;        // terrain probes (ir::TerrainProbe), TerrainProbe::kInputs inputs each
  bool chooses = false;  // a contact slot's collider chooses features at q_choose
  // Outputs of `residual`.
  int res_dyn = 0, res_con = 0, res_merit = 0, res_q_plus = 0, res_w = 0, res_size = 0;
  int res_gap = -1;  // the residual kernel's `gap` output: g(q⁺) of every contact normal row
  // Outputs of the fused linearisation (jhat values, c_diag, diag_a).
  int lin_jhat = 0, lin_c = 0, lin_diag = 0, lin_size = 0;
  int mass_size = 0;
  // jvp_exact (only with SolverOptions::krylov_iterations > 0).
  bool resolve_split_steps = false;  // split_* arrays (SolverOptions::resolve_split_steps)
  int krylov = 0;                    // FGMRES iterations
  int dense_rows = 0;  // coupled rows the direct Schur solve takes at most (talon_dense.h)
  int jvp_tangent_u = 0, jvp_tangent_lambda = 0, jvp_in_size = 0, jvp_out_size = 0;
  int jvp_cache_size = 0;  // the templates' staged JVPs (model_unit_pairs.cpp)
  // The backward step (only with SolverOptions::adjoint_iterations > 0): vjp_exact and
  // vjp_inputs share their inputs (base, cotangent_dyn, cotangent_con); vjp_q_plus takes the
  // base and cotangent_q.
  int adjoint = 0;  // FGMRES iterations per cycle
  int vjp_cot_dyn = 0, vjp_cot_con = 0, vjp_in_size = 0;
  int vjpi_q_minus = 0, vjpi_u_minus = 0, vjpi_ctrl = 0, vjpi_params = 0, vjpi_out_size = 0;
  int pose_cot_q = 0, pose_in_size = 0, pose_q_minus = 0, pose_u_plus = 0, pose_out_size = 0;
  int max_substeps = 1;                     // 2^max_substep_depth: substeps the backward records
  int trace_capacity = 0, trace_width = 0;  // NAME_trace (SolverOptions::trace_capacity)
  // Contact pairs with bounding volumes (model_unit_broadphase.cpp; set by
  // generate_model_unit with the broadphase's tables).
  int nbounded = 0, nbounded_rows = 0;
  std::vector<std::string> block_names;  // "dynamics" first
};

// A C99 array size: zero-length arrays are not C.
inline int array_size(int n) {
  return n > 0 ? n : 1;
}

// Text that may sit inside a /* */ comment on one line.
std::string comment_text(const std::string& text);

// The public header (types, sizes, prototypes, documentation), guarded by NAME_H_INCLUDED.
// `declarations` = false leaves out the function prototypes (CUDA).
std::string header_text(const Model& model, const ir::ResidualProgram& program,
                        const Layout& layout, const ModelUnitOptions& options, bool declarations);

// The solver contract before the loops: configuration macros (TALON_*), the typedefs
// talon_workspace / talon_stats. Needs talon_real (talon_math.h) only for the tables, which
// table_text writes after the loops' prelude.
std::string config_text(const Layout& layout, const ModelUnitOptions& options);
std::string table_text(const Model& model, const ir::ResidualProgram& program, const Layout& layout,
                       const ModelUnitOptions& options);
// `TALON_TABLE int name[n] = {...};` and its talon_real twin (model_unit_tables.cpp).
void int_table(std::ostringstream& out, const char* name, const std::vector<int>& values);
void real_table(std::ostringstream& out, const char* name, const std::vector<double>& values,
                ir::CPrecision precision);

// Kernels per type (model_unit_pairs.cpp). A program lowered with pair templates
// (ir::ResidualProgram::pairs) renders each unit kernel K its instances have a share of as
// K_unrolled, and each template's as pairT_K; pair_text then defines talon_kernel_K as
// K_unrolled plus a loop per template over its instance table (gather the template's
// inputs, call it, add its outputs).
struct UnitKernel {
  const char* name;                  // the unit's kernel (talon_kernel_NAME)
  std::vector<const char*> kernels;  // the program's kernels it fuses, in output order
};
std::vector<UnitKernel> unit_kernels(bool with_jvp, bool with_backward);
// The cache of the templates' staged JVPs (talon_unit_jvp_prepare), in elements.
int jvp_cache_size(const ir::ResidualProgram& program);
// The unit kernel's function of `program` (the fused outputs of its kernels), named `name`.
ir::Function unit_function(const ir::ResidualProgram& program, const UnitKernel& k,
                           const std::string& name);
// The functions the unit renders: its kernels, and with pairs also their templates'.
std::vector<ir::Function> unit_functions(const ir::ResidualProgram& program, bool with_jvp,
                                         bool with_backward);
// The broadphase (model_unit_broadphase.cpp): the pairs with bounding volumes, numbered
// template by template; `offset[t]` is template t's first (-1: its pairs have none).
struct BoundedInstances {
  std::vector<int> offset;
  int count = 0;
  int rows = 0;  // constraint rows of those pairs, summed
};
// None where `broadphase` is off (SolverOptions::broadphase).
BoundedInstances bounded_instances(const ir::ResidualProgram& program, bool broadphase);
// Whether template t's loop of unit kernel K skips its separated instances.
bool skips_instances(const BoundedInstances& bounded, int t, const UnitKernel& k);
// What a separated instance adds to unit kernel K's outputs in place of template t's share:
// to template output `output`, `value` followed by template input `input` (C text, e.g.
// "1 + " and λ), or `value` alone where `input` < 0. Outputs not listed get nothing.
struct SkipTerm {
  int output = 0, input = -1;
  std::string value;
};
std::vector<SkipTerm> skip_terms(const ir::PairTemplate& t, const UnitKernel& k,
                                 ir::CPrecision precision);
// The bounded pairs' tables and the solver's talon_broadphase_* functions (no-ops without any).
std::string broadphase_text(const Model& model, const ir::ResidualProgram& program,
                            const BoundedInstances& bounded, ir::CPrecision precision);

// The instance tables, loops and talon_unit_K (in, out, separation) of every unit kernel:
// with pairs, K_unrolled plus a loop per template, whose bounded instances are skipped where
// `separation` (per bounded pair, talon_broadphase_update) is non-null and ≥ 0 (null: every
// pair evaluated); without, a macro for the kernel itself.
std::string pair_text(const ir::ResidualProgram& program, const ModelUnitOptions& options,
                      const BoundedInstances& bounded, bool with_jvp, bool with_backward);

// The C prelude and a prototype of each kernel in `functions`, which the unit's objects
// built from the IR define (model_unit_declared.cpp).
Expected<std::string> declared_kernels(std::span<const ir::Function> functions,
                                       const CRenderOptions& options);

// The public functions of the C target, and the batched __global__ entry of the CUDA target.
// The stepping functions' signatures (no ';', no body), spelled once for the header's
// prototypes and the unit's definitions so the two cannot drift apart.
struct StepSignatures {
  std::string step, step_params, step_backward;
};
StepSignatures step_signatures(const std::string& name);

std::string c_api_text(const ModelUnitOptions& options);
std::string c_backward_api_text(const ModelUnitOptions& options);  // with the backward step
std::string c_trace_api_text(const ModelUnitOptions& options);     // with a trace capacity
std::string cuda_entry_text(const ModelUnitOptions& options);

}  // namespace talon::codegen::unit
