// Object code linked into this process by LLVM's ORC JIT linker: the object files
// codegen/clang_compiler.h produces (and the kernel cache stores), with their references to
// the C library (libm's sin, cos, ...) resolved against this process. The runtime's
// counterpart of a dlopen'ed library (codegen/c_compiler.h's SharedLibrary), without a file.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/expected.h"

namespace talon::codegen {

class ObjectCode {
 public:
  // Links `object` (an ELF object file's bytes); `name` names it in diagnostics.
  static Expected<ObjectCode> load(std::string_view object, const std::string& name);

  // The address of the defined symbol `name`.
  Expected<void*> symbol(const std::string& name) const;

 private:
  ObjectCode(std::shared_ptr<void> jit, std::string name)
      : jit_(std::move(jit)), name_(std::move(name)) {}

  std::shared_ptr<void> jit_;  // the llvm::orc::LLJIT that owns the code
  std::string name_;
};

}  // namespace talon::codegen
