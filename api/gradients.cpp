// api::Simulator::record_rollout and backward, over runtime/rollout_gradient.h.
#include <cmath>

#include "api/impl.h"

namespace talon::api {

Rollout::Rollout(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Rollout::Rollout(Rollout&&) noexcept = default;
Rollout& Rollout::operator=(Rollout&&) noexcept = default;
Rollout::~Rollout() = default;

int Rollout::steps() const {
  return impl_->tape.steps;
}
int Rollout::worlds() const {
  return impl_->tape.worlds;
}
double Rollout::h() const {
  return impl_->tape.h;
}
std::size_t Rollout::bytes_per_world() const {
  return impl_->tape.bytes_per_world();
}
const std::vector<double>& Rollout::final_q() const {
  return impl_->tape.final_q;
}
const std::vector<double>& Rollout::final_u() const {
  return impl_->tape.final_u;
}

Result<Rollout> Simulator::record_rollout(Worlds& worlds, double h, int steps,
                                          const ControlSchedule& before_step,
                                          int checkpoint_every) const {
  if (!has_gradients())
    return Error{"error: record_rollout needs a model loaded with Options::gradients\n"};
  if (Status ok = check(worlds); !ok) return ok.error();
  if (!(h > 0 && std::isfinite(h))) return Error{"error: h must be a positive number (s)\n"};
  if (steps < 0 || checkpoint_every < 1)
    return Error{"error: steps must not be negative and checkpoint_every at least 1\n"};
  auto rollout = std::make_unique<Rollout::Impl>();
  rollout->sim = impl_->sim;
  // The runtime passes the batch it steps, which is `worlds`' own: hand the host its Worlds.
  rollout->tape = impl_->sim->record_rollout(
      worlds.impl_->batch, h, steps,
      [&](int k, runtime::WorldBatch&) {
        if (before_step) before_step(k, worlds);
      },
      checkpoint_every);
  return Rollout(std::move(rollout));
}

Result<Gradient> Simulator::backward(const Rollout& rollout, const StateLoss& loss) const {
  if (!rollout.impl_ || rollout.impl_->sim != impl_->sim)
    return Error{"error: this rollout was recorded by another Simulator\n"};
  StateCotangent cotangent;
  if (loss)
    cotangent = [&loss](int k, int world, std::span<const double> q, std::span<const double> u,
                        std::span<double> dq, std::span<double> du) {
      loss(k, world, q.data(), u.data(), dq.data(), du.data());
    };
  Expected<RolloutGradient> gradient = impl_->sim->rollout_backward(rollout.impl_->tape, cotangent);
  if (!gradient) return error_from(gradient.diagnostics());
  Gradient out;
  out.dq0 = std::move(gradient->dq0);
  out.du0 = std::move(gradient->du0);
  out.dctrl = std::move(gradient->dctrl);
  out.dparams = std::move(gradient->dparams);
  out.failed_step = std::move(gradient->failed_step);
  out.max_adjoint_residual = gradient->max_adjoint_residual;
  return out;
}

}  // namespace talon::api
