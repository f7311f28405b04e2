#ifdef TALON_SOLVER_EMBED
R"talon_c(
#endif
/* Talon terrain: the closest point of a static triangle mesh to a probe.
 *
 * The mesh is data: codegen/terrain_bvh.cpp renders it as the tables talon_terrain_vertices,
 * _triangles, _normals, _node_boxes, _node_links and the macros TALON_TERRAIN_* (layout in
 * codegen/terrain_bvh.h), after talon_math.h (talon_real, TALON_SQRT) and before this text.
 * The unit defines TALON_CALLABLE and TALON_TABLE. This one routine searches any mesh: a
 * depth-first walk of the bounding-volume hierarchy with a fixed-size explicit stack
 * (TALON_TERRAIN_STACK entries: one deferred child per inner level, no recursion), the nearer
 * child first, skipping every box farther than the best triangle so far.
 */

/* |p - box|^2 for the box of `node` (0 inside it). */
static TALON_CALLABLE talon_real talon_terrain_box_distance2(const talon_real p[3], int node) {
  const talon_real* lo = talon_terrain_node_boxes + 6 * node;
  const talon_real* hi = lo + 3;
  talon_real d2 = 0;
  int k;
  for (k = 0; k < 3; ++k) {
    if (p[k] < lo[k]) d2 += (lo[k] - p[k]) * (lo[k] - p[k]);
    if (p[k] > hi[k]) d2 += (p[k] - hi[k]) * (p[k] - hi[k]);
  }
  return d2;
}

/* num / den clamped to [0, 1]; 0 for den <= 0. Only a triangle that rounding (f32 tables) made
 * degenerate reaches den <= 0; the clamp keeps the point on the segment whatever the
 * rounding. */
static TALON_CALLABLE talon_real talon_terrain_fraction(talon_real num, talon_real den) {
  if (!(den > 0)) return 0;
  return TALON_FMIN(TALON_FMAX(num / den, (talon_real)0), (talon_real)1);
}

/* out = a + s (b - a). */
static TALON_CALLABLE void talon_terrain_lerp(const talon_real* a, const talon_real* b,
                                              talon_real s, talon_real out[3]) {
  int k;
  for (k = 0; k < 3; ++k) out[k] = a[k] + s * (b[k] - a[k]);
}

static TALON_CALLABLE talon_real talon_terrain_dot3(const talon_real* a, const talon_real* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The closest point c of triangle t to p; returns |p - c|^2.
 *
 * Ericson, Real-Time Collision Detection, section 5.1.5: the Voronoi region of p among the
 * vertices, edges and face, from the signs of the dot products d1..d6 and of the
 * (unnormalised) barycentric coordinates va, vb, vc; then the point in that region. */
static TALON_CALLABLE talon_real talon_terrain_triangle_closest(const talon_real p[3], int t,
                                                                 talon_real c[3]) {
  const talon_real* a = talon_terrain_vertices + 3 * talon_terrain_triangles[3 * t];
  const talon_real* b = talon_terrain_vertices + 3 * talon_terrain_triangles[3 * t + 1];
  const talon_real* v = talon_terrain_vertices + 3 * talon_terrain_triangles[3 * t + 2];
  talon_real ab[3], ac[3], ap[3], bp[3], vp[3];
  talon_real d1, d2, d3, d4, d5, d6, va, vb, vc, area;
  int k;
  for (k = 0; k < 3; ++k) {
    ab[k] = b[k] - a[k];
    ac[k] = v[k] - a[k];
    ap[k] = p[k] - a[k];
    bp[k] = p[k] - b[k];
    vp[k] = p[k] - v[k];
  }
  d1 = talon_terrain_dot3(ab, ap);
  d2 = talon_terrain_dot3(ac, ap);
  d3 = talon_terrain_dot3(ab, bp);
  d4 = talon_terrain_dot3(ac, bp);
  d5 = talon_terrain_dot3(ab, vp);
  d6 = talon_terrain_dot3(ac, vp);
  vc = d1 * d4 - d3 * d2;
  vb = d5 * d2 - d1 * d6;
  va = d3 * d6 - d5 * d4;
  area = va + vb + vc; /* |ab x ac|^2 */
  if (d1 <= 0 && d2 <= 0) {
    talon_copy(c, a, 3); /* vertex a */
  } else if (d3 >= 0 && d4 <= d3) {
    talon_copy(c, b, 3); /* vertex b */
  } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    talon_terrain_lerp(a, b, talon_terrain_fraction(d1, d1 - d3), c); /* edge ab */
  } else if (d6 >= 0 && d5 <= d6) {
    talon_copy(c, v, 3); /* vertex c */
  } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    talon_terrain_lerp(a, v, talon_terrain_fraction(d2, d2 - d6), c); /* edge ac */
  } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    talon_terrain_lerp(b, v, talon_terrain_fraction(d4 - d3, (d4 - d3) + (d5 - d6)), c); /* bc */
  } else if (area > 0) {
    for (k = 0; k < 3; ++k) c[k] = a[k] + ab[k] * (vb / area) + ac[k] * (vc / area); /* face */
  } else {
    talon_copy(c, a, 3); /* a triangle that f32 rounding flattened, reached by rounding */
  }
  for (k = 0; k < 3; ++k) ap[k] = p[k] - c[k];
  return talon_terrain_dot3(ap, ap);
}

/* Tests the triangles of leaf `node`, keeping the nearest in *best (index) and *best_d2. Exact
 * ties go to the lower triangle index, so the answer does not depend on the visiting order. */
static TALON_CALLABLE void talon_terrain_leaf(const talon_real p[3], int node, int* best,
                                              talon_real* best_d2, talon_real point[3]) {
  const int first = talon_terrain_node_links[2 * node];
  const int end = first + talon_terrain_node_links[2 * node + 1];
  talon_real c[3], d2;
  int t;
  for (t = first; t < end; ++t) {
    d2 = talon_terrain_triangle_closest(p, t, c);
    if (*best < 0 || d2 < *best_d2 || (d2 == *best_d2 && t < *best)) {
      *best = t;
      *best_d2 = d2;
      talon_copy(point, c, 3);
    }
  }
}

/* The unit normal for probe p, closest point c on triangle t (outward face normal n_t):
 * d = p - c. Above the surface (d . n_t > 0, |d| beyond TALON_TERRAIN_NORMAL_TOLERANCE), d/|d|:
 * it turns continuously as p crosses above an edge or vertex, where n_t jumps, so a wheel's
 * centre above the terrain sees a smooth normal. On or below the surface, n_t. */
static TALON_CALLABLE void talon_terrain_normal(const talon_real p[3], const talon_real c[3],
                                                int t, talon_real normal[3]) {
  const talon_real* n = talon_terrain_normals + 3 * t;
  const talon_real tolerance = TALON_TERRAIN_NORMAL_TOLERANCE;
  talon_real d[3], length2, inverse;
  int k;
  for (k = 0; k < 3; ++k) d[k] = p[k] - c[k];
  length2 = talon_terrain_dot3(d, d);
  if (talon_terrain_dot3(d, n) > 0 && length2 > tolerance * tolerance) {
    inverse = 1 / TALON_SQRT(length2);
    for (k = 0; k < 3; ++k) normal[k] = d[k] * inverse;
  } else {
    talon_copy(normal, n, 3);
  }
}

/* The triangle holding the exact closest point of the mesh to probe (to rounding), and that
 * point. */
static TALON_CALLABLE int talon_terrain_nearest(const talon_real probe[3], talon_real point[3]) {
  int stack_node[TALON_TERRAIN_STACK];
  talon_real stack_d2[TALON_TERRAIN_STACK]; /* the box distance, rechecked when popped */
  int top = 0, node = 0, best = -1;
  talon_real best_d2 = 0;
  for (;;) {
    const int first = talon_terrain_node_links[2 * node];
    if (talon_terrain_node_links[2 * node + 1] > 0) {
      talon_terrain_leaf(probe, node, &best, &best_d2, point);
      node = -1;
    } else {
      const talon_real d_first = talon_terrain_box_distance2(probe, first);
      const talon_real d_second = talon_terrain_box_distance2(probe, first + 1);
      /* The nearer child now (the first one on a tie), the farther one deferred. Boxes at
       * exactly the best distance are still visited: they may hold a tie of lower index. */
      const int second_nearer = d_second < d_first;
      const talon_real d_near = second_nearer ? d_second : d_first;
      const talon_real d_far = second_nearer ? d_first : d_second;
      if (best < 0 || d_far <= best_d2) {
        stack_node[top] = second_nearer ? first : first + 1;
        stack_d2[top] = d_far;
        ++top;
      }
      node = best < 0 || d_near <= best_d2 ? first + second_nearer : -1;
    }
    while (node < 0 && top > 0) {
      --top;
      if (stack_d2[top] <= best_d2) node = stack_node[top];
    }
    if (node < 0) break;
  }
  return best;
}

/* point: the exact closest point of the mesh to probe (to rounding); normal: as
 * talon_terrain_normal says, for the triangle holding that point. */
static TALON_CALLABLE void talon_terrain_query(const talon_real probe[3], talon_real point[3],
                                               talon_real normal[3]) {
  talon_terrain_normal(probe, point, talon_terrain_nearest(probe, point), normal);
}

/* ---- The surface geoms stand on (codegen/solver/talon_newton.h, talon_terrain_choose) --
 * Seen from above the terrain is a height field: under a geom's centre lies one triangle (the
 * highest at or below it; else the lowest above). Its surface there is the triangle's C¹
 * patch (talon_terrain_patch.h), whose normal turns continuously as the centre crosses an
 * edge, so a wheel rolls over the facets without a jolt. The geom stands on the tangent plane
 * under its centre's foot (talon_terrain_plane), computed over the two triangles it needs
 * (talon_terrain_select). */

/* l = barycentric coordinates of p's (x, y) in the triangle data[0..8] seen from above. */
static TALON_CALLABLE void talon_terrain_barycentric(const talon_real* data, const talon_real p[3],
                                                     talon_real l[3]) {
  const talon_real* a = data;
  const talon_real bx = data[3] - a[0], by = data[4] - a[1], cx = data[6] - a[0],
                   cy = data[7] - a[1], px = p[0] - a[0], py = p[1] - a[1];
  const talon_real det = bx * cy - cx * by;
  const talon_real inverse = det > TALON_TINY ? 1 / det : 0;
  l[1] = (px * cy - cx * py) * inverse;
  l[2] = (bx * py - px * by) * inverse;
  l[0] = 1 - l[1] - l[2];
}

/* Triangle t's corners and vertex normals, as the step's data. */
static TALON_CALLABLE void talon_terrain_triangle_data(int t, talon_real* data) {
  int i;
  for (i = 0; i < 3; ++i) {
    const int v = talon_terrain_triangles[3 * t + i];
    talon_copy(data + 3 * i, talon_terrain_vertices + 3 * v, 3);
    talon_copy(data + 9 + 3 * i, talon_terrain_vertex_normals + 3 * v, 3);
  }
}

/* Whether triangle t (facing up) lies under or over p; its height there in *z. */
static TALON_CALLABLE int talon_terrain_covers(const talon_real p[3], int t, talon_real* z) {
  talon_real data[18], l[3];
  const talon_real inside = -64 * (talon_real)TALON_TERRAIN_NORMAL_TOLERANCE;
  if (!(talon_terrain_normals[3 * t + 2] > 0)) return 0;
  talon_terrain_triangle_data(t, data);
  talon_terrain_barycentric(data, p, l);
  if (!(l[0] >= inside && l[1] >= inside && l[2] >= inside)) return 0;
  *z = l[0] * data[2] + l[1] * data[5] + l[2] * data[8];
  return 1;
}

/* Is height z a better support for p than the best so far (the highest at or below p, else
 * the lowest above it; ties to the lower index, so the visiting order does not matter)? */
static TALON_CALLABLE int talon_terrain_better(const talon_real p[3], talon_real z, int t,
                                               int best, talon_real best_z) {
  const int below = z <= p[2], best_below = best_z <= p[2];
  if (best < 0) return 1;
  if (below != best_below) return below;
  if (z != best_z) return below ? z > best_z : z < best_z;
  return t < best;
}

/* The triangle under probe p; where no triangle lies under or over it (beyond the terrain's
 * edge), the triangle facing up nearest it. */
static TALON_CALLABLE int talon_terrain_under(const talon_real p[3]) {
  int stack[TALON_TERRAIN_STACK + 1];
  int top = 0, node = 0, best = -1, t;
  talon_real best_z = 0, z, point[3];
  for (;;) {
    const talon_real* box = talon_terrain_node_boxes + 6 * node;
    if (p[0] >= box[0] && p[0] <= box[3] && p[1] >= box[1] && p[1] <= box[4]) {
      const int first = talon_terrain_node_links[2 * node];
      const int count = talon_terrain_node_links[2 * node + 1];
      if (count == 0) { /* inner: this child now, its sibling later */
        stack[top++] = first + 1;
        node = first;
        continue;
      }
      for (t = first; t < first + count; ++t)
        if (talon_terrain_covers(p, t, &z) && talon_terrain_better(p, z, t, best, best_z)) {
          best = t;
          best_z = z;
        }
    }
    if (top == 0) break;
    node = stack[--top];
  }
  if (best >= 0) return best;
  best = talon_terrain_nearest(p, point);
  if (talon_terrain_normals[3 * best + 2] > 0) return best;
  /* beyond the terrain's edge beside a wall or an overhang: the nearest triangle that faces
   * up (the plane's barycentric coordinates need one; the frontend makes sure there is one).
   * A scan, on this rare path only. */
  {
    talon_real best_d2 = 0;
    best = -1;
    for (t = 0; t < TALON_TERRAIN_TRIANGLES; ++t)
      if (talon_terrain_normals[3 * t + 2] > 0) {
        const talon_real d2 = talon_terrain_triangle_closest(p, t, point);
        if (best < 0 || d2 < best_d2) {
          best = t;
          best_d2 = d2;
        }
      }
  }
  return best;
}

/* The surface over triangle `data` at x's (x, y): the point of its patch there
 * (talon_terrain_patch, talon_terrain_patch.h) and the patch's unit normal. The patch goes on
 * smoothly a little beyond the triangle's edges (the foot of a geom may lie over a
 * neighbour); farther out, beyond the terrain's edge, it is taken at the nearest point at
 * half a triangle out, so that the cubic is never evaluated far from its triangle. */
static TALON_CALLABLE void talon_terrain_on_triangle(const talon_real* data, const talon_real x[3],
                                                     talon_real point[3], talon_real normal[3]) {
  const talon_real outside = (talon_real)-0.5;
  talon_real l[3], sum = 0, slope[2], length;
  int i;
  talon_terrain_barycentric(data, x, l);
  for (i = 0; i < 3; ++i) {
    l[i] = TALON_FMAX(l[i], outside);
    sum += l[i];
  }
  for (i = 0; i < 3; ++i) l[i] /= sum;
  for (i = 0; i < 2; ++i) point[i] = l[0] * data[i] + l[1] * data[3 + i] + l[2] * data[6 + i];
  talon_terrain_patch(data, l, &point[2], slope);
  length = TALON_SQRT(1 + slope[0] * slope[0] + slope[1] * slope[1]);
  normal[0] = -slope[0] / length;
  normal[1] = -slope[1] / length;
  normal[2] = 1 / length;
}

/* The foot of c on the plane (point, normal): c − ((c − point)·normal) normal. */
static TALON_CALLABLE void talon_terrain_foot(const talon_real c[3], const talon_real point[3],
                                              const talon_real normal[3], talon_real foot[3]) {
  talon_real height = 0;
  int k;
  for (k = 0; k < 3; ++k) height += (c[k] - point[k]) * normal[k];
  for (k = 0; k < 3; ++k) foot[k] = c[k] - height * normal[k];
}

/* The plane a geom centred at c stands on, from its two triangles `data` (36 numbers: each
 * triangle's corners, then its vertex normals; talon_terrain_select): the surface under c on
 * the first, then the surface under the foot of c on that plane on the second. On a slope θ the point under c lies d·tan θ from
 * where a geom at distance d touches, and a plane tangent there misses the surface by about
 * d²θ²κ/2 on a curvature κ (1.2e-4 m for a 0.1 m ball 5 cm up a hollow of radius 0.5 m);
 * from the foot the miss shrinks by about d·κ. */
static TALON_CALLABLE void talon_terrain_plane(const talon_real* data, const talon_real c[3],
                                               talon_real point[3], talon_real normal[3]) {
  talon_real foot[3];
  talon_terrain_on_triangle(data, c, point, normal);
  talon_terrain_foot(c, point, normal, foot);
  talon_terrain_on_triangle(data + 18, foot, point, normal);
}

/* The two triangles talon_terrain_plane takes for a geom centred at c, into `data`: the one
 * under c and the one under the foot of c on the first's surface. */
static TALON_CALLABLE void talon_terrain_select(const talon_real c[3], talon_real* data) {
  talon_real point[3], normal[3], foot[3];
  talon_terrain_triangle_data(talon_terrain_under(c), data);
  talon_terrain_on_triangle(data, c, point, normal);
  talon_terrain_foot(c, point, normal, foot);
  talon_terrain_triangle_data(talon_terrain_under(foot), data + 18);
}
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
