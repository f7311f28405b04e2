#include "codegen/native_target.h"

#include <llvm/Support/TargetSelect.h>

#include <mutex>

namespace talon::codegen {

bool initialize_native_target() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] {
    ok = !llvm::InitializeNativeTarget() && !llvm::InitializeNativeTargetAsmPrinter();
  });
  return ok;
}

}  // namespace talon::codegen
