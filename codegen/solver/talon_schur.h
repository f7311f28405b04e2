#ifdef TALON_SOLVER_EMBED
R"talon_c(
#endif
/* Talon solver loops, part 2: the matrix-free Schur operator A = Ĵ M̃⁻¹ Ĵᵀ + C.
 *
 * M̃ is block-diagonal per body (the `mass` kernel's 20 values per body: m, I_world (xx yy zz
 * xy xz yz), 1/m, I_world⁻¹ (same order), ũ). Ĵ is sparse: value k (from the linearisation
 * kernel) sits at row talon_jhat_row[k], column talon_jhat_col[k] (a u⁺ index). C is diagonal.
 *
 * PCR works on the symmetrically Jacobi-scaled system S A S y = S b, Δλ = S y, S = diag(A)^-½
 * (talon_pcr.h). The scaled operator has a unit diagonal, so its products stay O(1) however
 * large C grows at a separated contact (where ∂φ/∂c → 0 and W → ∞): the overflow a naive
 * product A·v hits there cannot happen. A row whose diagonal is zero or not finite gets
 * S = 0: it drops out of the solve (its Δλ is 0).
 */

/* Per body b: y = M̃⁻¹ x on the six entries (linear: x/m, angular: I_world⁻¹ x). */
static TALON_CALLABLE void talon_apply_inverse_mass(const talon_real* mass, const talon_real* x,
                                                    talon_real* y) {
  int b;
  for (b = 0; b < TALON_NSIM; ++b) {
    const talon_real* m = mass + 20 * b;
    const talon_real* xb = x + 6 * b;
    talon_real* yb = y + 6 * b;
    const talon_real inv_m = m[7];
    const talon_real wx = xb[3], wy = xb[4], wz = xb[5];
    yb[0] = inv_m * xb[0];
    yb[1] = inv_m * xb[1];
    yb[2] = inv_m * xb[2];
    yb[3] = m[8] * wx + m[11] * wy + m[12] * wz;
    yb[4] = m[11] * wx + m[9] * wy + m[13] * wz;
    yb[5] = m[12] * wx + m[13] * wy + m[10] * wz;
  }
}

/* y[NV] = Ĵᵀ x[NROWS] (y overwritten), column by column (talon_jhat_by_col), each column
 * summed in a register. Adding every entry to y[col] in memory chained each addition to the
 * store before it: 40 % of the operator's time on the humanoid (bench/RESULTS.md). A
 * column's entries are summed from 0 in pattern order, so y is the same bit for bit. */
static TALON_CALLABLE void talon_jhat_transpose_apply(const talon_real* jhat, const talon_real* x,
                                                      talon_real* y) {
  int col, k;
  for (col = 0; col < TALON_NV; ++col) {
    talon_real sum = 0;
    for (k = talon_jhat_col_start[col]; k < talon_jhat_col_start[col + 1]; ++k)
      sum += jhat[talon_jhat_by_col[k]] * x[talon_jhat_row_by_col[k]];
    y[col] = sum;
  }
}

/* y[NROWS] += Ĵ x[NV]. A row's entries are consecutive in the pattern (a few rows' at a
 * time), so each run of one row is summed in a register and added once: adding every entry
 * to y[row] in memory chains each addition to the store before it, and that chain was the
 * step's hottest loop (the humanoid: a quarter of the step's time, bench/RESULTS.md). */
static TALON_CALLABLE void talon_jhat_apply_add(const talon_real* jhat, const talon_real* x,
                                                talon_real* y) {
  int k = 0;
  while (k < TALON_NNZ) {
    const int row = talon_jhat_row[k];
    talon_real sum = 0;
    do {
      sum += jhat[k] * x[talon_jhat_col[k]];
      ++k;
    } while (k < TALON_NNZ && talon_jhat_row[k] == row);
    y[row] += sum;
  }
}

/* out = S (Ĵ M̃⁻¹ Ĵᵀ + C) S v with S = diag(ws->scale). Uses ws->body_a and ws->body_b. */
static TALON_CALLABLE void talon_scaled_schur_apply(talon_workspace* ws, const talon_real* v,
                                                    talon_real* out) {
  const talon_real* jhat = ws->lin + TALON_LIN_JHAT;
  const talon_real* c = ws->lin + TALON_LIN_C;
  const talon_real* s = ws->scale;
  int i;
  for (i = 0; i < TALON_NROWS; ++i) out[i] = s[i] * v[i];  /* out holds S v for now */
  talon_jhat_transpose_apply(jhat, out, ws->body_a);
  talon_apply_inverse_mass(ws->mass, ws->body_a, ws->body_b);
  for (i = 0; i < TALON_NROWS; ++i) out[i] = c[i] * out[i];
  talon_jhat_apply_add(jhat, ws->body_b, out);
  for (i = 0; i < TALON_NROWS; ++i) out[i] *= s[i];
}
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
