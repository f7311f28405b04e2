#ifdef TALON_SOLVER_EMBED
R"talon_c(
#endif
/* Talon solver loops, part 2b: the Schur system solved directly (a Cholesky factorisation).
 *
 * The frozen-W Newton matrix is the preconditioner of every Newton direction's FGMRES solve
 * (talon_krylov.h). Applying it means solving A Δλ = b, A = Ĵ M̃⁻¹ Ĵᵀ + C, on the coupled
 * rows (talon_schur.h). PCR (talon_pcr.h) does that iteratively and stops at a relative
 * residual, and a residual norm says little about the error along A's small eigenvalues: the
 * modes that only the compliances fix (the split of a body's load between its contacts, its
 * sticking contacts' internal friction), whose pivots are ~κ_n and ~κ_t of the others. There
 * the directions were wrong by far more than their residual suggested, Newton crawled along
 * those modes and cycled across the friction cones' kinks (MuJoCo's humanoid dropped at
 * h = 0.05, bench/RESULTS.md, twenty-second session). A factorisation solves the frozen
 * system exactly at the cost of at most n³/6 multiply-adds for n coupled rows, after which
 * each FGMRES iteration only has to correct the difference between the frozen and the exact
 * Jacobian.
 *
 * The factor is the Cholesky factor L (A = L Lᵀ) of the Jacobi-scaled S A S (unit diagonal)
 * over ws->schur_rows, packed by rows (row i's entries 0…i at i(i+1)/2), built once per
 * linearisation on the first solve that needs it (talon_schur_select marks it stale). Row i of
 * L is zero before ws->dense_first[i], the first column of S A S's row i that is not (fill
 * stays inside that envelope), so every dot product starts there; the rows are in reverse
 * Cuthill–McKee order (talon_schur.h, talon_schur_order), which keeps the envelope narrow:
 * the humanoid's ~175 coupled rows factor in ~49 k multiply-adds instead of ~880 k dense
 * (bench/RESULTS.md, twenty-ninth session). Averaged over its falling run, 126 rows, 26 k
 * multiply-adds, and 72 % of the envelope's ~2 450 entries nonzero in L: a sparse factor
 * would save little (thirty-third session). Each pivot's reciprocal is kept
 * (dense_pivot_inverse) and multiplied by: each entry of a row waits for the one before it,
 * and a division's latency on that chain held 8.5 % of the samples in the humanoid's inlined
 * Newton update (perf annotate); multiplying made the update ~3 % cheaper. A is only
 * semi-definite where rows are dependent (four normal rows for three constrained DOF of a box
 * on its corners, without compliance): a pivot within TALON_DENSE_PIVOT_ULPS · n · ε of zero
 * marks its row dependent, L's column there is zero and the solve leaves that row's component
 * at 0 — for a consistent right-hand side the dependent rows' equations then hold as well.
 * TALON_DENSE_ROWS (SolverOptions::dense_rows) bounds n: larger systems, or a factor that is
 * not finite, fall back to PCR. f32 units have no factor (TALON_DENSE_ROWS is 0, set in
 * codegen/model_unit.cpp): there 64 n ε is ~1e-4 and the κ_t modes' pivots (~1e-6) would
 * count as dependent, leaving FGMRES to find them (the sliding box at h = 0.1: 119 Newton
 * updates in f32 against 16 in f64; with PCR 14, tests/runtime/test_single_precision.cpp).
 */
#if TALON_DENSE_ROWS > 0

#define TALON_DENSE_STALE 0
#define TALON_DENSE_READY 1
#define TALON_DENSE_UNUSABLE 2 /* too many rows or a non-finite factor: PCR solves */

/* Pivots (of a unit diagonal) at most this many ulps times n are dependent rows. */
#define TALON_DENSE_PIVOT_ULPS 64

/* Adds body b's share of S Ĵ M̃⁻¹ Ĵᵀ S to the packed lower triangle: its coupled rows' six
 * entries (scaled by S) are gathered from the column lists into dense_body_rows / dense_jb, then
 * every pair of them contributes (S Ĵ)_i M̃_b⁻¹ (S Ĵ)_jᵀ. */
static TALON_CALLABLE void talon_dense_add_body(talon_workspace* ws, int b) {
  const talon_real* s = ws->scale;
  const talon_real* m = ws->mass + 20 * b;
  talon_real* jb = ws->dense_jb;
  talon_real* gb = ws->dense_gb;
  int count = 0, c, k, i, j;
  for (c = 0; c < 6; ++c)
    for (k = ws->schur_col_start[6 * b + c]; k < ws->schur_col_start[6 * b + c + 1]; ++k) {
      const int position = ws->schur_row_by_col[k];
      if (ws->dense_slot[position] < 0) {
        ws->dense_slot[position] = count;
        ws->dense_body_rows[count] = position;
        talon_fill(jb + 6 * count, 0, 6);
        ++count;
      }
      jb[6 * ws->dense_slot[position] + c] +=
          ws->schur_jhat_by_col[k] * s[ws->schur_rows[position]];
    }
  for (i = 0; i < count; ++i) /* g_i = M̃_b⁻¹ (S Ĵ)_iᵀ */
    talon_apply_body_inverse_mass(m, jb + 6 * i, gb + 6 * i);
  for (i = 0; i < count; ++i) {
    const int row_i = ws->dense_body_rows[i];
    ws->dense_slot[row_i] = -1; /* ready for the next body */
    for (j = 0; j < count; ++j) {
      const int row_j = ws->dense_body_rows[j];
      if (row_j > row_i) continue; /* the lower triangle only */
      ws->dense_l[row_i * (row_i + 1) / 2 + row_j] += talon_dot(jb + 6 * i, gb + 6 * j, 6);
    }
  }
}

/* The envelope of S A S: rows couple only through a body's M̃⁻¹, so row i is zero before the
 * first coupled row of any body it acts on (ws->dense_first[i]; i where it acts on none). */
static TALON_CALLABLE void talon_dense_envelope(talon_workspace* ws) {
  const int n = ws->schur_nrows;
  int i, b, k;
  for (i = 0; i < n; ++i) ws->dense_first[i] = i;
  for (b = 0; b < TALON_NSIM; ++b) {
    const int begin = ws->schur_col_start[6 * b], end = ws->schur_col_start[6 * b + 6];
    int first = n;
    for (k = begin; k < end; ++k)
      if (ws->schur_row_by_col[k] < first) first = ws->schur_row_by_col[k];
    for (k = begin; k < end; ++k) {
      const int position = ws->schur_row_by_col[k];
      if (first < ws->dense_first[position]) ws->dense_first[position] = first;
    }
  }
}

/* S A S on the coupled rows into ws->dense_l (packed lower triangle) within its envelope, the
 * only entries the factor and its solves read (the humanoid's ~175 rows: ~2 450 of the
 * triangle's ~15 k entries). */
static TALON_CALLABLE void talon_dense_assemble(talon_workspace* ws) {
  const talon_real* c = ws->lin + TALON_LIN_C;
  const talon_real* s = ws->scale;
  const int n = ws->schur_nrows;
  int i, b;
  talon_dense_envelope(ws);
  for (i = 0; i < n; ++i) {
    const int first = ws->dense_first[i];
    talon_fill(ws->dense_l + i * (i + 1) / 2 + first, 0, i - first + 1);
    ws->dense_slot[i] = -1;
  }
  for (b = 0; b < TALON_NSIM; ++b) talon_dense_add_body(ws, b);
  for (i = 0; i < n; ++i) {
    const int row = ws->schur_rows[i];
    ws->dense_l[i * (i + 1) / 2 + i] += c[row] * s[row] * s[row];
  }
}

/* Entry j < i of row i of L, its entries before j final: S A S's entry less the products of
 * rows i and j over their common envelope, times row j's pivot reciprocal (0 where row j is
 * dependent). */
static TALON_CALLABLE TALON_INLINE void talon_dense_entry(talon_workspace* ws, talon_real* row_i,
                                                          int first_i, int j) {
  const talon_real* row_j = ws->dense_l + j * (j + 1) / 2;
  const talon_real inverse = ws->dense_pivot_inverse[j];
  const int start = first_i > ws->dense_first[j] ? first_i : ws->dense_first[j];
  const talon_real sum = row_i[j] - talon_dot(row_i + start, row_j + start, j - start);
  row_i[j] = inverse > 0 ? sum * inverse : 0;
}

/* The pivot of row i, its other entries final, and its reciprocal; returns 0 where it is not
 * finite. */
static TALON_CALLABLE TALON_INLINE int talon_dense_pivot(talon_workspace* ws, int i,
                                                         talon_real dependent) {
  talon_real* row_i = ws->dense_l + i * (i + 1) / 2;
  const int first_i = ws->dense_first[i];
  const talon_real sum = row_i[i] - talon_dot(row_i + first_i, row_i + first_i, i - first_i);
  row_i[i] = sum > dependent ? TALON_SQRT(sum) : 0;
  if (!talon_finite(row_i[i])) return 0;
  ws->dense_pivot_inverse[i] = row_i[i] > 0 ? 1 / row_i[i] : 0;
  return 1;
}

/* Cholesky by rows within the envelope, in place; returns 0 where a pivot is not finite.
 * Each entry of a row waits for the one before it (its last product), a chain of six
 * floating-point latencies an entry, so rows are factored two at a time, their entries before
 * the first row's pivot in lockstep: two independent chains, each entry computed as alone, so
 * the factor is the same to the bit. */
static TALON_CALLABLE int talon_dense_factor(talon_workspace* ws) {
  const int n = ws->schur_nrows;
  const talon_real dependent = (talon_real)TALON_DENSE_PIVOT_ULPS * (talon_real)n * TALON_EPSILON;
  talon_real* l = ws->dense_l;
  int i, j;
  talon_dense_assemble(ws);
  for (i = 0; i + 1 < n; i += 2) {
    talon_real* row_a = l + i * (i + 1) / 2;
    talon_real* row_b = l + (i + 1) * (i + 2) / 2;
    const int first_a = ws->dense_first[i], first_b = ws->dense_first[i + 1];
    for (j = first_a; j < first_b && j < i; ++j) talon_dense_entry(ws, row_a, first_a, j);
    for (j = first_b; j < first_a; ++j) talon_dense_entry(ws, row_b, first_b, j);
    for (j = first_a > first_b ? first_a : first_b; j < i; ++j) {
      talon_dense_entry(ws, row_a, first_a, j);
      talon_dense_entry(ws, row_b, first_b, j);
    }
    if (!talon_dense_pivot(ws, i, dependent)) return 0;
    if (first_b <= i) talon_dense_entry(ws, row_b, first_b, i);
    if (!talon_dense_pivot(ws, i + 1, dependent)) return 0;
  }
  if (i < n) { /* the last row of an odd count */
    for (j = ws->dense_first[i]; j < i; ++j)
      talon_dense_entry(ws, l + i * (i + 1) / 2, ws->dense_first[i], j);
    if (!talon_dense_pivot(ws, i, dependent)) return 0;
  }
  return 1;
}

/* Whether the factor of the current linearisation is there to solve with (factored now if
 * it is stale). */
static TALON_CALLABLE int talon_dense_ready(talon_workspace* ws) {
  if (ws->dense_state == TALON_DENSE_STALE)
    ws->dense_state = ws->schur_nrows <= TALON_DENSE_ROWS && talon_dense_factor(ws)
                          ? TALON_DENSE_READY
                          : TALON_DENSE_UNUSABLE;
  return ws->dense_state == TALON_DENSE_READY;
}

/* y ← (L Lᵀ)⁻¹ y on the n coupled rows (a dependent row's component stays 0). */
static TALON_CALLABLE void talon_dense_solve(const talon_workspace* ws, talon_real* y) {
  const talon_real* l = ws->dense_l;
  const talon_real* inverse = ws->dense_pivot_inverse;
  const int n = ws->schur_nrows;
  int i, k;
  for (i = 0; i < n; ++i) { /* L z = y */
    const talon_real* row = l + i * (i + 1) / 2;
    const int first = ws->dense_first[i];
    const talon_real sum = y[i] - talon_dot(row + first, y + first, i - first);
    y[i] = inverse[i] > 0 ? sum * inverse[i] : 0;
  }
  for (i = n - 1; i >= 0; --i) { /* Lᵀ x = z, by the rows of L */
    const talon_real* row = l + i * (i + 1) / 2;
    const talon_real x = inverse[i] > 0 ? y[i] * inverse[i] : 0;
    y[i] = x;
    TALON_VECTORIZE
    for (k = ws->dense_first[i]; k < i; ++k) y[k] -= row[k] * x;
  }
}
#endif /* TALON_DENSE_ROWS > 0 */
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
