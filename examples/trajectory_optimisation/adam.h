// Adam (Kingma & Ba, "Adam: A Method for Stochastic Optimization", ICLR 2015, Algorithm 1)
// with a box projection after each update: the controls stay inside the actuators' range,
// where the clamped control law has a non-zero derivative.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace talon::examples {

struct Adam {
  double learning_rate = 0.5, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  // The learning rate of update t is learning_rate · decay^t: near the optimum the moment
  // estimates keep pushing, and a fixed rate overshoots it.
  double decay = 1;
  double lower = -1e300, upper = 1e300;  // the box every parameter is projected onto

  // x ← Π(x − α m̂ / (√v̂ + ε)), with m and v the bias-corrected moment estimates.
  void update(std::vector<double>& x, const std::vector<double>& gradient) {
    if (m_.size() != x.size()) m_.assign(x.size(), 0.0), v_.assign(x.size(), 0.0);
    ++t_;
    const double correction1 = 1 - std::pow(beta1, t_), correction2 = 1 - std::pow(beta2, t_);
    const double rate = learning_rate * std::pow(decay, t_ - 1);
    for (std::size_t i = 0; i < x.size(); ++i) {
      m_[i] = beta1 * m_[i] + (1 - beta1) * gradient[i];
      v_[i] = beta2 * v_[i] + (1 - beta2) * gradient[i] * gradient[i];
      const double step = rate * (m_[i] / correction1) / (std::sqrt(v_[i] / correction2) + epsilon);
      x[i] = std::clamp(x[i] - step, lower, upper);
    }
  }

 private:
  std::vector<double> m_, v_;
  int t_ = 0;
};

}  // namespace talon::examples
