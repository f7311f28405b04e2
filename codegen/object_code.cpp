#include "codegen/object_code.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>

#include "codegen/native_target.h"

namespace talon::codegen {
namespace {

Diagnostics link_error(const std::string& name, const std::string& why) {
  Diagnostics d;
  d.error({name, 0}, "", "cannot link the compiled unit: " + why);
  return d;
}

Diagnostics link_error(const std::string& name, llvm::Error error) {
  return link_error(name, llvm::toString(std::move(error)));
}

}  // namespace

Expected<ObjectCode> ObjectCode::load(std::string_view object, const std::string& name) {
  if (!initialize_native_target())
    return link_error(name, "LLVM has no native target for this host");
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit = llvm::orc::LLJITBuilder().create();
  if (!jit) return link_error(name, jit.takeError());
  // Undefined symbols (libm, memset) resolve against this process, as dlopen would.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return link_error(name, process.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  if (llvm::Error added = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(object.data(), object.size()), name)))
    return link_error(name, std::move(added));
  return ObjectCode(std::shared_ptr<llvm::orc::LLJIT>(std::move(*jit)), name);
}

Expected<void*> ObjectCode::symbol(const std::string& name) const {
  auto* jit = static_cast<llvm::orc::LLJIT*>(jit_.get());
  llvm::Expected<llvm::JITEvaluatedSymbol> found = jit->lookup(name);
  if (!found) {
    Diagnostics d;
    d.error({name_, 0}, "",
            "symbol '" + name + "' not found: " + llvm::toString(found.takeError()));
    return d;
  }
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(found->getAddress()));
}

}  // namespace talon::codegen
