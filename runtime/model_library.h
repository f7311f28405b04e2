// A compiled model unit (codegen/model_unit.h, double precision), loaded: its entry points
// as typed function pointers. The workspace is opaque here (its layout lives in the unit):
// callers allocate workspace_size() bytes per world, aligned for doubles.
#pragma once

#include <cstddef>
#include <string>

#include "runtime/kernel_cache.h"

namespace talon::runtime {

class ModelLibrary {
 public:
  // Resolves NAME_* in `library` (a unit generated with prefix `name` in f64).
  static Expected<ModelLibrary> load(CompiledLibrary library, const std::string& name);

  int step(double* q, double* u, const double* ctrl, const double* params, double h,
           void* workspace) const {
    return step_(q, u, ctrl, params, h, workspace);
  }
  void workspace_init(void* workspace) const { workspace_init_(workspace); }
  void statistics(const void* workspace, double* out) const { statistics_(workspace, out); }
  void contact_gaps(void* workspace, double* gaps) const { contact_gaps_(workspace, gaps); }
  void impulses(const void* workspace, double* out) const { impulses_(workspace, out); }
  void initial_state(double* q, double* u) const { initial_state_(q, u); }
  std::size_t workspace_size() const { return workspace_size_; }
  // The same in doubles, rounded up: what a world's workspace takes in a double array.
  std::size_t workspace_doubles() const {
    return (workspace_size_ + sizeof(double) - 1) / sizeof(double);
  }

  // The backward step (only in units generated with SolverOptions::adjoint_iterations > 0;
  // see NAME_step_backward in the unit's header).
  bool has_backward() const { return step_backward_ != nullptr; }
  int step_backward(const double* q, const double* u, const double* ctrl, const double* params,
                    double h, const double* warm, double* dq, double* du, double* dctrl,
                    double* dparams, void* workspace) const {
    return step_backward_(q, u, ctrl, params, h, warm, dq, du, dctrl, dparams, workspace);
  }
  void warm_start(const void* workspace, double* warm) const { warm_start_(workspace, warm); }
  void set_warm_start(void* workspace, const double* warm) const {
    set_warm_start_(workspace, warm);
  }
  void backward_statistics(const void* workspace, double* out) const {
    backward_statistics_(workspace, out);
  }

  // The Newton trace (only in units generated with SolverOptions::trace_capacity > 0; see
  // NAME_set_trace and NAME_trace in the unit's header).
  bool has_trace() const { return trace_ != nullptr; }
  void set_trace(void* workspace, bool on) const { set_trace_(workspace, on ? 1 : 0); }
  int trace(const void* workspace, double* out) const { return trace_(workspace, out); }
  bool from_cache() const { return library_.from_cache; }
  double build_seconds() const { return library_.build_seconds; }
  const std::filesystem::path& path() const { return library_.path; }
  const std::string& cache_key() const { return library_.key; }  // empty: built uncached

 private:
  explicit ModelLibrary(CompiledLibrary library) : library_(std::move(library)) {}

  CompiledLibrary library_;
  int (*step_)(double*, double*, const double*, const double*, double, void*) = nullptr;
  void (*workspace_init_)(void*) = nullptr;
  void (*statistics_)(const void*, double*) = nullptr;
  void (*contact_gaps_)(void*, double*) = nullptr;
  void (*impulses_)(const void*, double*) = nullptr;
  void (*initial_state_)(double*, double*) = nullptr;
  int (*step_backward_)(const double*, const double*, const double*, const double*, double,
                        const double*, double*, double*, double*, double*, void*) = nullptr;
  void (*warm_start_)(const void*, double*) = nullptr;
  void (*set_warm_start_)(void*, const double*) = nullptr;
  void (*backward_statistics_)(const void*, double*) = nullptr;
  void (*set_trace_)(void*, int) = nullptr;
  int (*trace_)(const void*, double*) = nullptr;
  std::size_t workspace_size_ = 0;
};

}  // namespace talon::runtime
