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
  std::vector<double> friction_w;  // the exact W at this point (from `residual`)
  // The base inputs in kernel order (q_minus, u_minus, u_plus, lambda, ctrl, params, h).
  std::vector<double> base() const;
};

// A random valid point: q a small rigid perturbation of the reference configuration (a
// few mm, a few degrees per body), u⁻ and u⁺ uniform in ±0.5, normal and limit impulses
// in [0, 0.3], friction impulses inside 0.3·λ_n (within the cone of μ ≥ 0.3), other
// impulses in ±0.1, ctrl in ±1, params within ±10 % of their defaults, h in [0.01, 0.05];
// friction_w evaluated from `residual`.
KernelPoint random_kernel_point(const ResidualProgram& prog, std::mt19937_64& rng);

// Evaluates a kernel (by name) at a point; `extra` is appended to the base inputs.
std::vector<double> evaluate_kernel(const ResidualProgram& prog, const std::string& kernel,
                                    const KernelPoint& point,
                                    const std::vector<double>& extra = {});

struct KernelCheck {
  std::string kernel;
  double max_rel_error = 0;  // over every compared entry and sample
  int compared = 0;          // entries compared
  std::string worst;         // where the largest error occurred
};

struct GradcheckReport {
  int samples = 0;
  double max_rel_error = 0;
  std::vector<KernelCheck> kernels;  // jhat, c_diag, mass, diag_a, jvp_exact, vjp_exact, vjp_inputs
  std::string format() const;        // one line per kernel
};

struct GradcheckOptions {
  // Columns (u⁺ entries, λ entries, data entries) differenced per sample and kernel; large
  // models are checked on a random subset. <= 0: all.
  int max_columns = 64;
  double relative_step = 1e-5;
};

// Relative error of an entry: max(0, |k − f| − noise) / (max(|k|, |f|) + 1e-3·max|f| over
// the compared vector + 1e-10), k the kernel's value, f the finite difference and noise
// its rounding error, 100·ε·|residual|/step (what differencing cannot resolve).
GradcheckReport gradcheck_kernels(const ResidualProgram& prog, int samples, uint64_t seed,
                                  const GradcheckOptions& options = {});

}  // namespace talon::ir
