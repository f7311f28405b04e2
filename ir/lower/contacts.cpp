// Hard contact rows, impulse form (DESIGN "State and time stepping", "Known pitfalls").
//
// Normal, per slot: a Fischer–Burmeister row on the gap c(q⁺) (add_complementarity_row)
// with r = h·[J_n M̃⁻¹ J_nᵀ] evaluated at q⁻ (a per-step constant).
// Friction, per slot of a pair with condim ≥ 3 (condim 1 is frictionless; torsional and
// rolling friction are not modelled): with the tangent basis (t₁, t₂) ⟂ n, the slip
// v_t = J_t u⁺, k_t = [J_t M̃⁻¹ J_tᵀ]_ii (mean of the two directions, at q⁻) and λ_n the
// normal impulse of the *current* iterate,
//   φ_f = FB(|v_t|, k_t(μλ_n − |λ_t|)),  W = (|v_t| − φ_f) / (|λ_t| + φ_f/k_t),
//   r_t = v_t + W λ_t   (2 rows; W ≥ 0 always since φ_f ≤ |v_t|).
// At a solution W = 0 when sticking and W = |v_t|/|λ_t| when sliding (force on the cone,
// opposing the slip). μ is the larger friction of the two geoms (MuJoCo's rule). The merit
// of friction rows is the natural map k_t(λ_t − Π_{|·|≤μλ_n}(λ_t − v_t/k_t)); the plain
// r_t is no NCP residual at a separated contact (λ = 0, W → ∞).
// The friction impulses act through J_t at q⁺: force t₁λ₁ + t₂λ₂ at the contact point.
#include "ir/lower/contact_geometry.h"
#include "ir/lower/contact_pairs.h"

namespace talon::ir::lower {
namespace {

struct SlotGeometry {
  GeomPair pair;
  int body_a = -1, body_b = -1;
  ContactPoint minus, plus;
  int slot = -1;  // index into ctx.slots
};

GeomPose geom_pose(const Context& ctx, int geom, Time t) {
  const Model& m = ctx.model;
  const Frame& frame = ctx.frame(m.geom_sim[geom], t);
  const Pose& local = m.geom_pose[geom];
  return {m.geom_type[geom], frame.point(local.pos),
          frame.rot * constant(ctx.g, Mat3(local.quat.toRotationMatrix())), m.geom_size[geom]};
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

std::vector<SlotGeometry> slot_geometry(Context& ctx, const std::vector<GeomPair>& pairs) {
  const Model& m = ctx.model;
  std::vector<SlotGeometry> out;
  for (const GeomPair& pair : pairs) {
    const std::vector<ContactPoint> minus =
        contact_points(geom_pose(ctx, pair.a, Time::Minus), geom_pose(ctx, pair.b, Time::Minus));
    const std::vector<ContactPoint> plus =
        contact_points(geom_pose(ctx, pair.a, Time::Plus), geom_pose(ctx, pair.b, Time::Plus));
    for (std::size_t k = 0; k < plus.size(); ++k) {
      SlotGeometry s{pair, m.geom_sim[pair.a], m.geom_sim[pair.b], minus[k], plus[k], -1};
      ContactSlot slot;
      slot.geom_a = pair.a;
      slot.geom_b = pair.b;
      slot.kind = contact_slot_kind(m.geom_type[pair.a], m.geom_type[pair.b], static_cast<int>(k));
      s.slot = static_cast<int>(ctx.slots.size());
      ctx.slots.push_back(slot);
      out.push_back(s);
    }
    ++ctx.contact_pairs;
  }
  return out;
}

std::string slot_label(const Context& ctx, const SlotGeometry& s) {
  return "contact " + ctx.geom_label(s.pair.a) + "-" + ctx.geom_label(s.pair.b) + " " +
         ctx.slots[s.slot].kind;
}

void add_normal_row(Context& ctx, const SlotGeometry& s, Expr compliance) {
  const Expr inverse_mass =
      ctx.point_inverse_mass(s.body_a, s.body_b, s.minus.point, s.minus.normal);
  Row& row = ctx.add_complementarity_row(RowKind::ContactNormal, slot_label(ctx, s), s.plus.gap,
                                         ctx.h * inverse_mass, compliance);
  row.info.body = s.body_b;
  row.info.other = s.body_a;
  row.info.slot = s.slot;
  ctx.slots[s.slot].normal_row = static_cast<int>(ctx.rows.size()) - 1;
}

struct FrictionTerms {
  Expr w;         // exact weight W
  Expr merit[2];  // natural-map residual per direction
};

// W and the natural-map merit from slip v_t, impulses λ_t, the normal impulse λ_n, μ and k_t.
FrictionTerms friction_terms(const Context& ctx, const Expr vt[2], const Expr lt[2], Expr ln,
                             Expr mu, Expr k) {
  const double eps = ctx.options.friction_epsilon;
  auto norm2 = [&](Expr x, Expr y) { return sqrt(x * x + y * y + eps * eps) - eps; };
  const Expr slip = norm2(vt[0], vt[1]);
  const Expr lt_norm = norm2(lt[0], lt[1]);
  const Expr phi = ctx.fischer_burmeister(slip, k * (mu * ln - lt_norm), eps * eps);
  FrictionTerms out;
  out.w = (slip - phi) / max(lt_norm + phi / k, ctx.g.constant(ctx.options.friction_guard));
  // Natural map: k (λ_t − Π(λ_t − v_t/k)), Π the projection on the disc of radius μλ_n⁺.
  const Expr radius = max(mu * ln, ctx.g.constant(0.0));
  const Expr y[2] = {lt[0] - vt[0] / k, lt[1] - vt[1] / k};
  const Expr y_norm = sqrt(y[0] * y[0] + y[1] * y[1] + eps * eps);
  const Expr scale = min(ctx.g.constant(1.0), radius / y_norm);
  for (int i = 0; i < 2; ++i) out.merit[i] = k * (lt[i] - scale * y[i]);
  return out;
}

void add_friction_rows(Context& ctx, const SlotGeometry& s, Expr mu) {
  const auto [t1_minus, t2_minus] = tangent_basis(s.minus.normal);
  const V3& n = s.plus.normal;
  const V3 t1_raw = t1_minus - dot(t1_minus, n) * n;
  const V3 t1 = (1.0 / smooth_norm(t1_raw, 1e-12)) * t1_raw;
  const V3 tangents[2] = {t1, cross(n, t1)};
  const V3 v_rel =
      point_velocity(ctx, s.body_b, s.plus.point) - point_velocity(ctx, s.body_a, s.plus.point);
  const Expr k = 0.5 * (ctx.point_inverse_mass(s.body_a, s.body_b, s.minus.point, t1_minus) +
                        ctx.point_inverse_mass(s.body_a, s.body_b, s.minus.point, t2_minus));
  const int first = static_cast<int>(ctx.rows.size());
  const std::string label = slot_label(ctx, s);
  ctx.add_row(RowKind::Friction, label + " friction 1");
  ctx.add_row(RowKind::Friction, label + " friction 2");
  const Expr vt[2] = {dot(tangents[0], v_rel), dot(tangents[1], v_rel)};
  const Expr lt[2] = {ctx.rows[first].lambda, ctx.rows[first + 1].lambda};
  const Expr ln = ctx.rows[ctx.slots[s.slot].normal_row].lambda;
  const FrictionTerms terms = friction_terms(ctx, vt, lt, ln, mu, k);
  const Expr w_input = ctx.g.variable("friction_w" + std::to_string(ctx.friction_w.size()));
  ctx.slots[s.slot].friction_row = first;
  ctx.slots[s.slot].friction_index = static_cast<int>(ctx.friction_w.size());
  ctx.friction_w.push_back(w_input);
  ctx.friction_w_exact.push_back(terms.w);
  for (int i = 0; i < 2; ++i) {
    Row& row = ctx.rows[first + i];
    row.residual = vt[i] + terms.w * lt[i];
    row.residual_frozen = vt[i] + w_input * lt[i];
    row.merit = terms.merit[i];
    row.friction_scale = k;
    row.info.body = s.body_b;
    row.info.other = s.body_a;
    row.info.slot = s.slot;
  }
  const V3 force = lt[0] * tangents[0] + lt[1] * tangents[1];
  for (const auto& [body, sign] : {std::pair{s.body_b, 1.0}, std::pair{s.body_a, -1.0}}) {
    if (body < 0) continue;
    const V3 arm = s.plus.point - ctx.bodies[body].plus.com;
    ctx.explicit_impulses.push_back({body, sign * force, sign * cross(arm, force)});
  }
}

}  // namespace

void build_contact_rows(Context& ctx) {
  const Model& m = ctx.model;
  const std::vector<SlotGeometry> slots = slot_geometry(ctx, contact_pairs(ctx));
  int first = static_cast<int>(ctx.rows.size());
  Expr compliance;
  if (!slots.empty()) compliance = ctx.param("contact_compliance", ctx.options.contact_compliance);
  for (const SlotGeometry& s : slots) add_normal_row(ctx, s, compliance);
  ctx.close_block("contact_normal", first);

  first = static_cast<int>(ctx.rows.size());
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
    add_friction_rows(ctx, s, max(mu_a, mu_b));
  }
  ctx.close_block("friction", first);
}

}  // namespace talon::ir::lower
