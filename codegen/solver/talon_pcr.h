#ifdef TALON_SOLVER_EMBED
R"talon_c(
#endif
/* Talon solver loops, part 3: the preconditioned conjugate residual method (PCR).
 *
 * Solves A Δλ = b (A = Ĵ M̃⁻¹ Ĵᵀ + C, symmetric positive semi-definite, b = ws->rhs) with
 * the Jacobi preconditioner diag(A)⁻¹ applied symmetrically: conjugate residuals on
 * Ã y = S b, Ã = S A S, S = diag(A)^-½ (ws->scale), then Δλ = S y. That is the same Krylov
 * method as left-preconditioned PCR (Macklin et al. 2019, §5; Saad, Iterative Methods for
 * Sparse Linear Systems, Alg. 6.20 with M = diag(A)), with every quantity O(1).
 *
 * The residual ‖S b − Ã y‖ decreases monotonically. Starting from y = 0, the iterates stay in
 * the Krylov space of the right-hand side, which lies in the range of Ã when the system is
 * consistent: four corners of a box resting on a plane make A singular (four normal rows for
 * three constrained DOF), and CR then converges to a solution without ever dividing by the
 * zero eigenvalue. The iteration stops early when the residual has vanished to rounding (or a
 * denominator has), after at most TALON_PCR_ITERATIONS operator applications.
 * It runs over the coupled rows (talon_schur.h, talon_schur_select); every other row's unit
 * diagonal is solved at once, Δλ_i = S_i² b_i (0 where S_i = 0).
 * Where the coupled rows are few enough (TALON_DENSE_ROWS), their Cholesky factor solves
 * them instead (talon_dense.h), counted as one iteration.
 * Returns the iterations done; writes Δλ to ws->pcr_x.
 */
static TALON_CALLABLE int talon_pcr_solve(talon_workspace* ws) {
  talon_real* y = ws->pcr_y;
  talon_real* r = ws->pcr_r;
  talon_real* p = ws->pcr_p;
  talon_real* ar = ws->pcr_ar;
  talon_real* ap = ws->pcr_ap;
  const talon_real* s = ws->scale;
  const int* rows = ws->schur_rows;
  const int n = ws->schur_nrows;
  talon_real rho, rr0;
  int i, it = 0;
  TALON_VECTORIZE
  for (i = 0; i < TALON_NROWS; ++i) ws->pcr_x[i] = s[i] > 0 ? s[i] * s[i] * ws->rhs[i] : 0;
  for (i = 0; i < n; ++i) {
    y[i] = 0;
    r[i] = s[rows[i]] * ws->rhs[rows[i]];
  }
#if TALON_DENSE_ROWS > 0
  if (talon_dense_ready(ws)) { /* the direct solve (talon_dense.h) */
    talon_dense_solve(ws, r);
    for (i = 0; i < n; ++i) ws->pcr_x[rows[i]] = s[rows[i]] * r[i];
    return 1;
  }
#endif
  rr0 = talon_dot(r, r, n);
  if (!(rr0 > TALON_TINY) || !talon_finite(rr0)) {
    for (i = 0; i < n; ++i) ws->pcr_x[rows[i]] = 0;
    return 0;
  }
  talon_scaled_schur_apply(ws, r, ar);
  talon_copy(p, r, n);
  talon_copy(ap, ar, n);
  rho = talon_dot(r, ar, n);
  while (it < TALON_PCR_ITERATIONS) {
    const talon_real apap = talon_dot(ap, ap, n);
    talon_real alpha, beta, rho_next;
    if (!(rho > TALON_TINY) || !(apap > TALON_TINY) || !talon_finite(apap)) break;
    alpha = rho / apap;
    TALON_VECTORIZE
    for (i = 0; i < n; ++i) {
      y[i] += alpha * p[i];
      r[i] -= alpha * ap[i];
    }
    ++it;
    if (talon_dot(r, r, n) <= TALON_PCR_RELATIVE_TOLERANCE * rr0) break;
    talon_scaled_schur_apply(ws, r, ar);
    rho_next = talon_dot(r, ar, n);
    beta = rho_next / rho;
    rho = rho_next;
    TALON_VECTORIZE
    for (i = 0; i < n; ++i) {
      p[i] = r[i] + beta * p[i];
      ap[i] = ar[i] + beta * ap[i];
    }
  }
  for (i = 0; i < n; ++i) ws->pcr_x[rows[i]] = s[rows[i]] * y[i];
  return it;
}
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
