#include "codegen/object_code.h"

#include <llvm/ExecutionEngine/JITEventListener.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/SectionMemoryManager.h>
#include <llvm/Object/Archive.h>
#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cstdlib>

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

llvm::StringRef string_ref(std::string_view text) {
  return llvm::StringRef(text.data(), text.size());
}

// Adds the objects of `code` (one object, or an archive of them) to `jit`.
llvm::Error add_objects(llvm::orc::LLJIT& jit, std::string_view code, const std::string& name) {
  if (!code.starts_with(llvm::object::ArchiveMagic))
    return jit.addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(string_ref(code), name));
  llvm::Expected<std::unique_ptr<llvm::object::Archive>> archive =
      llvm::object::Archive::create(llvm::MemoryBufferRef(string_ref(code), name));
  if (!archive) return archive.takeError();
  llvm::Error error = llvm::Error::success();
  for (const llvm::object::Archive::Child& child : (*archive)->children(error)) {
    llvm::Expected<llvm::MemoryBufferRef> member = child.getMemoryBufferRef();
    if (!member) return member.takeError();
    if (llvm::Error added = jit.addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
            member->getBuffer(), name + "(" + member->getBufferIdentifier().str() + ")")))
      return added;
  }
  return error;
}

// With TALON_PERF_JIT set, the linked code is announced to perf (LLVM's perf listener writes
// a jit-PID.dump that `perf inject --jit` reads), so that a profile of a run names every
// function of the unit, the static ones too (docs/development.md, "Profiling"). The layer is
// LLJIT's own default on ELF, RuntimeDyld with a SectionMemoryManager, with the listener
// registered.
llvm::orc::LLJITBuilder jit_builder() {
  llvm::orc::LLJITBuilder builder;
  const char* perf = std::getenv("TALON_PERF_JIT");
  if (perf == nullptr || *perf == '\0') return builder;
  builder.setObjectLinkingLayerCreator(
      [](llvm::orc::ExecutionSession& session, const llvm::Triple&) {
        auto layer = std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
            session, [] { return std::make_unique<llvm::SectionMemoryManager>(); });
        // One listener per process, never freed: it owns the dump file perf reads.
        static llvm::JITEventListener* const listener =
            llvm::JITEventListener::createPerfJITEventListener();
        if (listener != nullptr) layer->registerJITEventListener(*listener);
        return llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>>(std::move(layer));
      });
  return builder;
}

}  // namespace

Expected<std::string> archive_objects(std::span<const std::string> objects,
                                      const std::string& name) {
  std::vector<std::string> member_names;
  for (std::size_t k = 0; k < objects.size(); ++k)
    member_names.push_back("part" + std::to_string(k) + ".o");
  std::vector<llvm::NewArchiveMember> members;
  for (std::size_t k = 0; k < objects.size(); ++k)
    members.emplace_back(llvm::MemoryBufferRef(string_ref(objects[k]), member_names[k]));
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> archive = llvm::writeArchiveToBuffer(
      members, /*WriteSymtab=*/true, llvm::object::Archive::K_GNU, /*Deterministic=*/true,
      /*Thin=*/false);
  if (!archive) return link_error(name, archive.takeError());
  return std::string((*archive)->getBuffer());
}

Expected<ObjectCode> ObjectCode::load(std::string_view code, const std::string& name) {
  if (!initialize_native_target())
    return link_error(name, "LLVM has no native target for this host");
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit = jit_builder().create();
  if (!jit) return link_error(name, jit.takeError());
  // Undefined symbols (libm, memset) resolve against this process, as dlopen would.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return link_error(name, process.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  if (llvm::Error added = add_objects(**jit, code, name)) return link_error(name, std::move(added));
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
