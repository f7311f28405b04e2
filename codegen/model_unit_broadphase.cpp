// The broadphase of a model unit (docs/design.md, "Kernels per type", item 6): a contact pair
// whose bounding volumes cannot meet by the end of the step is not evaluated.
//
// Why it is exact: the rows of a pair whose geoms are apart at q⁺ have their root at λ = 0
// (the normal rows' Fischer–Burmeister function of a positive gap and no impulse is 0, to
// the ε²h²/(2g) of its smoothing, ~1e-22; a friction cone of radius μλ_n = 0 holds only
// λ_t = 0), and there the pair adds nothing to its bodies' momentum balance. Its rows do not
// see the bodies' velocities there either (∂φ/∂g = 1 − g/|g| = 0), so a Newton direction
// gives them Δλ = −λ = 0, and their impulses' columns, −Jᵀ Δλ, add nothing to the others'.
// The unit's solver therefore puts such a pair's rows as λ = 0 directly: residual λ,
// derivative 1 (a friction row's frozen form times 1 + s, as the preconditioner scales them,
// talon_krylov.h), no share of r_dyn, the separated friction weight, and the distance bound
// as the gap; the other rows' directions are those the evaluated pair would give.
//
// Which pairs: those of two geoms of finite extent or of a plane on the world and one (no
// terrain), by a lower bound on their distance at q⁺ = q⁻ ⊕ h u⁺ for the iterate's u⁺. Each
// finite geom is inside a sphere of radius r swept along a segment (ir/lower/pair_bounds.h),
// a plane bounds a half-space. A point p of a body (from its centre of mass) moves by at
// most h|v| + |p| min(2, h|ω|) over the step (a turn by h|ω| at most), so the geoms are at
// least the segments' distance at q⁻ (against a plane: the lower end's height above it),
// less each body's travel for its segment's farther end, less r_a + r_b apart; where that is
// within the margin below, the segments' distance at the iterate's q⁺ itself, less r_a + r_b.
// Each attempt at a step (talon_solve) starts with every pair undecided; every residual
// evaluation first moves the pairs not yet evaluated whose bound at that iterate has fallen
// below TALON_BROADPHASE_MARGIN times their radii into the evaluated set, where they stay for
// the attempt. A pair joins at λ = 0 and a positive distance, where its rows are already at
// their root: the residual does not jump. The backward step evaluates every pair
// (talon_adjoint.h). The Newton directions also leave out the evaluated pairs that are open
// at their iterate (talon_open_pairs, below).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "codegen/model_unit_parts.h"
#include "ir/lower/pair_bounds.h"

namespace talon::codegen::unit {
namespace {

bool skippable_kernel(const UnitKernel& k) {
  const std::string name = k.name;
  return name == "residual" || name == "linearize" || name == "jvp";
}

// Per template row: the template's friction weight index of a friction row, -1 for a normal row.
std::vector<int> friction_index_of_rows(const ir::ResidualProgram& p) {
  std::vector<int> out(p.nrows, -1);
  for (const ir::ContactSlot& slot : p.slots)
    if (slot.friction_row >= 0)
      out[slot.friction_row] = out[slot.friction_row + 1] = slot.friction_index;
  return out;
}

// A separated instance's share of the residual (see the top of this file): r_con and the
// merit λ, the separated friction weight, the bound as the gap; nothing on r_dyn.
std::vector<SkipTerm> residual_skip(const ir::ResidualProgram& p, ir::CPrecision precision) {
  const ir::Kernel& k = p.kernel("residual");
  const ir::Slice* lambda = k.input("lambda");
  const ir::Slice* r_con = k.output("r_con");
  const ir::Slice* merit = k.output("merit");
  const ir::Slice* weights = k.output("friction_w");
  const ir::Slice* gap = k.output("gap");
  std::vector<SkipTerm> out;
  for (int j = 0; j < p.nrows; ++j) {
    out.push_back({r_con->offset + j, lambda->offset + j, ""});
    out.push_back({merit->offset + j, lambda->offset + j, ""});
  }
  std::ostringstream weight;
  weight.precision(precision == ir::CPrecision::Float ? 9 : 17);
  weight << ir::kSeparatedFrictionWeight;
  for (int f = 0; weights && f < weights->size; ++f)
    out.push_back({weights->offset + f, -1, weight.str()});
  for (int g = 0; gap && g < gap->size; ++g) out.push_back({gap->offset + g, -1, "separation"});
  return out;
}

// Ĵ's entries 0; C and diag A 1 (a friction row: 1 + s, its frozen form's scale).
std::vector<SkipTerm> linearize_skip(const ir::ResidualProgram& p) {
  const ir::Kernel& jhat = p.kernel("jhat");
  const int nnz = static_cast<int>(jhat.function.outputs.size());
  const ir::Slice* weights = jhat.input("friction_w");
  const std::vector<int> friction = friction_index_of_rows(p);
  std::vector<SkipTerm> out;
  for (int j = 0; j < p.nrows; ++j)
    for (int output : {nnz + j, nnz + p.nrows + j})
      out.push_back(friction[j] < 0 ? SkipTerm{output, -1, "1"}
                                    : SkipTerm{output, weights->offset + friction[j], "1 + "});
  return out;
}

// The rows' derivative 1 with respect to their own λ, nothing else.
std::vector<SkipTerm> jvp_skip(const ir::ResidualProgram& p) {
  const ir::Kernel& jvp = p.kernel("jvp_exact");
  const ir::Slice* tangent = jvp.input("tangent_lambda");
  const int ndyn = static_cast<int>(jvp.function.outputs.size()) - p.nrows;
  std::vector<SkipTerm> out;
  for (int j = 0; j < p.nrows; ++j) out.push_back({ndyn + j, tangent->offset + j, ""});
  return out;
}

// Per row of talon_bounded_rows: its slot's place in the residual's gap output (normal rows;
// -1 for the others) and its friction weight (friction rows; -1 for the others), for
// talon_open_pairs; and the gap above which a pair counts as open, per unit of h.
void open_pair_tables(std::ostringstream& out, const ir::ResidualProgram& program,
                      const std::vector<int>& rows) {
  std::vector<int> gap_of_row(program.nrows, -1), weight_of_row(program.nrows, -1);
  for (std::size_t c = 0; c < program.slots.size(); ++c) {
    const ir::ContactSlot& slot = program.slots[c];
    gap_of_row[slot.normal_row] = static_cast<int>(c);
    if (slot.friction_row >= 0)
      weight_of_row[slot.friction_row] = weight_of_row[slot.friction_row + 1] = slot.friction_index;
  }
  std::vector<int> gap, weight;
  for (int row : rows) {
    gap.push_back(gap_of_row[row]);
    weight.push_back(weight_of_row[row]);
  }
  int_table(out, "talon_bounded_row_gap", gap);
  int_table(out, "talon_bounded_row_weight", weight);
  // ∂φ/∂g = 1 − g/√(g² + ε²h²) ≈ ε²h²/(2g²) of a normal row (ir/lower/context.cpp,
  // add_complementarity_row) is below 1e-12 where g > ε h / √(2e-12).
  std::ostringstream rate;
  rate.precision(17);
  rate << std::sqrt(program.fb_epsilon_sq / 2e-12);
  out << "#define TALON_OPEN_GAP_PER_H " << rate.str() << "\n";
}

}  // namespace

BoundedInstances bounded_instances(const ir::ResidualProgram& program, bool broadphase) {
  BoundedInstances out;
  if (!program.pairs) return out;
  const ir::PairTemplates& pairs = *program.pairs;
  std::vector<int> count(pairs.templates.size(), 0);
  for (const ir::PairInstance& instance : pairs.instances) ++count[instance.template_index];
  out.offset.assign(pairs.templates.size(), -1);
  for (std::size_t t = 0; t < pairs.templates.size(); ++t) {
    if (!broadphase || !ir::has_bounds(pairs.templates[t])) continue;
    out.offset[t] = out.count;
    out.count += count[t];
  }
  for (const ir::PairInstance& instance : pairs.instances)
    if (out.offset[instance.template_index] >= 0)
      out.rows += static_cast<int>(instance.rows.size());
  return out;
}

bool skips_instances(const BoundedInstances& bounded, int t, const UnitKernel& k) {
  return bounded.count > 0 && bounded.offset[t] >= 0 && skippable_kernel(k);
}

std::vector<SkipTerm> skip_terms(const ir::PairTemplate& t, const UnitKernel& k,
                                 ir::CPrecision precision) {
  const std::string kernel = k.name;
  if (kernel == "residual") return residual_skip(t.program, precision);
  if (kernel == "linearize") return linearize_skip(t.program);
  return jvp_skip(t.program);
}

std::string broadphase_text(const Model& model, const ir::ResidualProgram& program,
                            const BoundedInstances& bounded, ir::CPrecision precision) {
  std::ostringstream out;
  out << "/* ---- Broadphase: the contact pairs that cannot touch in the step "
         "(model_unit_broadphase.cpp) ---- */\n"
      << "#define TALON_NBOUNDED " << bounded.count << "\n";
  if (bounded.count == 0) {
    out << "#define TALON_SEPARATION(ws) ((const talon_real*)0)\n"
        << "#define talon_broadphase_reset(ws) ((void)(ws))\n"
        << "#define talon_broadphase_evaluate_all(ws) ((void)(ws))\n"
        << "#define talon_broadphase_update(ws) ((void)(ws))\n"
        << "#define talon_broadphase_clear_impulses(ws) ((void)(ws))\n"
        << "#define TALON_JVP_SEPARATION(ws) ((const talon_real*)0)\n"
        << "#define talon_open_pairs(ws) ((void)(ws))\n"
        << "#define talon_row_set_apart(ws, row) 0\n"
        << "#define talon_open_rows(ws, z, w) ((void)(ws), (void)(z), (void)(w))\n";
    return out.str();
  }
  std::vector<int> body, plane, rows_begin{0}, rows;
  std::vector<double> ends, extent, radius;
  const ir::PairTemplates& pairs = *program.pairs;
  // Bounded index = template offset + the instance's index among its template's.
  std::vector<std::vector<const ir::PairInstance*>> by_template(pairs.templates.size());
  for (const ir::PairInstance& instance : pairs.instances)
    by_template[instance.template_index].push_back(&instance);
  for (std::size_t t = 0; t < pairs.templates.size(); ++t) {
    if (bounded.offset[t] < 0) continue;
    for (const ir::PairInstance* instance : by_template[t]) {
      const ir::PairBounds b = ir::pair_bounds(model, *instance);
      for (int side = 0; side < 2; ++side) {
        body.push_back(b.body[side]);
        for (const Vec3& end : b.ends[side])
          for (int i = 0; i < 3; ++i) ends.push_back(end[i]);
        extent.push_back(std::max(b.ends[side][0].norm(), b.ends[side][1].norm()));
      }
      radius.push_back(b.radius[0] + b.radius[1]);
      plane.push_back(b.plane);
      rows.insert(rows.end(), instance->rows.begin(), instance->rows.end());
      rows_begin.push_back(static_cast<int>(rows.size()));
    }
  }
  int_table(out, "talon_bounded_body", body);
  int_table(out, "talon_bounded_plane", plane);
  real_table(out, "talon_bounded_ends", ends, precision);
  real_table(out, "talon_bounded_extent", extent, precision);
  real_table(out, "talon_bounded_radius", radius, precision);
  int_table(out, "talon_bounded_rows_begin", rows_begin);
  int_table(out, "talon_bounded_rows", rows);
  std::vector<int> row_pair(program.nrows, -1);  // the bounded pair of each row, or -1
  for (std::size_t k = 0; k + 1 < rows_begin.size(); ++k)
    for (int r = rows_begin[k]; r < rows_begin[k + 1]; ++r) row_pair[rows[r]] = static_cast<int>(k);
  int_table(out, "talon_row_bounded_pair", row_pair);
  open_pair_tables(out, program, rows);
  out << R"(#define TALON_SEPARATION(ws) ((const talon_real*)(ws)->pair_separation)
/* A pair joins the evaluated ones once its bound falls below this times its radii. */
#define TALON_BROADPHASE_MARGIN 1e-3

/* The world position at q⁻ of the point `local` of sim body `body` (from its centre of mass,
 * in its sim frame; -1: `local` is in the world). */
static TALON_CALLABLE void talon_bounded_point(const talon_real* in, int body,
                                               const talon_real* local, talon_real* p) {
  if (body < 0)
    talon_copy(p, local, 3);
  else
    talon_frame_point(in + TALON_IN_Q_MINUS + 7 * body, in + TALON_IN_Q_MINUS + 7 * body + 3,
                      local, p);
}

/* Per sim body, for the iterate's u⁺: h|v| and min(2, h|ω|). A point of the body at most r
 * from its centre of mass moves by at most h|v| + r min(2, h|ω|) from q⁻ to
 * q⁺ = q⁻ ⊕ h u⁺ (a turn by h|ω| at most). */
static TALON_CALLABLE void talon_body_travel(talon_workspace* ws) {
  const talon_real h = ws->in[TALON_IN_H];
  int b;
  for (b = 0; b < TALON_NSIM; ++b) {
    const talon_real* u = ws->in + TALON_IN_U_PLUS + 6 * b;
    const talon_real turn = h * TALON_SQRT(talon_dot(u + 3, u + 3, 3));
    ws->body_travel[2 * b] = h * TALON_SQRT(talon_dot(u, u, 3));
    ws->body_travel[2 * b + 1] = turn < 2 ? turn : 2;
  }
}

static TALON_CALLABLE talon_real talon_clamp01(talon_real x) {
  return x < 0 ? 0 : (x > 1 ? 1 : x);
}

/* The distance between the segments p1 q1 and p2 q2 (either may be a point): Ericson,
 * Real-Time Collision Detection (2005), 5.1.9. */
static TALON_CALLABLE talon_real talon_segment_distance(const talon_real* p1, const talon_real* q1,
                                                        const talon_real* p2,
                                                        const talon_real* q2) {
  talon_real d1[3], d2[3], r[3], c[3], a, e, f, s = 0, t = 0;
  int i;
  for (i = 0; i < 3; ++i) {
    d1[i] = q1[i] - p1[i];
    d2[i] = q2[i] - p2[i];
    r[i] = p1[i] - p2[i];
  }
  a = talon_dot(d1, d1, 3);
  e = talon_dot(d2, d2, 3);
  f = talon_dot(d2, r, 3);
  if (a > 0 && e > 0) {
    const talon_real b = talon_dot(d1, d2, 3), cr = talon_dot(d1, r, 3);
    const talon_real denominator = a * e - b * b;
    s = denominator > 0 ? talon_clamp01((b * f - cr * e) / denominator) : 0;
    t = (b * s + f) / e;
    if (t < 0) {
      t = 0;
      s = talon_clamp01(-cr / a);
    } else if (t > 1) {
      t = 1;
      s = talon_clamp01((b - cr) / a);
    }
  } else if (a > 0) {
    s = talon_clamp01(-talon_dot(d1, r, 3) / a);
  } else if (e > 0) {
    t = talon_clamp01(f / e);
  }
  for (i = 0; i < 3; ++i) c[i] = r[i] + s * d1[i] - t * d2[i];
  return TALON_SQRT(talon_dot(c, c, 3));
}

/* How far geom b's axis (its ends e, f) lies above the plane through p with unit normal n. */
static TALON_CALLABLE talon_real talon_height_above(const talon_real* p, const talon_real* n,
                                                    const talon_real* e, const talon_real* f) {
  const talon_real d[3] = {e[0] - p[0], e[1] - p[1], e[2] - p[2]};
  const talon_real g[3] = {f[0] - p[0], f[1] - p[1], f[2] - p[2]};
  return TALON_FMIN(talon_dot(n, d, 3), talon_dot(n, g, 3));
}

/* The distance between bounded pair k's swept spheres' axes (ends in `axes`, 12 values), or
 * geom b's axis above a's plane. */
static TALON_CALLABLE talon_real talon_axes_distance(const talon_real* axes, int k) {
  return talon_bounded_plane[k] ? talon_height_above(axes, axes + 3, axes + 6, axes + 9)
                                : talon_segment_distance(axes, axes + 3, axes + 6, axes + 9);
}

/* Every sim body's pose at the step's end for the iterate's u⁺ into ws->body_plus (centre of
 * mass, unit quaternion): x⁺ = x⁻ + h v⁺, quat⁺ = exp(h ω⁺ / 2) ⊗ quat⁻, normalised - the
 * residual's map (ir/lower/state.cpp) to round-off. */
static TALON_CALLABLE void talon_body_poses_plus(talon_workspace* ws) {
  const talon_real h = ws->in[TALON_IN_H];
  int b, i;
  for (b = 0; b < TALON_NSIM; ++b) {
    const talon_real* q = ws->in + TALON_IN_Q_MINUS + 7 * b;
    const talon_real* u = ws->in + TALON_IN_U_PLUS + 6 * b;
    talon_real* p = ws->body_plus + 7 * b;
    const talon_real phi[3] = {(talon_real)0.5 * h * u[3], (talon_real)0.5 * h * u[4],
                               (talon_real)0.5 * h * u[5]};
    const talon_real theta = TALON_SQRT(talon_dot(phi, phi, 3));
    const talon_real c = TALON_COS(theta), s = theta > 0 ? TALON_SIN(theta) / theta : 1;
    const talon_real e[4] = {c, s * phi[0], s * phi[1], s * phi[2]};
    talon_real norm;
    for (i = 0; i < 3; ++i) p[i] = q[i] + h * u[i];
    p[3] = e[0] * q[3] - e[1] * q[4] - e[2] * q[5] - e[3] * q[6];
    p[4] = e[0] * q[4] + e[1] * q[3] + e[2] * q[6] - e[3] * q[5];
    p[5] = e[0] * q[5] - e[1] * q[6] + e[2] * q[3] + e[3] * q[4];
    p[6] = e[0] * q[6] + e[1] * q[5] - e[2] * q[4] + e[3] * q[3];
    norm = TALON_SQRT(talon_dot(p + 3, p + 3, 4));
    for (i = 3; i < 7; ++i) p[i] /= norm;
  }
}

/* The distance between bounded pair k's geoms at the end pose of the iterate's u⁺
 * (ws->body_plus) is at least their swept spheres' axes' distance there less their radii. */
static TALON_CALLABLE talon_real talon_bounded_distance_plus(const talon_workspace* ws, int k) {
  talon_real axes[12];
  int end;
  for (end = 0; end < 4; ++end) {
    const int body = talon_bounded_body[2 * k + end / 2];
    const talon_real* local = talon_bounded_ends + 12 * k + 3 * end;
    if (body < 0)
      talon_copy(axes + 3 * end, local, 3);
    else
      talon_frame_point(ws->body_plus + 7 * body, ws->body_plus + 7 * body + 3, local,
                        axes + 3 * end);
  }
  return talon_axes_distance(axes, k) - talon_bounded_radius[k];
}

/* A lower bound on the distance between bounded pair k's geoms at the step's end, for the
 * iterate's u⁺ (talon_body_travel): their swept spheres' axes apart at q⁻ (pair_apart; geom b's
 * axis above a's plane), less how far each can move. */
static TALON_CALLABLE talon_real talon_bounded_distance(const talon_workspace* ws, int k) {
  const talon_real apart = ws->pair_apart[k];
  talon_real travel = 0;
  int side;
  for (side = 0; side < 2; ++side) {
    const int body = talon_bounded_body[2 * k + side];
    if (body >= 0)
      travel += ws->body_travel[2 * body] +
                talon_bounded_extent[2 * k + side] * ws->body_travel[2 * body + 1];
  }
  return apart - travel - talon_bounded_radius[k];
}

)";
  out << R"(/* pair_separation[k]: −1 where pair k is evaluated, else a lower bound on its distance. */
static TALON_CALLABLE void talon_broadphase_reset(talon_workspace* ws) {
  int k, end;
  talon_fill(ws->pair_separation, 0, TALON_NBOUNDED);
  for (k = 0; k < TALON_NBOUNDED; ++k) { /* the axes at q⁻, which the attempt does not move */
    talon_real axes[12];
    for (end = 0; end < 4; ++end)
      talon_bounded_point(ws->in, talon_bounded_body[2 * k + end / 2],
                          talon_bounded_ends + 12 * k + 3 * end, axes + 3 * end);
    ws->pair_apart[k] = talon_axes_distance(axes, k);
  }
}

/* (a macro: only the backward step uses it) */
#define talon_broadphase_evaluate_all(ws) talon_fill((ws)->pair_separation, -1, TALON_NBOUNDED)

/* Whether `row` is of a pair the broadphase set apart (its rows at their root). */
static TALON_CALLABLE int talon_row_set_apart(const talon_workspace* ws, int row) {
  const int k = talon_row_bounded_pair[row];
  return k >= 0 && ws->pair_separation[k] >= 0;
}

/* Whether a row of bounded pair k holds an impulse in the iterate in ws->in. */
static TALON_CALLABLE int talon_pair_holds_impulse(const talon_workspace* ws, int k) {
  int r;
  for (r = talon_bounded_rows_begin[k]; r < talon_bounded_rows_begin[k + 1]; ++r)
    if (ws->in[TALON_IN_LAMBDA + talon_bounded_rows[r]] != 0) return 1;
  return 0;
}

/* Moves the pairs not evaluated whose bound at the iterate in ws->in is within the margin to
 * the evaluated ones, and updates the others' bounds: first by each body's travel from q⁻
 * (talon_bounded_distance), and where that is within the margin by the axes at the iterate's
 * end pose itself (talon_bounded_distance_plus), which the travel overestimates by up to
 * h|v| + |r| h|ω| a body: on MuJoCo's humanoid dropped at h = 0.05, 14 of the ~20 pairs that
 * the travel let in were apart at q⁺ by more than the margin (bench/RESULTS.md,
 * thirty-third session). Not for a pair that holds an impulse (a step's iterate 0, from the
 * last step's impulses): the travel lets in every pair that touched at q⁻, so with the
 * travel alone such a pair keeps its impulse, as it does without a broadphase, and the
 * iterate 0 is the same with the broadphase as without. Set apart at q⁺ its impulse would be
 * cleared, another iterate 0: a falling ball and stick of tests/physics/test_broadphase.cpp
 * then found another root of a step that has two. */
static TALON_CALLABLE void talon_broadphase_update(talon_workspace* ws) {
  int k, posed = 0;
  talon_body_travel(ws);
  for (k = 0; k < TALON_NBOUNDED; ++k)
    if (ws->pair_separation[k] >= 0) {
      const talon_real margin = (talon_real)TALON_BROADPHASE_MARGIN * talon_bounded_radius[k];
      talon_real d = talon_bounded_distance(ws, k);
      if (!(d > margin) && !talon_pair_holds_impulse(ws, k)) {
        if (!posed) talon_body_poses_plus(ws);
        posed = 1;
        d = talon_bounded_distance_plus(ws, k);
      }
      ws->pair_separation[k] = d > margin ? d : -1;
    }
}

/* The root of a pair not evaluated has no impulse: its rows' λ = 0 in the iterate. */
static TALON_CALLABLE void talon_broadphase_clear_impulses(talon_workspace* ws) {
  int k, r;
  for (k = 0; k < TALON_NBOUNDED; ++k)
    if (ws->pair_separation[k] >= 0)
      for (r = talon_bounded_rows_begin[k]; r < talon_bounded_rows_begin[k + 1]; ++r)
        ws->in[TALON_IN_LAMBDA + talon_bounded_rows[r]] = 0;
}

#if TALON_KRYLOV_ITERATIONS > 0
/* The exact Jacobian-vector product of a Newton direction (talon_krylov_apply) with the pairs
 * open at its iterate left out as well: jvp_separation is pair_separation with those pairs
 * set apart (0). */
#define TALON_JVP_SEPARATION(ws) ((const talon_real*)(ws)->jvp_separation)

/* Whether evaluated pair k is open at the iterate in ws->in (residual in ws->res, frozen
 * linearisation in ws->lin, before the proximal term): every normal slot's gap above
 * TALON_OPEN_GAP_PER_H · h, and no row's impulse moving its contact by more than 1e-12 of
 * that gap (|d λ| h, d the row's derivative). Stores each row's d in ws->open_derivative: C
 * of its frozen row, divided by 1 + s on a friction row (s its frozen weight), which is the
 * exact row's derivative there (talon_krylov.h, talon_scale_friction_rows).
 *
 * Why it may be left out: at such a pair the exact Jacobian is, to 1e-12 relative, its rows'
 * own d dλ - the normal rows' ∂φ/∂g ≈ ε²h²/(2g²) (ir/lower/context.cpp), the projection's
 * slope μλ_n/|y| and the impulses' share of the momentum balance are all that small - except
 * a sliding friction row's μ ŷ dλ_n, which only matters where dλ_n does not vanish, and the
 * direction's dλ_n there is that tiny too (its row's right-hand side is the ε of the
 * smoothing). Evaluating the pair's template adds nothing but cost: on MuJoCo's humanoid
 * dropped at h = 0.05, 14 of the ~20 pairs the broadphase keeps are open at a typical
 * iterate (bench/RESULTS.md, thirty-second session). */
static TALON_CALLABLE int talon_pair_open(talon_workspace* ws, int k) {
  const talon_real h = ws->in[TALON_IN_H];
  talon_real gap = TALON_HUGE, moved = 0;
  int r;
  for (r = talon_bounded_rows_begin[k]; r < talon_bounded_rows_begin[k + 1]; ++r) {
    const int row = talon_bounded_rows[r], f = talon_bounded_row_weight[r];
    const talon_real d = ws->lin[TALON_LIN_C + row] / (f >= 0 ? 1 + ws->in[TALON_IN_W + f] : 1);
    ws->open_derivative[r] = d;
    if (talon_bounded_row_gap[r] >= 0)
      gap = TALON_FMIN(gap, ws->res[TALON_RES_GAP + talon_bounded_row_gap[r]]);
    moved = TALON_FMAX(moved, TALON_FABS(d * ws->in[TALON_IN_LAMBDA + row]) * h);
  }
  return gap > (talon_real)TALON_OPEN_GAP_PER_H * h && moved <= (talon_real)1e-12 * gap;
}

/* jvp_separation for the Newton direction from the iterate in ws->in (see talon_pair_open). */
static TALON_CALLABLE void talon_open_pairs(talon_workspace* ws) {
  int k;
  for (k = 0; k < TALON_NBOUNDED; ++k)
    ws->jvp_separation[k] = ws->pair_separation[k] >= 0 ? ws->pair_separation[k]
                            : talon_pair_open(ws, k)    ? 0
                                                        : -1;
}

/* The open pairs' rows of w = L J z: d dλ (the JVP's skip gave them dλ). */
static TALON_CALLABLE void talon_open_rows(const talon_workspace* ws, const talon_real* z,
                                           talon_real* w) {
  int k, r;
  for (k = 0; k < TALON_NBOUNDED; ++k)
    if (ws->pair_separation[k] < 0 && ws->jvp_separation[k] >= 0)
      for (r = talon_bounded_rows_begin[k]; r < talon_bounded_rows_begin[k + 1]; ++r) {
        const int row = talon_bounded_rows[r];
        w[TALON_NV + row] = ws->open_derivative[r] * z[TALON_NV + row];
      }
}
#endif
)";
  return out.str();
}

}  // namespace talon::codegen::unit
