#include "runtime/simulator.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace talon {
namespace {

// Every generated symbol starts with this; one unit per shared library, loaded RTLD_LOCAL,
// so units of different models never clash.
constexpr const char* kUnitName = "talon_model";

int thread_count(int requested) {
  if (requested > 0) return requested;
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware > 0 ? static_cast<int>(hardware) : 1;
}

// The cache's options, the unit built on as many threads as the worlds step on unless told
// otherwise (`talon simulate --threads 1` keeps to one core).
runtime::KernelCacheOptions build_options(const SimulatorOptions& options) {
  runtime::KernelCacheOptions cache = options.cache;
  if (cache.build_jobs == 0) cache.build_jobs = options.threads;
  return cache;
}

}  // namespace

ir::LowerOptions default_lower_options() {
  return {};
}

codegen::SolverOptions gradient_solver_options() {
  codegen::SolverOptions solver;
  solver.newton_iterations = 32;
  solver.adjoint_iterations = kDefaultAdjointIterations;
  return solver;
}

Expected<Simulator> Simulator::create(Model model, const SimulatorOptions& options) {
  Simulator sim;
  sim.model_ = std::make_unique<Model>(std::move(model));
  const auto start = std::chrono::steady_clock::now();
  Expected<ir::ResidualProgram> program =
      ir::lower_model(*sim.model_, codegen::unit_lower_options(options.lower, options.solver));
  if (!program) return program.diagnostics();
  Diagnostics notes = program.diagnostics();
  sim.program_ = std::make_unique<ir::ResidualProgram>(std::move(*program));
  sim.lower_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Checked before the (long) compilation: the unit's inputs are the unfolded parameters.
  std::vector<double> model_params;
  for (std::size_t i = 0; i < sim.program_->params.size(); ++i)
    model_params.push_back(sim.program_->param_info[i].value);
  Expected<std::vector<double>> params = runtime::apply_param_overrides(
      sim.program_->param_info, std::move(model_params), options.param_overrides);
  if (!params) return params.diagnostics();
  sim.default_params_ = std::move(*params);

  codegen::ModelUnitOptions unit_options;
  unit_options.name = kUnitName;
  unit_options.solver = options.solver;
  // In process the kernels are built from the IR, grouped into objects at build time
  // (codegen/unit_compiler.h); the system compiler builds the whole text.
  unit_options.kernels_from_ir = options.cache.unit_compiler == runtime::UnitCompiler::InProcess;
  Expected<codegen::ModelUnit> unit =
      codegen::generate_model_unit(*sim.model_, *sim.program_, unit_options);
  if (!unit) return unit.diagnostics();
  sim.unit_ = std::move(*unit);
  Expected<runtime::CompiledLibrary> compiled = runtime::load_or_compile(
      sim.unit_.source, build_options(options), {sim.unit_.kernels, sim.unit_.kernel_prefix});
  if (!compiled) return compiled.diagnostics();
  notes.append(compiled.diagnostics());  // e.g. a malformed cache size cap
  Expected<runtime::ModelLibrary> library =
      runtime::ModelLibrary::load(std::move(*compiled), kUnitName);
  if (!library) return library.diagnostics();
  sim.library_ = std::make_unique<runtime::ModelLibrary>(std::move(*library));

  sim.initial_q_.assign(sim.unit_.nq, 0.0);
  std::vector<double> zero_u(sim.unit_.nv);
  sim.library_->initial_state(sim.initial_q_.data(), zero_u.data());
  sim.pool_ = std::make_unique<runtime::ThreadPool>(thread_count(options.threads));
  return Expected<Simulator>(std::move(sim), notes);
}

runtime::WorldBatch Simulator::make_worlds(int count) const {
  runtime::WorldBatch w;
  w.count = std::max(count, 0);
  w.nq = unit_.nq;
  w.nv = unit_.nv;
  w.nctrl = unit_.nctrl;
  w.nparam = unit_.nparam;
  w.nstats = unit_.nstats;
  w.q.reserve(static_cast<std::size_t>(w.count) * w.nq);
  w.params.reserve(static_cast<std::size_t>(w.count) * w.nparam);
  for (int i = 0; i < w.count; ++i) {
    w.q.insert(w.q.end(), initial_q_.begin(), initial_q_.end());
    w.params.insert(w.params.end(), default_params_.begin(), default_params_.end());
  }
  w.u.assign(static_cast<std::size_t>(w.count) * w.nv, 0.0);
  w.ctrl.assign(static_cast<std::size_t>(w.count) * w.nctrl, 0.0);
  w.status.assign(w.count, runtime::kWorldOk);
  w.stats.assign(static_cast<std::size_t>(w.count) * w.nstats, 0.0);
  w.workspace_doubles = library_->workspace_doubles();
  w.workspace.assign(static_cast<std::size_t>(w.count) * w.workspace_doubles, 0.0);
  for (int i = 0; i < w.count; ++i) library_->workspace_init(w.workspace_of(i));
  return w;
}

void Simulator::reset_world(runtime::WorldBatch& worlds, int w) const {
  worlds.status[w] = runtime::kWorldOk;
  library_->workspace_init(worlds.workspace_of(w));
}

void Simulator::step(runtime::WorldBatch& worlds, double h) const {
  // A few chunks per thread balance uneven step costs (contact) without a lock per world.
  const int chunks = std::min(worlds.count, 4 * pool_->threads());
  pool_->parallel_for(chunks, [&](int chunk) {
    const int begin = static_cast<int>(static_cast<long long>(worlds.count) * chunk / chunks);
    const int end = static_cast<int>(static_cast<long long>(worlds.count) * (chunk + 1) / chunks);
    for (int w = begin; w < end; ++w) {
      uint8_t& status = worlds.status[w];
      if (status & runtime::kWorldFailed) continue;
      const int code =
          library_->step(worlds.q_of(w).data(), worlds.u_of(w).data(), worlds.ctrl_of(w).data(),
                         worlds.params_of(w).data(), h, worlds.workspace_of(w));
      double* stats = worlds.stats.data() + static_cast<std::size_t>(w) * worlds.nstats;
      library_->statistics(worlds.workspace_of(w), stats);
      status = code == 1                             ? runtime::kWorldNonFinite
               : code == 2                           ? runtime::kWorldBadStep
               : code == 3                           ? runtime::kWorldDiverged
               : stats[codegen::kStatConverged] != 0 ? runtime::kWorldOk
                                                     : runtime::kWorldNotConverged;
    }
  });
}

void Simulator::rollout(runtime::WorldBatch& worlds, double h, int steps,
                        const std::function<void(int, runtime::WorldBatch&)>& before_step) const {
  for (int k = 0; k < steps; ++k) {
    if (before_step) before_step(k, worlds);
    step(worlds, h);
  }
}

std::vector<double> Simulator::contact_gaps(runtime::WorldBatch& worlds, int w) const {
  std::vector<double> gaps(unit_.ncontacts);
  library_->contact_gaps(worlds.workspace_of(w), gaps.data());
  return gaps;
}

std::vector<double> Simulator::impulses(runtime::WorldBatch& worlds, int w) const {
  std::vector<double> out(unit_.nrows);
  library_->impulses(worlds.workspace_of(w), out.data());
  return out;
}

void Simulator::set_trace(runtime::WorldBatch& worlds, int w, bool on) const {
  TALON_INTERNAL_ASSERT(has_trace(), "set_trace on a unit generated without a trace capacity");
  library_->set_trace(worlds.workspace_of(w), on);
}

NewtonTrace Simulator::newton_trace(runtime::WorldBatch& worlds, int w) const {
  TALON_INTERNAL_ASSERT(has_trace(), "newton_trace on a unit generated without a trace capacity");
  const int width = unit_.trace_width, nblocks = static_cast<int>(unit_.block_names.size());
  std::vector<double> values(static_cast<std::size_t>(unit_.trace_capacity) * width);
  const int count = library_->trace(worlds.workspace_of(w), values.data());
  NewtonTrace out;
  const int kept = std::min(count, unit_.trace_capacity);
  out.dropped = count - kept;
  for (int i = 0; i < kept; ++i) {
    const double* e = values.data() + static_cast<std::size_t>(i) * width;
    const double* blocks = e + codegen::kTraceBlockResiduals;
    NewtonIterate it;
    it.h = e[codegen::kTraceH];
    it.k = static_cast<int>(e[codegen::kTraceIterate]);
    it.merit = e[codegen::kTraceMerit];
    it.step = e[codegen::kTraceStep];
    it.forcing = e[codegen::kTraceForcing];
    it.block_residual.assign(blocks, blocks + nblocks);
    for (const double* body = blocks + nblocks; body < e + width; body += 2) {
      it.body_linear.push_back(body[0]);
      it.body_angular.push_back(body[1]);
    }
    out.iterates.push_back(std::move(it));
  }
  return out;
}

std::vector<double> Simulator::min_contact_gaps(runtime::WorldBatch& worlds) const {
  std::vector<double> out(worlds.count, std::numeric_limits<double>::infinity());
  if (unit_.ncontacts == 0) return out;
  pool_->parallel_for(worlds.count, [&](int w) {
    if (worlds.status[w] & (runtime::kWorldFailed | runtime::kWorldBadStep)) return;
    std::vector<double> gaps(unit_.ncontacts);
    library_->contact_gaps(worlds.workspace_of(w), gaps.data());
    out[w] = *std::min_element(gaps.begin(), gaps.end());
  });
  return out;
}

Expected<Simulator> load(const std::string& path, const SimulatorOptions& options,
                         const LoadOptions& load_options) {
  Expected<Model> model = load_model(path, load_options);
  if (!model) return model.diagnostics();
  Expected<Simulator> sim = Simulator::create(std::move(*model), options);
  if (!sim) {
    Diagnostics all = model.diagnostics();
    all.append(sim.diagnostics());
    return all;
  }
  return sim;
}

}  // namespace talon
