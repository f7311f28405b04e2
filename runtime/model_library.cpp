#include "runtime/model_library.h"

namespace talon::runtime {
namespace {

// Binds `pointer` to the library's NAME_suffix, recording a failure in `errors`.
template <class F>
void bind_symbol(const LoadedUnit& library, const std::string& symbol, F*& pointer,
                 Diagnostics& errors) {
  Expected<F*> f = library.function<F>(symbol);
  if (f)
    pointer = *f;
  else
    errors.append(f.diagnostics());
}

}  // namespace

Expected<ModelLibrary> ModelLibrary::load(CompiledLibrary library, const std::string& name) {
  ModelLibrary out(std::move(library));
  const LoadedUnit& lib = out.library_.library;
  Diagnostics errors;
  long (*workspace_size)() = nullptr;
  bind_symbol(lib, name + "_step_params", out.step_, errors);
  bind_symbol(lib, name + "_workspace_init", out.workspace_init_, errors);
  bind_symbol(lib, name + "_step_statistics", out.statistics_, errors);
  bind_symbol(lib, name + "_contact_gaps", out.contact_gaps_, errors);
  bind_symbol(lib, name + "_impulses", out.impulses_, errors);
  bind_symbol(lib, name + "_initial_state", out.initial_state_, errors);
  bind_symbol(lib, name + "_workspace_size", workspace_size, errors);
  if (errors.has_errors()) return errors;
  // The backward step is optional: bound all together or not at all.
  Diagnostics missing;
  bind_symbol(lib, name + "_step_backward", out.step_backward_, missing);
  bind_symbol(lib, name + "_warm_start", out.warm_start_, missing);
  bind_symbol(lib, name + "_set_warm_start", out.set_warm_start_, missing);
  bind_symbol(lib, name + "_backward_statistics", out.backward_statistics_, missing);
  if (missing.has_errors()) out.step_backward_ = nullptr;
  Diagnostics no_trace;  // optional too
  bind_symbol(lib, name + "_set_trace", out.set_trace_, no_trace);
  bind_symbol(lib, name + "_trace", out.trace_, no_trace);
  if (no_trace.has_errors()) out.trace_ = nullptr;
  out.workspace_size_ = static_cast<std::size_t>(workspace_size());
  return out;
}

}  // namespace talon::runtime
