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

  bool from_cache() const { return library_.from_cache; }
  double build_seconds() const { return library_.build_seconds; }
  const std::filesystem::path& path() const { return library_.path; }

 private:
  explicit ModelLibrary(CompiledLibrary library) : library_(std::move(library)) {}

  CompiledLibrary library_;
  int (*step_)(double*, double*, const double*, const double*, double, void*) = nullptr;
  void (*workspace_init_)(void*) = nullptr;
  void (*statistics_)(const void*, double*) = nullptr;
  void (*contact_gaps_)(void*, double*) = nullptr;
  void (*impulses_)(const void*, double*) = nullptr;
  void (*initial_state_)(double*, double*) = nullptr;
  std::size_t workspace_size_ = 0;
};

}  // namespace talon::runtime
