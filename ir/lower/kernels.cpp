// The derivative kernels of a ResidualProgram (their outputs are listed in lower.h).
//
// Forward Newton (W frozen, DESIGN "State and time stepping"): with Ĵ = ∂r_con/∂u⁺ and the
// diagonal C = ∂r_con/∂λ, both taken with the friction weight W an input, the Schur system
// is A Δλ = Ĵ M̃⁻¹ r_dyn − r_con, A = Ĵ M̃⁻¹ Ĵᵀ + C. In impulse form every row is a velocity
// and λ an impulse, so the factors of h sit inside the rows themselves: C is E/h² for
// joints, (∂φ/∂λ)/h for FB rows (r ∝ h makes it O(1/m)), W for friction and α for servos —
// exactly what differentiating the rows gives; nothing is scaled by hand here.
// Adjoint (exact): jvp / vjp of the full residual [r_dyn; r_con] with respect to (u⁺, λ),
// W differentiated, and the vector–Jacobian product with respect to the step's data.
#include "ir/lower/kernels.h"

#include "ir/passes/derivative.h"
#include "ir/passes/stages.h"

namespace talon::ir::lower {
namespace {

std::vector<Expr> vars(Graph& g, const std::string& prefix, std::size_t n) {
  std::vector<Expr> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(g.variable(prefix + std::to_string(i)));
  return out;
}

std::vector<Expr> concat(std::initializer_list<const std::vector<Expr>*> parts) {
  std::vector<Expr> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

class KernelBuilder {
 public:
  KernelBuilder(Context& ctx, ResidualProgram& prog) : ctx_(ctx), prog_(prog) {}

  // A kernel over the base inputs plus `extra` (name, vars) groups.
  Kernel& add(const std::string& name,
              const std::vector<std::pair<std::string, const std::vector<Expr>*>>& extra) {
    Kernel k;
    k.function.name = name;
    const std::vector<Expr> h{ctx_.h};
    const std::pair<std::string, const std::vector<Expr>*> base[] = {
        {"q_minus", &ctx_.q_minus},
        {"u_minus", &ctx_.u_minus},
        {"u_plus", &ctx_.u_plus},
        {"lambda", &ctx_.lambda},
        {"ctrl", &ctx_.ctrl},
        {"params", &ctx_.params},
        {"h", &h},
        {"terrain", &ctx_.terrain},
        {"q_choose", &ctx_.q_choose},
        {"constants", &ctx_.instance_inputs}};
    for (const auto& [group, values] : base) k.add_input(group, *values);
    for (const auto& [group, values] : extra) k.add_input(group, *values);
    return append(std::move(k));
  }

  // A kernel with inputs of its own.
  Kernel& append(Kernel k) {
    prog_.kernels.push_back(std::move(k));
    return prog_.kernels.back();
  }

 private:
  Context& ctx_;
  ResidualProgram& prog_;
};

// q⁺ per body; zeros where the bodies' template adds it (LowerOptions::body_templates).
std::vector<Expr> q_plus(const Context& ctx) {
  if (ctx.options.uses_body_templates())
    return std::vector<Expr>(7 * ctx.bodies.size(), ctx.g.constant(0.0));
  std::vector<Expr> out;
  for (const BodyState& b : ctx.bodies) {
    const Frame& f = b.plus;
    out.insert(out.end(), {f.com.x, f.com.y, f.com.z, f.quat.w, f.quat.x, f.quat.y, f.quat.z});
  }
  return out;
}

// Ĵ = ∂r_con/∂u⁺ and the diagonal C = ∂r_con/∂λ of the frozen rows, from one Jacobian
// (one reverse sweep per row). The compliances that keep C regular where contacts are
// redundant are inside the rows themselves (LowerOptions), not added here.
struct FrozenDerivatives {
  SparseJacobian jhat;
  std::vector<Expr> c_diag;
};

FrozenDerivatives frozen_derivatives(const Context& ctx, const std::vector<Expr>& frozen) {
  const int ndyn = static_cast<int>(ctx.u_plus.size());
  const SparseJacobian d = jacobian(frozen, concat({&ctx.u_plus, &ctx.lambda}));
  FrozenDerivatives out;
  out.jhat.rows = d.rows;
  out.jhat.cols = ndyn;
  out.c_diag.assign(frozen.size(), ctx.g.constant(0.0));
  for (std::size_t k = 0; k < d.nnz(); ++k) {
    if (d.col[k] < ndyn) {
      out.jhat.row.push_back(d.row[k]);
      out.jhat.col.push_back(d.col[k]);
      out.jhat.value.push_back(d.value[k]);
      continue;
    }
    TALON_INTERNAL_ASSERT(d.row[k] == d.col[k] - ndyn, "frozen constraint rows couple impulses");
    out.c_diag[d.row[k]] = d.value[k];
  }
  return out;
}

// diag(Ĵ M̃⁻¹ Ĵᵀ + C): per row, per body block, 1/m |ĵ_v|² + ĵ_ωᵀ I_w⁻¹ ĵ_ω.
std::vector<Expr> schur_diagonal(const Context& ctx, const FrozenDerivatives& d) {
  const SparseJacobian& jhat = d.jhat;
  std::vector<Expr> diag = d.c_diag;
  std::size_t k = 0;
  while (k < jhat.nnz()) {
    const int row = jhat.row[k], body = jhat.col[k] / 6;
    std::array<Expr, 6> block;
    block.fill(ctx.g.constant(0.0));
    for (; k < jhat.nnz() && jhat.row[k] == row && jhat.col[k] / 6 == body; ++k)
      block[jhat.col[k] % 6] = jhat.value[k];
    diag[row] = diag[row] + generalized_inverse_mass(ctx, {body}, {block});
  }
  return diag;
}

std::vector<Expr> slice(const std::vector<Expr>& v, std::size_t offset, std::size_t size) {
  return std::vector<Expr>(v.begin() + offset, v.begin() + offset + size);
}

struct Rows {
  std::vector<Expr> r_dyn, r_con, frozen, merit;
  std::vector<Expr> contact_gap;  // g(q⁺) of every contact normal row, in row order
};

void add_residual_kernels(Context& ctx, KernelBuilder& kb, const Rows& rows, KernelSet set) {
  Kernel& residual = kb.add("residual", {});
  residual.add_output("r_dyn", rows.r_dyn);
  residual.add_output("r_con", rows.r_con);
  residual.add_output("merit", rows.merit);
  if (set != KernelSet::Template) residual.add_output("q_plus", q_plus(ctx));
  residual.add_output("friction_w", ctx.friction_w_exact);
  residual.add_output("gap", rows.contact_gap);
  kb.add("residual_frozen_w", {{"friction_w", &ctx.friction_w}}).add_output("r_con", rows.frozen);
}

void add_newton_kernels(Context& ctx, KernelBuilder& kb, const Rows& rows,
                        const std::vector<Expr>& mass, ResidualProgram& prog, KernelSet set) {
  const FrozenDerivatives d = frozen_derivatives(ctx, rows.frozen);
  prog.jhat_row = d.jhat.row;
  prog.jhat_col = d.jhat.col;
  const std::pair<std::string, const std::vector<Expr>*> w{"friction_w", &ctx.friction_w};
  kb.add("jhat", {w}).add_output("values", d.jhat.value);
  kb.add("c_diag", {w}).add_output("c_diag", d.c_diag);
  if (set != KernelSet::Template || !mass.empty()) kb.add("mass", {}).add_output("mass", mass);
  kb.add("diag_a", {w}).add_output("diag_a", schur_diagonal(ctx, d));
}

// jvp_exact in two stages (ir/passes/stages.h): `jvp_primal` writes, once per iterate, the
// values the product with the tangents reads (output group "jvp_cache"); `jvp_tangent` takes
// those and the tangents and gives jvp_exact's outputs to the bit. A template's instance keeps
// its cache between the FGMRES iterations of one Newton direction (codegen/model_unit_pairs.cpp).
void add_staged_jvp_kernels(KernelBuilder& kb, const Function& exact, ResidualProgram& prog,
                            const std::vector<Expr>& tangents) {
  const StagedFunction staged = split_stages(exact, tangents, "jvp_cache");
  prog.jvp_cache.assign(staged.late.inputs.begin(), staged.late.inputs.end() - tangents.size());
  kb.add("jvp_primal", {}).add_output("jvp_cache", staged.early.outputs);
  Kernel tangent;
  tangent.function.name = "jvp_tangent";
  tangent.add_input("jvp_cache", prog.jvp_cache);
  tangent.add_input("tangent_u", prog.tangent_u);
  tangent.add_input("tangent_lambda", prog.tangent_lambda);
  tangent.add_output("jvp", staged.late.outputs);
  kb.append(std::move(tangent));
}

void add_adjoint_kernels(Context& ctx, KernelBuilder& kb, const Rows& rows, ResidualProgram& prog,
                         KernelSet set) {
  const std::vector<Expr> r = concat({&rows.r_dyn, &rows.r_con});
  const std::vector<Expr> unknowns = concat({&ctx.u_plus, &ctx.lambda});
  prog.tangent_u = vars(ctx.g, "tangent_u", ctx.u_plus.size());
  prog.tangent_lambda = vars(ctx.g, "tangent_lambda", ctx.lambda.size());
  const std::vector<Expr> tangents = concat({&prog.tangent_u, &prog.tangent_lambda});
  Kernel& exact = kb.add(
      "jvp_exact", {{"tangent_u", &prog.tangent_u}, {"tangent_lambda", &prog.tangent_lambda}});
  exact.add_output("jvp", jvp(r, unknowns, tangents));
  if (set != KernelSet::Model) add_staged_jvp_kernels(kb, exact.function, prog, tangents);
  if (!ctx.options.backward_kernels) return;

  // One reverse sweep for both pull-backs: w.r.t. the unknowns and w.r.t. the step's data.
  prog.cotangent_dyn = vars(ctx.g, "cotangent_dyn", rows.r_dyn.size());
  prog.cotangent_con = vars(ctx.g, "cotangent_con", rows.r_con.size());
  const std::vector<Expr> data = concat({&ctx.q_minus, &ctx.u_minus, &ctx.ctrl, &ctx.params});
  const std::vector<Expr> pulled =
      vjp(r, concat({&unknowns, &data}), concat({&prog.cotangent_dyn, &prog.cotangent_con}));
  const std::vector<std::pair<std::string, const std::vector<Expr>*>> cotangents{
      {"cotangent_dyn", &prog.cotangent_dyn}, {"cotangent_con", &prog.cotangent_con}};
  kb.add("vjp_exact", cotangents).add_output("vjp", slice(pulled, 0, unknowns.size()));
  Kernel& inputs = kb.add("vjp_inputs", cotangents);
  std::size_t offset = unknowns.size();
  const std::pair<const char*, const std::vector<Expr>*> groups[] = {{"q_minus", &ctx.q_minus},
                                                                     {"u_minus", &ctx.u_minus},
                                                                     {"ctrl", &ctx.ctrl},
                                                                     {"params", &ctx.params}};
  for (const auto& [name, group] : groups) {
    inputs.add_output(name, slice(pulled, offset, group->size()));
    offset += group->size();
  }

  if (set == KernelSet::Template) return;
  // The end-of-step pose q⁺(q⁻, u⁺) (exponential map, normalised) pulled back: the backward
  // step's right-hand side gets ∂q⁺/∂u⁺ᵀ q̄⁺, and q̄⁻ its direct part ∂q⁺/∂q⁻ᵀ q̄⁺.
  prog.cotangent_q = vars(ctx.g, "cotangent_q", ctx.q_minus.size());
  const std::vector<Expr> pose = q_plus(ctx);
  const std::vector<Expr> pulled_pose =
      vjp(pose, concat({&ctx.q_minus, &ctx.u_plus}), prog.cotangent_q);
  Kernel& pose_kernel = kb.add("vjp_q_plus", {{"cotangent_q", &prog.cotangent_q}});
  pose_kernel.add_output("q_minus", slice(pulled_pose, 0, ctx.q_minus.size()));
  pose_kernel.add_output("u_plus", slice(pulled_pose, ctx.q_minus.size(), ctx.u_plus.size()));
}

}  // namespace

void build_kernels(Context& ctx, const Dynamics& dyn, ResidualProgram& prog, KernelSet set) {
  KernelBuilder kb(ctx, prog);
  prog.kernels.reserve(16);  // kernels are filled through references while they are added
  Rows rows;
  rows.r_dyn = dyn.residual;
  for (const Row& row : ctx.rows) {
    rows.r_con.push_back(row.residual);
    rows.frozen.push_back(row.residual_frozen);
    rows.merit.push_back(row.merit);
    if (row.info.kind == RowKind::ContactNormal) rows.contact_gap.push_back(row.gap);
  }
  add_residual_kernels(ctx, kb, rows, set);
  add_newton_kernels(ctx, kb, rows, dyn.mass, prog, set);
  add_adjoint_kernels(ctx, kb, rows, prog, set);
}

}  // namespace talon::ir::lower
