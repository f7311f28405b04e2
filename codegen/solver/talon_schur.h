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
 *
 * The operator runs over the coupled rows only (talon_schur_select). Row i couples to row j in
 * the scaled operator by |Ã_ij| ≤ √(K_ii/A_ii) √(K_jj/A_jj) (Cauchy–Schwarz on K ⪰ 0,
 * K = Ĵ M̃⁻¹ Ĵᵀ, A = K + C), and a separated contact's normal row has C ≫ K (W → ∞): where
 * K_ii ≤ TALON_SCHUR_DECOUPLED · A_ii its scaled row is the unit vector to within 1e-8, PCR
 * solves it on its own, Δλ_i = b_i / A_ii, and the coupled rows get every iteration. On MuJoCo's
 * humanoid about 200 of its 382 rows are, and each product cost their share of
 * Ĵ's entries (bench/RESULTS.md). K_ii is bounded per entry (talon_schur_select), not taken as
 * diag A − C: that difference cancels to nothing long before 1e-16 in f32.
 */

/* A row couples to the others by at most √ of this (1e-8) when its K_ii ≤ this · A_ii. */
#define TALON_SCHUR_DECOUPLED 1e-16

/* One body's y = M̃⁻¹ x on its six entries (linear: x/m, angular: I_world⁻¹ x); m is its 20
 * mass entries. */
static TALON_CALLABLE void talon_apply_body_inverse_mass(const talon_real* m, const talon_real* x,
                                                         talon_real* y) {
  const talon_real inv_m = m[7];
  const talon_real wx = x[3], wy = x[4], wz = x[5];
  y[0] = inv_m * x[0];
  y[1] = inv_m * x[1];
  y[2] = inv_m * x[2];
  y[3] = m[8] * wx + m[11] * wy + m[12] * wz;
  y[4] = m[11] * wx + m[9] * wy + m[13] * wz;
  y[5] = m[12] * wx + m[13] * wy + m[10] * wz;
}

/* Per body b: y = M̃⁻¹ x on the six entries. */
static TALON_CALLABLE void talon_apply_inverse_mass(const talon_real* mass, const talon_real* x,
                                                    talon_real* y) {
  int b;
  for (b = 0; b < TALON_NSIM; ++b)
    talon_apply_body_inverse_mass(mass + 20 * b, x + 6 * b, y + 6 * b);
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

/* y += Ĵ x for Ĵ's `count` entries values[k] at (rows[k], cols[k]): the whole Ĵ (the
 * backward step's preconditioner) or its coupled rows' (talon_schur_select). A row's entries are
 * consecutive in the pattern (a few rows' at a time), so each run of one row is summed in a
 * register and added once: adding every entry to y[row] in memory chains each addition to the
 * store before it, and that chain was the step's hottest loop (the humanoid: a quarter of the
 * step's time, bench/RESULTS.md). */
static TALON_CALLABLE void talon_sparse_apply_add(const talon_real* values, const int* rows,
                                                  const int* cols, int count,
                                                  const talon_real* x, talon_real* y) {
  int k = 0;
  while (k < count) {
    const int row = rows[k];
    talon_real sum = 0;
    do {
      sum += values[k] * x[cols[k]];
      ++k;
    } while (k < count && rows[k] == row);
    y[row] += sum;
  }
}

/* The coupled rows of the frozen linearisation (see the top): ws->schur_rows lists them
 * (ws->schur_nrows of them, ws->schur_position[row] their index, -1 for the others), and their
 * Ĵ entries are copied in pattern order (schur_jhat, schur_row: the position, schur_col) and
 * by column (schur_jhat_by_col, schur_row_by_col, schur_col_start), so the operator reads
 * them without a gather. Called after every change to the linearisation's C, diag A or S. */
static TALON_CALLABLE void talon_schur_select(talon_workspace* ws) {
  const talon_real* jhat = ws->lin + TALON_LIN_JHAT;
  const talon_real* diag = ws->lin + TALON_LIN_DIAG;
  talon_real* bound = ws->pcr_r; /* K̄_ii ≥ K_ii per row (PCR's scratch until it runs) */
  int i, k, col, n = 0, m = 0;
  talon_fill(bound, 0, TALON_NROWS);
  for (k = 0; k < TALON_NNZ; ++k) {
    /* M̃⁻¹'s block is 1/m on the linear entries and I⁻¹ on the angular ones, whose largest
     * eigenvalue is at most its trace */
    const talon_real* body = ws->mass + 20 * (talon_jhat_col[k] / 6);
    const talon_real weight = talon_jhat_col[k] % 6 < 3 ? body[7] : body[8] + body[9] + body[10];
    bound[talon_jhat_row[k]] += jhat[k] * jhat[k] * weight;
  }
  for (i = 0; i < TALON_NROWS; ++i) { /* in the factor's order (codegen/schur_order.h) */
    const int row = talon_schur_order[i];
    const int coupled =
        ws->scale[row] > 0 && bound[row] > (talon_real)TALON_SCHUR_DECOUPLED * diag[row];
    ws->schur_position[row] = coupled ? n : -1;
    if (coupled) ws->schur_rows[n++] = row;
  }
  ws->schur_nrows = n;
  for (k = 0; k < TALON_NNZ; ++k) {
    const int position = ws->schur_position[talon_jhat_row[k]];
    if (position < 0) continue;
    ws->schur_jhat[m] = jhat[k];
    ws->schur_row[m] = position;
    ws->schur_col[m] = talon_jhat_col[k];
    ++m;
  }
  ws->schur_nnz = m;
  m = 0;
  for (col = 0; col < TALON_NV; ++col) {
    ws->schur_col_start[col] = m;
    for (k = talon_jhat_col_start[col]; k < talon_jhat_col_start[col + 1]; ++k) {
      const int position = ws->schur_position[talon_jhat_row_by_col[k]];
      if (position < 0) continue;
      ws->schur_jhat_by_col[m] = jhat[talon_jhat_by_col[k]];
      ws->schur_row_by_col[m] = position;
      ++m;
    }
  }
  ws->schur_col_start[TALON_NV] = m;
#if TALON_DENSE_ROWS > 0
  ws->dense_state = 0; /* TALON_DENSE_STALE (talon_dense.h): factored on first use */
#endif
}

/* out = S (Ĵ M̃⁻¹ Ĵᵀ + C) S v on the coupled rows: v and out hold ws->schur_nrows values, the
 * i-th for row ws->schur_rows[i]. Uses ws->body_a and ws->body_b. */
static TALON_CALLABLE void talon_scaled_schur_apply(talon_workspace* ws, const talon_real* v,
                                                    talon_real* out) {
  const talon_real* c = ws->lin + TALON_LIN_C;
  const talon_real* s = ws->scale;
  const int* rows = ws->schur_rows;
  const int n = ws->schur_nrows;
  int i, col, k;
  for (i = 0; i < n; ++i) out[i] = s[rows[i]] * v[i]; /* out holds S v for now */
  /* body_a = Ĵᵀ S v, each column summed in a register as talon_jhat_transpose_apply */
  for (col = 0; col < TALON_NV; ++col) {
    talon_real sum = 0;
    for (k = ws->schur_col_start[col]; k < ws->schur_col_start[col + 1]; ++k)
      sum += ws->schur_jhat_by_col[k] * out[ws->schur_row_by_col[k]];
    ws->body_a[col] = sum;
  }
  talon_apply_inverse_mass(ws->mass, ws->body_a, ws->body_b);
  for (i = 0; i < n; ++i) out[i] = c[rows[i]] * out[i];
  talon_sparse_apply_add(ws->schur_jhat, ws->schur_row, ws->schur_col, ws->schur_nnz, ws->body_b,
                         out);
  for (i = 0; i < n; ++i) out[i] *= s[rows[i]];
}
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
