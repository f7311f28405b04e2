// api::Simulator: loading and stepping, over talon::Simulator (runtime/simulator.h).
#include <cmath>

#include "api/impl.h"
#include "api/options.h"

namespace talon::api {
namespace {

Status check_step(double h, int steps) {
  if (!(h > 0 && std::isfinite(h))) return Error{"error: h must be a positive number (s)\n"};
  if (steps < 0) return Error{"error: the number of steps must not be negative\n"};
  return {};
}

}  // namespace

Simulator::Impl::Impl(talon::Simulator simulator, const Diagnostics& diagnostics) {
  const Model& model = simulator.model();
  body_names = model.sim_name;
  control_names = model.act_name;
  for (int i = 0; i < simulator.nparam(); ++i)
    param_names.push_back(simulator.program().param_info[i].name);
  for (const Diagnostic& d : diagnostics.items())
    if (d.severity == Severity::Note) notes.push_back(d.format());
  sim = std::make_shared<const talon::Simulator>(std::move(simulator));
}

Simulator::Simulator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;
Simulator::~Simulator() = default;

Result<Simulator> Simulator::load(const std::string& path, const Options& options) {
  Result<SimulatorOptions> simulator_options = api::simulator_options(options);
  if (!simulator_options) return simulator_options.error();
  Result<LoadOptions> load_options = api::load_options(options);
  if (!load_options) return load_options.error();
  try {
    Expected<talon::Simulator> sim = talon::load(path, *simulator_options, *load_options);
    if (!sim) return error_from(sim.diagnostics());
    return Simulator(std::make_unique<Impl>(std::move(*sim), sim.diagnostics()));
  } catch (const InternalError& bug) {
    // A broken invariant inside Talon: the host gets it as an error, not an abort.
    return Error{std::string(bug.what()) + "\n"};
  }
}

const std::string& Simulator::name() const {
  return impl_->sim->model().name;
}
int Simulator::nq() const {
  return impl_->sim->nq();
}
int Simulator::nv() const {
  return impl_->sim->nv();
}
int Simulator::nctrl() const {
  return impl_->sim->nctrl();
}
int Simulator::nparam() const {
  return impl_->sim->nparam();
}
double Simulator::timestep() const {
  return impl_->sim->model().timestep;
}
const std::vector<std::string>& Simulator::body_names() const {
  return impl_->body_names;
}
const std::vector<std::string>& Simulator::control_names() const {
  return impl_->control_names;
}
const std::vector<std::string>& Simulator::param_names() const {
  return impl_->param_names;
}
const std::vector<std::string>& Simulator::notes() const {
  return impl_->notes;
}
bool Simulator::from_cache() const {
  return impl_->sim->library().from_cache();
}
double Simulator::build_seconds() const {
  return impl_->sim->library().build_seconds();
}
std::string Simulator::cache_key() const {
  return impl_->sim->library().cache_key();
}
bool Simulator::has_gradients() const {
  return impl_->sim->has_backward();
}

Worlds Simulator::make_worlds(int count) const {
  auto worlds = std::make_unique<Worlds::Impl>();
  worlds->sim = impl_->sim;
  worlds->batch = impl_->sim->make_worlds(count);
  return Worlds(std::move(worlds));
}

Status Simulator::check(const Worlds& worlds) const {
  if (!worlds.impl_) return Error{"error: these worlds were moved from\n"};
  if (worlds.impl_->sim != impl_->sim)
    return Error{"error: these worlds were made by another Simulator\n"};
  return {};
}

Status Simulator::step(Worlds& worlds, double h) const {
  return rollout(worlds, h, 1);
}

Status Simulator::rollout(Worlds& worlds, double h, int steps,
                          const ControlSchedule& before_step) const {
  if (Status ok = check(worlds); !ok) return ok;
  if (Status ok = check_step(h, steps); !ok) return ok;
  runtime::WorldBatch& batch = worlds.impl_->batch;
  for (int k = 0; k < steps; ++k) {
    if (before_step) before_step(k, worlds);
    impl_->sim->step(batch, h);
  }
  return {};
}

Result<std::vector<double>> Simulator::min_contact_gaps(Worlds& worlds) const {
  if (Status ok = check(worlds); !ok) return ok.error();
  return impl_->sim->min_contact_gaps(worlds.impl_->batch);
}

}  // namespace talon::api
