// clang's frontend and LLVM's code generator on a C text, in this process: the module
// libtalon_clang.so (codegen/clang_module.h), which codegen/clang_compiler.cpp opens on the
// first compilation. The only file that includes clang's headers besides clang_compiler.cpp's
// version macro.
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Job.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <type_traits>
#include <vector>

#include "codegen/clang_module.h"

namespace talon::codegen {
namespace {

// The unit's name inside clang: the source is remapped to it, never read from disk.
constexpr const char* kSourceName = "talon-unit.c";

// Collects clang's messages as text.
struct MessageSink {
  std::string text;
  llvm::raw_string_ostream stream{text};
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> options{new clang::DiagnosticOptions};
  clang::DiagnosticsEngine engine{
      llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs>(new clang::DiagnosticIDs), options,
      new clang::TextDiagnosticPrinter(stream, options.get()), /*ShouldOwnClient=*/true};

  std::string message() {
    stream.flush();
    return text.empty() ? std::string("clang gave no message") : text;
  }
};

// The frontend (cc1) arguments that `clang -c -x c -fPIC FLAGS talon-unit.c` gets from the
// driver on this host: target, resource and system include directories, PIC. The driver
// only needs clang's path to find its resource directory; nothing is executed.
std::vector<std::string> frontend_arguments(std::span<const std::string> flags,
                                            clang::DiagnosticsEngine& engine) {
  clang::driver::Driver driver(TALON_CLANG_EXECUTABLE, llvm::sys::getProcessTriple(), engine);
  driver.setCheckInputsExist(false);
  std::vector<const char*> argv = {"clang", "-c", "-x", "c", "-fPIC"};
  for (const std::string& flag : flags) argv.push_back(flag.c_str());
  argv.push_back(kSourceName);
  std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
  if (!compilation || compilation->getJobs().size() != 1) return {};
  const clang::driver::Command& job = *compilation->getJobs().begin();
  return {job.getArguments().begin(), job.getArguments().end()};
}

bool compile(std::string_view source, const std::string& name, std::span<const std::string> flags,
             std::string& object, std::string& message) {
  MessageSink messages;
  const std::vector<std::string> arguments = frontend_arguments(flags, messages.engine);
  if (arguments.empty()) {
    message = "clang's driver gave no compile job: " + messages.message();
    return false;
  }
  std::vector<const char*> argv;
  for (const std::string& argument : arguments) argv.push_back(argument.c_str());

  clang::CompilerInstance compiler;
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, argv, messages.engine)) {
    message = "clang rejected its arguments: " + messages.message();
    return false;
  }
  // clang's own driver leaks its AST and its code generator's TargetMachine on purpose (a
  // process that exits anyway); this one lives on and compiles many units.
  invocation->getFrontendOpts().DisableFree = false;
  invocation->getCodeGenOpts().DisableFree = false;
  invocation->getPreprocessorOpts().addRemappedFile(
      kSourceName, llvm::MemoryBuffer::getMemBufferCopy(source, name).release());
  compiler.setInvocation(std::move(invocation));
  compiler.createDiagnostics(
      new clang::TextDiagnosticPrinter(messages.stream, messages.options.get()),
      /*ShouldOwnClient=*/true);

  llvm::SmallVector<char, 0> code;
  compiler.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(code));
  clang::EmitObjAction action;
  if (!compiler.ExecuteAction(action) || code.empty()) {
    message = "the in-process C compiler failed:\n" + messages.message();
    return false;
  }
  object.assign(code.data(), code.size());
  return true;
}

}  // namespace
}  // namespace talon::codegen

extern "C" __attribute__((visibility("default"))) bool talon_clang_compile_c_object(
    std::string_view source, const std::string& name, std::span<const std::string> flags,
    std::string& object, std::string& message) {
  static_assert(
      std::is_same_v<decltype(&talon_clang_compile_c_object), talon::codegen::ClangCompileEntry>);
  return talon::codegen::compile(source, name, flags, object, message);
}
