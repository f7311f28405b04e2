#ifdef TALON_SOLVER_EMBED
R"talon_c(
#endif
/* Talon solver loops, part 5: one backward-Euler step by non-smooth Newton with best-iterate
 * selection (DESIGN "State and time stepping"; Macklin et al. 2019; the Ostrich method).
 *
 * Contract: before this text the generated unit (codegen/model_unit.cpp) defines
 *   dimensions   TALON_NSIM, TALON_NV (6·nsim), TALON_NQ (7·nsim), TALON_NROWS, TALON_NNZ
 *                (non-zeros of Ĵ), TALON_NFRICTION (frictional contacts), TALON_NNORMAL
 *                (contact normal rows), TALON_NCTRL, TALON_NPARAM, TALON_NBLOCKS
 *   kernel layout TALON_IN_{Q_MINUS,U_MINUS,U_PLUS,LAMBDA,CTRL,PARAMS,H,W} (offsets in the one
 *                input array every kernel reads), TALON_RES_{DYN,CON,MERIT,Q_PLUS,W} (outputs of
 *                `residual`), TALON_LIN_{JHAT,C,DIAG} (outputs of the fused `linearize` kernel:
 *                Ĵ values, diag C, diag A, all with W frozen at in[TALON_IN_W...]), optional
 *                TALON_RES_GAP (contact gaps, when the residual kernel outputs them)
 *   kernels      talon_kernel_mass, talon_kernel_residual, talon_kernel_linearize
 *                (in, out), rendered from the ResidualProgram; with TALON_KRYLOV_ITERATIONS
 *                > 0 also talon_kernel_jvp (`jvp_exact`), its input offsets
 *                TALON_JVP_IN_TANGENT_U / _LAMBDA (base inputs as in TALON_IN_*)
 *   tables       talon_jhat_row/col[NNZ], talon_row_block[NROWS] (block index, 0 = dynamics),
 *                talon_row_unilateral[NROWS] (1: λ ≥ 0, normal and limit rows),
 *                talon_friction_row[NFRICTION] (first of the two tangent rows),
 *                talon_friction_normal[NFRICTION] (its normal row),
 *                talon_friction_mu_param[2·NFRICTION] (θ index of each geom's μ, −1 = folded)
 *                with talon_friction_mu_value[2·NFRICTION], talon_normal_row[NNORMAL]
 *   options      TALON_NEWTON_ITERATIONS (K), TALON_NEWTON_MIN_ITERATE (k_min),
 *                TALON_PCR_ITERATIONS, TALON_PCR_RELATIVE_TOLERANCE (on ‖r‖²/‖r₀‖²),
 *                TALON_MERIT_STOP (stop once an iterate ≥ k_min is this good), TALON_CONVERGED_MERIT,
 *                TALON_FRICTION_W_MAX, TALON_WARM_START, TALON_PROJECT_UNILATERAL,
 *                TALON_FB_EPSILON_SQ, TALON_KRYLOV_ITERATIONS (0: the plain frozen-W step),
 *                TALON_KRYLOV_SWITCH (merit ratio above which the next update is exact),
 *                TALON_MAX_ROTATION (rad of turn per body and Newton update),
 *                TALON_MAX_SUBSTEP_DEPTH (halvings of an unconverged step, talon_step_world),
 *                TALON_DIVERGED_MERIT (an unconverged finest substep above it fails the step),
 *                TALON_TRACE_CAPACITY, TALON_TRACE_WIDTH, TALON_TRACE_BLOCKS (the Newton
 *                trace: iterates kept, values per iterate, where its block residuals start)
 *   workspace    talon_workspace (the public NAME_workspace) with the arrays used below.
 *
 * The Newton system and its signs (derived once here; tests/physics check the result).
 * Unknowns u⁺ [NV] and λ [NROWS] (impulses). The residual kernel gives
 *   r_dyn(u⁺, λ) = M̃ (u⁺ − ũ) − Σ Jᵀλ          (momentum units, M̃ and ũ at q⁻)
 *   r_con(u⁺, λ)                                 (velocity units)
 * and the linearisation, with the friction weight W frozen, Ĵ = ∂r_con/∂u⁺, C = ∂r_con/∂λ
 * (diagonal). Linearising both blocks about the iterate (geometric stiffness dropped, and
 * the constraint impulses' directions taken as Ĵᵀ, exactly J for joint, friction and servo
 * rows and (∂φ/∂c) J for Fischer–Burmeister rows, as the method prescribes):
 *   r_dyn + M̃ Δu − Ĵᵀ Δλ = 0   ⇒   Δu = M̃⁻¹ (Ĵᵀ Δλ − r_dyn)
 *   r_con + Ĵ Δu + C Δλ  = 0   ⇒   Ĵ M̃⁻¹ (Ĵᵀ Δλ − r_dyn) + C Δλ = −r_con
 *                              ⇒   (Ĵ M̃⁻¹ Ĵᵀ + C) Δλ = Ĵ M̃⁻¹ r_dyn − r_con.
 * A = Ĵ M̃⁻¹ Ĵᵀ + C is symmetric positive semi-definite (C ≥ 0: FB ∂φ/∂λ ≥ 0, W ≥ 0,
 * compliances ≥ 0), which PCR needs. The fixed point is exact whatever the approximations:
 * the residuals themselves are exact. Three departures from that textbook step, each found by
 * a test that failed without it (talon_newton_update says why):
 *   - Δλ comes from the Schur system, but the velocity then follows the impulses exactly,
 *     u ← u − M̃⁻¹ r_dyn(u, λ + Δλ) (one more residual evaluation), instead of through Ĵᵀ;
 *   - once an update fails to halve the merit, the rest of the iteration takes the exact
 *     Newton direction (W differentiated, geometric terms kept) by FGMRES preconditioned with
 *     this step (talon_krylov.h), when the unit has TALON_KRYLOV_ITERATIONS > 0;
 *   - an update that raised the merit is halved, up to TALON_BACKTRACKING times
 *     (talon_evaluate).
 * A trust region caps the turn of any body per update (talon_limit_update).
 *
 * Iterates k = 0 (the previous step's impulses scaled by h/h_prev and the velocity they give,
 * or u⁻ and λ = 0 on a cold start) to K; the step returns the iterate k ≥ k_min with the
 * smallest merit
 *   Σ merit_i² + ‖M̃⁻¹ r_dyn‖²     (velocity², m²/s²)
 * where merit is the residual kernel's NCP residual per row (natural map for friction,
 * φ/h for normals): v_t + Wλ_t is no NCP residual at a separated contact, and selecting
 * iterates by it picks wrong ones (DESIGN, "Known pitfalls"). There is no line search.
 * Safeguards on every iterate: λ ≥ 0 on unilateral rows (TALON_PROJECT_UNILATERAL),
 * ‖λ_t‖ ≤ μ λ_n per contact (friction stays inside the cone) and 0 ≤ W ≤ TALON_FRICTION_W_MAX
 * (friction stays dissipative; the cap keeps a separated contact's W finite).
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

/* Projects the impulses of the current iterate onto the admissible set. */
static TALON_CALLABLE void talon_admissible_impulses(talon_workspace* ws) {
  talon_real* lambda = ws->in + TALON_IN_LAMBDA;
  const talon_real* params = ws->in + TALON_IN_PARAMS;
  int i, f;
  if (TALON_PROJECT_UNILATERAL)
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
}

/* W frozen for the linearisation: non-negative (dissipative) and finite. */
static TALON_CALLABLE talon_real talon_frozen_weight(talon_real w) {
  if (!(w > 0)) return 0;
  return TALON_FMIN(w, (talon_real)TALON_FRICTION_W_MAX);
}

/* The merit of the iterate in ws->res; its per-block sums of squares go to `blocks`. */
static TALON_CALLABLE talon_real talon_merit(talon_workspace* ws, talon_real* blocks) {
  const talon_real* merit = ws->res + TALON_RES_MERIT;
  talon_real total;
  int i;
  talon_fill(blocks, 0, TALON_NBLOCKS);
  talon_apply_inverse_mass(ws->mass, ws->res + TALON_RES_DYN, ws->body_a);
  blocks[0] = talon_dot(ws->body_a, ws->body_a, TALON_NV);
  for (i = 0; i < TALON_NROWS; ++i) blocks[talon_row_block[i]] += merit[i] * merit[i];
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

/* Iterate 0: the warm-started impulses (impulse = force·h, so the previous step's impulses
 * are rescaled to the new h) and the velocity they give, or u⁻ and λ = 0 on a cold start
 * (u⁻, not the free-flight ũ: q⁺(ũ) of a body resting on the ground is h²g deep in it, and
 * the iteration then starts far from the solution; in free flight one update reaches ũ). */
static TALON_CALLABLE void talon_initial_iterate(talon_workspace* ws) {
  talon_real* u = ws->in + TALON_IN_U_PLUS;
  talon_real* lambda = ws->in + TALON_IN_LAMBDA;
  const talon_real h = ws->in[TALON_IN_H];
  int j;
  talon_copy(u, ws->in + TALON_IN_U_MINUS, TALON_NV);
  if (!TALON_WARM_START || ws->warm_valid != TALON_WARM_MAGIC || !(ws->warm_h > 0)) {
    talon_fill(lambda, 0, TALON_NROWS);
    return;
  }
  for (j = 0; j < TALON_NROWS; ++j) lambda[j] = (h / ws->warm_h) * ws->warm_lambda[j];
  talon_admissible_impulses(ws);
  /* u⁺ ← u⁻ − M̃⁻¹ r_dyn(u⁻, λ): the velocity the warm impulses produce (r_dyn is affine in
   * u⁺ and λ up to the geometric terms), so iterate 0 starts consistent instead of asking
   * the first Newton update to undo a whole step's worth of impulse. */
  talon_kernel_residual(ws->in, ws->res);
  talon_apply_inverse_mass(ws->mass, ws->res + TALON_RES_DYN, ws->body_a);
  for (j = 0; j < TALON_NV; ++j) u[j] -= ws->body_a[j];
}

#if TALON_TRACE_CAPACITY > 0
/* Records iterate k of the current attempt while tracing (NAME_set_trace): h, k, its merit,
 * the block residuals and per body |M̃⁻¹ r_dyn| (linear, angular), from what talon_merit left
 * in ws->block_now and ws->body_a. Iterates beyond the capacity are counted, not kept. */
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
  for (i = 0; i < TALON_NBLOCKS; ++i) entry[TALON_TRACE_BLOCKS + i] = TALON_SQRT(ws->block_now[i]);
  for (b = 0; b < TALON_NSIM; ++b) {
    body[2 * b] = TALON_SQRT(talon_dot(ws->body_a + 6 * b, ws->body_a + 6 * b, 3));
    body[2 * b + 1] = TALON_SQRT(talon_dot(ws->body_a + 6 * b + 3, ws->body_a + 6 * b + 3, 3));
  }
}
#endif

/* The frozen-W Newton direction's Δλ into ws->pcr_x. Returns the PCR iterations. */
static TALON_CALLABLE int talon_frozen_direction(talon_workspace* ws) {
  const talon_real* in = ws->in;
  const talon_real* lambda = in + TALON_IN_LAMBDA;
  const talon_real* w_exact = ws->res + TALON_RES_W;
  int i, f, iterations;
  /* rhs = Ĵ M̃⁻¹ r_dyn − r_con, r_con with the frozen W: r_frozen = r − (W − W_frozen) λ_t. */
  for (i = 0; i < TALON_NROWS; ++i) ws->rhs[i] = -ws->res[TALON_RES_CON + i];
  for (f = 0; f < TALON_NFRICTION; ++f) {
    const int t = talon_friction_row[f];
    const talon_real dw = w_exact[f] - in[TALON_IN_W + f];
    if (dw != 0) {
      ws->rhs[t] += dw * lambda[t];
      ws->rhs[t + 1] += dw * lambda[t + 1];
    }
  }
  talon_apply_inverse_mass(ws->mass, ws->res + TALON_RES_DYN, ws->body_a);
  talon_jhat_apply_add(ws->lin + TALON_LIN_JHAT, ws->body_a, ws->rhs);
  iterations = talon_pcr_solve(ws);
  return iterations;
}

#if TALON_KRYLOV_ITERATIONS > 0
/* The exact Newton direction (talon_krylov.h): (Δu, Δλ) in ws->kstep, Δλ also in ws->pcr_x. */
static TALON_CALLABLE int talon_exact_direction(talon_workspace* ws) {
  const int iterations = talon_krylov_direction(ws);
  talon_copy(ws->pcr_x, ws->kstep + TALON_NV, TALON_NROWS);
  return iterations;
}
#endif

/* Scales the update just made (from ws->prev_u, ws->prev_lambda to the iterate in ws->in) so
 * that no body's end-of-step orientation turns by more than TALON_MAX_ROTATION radians
 * (h·|Δω|) in one Newton update. Linearisations drop the geometric stiffness, which a light
 * body under large joint impulses (the three-wheeler's 0.1 kg caster, I⁻¹ = 62500 kg⁻¹m⁻²)
 * feels within a fraction of a radian: unlimited, its iterates spin off. A trust region, not
 * a line search: no extra evaluation, and steps near the solution are never cut. The scaled
 * impulses stay admissible (a convex combination of admissible ones). */
static TALON_CALLABLE void talon_limit_update(talon_workspace* ws) {
  talon_real* u = ws->in + TALON_IN_U_PLUS;
  talon_real* lambda = ws->in + TALON_IN_LAMBDA;
  const talon_real h = ws->in[TALON_IN_H];
  talon_real largest = 0, alpha;
  int b, i;
  for (b = 0; b < TALON_NSIM; ++b) {
    talon_real turn = 0;
    for (i = 3; i < 6; ++i) {
      const talon_real d = u[6 * b + i] - ws->prev_u[6 * b + i];
      turn += d * d;
    }
    largest = TALON_FMAX(largest, h * TALON_SQRT(turn));
  }
  if (!(largest > (talon_real)TALON_MAX_ROTATION)) return;
  alpha = (talon_real)TALON_MAX_ROTATION / largest;
  for (i = 0; i < TALON_NV; ++i) u[i] = ws->prev_u[i] + alpha * (u[i] - ws->prev_u[i]);
  for (i = 0; i < TALON_NROWS; ++i)
    lambda[i] = ws->prev_lambda[i] + alpha * (lambda[i] - ws->prev_lambda[i]);
}

/* The frozen-W linearisation at the iterate in ws->in (whose residual is in ws->res): W from
 * the residual, safeguarded, then Ĵ, C, diag A and PCR's scaling S = diag(A)^-½. */
static TALON_CALLABLE void talon_linearize_frozen(talon_workspace* ws) {
  const talon_real* diag = ws->lin + TALON_LIN_DIAG;
  int i, f;
  for (f = 0; f < TALON_NFRICTION; ++f)
    ws->in[TALON_IN_W + f] = talon_frozen_weight(ws->res[TALON_RES_W + f]);
  talon_kernel_linearize(ws->in, ws->lin);
  for (i = 0; i < TALON_NROWS; ++i)
    ws->scale[i] = diag[i] > TALON_TINY && diag[i] < TALON_HUGE ? 1 / TALON_SQRT(diag[i]) : 0;
}

/* One Newton update of the iterate in ws->in (whose residual is in ws->res), along the exact
 * direction when `exact` (and TALON_KRYLOV_ITERATIONS > 0), else the frozen-W one. Returns
 * the PCR iterations it took. */
static TALON_CALLABLE int talon_newton_update(talon_workspace* ws, int exact) {
  talon_real* in = ws->in;
  talon_real* u = in + TALON_IN_U_PLUS;
  talon_real* lambda = in + TALON_IN_LAMBDA;
  int i, iterations;
  talon_linearize_frozen(ws);
  talon_copy(ws->prev_u, u, TALON_NV);
  talon_copy(ws->prev_lambda, lambda, TALON_NROWS);
#if TALON_KRYLOV_ITERATIONS > 0
  if (exact) {
    /* λ ← Π(λ + Δλ), u ← u + Δu + M̃⁻¹ Ĵᵀ (Π(λ + Δλ) − (λ + Δλ)): the exact step, with the
     * velocity following whatever part of Δλ the safeguards removed. */
    iterations = talon_exact_direction(ws);
    for (i = 0; i < TALON_NROWS; ++i) {
      lambda[i] += ws->pcr_x[i];
      ws->pcr_x[i] = lambda[i];
    }
    talon_admissible_impulses(ws);
    for (i = 0; i < TALON_NROWS; ++i) ws->pcr_x[i] = lambda[i] - ws->pcr_x[i];
    talon_jhat_transpose_apply(ws->lin + TALON_LIN_JHAT, ws->pcr_x, ws->body_a);
    talon_apply_inverse_mass(ws->mass, ws->body_a, ws->body_b);
    for (i = 0; i < TALON_NV; ++i) u[i] += ws->kstep[i] + ws->body_b[i];
    talon_limit_update(ws);
    return iterations;
  }
#else
  (void)exact;
#endif
  /* λ ← Π(λ + Δλ) (the safeguards), then u ← u − M̃⁻¹ r_dyn(u, λ): the velocity the new
   * impulses give exactly (r_dyn is affine in λ, so this is Δu = M̃⁻¹ (Jᵀ Δλ − r_dyn) with the
   * impulses' true directions J — for Fischer–Burmeister rows Ĵ = (∂φ/∂c) J differs from J by
   * up to a factor 2 at a penetrating contact — and with the Δλ the safeguards let through).
   * It costs one more residual evaluation; ws->res is recomputed by the next iteration. */
  iterations = talon_frozen_direction(ws);
  for (i = 0; i < TALON_NROWS; ++i) lambda[i] += ws->pcr_x[i];
  talon_admissible_impulses(ws);
  talon_kernel_residual(in, ws->res);
  talon_apply_inverse_mass(ws->mass, ws->res + TALON_RES_DYN, ws->body_a);
  for (i = 0; i < TALON_NV; ++i) u[i] -= ws->body_a[i];
  talon_limit_update(ws);
  return iterations;
}

/* Moves the iterate in ws->in halfway back to the one the last update started from
 * (ws->prev_*): a convex combination of admissible impulses, so still admissible. */
static TALON_CALLABLE void talon_halve_update(talon_workspace* ws) {
  talon_real* u = ws->in + TALON_IN_U_PLUS;
  talon_real* lambda = ws->in + TALON_IN_LAMBDA;
  int i;
  for (i = 0; i < TALON_NV; ++i) u[i] = (talon_real)0.5 * (u[i] + ws->prev_u[i]);
  for (i = 0; i < TALON_NROWS; ++i) lambda[i] = (talon_real)0.5 * (lambda[i] + ws->prev_lambda[i]);
}

/* The residual and merit of the iterate in ws->in. After an update (k > 0) that raised the
 * merit above `previous` (and above the convergence tolerance: a converged iterate's merit
 * is rounding noise) the update is halved, at most TALON_BACKTRACKING times: at an edge
 * contact or a new impact the full updates overshoot and Newton cycles with period two
 * (merit 1e-8 ↔ 1e-3 on the wheeled robot's obstacle), which no best iterate repairs. Not a
 * line search for a sufficient decrease (DESIGN: that stalls here): any decrease is taken. */
static TALON_CALLABLE talon_real talon_evaluate(talon_workspace* ws, int k, talon_real previous) {
  int halvings = 0;
  for (;;) {
    talon_real merit;
    talon_kernel_residual(ws->in, ws->res);
    merit = talon_merit(ws, ws->block_now);
    if (k == 0 || halvings >= TALON_BACKTRACKING ||
        (talon_finite(merit) && (merit <= previous || merit <= TALON_CONVERGED_MERIT)))
      return merit;
    talon_halve_update(ws);
    ++halvings;
  }
}

#if TALON_RESOLVE_SPLIT_STEPS
/* Iterate 0 of the full step re-solved after a split (talon_resolve_full_step): the split's
 * end velocity and the sum of its substeps' impulses (impulse = force·h: over the whole step
 * they add up). */
static TALON_CALLABLE void talon_split_iterate(talon_workspace* ws) {
  talon_copy(ws->in + TALON_IN_U_PLUS, ws->start_u, TALON_NV);
  talon_copy(ws->in + TALON_IN_LAMBDA, ws->split_lambda, TALON_NROWS);
  talon_admissible_impulses(ws);
}
#endif

/* The Newton iteration for the step whose data (q⁻, u⁻, ctrl, θ, h) is in ws->in, from the
 * warm start (or, with `from_split`, from the split's end state: talon_split_iterate). Returns
 * 1 when some iterate k ≥ k_min had a finite merit (it is then in ws->best_*), else 0. */
static TALON_CALLABLE int talon_solve(talon_workspace* ws, int from_split) {
  const int k_first = TALON_NEWTON_MIN_ITERATE < TALON_NEWTON_ITERATIONS
                          ? TALON_NEWTON_MIN_ITERATE
                          : TALON_NEWTON_ITERATIONS;
  talon_real best = 0, previous = 0;
  int have_best = 0, k, exact = 0;
  ws->stats.newton_iterations = 0;
  ws->stats.pcr_iterations = 0;
  ws->stats.best_iterate = -1;
  talon_kernel_mass(ws->in, ws->mass);
#if TALON_RESOLVE_SPLIT_STEPS
  if (from_split)
    talon_split_iterate(ws);
  else
#else
  (void)from_split;
#endif
    talon_initial_iterate(ws);
  for (k = 0;; ++k) {
    const talon_real merit = talon_evaluate(ws, k, previous);
#if TALON_TRACE_CAPACITY > 0
    talon_trace_iterate(ws, k, merit);
#endif
    if (!talon_finite(merit)) break; /* every later iterate would inherit the NaN */
    if (k >= k_first && (!have_best || merit < best)) {
      best = merit;
      have_best = 1;
      talon_keep_iterate(ws, k, merit);
    }
    if (k >= TALON_NEWTON_ITERATIONS || (have_best && merit <= TALON_MERIT_STOP)) break;
    /* The frozen-W step while it contracts; once an update fails to reduce the merit by
     * TALON_KRYLOV_SWITCH, the exact one for the rest of the solve (sliding contacts, see
     * talon_krylov.h; edges, where the dropped geometric terms matter). Going back to the
     * frozen step after an exact one undoes it: the wheeled robot's steps on the obstacle
     * alternated between the two with merits 1e-8 and 1e-3. At rest the frozen step is the
     * better one (no component along the redundant contacts' null space), and it contracts. */
    if (k > 0 && merit > TALON_KRYLOV_SWITCH * previous) exact = 1;
    ws->stats.pcr_iterations += talon_newton_update(ws, exact);
    previous = merit;
    ++ws->stats.newton_iterations;
  }
  ws->stats.converged = have_best && best <= TALON_CONVERGED_MERIT;
  return have_best;
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

/* Solves one (sub)step of h from (q, u) with the data in ws->in; on success the result is in
 * ws->best_* and the warm start is updated. Returns 1 when an iterate k ≥ k_min was finite. */
static TALON_CALLABLE int talon_solve_substep(talon_workspace* ws, const talon_real* q,
                                             const talon_real* u, talon_real h, int from_split) {
  talon_copy(ws->in + TALON_IN_Q_MINUS, q, TALON_NQ);
  talon_copy(ws->in + TALON_IN_U_MINUS, u, TALON_NV);
  ws->in[TALON_IN_H] = h;
  if (!talon_solve(ws, from_split)) return 0;
  talon_normalize_quaternions(ws->best_q);
  return talon_all_finite(ws->best_q, TALON_NQ) && talon_all_finite(ws->best_u, TALON_NV);
}

#if TALON_BACKWARD
/* Keeps what the backward step needs of accepted substep `index` (talon_adjoint.h): its start
 * state (q, u), its h and its solution (ws->best_*). */
static TALON_CALLABLE void talon_record_substep(talon_workspace* ws, int index, const talon_real* q,
                                                const talon_real* u, talon_real h) {
  talon_copy(ws->rec_q + index * TALON_NQ, q, TALON_NQ);
  talon_copy(ws->rec_u + index * TALON_NV, u, TALON_NV);
  talon_copy(ws->rec_u_plus + index * TALON_NV, ws->best_u, TALON_NV);
  talon_copy(ws->rec_lambda + index * TALON_NROWS, ws->best_lambda, TALON_NROWS);
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
  const int ok = talon_solve_substep(ws, q, u, h, 1);
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

/* Advances (q, u) by h in place. `ctrl` may be 0 (all controls zero).
 *
 * Substep fallback: a step whose best iterate misses the convergence tolerance is not taken;
 * it is retried as two steps of h/2, recursively down to h/2^TALON_MAX_SUBSTEP_DEPTH (the
 * last level's best iterate is then taken, flagged unconverged, unless its merit exceeds
 * TALON_DIVERGED_MERIT: such an iterate is garbage, and the step fails instead). Newton at large h can fail at
 * a violent active-set change — MuJoCo's humanoid landing at h = 0.05 — and taking such an
 * iterate injects energy that the next steps amplify. Converged steps are never split, so
 * the method (and its exactness) is unchanged where it works. After a split the size doubles
 * back once the substeps realign with the coarser grid. Counted in stats.substeps. With
 * TALON_RESOLVE_SPLIT_STEPS the whole step is then solved once more from the split's end
 * (talon_resolve_full_step); when that root is taken the step reports one substep. */
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
    const int ok = talon_solve_substep(ws, ws->start_q, ws->start_u, sub, 0);
    newton += ws->stats.newton_iterations;
    pcr += ws->stats.pcr_iterations;
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
}

/* The signed gap (m, negative = penetration) of every contact normal row at the end of the
 * last successful step. Without a gap output of the residual kernel, the gap is recovered
 * from the normal rows' Fischer–Burmeister residual at λ = 0: there φ = c − √(c² + ε²)
 * (c the gap, compliance terms vanish with λ), which inverts to c = (φ² − ε²)/(2φ), φ < 0.
 * Overwrites ws->in's iterate and ws->res. */
static TALON_CALLABLE void talon_contact_gaps(talon_workspace* ws, talon_real* gaps) {
  talon_real* lambda = ws->in + TALON_IN_LAMBDA;
  int c;
  talon_copy(ws->in + TALON_IN_U_PLUS, ws->best_u, TALON_NV);
  talon_copy(lambda, ws->best_lambda, TALON_NROWS);
#if defined(TALON_RES_GAP)
  talon_kernel_residual(ws->in, ws->res);
  for (c = 0; c < TALON_NNORMAL; ++c) gaps[c] = ws->res[TALON_RES_GAP + c];
#else
  for (c = 0; c < TALON_NNORMAL; ++c) lambda[talon_normal_row[c]] = 0;
  talon_kernel_residual(ws->in, ws->res);
  for (c = 0; c < TALON_NNORMAL; ++c) {
    const talon_real phi = ws->in[TALON_IN_H] * ws->res[TALON_RES_CON + talon_normal_row[c]];
    gaps[c] = phi < 0 ? (phi * phi - (talon_real)TALON_FB_EPSILON_SQ) / (2 * phi) : TALON_HUGE;
  }
#endif
}
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
