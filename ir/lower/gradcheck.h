// gradcheck_kernels: every derivative kernel of a ResidualProgram against central finite
// differences of its residual, evaluated with the reference interpreter (the check behind
// `talon gradcheck MODEL --kernels`).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ir/lower/program.h"

namespace talon::ir {

// One evaluation point of a program's kernels.
struct KernelPoint {
  std::vector<double> q_minus, u_minus, u_plus, lambda, ctrl, params;
  double h = 0.02;
  std::vector<double> terrain;     // the terrain probes' inputs (program.h)
  std::vector<double> q_choose;    // where colliders choose (program.h); empty: at q_minus
  std::vector<double> friction_w;  // the exact W at this point (from `residual`)
  std::vector<double> constants;   // a template's instance constants (empty for a model)
  // The base inputs in kernel order (q_minus, u_minus, u_plus, lambda, ctrl, params, h,
  // terrain, q_choose, constants).
  std::vector<double> base() const;
};

// A random valid point: q a small rigid perturbation of the reference configuration (a
// few mm, a few degrees per body), u⁻ and u⁺ uniform in ±0.5, normal and limit impulses
// in [0, 0.3], friction impulses inside 0.3·λ_n (within the cone of μ ≥ 0.3), other
// impulses in ±0.1, ctrl in ±1, params within ±10 % of their defaults, h in [0.01, 0.05];
// friction_w evaluated from `residual`.
KernelPoint random_kernel_point(const ResidualProgram& prog, std::mt19937_64& rng);

// n entries uniform in [−1, 1] (tangents and cotangents of the derivative checks).
std::vector<double> random_vector(std::size_t n, std::mt19937_64& rng);

// Evaluates a kernel (by name) at a point; `extra` is appended to the base inputs.
std::vector<double> evaluate_kernel(const ResidualProgram& prog, const std::string& kernel,
                                    const KernelPoint& point,
                                    const std::vector<double>& extra = {});

struct KernelCheck {
  std::string kernel;
  double max_rel_error = 0;  // over every compared entry and sample
  int compared = 0;          // entries compared
  int skipped = 0;           // entries whose finite difference straddled a kink (not compared)
  std::string worst;         // where the largest error occurred
};

struct GradcheckReport {
  int samples = 0;
  double max_rel_error = 0;
  int compared = 0, skipped = 0;     // summed over the kernels
  std::vector<KernelCheck> kernels;  // jhat, c_diag, mass, diag_a, jvp_exact, vjp_exact, vjp_inputs
  std::string format() const;        // one line per kernel
};

// The noise model of the comparison.
//
// Finite differences. Each derivative is estimated from central differences D(s) at three
// steps s, s/2, s/4 (s = relative_step·max(0.01, |x|); relative_step·|x| for parameters,
// whose scales span 1e-5 kg·m² inertias to 1e3 N·m gains). Richardson extrapolation cancels
// their h² terms: R₁ = (4D(s/2) − D(s))/3 and R₂ = (4D(s/4) − D(s/2))/3 are both fourth-order,
// and R₂ is the estimate. With s ≈ 1e-3 its truncation error is ~(s/4)⁴·|f⁽⁵⁾| ≈ 1e-14 and
// its rounding error ~κε|f|/(s/4) ≈ 1e-10 relative, so it resolves far below the 1e-6 bar.
//
// Rounding ("noise"): a residual entry of magnitude |f| is known to about κε|f| with
// κ = 100 (the rounding of the many operations behind it); that much, divided by the step
// and propagated through the stencil, is what differencing cannot resolve.
//
// Kinks: the residual is piecewise smooth (max/min/abs/select in contact geometry, FB and
// friction terms smoothed by ε ~ 1e-10). Where a switch lies within the stencil, R₁ and R₂
// disagree at O(1); where the function is smooth they agree to O(s⁴) plus rounding. An
// entry whose spread |R₁ − R₂| exceeds kink_threshold·(the entry's denominator below) plus
// its noise is not a derivative that differencing can certify: it is skipped and counted
// (KernelCheck::skipped), never compared. The spread depends on the residual only, never
// on the kernel, so a wrong kernel cannot hide behind it.
//
// Relative error of a compared entry, k the kernel's value and f the estimate R₂:
//   max(0, |k − f| − noise − spread) / max(|k|, |f|, floor),
//   floor = floor_fraction · M, M the largest |k| or |f| of the compared vector: the
// column of ∂r/∂x (jhat, c_diag, mass), the directional derivative (jvp_exact), or the
// gradient over the same input (vjp_exact, vjp_inputs: all of u⁺, all of λ, all of q⁻, …,
// which share units). The spread discounted is below kink_threshold (0.1 of the 1e-6 bar)
// of the denominator, since larger spreads are skipped.
// Why floor_fraction = 1e-3: an entry k ≪ M is held to |k − f| ≤ tolerance·1e-3·M
// (1e-9·M at the default bar) rather than to its own size. Residual rows that cancel
// large terms (box corners, capsule axes, rotated offsets) carry rounding of ~1e-10·M in
// their differences (ε times intermediates ≫ |r|, which the κε|f| model cannot see), so an
// entry many orders below its column can only be resolved to that absolute level; on the
// shipped models and humanoid.xml the worst such entries sit at ~1e-9·M of disagreement.
// Every entry above 1e-3·M is held to 1e-6 of itself.
struct GradcheckOptions {
  // Columns (u⁺ entries, λ entries, data entries) differenced per sample and kernel; large
  // models are checked on a random subset. <= 0: all.
  int max_columns = 64;
  // Largest step of the stencil, relative to the input's scale.
  double relative_step = 1e-3;
  // See the noise model above.
  double floor_fraction = 1e-3;
  double kink_threshold = 1e-7;
};

GradcheckReport gradcheck_kernels(const ResidualProgram& prog, int samples, uint64_t seed,
                                  const GradcheckOptions& options = {});

}  // namespace talon::ir
