// api::Worlds: a runtime::WorldBatch and checked access to it.
#include <algorithm>
#include <cmath>

#include "api/impl.h"
#include "codegen/model_unit.h"

namespace talon::api {
namespace {

// Errors unless `world` exists and `values` holds `expected` numbers.
Status check_values(const runtime::WorldBatch& batch, int world, const std::vector<double>& values,
                    int expected, const char* what) {
  if (world < 0 || world >= batch.count)
    return Error{"error: world " + std::to_string(world) + " does not exist (there are " +
                 std::to_string(batch.count) + ")\n"};
  if (values.size() != static_cast<std::size_t>(expected))
    return Error{std::string("error: ") + what + " of a world are " + std::to_string(expected) +
                 " numbers, not " + std::to_string(values.size()) + "\n"};
  return {};
}

void copy_into(const std::vector<double>& values, std::span<double> target) {
  std::copy(values.begin(), values.end(), target.begin());
}

}  // namespace

Worlds::Worlds(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Worlds::Worlds(Worlds&&) noexcept = default;
Worlds& Worlds::operator=(Worlds&&) noexcept = default;
Worlds::~Worlds() = default;

int Worlds::count() const {
  return impl_->batch.count;
}
int Worlds::nq() const {
  return impl_->batch.nq;
}
int Worlds::nv() const {
  return impl_->batch.nv;
}
int Worlds::nctrl() const {
  return impl_->batch.nctrl;
}
int Worlds::nparam() const {
  return impl_->batch.nparam;
}
const std::vector<double>& Worlds::q() const {
  return impl_->batch.q;
}
const std::vector<double>& Worlds::u() const {
  return impl_->batch.u;
}
const std::vector<double>& Worlds::controls() const {
  return impl_->batch.ctrl;
}
const std::vector<double>& Worlds::params() const {
  return impl_->batch.params;
}

std::vector<WorldStatus> Worlds::status() const {
  std::vector<WorldStatus> out;
  for (uint8_t bits : impl_->batch.status) {
    WorldStatus s;
    s.non_finite = bits & runtime::kWorldNonFinite;
    s.diverged = bits & runtime::kWorldDiverged;
    s.not_converged = bits & runtime::kWorldNotConverged;
    s.bad_step = bits & runtime::kWorldBadStep;
    out.push_back(s);
  }
  return out;
}

std::vector<StepStatistics> Worlds::statistics() const {
  std::vector<StepStatistics> out;
  for (int w = 0; w < impl_->batch.count; ++w) {
    const std::span<const double> s = impl_->batch.stats_of(w);
    StepStatistics stats;
    stats.newton_iterations = static_cast<int>(s[codegen::kStatNewtonIterations]);
    stats.pcr_iterations = static_cast<int>(s[codegen::kStatPcrIterations]);
    stats.substeps = static_cast<int>(s[codegen::kStatSubsteps]);
    stats.residual = std::sqrt(s[codegen::kStatMerit]);
    stats.converged = s[codegen::kStatConverged] != 0;
    out.push_back(stats);
  }
  return out;
}

Status Worlds::set_state(int world, const std::vector<double>& q, const std::vector<double>& u) {
  runtime::WorldBatch& batch = impl_->batch;
  if (Status ok = check_values(batch, world, q, batch.nq, "the positions q"); !ok) return ok;
  if (Status ok = check_values(batch, world, u, batch.nv, "the velocities u"); !ok) return ok;
  copy_into(q, batch.q_of(world));
  copy_into(u, batch.u_of(world));
  impl_->sim->reset_world(batch, world);
  return {};
}

Status Worlds::set_controls(int world, const std::vector<double>& controls) {
  runtime::WorldBatch& batch = impl_->batch;
  if (Status ok = check_values(batch, world, controls, batch.nctrl, "the controls"); !ok) return ok;
  copy_into(controls, batch.ctrl_of(world));
  return {};
}

Status Worlds::set_params(int world, const std::vector<double>& params) {
  runtime::WorldBatch& batch = impl_->batch;
  if (Status ok = check_values(batch, world, params, batch.nparam, "the parameters"); !ok)
    return ok;
  copy_into(params, batch.params_of(world));
  return {};
}

}  // namespace talon::api
