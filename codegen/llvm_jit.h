// The CPU JIT: IR Functions -> LLVM IR (emitted directly from the schedule with the LLVM C++
// API) -> the standard O2 pipeline -> native code through ORC LLJIT -> callable functions.
//
// Each Function `name` becomes `void name(const double* in, double* out)` with in/out as in
// the C renderer (noalias: they must not overlap). sqrt and |x| are LLVM intrinsics; sin, cos,
// exp, log, tanh, atan2, fmin and fmax call the libm of the running process, as the
// interpreter does, so results agree with it bit for bit. No FMA contraction.
//
// LLVM's headers stay in llvm_jit.cpp (pimpl), so including this costs nothing. Errors from
// LLVM (no native target, failed verification, unresolved symbols) are diagnostics.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "common/expected.h"
#include "ir/function.h"

namespace talon::codegen {

struct JitOptions {
  bool optimize = true;     // run LLVM's default O2 pipeline before code generation
  bool capture_ir = false;  // keep the (optimised) LLVM IR text, see JitModule::llvm_ir
};

class JitModule;

// One compiled function; keeps its JIT alive, so it stays callable however long it lives.
// Calls are thread-safe (the code is pure).
class JitFunction {
 public:
  using Pointer = void (*)(const double* in, double* out);

  void operator()(const double* in, double* out) const { pointer_(in, out); }
  Pointer pointer() const { return pointer_; }
  const std::string& name() const { return name_; }
  int num_inputs() const { return num_inputs_; }
  int num_outputs() const { return num_outputs_; }

 private:
  friend class JitModule;
  JitFunction(std::shared_ptr<const void> owner, Pointer pointer, std::string name, int num_inputs,
              int num_outputs)
      : owner_(std::move(owner)),
        pointer_(pointer),
        name_(std::move(name)),
        num_inputs_(num_inputs),
        num_outputs_(num_outputs) {}

  std::shared_ptr<const void> owner_;
  Pointer pointer_ = nullptr;
  std::string name_;
  int num_inputs_ = 0;
  int num_outputs_ = 0;
};

// Several functions compiled together into one LLVM module and one JIT.
class JitModule {
 public:
  // Function names must be usable symbols (codegen/symbols.h) and distinct.
  static Expected<JitModule> compile(std::span<const ir::Function> functions,
                                     const JitOptions& options = {});

  // The compiled function named `name`.
  Expected<JitFunction> function(const std::string& name) const;

  // The LLVM IR text after optimisation; empty unless JitOptions::capture_ir.
  const std::string& llvm_ir() const;

 private:
  struct Impl;
  explicit JitModule(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

  std::shared_ptr<Impl> impl_;
};

// Compiles one function (a module of its own).
Expected<JitFunction> jit_compile(const ir::Function& function, const JitOptions& options = {});

}  // namespace talon::codegen
