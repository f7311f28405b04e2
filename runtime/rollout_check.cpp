#include "runtime/rollout_check.h"

#include <algorithm>
#include <cmath>

namespace talon {
namespace {

double linear_loss(const RolloutSetup& s, runtime::WorldBatch& w, int world) {
  double loss = 0;
  for (std::size_t i = 0; i < s.wq.size(); ++i) loss += s.wq[i] * w.q_of(world)[i];
  for (std::size_t i = 0; i < s.wu.size(); ++i) loss += s.wu[i] * w.u_of(world)[i];
  return loss;
}

// The adjoint gradient of every input (one world).
Expected<int> adjoint(const Simulator& sim, const RolloutSetup& s,
                      const std::vector<RolloutInput>& inputs, RolloutCheck& out) {
  runtime::WorldBatch one = sim.make_worlds(1);
  if (s.initial) s.initial(one, 0);
  const RolloutTape tape = sim.record_rollout(one, s.h, s.steps, s.controls);
  if (tape.status[0] & runtime::kWorldFailed)
    return Diagnostics::single_error("the unperturbed rollout failed (non-finite or diverged)");
  for (uint8_t status : tape.step_status)
    out.unconverged_steps += (status & runtime::kWorldNotConverged) != 0;
  out.loss = linear_loss(s, one, 0);
  Expected<RolloutGradient> g =
      sim.rollout_backward(tape, [&](int k, int, std::span<const double>, std::span<const double>,
                                     std::span<double> dq, std::span<double> du) {
        if (k != s.steps) return;
        for (std::size_t i = 0; i < s.wq.size(); ++i) dq[i] += s.wq[i];
        for (std::size_t i = 0; i < s.wu.size(); ++i) du[i] += s.wu[i];
      });
  if (!g) return g.diagnostics();
  if (g->code[0] != 0)
    return Diagnostics::single_error("the backward sweep failed at step " +
                                     std::to_string(g->failed_step[0]));
  for (const RolloutInput& in : inputs) {
    switch (in.kind) {
      case RolloutInput::U0:
        out.adjoint.push_back(g->du0[in.index]);
        break;
      case RolloutInput::Q0:
        out.adjoint.push_back(g->dq0[in.index]);
        break;
      case RolloutInput::Param:
        out.adjoint.push_back(g->dparams[in.index]);
        break;
      case RolloutInput::Ctrl:
        out.adjoint.push_back(g->dctrl[static_cast<std::size_t>(in.step) * sim.nctrl() + in.index]);
        break;
    }
  }
  return 0;
}

}  // namespace

std::string RolloutInput::label() const {
  const char* names[] = {"u0", "q0", "param", "ctrl"};
  return std::string(names[kind]) + "[" + std::to_string(index) + "]" +
         (kind == Ctrl ? "@" + std::to_string(step) : "");
}

double RolloutCheck::max_relative_error(double floor) const {
  if (floor < 0) {
    double largest = 0;
    for (double d : difference) largest = std::max(largest, std::abs(d));
    floor = 1e-3 * largest;
  }
  double worst = 0;
  for (std::size_t i = 0; i < adjoint.size(); ++i)
    worst = std::max(worst, std::abs(adjoint[i] - difference[i]) /
                                std::max({std::abs(difference[i]), floor, 1e-300}));
  return worst;
}

double RolloutCheck::cosine() const {
  double ad = 0, aa = 0, dd = 0;
  for (std::size_t i = 0; i < adjoint.size(); ++i) {
    ad += adjoint[i] * difference[i];
    aa += adjoint[i] * adjoint[i];
    dd += difference[i] * difference[i];
  }
  return aa > 0 && dd > 0 ? ad / std::sqrt(aa * dd) : (aa == dd ? 1.0 : 0.0);
}

Expected<RolloutCheck> check_rollout_gradients(const Simulator& sim, const RolloutSetup& s,
                                               const std::vector<RolloutInput>& inputs) {
  RolloutCheck out;
  if (s.wq.size() > static_cast<std::size_t>(7 * sim.model().nsim) ||
      s.wu.size() > static_cast<std::size_t>(6 * sim.model().nsim))
    return Diagnostics::single_error("the loss weights are longer than the state (" +
                                     std::to_string(7 * sim.model().nsim) + " q, " +
                                     std::to_string(6 * sim.model().nsim) + " u entries)");
  for (const RolloutInput& in : inputs) out.labels.push_back(in.label());
  Expected<int> done = adjoint(sim, s, inputs, out);
  if (!done) return done.diagnostics();
  const int n = static_cast<int>(inputs.size());
  runtime::WorldBatch w = sim.make_worlds(2 * n);
  const auto nudge = [&](int world) {
    return world % 2 == 0 ? inputs[world / 2].epsilon : -inputs[world / 2].epsilon;
  };
  for (int i = 0; i < 2 * n; ++i) {
    if (s.initial) s.initial(w, i);
    const RolloutInput& in = inputs[i / 2];
    if (in.kind == RolloutInput::U0) w.u_of(i)[in.index] += nudge(i);
    if (in.kind == RolloutInput::Q0) w.q_of(i)[in.index] += nudge(i);
    if (in.kind == RolloutInput::Param) w.params_of(i)[in.index] += nudge(i);
  }
  // Every step starts from the controls the worlds were set up with, so that a nudge at step
  // k acts at step k only, as the adjoint's input does: a schedule that sets no control (or
  // only some) would otherwise carry it into every later step.
  const std::vector<double> initial_controls = w.ctrl;
  sim.rollout(w, s.h, s.steps, [&](int k, runtime::WorldBatch& worlds) {
    std::copy(initial_controls.begin(), initial_controls.end(), worlds.ctrl.begin());
    if (s.controls) s.controls(k, worlds);
    for (int i = 0; i < 2 * n; ++i) {
      const RolloutInput& in = inputs[i / 2];
      if (in.kind == RolloutInput::Ctrl && in.step == k) worlds.ctrl_of(i)[in.index] += nudge(i);
    }
  });
  for (int i = 0; i < n; ++i) {
    if ((w.status[2 * i] | w.status[2 * i + 1]) & runtime::kWorldFailed)
      return Diagnostics::single_error("the rollout nudged along " + out.labels[i] +
                                       " failed (non-finite or diverged)");
    out.difference.push_back((linear_loss(s, w, 2 * i) - linear_loss(s, w, 2 * i + 1)) /
                             (2 * inputs[i].epsilon));
  }
  return out;
}

}  // namespace talon
