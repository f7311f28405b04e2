// The public functions of a model unit: thin wrappers over the loops (talon_newton.h) for the
// C target, and batched __global__ entry points (one thread per world) for the CUDA target.
#include "codegen/model_unit_parts.h"

namespace talon::codegen::unit {

StepSignatures step_signatures(const std::string& n) {
  const std::string r = n + "_real", ws = n + "_workspace* ws)";
  return {
      "int " + n + "_step(" + r + " q[], " + r + " u[], const " + r + " ctrl[], " + r + " h, " + ws,
      "int " + n + "_step_params(" + r + " q[], " + r + " u[], const " + r + " ctrl[], const " + r +
          " params[], " + r + " h, " + ws,
      "int " + n + "_step_backward(const " + r + " q[], const " + r + " u[], const " + r +
          " ctrl[], const " + r + " params[], " + r + " h, const " + r + " warm[], " + r +
          " dq[], " + r + " du[], " + r + " dctrl[], " + r + " dparams[], " + ws};
}

std::string c_api_text(const ModelUnitOptions& options) {
  const std::string& n = options.name;
  const std::string r = n + "_real";
  const StepSignatures sig = step_signatures(n);
  return "/* ---- Public API (see the header) ---- */\n"
         "void " +
         n + "_initial_state(" + r + " q[], " + r +
         " u[]) {\n"
         "  int i;\n"
         "  for (i = 0; i < TALON_NQ; ++i) q[i] = talon_initial_q[i];\n"
         "  for (i = 0; i < TALON_NV; ++i) u[i] = 0;\n"
         "}\n\n"
         "void " +
         n + "_default_params(" + r +
         " params[]) {\n"
         "  talon_copy(params, talon_default_params, TALON_NPARAM);\n"
         "}\n\n"
         "void " +
         n + "_workspace_init(" + n + "_workspace* ws) { talon_reset(ws); }\n\n" + sig.step +
         " {\n"
         "  return talon_step_world(ws, q, u, ctrl, talon_default_params, h);\n"
         "}\n\n" +
         sig.step_params +
         " {\n"
         "  return talon_step_world(ws, q, u, ctrl, params, h);\n"
         "}\n\n"
         "void " +
         n + "_step_statistics(const " + n + "_workspace* ws, " + r +
         " out[]) {\n"
         "  int i;\n"
         "  out[0] = (" +
         r +
         ")ws->stats.newton_iterations;\n"
         "  out[1] = (" +
         r +
         ")ws->stats.best_iterate;\n"
         "  out[2] = (" +
         r +
         ")ws->stats.pcr_iterations;\n"
         "  out[3] = (" +
         r +
         ")ws->stats.converged;\n"
         "  out[4] = ws->stats.merit;\n"
         "  out[5] = (" +
         r +
         ")ws->stats.substeps;\n"
         "  for (i = 0; i < TALON_NBLOCKS; ++i) out[6 + i] = ws->stats.block_residual[i];\n"
         "}\n\n"
         "void " +
         n + "_impulses(const " + n + "_workspace* ws, " + r + " out[]) {\n" +
         "  talon_copy(out, ws->best_lambda, TALON_NROWS);\n"
         "}\n\n"
         "void " +
         n + "_contact_gaps(" + n + "_workspace* ws, " + r +
         " gaps[]) {\n"
         "  talon_contact_gaps(ws, gaps);\n"
         "}\n\n"
         "long " +
         n + "_workspace_size(void) { return (long)sizeof(" + n + "_workspace); }\n";
}

std::string c_backward_api_text(const ModelUnitOptions& options) {
  const std::string& n = options.name;
  const std::string r = n + "_real";
  return "void " + n + "_warm_start(const " + n + "_workspace* ws, " + r +
         " warm[]) {\n"
         "  const int valid = ws->warm_valid == TALON_WARM_MAGIC && ws->warm_h > 0;\n"
         "  if (valid) talon_copy(warm, ws->warm_lambda, TALON_NROWS);\n"
         "  else talon_fill(warm, 0, TALON_NROWS);\n"
         "  warm[TALON_NROWS] = valid ? ws->warm_h : 0;\n"
         "}\n\n"
         "void " +
         n + "_set_warm_start(" + n + "_workspace* ws, const " + r +
         " warm[]) {\n"
         "  talon_set_warm_start(ws, warm);\n"
         "}\n\n" +
         step_signatures(n).step_backward +
         " {\n"
         "  return talon_step_backward(ws, q, u, ctrl, params ? params : talon_default_params, h,\n"
         "                             warm, dq, du, dctrl, dparams);\n"
         "}\n\n"
         "void " +
         n + "_backward_statistics(const " + n + "_workspace* ws, " + r +
         " out[3]) {\n"
         "  out[0] = (" +
         r +
         ")ws->adj_stats.krylov_iterations;\n"
         "  out[1] = (" +
         r +
         ")ws->adj_stats.pcr_iterations;\n"
         "  out[2] = ws->adj_stats.residual;\n"
         "}\n";
}

std::string c_trace_api_text(const ModelUnitOptions& options) {
  const std::string& n = options.name;
  return "void " + n + "_set_trace(" + n +
         "_workspace* ws, int on) {\n"
         "  ws->trace_on = on != 0;\n"
         "  ws->trace_count = 0;\n"
         "}\n\n"
         "int " +
         n + "_trace(const " + n + "_workspace* ws, " + n +
         "_real out[]) {\n"
         "  const int stored = ws->trace_count < TALON_TRACE_CAPACITY ? ws->trace_count\n"
         "                                                           : TALON_TRACE_CAPACITY;\n"
         "  talon_copy(out, ws->trace, stored * TALON_TRACE_WIDTH);\n"
         "  return ws->trace_count;\n"
         "}\n";
}

std::string cuda_entry_text(const ModelUnitOptions& options) {
  const std::string& n = options.name;
  const std::string r = n + "_real";
  const std::string world =
      "  const long long world = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (world >= count) return;\n";
  return "/* ---- Batched entry points: one thread per world, world-major arrays ---- */\n"
         "/* params may be 0 (the model's values), ctrl may be 0 (zero controls). */\n"
         "extern \"C\" __global__ void " +
         n + "_step_batch(" + r + "* q, " + r + "* u, const " + r + "* ctrl, const " + r +
         "* params, " + r + " h, " + n + "_workspace* ws, int* status, int count) {\n" + world +
         "  status[world] = talon_step_world(ws + world, q + world * TALON_NQ,\n"
         "                                   u + world * TALON_NV,\n"
         "                                   ctrl ? ctrl + world * TALON_NCTRL : 0,\n"
         "                                   params ? params + world * TALON_NPARAM\n"
         "                                          : talon_default_params,\n"
         "                                   h);\n"
         "}\n\n"
         "extern \"C\" __global__ void " +
         n + "_reset_batch(" + n + "_workspace* ws, int count) {\n" + world +
         "  talon_reset(ws + world);\n}\n\n"
         "#if TALON_BACKWARD\n"
         "/* The backward step of each world (" +
         n + "_step_backward): warm holds " + n +
         "_NWARM\n"
         "   values per world, dq and du the cotangents in and out; dctrl, dparams may be 0. */\n"
         "extern \"C\" __global__ void " +
         n + "_step_backward_batch(const " + r + "* q, const " + r + "* u, const " + r +
         "* ctrl, const " + r + "* params, " + r + " h, const " + r + "* warm, " + r + "* dq, " +
         r + "* du, " + r + "* dctrl, " + r + "* dparams, " + n +
         "_workspace* ws, int* status, int count) {\n" + world +
         "  status[world] = talon_step_backward(\n"
         "      ws + world, q + world * TALON_NQ, u + world * TALON_NV,\n"
         "      ctrl ? ctrl + world * TALON_NCTRL : 0,\n"
         "      params ? params + world * TALON_NPARAM : talon_default_params, h,\n"
         "      warm + world * (TALON_NROWS + 1), dq + world * TALON_NQ, du + world * TALON_NV,\n"
         "      dctrl ? dctrl + world * TALON_NCTRL : 0,\n"
         "      dparams ? dparams + world * TALON_NPARAM : 0);\n"
         "}\n"
         "#endif\n\n"
         "/* gaps: world-major, TALON_NNORMAL per world. */\n"
         "extern \"C\" __global__ void " +
         n + "_contact_gaps_batch(" + n + "_workspace* ws, " + r + "* gaps, int count) {\n" +
         world + "  talon_contact_gaps(ws + world, gaps + world * TALON_NNORMAL);\n}\n";
}

}  // namespace talon::codegen::unit
