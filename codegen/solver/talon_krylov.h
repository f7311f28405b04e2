#ifdef TALON_SOLVER_EMBED
R"talon_c(
#endif
/* Talon solver loops, part 4: the exact Newton direction by flexible GMRES.
 *
 * Why: with W frozen, the Newton update is a fixed-point iteration on the friction weights.
 * With several contacts on one body it can repel its own fixed point: a box on four corners
 * sliding to a stop at h = 0.1 amplifies a yaw mode of the tangential impulses about tenfold
 * per iteration, even when started at the solution (tests/physics). And a direction computed
 * for one residual is no descent direction for another, so no line search can judge it. The
 * exact Jacobian of F = [r_dyn; r_con] with respect to (u⁺, λ) — the friction cone's natural
 * map, geometric terms and the FB rows' impulse directions differentiated — has neither
 * problem, and the `jvp_exact` kernel applies it.
 *
 * So the Newton direction solves J z = −F by FGMRES (Saad 1993; Saad, Iterative Methods for
 * Sparse Linear Systems, Alg. 9.6) from z = 0, right-preconditioned by the frozen-W step P⁻¹ (talon_pcr.h and
 * talon_schur.h: exactly the plain method's update, so the first Krylov vector is the plain
 * Newton step). Residuals are measured in velocity units, L = diag(M̃⁻¹, I), like the merit:
 * GMRES minimises ‖L (J z + F)‖. P⁻¹ of L⁻¹v, v = (v_d, v_c), is
 *   A Δλ = v_c − Ĵ v_d,   Δu = v_d + M̃⁻¹ Ĵᵀ Δλ
 * (the Schur form of [M̃ −Ĵᵀ; Ĵ C] z = (M̃ v_d, v_c)). The preconditioner is a truncated PCR,
 * not a fixed linear map, hence the flexible variant, which keeps Z = [P⁻¹v_j].
 * Cost per Krylov iteration: one `jvp_exact` evaluation and one PCR solve.
 *
 * The same FGMRES cycle solves the backward step's transposed system Jᵀ μ = b (talon_adjoint.h,
 * with TALON_BACKWARD): there the operator is `vjp_exact` and the preconditioner P⁻ᵀ, the
 * transpose of the same frozen-W step, so both solves share their convergence behaviour.
 */
#if TALON_KRYLOV_ITERATIONS > 0 || TALON_BACKWARD

#define TALON_KRYLOV_N (TALON_NV + TALON_NROWS)

/* Multiplies the friction rows of x (TALON_NROWS long) by 1 + s (s the frozen weight of their
 * contact, in ws->in): the exact Jacobian's friction rows are the frozen rows times
 * d = 1/(1 + s) (ir/lower/contacts.cpp, friction_terms), so P = D P_frozen with D = diag(d)
 * on those rows, P⁻¹ = P_frozen⁻¹ D⁻¹ and P⁻ᵀ = D⁻¹ P_frozen⁻ᵀ. */
static TALON_CALLABLE void talon_scale_friction_rows(const talon_workspace* ws, talon_real* x) {
  int f;
  for (f = 0; f < TALON_NFRICTION; ++f) {
    const talon_real scale = 1 + ws->in[TALON_IN_W + f];
    x[talon_friction_row[f]] *= scale;
    x[talon_friction_row[f] + 1] *= scale;
  }
}

#if TALON_KRYLOV_ITERATIONS > 0
/* z = P⁻¹ L⁻¹ v (z, v of size TALON_KRYLOV_N). Uses rhs, pcr_*, body_a, body_b. */
static TALON_CALLABLE int talon_krylov_precondition(talon_workspace* ws, const talon_real* v,
                                                    talon_real* z) {
  int i, iterations;
  TALON_VECTORIZE
  for (i = 0; i < TALON_NROWS; ++i) ws->rhs[i] = v[TALON_NV + i];
  talon_scale_friction_rows(ws, ws->rhs);
  talon_sparse_subtract(ws->live_jhat, ws->live_row, ws->live_col, ws->live_nnz, v, ws->rhs);
  iterations = talon_pcr_solve(ws);
  talon_columns_apply(ws->live_jhat_by_col, ws->live_row_by_col, ws->live_col_start, ws->pcr_x,
                      ws->body_a);
  talon_apply_inverse_mass(ws->mass, ws->body_a, ws->body_b);
  TALON_VECTORIZE
  for (i = 0; i < TALON_NV; ++i) z[i] = v[i] + ws->body_b[i];
  TALON_VECTORIZE
  for (i = 0; i < TALON_NROWS; ++i) z[TALON_NV + i] = ws->pcr_x[i];
  return iterations;
}

/* w = L (J + ρ K) z with the exact Jacobian J at the iterate in ws->in (ρ K: below). */
static TALON_CALLABLE void talon_krylov_apply(talon_workspace* ws, const talon_real* z,
                                              talon_real* w) {
  int i;
  talon_copy(ws->jvp_in + TALON_JVP_IN_TANGENT_U, z, TALON_NV);
  talon_copy(ws->jvp_in + TALON_JVP_IN_TANGENT_LAMBDA, z + TALON_NV, TALON_NROWS);
  talon_unit_jvp(ws->jvp_in, ws->jvp_out, TALON_JVP_SEPARATION(ws), ws->jvp_cache);
  talon_apply_inverse_mass(ws->mass, ws->jvp_out, w);
  talon_copy(w + TALON_NV, ws->jvp_out + TALON_NV, TALON_NROWS);
  talon_open_rows(ws, z, w); /* the pairs open at the iterate (model_unit_broadphase.cpp) */
  /* the proximal term ρ K of the contact rows, ρ k = ρ diag A / ((1 + s)(1 + ρ)) of the
   * linearisation it modified, s = 0 on a normal row (talon_newton.h,
   * talon_proximal_linearization, which keeps the rows and weights) */
  for (i = 0; i < ws->proximal_count; ++i) {
    const int r = TALON_NV + ws->proximal_rows[i];
    w[r] += ws->proximal_weight[i] * z[r];
  }
}
#endif

#if TALON_BACKWARD
/* z = P⁻ᵀ v with Pᵀ = [M̃ Ĵᵀ; −Ĵ C] (P the frozen-W Newton matrix [M̃ −Ĵᵀ; Ĵ C]): eliminating
 * z_u = M̃⁻¹ (v_u − Ĵᵀ z_λ) leaves the forward's Schur system A z_λ = v_λ + Ĵ M̃⁻¹ v_u.
 * Uses rhs, pcr_*, body_a, body_b. */
static TALON_CALLABLE int talon_adjoint_precondition(talon_workspace* ws, const talon_real* v,
                                                     talon_real* z) {
  int i, iterations;
  TALON_VECTORIZE
  for (i = 0; i < TALON_NROWS; ++i) ws->rhs[i] = v[TALON_NV + i];
  talon_apply_inverse_mass(ws->mass, v, ws->body_a);
  talon_sparse_apply_add(ws->live_jhat, ws->live_row, ws->live_col, ws->live_nnz, ws->body_a,
                         ws->rhs);
  iterations = talon_pcr_solve(ws); /* clobbers body_a, body_b */
  talon_columns_apply(ws->live_jhat_by_col, ws->live_row_by_col, ws->live_col_start, ws->pcr_x,
                      ws->body_b);
  TALON_VECTORIZE
  for (i = 0; i < TALON_NV; ++i) ws->body_b[i] = v[i] - ws->body_b[i];
  talon_apply_inverse_mass(ws->mass, ws->body_b, z);
  TALON_VECTORIZE
  for (i = 0; i < TALON_NROWS; ++i) z[TALON_NV + i] = ws->pcr_x[i];
  talon_scale_friction_rows(ws, z + TALON_NV);
  return iterations;
}

/* w = Jᵀ z with the exact Jacobian at the point whose base inputs are in ws->adj_in. */
static TALON_CALLABLE void talon_adjoint_apply(talon_workspace* ws, const talon_real* z,
                                               talon_real* w) {
  talon_copy(ws->adj_in + TALON_VJP_IN_COT_DYN, z, TALON_NV);
  talon_copy(ws->adj_in + TALON_VJP_IN_COT_CON, z + TALON_NV, TALON_NROWS);
  talon_unit_vjp(ws->adj_in, w, 0);
}
#endif

/* The operator and preconditioner of the system at hand: forward (L J, P⁻¹ L⁻¹) or, with
 * `adjoint`, backward (Jᵀ, P⁻ᵀ). */
static TALON_CALLABLE int talon_krylov_precondition_op(talon_workspace* ws, int adjoint,
                                                       const talon_real* v, talon_real* z) {
  (void)adjoint;
#if TALON_BACKWARD
  if (adjoint) return talon_adjoint_precondition(ws, v, z);
#endif
#if TALON_KRYLOV_ITERATIONS > 0
  return talon_krylov_precondition(ws, v, z);
#else
  talon_copy(z, v, TALON_KRYLOV_N);
  return 0;
#endif
}

static TALON_CALLABLE void talon_krylov_apply_op(talon_workspace* ws, int adjoint,
                                                 const talon_real* z, talon_real* w) {
  (void)adjoint;
#if TALON_BACKWARD
  if (adjoint) {
    talon_adjoint_apply(ws, z, w);
    return;
  }
#endif
#if TALON_KRYLOV_ITERATIONS > 0
  talon_krylov_apply(ws, z, w);
#else
  talon_copy(w, z, TALON_KRYLOV_N);
#endif
}

/* One FGMRES(m) cycle: ws->kv's first row holds the residual r₀ = b − op(x) on entry; the
 * correction that minimises ‖b − op(x + Δx)‖ over the preconditioned Krylov space is added
 * to x. Stops early once the (Givens-estimated) residual is ≤ `tolerance`. Returns the PCR
 * iterations; *cycles gets the Krylov iterations done and *residual the estimated
 * ‖b − op(x + Δx)‖. */
static TALON_CALLABLE int talon_fgmres_cycle(talon_workspace* ws, int m, int adjoint,
                                             talon_real tolerance, talon_real* x, int* cycles,
                                             talon_real* residual) {
  const int n = TALON_KRYLOV_N;
  talon_real* v = ws->kv; /* (m + 1) × n, row j = v_j */
  talon_real* z = ws->kz; /* m × n */
  talon_real* h = ws->kh; /* (m + 1) × m, h[i·m + j] */
  talon_real beta;
  int i, j, done = 0, iterations = 0;
  *cycles = 0;
  beta = TALON_SQRT(talon_dot(v, v, n));
  *residual = beta;
  if (!(beta > TALON_TINY) || !talon_finite(beta)) return 0;
  TALON_VECTORIZE
  for (i = 0; i < n; ++i) v[i] /= beta;
  talon_fill(ws->kg, 0, m + 1);
  ws->kg[0] = beta;
  for (j = 0; j < m; ++j) {
    talon_real* w = v + (j + 1) * n;
    talon_real norm, denom;
    iterations += talon_krylov_precondition_op(ws, adjoint, v + j * n, z + j * n);
    talon_krylov_apply_op(ws, adjoint, z + j * n, w);
    for (i = 0; i <= j; ++i) { /* modified Gram–Schmidt */
      const talon_real hij = talon_dot(w, v + i * n, n);
      int k;
      h[i * m + j] = hij;
      TALON_VECTORIZE
      for (k = 0; k < n; ++k) w[k] -= hij * v[i * n + k];
    }
    norm = TALON_SQRT(talon_dot(w, w, n));
    for (i = 0; i < j; ++i) { /* the previous Givens rotations on column j */
      const talon_real a = h[i * m + j], b = h[(i + 1) * m + j];
      h[i * m + j] = ws->kcs[i] * a + ws->ksn[i] * b;
      h[(i + 1) * m + j] = -ws->ksn[i] * a + ws->kcs[i] * b;
    }
    denom = TALON_SQRT(h[j * m + j] * h[j * m + j] + norm * norm);
    if (!(denom > TALON_TINY) || !talon_finite(denom)) break;
    ws->kcs[j] = h[j * m + j] / denom;
    ws->ksn[j] = norm / denom;
    h[j * m + j] = denom;
    ws->kg[j + 1] = -ws->ksn[j] * ws->kg[j];
    ws->kg[j] = ws->kcs[j] * ws->kg[j];
    done = j + 1;
    if (!(norm > TALON_TINY * beta) || TALON_FABS(ws->kg[j + 1]) <= tolerance)
      break; /* the Krylov space holds the solution */
    TALON_VECTORIZE
    for (i = 0; i < n; ++i) w[i] /= norm;
  }
  *residual = TALON_FABS(ws->kg[done]);
  /* back substitution H y = g (y overwrites g), then x += Σ y_j Z_j */
  for (j = done - 1; j >= 0; --j) {
    talon_real sum = ws->kg[j];
    for (i = j + 1; i < done; ++i) sum -= h[j * m + i] * ws->kg[i];
    ws->kg[j] = sum / h[j * m + j];
  }
  for (j = 0; j < done; ++j) {
    TALON_VECTORIZE
    for (i = 0; i < n; ++i) x[i] += ws->kg[j] * z[j * n + i];
  }
  *cycles = done;
  return iterations;
}

#if TALON_KRYLOV_ITERATIONS > 0
/* The Newton direction (Δu, Δλ) into ws->kstep: J z = −F from z = 0, residuals measured in
 * velocity units (L), solved to ‖L(J z + F)‖ ≤ η ‖L F‖ or for TALON_KRYLOV_ITERATIONS
 * iterations. *eta gets the relative residual reached, ‖L(J z + F)‖ / ‖L F‖ (≤ 1: GMRES never
 * increases it). Returns the PCR iterations it took. */
static TALON_CALLABLE int talon_krylov_direction(talon_workspace* ws, talon_real* eta) {
  talon_real* v = ws->kv;
  talon_real norm, reached;
  int i, cycles, pcr;
  /* the base inputs for jvp_exact: the iterate's own; the templates' part of J at them, once
   * for the whole FGMRES solve (model_unit_pairs.cpp, the JVP in two stages) */
  talon_copy(ws->jvp_in, ws->in, TALON_IN_W);
  talon_unit_jvp_prepare(ws->jvp_in, ws->jvp_cache, TALON_JVP_SEPARATION(ws));
  /* v_0 = L(−F) */
  talon_apply_inverse_mass(ws->mass, ws->res + TALON_RES_DYN, v);
  TALON_VECTORIZE
  for (i = 0; i < TALON_NV; ++i) v[i] = -v[i];
  TALON_VECTORIZE
  for (i = 0; i < TALON_NROWS; ++i) v[TALON_NV + i] = -ws->res[TALON_RES_CON + i];
  talon_fill(ws->kstep, 0, TALON_KRYLOV_N);
  norm = TALON_SQRT(talon_dot(v, v, TALON_KRYLOV_N));
  pcr = talon_fgmres_cycle(ws, TALON_KRYLOV_ITERATIONS, 0, *eta * norm, ws->kstep, &cycles,
                           &reached);
  *eta = norm > 0 ? TALON_FMIN(reached / norm, 1) : 1;
  return pcr;
}
#endif

#endif /* TALON_KRYLOV_ITERATIONS > 0 || TALON_BACKWARD */
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
