#include "codegen/clang_compiler.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Job.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <memory>

#include "codegen/native_target.h"

namespace talon::codegen {
namespace {

// The unit's name inside clang: the source is remapped to it, never read from disk.
constexpr const char* kSourceName = "talon-unit.c";

Diagnostics compile_error(const std::string& name, const std::string& message) {
  Diagnostics d;
  d.error({name, 0}, "", message);
  return d;
}

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
std::vector<std::string> frontend_arguments(const InProcessCompilerOptions& options,
                                            clang::DiagnosticsEngine& engine) {
  clang::driver::Driver driver(TALON_CLANG_EXECUTABLE, llvm::sys::getProcessTriple(), engine);
  driver.setCheckInputsExist(false);
  std::vector<const char*> argv = {"clang", "-c", "-x", "c", "-fPIC"};
  for (const std::string& flag : options.flags) argv.push_back(flag.c_str());
  argv.push_back(kSourceName);
  std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
  if (!compilation || compilation->getJobs().size() != 1) return {};
  const clang::driver::Command& job = *compilation->getJobs().begin();
  return {job.getArguments().begin(), job.getArguments().end()};
}

}  // namespace

std::string host_cpu_description() {
  std::string description = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features;
  if (!llvm::sys::getHostCPUFeatures(features)) return description;
  std::vector<std::string> enabled;
  for (const auto& feature : features)
    if (feature.second) enabled.push_back(feature.first().str());
  std::sort(enabled.begin(), enabled.end());
  for (const std::string& feature : enabled) description += " +" + feature;
  return description;
}

std::string in_process_compiler_identity(const InProcessCompilerOptions& options) {
  std::string identity = "clang " CLANG_VERSION_STRING " (in process, " +
                         llvm::sys::getProcessTriple() + ", " + host_cpu_description() + ")";
  for (const std::string& flag : options.flags) identity += " " + flag;
  return identity;
}

Expected<std::string> compile_c_object(std::string_view source, const std::string& name,
                                       const InProcessCompilerOptions& options) {
  if (!initialize_native_target())
    return compile_error(name, "LLVM has no native target for this host");
  MessageSink messages;
  const std::vector<std::string> arguments = frontend_arguments(options, messages.engine);
  if (arguments.empty())
    return compile_error(name, "clang's driver gave no compile job: " + messages.message());
  std::vector<const char*> argv;
  for (const std::string& argument : arguments) argv.push_back(argument.c_str());

  clang::CompilerInstance compiler;
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, argv, messages.engine))
    return compile_error(name, "clang rejected its arguments: " + messages.message());
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

  llvm::SmallVector<char, 0> object;
  compiler.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(object));
  clang::EmitObjAction action;
  if (!compiler.ExecuteAction(action) || object.empty())
    return compile_error(name, "the in-process C compiler failed:\n" + messages.message());
  return std::string(object.data(), object.size());
}

}  // namespace talon::codegen
