// A compiled model unit's code in this process: an object file linked by ORC (the in-process
// compiler's, codegen/object_code.h) or a dlopen'ed library (the system C compiler's,
// codegen/c_compiler.h). Function pointers from it live as long as it does.
#pragma once

#include <string>
#include <variant>

#include "codegen/c_compiler.h"
#include "codegen/object_code.h"
#include "common/expected.h"

namespace talon::runtime {

class LoadedUnit {
 public:
  explicit LoadedUnit(codegen::ObjectCode code) : code_(std::move(code)) {}
  explicit LoadedUnit(codegen::SharedLibrary library) : code_(std::move(library)) {}

  Expected<void*> symbol(const std::string& name) const {
    return std::visit([&](const auto& code) { return code.symbol(name); }, code_);
  }

  // The symbol as a function pointer of type F. POSIX (and ORC's addresses) make object
  // pointers convertible to function pointers.
  template <class F>
  Expected<F*> function(const std::string& name) const {
    Expected<void*> address = symbol(name);
    if (!address) return address.diagnostics();
    return reinterpret_cast<F*>(*address);
  }

 private:
  std::variant<codegen::ObjectCode, codegen::SharedLibrary> code_;
};

}  // namespace talon::runtime
