// Object code linked into this process by LLVM's ORC JIT linker: the object files
// codegen/clang_compiler.h produces (and the kernel cache stores), with their references to
// the C library (libm's sin, cos, ...) resolved against this process. The runtime's
// counterpart of a dlopen'ed library (codegen/c_compiler.h's SharedLibrary), without a file.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/expected.h"

namespace talon::codegen {

// The objects of a unit compiled in parts as one ar archive (the kernel cache's entry; `ar t`
// lists part0.o, part1.o, ...), which ObjectCode::load links whole.
Expected<std::string> archive_objects(std::span<const std::string> objects,
                                      const std::string& name);

class ObjectCode {
 public:
  // Links `code`: an ELF object file's bytes, or an ar archive of them (archive_objects);
  // `name` names it in diagnostics.
  static Expected<ObjectCode> load(std::string_view code, const std::string& name);

  // The address of the defined symbol `name`.
  Expected<void*> symbol(const std::string& name) const;

 private:
  ObjectCode(std::shared_ptr<void> jit, std::string name)
      : jit_(std::move(jit)), name_(std::move(name)) {}

  std::shared_ptr<void> jit_;  // the llvm::orc::LLJIT that owns the code
  std::string name_;
};

}  // namespace talon::codegen
