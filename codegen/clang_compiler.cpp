#include "codegen/clang_compiler.h"

#include <dlfcn.h>

#include <clang/Basic/Version.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Support/Host.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "codegen/clang_module.h"
#include "codegen/native_target.h"

namespace talon::codegen {
namespace {

Diagnostics compile_error(const std::string& name, const std::string& message) {
  Diagnostics d;
  d.error({name, 0}, "", message);
  return d;
}

// Where libtalon_clang.so may be, in order: installed beside libtalon.so
// (LIBDIR/talon/), installed beside the `talon` command (BINDIR/../LIBDIR/talon/), and in
// the build tree this code was built in.
std::vector<std::filesystem::path> module_candidates() {
  std::vector<std::filesystem::path> out;
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&module_candidates), &info) != 0 &&
      info.dli_fname != nullptr && *info.dli_fname != '\0') {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::weakly_canonical(info.dli_fname, error);
    if (!error) {
      const std::filesystem::path file = std::filesystem::path(TALON_CLANG_MODULE).filename();
      out.push_back(self.parent_path() / "talon" / file);
      out.push_back(self.parent_path().parent_path() / TALON_INSTALL_LIBDIR / "talon" / file);
    }
  }
  out.push_back(TALON_CLANG_MODULE);
  return out;
}

struct ClangModule {
  ClangCompileEntry compile = nullptr;
  std::string error;  // why there is none
};

ClangModule open_clang_module() {
  ClangModule module;
  module.error = "the in-process C compiler's module was not found or did not load:";
  for (const std::filesystem::path& path : module_candidates()) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
      module.error += "\n  " + path.string() + ": no such file";
      continue;
    }
    // Never closed: its code is in use as long as the process compiles.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = ::dlerror();
      module.error += "\n  " + path.string() + ": " + (why != nullptr ? why : "dlopen failed");
      continue;
    }
    module.compile = reinterpret_cast<ClangCompileEntry>(::dlsym(handle, kClangCompileSymbol));
    if (module.compile != nullptr) return module;
    module.error += "\n  " + path.string() + ": no " + kClangCompileSymbol;
  }
  return module;
}

// Opened once per process, on the first compilation.
const ClangModule& clang_module() {
  static const ClangModule module = open_clang_module();
  return module;
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
  const ClangModule& module = clang_module();
  if (module.compile == nullptr) return compile_error(name, module.error);
  std::string object, message;
  if (!module.compile(source, name, options.flags, object, message))
    return compile_error(name, message);
  return object;
}

}  // namespace talon::codegen
