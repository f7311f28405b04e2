#ifdef TALON_SOLVER_EMBED
R"talon_c(
#endif
/* Talon solver loops, part 5: one backward-Euler step by Newton's method on the step's
 * residual (docs/design.md, "The Newton iteration").
 *
 * Contract: before this text the generated unit (codegen/model_unit.cpp) defines
 *   dimensions   TALON_NSIM, TALON_NV (6·nsim), TALON_NQ (7·nsim), TALON_NROWS, TALON_NNZ
 *                (non-zeros of Ĵ), TALON_NFRICTION (frictional contacts), TALON_NNORMAL
 *                (contact normal rows), TALON_NCTRL, TALON_NPARAM, TALON_NBLOCKS
 *   kernel layout TALON_IN_{Q_MINUS,U_MINUS,U_PLUS,LAMBDA,CTRL,PARAMS,H,Q_CHOOSE,W} (offsets
 *                in the one input array every kernel reads; Q_CHOOSE: the pose at which the
 *                colliders choose features, TALON_CHOOSES when any does),
 *                TALON_RES_{DYN,CON,MERIT,Q_PLUS,W,GAP}
 *                (outputs of `residual`; GAP: g(q⁺) of every contact normal row),
 *                TALON_LIN_{JHAT,C,DIAG} (outputs of the fused `linearize` kernel: Ĵ values,
 *                diag C, diag A, all with W frozen at in[TALON_IN_W...])
 *   kernels      talon_unit_mass, talon_unit_residual, talon_unit_linearize and
 *                talon_unit_jvp (`jvp_exact`; input offsets TALON_JVP_IN_TANGENT_U /
 *                _LAMBDA, base inputs as in TALON_IN_*), rendered from the ResidualProgram,
 *                each (in, out, separation): `separation` null evaluates every contact pair,
 *                TALON_SEPARATION(ws) skips those the broadphase set apart; talon_unit_jvp
 *                takes ws->jvp_cache too, which talon_unit_jvp_prepare(in, cache,
 *                separation) fills at the iterate (the templates' JVP in two stages,
 *                codegen/model_unit_pairs.cpp)
 *   broadphase   talon_broadphase_reset / _update / _clear_impulses / _evaluate_all
 *                (codegen/model_unit_broadphase.cpp; no-ops for a model without such pairs)
 *   tables       talon_jhat_col[NNZ] and the pattern's runs of one row
 *                (talon_jhat_run_begin[NJHAT_RUNS + 1], talon_jhat_run_row[NJHAT_RUNS]),
 *                talon_row_block[NROWS] (block index, 0 = dynamics),
 *                talon_row_unilateral[NROWS] (1: λ ≥ 0, normal and limit rows),
 *                talon_friction_row[NFRICTION] (first of the two tangent rows),
 *                talon_friction_normal[NFRICTION] (its normal row),
 *                talon_normal_row[NNORMAL] (every contact's normal row),
 *                talon_friction_mu_param[2·NFRICTION] (θ index of each geom's μ, −1 = folded)
 *                with talon_friction_mu_value[2·NFRICTION],
 *                talon_turn_row/body[NTURN_SIDES], talon_turn_axis[3·NTURN_SIDES] (the
 *                contact sides whose geom's turn talon_contact_turns_resolved bounds)
 *   options      TALON_NEWTON_ITERATIONS (K), TALON_PCR_ITERATIONS,
 *                TALON_PCR_RELATIVE_TOLERANCE (on ‖r‖²/‖r₀‖²), TALON_CONVERGED_MERIT (the
 *                stop: ‖L F‖² at most this), TALON_WARM_START,
 *                TALON_KRYLOV_ITERATIONS (FGMRES iterations per direction, ≥ 1),
 *                TALON_LINE_SEARCH_STEPS (halvings), TALON_MAX_ROTATION (rad of turn per
 *                body and update), TALON_MAX_SUBSTEP_DEPTH (halvings of a failed step),
 *                TALON_DIVERGED_MERIT (an unconverged finest substep above it fails the step),
 *                TALON_SETTLE_ROUNDS (re-solves of a step whose terrain planes or
 *                colliders' choices moved, talon_settle),
 *                TALON_TRACE_CAPACITY, TALON_TRACE_WIDTH, TALON_TRACE_BLOCKS (the Newton
 *                trace: iterates kept, values per iterate, where its block residuals start)
 *   workspace    talon_workspace (the public NAME_workspace) with the arrays used below.
 *
 * The step's equations are one residual F(z) = [r_dyn; r_con] of z = (u⁺, λ) (impulses):
 *   r_dyn(u⁺, λ) = M̃ (u⁺ − ũ) − Σ Jᵀλ          (momentum units, M̃ and ũ at q⁻)
 *   r_con(u⁺, λ)                                 (velocity units: joints, Fischer–Burmeister
 *                                                 normals and limits with their compliance,
 *                                                 the friction cone's natural map, servos)
 * made well posed by the compliances inside the rows (ir/lower/lower.h), so F has one root.
 * Newton's method on it, measured in velocity units by L = diag(M̃⁻¹, I):
 *   1. the direction d solves J(z) d = −F(z) with J the exact Jacobian (the generated
 *      `jvp_exact`: W, geometric stiffness and every contact term differentiated) by FGMRES
 *      (talon_krylov.h), right-preconditioned by the frozen-W Schur step (talon_schur.h,
 *      factored by talon_dense.h or solved by talon_pcr.h), to the forcing term
 *      ‖L(J d + F)‖ ≤ η ‖L F‖ (talon_forcing_term);
 *   2. z ← z + α d with α the first of α₀, α₀/2, … (α₀ ≤ 1 the trust region: no body turns by
 *      more than TALON_MAX_ROTATION) that satisfies Armijo's condition on θ = ‖L F‖²,
 *      θ(z + α d) ≤ θ_ref − 2σα(1 − η) θ(z), η the relative residual FGMRES reached: d is a
 *      descent direction of θ, whose slope along it is at most −2(1 − η) θ, because d solves
 *      the system of the residual θ measures. θ_ref is the largest of the last
 *      TALON_MERIT_MEMORY merits (a non-monotone search: see there why);
 *   3. stop when θ ≤ talon_converged_merit (the tolerance², or the round-off floor above
 *      it: talon_convergence.h) or after K updates, or when no
 *      α passes (the step then failed to converge).
 * No projection, no best-iterate selection: the returned iterate is the last one. A step that
 * does not converge is retried as two half steps (talon_step_world), a fallback counted in
 * stats.substeps.
 */

#define TALON_WARM_MAGIC 0x2A54414C /* marks warm_lambda as written by a step */

/* The friction coefficient of contact f: the larger μ of its two geoms, or the higher-priority
 * geom's (the tables then hold it twice; MuJoCo's rule, contact_friction_geoms). */
static TALON_CALLABLE talon_real talon_friction_mu(const talon_real* params, int f) {
  talon_real mu[2];
  int side;
  for (side = 0; side < 2; ++side) {
    const int index = talon_friction_mu_param[2 * f + side];
    mu[side] = index >= 0 ? params[index] : talon_friction_mu_value[2 * f + side];
  }
  return TALON_FMAX(mu[0], mu[1]);
}

/* Projects the impulses of the current iterate onto the admissible set (the warm start only:
 * Newton's iterates are not projected, the residual's NCP functions take any λ); a contact pair
 * that cannot touch in the step has none. */
static TALON_CALLABLE void talon_admissible_impulses(talon_workspace* ws) {
  talon_real* lambda = ws->in + TALON_IN_LAMBDA;
  const talon_real* params = ws->in + TALON_IN_PARAMS;
  int i, f;
  for (i = 0; i < TALON_NROWS; ++i)
    if (talon_row_unilateral[i] && lambda[i] < 0) lambda[i] = 0;
  for (f = 0; f < TALON_NFRICTION; ++f) {
    talon_real* t = lambda + talon_friction_row[f];
    const talon_real radius =
        talon_friction_mu(params, f) * TALON_FMAX(lambda[talon_friction_normal[f]], 0);
    const talon_real norm = TALON_SQRT(t[0] * t[0] + t[1] * t[1]);
    if (norm > radius) {
      const talon_real shrink = norm > TALON_TINY ? radius / norm : 0;
      t[0] *= shrink;
      t[1] *= shrink;
    }
  }
  talon_broadphase_update(ws);
  talon_broadphase_clear_impulses(ws);
}

/* The residual of the iterate in ws->in into ws->res, the contact pairs that cannot touch
 * set to their root instead of evaluated (the unit's broadphase, talon_broadphase_update). */
static TALON_CALLABLE void talon_residual(talon_workspace* ws) {
  talon_broadphase_update(ws);
  talon_unit_residual(ws->in, ws->res, TALON_SEPARATION(ws));
}

/* The friction weight s frozen for the linearisation: non-negative and finite (the
 * residual bounds it by 1e8, ir/lower/contacts.cpp). */
static TALON_CALLABLE talon_real talon_frozen_weight(talon_real s) {
  return s > 0 && talon_finite(s) ? s : 0;
}

/* The merit θ = ‖L F‖² = ‖M̃⁻¹ r_dyn‖² + ‖r_con‖² ((m/s)²) of the iterate whose residual is
 * in ws->res; its per-block sums of squares go to `blocks`. Each run of rows of one block
 * (a block's rows are consecutive) is summed in a register, in row order as it was summed in
 * memory. */
static TALON_CALLABLE talon_real talon_merit(talon_workspace* ws, talon_real* blocks) {
  const talon_real* merit = ws->res + TALON_RES_CON;
  talon_real total;
  int i = 0;
  talon_fill(blocks, 0, TALON_NBLOCKS);
  talon_apply_inverse_mass(ws->mass, ws->res + TALON_RES_DYN, ws->body_a);
  blocks[0] = talon_dot(ws->body_a, ws->body_a, TALON_NV);
  while (i < TALON_NROWS) {
    const int block = talon_row_block[i];
    talon_real sum = blocks[block];
    do {
      sum += merit[i] * merit[i];
      ++i;
    } while (i < TALON_NROWS && talon_row_block[i] == block);
    blocks[block] = sum;
  }
  total = 0;
  for (i = 0; i < TALON_NBLOCKS; ++i) total += blocks[i];
  return total;
}

static TALON_CALLABLE void talon_keep_iterate(talon_workspace* ws, int k, talon_real merit) {
  int i;
  talon_copy(ws->best_u, ws->in + TALON_IN_U_PLUS, TALON_NV);
  talon_copy(ws->best_lambda, ws->in + TALON_IN_LAMBDA, TALON_NROWS);
  talon_copy(ws->best_q, ws->res + TALON_RES_Q_PLUS, TALON_NQ);
  ws->stats.best_iterate = k;
  ws->stats.merit = merit;
  for (i = 0; i < TALON_NBLOCKS; ++i) ws->stats.block_residual[i] = TALON_SQRT(ws->block_now[i]);
}

/* Iterate 0 with its residual in ws->res, sets ws->in's u⁺ = u and λ = `lambda` (λ scaled
 * by `scale`, then made admissible); returns its merit. */
static TALON_CALLABLE talon_real talon_start_iterate(talon_workspace* ws, const talon_real* u,
                                                     const talon_real* lambda, talon_real scale) {
  talon_real* lambda_in = ws->in + TALON_IN_LAMBDA;
  int j;
  talon_copy(ws->in + TALON_IN_U_PLUS, u, TALON_NV);
  for (j = 0; j < TALON_NROWS; ++j) lambda_in[j] = lambda ? scale * lambda[j] : 0;
  talon_admissible_impulses(ws);
  talon_residual(ws);
  return talon_merit(ws, ws->block_now);
}

/* Whether talon_initial_iterate has a warm start to choose from. */
static TALON_CALLABLE int talon_has_warm_start(const talon_workspace* ws) {
  return TALON_WARM_START && ws->warm_valid == TALON_WARM_MAGIC && ws->warm_h > 0;
}

/* Moves the iterate in ws->in (its residual in ws->res) to u⁺ − M̃⁻¹ r_dyn(u⁺, λ), the
 * velocity its impulses give (r_dyn is affine in u⁺ up to the geometric terms); returns the
 * merit there. */
static TALON_CALLABLE talon_real talon_corrected_iterate(talon_workspace* ws) {
  talon_real* u = ws->in + TALON_IN_U_PLUS;
  int j;
  talon_apply_inverse_mass(ws->mass, ws->res + TALON_RES_DYN, ws->body_a);
  for (j = 0; j < TALON_NV; ++j) u[j] -= ws->body_a[j];
  talon_residual(ws);
  return talon_merit(ws, ws->block_now);
}

/* Keeps the iterate in ws->in with its residual and merit blocks (talon_initial_iterate's
 * corrected warm start while the cold start is evaluated), and puts them back, returning
 * `merit`: a copy costs far less than evaluating the residual again. */
static TALON_CALLABLE void talon_keep_candidate(talon_workspace* ws) {
  talon_copy(ws->candidate_u, ws->in + TALON_IN_U_PLUS, TALON_NV);
  talon_copy(ws->candidate_lambda, ws->in + TALON_IN_LAMBDA, TALON_NROWS);
  talon_copy(ws->candidate_res, ws->res, TALON_RES_SIZE);
  talon_copy(ws->candidate_blocks, ws->block_now, TALON_NBLOCKS);
}
static TALON_CALLABLE talon_real talon_restore_candidate(talon_workspace* ws, talon_real merit) {
  talon_copy(ws->in + TALON_IN_U_PLUS, ws->candidate_u, TALON_NV);
  talon_copy(ws->in + TALON_IN_LAMBDA, ws->candidate_lambda, TALON_NROWS);
  talon_copy(ws->res, ws->candidate_res, TALON_RES_SIZE);
  talon_copy(ws->block_now, ws->candidate_blocks, TALON_NBLOCKS);
  return merit;
}

/* Iterate 0, with its residual in ws->res; returns its merit. The warm start: the previous
 * step's impulses (impulse = force·h, so rescaled to the new h) made admissible, with the
 * velocity they give, u⁺ = u⁻ − M̃⁻¹ r_dyn(u⁻, λ) (r_dyn is affine in u⁺ and λ up to the
 * geometric terms), where it already solves the step (a body at rest; the cold start is then
 * not evaluated) or its merit is no larger than the cold start's (u⁻, λ = 0): after
 * a large rotation the impulses can land their nearly cancelling remainder on the lightest
 * links (a tumbling humanoid: warm merit 3e5, cold 6e2). Else, on a terrain, the same
 * impulses with u⁻ where that beats the cold start: the planes under the geoms change from
 * step to step, the impulses no longer balance, and on a wheel that spins fast the
 * geometric terms are of the order of its inertia, so the corrected velocity overshoots (a
 * three-wheeler on bumps, tests/physics/test_terrain.cpp: corrected 14–50, uncorrected
 * 0.02–0.4, cold 2.9; mean Newton updates 20 → 11.7). Not on planes alone: there the
 * humanoid dropped at h = 0.05 split 9 steps in 60 from it instead of 2 (bench/RESULTS.md).
 * Else the cold start. u⁻ rather than the free-flight ũ: q⁺(ũ) of a body resting on the
 * ground is h²g deep in it.
 * With `other`, the one of the corrected warm start and the cold start that this choice
 * passes over, and without a warm start the free-flight start (u⁺ ≈ ũ, λ = 0: the cold start
 * corrected as the warm one is): the second iterate 0 of a step whose first solve failed
 * (talon_retry_step). */
static TALON_CALLABLE talon_real talon_initial_iterate(talon_workspace* ws, int other) {
  const talon_real* u_minus = ws->in + TALON_IN_U_MINUS;
  const talon_real scale = ws->warm_h > 0 ? ws->in[TALON_IN_H] / ws->warm_h : 0;
  talon_real cold_merit, cold, warm, corrected;
  if (!talon_has_warm_start(ws)) {
    cold = talon_start_iterate(ws, u_minus, 0, 0);
    return other ? talon_corrected_iterate(ws) : cold;
  }
  /* The corrected warm start first: where it already solves the step (a body at rest) the
   * cold start is not evaluated; else the cold start last, so that where it is taken its
   * residual is the one in ws->res, and the corrected one is kept in a copy. The order does
   * not change which pairs the broadphase lets in: the cold start's are among the warm
   * start's (the same u⁺, no impulse). */
  warm = talon_start_iterate(ws, u_minus, ws->warm_lambda, scale);
  if (!talon_finite(warm)) warm = TALON_HUGE;
  corrected = talon_corrected_iterate(ws);
  if (!other && corrected <= talon_converged_merit(ws)) return corrected;
  talon_keep_candidate(ws);
  cold_merit = talon_start_iterate(ws, u_minus, 0, 0);
  cold = talon_finite(cold_merit) ? cold_merit : TALON_HUGE;
  if (talon_finite(corrected) && corrected <= cold)
    return other ? cold_merit : talon_restore_candidate(ws, corrected);
  if (other) return talon_restore_candidate(ws, corrected);
#if TALON_NTERRAIN_PROBES > 0
  if (warm <= cold) return talon_start_iterate(ws, u_minus, ws->warm_lambda, scale);
#else
  (void)warm;
#endif
  return cold_merit;
}

#if TALON_TRACE_CAPACITY > 0
/* Records iterate k of the current attempt while tracing (NAME_set_trace): h, k, its merit,
 * the step length α and forcing term η of the update that reached it (ws->trace_step; 0 for
 * iterate 0), the block residuals and per body |M̃⁻¹ r_dyn| (linear, angular), from what
 * talon_merit left in ws->block_now and ws->body_a. Iterates beyond the capacity are
 * counted, not kept. */
static TALON_CALLABLE void talon_trace_iterate(talon_workspace* ws, int k, talon_real merit) {
  talon_real *entry, *body;
  int i, b;
  if (!ws->trace_on) return;
  if (ws->trace_count >= TALON_TRACE_CAPACITY) {
    ++ws->trace_count;
    return;
  }
  entry = ws->trace + ws->trace_count++ * TALON_TRACE_WIDTH;
  body = entry + TALON_TRACE_BLOCKS + TALON_NBLOCKS;
  entry[0] = ws->in[TALON_IN_H];
  entry[1] = (talon_real)k;
  entry[2] = merit;
  entry[3] = k > 0 ? ws->trace_step[0] : 0;
  entry[4] = k > 0 ? ws->trace_step[1] : 0;
  for (i = 0; i < TALON_NBLOCKS; ++i) entry[TALON_TRACE_BLOCKS + i] = TALON_SQRT(ws->block_now[i]);
  for (b = 0; b < TALON_NSIM; ++b) {
    body[2 * b] = TALON_SQRT(talon_dot(ws->body_a + 6 * b, ws->body_a + 6 * b, 3));
    body[2 * b + 1] = TALON_SQRT(talon_dot(ws->body_a + 6 * b + 3, ws->body_a + 6 * b + 3, 3));
  }
}
#endif

/* The frozen-W linearisation at the iterate in ws->in (whose residual is in ws->res): W from
 * the residual, safeguarded, then Ĵ, C, diag A and PCR's scaling S = diag(A)^-½. It is the
 * preconditioner of the exact solve (and of the backward step's, talon_adjoint.h). The caller
 * selects the Schur operator's rows (talon_schur_select) once diag A is final: the forward
 * step adds its proximal term first. */
static TALON_CALLABLE void talon_linearize_frozen(talon_workspace* ws) {
  const talon_real* diag = ws->lin + TALON_LIN_DIAG;
  int i, f;
  for (f = 0; f < TALON_NFRICTION; ++f)
    ws->in[TALON_IN_W + f] = talon_frozen_weight(ws->res[TALON_RES_W + f]);
  talon_unit_linearize(ws->in, ws->lin, TALON_SEPARATION(ws));
  for (i = 0; i < TALON_NROWS; ++i)
    ws->scale[i] = diag[i] > TALON_TINY && diag[i] < TALON_HUGE ? 1 / TALON_SQRT(diag[i]) : 0;
}

/* The largest step along the direction in ws->kstep that turns no body's end-of-step
 * orientation by more than TALON_MAX_ROTATION (h·|Δω|): a trust region for the exponential
 * map, whose linearisation is good for a fraction of a radian. */
static TALON_CALLABLE talon_real talon_trust_region(const talon_workspace* ws) {
  const talon_real h = ws->in[TALON_IN_H];
  talon_real largest = 0;
  int b;
  for (b = 0; b < TALON_NSIM; ++b) {
    const talon_real* dw = ws->kstep + 6 * b + 3;
    largest = TALON_FMAX(largest, h * TALON_SQRT(talon_dot(dw, dw, 3)));
  }
  return largest > (talon_real)TALON_MAX_ROTATION ? (talon_real)TALON_MAX_ROTATION / largest : 1;
}

/* Merits of the last iterates that the line search compares with (Grippo, Lampariello &
 * Lucidi 1986). The residual is only piecewise smooth: where an iterate sits on a kink of it
 * (a friction cone's stick/slip boundary, a contact's FB corner at ε ≈ 0) the Newton
 * direction is right for one branch, the full step crosses to the other and the merit rises
 * for one update before the next update, now on the right branch, converges. A monotone
 * search cuts α until the step no longer crosses and stalls there (the pusher-box contact
 * of models/push_box.xml at h = 0.1: α < 1/1024 at θ = 1.5e-7). Comparing with the largest
 * of the last few merits accepts that one crossing while still keeping every iterate's merit
 * below the first one's. */
#define TALON_MERIT_MEMORY 4

/* Moves the iterate to the one saved in ws->prev_* plus α ws->kstep; returns its merit (its
 * residual in ws->res). */
static TALON_CALLABLE talon_real talon_trial(talon_workspace* ws, talon_real alpha) {
  talon_real* u = ws->in + TALON_IN_U_PLUS;
  talon_real* lambda = ws->in + TALON_IN_LAMBDA;
  int i;
  TALON_VECTORIZE
  for (i = 0; i < TALON_NV; ++i) u[i] = ws->prev_u[i] + alpha * ws->kstep[i];
  TALON_VECTORIZE
  for (i = 0; i < TALON_NROWS; ++i) lambda[i] = ws->prev_lambda[i] + alpha * ws->kstep[TALON_NV + i];
#if TALON_TRACE_CAPACITY > 0
  ws->trace_step[0] = alpha; /* the last trial is the accepted step (0: none) */
#endif
#if TALON_KRYLOV_ITERATIONS > 0
  ws->step_length[0] = alpha;
#endif
  talon_residual(ws);
  return talon_merit(ws, ws->block_now);
}

/* Armijo's sufficient decrease for a step α along a direction of relative linear residual η
 * from merit θ: θ(z + αd) ≤ θ_ref − 2σα(1 − η)θ(z), σ = 1e-4 (`reference` = θ_ref). */
static TALON_CALLABLE int talon_armijo_passes(talon_real trial, talon_real reference,
                                              talon_real merit, talon_real eta, talon_real alpha) {
  const talon_real sigma = (talon_real)1e-4;
  return talon_finite(trial) && trial <= reference - 2 * sigma * alpha * (1 - eta) * merit;
}

/* Whether a friction contact of the trial iterate (residual in ws->res) sticks where it slid
 * at the saved one or slides where it stuck: the weight s of the residual is 0 exactly when
 * sticking, and ws->in holds the saved iterate's, frozen for its linearisation. */
static TALON_CALLABLE int talon_stick_slip_changed(const talon_workspace* ws) {
  int f;
  for (f = 0; f < TALON_NFRICTION; ++f)
    if ((ws->res[TALON_RES_W + f] > 0) != (ws->in[TALON_IN_W + f] > 0)) return 1;
  return 0;
}

/* If a friction contact changes between sticking and sliding between the steps `low` (where
 * none has) and `alpha`, the step just past the first such change (by bisection on α to a
 * relative 1e-6), when that passes Armijo's test against `reference`. Returns its merit and
 * sets *accepted; otherwise *accepted stays 0. Taken where the Armijo search finds no step
 * down to its smallest α (low = 0), and where it found one short of a change that its first
 * trial made (low = the step it found): see talon_line_search.
 *
 * Why: sticking rows are linear, v_t + R_t λ_t, and only R_t = κ_t k_t (κ_t = 1e-6) fixes how
 * sticking impulses split between contacts that hold the same motion (a wheel on an edge and
 * on the ground). Linearised with every such contact sticking, the Newton direction moves
 * that split by ~1/κ_t times the residual (the exact direction as much as an inexact one),
 * and the merit falls along it only until an impulse leaves its cone, at α ~ 1e-4, below
 * the search's smallest α: the three-wheeler dropping off its obstacle
 * (models/three_wheeler_scene.xml, the 60-step crossing's step 32) stalled so at θ ≈ 0.3 and
 * split. Stopped just past the cone, the next linearisation has that contact sliding, and
 * its direction no longer pushes the split. */
static TALON_CALLABLE talon_real talon_stick_slip_step(talon_workspace* ws, talon_real merit,
                                                       talon_real reference, talon_real eta,
                                                       talon_real low, talon_real alpha,
                                                       int* accepted) {
  talon_real high = alpha, trial;
  int i;
  talon_trial(ws, high);
  if (!talon_stick_slip_changed(ws)) return merit;
  for (i = 0; i < 60 && high - low > (talon_real)1e-6 * high; ++i) {
    const talon_real middle = (talon_real)0.5 * (low + high);
    talon_trial(ws, middle);
    if (talon_stick_slip_changed(ws))
      high = middle;
    else
      low = middle;
  }
  trial = talon_trial(ws, high);
  if (talon_armijo_passes(trial, reference, merit, eta, high)) {
    *accepted = 1;
    return trial;
  }
  return merit;
}

/* The Armijo line search along ws->kstep from the iterate saved in ws->prev_*, whose merit
 * is `merit` (η the direction's relative linear residual, `reference` the largest recent
 * merit), then the stick/slip step where it fails, or where the step it found stops short of
 * a friction contact that the full step moved between sticking and sliding. Halving from
 * there approaches that contact's cone geometrically and never crosses it: MuJoCo's humanoid
 * lying on the floor took a sticking contact to 0.81, 0.94, 0.986, 0.997 … 1.0000 of μλ_n in
 * seven updates at α = ½ … 1/1600, θ flat at 2e-12 against the 1e-12 bar, where the root has
 * it sliding (bench/RESULTS.md, twenty-fourth session). Leaves the accepted iterate and its
 * residual in ws->in / ws->res and returns its merit; when no step passes, the saved iterate
 * is restored (and its residual recomputed) and *accepted is 0. */
static TALON_CALLABLE talon_real talon_line_search(talon_workspace* ws, talon_real merit,
                                                   talon_real reference, talon_real eta,
                                                   int* accepted) {
  const talon_real full = talon_trust_region(ws);
  talon_real alpha = full, smallest = alpha, trial;
  int halvings, full_changed = 0;
  *accepted = 0;
#if TALON_KRYLOV_ITERATIONS > 0
  ws->step_length[1] = full; /* for talon_proximal_update */
#endif
  for (halvings = 0; halvings <= TALON_LINE_SEARCH_STEPS; ++halvings, alpha *= (talon_real)0.5) {
    trial = talon_trial(ws, alpha);
    smallest = alpha;
    if (talon_armijo_passes(trial, reference, merit, eta, alpha)) {
      *accepted = 1;
      if (full_changed && !talon_stick_slip_changed(ws)) {
        /* Stopped short of the friction contact that the full step moved between sticking and
         * sliding: the step just past it, which is longer, where it passes too and ends no
         * higher. */
        int past_accepted = 0;
        const talon_real past =
            talon_stick_slip_step(ws, merit, reference, eta, alpha, full, &past_accepted);
        return past_accepted && past <= trial ? past : talon_trial(ws, alpha);
      }
      return trial;
    }
    if (halvings == 0) full_changed = talon_stick_slip_changed(ws);
  }
  trial = talon_stick_slip_step(ws, merit, reference, eta, 0, smallest, accepted);
  if (*accepted) return trial;
  return talon_trial(ws, 0);
}

#if TALON_KRYLOV_ITERATIONS > 0
/* A proximal term on the contact rows of the Newton direction's system (Levenberg–Marquardt
 * on the impulses, regularised semismooth Newton): J + ρ K on each contact's normal row and
 * friction rows (talon_proximal_row), K = the row's frozen diagonal k, with ρ = μ ‖F‖
 * (‖F‖ = √θ in m/s), at most TALON_PROXIMAL_MAX. The step's equations are not changed, only
 * the direction: the root is the same, and as F → 0 so does ρ, where the direction becomes
 * Newton's. μ starts each attempt at TALON_PROXIMAL_RATE and falls tenfold after every update
 * that the linear model predicted well (talon_proximal_update).
 *
 * Why: sticking contacts that hold the same motion (a box's corners) leave the tangential
 * impulses' internal directions y (J_tᵀ y = 0) to the small compliance R_t = κ_t k_t alone, so
 * J's eigenvalues there are ~κ_t k_t (κ_t = 1e-6). Any residual along y that is not R_t λ_t -
 * the friction rows' geometric terms (J_t at q⁺ turns with the body) and the cone rim's
 * curvature, both second order in the step - is divided by them: a 10 cm box landing on a
 * 10° incline yawed 30° (bench/RESULTS.md, fifteenth session) gets directions with impulse
 * changes of ±100-4000 N·s in opposite pairs of corners where its impulses are 0.2-0.6 N·s,
 * accepted at α ~ 1e-4 or with the merit rising, 116 Newton updates and three split steps.
 * With ρ K in the direction those changes are at most ~‖F‖/(ρ k_t) ~ 1/TALON_PROXIMAL_RATE:
 * that box then lands in 15 updates without a split, and the pile's Newton updates per step
 * fall threefold. The normal rows' internal directions - how a body's load splits between its
 * contacts, fixed by E_n = κ_n h² w_nn alone (κ_n = 1e-4) - are the same kind: in the
 * primitive pile's first impact at h = 0.05, solved again from its other start, the
 * directions changed a normal impulse of 0.4-0.8 N·s by 2-120 N·s and a ball's spin by
 * 100-5000 rad/s, which the trust region cut to 0.2-10 % of their length, 16 updates without
 * converging. With the term on the normal rows too the pile's millimetre ensemble took 5.9
 * updates a step instead of 9.2, and split 2 steps in 60 instead of 8 (bench/RESULTS.md,
 * thirty-first session). */
#ifndef TALON_PROXIMAL_RATE
#define TALON_PROXIMAL_RATE 0.1 /* per m/s */
#endif
#ifndef TALON_PROXIMAL_MAX
#define TALON_PROXIMAL_MAX 0.1
#endif

/* The rows that carry the proximal term: every contact's normal row, then every frictional
 * contact's two friction rows. talon_proximal_row is the i-th of them (i <
 * TALON_PROXIMAL_ROWS), talon_proximal_friction its frictional contact (-1 for a normal row). */
#define TALON_PROXIMAL_ROWS (TALON_NNORMAL + 2 * TALON_NFRICTION)
static TALON_CALLABLE int talon_proximal_friction(int i) {
  return i < TALON_NNORMAL ? -1 : (i - TALON_NNORMAL) / 2;
}
static TALON_CALLABLE int talon_proximal_row(int i) {
  if (i < TALON_NNORMAL) return talon_normal_row[i];
  return talon_friction_row[talon_proximal_friction(i)] + (i - TALON_NNORMAL) % 2;
}

/* Sets ρ for the direction from the iterate of merit θ and adds ρ K to the frozen
 * linearisation's proximal rows, the preconditioner (talon_krylov.h): there a friction row is
 * the exact row times 1 + s (s its frozen weight; a normal row is the exact row) and
 * diag A ≈ (1 + s) k, so ρ K is ρ diag A on C and on diag A. */
static TALON_CALLABLE void talon_proximal_linearization(talon_workspace* ws, talon_real merit) {
  talon_real* c = ws->lin + TALON_LIN_C;
  talon_real* diag = ws->lin + TALON_LIN_DIAG;
  const talon_real rho = TALON_FMIN((talon_real)TALON_PROXIMAL_MAX,
                                    ws->proximal_rate[0] * TALON_SQRT(merit));
  int i, n = 0;
  ws->proximal[0] = rho;
  for (i = 0; i < TALON_PROXIMAL_ROWS; ++i) {
    const int r = talon_proximal_row(i), f = talon_proximal_friction(i);
    const talon_real s = f >= 0 ? ws->in[TALON_IN_W + f] : 0;
    if (!(diag[r] < TALON_HUGE)) continue; /* as talon_linearize_frozen's scale */
    c[r] += rho * diag[r];
    diag[r] += rho * diag[r];
    ws->scale[r] = 1 / TALON_SQRT(diag[r]);
    if (!(diag[r] < TALON_HUGE)) continue;
    /* the row's ρ k in the exact operator (talon_krylov_apply), once per direction */
    ws->proximal_rows[n] = r;
    ws->proximal_weight[n++] = rho * diag[r] / ((1 + s) * (1 + rho));
  }
  ws->proximal_count = n;
}

/* After an update from merit θ to θ' (accepted or not): μ /= 10 when the full step (the trust
 * region's, talon_trust_region, which the line search kept in ws->step_length[1]) was taken
 * and cut θ at least fourfold - Levenberg–Marquardt's rule for its damping (Moré 1978;
 * Nielsen 1999), kept only in the direction of less: where the linearisation predicts the
 * next residual, Newton's own direction is the better one.
 *
 * Why: with ρ = 0.1 ‖F‖ throughout, ρ K was still ~10 % of a friction row's diagonal at
 * ‖F‖ ~ 1 and stayed above κ_t k_t until ‖F‖ < 1e-5 m/s, so a step's last updates converged
 * only linearly, ~20× in ‖F‖ each: MuJoCo's humanoid at h = 0.05, a calm step, went
 * 2.3e-5 → 7.7e-8 → 1.4e-10 → 2.2e-13 in θ. Its millimetre ensemble took 14.3 updates a step
 * (median over starts) with 4 extra substeps; with this rule 9.4 and 1 (bench/RESULTS.md,
 * thirtieth session). μ is not raised again within the attempt: where a step is cut short
 * the direction's proximal term is already ρ = min(TALON_PROXIMAL_MAX, μ ‖F‖) with the larger
 * ‖F‖ that a poor prediction leaves. */
static TALON_CALLABLE void talon_proximal_update(talon_workspace* ws, talon_real merit,
                                                 talon_real next, int accepted) {
  if (accepted && ws->step_length[0] >= ws->step_length[1] && 4 * next <= merit)
    ws->proximal_rate[0] *= (talon_real)0.1;
}
#endif

/* The forcing term η of the direction from an iterate of merit θ = ‖L F‖²:
 * η = min(TALON_KRYLOV_TOLERANCE, ‖L F‖^½) — Eisenstat & Walker's choice near the root
 * (superlinear convergence, so a converged step lands well below the tolerance, which finite
 * differences of whole rollouts need), capped at 1e-3 far from it.
 *
 * Why the cap: the Jacobian has small eigenvalues that only the compliances fix (how a body's
 * load splits between its contacts, ~κ_n; its sticking contacts' internal friction, ~κ_t),
 * and a Krylov solve that stops at a relative residual leaves the direction's components
 * along them wrong by up to that residual over the eigenvalue. With min(0.1, ‖L F‖^½) MuJoCo's
 * humanoid dropped at h = 0.05 moved a foot's load between its contacts by the same 0.3 N·s
 * every update until a friction cone flipped, then cycled between sticking and sliding: 20
 * Newton updates a step, 144 at most, 13 extra substeps in 60 steps; with the cap 13 / 65 / 2
 * (bench/RESULTS.md, twenty-second session). */
static TALON_CALLABLE talon_real talon_forcing_term(talon_real merit) {
  return TALON_FMIN((talon_real)TALON_KRYLOV_TOLERANCE, TALON_SQRT(TALON_SQRT(merit)));
}

/* One Newton update of the iterate in ws->in (residual in ws->res, merit `merit`): the exact
 * direction by FGMRES to the forcing term, then the line search against `reference`. Returns
 * the new merit; *accepted as talon_line_search; *pcr gets the PCR iterations it took. */
static TALON_CALLABLE talon_real talon_newton_update(talon_workspace* ws, talon_real merit,
                                                    talon_real reference, int* accepted,
                                                    int* pcr) {
  talon_real eta = talon_forcing_term(merit), next;
  talon_linearize_frozen(ws);
#if TALON_KRYLOV_ITERATIONS > 0
  talon_open_pairs(ws); /* before the proximal term changes C (model_unit_broadphase.cpp) */
  talon_proximal_linearization(ws, merit);
#endif
  talon_schur_select(ws);
  talon_copy(ws->prev_u, ws->in + TALON_IN_U_PLUS, TALON_NV);
  talon_copy(ws->prev_lambda, ws->in + TALON_IN_LAMBDA, TALON_NROWS);
  *pcr += talon_krylov_direction(ws, &eta);
#if TALON_TRACE_CAPACITY > 0
  ws->trace_step[1] = eta;
#endif
  next = talon_line_search(ws, merit, reference, eta, accepted);
#if TALON_KRYLOV_ITERATIONS > 0
  talon_proximal_update(ws, merit, next, *accepted);
#endif
  return next;
}

#if TALON_RESOLVE_SPLIT_STEPS
/* Iterate 0 of the full step re-solved after a split (talon_resolve_full_step): the split's
 * end velocity and the sum of its substeps' impulses (impulse = force·h: over the whole step
 * they add up); returns its merit. */
static TALON_CALLABLE talon_real talon_split_iterate(talon_workspace* ws) {
  talon_copy(ws->in + TALON_IN_U_PLUS, ws->start_u, TALON_NV);
  talon_copy(ws->in + TALON_IN_LAMBDA, ws->split_lambda, TALON_NROWS);
  talon_admissible_impulses(ws);
  talon_residual(ws);
  return talon_merit(ws, ws->block_now);
}
#endif

/* Where talon_solve's iterate 0 comes from. */
#define TALON_START_WARM 0   /* talon_initial_iterate: the better of cold and warm start */
#define TALON_START_SPLIT 1  /* talon_split_iterate: a split step's end state */
#define TALON_START_RESUME 2 /* talon_resume_iterate: the last solution (ws->best_*) */
#define TALON_START_OTHER 3  /* talon_initial_iterate: the other of cold and warm start */

/* Iterate 0 of a step solved again with slightly different data (a terrain's planes,
 * talon_settle): its last solution as it stands. Not talon_initial_iterate's warm
 * start: that rebuilds u⁺ from u⁻ in one affine step, which is off by the geometric terms
 * the step's change of velocity brings (a wheel on a bump: merit 34 against the solution's
 * 1e-20 and the cold start's 2.9), so the re-solve would start cold. */
static TALON_CALLABLE talon_real talon_resume_iterate(talon_workspace* ws) {
  talon_copy(ws->in + TALON_IN_U_PLUS, ws->best_u, TALON_NV);
  talon_copy(ws->in + TALON_IN_LAMBDA, ws->best_lambda, TALON_NROWS);
  talon_residual(ws);
  return talon_merit(ws, ws->block_now);
}

/* Whether no geom that a contact pushes at the step's end (λ_n > 0) turns within the step by
 * more than TALON_MAX_CONTACT_TURN, leaving out the turn about its axis for a capsule or a
 * cylinder (talon_turn_* tables: codegen/model_unit_tables.cpp, turn_tables; spheres are
 * left out).
 *
 * Why: the step sees a contact only at q⁺, so a box that turns by π/2 in one step lands flush
 * on its next face without ever standing on the edge between: no impact, no loss. A 14 × 12 ×
 * 10 cm box rolled end over end along the floor at 30 rad/s (tests/physics/test_contact.cpp)
 * found that root at h = 0.05 and 0.1, turning π/2 (π) every step, and rolled on at 31.4 rad/s
 * for ever (3.7 m in 2 s at h = 0.05), where at h = 0.002 it stops after 0.40 m; a box of the
 * primitive pile did the same after its fall (bench/RESULTS.md, thirtieth session). Half of a
 * box's π/2 keeps an edge between two faces in some step: a step that turns further splits,
 * and at h/2ᵏ the turn is 2ᵏ times smaller. A body in flight turns freely (its step is exact,
 * up to the whole turns above). */
#define TALON_MAX_CONTACT_TURN 0.785398163397448 /* π/4 */
static TALON_CALLABLE int talon_contact_turns_resolved(const talon_workspace* ws) {
  const talon_real h = ws->in[TALON_IN_H];
  int e;
  for (e = 0; e < TALON_NTURN_SIDES; ++e) {
    const int b = talon_turn_body[e];
    const talon_real* w = ws->in + TALON_IN_U_PLUS + 6 * b + 3;
    const talon_real origin[3] = {0, 0, 0};
    talon_real axis[3], along, turn;
    if (!(ws->in[TALON_IN_LAMBDA + talon_turn_row[e]] > 0)) continue;
    talon_frame_point(origin, ws->res + TALON_RES_Q_PLUS + 7 * b + 3, talon_turn_axis + 3 * e,
                      axis);
    along = talon_dot(w, axis, 3);
    turn = h * TALON_SQRT(TALON_FMAX(talon_dot(w, w, 3) - along * along, 0));
    if (turn > (talon_real)TALON_MAX_CONTACT_TURN) return 0;
  }
  return 1;
}

/* Whether every body's turn over the step, the rotation vector h ω⁺, is of its aliases the
 * one nearest the turn it came in with, h ω⁻. The step sees the bodies only at q⁻ and q⁺,
 * and q⁺ = exp(h ω⁺) q⁻ is the same for h ω⁺ + 2πk ω̂⁺ (k any integer), so its equations have
 * roots where a body in contact spins round once more (or less) within the step than it
 * was turning: the primitive pile's capsule at 233 rad/s, 11.7 rad in a step of 0.05 s
 * (bench/RESULTS.md, fifteenth session). |h ω⁺ + 2πk ω̂⁺ − h ω⁻| is least at k = 0
 * exactly when |h (|ω⁺| − ω̂⁺·ω⁻)| ≤ π. Such a root is not taken: the step splits, and at
 * h/2ᵏ the same spin is 2ᵏ times further from an alias. Until the twenty-fifth session this
 * was h |ω⁺| < π (the alias nearest no turn at all), which split every step of a capsule
 * rolling at 79 rad/s at h = 0.05 although it had converged. */
static TALON_CALLABLE int talon_turns_resolved(const talon_workspace* ws) {
  const talon_real h = ws->in[TALON_IN_H];
  const talon_real pi = (talon_real)3.14159265358979323846;
  int b;
  for (b = 0; b < TALON_NSIM; ++b) {
    const talon_real* w = ws->in + TALON_IN_U_PLUS + 6 * b + 3;
    const talon_real* w_minus = ws->in + TALON_IN_U_MINUS + 6 * b + 3;
    const talon_real speed = TALON_SQRT(talon_dot(w, w, 3));
    const talon_real along = speed > 0 ? talon_dot(w, w_minus, 3) / speed : 0;
    if (h * TALON_FABS(speed - along) > pi) return 0;
  }
  return talon_contact_turns_resolved(ws);
}

/* The Newton iteration for the step whose data (q⁻, u⁻, ctrl, θ, h) is in ws->in, from the
 * iterate 0 that `start` names (TALON_START_*). The last iterate goes to ws->best_*. Returns
 * 1 when its merit is finite. */
static TALON_CALLABLE int talon_solve(talon_workspace* ws, int start) {
  const talon_real converged_merit = talon_converged_merit(ws); /* talon_convergence.h */
  talon_real merit, recent[TALON_MERIT_MEMORY];
  int k, i, accepted = 1, budget = TALON_NEWTON_ITERATIONS;
  ws->stats.newton_iterations = 0;
  ws->stats.pcr_iterations = 0;
  ws->stats.best_iterate = -1;
  talon_broadphase_reset(ws);
#if TALON_KRYLOV_ITERATIONS > 0
  ws->proximal_rate[0] = (talon_real)TALON_PROXIMAL_RATE;
#endif
  talon_unit_mass(ws->in, ws->mass, 0);
  if (start == TALON_START_RESUME)
    merit = talon_resume_iterate(ws);
#if TALON_RESOLVE_SPLIT_STEPS
  else if (start == TALON_START_SPLIT)
    merit = talon_split_iterate(ws);
#endif
  else
    merit = talon_initial_iterate(ws, start == TALON_START_OTHER);
  /* A second try at a step (a split step's whole step again, or the step from its other
   * start) is not iterated from an iterate 0 that already turns too far over the step
   * (talon_turns_resolved).
   * - A split's end: the roots near it, the only ones talon_near_split keeps, turn as far,
   *   and such a root is refused. On the primitive pile at h = 0.1, three such re-solves in
   *   30 steps each ran out their 16 updates.
   * - The other start (the cold start corrected by its own momentum balance) puts the
   *   misplaced impulses' remainder on the light bodies: the pile's capsules spun at
   *   hundreds of rad/s. Over the pile's millimetre ensembles at h = 0.05 and 0.1, none of 68
   *   such retries converged (1 032 updates); the humanoid's retries never started so, and
   *   22 of its 23 converged (bench/RESULTS.md, thirty-second session). */
  if ((start == TALON_START_SPLIT || start == TALON_START_OTHER) && !talon_turns_resolved(ws))
    budget = 0;
  for (i = 0; i < TALON_MERIT_MEMORY; ++i) recent[i] = merit;
  for (k = 0;; ++k) {
    talon_real reference = 0;
#if TALON_TRACE_CAPACITY > 0
    talon_trace_iterate(ws, k, merit);
#endif
    if (!talon_finite(merit) || !accepted || merit <= converged_merit || k >= budget) break;
    recent[k % TALON_MERIT_MEMORY] = merit;
    for (i = 0; i < TALON_MERIT_MEMORY; ++i) reference = TALON_FMAX(reference, recent[i]);
    merit = talon_newton_update(ws, merit, reference, &accepted, &ws->stats.pcr_iterations);
    if (accepted) ++ws->stats.newton_iterations;
  }
  ws->stats.converged = merit <= converged_merit && talon_turns_resolved(ws);
  if (!talon_finite(merit)) return 0;
  talon_keep_iterate(ws, ws->stats.newton_iterations, merit);
  return 1;
}

/* Unit quaternions for the returned pose (q⁺ from `residual` is normalised already; this
 * removes the rounding of the last few ulps so that long runs stay on the unit sphere). */
static TALON_CALLABLE void talon_normalize_quaternions(talon_real* q) {
  int b, j;
  for (b = 0; b < TALON_NSIM; ++b) {
    talon_real* quat = q + 7 * b + 3;
    const talon_real norm =
        TALON_SQRT(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
    if (norm > TALON_TINY)
      for (j = 0; j < 4; ++j) quat[j] /= norm;
  }
}

/* Step return codes (the public NAME_STEP_* macros have the same values). */
#define TALON_STEP_OK 0
#define TALON_STEP_NONFINITE 1 /* non-finite state, controls or result: q, u left unchanged */
#define TALON_STEP_BAD_STEP 2  /* h is not a positive finite number: q, u left unchanged */
#define TALON_STEP_DIVERGED 3  /* even the finest substep's residual exceeded
                                  TALON_DIVERGED_MERIT: q, u left unchanged */

#if TALON_NTERRAIN_PROBES > 0
/* The world position of probe k's centre at pose q: x + R(quat) d, R d = d + 2w (v × d) +
 * 2 v × (v × d) with the quaternion (w, v) normalised. */
static TALON_CALLABLE void talon_terrain_probe(const talon_real* q, int k, talon_real c[3]) {
  const talon_real* x = q + 7 * talon_terrain_probe_body[k];
  const talon_real* d = talon_terrain_probe_offset + 3 * k;
  const talon_real norm =
      TALON_SQRT(x[3] * x[3] + x[4] * x[4] + x[5] * x[5] + x[6] * x[6]) + TALON_TINY;
  const talon_real w = x[3] / norm, v[3] = {x[4] / norm, x[5] / norm, x[6] / norm};
  talon_real t[3];
  t[0] = 2 * (v[1] * d[2] - v[2] * d[1]);
  t[1] = 2 * (v[2] * d[0] - v[0] * d[2]);
  t[2] = 2 * (v[0] * d[1] - v[1] * d[0]);
  c[0] = x[0] + d[0] + w * t[0] + (v[1] * t[2] - v[2] * t[1]);
  c[1] = x[1] + d[1] + w * t[1] + (v[2] * t[0] - v[0] * t[2]);
  c[2] = x[2] + d[2] + w * t[2] + (v[0] * t[1] - v[1] * t[0]);
}

/* The plane a probe's inputs (TALON_TERRAIN_DATA numbers: c_q, point, normal, ∂normal/∂c)
 * give at centre c: the twin of ir/lower/contacts.cpp's terrain_plane (the distance below c
 * and the normal to second order about c_q). */
static TALON_CALLABLE void talon_terrain_model(const talon_real* in, const talon_real c[3],
                                               talon_real point[3], talon_real normal[3]) {
  talon_real moved[3], turn[3], length2 = 0, inverse, distance = 0;
  int i, j;
  for (j = 0; j < 3; ++j) moved[j] = c[j] - in[j];
  for (i = 0; i < 3; ++i) {
    turn[i] = 0;
    for (j = 0; j < 3; ++j) turn[i] += in[9 + 3 * i + j] * moved[j];
    normal[i] = in[6 + i] + turn[i];
    length2 += normal[i] * normal[i];
    distance += in[6 + i] * (in[i] - in[3 + i] + moved[i]) + (talon_real)0.5 * moved[i] * turn[i];
  }
  inverse = length2 > TALON_TINY ? 1 / TALON_SQRT(length2) : 0;
  for (i = 0; i < 3; ++i) {
    normal[i] *= inverse;
    point[i] = c[i] - distance * normal[i];
  }
}

/* A probe's inputs at centre c (layout as talon_terrain_model): the terrain's plane there
 * over the two triangles it needs (talon_terrain_select, talon_terrain_plane) and the rate
 * at which its normal turns with c, by central differences over those same triangles, on
 * which the plane is a smooth function of c (step ε: truncation ε²/6 of the third
 * derivative, rounding ε_mach/ε), made symmetric: it is the Hessian of the distance to the
 * surface (ir/lower/contacts.cpp, terrain_plane). */
static TALON_CALLABLE void talon_terrain_inputs(const talon_real c[3], talon_real* in) {
  const talon_real step = sizeof(talon_real) == 4 ? (talon_real)3e-3 : (talon_real)1e-5;
  talon_real triangles[36], shifted[3], point[3], n_plus[3], n_minus[3], rate[9];
  int i, j;
  talon_terrain_select(c, triangles);
  talon_copy(in, c, 3);
  talon_terrain_plane(triangles, c, in + 3, in + 6);
  for (j = 0; j < 3; ++j) {
    talon_copy(shifted, c, 3);
    shifted[j] = c[j] + step;
    talon_terrain_plane(triangles, shifted, point, n_plus);
    shifted[j] = c[j] - step;
    talon_terrain_plane(triangles, shifted, point, n_minus);
    for (i = 0; i < 3; ++i) rate[3 * i + j] = (n_plus[i] - n_minus[i]) / (2 * step);
  }
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) in[9 + 3 * i + j] = (rate[3 * i + j] + rate[3 * j + i]) / 2;
}

/* Terrain (ir/lower/program.h, TerrainProbe): every probe's inputs at pose q
 * (talon_terrain_inputs) into inputs[TALON_TERRAIN_DATA · TALON_NTERRAIN_PROBES]. Returns the
 * largest change from the inputs in ws->in that a probe's geom can feel at q (m): between the
 * plane the old inputs carry to the probe (talon_terrain_model) and the terrain's plane
 * there, the height under the probe plus the turn times the geom's reach. */
static TALON_CALLABLE talon_real talon_terrain_choose(const talon_workspace* ws,
                                                      const talon_real* q, talon_real* inputs) {
  talon_real change = 0;
  int k, i;
  for (k = 0; k < TALON_NTERRAIN_PROBES; ++k) {
    const talon_real* old = ws->in + TALON_IN_TERRAIN + TALON_TERRAIN_DATA * k;
    talon_real* in = inputs + TALON_TERRAIN_DATA * k;
    talon_real c[3], p_old[3], n_old[3], height = 0, turn = 0;
    talon_terrain_probe(q, k, c);
    talon_terrain_inputs(c, in);
    talon_terrain_model(old, c, p_old, n_old);
    for (i = 0; i < 3; ++i) {
      height += in[6 + i] * (c[i] - in[3 + i]) - n_old[i] * (c[i] - p_old[i]);
      turn += (in[6 + i] - n_old[i]) * (in[6 + i] - n_old[i]);
    }
    change = TALON_FMAX(change, TALON_FABS(height) + TALON_SQRT(turn) * talon_terrain_probe_reach[k]);
  }
  return change;
}

/* The step measures each geom against the terrain's plane queried under it at the substep's
 * start, carried to its pose to second order in the distance (ir/lower/contacts.cpp,
 * terrain_plane). A geom that moves on lands where that is no longer the terrain's plane (the
 * surface's higher-order change, or other triangles), so the planes are queried again at the
 * solution's end pose; this returns whether one differs there by more than the convergence
 * tolerance allows (tolerance × h: a row's residual is a gap over h), with the new inputs in
 * ws->terrain_next. */
static TALON_CALLABLE int talon_terrain_moved(talon_workspace* ws, talon_real h) {
  return talon_terrain_choose(ws, ws->best_q, ws->terrain_next) >
         (talon_real)TALON_TERRAIN_TOLERANCE * h;
}
#endif

#if TALON_CHOOSES
/* The colliders that choose features (box–box's separating axis, faces and clipped vertices;
 * a hull's faces) choose them at the pose in ws->in's q_choose, the substep's start at first
 * (ir/lower/program.h): within a solve the residual is then continuous in the iterate. A
 * choice made at the iterate's own end pose instead switches a slot's impulse to another
 * point within one Newton step, and the residual jumps there: the primitive pile's upper box
 * swapping its edge–edge point for a face's four points under 0.12 N·s, where Newton stalled
 * and the step diverged (bench/RESULTS.md, fourteenth session). Whether the converged
 * solution in ws->best_* still solves the step with the choices made at its own end pose:
 * sets q_choose to that pose and returns 1 when the residual there is within the
 * tolerance. */
static TALON_CALLABLE int talon_choices_hold(talon_workspace* ws) {
  talon_copy(ws->in + TALON_IN_Q_CHOOSE, ws->best_q, TALON_NQ);
  return talon_resume_iterate(ws) <= talon_converged_merit(ws);
}
#endif

#if TALON_NTERRAIN_PROBES > 0 || TALON_CHOOSES
/* Settles what the step's data took from its start pose onto its solution's end pose: the
 * terrain's planes (talon_terrain_moved) and the colliders' choices (talon_choices_hold).
 * Where either no longer fits the solution, the step is solved again from its solution with
 * them taken at the end pose, up to TALON_SETTLE_ROUNDS times; still unsettled, the step is
 * reported unconverged (and so split). An unconverged solve's choices are not checked: that
 * step splits anyway. Adds the extra Newton updates to *newton, *pcr. Returns 0 when a solve
 * fails. */
static TALON_CALLABLE int talon_settle(talon_workspace* ws, talon_real h, int* newton, int* pcr) {
  int round;
  for (round = 0;; ++round) {
    int unsettled = 0;
    talon_normalize_quaternions(ws->best_q);
#if TALON_NTERRAIN_PROBES > 0
    unsettled = talon_terrain_moved(ws, h);
#else
    (void)h;
#endif
#if TALON_CHOOSES
    if (ws->stats.converged && !talon_choices_hold(ws)) unsettled = 1;
#endif
    if (!unsettled) return 1;
    if (round == TALON_SETTLE_ROUNDS) {
      ws->stats.converged = 0;
      return 1;
    }
#if TALON_NTERRAIN_PROBES > 0
    talon_copy(ws->in + TALON_IN_TERRAIN, ws->terrain_next, TALON_NTERRAIN_INPUTS);
#endif
    if (!talon_solve(ws, TALON_START_RESUME)) return 0;
    *newton += ws->stats.newton_iterations;
    *pcr += ws->stats.pcr_iterations;
  }
}
#endif

/* Solves one (sub)step of h from (q, u) (iterate 0 as `start` names) with the data in
 * ws->in; on success the result is in
 * ws->best_* and the warm start is updated. Returns 1 when the last iterate was finite. The
 * terrain's planes under the geoms and the colliders' choices are taken at q first and
 * settled at the end (talon_settle); ws->stats counts every Newton update of the step. */
static TALON_CALLABLE int talon_solve_substep(talon_workspace* ws, const talon_real* q,
                                             const talon_real* u, talon_real h, int start) {
  talon_copy(ws->in + TALON_IN_Q_MINUS, q, TALON_NQ);
  talon_copy(ws->in + TALON_IN_U_MINUS, u, TALON_NV);
  ws->in[TALON_IN_H] = h;
  talon_copy(ws->in + TALON_IN_Q_CHOOSE, q, TALON_NQ);
#if TALON_NTERRAIN_PROBES > 0
  talon_terrain_choose(ws, q, ws->in + TALON_IN_TERRAIN);
#endif
  if (!talon_solve(ws, start)) return 0;
#if TALON_NTERRAIN_PROBES > 0 || TALON_CHOOSES
  {
    int newton = ws->stats.newton_iterations, pcr = ws->stats.pcr_iterations;
    if (!talon_settle(ws, h, &newton, &pcr)) return 0;
    ws->stats.newton_iterations = newton;
    ws->stats.pcr_iterations = pcr;
  }
#endif
  talon_normalize_quaternions(ws->best_q);
  return talon_all_finite(ws->best_q, TALON_NQ) && talon_all_finite(ws->best_u, TALON_NV);
}

#if TALON_BACKWARD
/* Keeps what the backward step needs of accepted substep `index` (talon_adjoint.h): its start
 * state (q, u), its h, its solution (ws->best_*) and the data settled for it (terrain planes,
 * the colliders' choice pose). */
static TALON_CALLABLE void talon_record_substep(talon_workspace* ws, int index, const talon_real* q,
                                                const talon_real* u, talon_real h) {
  talon_copy(ws->rec_q + index * TALON_NQ, q, TALON_NQ);
  talon_copy(ws->rec_u + index * TALON_NV, u, TALON_NV);
  talon_copy(ws->rec_u_plus + index * TALON_NV, ws->best_u, TALON_NV);
  talon_copy(ws->rec_lambda + index * TALON_NROWS, ws->best_lambda, TALON_NROWS);
  talon_copy(ws->rec_terrain + index * TALON_NTERRAIN_INPUTS, ws->in + TALON_IN_TERRAIN,
             TALON_NTERRAIN_INPUTS);
#if TALON_CHOOSES
  talon_copy(ws->rec_q_choose + index * TALON_NQ, ws->in + TALON_IN_Q_CHOOSE, TALON_NQ);
#endif
  ws->rec_h[index] = h;
  ws->rec_count = index + 1;
}
#endif

/* Takes the solution in ws->best_* (of a step of h) as the end state and the warm start. */
static TALON_CALLABLE void talon_accept(talon_workspace* ws, talon_real h) {
  talon_copy(ws->start_q, ws->best_q, TALON_NQ);
  talon_copy(ws->start_u, ws->best_u, TALON_NV);
  talon_copy(ws->warm_lambda, ws->best_lambda, TALON_NROWS);
  ws->warm_h = h;
  ws->warm_valid = TALON_WARM_MAGIC;
}

#if TALON_RESOLVE_SPLIT_STEPS
/* xᵀ M̃ x over all bodies (twice the kinetic energy of the twist x). */
static TALON_CALLABLE talon_real talon_mass_norm_sq(const talon_real* mass, const talon_real* x) {
  talon_real total = 0;
  int b;
  for (b = 0; b < TALON_NSIM; ++b) {
    const talon_real* m = mass + 20 * b;
    const talon_real* xb = x + 6 * b;
    const talon_real wx = xb[3], wy = xb[4], wz = xb[5];
    total += m[0] * (xb[0] * xb[0] + xb[1] * xb[1] + xb[2] * xb[2]) + m[1] * wx * wx +
             m[2] * wy * wy + m[3] * wz * wz + 2 * (m[4] * wx * wy + m[5] * wx * wz + m[6] * wy * wz);
  }
  return total;
}

/* Whether the full step's solution (ws->best_u) is the split's root and not another one: its
 * end velocity within half the split's velocity change of the split's (M̃-weighted, M̃ at q⁻
 * of the whole step). Backward Euler's answers at h and h/2^k differ by a fraction of the
 * change; a spurious root of the full step (a body spun round) by more than the change. */
static TALON_CALLABLE int talon_near_split(talon_workspace* ws, const talon_real* u_minus) {
  int i;
  for (i = 0; i < TALON_NV; ++i) {
    ws->body_a[i] = ws->best_u[i] - ws->start_u[i];
    ws->body_b[i] = ws->start_u[i] - u_minus[i];
  }
  return talon_mass_norm_sq(ws->mass, ws->body_a) <=
         (talon_real)0.25 * talon_mass_norm_sq(ws->mass, ws->body_b);
}

/* After a split step: the whole step of h from (q, u) again, its iterate 0 the split's end
 * (talon_split_iterate). When that converges its solution replaces the split's, so the step
 * returns the root of the full step's equations whether or not it needed splitting: the
 * split served as a continuation in h that brought Newton into the root's basin. The answer
 * is then the same function of the data on both sides of the split/no-split boundary (finite
 * differences across it agree with the adjoint), and the backward step differentiates one
 * step instead of a chain. Otherwise everything the split left is restored: ws->in (the last
 * substep's data, for NAME_contact_gaps), ws->best_* and the statistics. Returns 1 when the
 * full step was taken. */
static TALON_CALLABLE int talon_resolve_full_step(talon_workspace* ws, const talon_real* q,
                                                  const talon_real* u, talon_real h,
                                                  int* newton, int* pcr) {
  const talon_stats split = ws->stats;
  const talon_real split_h = ws->in[TALON_IN_H];
  const int ok = talon_solve_substep(ws, q, u, h, TALON_START_SPLIT);
  *newton += ws->stats.newton_iterations;
  *pcr += ws->stats.pcr_iterations;
  if (ok && ws->stats.converged && talon_near_split(ws, u)) {
#if TALON_BACKWARD
    if (ws->record) talon_record_substep(ws, 0, q, u, h);
#endif
    talon_accept(ws, h);
    return 1;
  }
  ws->stats = split;
  talon_copy(ws->in + TALON_IN_Q_MINUS, ws->split_q, TALON_NQ);
  talon_copy(ws->in + TALON_IN_U_MINUS, ws->split_u, TALON_NV);
  ws->in[TALON_IN_H] = split_h;
  talon_copy(ws->best_q, ws->start_q, TALON_NQ);
  talon_copy(ws->best_u, ws->start_u, TALON_NV);
  talon_copy(ws->best_lambda, ws->warm_lambda, TALON_NROWS);
  return 0;
}
#endif

/* Whether the attempt just made (its statistics in ws->stats) reached the tolerance and was
 * refused only for a turn (talon_turns_resolved). The step is then split without solving it
 * from its other start, which finds a root that turns as far: a box rolled end over end
 * (tests/physics/test_contact.cpp) took 7.6 updates a step at h = 0.05 and 26.9 at h = 0.1
 * with that solve, 5.7 and 21.9 without, the same steps to the bit (bench/RESULTS.md,
 * thirtieth session). */
static TALON_CALLABLE int talon_turned_too_far(const talon_workspace* ws) {
  return !ws->stats.converged && ws->stats.merit <= talon_converged_merit(ws);
}

/* A failed attempt's result, kept while the same step is solved again (talon_retry_step):
 * its solution, and the choice pose and terrain inputs the backward step records with it. */
static TALON_CALLABLE void talon_keep_attempt(talon_workspace* ws) {
  talon_copy(ws->first_q, ws->best_q, TALON_NQ);
  talon_copy(ws->first_u, ws->best_u, TALON_NV);
  talon_copy(ws->first_lambda, ws->best_lambda, TALON_NROWS);
  talon_copy(ws->first_choose, ws->in + TALON_IN_Q_CHOOSE, TALON_NQ);
#if TALON_NTERRAIN_PROBES > 0
  talon_copy(ws->first_terrain, ws->in + TALON_IN_TERRAIN, TALON_NTERRAIN_INPUTS);
#endif
}

static TALON_CALLABLE void talon_restore_attempt(talon_workspace* ws) {
  talon_copy(ws->best_q, ws->first_q, TALON_NQ);
  talon_copy(ws->best_u, ws->first_u, TALON_NV);
  talon_copy(ws->best_lambda, ws->first_lambda, TALON_NROWS);
  talon_copy(ws->in + TALON_IN_Q_CHOOSE, ws->first_choose, TALON_NQ);
#if TALON_NTERRAIN_PROBES > 0
  talon_copy(ws->in + TALON_IN_TERRAIN, ws->first_terrain, TALON_NTERRAIN_INPUTS);
#endif
}

/* The whole step of h from ws->start_q/start_u once more, from the other iterate 0
 * (TALON_START_OTHER), after an attempt that did not converge (`ok`: its solve was finite).
 * The step's root is unique, so whichever start reaches it gives the same answer, where a
 * split gives another (backward Euler at h/2), and whether a step needs the split is decided
 * by where its Newton iteration goes: the three-wheeler dropping off its obstacle at h = 0.1
 * (step 32 of its 60-step crossing) stalled from the cold start with two friction contacts
 * of a wheel on the obstacle's edge held at their discs' rims, where the root has the wheel
 * off it, and the split's answers were 0.2–1.1 mm off the root; from the warm start it
 * converged, and in runs a control nudge of 1e-6 apart it split or not, so their
 * differences jumped. A run's first step, without a warm start, is retried from free flight:
 * two cans stacked on a post split it from the cold start (bench/RESULTS.md, twenty-fifth
 * session). A retry whose start already turns too far is given no updates (talon_solve).
 * Where the retry fails too, the attempt with the lower merit stands (what a step that cannot
 * split, TALON_MAX_SUBSTEP_DEPTH = 0, returns). Returns whether the result is
 * finite; the updates of both attempts go to *newton and *pcr. */
static TALON_CALLABLE int talon_retry_step(talon_workspace* ws, talon_real h, int ok,
                                           int* newton, int* pcr) {
  const talon_stats first = ws->stats;
  int retried;
  if (ok) talon_keep_attempt(ws);
  retried = talon_solve_substep(ws, ws->start_q, ws->start_u, h, TALON_START_OTHER);
  *newton += ws->stats.newton_iterations;
  *pcr += ws->stats.pcr_iterations;
  if (retried && ws->stats.converged) return 1;
  if (ok && (!retried || first.merit <= ws->stats.merit)) {
    ws->stats = first;
    talon_restore_attempt(ws);
  }
  return ok || retried;
}

/* Advances (q, u) by h in place. `ctrl` may be 0 (all controls zero).
 *
 * Substep fallback: a step whose Newton iteration does not converge is not taken; it is
 * solved once more at h from the other iterate 0 (TALON_START_OTHER, where there is a warm
 * start), and when that fails too retried as two steps of h/2, recursively down to
 * h/2^TALON_MAX_SUBSTEP_DEPTH (the last level's iterate is then taken, flagged unconverged,
 * unless its merit exceeds TALON_DIVERGED_MERIT: such an iterate is garbage, and the step
 * fails instead). Converged
 * steps are never split. After a split the size doubles back once the substeps realign with
 * the coarser grid. Counted in stats.substeps (1: not split). With TALON_RESOLVE_SPLIT_STEPS
 * the whole step is then solved once more from the split's end (talon_resolve_full_step); when
 * that root is taken the step reports one substep. */
static TALON_CALLABLE int talon_step_world(talon_workspace* ws, talon_real* q, talon_real* u,
                                           const talon_real* ctrl, const talon_real* params,
                                           talon_real h) {
  talon_real* in = ws->in;
  const long total = 1L << TALON_MAX_SUBSTEP_DEPTH; /* h in units of the finest substep */
  long done = 0, size = total;
  int newton = 0, pcr = 0, substeps = 0, converged = 1, diverged = 0;
  ws->stats.converged = 0;
  ws->stats.substeps = 0;
#if TALON_BACKWARD
  ws->rec_count = 0;
#endif
#if TALON_TRACE_CAPACITY > 0
  ws->trace_count = 0;
#endif
  if (!(h > 0) || !talon_finite(h)) return TALON_STEP_BAD_STEP;
  talon_copy(in + TALON_IN_Q_MINUS, q, TALON_NQ);
  talon_copy(in + TALON_IN_U_MINUS, u, TALON_NV);
  if (ctrl)
    talon_copy(in + TALON_IN_CTRL, ctrl, TALON_NCTRL);
  else
    talon_fill(in + TALON_IN_CTRL, 0, TALON_NCTRL);
  talon_copy(in + TALON_IN_PARAMS, params, TALON_NPARAM);
  in[TALON_IN_H] = h;
  if (!talon_all_finite(in, TALON_IN_H)) return TALON_STEP_NONFINITE;
  talon_copy(ws->start_q, q, TALON_NQ);
  talon_copy(ws->start_u, u, TALON_NV);
#if TALON_RESOLVE_SPLIT_STEPS
  talon_fill(ws->split_lambda, 0, TALON_NROWS);
#endif
  while (done < total) {
    const talon_real sub = h * (talon_real)size / (talon_real)total;
    int ok = talon_solve_substep(ws, ws->start_q, ws->start_u, sub, TALON_START_WARM);
    newton += ws->stats.newton_iterations;
    pcr += ws->stats.pcr_iterations;
    if ((!ok || !ws->stats.converged) && size == total && !(ok && talon_turned_too_far(ws)))
      ok = talon_retry_step(ws, sub, ok, &newton, &pcr);
    if ((!ok || !ws->stats.converged) && size > 1) {
      size /= 2; /* retry this stretch as two halves */
      continue;
    }
    if (!ok) break;
    if (!ws->stats.converged && !(ws->stats.merit <= (talon_real)TALON_DIVERGED_MERIT)) {
      diverged = 1;
      break;
    }
    converged = converged && ws->stats.converged;
#if TALON_BACKWARD
    if (ws->record) talon_record_substep(ws, substeps, ws->start_q, ws->start_u, sub);
#endif
#if TALON_RESOLVE_SPLIT_STEPS
    if (size < total) { /* a substep of a split: what talon_resolve_full_step needs */
      int i;
      talon_copy(ws->split_q, ws->start_q, TALON_NQ);
      talon_copy(ws->split_u, ws->start_u, TALON_NV);
      for (i = 0; i < TALON_NROWS; ++i) ws->split_lambda[i] += ws->best_lambda[i];
    }
#endif
    talon_accept(ws, sub);
    done += size;
    ++substeps;
    if (size < total && done % (2 * size) == 0) size *= 2;
  }
#if TALON_RESOLVE_SPLIT_STEPS
  if (done == total && substeps > 1 && talon_resolve_full_step(ws, q, u, h, &newton, &pcr)) {
    substeps = 1;
    converged = 1;
  }
#endif
  ws->stats.newton_iterations = newton;
  ws->stats.pcr_iterations = pcr;
  ws->stats.substeps = substeps;
  ws->stats.converged = done == total && converged;
  if (done < total) return diverged ? TALON_STEP_DIVERGED : TALON_STEP_NONFINITE; /* q, u kept */
  talon_copy(q, ws->start_q, TALON_NQ);
  talon_copy(u, ws->start_u, TALON_NV);
  return TALON_STEP_OK;
}

/* Forgets the warm start (after the caller sets a new state) and the statistics. */
static TALON_CALLABLE void talon_reset(talon_workspace* ws) {
  ws->warm_valid = 0;
  ws->warm_h = 0;
  talon_fill(ws->warm_lambda, 0, TALON_NROWS);
  ws->stats.newton_iterations = 0;
  ws->stats.pcr_iterations = 0;
  ws->stats.best_iterate = -1;
  ws->stats.converged = 0;
  ws->stats.substeps = 0;
  ws->stats.merit = 0;
  talon_fill(ws->stats.block_residual, 0, TALON_NBLOCKS);
#if TALON_TRACE_CAPACITY > 0
  ws->trace_count = 0;
#endif
#if TALON_DENSE_ROWS > 0
  ws->order_last_n = -1; /* no order taken yet (talon_schur_order) */
#endif
}

/* The signed gap (m, negative = penetration) of every contact normal row at the end of the
 * last successful step: the colliders' geometric g(q⁺), an output of the residual kernel,
 * with every collider's features chosen at q⁺ itself. Overwrites ws->in's iterate, its
 * choice pose and ws->res. */
static TALON_CALLABLE void talon_contact_gaps(talon_workspace* ws, talon_real* gaps) {
  int c;
  talon_copy(ws->in + TALON_IN_Q_CHOOSE, ws->best_q, TALON_NQ);
  talon_copy(ws->in + TALON_IN_U_PLUS, ws->best_u, TALON_NV);
  talon_copy(ws->in + TALON_IN_LAMBDA, ws->best_lambda, TALON_NROWS);
  talon_unit_residual(ws->in, ws->res, 0);
  for (c = 0; c < TALON_NNORMAL; ++c) gaps[c] = ws->res[TALON_RES_GAP + c];
}
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
