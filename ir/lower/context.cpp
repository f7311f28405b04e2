#include "ir/lower/context.h"

#include <cmath>

namespace talon::ir::lower {

Expr Coordinate::value() const {
  return angular ? offset + factor * atan2(y, x) : offset + s;
}

Context::Context(const Model& model_in, const LowerOptions& options_in, Graph& graph)
    : g(graph), model(model_in), options(options_in) {
  world.com = zero_vector(g);
  world.quat = constant(g, Quat::Identity());
  world.rot = identity_matrix(g);
}

const Frame& Context::frame(int sim, Time t) const {
  if (sim < 0) return world;
  switch (t) {
    case Time::Minus:
      return bodies[sim].minus;
    case Time::Plus:
      return bodies[sim].plus;
    case Time::Choose:
      break;
  }
  return bodies[sim].choose;
}

Expr Context::param(const std::string& name, double value) {
  param_info.push_back({name, value});
  if (options.fold_params) return g.constant(value);
  Expr var = g.variable(name);
  params.push_back(var);
  return var;
}

Row& Context::add_row(RowKind kind, const std::string& label) {
  Row row;
  row.info.kind = kind;
  row.info.label = label;
  row.lambda = g.variable("lambda" + std::to_string(lambda.size()));
  lambda.push_back(row.lambda);
  rows.push_back(std::move(row));
  return rows.back();
}

Row& Context::add_placeholder_row(RowKind kind, const std::string& label) {
  Row& row = add_row(kind, label);
  row.residual = row.residual_frozen = row.merit = g.constant(0.0);
  if (kind == RowKind::ContactNormal) row.gap = row.residual;
  return row;
}

Row& Context::add_compliant_row(RowKind kind, const std::string& label, Expr e, Expr alpha,
                                Expr rho) {
  Row& row = add_row(kind, label);
  row.residual = e + alpha * row.lambda;
  row.residual_frozen = row.residual;
  row.merit = row.residual;
  row.rho = rho;
  return row;
}

Row& Context::add_complementarity_row(RowKind kind, const std::string& label, Expr gap,
                                      Expr fb_scale, Expr relative_compliance) {
  Row& row = add_row(kind, label);
  // E λ/h with E = κ h² w and fb_scale = h w: κ · fb_scale · λ (a length).
  const Expr c = gap + relative_compliance * fb_scale * row.lambda;
  const Expr r_lambda = fb_scale * row.lambda;
  const Expr phi = c + r_lambda - sqrt(c * c + r_lambda * r_lambda + options.fb_epsilon_sq * h * h);
  row.residual = phi / h;
  row.residual_frozen = row.residual;
  row.merit = row.residual;
  row.rho = gap / h;
  row.fb_scale = fb_scale;
  row.gap = gap;
  return row;
}

void Context::close_block(const std::string& name, int first_row) {
  const int ndyn = 6 * model.nsim;
  blocks.push_back({name, ndyn + first_row, ndyn + static_cast<int>(rows.size())});
}

void Context::note(const std::string& message) {
  for (const std::string& existing : notes)
    if (existing == message) return;
  notes.push_back(message);
}

std::string Context::body_name(int sim) const {
  return sim < 0 ? std::string("world") : model.sim_name[sim];
}

std::string Context::geom_label(int geom) const {
  // Built by appending: GCC 12's -Wrestrict misfires on "literal" + std::string&& at -O2.
  const std::string& name = model.geom_name[geom];
  std::string label = name.empty() ? "#" : "'";
  label.append(name.empty() ? std::to_string(geom) : name);
  if (!name.empty()) label.push_back('\'');
  return label;
}

std::string param_suffix_of_geom(const Model& model, int geom) {
  const std::string& name = model.geom_name[geom];
  return name.empty() ? "geom" + std::to_string(geom) : name;
}

std::string Context::param_suffix_of_geom(int geom) const {
  return lower::param_suffix_of_geom(model, geom);
}

void Context::unsupported(const std::string& element, const std::string& message) {
  diag.error({model.source_file, 0}, element, "unsupported: " + message);
}

Expr Context::fischer_burmeister(Expr a, Expr b, double eps_sq) const {
  return a + b - sqrt(a * a + b * b + eps_sq);
}

Expr Context::point_inverse_mass(int body_a, int body_b, const V3& point, const V3& direction) {
  Expr total = g.constant(0.0);
  for (int b : {body_a, body_b}) {
    if (b < 0) continue;
    const BodyState& s = bodies[b];
    const V3 arm = cross(point - s.minus.com, direction);
    total = total + s.inv_mass * squared_norm(direction) +
            quadratic_form(s.inertia_world_inv_minus, arm);
  }
  return total;
}

Expr generalized_inverse_mass(const Context& ctx, const std::vector<int>& bodies,
                              const std::vector<std::array<Expr, 6>>& directions) {
  Expr total = ctx.g.constant(0.0);
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    const BodyState& s = ctx.bodies[bodies[k]];
    const std::array<Expr, 6>& j = directions[k];
    const V3 linear{j[0], j[1], j[2]}, angular{j[3], j[4], j[5]};
    total = total + s.inv_mass * squared_norm(linear) +
            quadratic_form(s.inertia_world_inv_minus, angular);
  }
  return total;
}

}  // namespace talon::ir::lower
