// A generated model unit stepped through its public C API (NAME_step, NAME_step_statistics,
// NAME_trace) in its own precision, float or double: compiled in process, its kernels from
// their C text or from the IR (codegen/unit_compiler.h), and linked by ORC (codegen/object_code.h),
// so no C compiler is needed on PATH. What a user's program linking `talon compile`'s library sees.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "codegen/clang_compiler.h"
#include "codegen/model_unit.h"
#include "codegen/object_code.h"
#include "codegen/unit_compiler.h"
#include "ir/lower/lower.h"
#include "runtime/runtime_fixtures.h"

namespace talon::testing {

// One step's outcome, as the unit's caller sees it.
struct UnitStepRecord {
  int status = 0;                  // NAME_step's return value
  std::vector<double> q, u;        // the state after the step
  std::vector<double> statistics;  // NAME_step_statistics (codegen::StepStatistic order)
  bool converged() const { return statistics[codegen::kStatConverged] != 0; }
  int newton_iterations() const {
    return static_cast<int>(statistics[codegen::kStatNewtonIterations]);
  }
};

// The model `file` (models/) generated as a unit in `options.precision` and linked into this
// process; Real must be the unit's NAME_real (float for ir::CPrecision::Float).
template <class Real>
class UnitStepper {
 public:
  UnitStepper(const Model& model, const codegen::ModelUnitOptions& options)
      : code_(load(model, options)) {
    const std::string& n = options.name;
    step_ = function<int(Real*, Real*, const Real*, Real, void*)>(n + "_step");
    statistics_ = function<void(const void*, Real*)>(n + "_step_statistics");
    workspace_init_ = function<void(void*)>(n + "_workspace_init");
    initial_state_ = function<void(Real*, Real*)>(n + "_initial_state");
    const auto size = function<long()>(n + "_workspace_size")();
    workspace_.assign(static_cast<std::size_t>(size) / sizeof(std::max_align_t) + 1, {});
    q_.resize(unit_.nq);
    u_.resize(unit_.nv);
    reset();
    if (unit_.trace_capacity > 0) {
      function<void(void*, int)>(n + "_set_trace")(workspace_.data(), 1);
      trace_ = function<int(const void*, Real*)>(n + "_trace");
    }
  }

  const codegen::ModelUnit& unit() const { return unit_; }
  // Back to the model's initial state with a fresh workspace (no warm start), so that one
  // compiled unit serves several runs.
  void reset() {
    workspace_init_(workspace_.data());
    initial_state_(q_.data(), u_.data());
  }
  void set_velocity(std::span<const double> u) { u_.assign(u.begin(), u.end()); }

  // Advances the state by h with `ctrl` (unit().nctrl values, rounded to Real).
  UnitStepRecord step(std::span<const double> ctrl, double h) {
    const std::vector<Real> c(ctrl.begin(), ctrl.end());
    UnitStepRecord record;
    record.status = step_(q_.data(), u_.data(), c.empty() ? nullptr : c.data(),
                          static_cast<Real>(h), workspace_.data());
    std::vector<Real> statistics(unit_.nstats);
    statistics_(workspace_.data(), statistics.data());
    record.q.assign(q_.begin(), q_.end());
    record.u.assign(u_.begin(), u_.end());
    record.statistics.assign(statistics.begin(), statistics.end());
    return record;
  }

  // The last step's Newton iterates (codegen::TraceValue order), in units with a trace.
  std::vector<std::vector<double>> trace() const {
    std::vector<Real> values(unit_.trace_capacity * unit_.trace_width);
    const int count = std::min(trace_(workspace_.data(), values.data()), unit_.trace_capacity);
    std::vector<std::vector<double>> out;
    for (int i = 0; i < count; ++i)
      out.emplace_back(values.begin() + i * unit_.trace_width,
                       values.begin() + (i + 1) * unit_.trace_width);
    return out;
  }

 private:
  codegen::ObjectCode load(const Model& model, const codegen::ModelUnitOptions& options) {
    Expected<ir::ResidualProgram> program = ir::lower_model(model);
    INFO(program.diagnostics().format());
    REQUIRE(program.ok());
    Expected<codegen::ModelUnit> unit = codegen::generate_model_unit(model, *program, options);
    INFO(unit.diagnostics().format());
    REQUIRE(unit.ok());
    unit_ = std::move(*unit);
    // Its text, and its kernels from the IR (ModelUnitOptions::kernels_from_ir) in parallel,
    // linked from their archive.
    codegen::UnitKernels kernels;
    kernels.functions = unit_.kernels;
    kernels.prefix = unit_.kernel_prefix;
    Expected<std::vector<std::string>> objects = codegen::compile_unit_objects(
        unit_.source, kernels, options.name, 2, codegen::InProcessCompilerOptions());
    unit_.kernels.clear();  // of `program`, which ends here
    INFO(objects.diagnostics().format());
    REQUIRE(objects.ok());
    Expected<std::string> archive = codegen::archive_objects(*objects, options.name);
    INFO(archive.diagnostics().format());
    REQUIRE(archive.ok());
    Expected<codegen::ObjectCode> code = codegen::ObjectCode::load(*archive, options.name);
    INFO(code.diagnostics().format());
    REQUIRE(code.ok());
    return std::move(*code);
  }

  // The unit's symbol `name` as a function pointer (ORC's addresses convert, as POSIX's do).
  template <class F>
  F* function(const std::string& name) const {
    Expected<void*> address = code_.symbol(name);
    INFO(address.diagnostics().format());
    REQUIRE(address.ok());
    return reinterpret_cast<F*>(*address);
  }

  codegen::ModelUnit unit_;
  codegen::ObjectCode code_;
  int (*step_)(Real*, Real*, const Real*, Real, void*) = nullptr;
  void (*workspace_init_)(void*) = nullptr;
  void (*initial_state_)(Real*, Real*) = nullptr;
  void (*statistics_)(const void*, Real*) = nullptr;
  int (*trace_)(const void*, Real*) = nullptr;
  std::vector<std::max_align_t> workspace_;
  std::vector<Real> q_, u_;
};

}  // namespace talon::testing
