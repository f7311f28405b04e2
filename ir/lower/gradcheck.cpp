// Finite-difference checks of the derivative kernels (see gradcheck.h for the noise model).
//
// What each kernel is compared with (fourth-order Richardson differences, largest step
// relative_step·max(0.01, |x|), or relative_step·|x| for parameters):
//   jhat        columns of ∂r_con/∂u⁺ of `residual_frozen_w` (W fixed at the point's value)
//   c_diag      columns of ∂r_con/∂λ of `residual_frozen_w` (diagonal; off-diagonals 0)
//   mass        columns of ∂r_dyn/∂u⁺ of `residual` at λ = 0 (= M̃), r_dyn(u⁺ = 0, λ = 0) = −M̃ũ,
//               and M̃·M̃⁻¹ = I
//   diag_a      per sampled row, Σ_b ĵ_b M̃_b⁻¹ ĵ_bᵀ + C_ii with ĵ and C_ii differenced
//   jvp_exact   the directional difference of [r_dyn; r_con] of `residual` along (t_u, t_λ)
//   vjp_exact   columns of wᵀ[r_dyn; r_con] over (u⁺, λ)
//   vjp_inputs  columns of wᵀ[r_dyn; r_con] over (q⁻, u⁻, ctrl, params)
#include "ir/lower/gradcheck.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <numeric>
#include <sstream>

#include "common/math.h"
#include "ir/interpreter.h"
#include "ir/lower/pair_templates.h"
#include "ir/passes/schedule.h"

namespace talon::ir {
namespace {

using Vector = std::vector<double>;

// Schedules each kernel once; evaluates base + extra inputs.
class Evaluator {
 public:
  explicit Evaluator(const ResidualProgram& prog) : prog_(prog) {}

  Vector run(const std::string& name, const KernelPoint& p, const Vector& extra = {}) {
    Vector inputs = p.base();
    inputs.insert(inputs.end(), extra.begin(), extra.end());
    Vector out = evaluate(scheduled(-1, prog_, name), inputs);
    add_pair_instances(prog_, name, inputs, out,
                       [&](int t, const std::string& kernel, std::span<const double> in) {
                         return evaluate(scheduled(t, prog_.pairs->templates[t].program, kernel),
                                         in);
                       });
    return out;
  }

  // [r_dyn; r_con] of `residual`.
  Vector full_residual(const KernelPoint& p) {
    Vector out = run("residual", p);
    out.resize(prog_.ndyn() + prog_.nrows);
    return out;
  }
  Vector frozen_constraints(const KernelPoint& p) {
    return run("residual_frozen_w", p, p.friction_w);
  }

 private:
  // The schedule of a kernel of the program (template -1) or of a pair template.
  const Schedule& scheduled(int template_index, const ResidualProgram& owner,
                            const std::string& name) {
    auto it = schedules_.find({template_index, name});
    if (it == schedules_.end())
      it =
          schedules_.emplace(std::pair{template_index, name}, schedule(owner.kernel(name).function))
              .first;
    return it->second;
  }

  const ResidualProgram& prog_;
  std::map<std::pair<int, std::string>, Schedule> schedules_;
};

// A coordinate of a KernelPoint that finite differences perturb.
struct Coordinate {
  Vector KernelPoint::*field;
  int index;
  std::string label;
};

// The step's scale: |x| for parameters (inertias of 1e-5 kg·m² are common and 1/I is
// strongly curved there), else max(0.01, |x|).
double step_scale(const Coordinate& c, double x) {
  if (c.field == &KernelPoint::params && x != 0) return std::abs(x);
  return std::max(0.01, std::abs(x));
}

std::vector<Coordinate> coordinates(Vector KernelPoint::*field, int n, const std::string& name) {
  std::vector<Coordinate> out;
  for (int i = 0; i < n; ++i) out.push_back({field, i, name + "[" + std::to_string(i) + "]"});
  return out;
}

// Values of a function at a point, with the magnitudes that bound their rounding errors.
struct Sample {
  Vector value, magnitude;
};

Sample plain(Vector v) {
  Vector m(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) m[i] = std::abs(v[i]);
  return {std::move(v), std::move(m)};
}

// A finite-difference estimate of a derivative (see gradcheck.h for the noise model):
//   value   the fourth-order Richardson estimate at the smaller step pair,
//   noise   what rounding of the sampled values contributes to it (discounted),
//   spread  how far the fourth-order estimates at two step scales disagree: tiny where the
//           function is smooth over the stencil, O(1) where a kink lies inside it.
struct Difference {
  Vector value, noise, spread;
};

// The rounding of the many operations behind each residual entry: a value of magnitude |f|
// is known to about kRounding·|f|.
constexpr double kRounding = 100 * 2.220446049250313e-16;

// Central difference (f(+s) − f(−s)) / 2s and its rounding noise.
struct Central {
  Vector value, noise;
};

Central central(const Sample& a, const Sample& b, double step) {
  Central d{Vector(a.value.size()), Vector(a.value.size())};
  for (std::size_t i = 0; i < a.value.size(); ++i) {
    d.value[i] = (a.value[i] - b.value[i]) / (2 * step);
    d.noise[i] = kRounding * (a.magnitude[i] + b.magnitude[i]) / (2 * step);
  }
  return d;
}

// Central differences at steps s, s/2, s/4 combined by Richardson extrapolation: R₁ from
// (s, s/2) and R₂ from (s/2, s/4) cancel the h² term (error O(h⁴)); R₂ is the estimate and
// |R₁ − R₂| its consistency. `displace(x, t)` moves a point by t along the differenced
// direction; f maps a point to a Sample.
template <class Displace, class F>
Difference richardson(const KernelPoint& p, double step, Displace displace, F f) {
  std::array<Central, 3> d;
  for (int k = 0; k < 3; ++k) {
    const double s = step / (1 << k);
    KernelPoint plus = p, minus = p;
    displace(plus, s);
    displace(minus, -s);
    d[k] = central(f(plus), f(minus), s);
  }
  const std::size_t n = d[0].value.size();
  Difference out{Vector(n), Vector(n), Vector(n)};
  for (std::size_t i = 0; i < n; ++i) {
    const double coarse = (4 * d[1].value[i] - d[0].value[i]) / 3;
    const double fine = (4 * d[2].value[i] - d[1].value[i]) / 3;
    out.value[i] = fine;
    out.noise[i] = (4 * d[2].noise[i] + d[1].noise[i]) / 3;
    out.spread[i] = std::abs(coarse - fine);
  }
  return out;
}

// Richardson difference of f (returning a Sample) along one coordinate.
template <class F>
Difference difference(const KernelPoint& p, const Coordinate& c, double rel_step, F f) {
  const double step = rel_step * step_scale(c, (p.*c.field)[c.index]);
  return richardson(
      p, step, [&c](KernelPoint& x, double t) { (x.*c.field)[c.index] += t; }, f);
}

class Comparison {
 public:
  Comparison(std::string kernel, const GradcheckOptions& options) : options_(options) {
    check_.kernel = std::move(kernel);
  }

  // Compares kernel values k with finite differences f entry by entry: the relative error
  // max(0, |k − f| − noise) / max(|k|, |f|, floor), floor = floor_fraction·(the largest
  // |k| or |f| of the compared vector, or `scale` where the caller knows a larger one).
  // Entries whose difference is not self-consistent (a kink within the stencil) are
  // skipped and counted.
  void compare(const Vector& k, const Difference& f, const std::string& where, double scale = 0) {
    for (std::size_t i = 0; i < k.size(); ++i)
      scale = std::max({scale, std::abs(k[i]), std::abs(f.value[i])});
    const double floor = options_.floor_fraction * scale;
    for (std::size_t i = 0; i < k.size(); ++i) {
      const double denominator = std::max({std::abs(k[i]), std::abs(f.value[i]), floor});
      if (f.spread[i] > options_.kink_threshold * denominator + f.noise[i]) {
        ++check_.skipped;
        continue;
      }
      // The estimate is uncertain by its rounding noise and, at most, its spread (R₂'s
      // truncation error is below R₁'s); the spread is < kink_threshold·denominator here.
      const double excess = std::max(0.0, std::abs(k[i] - f.value[i]) - f.noise[i] - f.spread[i]);
      const double err = denominator > 0 ? excess / denominator : 0.0;
      ++check_.compared;
      if (!(err <= check_.max_rel_error)) record_worst(k[i], f, i, err, where);
    }
  }

  KernelCheck result() const { return check_; }

 private:
  void record_worst(double k, const Difference& f, std::size_t i, double err,
                    const std::string& where) {
    check_.max_rel_error = std::isnan(err) ? INFINITY : err;
    std::ostringstream w;
    w << where << " entry " << i << ": kernel " << k << ", finite difference " << f.value[i]
      << " (noise " << f.noise[i] << ", spread " << f.spread[i] << ")";
    check_.worst = w.str();
  }

  const GradcheckOptions& options_;
  KernelCheck check_;
};

std::vector<int> pick(int n, int max_count, std::mt19937_64& rng) {
  std::vector<int> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::shuffle(idx.begin(), idx.end(), rng);
  if (max_count > 0 && n > max_count) idx.resize(max_count);
  std::sort(idx.begin(), idx.end());
  return idx;
}

// For each coordinate, the largest |gradient entry| over coordinates of the same input
// (q⁻, u⁻, …, whose entries share units): the scale of a pullback entry's floor. The
// coordinates of one input are contiguous.
Vector scale_per_input(const std::vector<Coordinate>& coords, const Vector& gradient) {
  Vector scale(coords.size(), 0.0);
  for (std::size_t begin = 0, end = 0; begin < coords.size(); begin = end) {
    double largest = 0;
    for (end = begin; end < coords.size() && coords[end].field == coords[begin].field; ++end)
      largest = std::max(largest, std::abs(gradient[end]));
    std::fill(scale.begin() + begin, scale.begin() + end, largest);
  }
  return scale;
}

class Checker {
 public:
  Checker(const ResidualProgram& prog, const GradcheckOptions& options, std::mt19937_64& rng)
      : prog_(prog), opt_(options), rng_(rng), eval_(prog) {}

  void run(const KernelPoint& p) {
    check_jhat(p);
    check_c_diag(p);
    check_mass(p);
    check_diag_a(p);
    check_jvp(p);
    check_vjp(p);
    check_vjp_inputs(p);
  }

  std::vector<KernelCheck> results() const {
    std::vector<KernelCheck> out;
    for (const auto& c : comparisons_) out.push_back(c.result());
    return out;
  }

 private:
  Comparison& comparison(const std::string& kernel) {
    for (auto& c : comparisons_)
      if (c.result().kernel == kernel) return c;
    comparisons_.emplace_back(kernel, opt_);
    return comparisons_.back();
  }

  double step() const { return opt_.relative_step; }
  auto frozen() {
    return [this](const KernelPoint& x) { return plain(eval_.frozen_constraints(x)); };
  }
  auto full() {
    return [this](const KernelPoint& x) { return plain(eval_.full_residual(x)); };
  }

  void check_jhat(const KernelPoint& p) {
    const Vector values = eval_.run("jhat", p, p.friction_w);
    for (int col : pick(prog_.ndyn(), opt_.max_columns, rng_)) {
      Vector k(prog_.nrows, 0.0);
      for (std::size_t e = 0; e < values.size(); ++e)
        if (prog_.jhat_col[e] == col) k[prog_.jhat_row[e]] = values[e];
      const Difference f = difference(p, {&KernelPoint::u_plus, col, ""}, step(), frozen());
      comparison("jhat").compare(k, f, "u_plus[" + std::to_string(col) + "]");
    }
  }

  void check_c_diag(const KernelPoint& p) {
    const Vector c = eval_.run("c_diag", p, p.friction_w);
    for (int col : pick(prog_.nrows, opt_.max_columns, rng_)) {
      Vector k(prog_.nrows, 0.0);
      k[col] = c[col];
      const Difference f = difference(p, {&KernelPoint::lambda, col, ""}, step(), frozen());
      comparison("c_diag").compare(k, f, "lambda[" + std::to_string(col) + "]");
    }
  }

  // M̃ block of body b as a dense 6x6 (row-major) from the mass kernel's 20 values.
  static std::array<double, 36> mass_block(const Vector& mass, int b, bool inverse) {
    const double* m = &mass[20 * b + (inverse ? 7 : 0)];
    std::array<double, 36> out{};
    for (int i = 0; i < 3; ++i) out[6 * i + i] = m[0];
    const int sym[3][3] = {{1, 4, 5}, {4, 2, 6}, {5, 6, 3}};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) out[6 * (3 + r) + 3 + c] = m[sym[r][c]];
    return out;
  }

  // M̃ is ∂r_dyn/∂u⁺ with λ = 0 and ω⁺ = 0, where the implicit gyroscopic torque
  // ω⁺ × I_w ω⁺ (dynamics.cpp) has no derivative: elsewhere the exact Jacobian adds
  // h ∂(ω⁺ × I_w ω⁺)/∂ω⁺, which the preconditioner leaves out (jvp_exact checks it).
  void check_mass(const KernelPoint& p) {
    KernelPoint at_rest = p;
    std::fill(at_rest.lambda.begin(), at_rest.lambda.end(), 0.0);
    for (int b = 0; b < prog_.nsim; ++b) std::fill_n(at_rest.u_plus.begin() + 6 * b + 3, 3, 0.0);
    const Vector mass = eval_.run("mass", at_rest);
    Comparison& cmp = comparison("mass");
    for (int col : pick(prog_.ndyn(), opt_.max_columns, rng_)) {
      const int b = col / 6;
      const std::array<double, 36> block = mass_block(mass, b, false);
      Vector k(prog_.ndyn(), 0.0);
      for (int r = 0; r < 6; ++r) k[6 * b + r] = block[6 * r + col % 6];
      Difference f = difference(at_rest, {&KernelPoint::u_plus, col, ""}, step(), full());
      f.value.resize(prog_.ndyn());
      f.noise.resize(prog_.ndyn());
      f.spread.resize(prog_.ndyn());
      cmp.compare(k, f, "dr_dyn/du_plus[" + std::to_string(col) + "]");
    }
    // r_dyn(u⁺ = 0, λ = 0) = −M̃ũ and M̃ M̃⁻¹ = I.
    KernelPoint still = at_rest;
    std::fill(still.u_plus.begin(), still.u_plus.end(), 0.0);
    Vector r = eval_.full_residual(still);
    r.resize(prog_.ndyn());
    // Both sides are computed in floating point: each sum is known to κε·Σ|terms|.
    Vector predicted(prog_.ndyn()), predicted_noise(prog_.ndyn()), product, identity, product_noise;
    for (int b = 0; b < prog_.nsim; ++b) {
      const std::array<double, 36> m = mass_block(mass, b, false), inv = mass_block(mass, b, true);
      for (int i = 0; i < 6; ++i) {
        double s = 0, magnitude = 0;
        for (int j = 0; j < 6; ++j) {
          s -= m[6 * i + j] * mass[20 * b + 14 + j];
          magnitude += std::abs(m[6 * i + j] * mass[20 * b + 14 + j]);
        }
        predicted[6 * b + i] = s;
        predicted_noise[6 * b + i] = kRounding * magnitude;
        for (int j = 0; j < 6; ++j) {
          double e = 0, terms = 0;
          for (int l = 0; l < 6; ++l) {
            e += m[6 * i + l] * inv[6 * l + j];
            terms += std::abs(m[6 * i + l] * inv[6 * l + j]);
          }
          product.push_back(e);
          identity.push_back(i == j ? 1.0 : 0.0);
          product_noise.push_back(kRounding * terms);
        }
      }
    }
    const std::size_t n = predicted.size();
    cmp.compare(predicted, Difference{r, predicted_noise, Vector(n, 0.0)},
                "r_dyn at u_plus = 0 vs -M u_tilde");
    cmp.compare(product, Difference{identity, product_noise, Vector(product.size(), 0.0)},
                "M * M^-1");
  }

  void check_diag_a(const KernelPoint& p) {
    const Vector diag = eval_.run("diag_a", p, p.friction_w);
    const Vector mass = eval_.run("mass", p);
    for (int row : pick(prog_.nrows, std::min(opt_.max_columns, 16), rng_)) {
      const ConstraintRowInfo& info = prog_.rows[row];
      const Difference c = difference(p, {&KernelPoint::lambda, row, ""}, step(), frozen());
      // ĵ M̃⁻¹ ĵᵀ + C_ii from differenced entries; noise and spread propagate linearly.
      Difference expected{{c.value[row]}, {c.noise[row]}, {c.spread[row]}};
      for (int b : {info.body, info.other}) {
        if (b < 0) continue;
        Difference j{Vector(6), Vector(6), Vector(6)};
        for (int i = 0; i < 6; ++i) {
          const Difference d =
              difference(p, {&KernelPoint::u_plus, 6 * b + i, ""}, step(), frozen());
          j.value[i] = d.value[row];
          j.noise[i] = d.noise[row];
          j.spread[i] = d.spread[row];
        }
        const std::array<double, 36> inv = mass_block(mass, b, true);
        for (int r = 0; r < 6; ++r)
          for (int k = 0; k < 6; ++k) {
            const double a = inv[6 * r + k];
            expected.value[0] += j.value[r] * a * j.value[k];
            expected.noise[0] += std::abs(a) * (std::abs(j.value[r]) * j.noise[k] +
                                                j.noise[r] * std::abs(j.value[k]));
            expected.spread[0] += std::abs(a) * (std::abs(j.value[r]) * j.spread[k] +
                                                 j.spread[r] * std::abs(j.value[k]));
          }
      }
      comparison("diag_a").compare({diag[row]}, expected, prog_.rows[row].label);
    }
  }

  void check_jvp(const KernelPoint& p) {
    const Vector t_u = random_vector(prog_.ndyn(), rng_), t_l = random_vector(prog_.nrows, rng_);
    Vector extra = t_u;
    extra.insert(extra.end(), t_l.begin(), t_l.end());
    const Vector k = eval_.run("jvp_exact", p, extra);
    // Along the direction, with the step of a coordinate of scale 0.1 (u⁺ and λ are of
    // that order; the direction's entries are in ±1).
    const auto along = [&](KernelPoint& x, double t) {
      for (int i = 0; i < prog_.ndyn(); ++i) x.u_plus[i] += t * t_u[i];
      for (int i = 0; i < prog_.nrows; ++i) x.lambda[i] += t * t_l[i];
    };
    comparison("jvp_exact")
        .compare(k, richardson(p, step() * 0.1, along, full()), "random direction");
  }

  // wᵀr and Σ|wᵢrᵢ| (its rounding scale).
  Sample weighted(const KernelPoint& x, const Vector& w) {
    const Vector r = eval_.full_residual(x);
    double value = 0, magnitude = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
      value += w[i] * r[i];
      magnitude += std::abs(w[i] * r[i]);
    }
    return {{value}, {magnitude}};
  }

  void check_pullback(const KernelPoint& p, const std::string& kernel,
                      const std::vector<Coordinate>& coords) {
    const Vector w = random_vector(prog_.ndyn() + prog_.nrows, rng_);
    const Vector k = eval_.run(kernel, p, w);
    const Vector scale = scale_per_input(coords, k);
    for (int c : pick(static_cast<int>(coords.size()), opt_.max_columns, rng_)) {
      const Difference f =
          difference(p, coords[c], step(), [&](const KernelPoint& x) { return weighted(x, w); });
      comparison(kernel).compare({k[c]}, f, coords[c].label, scale[c]);
    }
  }

  void check_vjp(const KernelPoint& p) {
    std::vector<Coordinate> coords = coordinates(&KernelPoint::u_plus, prog_.ndyn(), "u_plus");
    for (const Coordinate& c : coordinates(&KernelPoint::lambda, prog_.nrows, "lambda"))
      coords.push_back(c);
    check_pullback(p, "vjp_exact", coords);
  }

  void check_vjp_inputs(const KernelPoint& p) {
    std::vector<Coordinate> coords = coordinates(&KernelPoint::q_minus, 7 * prog_.nsim, "q_minus");
    const std::pair<Vector KernelPoint::*, std::pair<int, const char*>> rest[] = {
        {&KernelPoint::u_minus, {prog_.ndyn(), "u_minus"}},
        {&KernelPoint::ctrl, {prog_.nu, "ctrl"}},
        {&KernelPoint::params, {static_cast<int>(prog_.params.size()), "params"}}};
    for (const auto& [field, size_name] : rest)
      for (const Coordinate& c : coordinates(field, size_name.first, size_name.second))
        coords.push_back(c);
    check_pullback(p, "vjp_inputs", coords);
  }

  const ResidualProgram& prog_;
  const GradcheckOptions& opt_;
  std::mt19937_64& rng_;
  Evaluator eval_;
  std::deque<Comparison> comparisons_;  // stable references while growing
};

Quat small_rotation(std::mt19937_64& rng, double max_angle) {
  std::uniform_real_distribution<double> u(-max_angle, max_angle);
  const Vec3 r(u(rng), u(rng), u(rng));
  const double angle = r.norm();
  return angle == 0 ? Quat::Identity() : Quat(Eigen::AngleAxisd(angle, r / angle));
}

}  // namespace

Vector random_vector(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Vector v(n);
  for (double& x : v) x = u(rng);
  return v;
}

Vector KernelPoint::base() const {
  Vector out;
  for (const Vector* v : {&q_minus, &u_minus, &u_plus, &lambda, &ctrl, &params})
    out.insert(out.end(), v->begin(), v->end());
  out.push_back(h);
  out.insert(out.end(), terrain.begin(), terrain.end());
  const Vector& choose = q_choose.empty() ? q_minus : q_choose;
  out.insert(out.end(), choose.begin(), choose.end());
  out.insert(out.end(), constants.begin(), constants.end());
  return out;
}

KernelPoint random_kernel_point(const ResidualProgram& prog, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(-1, 1), positive(0, 1);
  KernelPoint p;
  p.q_minus = prog.reference_q;
  for (int b = 0; b < prog.nsim; ++b) {
    for (int i = 0; i < 3; ++i) p.q_minus[7 * b + i] += 0.005 * unit(rng);
    double* q = &p.q_minus[7 * b + 3];
    const Quat rotated = small_rotation(rng, 0.05) * Quat(q[0], q[1], q[2], q[3]);
    q[0] = rotated.w(), q[1] = rotated.x(), q[2] = rotated.y(), q[3] = rotated.z();
  }
  p.u_minus = random_vector(prog.ndyn(), rng);
  p.u_plus = random_vector(prog.ndyn(), rng);
  for (double& x : p.u_minus) x *= 0.5;
  for (double& x : p.u_plus) x *= 0.5;
  for (const ConstraintRowInfo& row : prog.rows) {
    const bool unilateral = row.kind == RowKind::ContactNormal || row.kind == RowKind::Limit;
    p.lambda.push_back(unilateral ? 0.3 * positive(rng) : 0.1 * unit(rng));
  }
  // Friction impulses inside their cone (|λ_t| ≤ μλ_n, the runtime's safeguard): outside it
  // W's denominator may vanish and the residual is no longer smooth enough to difference.
  for (const ContactSlot& slot : prog.slots) {
    if (slot.friction_row < 0) continue;
    const double angle = 2 * M_PI * positive(rng), radius = 0.3 * positive(rng);
    const double limit = radius * p.lambda[slot.normal_row];  // μ ≥ 0.3 in the usual models
    p.lambda[slot.friction_row] = limit * std::cos(angle);
    p.lambda[slot.friction_row + 1] = limit * std::sin(angle);
  }
  p.ctrl = random_vector(prog.nu, rng);
  // Parameters within ±10 % of their defaults: equal defaults (MuJoCo's friction 1 on every
  // geom) would otherwise put max(μ₁, μ₂) exactly on its kink.
  for (std::size_t i = 0; i < prog.params.size(); ++i)
    p.params.push_back(prog.param_info[i].value * (1 + 0.1 * unit(rng)));
  p.h = 0.01 + 0.04 * positive(rng);
  // A terrain plane per probe with its rates (the query's output is data to the kernels; any
  // is a valid point): queried near the origin, near z = 0, tilted by up to ~0.1 rad, turning
  // by up to ~1 rad/m.
  for (std::size_t k = 0; k < prog.terrain_probes.size(); ++k) {
    const Vec3 query(0.1 * unit(rng), 0.1 * unit(rng), 0.1 + 0.1 * unit(rng));
    const Vec3 point(query.x(), query.y(), 0.01 * unit(rng));
    const Vec3 normal = Vec3(0.1 * unit(rng), 0.1 * unit(rng), 1).normalized();
    for (const Vec3& v : {query, point, normal})
      p.terrain.insert(p.terrain.end(), v.data(), v.data() + 3);
    Mat3 rate;  // symmetric, as the query makes it
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j <= i; ++j) rate(i, j) = rate(j, i) = unit(rng);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) p.terrain.push_back(rate(i, j));
  }
  const Vector residual = Evaluator(prog).run("residual", p);
  const Slice* w = prog.kernel("residual").output("friction_w");
  p.friction_w.assign(residual.begin() + w->offset, residual.begin() + w->offset + w->size);
  return p;
}

std::vector<double> evaluate_kernel(const ResidualProgram& prog, const std::string& kernel,
                                    const KernelPoint& point, const std::vector<double>& extra) {
  Vector inputs = point.base();
  inputs.insert(inputs.end(), extra.begin(), extra.end());
  Vector out = evaluate(prog.kernel(kernel).function, inputs);
  add_pair_instances(prog, kernel, inputs, out,
                     [&](int t, const std::string& name, std::span<const double> in) {
                       return evaluate(prog.pairs->templates[t].program.kernel(name).function, in);
                     });
  return out;
}

std::string GradcheckReport::format() const {
  std::ostringstream out;
  out << "gradcheck: " << samples << " samples, max relative error " << max_rel_error << " over "
      << compared << " entries (" << skipped << " skipped at kinks)\n";
  for (const KernelCheck& k : kernels) {
    out << "  " << k.kernel << ": " << k.max_rel_error << " over " << k.compared << " entries";
    if (k.skipped > 0) out << ", " << k.skipped << " skipped";
    if (!k.worst.empty()) out << " (worst: " << k.worst << ")";
    out << "\n";
  }
  return out.str();
}

GradcheckReport gradcheck_kernels(const ResidualProgram& prog, int samples, uint64_t seed,
                                  const GradcheckOptions& options) {
  std::mt19937_64 rng(seed);
  Checker checker(prog, options, rng);
  GradcheckReport report;
  for (int s = 0; s < samples; ++s) checker.run(random_kernel_point(prog, rng));
  report.samples = samples;
  report.kernels = checker.results();
  for (const KernelCheck& k : report.kernels) {
    report.max_rel_error = std::max(report.max_rel_error, k.max_rel_error);
    report.compared += k.compared;
    report.skipped += k.skipped;
  }
  return report;
}

}  // namespace talon::ir
