#ifdef TALON_SOLVER_EMBED
R"talon_c(
#endif
/* Talon solver loops, part 2: the matrix-free Schur operator A = Ĵ M̃⁻¹ Ĵᵀ + C.
 *
 * M̃ is block-diagonal per body (the `mass` kernel's 20 values per body: m, I_world (xx yy zz
 * xy xz yz), 1/m, I_world⁻¹ (same order), ũ). Ĵ is sparse: value k (from the linearisation
 * kernel) sits at column talon_jhat_col[k] (a u⁺ index) of the row of its run (runs of one row:
 * talon_jhat_run_begin, talon_jhat_run_row). C is diagonal.
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

/* y[NV] = Ĵᵀ x (y overwritten) for entries listed by column: column c's are values[k] at rows
 * rows[k], k in [col_start[c], col_start[c + 1]), each column summed in a register. Adding
 * every entry to y[col] in memory chained each addition to the store before it: 40 % of the
 * operator's time on the humanoid (bench/RESULTS.md). A column's entries are summed from 0
 * in pattern order, so y is the same bit for bit whichever exact zeros the list leaves out. */
static TALON_CALLABLE void talon_columns_apply(const talon_real* values, const int* rows,
                                               const int* col_start, const talon_real* x,
                                               talon_real* y) {
  int col, k;
  for (col = 0; col < TALON_NV; ++col) {
    talon_real sum = 0;
    for (k = col_start[col]; k < col_start[col + 1]; ++k) sum += values[k] * x[rows[k]];
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

/* y −= Ĵ x entry by entry, in the entries' order, each run of one row's entries subtracted
 * in a register and stored once: the same operations as subtracting each in memory, so the
 * same result to the bit, without chaining each subtraction to the store before it (the
 * preconditioner's Ĵ Δu, every FGMRES iteration: 7 % of the samples in the humanoid's inlined
 * Newton update when it did). */
static TALON_CALLABLE void talon_sparse_subtract(const talon_real* values, const int* rows,
                                                 const int* cols, int count, const talon_real* x,
                                                 talon_real* y) {
  int k = 0;
  while (k < count) {
    const int row = rows[k];
    talon_real value = y[row];
    do {
      value -= values[k] * x[cols[k]];
      ++k;
    } while (k < count && rows[k] == row);
    y[row] = value;
  }
}

/* Ĵ's entries that are not exactly zero, in pattern order (live_jhat, live_row, live_col) and
 * by column (live_jhat_by_col, live_row_by_col, live_col_start): the preconditioner's products
 * with Ĵ and Ĵᵀ skip the rest, most of them the rows of contact pairs the broadphase set apart
 * (codegen/model_unit_broadphase.cpp: 1 400 of the humanoid's 3 216 entries). Those rows are
 * zeros in the linearisation, which talon_schur_select always follows at once, so the pairs
 * are still set apart now (talon_row_set_apart) and their rows' runs are not read at all. The
 * lists by column are a stable counting sort of the live entries: pattern order within a
 * column, which talon_columns_apply sums in. */
static TALON_CALLABLE void talon_live_entries(talon_workspace* ws) {
  const talon_real* jhat = ws->lin + TALON_LIN_JHAT;
  int* start = ws->live_col_start;
  int r, k, col, m = 0;
  for (r = 0; r < TALON_NJHAT_RUNS; ++r) {
    if (talon_row_set_apart(ws, talon_jhat_run_row[r])) continue;
    for (k = talon_jhat_run_begin[r]; k < talon_jhat_run_begin[r + 1]; ++k)
      if (jhat[k] != 0) {
        ws->live_jhat[m] = jhat[k];
        ws->live_row[m] = talon_jhat_run_row[r];
        ws->live_col[m] = talon_jhat_col[k];
        ++m;
      }
  }
  ws->live_nnz = m;
  /* start[c + 1] counts column c's entries, then start[c] is where column c begins and serves
   * as its cursor, which leaves it at column c + 1's beginning: shifted back by one */
  for (col = 0; col <= TALON_NV; ++col) start[col] = 0;
  for (k = 0; k < m; ++k) ++start[ws->live_col[k] + 1];
  for (col = 0; col < TALON_NV; ++col) start[col + 1] += start[col];
  for (k = 0; k < m; ++k) {
    const int at = start[ws->live_col[k]]++;
    ws->live_jhat_by_col[at] = ws->live_jhat[k];
    ws->live_row_by_col[at] = ws->live_row[k];
  }
  for (col = TALON_NV; col > 0; --col) start[col] = start[col - 1];
  start[0] = 0;
}

#if TALON_DENSE_ROWS > 0
/* Reverse Cuthill–McKee over the coupled rows (George & Liu, Computer Solution of Large Sparse
 * Positive Definite Systems, 1981, ch. 4): the order of the Cholesky factor's rows
 * (talon_dense.h), which fills the envelope from each row's first coupled column to its
 * diagonal. Two rows couple where they act on a common body (M̃⁻¹ is block-diagonal), so a
 * body's rows are a clique; numbered breadth first from a peripheral row, neighbours by
 * increasing degree, and reversed, the envelope stays near those cliques. The order is taken
 * at every linearisation from the rows coupled there: a static order over every row of the
 * model counted the rows of contact pairs that are apart (and the broadphase skips) as
 * neighbours, and on MuJoCo's humanoid its factor did 3.5 times the work of this one
 * (bench/RESULTS.md, twenty-ninth session). */

/* Appends to ws->order_list from `count` the unmarked rows a breadth-first search from
 * `start` reaches (each row's new neighbours by increasing degree), marking them `label`;
 * returns the new count. */
static TALON_CALLABLE int talon_rcm_search(talon_workspace* ws, int start, int count, int label) {
  int* order = ws->order_list;
  int* mark = ws->order_mark;
  int head = count, side, k, i, j;
  order[count++] = start;
  mark[start] = label;
  while (head < count) {
    const int p = order[head++], first_new = count;
    for (side = 0; side < 2; ++side) {
      const int b = ws->order_row_bodies[2 * p + side];
      if (b < 0) continue;
      for (k = ws->order_body_start[b]; k < ws->order_body_start[b + 1]; ++k) {
        const int q = ws->order_body_rows[k];
        if (mark[q] == 0) {
          mark[q] = label;
          order[count++] = q;
        }
      }
    }
    for (i = first_new + 1; i < count; ++i) { /* insertion sort by degree: stable */
      const int q = order[i];
      for (j = i; j > first_new && ws->order_degree[order[j - 1]] > ws->order_degree[q]; --j)
        order[j] = order[j - 1];
      order[j] = q;
    }
  }
  return count;
}

/* The bodies of each coupled row (order_row_bodies, two a row, -1: none), from Ĵ's live
 * entries. */
static TALON_CALLABLE void talon_rcm_bodies(talon_workspace* ws) {
  const int n = ws->schur_nrows;
  int* bodies = ws->order_row_bodies;
  int i, k, b;
  for (i = 0; i < 2 * n; ++i) bodies[i] = -1;
  for (k = 0; k < ws->live_nnz; ++k) {
    const int p = ws->schur_position[ws->live_row[k]];
    b = ws->live_col[k] / 6;
    if (p < 0 || bodies[2 * p] == b || bodies[2 * p + 1] == b) continue;
    bodies[2 * p + (bodies[2 * p] >= 0)] = b; /* a row acts on two bodies at most */
  }
}

/* The rows of each body (order_body_rows from order_body_start) and each row's degree (the
 * rows of its bodies, itself counted), from order_row_bodies. */
static TALON_CALLABLE void talon_rcm_graph(talon_workspace* ws) {
  const int n = ws->schur_nrows;
  const int* bodies = ws->order_row_bodies;
  int* start = ws->order_body_start;
  int i, b, side;
  for (b = 0; b <= TALON_NSIM; ++b) start[b] = 0;
  for (i = 0; i < 2 * n; ++i)
    if (bodies[i] >= 0) ++start[bodies[i] + 1];
  for (b = 0; b < TALON_NSIM; ++b) {
    start[b + 1] += start[b];
    ws->order_cursor[b] = start[b];
  }
  for (i = 0; i < 2 * n; ++i)
    if (bodies[i] >= 0) ws->order_body_rows[ws->order_cursor[bodies[i]]++] = i / 2;
  for (i = 0; i < n; ++i) {
    ws->order_degree[i] = 0;
    ws->order_mark[i] = 0;
    for (side = 0; side < 2; ++side)
      if ((b = bodies[2 * i + side]) >= 0) ws->order_degree[i] += start[b + 1] - start[b];
  }
}

static TALON_CALLABLE void talon_copy_int(int* to, const int* from, int n) {
  int i;
  for (i = 0; i < n; ++i) to[i] = from[i];
}

/* Whether the coupled rows (ws->schur_rows as selected) and their bodies are those the last
 * order was taken for: the order is a function of them alone. */
static TALON_CALLABLE int talon_order_holds(const talon_workspace* ws) {
  const int n = ws->schur_nrows;
  int i;
  if (n != ws->order_last_n) return 0;
  for (i = 0; i < n; ++i)
    if (ws->schur_rows[i] != ws->order_last_rows[i]) return 0;
  for (i = 0; i < 2 * n; ++i)
    if (ws->order_row_bodies[i] != ws->order_last_bodies[i]) return 0;
  return 1;
}

/* Reorders ws->schur_rows (and schur_position) by reverse Cuthill–McKee, or by the last
 * order where it holds (talon_order_holds): the coupled rows change only as contacts and
 * limits open and close, and the search was ~4 % of a Newton update on MuJoCo's humanoid
 * (bench/RESULTS.md, thirty-second session). */
static TALON_CALLABLE void talon_schur_order(talon_workspace* ws) {
  const int n = ws->schur_nrows;
  int* order = ws->order_list;
  int count = 0, i, end;
  talon_rcm_bodies(ws);
  if (!talon_order_holds(ws)) {
    ws->order_last_n = n;
    talon_copy_int(ws->order_last_rows, ws->schur_rows, n);
    talon_copy_int(ws->order_last_bodies, ws->order_row_bodies, 2 * n);
    talon_rcm_graph(ws);
    while (count < n) { /* per component: from its least-degree row, the farthest row reached */
      int start = -1;
      for (i = 0; i < n; ++i)
        if (ws->order_mark[i] == 0 &&
            (start < 0 || ws->order_degree[i] < ws->order_degree[start]))
          start = i;
      end = talon_rcm_search(ws, start, count, 2);
      start = order[end - 1];
      for (i = count; i < end; ++i) ws->order_mark[order[i]] = 0;
      count = talon_rcm_search(ws, start, count, 1);
    }
    for (i = 0; i < n; ++i) ws->order_last[i] = ws->schur_rows[order[n - 1 - i]];
  }
  for (i = 0; i < n; ++i) {
    ws->schur_rows[i] = ws->order_last[i];
    ws->schur_position[ws->schur_rows[i]] = i;
  }
}
#endif

/* The coupled rows of the frozen linearisation (see the top): ws->schur_rows lists them
 * (ws->schur_nrows of them, ws->schur_position[row] their index, -1 for the others), and their
 * Ĵ entries are copied in pattern order (schur_jhat, schur_row: the position, schur_col) and
 * by column (schur_jhat_by_col, schur_row_by_col, schur_col_start), so the operator reads
 * them without a gather. Called after every change to the linearisation's C, diag A or S. */
static TALON_CALLABLE void talon_schur_select(talon_workspace* ws) {
  const talon_real* diag = ws->lin + TALON_LIN_DIAG;
  talon_real* bound = ws->pcr_r; /* K̄_ii ≥ K_ii per row (PCR's scratch until it runs) */
  int i, k, col, n = 0, m = 0;
  talon_live_entries(ws);
  talon_fill(bound, 0, TALON_NROWS);
  k = 0;
  while (k < ws->live_nnz) { /* each run of one row's entries summed in a register */
    const int row = ws->live_row[k];
    talon_real sum = bound[row];
    do {
      /* M̃⁻¹'s block is 1/m on the linear entries and I⁻¹ on the angular ones, whose largest
       * eigenvalue is at most its trace */
      const int col = ws->live_col[k];
      const talon_real* body = ws->mass + 20 * (col / 6);
      const talon_real weight = col % 6 < 3 ? body[7] : body[8] + body[9] + body[10];
      sum += ws->live_jhat[k] * ws->live_jhat[k] * weight;
      ++k;
    } while (k < ws->live_nnz && ws->live_row[k] == row);
    bound[row] = sum;
  }
  for (i = 0; i < TALON_NROWS; ++i) {
    const int coupled = ws->scale[i] > 0 && bound[i] > (talon_real)TALON_SCHUR_DECOUPLED * diag[i];
    ws->schur_position[i] = coupled ? n : -1;
    if (coupled) ws->schur_rows[n++] = i;
  }
  ws->schur_nrows = n;
#if TALON_DENSE_ROWS > 0
  if (n <= TALON_DENSE_ROWS) talon_schur_order(ws); /* the factor's order */
#endif
  /* the coupled rows' live entries, in pattern order and by column */
  for (k = 0; k < ws->live_nnz; ++k) {
    const int position = ws->schur_position[ws->live_row[k]];
    if (position < 0) continue;
    ws->schur_jhat[m] = ws->live_jhat[k];
    ws->schur_row[m] = position;
    ws->schur_col[m] = ws->live_col[k];
    ++m;
  }
  ws->schur_nnz = m;
  m = 0;
  for (col = 0; col < TALON_NV; ++col) {
    ws->schur_col_start[col] = m;
    for (k = ws->live_col_start[col]; k < ws->live_col_start[col + 1]; ++k) {
      const int position = ws->schur_position[ws->live_row_by_col[k]];
      if (position < 0) continue;
      ws->schur_jhat_by_col[m] = ws->live_jhat_by_col[k];
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
  int i;
  TALON_VECTORIZE
  for (i = 0; i < n; ++i) out[i] = s[rows[i]] * v[i]; /* out holds S v for now */
  /* body_a = Ĵᵀ S v */
  talon_columns_apply(ws->schur_jhat_by_col, ws->schur_row_by_col, ws->schur_col_start, out,
                      ws->body_a);
  talon_apply_inverse_mass(ws->mass, ws->body_a, ws->body_b);
  TALON_VECTORIZE
  for (i = 0; i < n; ++i) out[i] = c[rows[i]] * out[i];
  talon_sparse_apply_add(ws->schur_jhat, ws->schur_row, ws->schur_col, ws->schur_nnz, ws->body_b,
                         out);
  TALON_VECTORIZE
  for (i = 0; i < n; ++i) out[i] *= s[rows[i]];
}
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
