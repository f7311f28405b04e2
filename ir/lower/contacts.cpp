// Hard contact rows, impulse form (docs/design.md, "The step equations").
//
// Normal, per slot: a Fischer–Burmeister row on the gap c(q⁺) (add_complementarity_row)
// with r = h·w_nn, w_nn = [J_n M̃⁻¹ J_nᵀ] at q⁻ (a per-step constant), and the compliance
// E_n = κ_n h² w_nn inside it (parameter `contact_compliance`, κ_n).
// Friction, per slot of a pair with condim ≥ 3 (condim 1 is frictionless; torsional and
// rolling friction are not modelled): with the tangent basis (t₁, t₂) ⟂ n, the slip
// v_t = J_t u⁺, k_t = [J_t M̃⁻¹ J_tᵀ]_ii (mean of the two directions, at q⁻), λ_n the normal
// impulse of the *current* iterate and the regularisation R_t = κ_t k_t (parameter
// `friction_compliance`), the two rows are the natural map of the Coulomb cone
//   r_t = k_t (λ_t − Π_{‖·‖ ≤ μλ_n⁺}(λ_t − (v_t + R_t λ_t)/k_t)):
// zero exactly when λ_t is inside the cone with v_t = −R_t λ_t (sticking, creeping at R_t λ_t)
// or on it opposing the slip (sliding). R_t makes the tangential impulses unique where
// sticking contacts constrain the same motion twice (two corners of a box, a pusher and the
// floor); the Newton iteration differentiates r_t exactly (jvp_exact), so the step converges
// to this root. The Newton preconditioner (the frozen-W Schur step, codegen/solver/) uses the
// frozen rows v_t + (s k_t + R_t) λ_t with the weight s from the projection's slope
// (friction_terms): 0 sticking, ∞ separated.
// μ is the larger friction of the two geoms (MuJoCo's rule), or the higher-priority geom's.
// The friction impulses act through J_t at q⁺: force t₁λ₁ + t₂λ₂ at the contact point.
#include <algorithm>
#include <array>
#include <cmath>

#include "ir/lower/contact_geometry.h"
#include "ir/lower/contact_pairs.h"
#include "ir/lower/pair_bounds.h"

namespace talon::ir::lower {
namespace {

struct SlotGeometry {
  GeomPair pair;
  int body_a = -1, body_b = -1;
  ContactPoint minus, plus;  // unset where the pair's rows come from a template
  int slot = -1;             // index into ctx.slots
  // The pair's rows come from its per-type template (LowerOptions::pair_templates): here
  // they are placeholders, zero in every kernel, with their impulses and friction weights.
  bool templated = false;
};

GeomPose geom_pose(const Context& ctx, int geom, Time t) {
  const Model& m = ctx.model;
  const Frame& frame = ctx.frame(m.geom_sim[geom], t);
  const GeomInputs& local = ctx.geoms[geom];
  return {m.geom_type[geom], frame.com + frame.rot * local.offset, frame.rot * local.rot,
          local.size, &m.geom_hull_vertices[geom]};
}

// An orthonormal tangent basis of a unit normal, branch-free (Duff et al., "Building an
// Orthonormal Basis, Revisited", JCGT 2017).
std::pair<V3, V3> tangent_basis(const V3& n) {
  const Expr sign = sign_nonnegative(n.z);
  const Expr a = -1.0 / (sign + n.z);
  const Expr b = n.x * n.y * a;
  return {{1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x}, {b, sign + n.y * n.y * a, -n.y}};
}

// Velocity of the world point p fixed to `body` at the end of the step.
V3 point_velocity(const Context& ctx, int body, const V3& p) {
  if (body < 0) return zero_vector(ctx.g);
  const BodyState& s = ctx.bodies[body];
  return s.v_plus + cross(s.w_plus, p - s.plus.com);
}

// The terrain under a geom, as the generated query leaves it (program.h, TerrainProbe): the
// tangent plane under the geom's centre where it was queried, c_q, and the normal's rate of
// turn with the centre there, 18 inputs.
struct TerrainInputs {
  V3 query, point, normal;
  std::array<V3, 3> normal_rate;  // rows of ∂normal/∂c (symmetric)
};

TerrainInputs terrain_inputs(Context& ctx, const GeomPair& pair) {
  const Model& m = ctx.model;
  TerrainProbe probe;
  probe.geom = pair.b;
  probe.terrain_geom = pair.a;
  probe.sim_body = m.geom_sim[pair.b];
  probe.offset = m.geom_pose[pair.b].pos;
  if (probe.sim_body >= 0) probe.offset -= ctx.bodies[probe.sim_body].minus.com_local;
  probe.reach = geom_reach(m, pair.b);
  probe.input = static_cast<int>(ctx.terrain.size());
  const std::string prefix = "terrain" + std::to_string(ctx.terrain_probes.size()) + "_";
  ctx.terrain_probes.push_back(probe);
  TerrainInputs in;
  int index = 0;
  for (V3* v : {&in.query, &in.point, &in.normal, &in.normal_rate[0], &in.normal_rate[1],
                &in.normal_rate[2]})
    for (int i = 0; i < 3; ++i) {
      (*v)[i] = ctx.g.variable(prefix + std::to_string(index++));
      ctx.terrain.push_back((*v)[i]);
    }
  return in;
}

// The rows of `rate` times d.
V3 rate_times(const std::array<V3, 3>& rate, const V3& d) {
  return {dot(rate[0], d), dot(rate[1], d), dot(rate[2], d)};
}

// The plane geom `geom` stands on at the step's end, a function of its centre c: the terrain's
// distance below c and its normal to second order about c_q (codegen/solver/talon_newton.h,
// talon_terrain_model, is its twin). With δ = c − c_q and N = ∂n/∂c (the Hessian of the
// distance d to the surface, so symmetric),
//   n(c) = (n + N δ)/|…|,   d(c) = n·(c_q − p) + n·δ + ½ δ·N δ,   the plane through c − d n(c).
// Where the query was made it is the terrain's tangent plane (talon_terrain.h,
// talon_terrain_plane). The gap of a geom centred at c then moves with c as the distance does
// (∇d = n(c) to first order), so the contact's impulse turns with the surface under a geom
// that moves, and the step's Jacobian and the adjoint see that turn. A plane point carried
// along the surface to first order instead (p + ∂p/∂c δ) cancels it: the gap's gradient stays
// n at every c, since the point's rate is tangent to the queried plane, not to the turned one
// (the rolling ball of bench/RESULTS.md, 2026-12-04, ninth session: ∂v/∂x₀ off by 75 %).
//
// At the step's start (Time::Minus: the friction directions, the contact's inverse mass) the
// queried plane as it is: carried back to q⁻ it would turn those with the rates, which jump
// where the triangles under the geom change (a ball rolling along an edge of the mesh would
// switch between its two sides' rates from one settling round to the next).
GeomPose terrain_plane(const TerrainInputs& in, const Context& ctx, int geom, Time t) {
  V3 normal = in.normal, center = in.point;
  if (t == Time::Plus) {
    const V3 centre = geom_pose(ctx, geom, t).center;
    const V3 moved = centre - in.query;
    const V3 turn = rate_times(in.normal_rate, moved);  // N δ
    const V3 raw_normal = in.normal + turn;
    normal = (1.0 / sqrt(squared_norm(raw_normal))) * raw_normal;
    const Expr distance =
        dot(in.normal, in.query - in.point) + dot(in.normal, moved) + 0.5 * dot(moved, turn);
    center = centre - distance * normal;
  }
  const auto [t1, t2] = tangent_basis(normal);
  GeomPose plane;
  plane.type = GeomType::Plane;
  plane.center = center;
  for (int r = 0; r < 3; ++r) plane.rot.m[r] = {t1[r], t2[r], normal[r]};
  plane.size = constant(ctx.g, Vec3(0, 0, 1));
  return plane;
}

// Slot k of a pair, appended to ctx.slots.
SlotGeometry add_slot(Context& ctx, const GeomPair& pair, int k) {
  const Model& m = ctx.model;
  SlotGeometry s;
  s.pair = pair;
  s.body_a = m.geom_sim[pair.a];
  s.body_b = m.geom_sim[pair.b];
  ContactSlot slot;
  slot.geom_a = pair.a;
  slot.geom_b = pair.b;
  slot.kind = contact_slot_kind(m.geom_type[pair.a], m.geom_type[pair.b], k);
  slot.chooses = choosing_pair(m.geom_type[pair.a], m.geom_type[pair.b]);
  s.slot = static_cast<int>(ctx.slots.size());
  ctx.slots.push_back(slot);
  return s;
}

// The pair's slots with a's pose given per time (`pose_a`), appended to `out`.
template <class PoseA>
void add_pair_slots(Context& ctx, const GeomPair& pair, PoseA pose_a,
                    std::vector<SlotGeometry>& out) {
  const auto [minus, plus] =
      contact_points_of_step(pose_a(Time::Minus), geom_pose(ctx, pair.b, Time::Minus),
                             pose_a(Time::Plus), geom_pose(ctx, pair.b, Time::Plus),
                             pose_a(Time::Choose), geom_pose(ctx, pair.b, Time::Choose));
  for (std::size_t k = 0; k < plus.size(); ++k) {
    SlotGeometry s = add_slot(ctx, pair, static_cast<int>(k));
    s.minus = minus[k];
    s.plus = plus[k];
    out.push_back(s);
  }
}

std::vector<SlotGeometry> slot_geometry(Context& ctx, const std::vector<GeomPair>& pairs) {
  const Model& m = ctx.model;
  std::vector<SlotGeometry> out;
  for (const GeomPair& pair : pairs) {
    // A terrain pair's probe, the inputs the generated query fills, whether the pair's rows
    // are its template's or its own.
    const bool on_terrain = m.geom_type[pair.a] == GeomType::Terrain;
    const TerrainInputs terrain = on_terrain ? terrain_inputs(ctx, pair) : TerrainInputs{};
    if (ctx.options.uses_pair_templates()) {
      for (int k = 0; k < contact_slot_count(m.geom_type[pair.a], m.geom_type[pair.b]); ++k) {
        out.push_back(add_slot(ctx, pair, k));
        out.back().templated = true;
      }
    } else if (!on_terrain) {
      add_pair_slots(
          ctx, pair, [&](Time t) { return geom_pose(ctx, pair.a, t); }, out);
    } else {
      add_pair_slots(
          ctx, pair, [&](Time t) { return terrain_plane(terrain, ctx, pair.b, t); }, out);
    }
    ++ctx.contact_pairs;
  }
  return out;
}

std::string slot_label(const Context& ctx, const SlotGeometry& s) {
  return "contact " + ctx.geom_label(s.pair.a) + "-" + ctx.geom_label(s.pair.b) + " " +
         ctx.slots[s.slot].kind;
}

Row& add_normal_row_equations(Context& ctx, const SlotGeometry& s, Expr compliance) {
  if (s.templated) return ctx.add_placeholder_row(RowKind::ContactNormal, slot_label(ctx, s));
  const Expr inverse_mass =
      ctx.point_inverse_mass(s.body_a, s.body_b, s.minus.point, s.minus.normal);
  return ctx.add_complementarity_row(RowKind::ContactNormal, slot_label(ctx, s), s.plus.gap,
                                     ctx.h * inverse_mass, compliance);
}

void add_normal_row(Context& ctx, const SlotGeometry& s, Expr compliance) {
  Row& row = add_normal_row_equations(ctx, s, compliance);
  row.info.body = s.body_b;
  row.info.other = s.body_a;
  row.info.slot = s.slot;
  ctx.slots[s.slot].normal_row = static_cast<int>(ctx.rows.size()) - 1;
}

struct FrictionTerms {
  Expr slack;        // the preconditioner's weight s = 1/d − 1 (see below)
  Expr residual[2];  // natural-map residual per direction
};

// The natural-map residual from slip v_t, impulses λ_t, the normal impulse λ_n, μ, k_t and the
// regularisation R_t, and the preconditioner's weight.
//
// The residual's Jacobian, with d = min(1, μλ_n⁺/‖y‖) the slope of the projection across y
// (y = λ_t − (v_t + R_t λ_t)/k_t; 1 sticking, 0 separated, between when sliding), is
//   dr ≈ d J_t du + (k_t (1 − d) + d R_t) dλ_t
// (exact when sticking or separated; sliding, the radial slope 0 and the ∂λ_n term are left
// out). Divided by d this is the frozen row J_t du + (s k_t + R_t) dλ_t with s = 1/d − 1, the
// form the Schur/PCR step solves (codegen/solver/talon_pcr.h); the solver multiplies those rows'
// right-hand sides by 1 + s (talon_scale_friction_rows), so the preconditioner is the exact
// Jacobian in those limits and a separated contact's rows stay k_t dλ_t = rhs.
FrictionTerms friction_terms(const Context& ctx, const Expr vt[2], const Expr lt[2], Expr ln,
                             Expr mu, Expr k, Expr regularization) {
  const double eps = ctx.options.friction_epsilon;
  FrictionTerms out;
  // Natural map: k (λ_t − Π(λ_t − (v_t + R λ_t)/k)), Π the projection on the disc of radius
  // μλ_n⁺.
  const Expr radius = max(mu * ln, ctx.g.constant(0.0));
  Expr y[2];
  for (int i = 0; i < 2; ++i) y[i] = lt[i] - (vt[i] + regularization * lt[i]) / k;
  const Expr y_norm = sqrt(y[0] * y[0] + y[1] * y[1] + eps * eps);
  const Expr slope = min(ctx.g.constant(1.0), radius / y_norm);
  for (int i = 0; i < 2; ++i) out.residual[i] = k * (lt[i] - slope * y[i]);
  out.slack = 1.0 / max(slope, ctx.g.constant(kMinProjectionSlope)) - 1.0;
  return out;
}

// The natural-map rows `first`, `first` + 1 of slot s and their impulses on the bodies.
void add_friction_equations(Context& ctx, const SlotGeometry& s, Expr mu, Expr relative_compliance,
                            int first, Expr w_input) {
  const auto [t1_minus, t2_minus] = tangent_basis(s.minus.normal);
  const V3& n = s.plus.normal;
  const V3 t1_raw = t1_minus - dot(t1_minus, n) * n;
  const V3 t1 = (1.0 / smooth_norm(t1_raw, 1e-12)) * t1_raw;
  const V3 tangents[2] = {t1, cross(n, t1)};
  const V3 v_rel =
      point_velocity(ctx, s.body_b, s.plus.point) - point_velocity(ctx, s.body_a, s.plus.point);
  const Expr k = 0.5 * (ctx.point_inverse_mass(s.body_a, s.body_b, s.minus.point, t1_minus) +
                        ctx.point_inverse_mass(s.body_a, s.body_b, s.minus.point, t2_minus));
  const Expr vt[2] = {dot(tangents[0], v_rel), dot(tangents[1], v_rel)};
  const Expr lt[2] = {ctx.rows[first].lambda, ctx.rows[first + 1].lambda};
  const Expr ln = ctx.rows[ctx.slots[s.slot].normal_row].lambda;
  const Expr regularization = relative_compliance * k;
  const FrictionTerms terms = friction_terms(ctx, vt, lt, ln, mu, k, regularization);
  ctx.friction_w_exact.push_back(terms.slack);
  for (int i = 0; i < 2; ++i) {
    Row& row = ctx.rows[first + i];
    row.residual = terms.residual[i];
    row.residual_frozen = vt[i] + (w_input * k + regularization) * lt[i];
    row.merit = row.residual;
    row.friction_scale = k;
  }
  const V3 force = lt[0] * tangents[0] + lt[1] * tangents[1];
  for (const auto& [body, sign] : {std::pair{s.body_b, 1.0}, std::pair{s.body_a, -1.0}}) {
    if (body < 0) continue;
    const V3 arm = s.plus.point - ctx.bodies[body].plus.com;
    ctx.explicit_impulses.push_back({body, sign * force, sign * cross(arm, force)});
  }
}

void add_friction_rows(Context& ctx, const SlotGeometry& s, Expr mu, Expr relative_compliance) {
  const int first = static_cast<int>(ctx.rows.size());
  const std::string label = slot_label(ctx, s);
  for (const char* suffix : {" friction 1", " friction 2"}) {
    Row& row = s.templated ? ctx.add_placeholder_row(RowKind::Friction, label + suffix)
                           : ctx.add_row(RowKind::Friction, label + suffix);
    row.info.body = s.body_b;
    row.info.other = s.body_a;
    row.info.slot = s.slot;
  }
  const Expr w_input = ctx.g.variable("friction_w" + std::to_string(ctx.friction_w.size()));
  ctx.slots[s.slot].friction_row = first;
  ctx.slots[s.slot].friction_index = static_cast<int>(ctx.friction_w.size());
  ctx.friction_w.push_back(w_input);
  if (s.templated)
    ctx.friction_w_exact.push_back(ctx.g.constant(0.0));
  else
    add_friction_equations(ctx, s, mu, relative_compliance, first, w_input);
}

}  // namespace

void build_contact_rows(Context& ctx) {
  build_pair_rows(ctx, contact_pairs(ctx));
}

void build_pair_rows(Context& ctx, const std::vector<GeomPair>& pairs) {
  const Model& m = ctx.model;
  const std::vector<SlotGeometry> slots = slot_geometry(ctx, pairs);
  int first = static_cast<int>(ctx.rows.size());
  Expr compliance;
  if (!slots.empty()) compliance = ctx.param("contact_compliance", ctx.options.contact_compliance);
  for (const SlotGeometry& s : slots) add_normal_row(ctx, s, compliance);
  ctx.close_block("contact_normal", first);

  first = static_cast<int>(ctx.rows.size());
  Expr friction_compliance;
  std::vector<Expr> friction_param(m.ngeom);
  auto friction = [&](int geom) {
    if (!friction_param[geom])
      friction_param[geom] =
          ctx.param("friction:" + ctx.param_suffix_of_geom(geom), m.geom_friction[geom].x());
    return friction_param[geom];
  };
  for (const SlotGeometry& s : slots) {
    const int condim = contact_condim(m, s.pair.a, s.pair.b);
    if (condim > 3)
      ctx.note("torsional and rolling friction (condim " + std::to_string(condim) +
               ") are not modelled; sliding friction only");
    if (condim < 3) continue;
    const std::array<int, 2> geoms = contact_friction_geoms(m, s.pair.a, s.pair.b);
    const Expr mu_a = friction(geoms[0]), mu_b = friction(geoms[1]);  // creation order
    if (!friction_compliance)
      friction_compliance = ctx.param("friction_compliance", ctx.options.friction_compliance);
    add_friction_rows(ctx, s, max(mu_a, mu_b), friction_compliance);
  }
  ctx.close_block("friction", first);
}

}  // namespace talon::ir::lower
