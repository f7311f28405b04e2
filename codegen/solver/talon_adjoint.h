#ifdef TALON_SOLVER_EMBED
R"talon_c(
#endif
/* Talon solver loops, part 6: the backward step (DESIGN "Adjoint"; only with TALON_BACKWARD).
 *
 * A step maps its data d = (q⁻, u⁻, ctrl, θ) to (q⁺, u⁺) through the solution x = (u⁺, λ) of
 * F(x; d) = [r_dyn; r_con] = 0 and the pose q⁺ = Q(q⁻, u⁺) (exponential map). Given
 * q̄⁺ = ∂L/∂q⁺ and ū⁺ = ∂L/∂u⁺, the implicit function theorem gives
 *   Jᵀ μ = b,   b = (ū⁺ + (∂Q/∂u⁺)ᵀ q̄⁺, 0),   J = ∂F/∂x exact at the solution
 *   d̄ = −(∂F/∂d)ᵀ μ, plus the direct part q̄⁻ += (∂Q/∂q⁻)ᵀ q̄⁺.
 * J is the exact Jacobian (W differentiated with respect to v_t, λ_t and λ_n, geometric terms
 * kept): the frozen-W operator of the forward gives dv⁺/dv⁻ = 0.755 instead of 1.000 for a
 * box sliding at h = 0.1 (DESIGN, "Known pitfalls"). Jᵀ is applied matrix-free by the
 * `vjp_exact` kernel and the system solved by restarted FGMRES (talon_krylov.h) with the
 * transposed frozen-W step as preconditioner; then `vjp_inputs` gives (∂F/∂d)ᵀ μ and
 * `vjp_q_plus` the pose's pull-back. Nothing of the forward's iterations is kept: the step
 * is recomputed from its start state (with the warm start the forward had, so it takes the
 * same iterates and the same substeps), its accepted substeps are recorded (at most
 * 2^TALON_MAX_SUBSTEP_DEPTH: start state, h, solution), and the backward runs through them
 * in reverse. Memory: the workspace's fixed arrays, O(1) per step.
 */
#if TALON_BACKWARD

/* The warm start of the next step from `warm` (TALON_NROWS impulses, then their h), as
 * NAME_warm_start saved it; 0 or h ≤ 0: a cold start. */
static TALON_CALLABLE void talon_set_warm_start(talon_workspace* ws, const talon_real* warm) {
  if (warm && warm[TALON_NROWS] > 0 && talon_all_finite(warm, TALON_NROWS + 1)) {
    talon_copy(ws->warm_lambda, warm, TALON_NROWS);
    ws->warm_h = warm[TALON_NROWS];
    ws->warm_valid = TALON_WARM_MAGIC;
  } else {
    ws->warm_valid = 0;
  }
}

/* μ = J⁻ᵀ b (both TALON_KRYLOV_N long) at the point whose base inputs are in ws->adj_in and
 * whose linearisation is in ws->lin: FGMRES(TALON_ADJOINT_ITERATIONS) restarted until
 * ‖b − Jᵀ μ‖ ≤ TALON_ADJOINT_TOLERANCE ‖b‖ or TALON_ADJOINT_RESTARTS cycles. Adds its
 * iterations and final relative residual to ws->adj_stats. */
static TALON_CALLABLE void talon_adjoint_solve(talon_workspace* ws, const talon_real* b,
                                               talon_real* mu) {
  const talon_real norm_b = TALON_SQRT(talon_dot(b, b, TALON_KRYLOV_N));
  talon_real relative = 0;
  int cycle, i;
  talon_fill(mu, 0, TALON_KRYLOV_N);
  if (!(norm_b > TALON_TINY)) return;
  for (cycle = 0;; ++cycle) {
    int krylov = 0;
    talon_real reached;
    /* the true residual b − Jᵀ μ into the first Krylov row (μ = 0 at first) */
    if (cycle == 0) {
      talon_copy(ws->kv, b, TALON_KRYLOV_N);
    } else {
      talon_adjoint_apply(ws, mu, ws->kv);
      for (i = 0; i < TALON_KRYLOV_N; ++i) ws->kv[i] = b[i] - ws->kv[i];
    }
    relative = TALON_SQRT(talon_dot(ws->kv, ws->kv, TALON_KRYLOV_N)) / norm_b;
    if (!(relative > (talon_real)TALON_ADJOINT_TOLERANCE) || cycle >= TALON_ADJOINT_RESTARTS)
      break;
    ws->adj_stats.pcr_iterations +=
        talon_fgmres_cycle(ws, TALON_ADJOINT_ITERATIONS, 1,
                           (talon_real)TALON_ADJOINT_TOLERANCE * norm_b, mu, &krylov, &reached);
    ws->adj_stats.krylov_iterations += krylov;
    if (krylov == 0) break; /* no progress possible (breakdown) */
  }
  ws->adj_stats.residual = TALON_FMAX(ws->adj_stats.residual, relative);
}

/* Puts substep `s`'s point (start state, h, solution) into ws->in and evaluates what the
 * adjoint solve needs there: M̃, the residual (for the exact W), the frozen-W linearisation
 * and PCR's scaling, exactly as the forward's last update saw them. */
static TALON_CALLABLE void talon_adjoint_point(talon_workspace* ws, int s) {
  talon_real* in = ws->in;
  talon_copy(in + TALON_IN_Q_MINUS, ws->rec_q + s * TALON_NQ, TALON_NQ);
  talon_copy(in + TALON_IN_U_MINUS, ws->rec_u + s * TALON_NV, TALON_NV);
  talon_copy(in + TALON_IN_U_PLUS, ws->rec_u_plus + s * TALON_NV, TALON_NV);
  talon_copy(in + TALON_IN_LAMBDA, ws->rec_lambda + s * TALON_NROWS, TALON_NROWS);
  in[TALON_IN_H] = ws->rec_h[s];
  talon_copy(in + TALON_IN_TERRAIN, ws->rec_terrain + s * TALON_NTERRAIN_INPUTS,
             TALON_NTERRAIN_INPUTS);
#if TALON_CHOOSES
  talon_copy(in + TALON_IN_Q_CHOOSE, ws->rec_q_choose + s * TALON_NQ, TALON_NQ);
#endif
  talon_broadphase_evaluate_all(ws); /* every pair: the exact Jacobian's preconditioner */
  talon_unit_mass(in, ws->mass, 0);
  talon_unit_residual(in, ws->res, 0);
  talon_linearize_frozen(ws);
  talon_schur_select(ws);
  talon_copy(ws->adj_in, in, TALON_IN_W);
  talon_copy(ws->pose_in, in, TALON_IN_W);
}

/* The backward of recorded substep s: (dq, du) = ∂L/∂(q⁺, u⁺) on entry, ∂L/∂(q⁻, u⁻) on
 * return; ∂L/∂ctrl and ∂L/∂θ are added to dctrl and dparams (either may be 0). */
static TALON_CALLABLE void talon_substep_backward(talon_workspace* ws, int s, talon_real* dq,
                                                  talon_real* du, talon_real* dctrl,
                                                  talon_real* dparams) {
  talon_real* b = ws->adj_b;
  talon_real* mu = ws->adj_mu;
  const talon_real* pulled = ws->adj_out;
  int i;
  talon_adjoint_point(ws, s);
  /* the pose: b_u = ū⁺ + (∂Q/∂u⁺)ᵀ q̄⁺, and q̄⁻'s direct part (∂Q/∂q⁻)ᵀ q̄⁺ */
  talon_copy(ws->pose_in + TALON_POSE_IN_COT_Q, dq, TALON_NQ);
  talon_unit_vjp_q_plus(ws->pose_in, ws->adj_out, 0);
  for (i = 0; i < TALON_NV; ++i) b[i] = du[i] + pulled[TALON_POSE_OUT_U_PLUS + i];
  talon_fill(b + TALON_NV, 0, TALON_NROWS);
  talon_copy(dq, pulled + TALON_POSE_OUT_Q_MINUS, TALON_NQ);
  talon_adjoint_solve(ws, b, mu);
  /* d̄ = −(∂F/∂d)ᵀ μ */
  talon_copy(ws->adj_in + TALON_VJP_IN_COT_DYN, mu, TALON_NV);
  talon_copy(ws->adj_in + TALON_VJP_IN_COT_CON, mu + TALON_NV, TALON_NROWS);
  talon_unit_vjp_inputs(ws->adj_in, ws->adj_out, 0);
  for (i = 0; i < TALON_NQ; ++i) dq[i] -= pulled[TALON_VJPI_OUT_Q_MINUS + i];
  for (i = 0; i < TALON_NV; ++i) du[i] = -pulled[TALON_VJPI_OUT_U_MINUS + i];
  if (dctrl)
    for (i = 0; i < TALON_NCTRL; ++i) dctrl[i] -= pulled[TALON_VJPI_OUT_CTRL + i];
  if (dparams)
    for (i = 0; i < TALON_NPARAM; ++i) dparams[i] -= pulled[TALON_VJPI_OUT_PARAMS + i];
}

/* The backward of one step from (q, u) (the step's start state, not changed) with `warm` the
 * warm start the forward step had (TALON_NROWS impulses, then their h; 0 or h = 0: cold):
 * (dq, du) hold ∂L/∂(q⁺, u⁺) on entry and ∂L/∂(q⁻, u⁻) on return; dctrl and dparams
 * (either may be 0) are overwritten with ∂L/∂ctrl and ∂L/∂θ. Returns the forward step's code
 * or TALON_STEP_NONFINITE for a non-finite result; dq and du change only on TALON_STEP_OK.
 * Leaves ws's warm start at the end of the step, as the forward would. */
static TALON_CALLABLE int talon_step_backward(talon_workspace* ws, const talon_real* q,
                                              const talon_real* u, const talon_real* ctrl,
                                              const talon_real* params, talon_real h,
                                              const talon_real* warm, talon_real* dq,
                                              talon_real* du, talon_real* dctrl,
                                              talon_real* dparams) {
  int code, s;
  ws->adj_stats.krylov_iterations = 0;
  ws->adj_stats.pcr_iterations = 0;
  ws->adj_stats.residual = 0;
  talon_set_warm_start(ws, warm);
  if (!talon_all_finite(dq, TALON_NQ) || !talon_all_finite(du, TALON_NV))
    return TALON_STEP_NONFINITE;
  talon_copy(ws->back_q, q, TALON_NQ);
  talon_copy(ws->back_u, u, TALON_NV);
  ws->record = 1;
  code = talon_step_world(ws, ws->back_q, ws->back_u, ctrl, params, h);
  ws->record = 0;
  if (code != TALON_STEP_OK) return code;
  talon_copy(ws->back_q, dq, TALON_NQ); /* back_* now hold the cotangents being pulled back */
  talon_copy(ws->back_u, du, TALON_NV);
  if (dctrl) talon_fill(dctrl, 0, TALON_NCTRL);
  if (dparams) talon_fill(dparams, 0, TALON_NPARAM);
  for (s = ws->rec_count - 1; s >= 0; --s)
    talon_substep_backward(ws, s, ws->back_q, ws->back_u, dctrl, dparams);
  if (!talon_all_finite(ws->back_q, TALON_NQ) || !talon_all_finite(ws->back_u, TALON_NV) ||
      (dctrl && !talon_all_finite(dctrl, TALON_NCTRL)) ||
      (dparams && !talon_all_finite(dparams, TALON_NPARAM)))
    return TALON_STEP_NONFINITE;
  talon_copy(dq, ws->back_q, TALON_NQ);
  talon_copy(du, ws->back_u, TALON_NV);
  return TALON_STEP_OK;
}

#endif /* TALON_BACKWARD */
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
