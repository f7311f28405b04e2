#ifdef TALON_SOLVER_EMBED
R"talon_c(
#endif
/* Talon terrain, part 1: the smooth surface a geom stands on (docs/design.md, "Terrain").
 *
 * Seen from above the terrain is a height field, and each triangle carries a cubic patch
 * z = H(x, y): the reduced Clough–Tocher element (Clough & Tocher 1965; Farin, "Triangular
 * Bernstein–Bézier patches", CAGD 3, 1986, §4.3). The triangle is split at its centroid into
 * three, each a cubic in Bézier form over the extended barycentric coordinates
 * (l_1 − m, l_2 − m, l_3 − m, 3m), m = min l_i. The patch takes the corners' heights and
 * slopes (the slopes from the vertex normals, −n_xy / n_z) and makes the slope across each
 * edge linear along it, so two triangles sharing an edge agree there in height and slope:
 * H is C¹ over the whole mesh, and its normal (−∇H, 1)/|…| is the surface's own.
 *
 * Why not the facets with interpolated normals (the model before): a geom stood on the plane
 * through the facet point under it with the interpolated normal, and that plane's point moves
 * along the facet, whose slope is not the normal's. The gap then changed with a geom's move
 * by more than its plane's normal says, which the step's Jacobian and the adjoint (planes as
 * data) do not see: `talon gradcheck --steps 20` of the three-wheeler on models/bumps.obj
 * failed at 0.83, its error shrinking with the cell (0.0083, 0.0025, 0.0008 at 48², 96², 192²
 * cells of the same surface; bench/RESULTS.md, 2026-12-04, ninth session). On a C¹ surface
 * the tangent plane's point moves in the plane, so the gap moves with a geom as the plane's
 * normal says (ir/lower/contacts.cpp, terrain_plane, carries the normal's turn). */

/* b^n, n = 0..3. */
static TALON_CALLABLE talon_real talon_terrain_power(talon_real b, int n) {
  talon_real out = 1;
  int i;
  for (i = 0; i < n; ++i) out *= b;
  return out;
}

/* The 19 Bézier ordinates c of the split triangle, in the order of the multi-indices of
 * talon_terrain_patch, from the corners' (x, y) `x`, heights z and slopes g. The slope along
 * each edge at its ends fixes the edge's cubic; the inner ordinates next to an edge make the
 * slope across it linear along the edge (g_e: the centroid's offset from the edge, across
 * the edge's direction), the rest make the three sub-patches C¹ at the centroid. */
static TALON_CALLABLE void talon_terrain_ordinates(const talon_real x[3][2], const talon_real z[3],
                                                   const talon_real g[3][2], talon_real c[19]) {
  talon_real edge[3][2], across[3], centroid[2];
  int k;
  for (k = 0; k < 3; ++k) {
    edge[k][0] = x[(k + 1) % 3][0] - x[k][0]; /* edge k runs from corner k to corner k + 1 */
    edge[k][1] = x[(k + 1) % 3][1] - x[k][1];
  }
  centroid[0] = (x[0][0] + x[1][0] + x[2][0]) / 3;
  centroid[1] = (x[0][1] + x[1][1] + x[2][1]) / 3;
  for (k = 0; k < 3; ++k) { /* the edge opposite corner k: from corner k + 1 to k + 2 */
    const talon_real* e = edge[(k + 1) % 3];
    const talon_real* start = x[(k + 1) % 3];
    const talon_real length2 = e[0] * e[0] + e[1] * e[1];
    across[k] = length2 > TALON_TINY ? -((centroid[0] - start[0]) * e[0] +
                                         (centroid[1] - start[1]) * e[1]) / length2
                                     : 0;
  }
  c[0] = z[0];                                                      /* 3000 */
  c[1] = z[0] + (g[0][0] * edge[0][0] + g[0][1] * edge[0][1]) / 3;  /* 2100 */
  c[2] = z[0] - (g[0][0] * edge[2][0] + g[0][1] * edge[2][1]) / 3;  /* 2010 */
  c[3] = z[1];                                                      /* 0300 */
  c[4] = z[1] - (g[1][0] * edge[0][0] + g[1][1] * edge[0][1]) / 3;  /* 1200 */
  c[5] = z[1] + (g[1][0] * edge[1][0] + g[1][1] * edge[1][1]) / 3;  /* 0210 */
  c[6] = z[2];                                                      /* 0030 */
  c[7] = z[2] + (g[2][0] * edge[2][0] + g[2][1] * edge[2][1]) / 3;  /* 1020 */
  c[8] = z[2] - (g[2][0] * edge[1][0] + g[2][1] * edge[1][1]) / 3;  /* 0120 */
  c[9] = (c[1] + c[2] + c[0]) / 3;                                  /* 2001 */
  c[10] = (c[4] + c[3] + c[5]) / 3;                                 /* 0201 */
  c[11] = (c[7] + c[8] + c[6]) / 3;                                 /* 0021 */
  c[12] = (across[0] * (-c[3] + 3 * c[5] - 3 * c[8] + c[6]) +
           (-c[3] + 2 * c[5] - c[8] + c[11] + c[10])) / 2;          /* 0111 */
  c[13] = (across[1] * (-c[6] + 3 * c[7] - 3 * c[2] + c[0]) +
           (-c[6] + 2 * c[7] - c[2] + c[9] + c[11])) / 2;           /* 1011 */
  c[14] = (across[2] * (-c[0] + 3 * c[1] - 3 * c[4] + c[3]) +
           (-c[0] + 2 * c[1] - c[4] + c[9] + c[10])) / 2;           /* 1101 */
  c[15] = (c[14] + c[13] + c[9]) / 3;                               /* 1002 */
  c[16] = (c[14] + c[12] + c[10]) / 3;                              /* 0102 */
  c[17] = (c[13] + c[12] + c[11]) / 3;                              /* 0012 */
  c[18] = (c[15] + c[16] + c[17]) / 3;                              /* 0003 */
}

/* The patch of the triangle `data` (corners and vertex normals, talon_terrain_triangle_data)
 * at the point of barycentric coordinates l (seen from above; talon_terrain_barycentric): its
 * height *height and slope (∂H/∂x, ∂H/∂y). The point is taken on the triangle or near it (the
 * polynomials continue smoothly a little beyond it). */
static TALON_CALLABLE void talon_terrain_patch(const talon_real* data, const talon_real l[3],
                                               talon_real* height, talon_real slope[2]) {
  /* (i, j, k, l) of c_ijkl, the exponents of b1..b4 (i + j + k + l = 3; the b1 b2 b3 term is
   * absent: one of b1..b3 is 0 on each sub-triangle). */
  const int powers[19][4] = {{3, 0, 0, 0}, {2, 1, 0, 0}, {2, 0, 1, 0}, {0, 3, 0, 0}, {1, 2, 0, 0},
                             {0, 2, 1, 0}, {0, 0, 3, 0}, {1, 0, 2, 0}, {0, 1, 2, 0}, {2, 0, 0, 1},
                             {0, 2, 0, 1}, {0, 0, 2, 1}, {0, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 0, 1},
                             {1, 0, 0, 2}, {0, 1, 0, 2}, {0, 0, 1, 2}, {0, 0, 0, 3}};
  const talon_real factorial[4] = {1, 1, 2, 6};
  talon_real x[3][2], z[3], g[3][2], c[19], dl[3][2], b[4], db[4][2], det, inverse, m;
  int i, q, r, lowest = 0;
  for (i = 0; i < 3; ++i) {
    const talon_real* n = data + 9 + 3 * i;
    const talon_real up = TALON_FMAX(n[2], (talon_real)1e-3); /* a vertical wall: slope 1e3 */
    x[i][0] = data[3 * i];
    x[i][1] = data[3 * i + 1];
    z[i] = data[3 * i + 2];
    g[i][0] = -n[0] / up;
    g[i][1] = -n[1] / up;
  }
  talon_terrain_ordinates(x, z, g, c);
  det = (x[1][0] - x[0][0]) * (x[2][1] - x[0][1]) - (x[2][0] - x[0][0]) * (x[1][1] - x[0][1]);
  inverse = det > TALON_TINY ? 1 / det : 0;
  dl[1][0] = (x[2][1] - x[0][1]) * inverse;
  dl[1][1] = -(x[2][0] - x[0][0]) * inverse;
  dl[2][0] = -(x[1][1] - x[0][1]) * inverse;
  dl[2][1] = (x[1][0] - x[0][0]) * inverse;
  dl[0][0] = -dl[1][0] - dl[2][0];
  dl[0][1] = -dl[1][1] - dl[2][1];
  for (i = 1; i < 3; ++i)
    if (l[i] < l[lowest]) lowest = i;
  m = l[lowest];
  for (i = 0; i < 3; ++i) {
    b[i] = l[i] - m;
    db[i][0] = dl[i][0] - dl[lowest][0];
    db[i][1] = dl[i][1] - dl[lowest][1];
  }
  b[3] = 3 * m;
  db[3][0] = 3 * dl[lowest][0];
  db[3][1] = 3 * dl[lowest][1];
  *height = 0;
  slope[0] = slope[1] = 0;
  for (i = 0; i < 19; ++i) {
    const int* e = powers[i];
    const talon_real weight =
        c[i] * 6 / (factorial[e[0]] * factorial[e[1]] * factorial[e[2]] * factorial[e[3]]);
    talon_real monomial = 1;
    for (q = 0; q < 4; ++q) monomial *= talon_terrain_power(b[q], e[q]);
    *height += weight * monomial;
    for (q = 0; q < 4; ++q) { /* ∂/∂b_q of the monomial, times ∂b_q/∂(x, y) */
      talon_real partial;
      if (e[q] == 0) continue;
      partial = e[q] * talon_terrain_power(b[q], e[q] - 1);
      for (r = 0; r < 4; ++r)
        if (r != q) partial *= talon_terrain_power(b[r], e[r]);
      slope[0] += weight * partial * db[q][0];
      slope[1] += weight * partial * db[q][1];
    }
  }
}
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
