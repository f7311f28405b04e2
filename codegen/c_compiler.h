// The C compiler driver and loader: C text (codegen/c_renderer.h) -> a shared library built
// by the system C compiler -> function pointers through dlopen/dlsym.
//
// The library is built in a temporary directory next to its destination and renamed into
// place (atomic within one file system), so a concurrent reader sees either no file, the old
// library or the complete new one, never a partial file (Warp's kernel cache does the same).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace talon::codegen {

struct CCompilerOptions {
  std::string compiler = "cc";  // looked up on PATH
  // -ffp-contract=off: no a*b+c -> FMA contraction, so results stay comparable bit for bit
  // with the interpreter (GCC already does this in ISO mode; Clang does not).
  std::vector<std::string> flags = {"-O2", "-fPIC", "-shared", "-std=c99", "-ffp-contract=off"};
  std::vector<std::string> libraries = {"-lm"};  // after the source, as the linker wants
};

// The first half of compile_shared_library, for callers that publish the library themselves
// (the kernel cache puts a checksum next to it first): builds `source` into
// `scratch`/library.so and returns that path. `scratch` must exist; `destination` is the
// path the library is meant for, named in the compiler's error.
Expected<std::filesystem::path> build_shared_library(std::string_view source,
                                                     const std::filesystem::path& scratch,
                                                     const std::filesystem::path& destination,
                                                     const CCompilerOptions& options = {});

// Compiles `source` into the shared library `output`, whose directory must exist. The
// compiler's output becomes the diagnostic when it fails.
Expected<std::filesystem::path> compile_shared_library(std::string_view source,
                                                       const std::filesystem::path& output,
                                                       const CCompilerOptions& options = {});

// A dlopen'ed library, closed when the owner goes away (function pointers from it must not
// outlive it). dlopen shares one handle per path name, so a rebuilt library must get a new
// path (the kernel cache names files by content hash) to be seen by a running process.
class SharedLibrary {
 public:
  static Expected<SharedLibrary> open(const std::filesystem::path& path);

  SharedLibrary(SharedLibrary&& other) noexcept;
  SharedLibrary& operator=(SharedLibrary&& other) noexcept;
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary();

  // The address of the exported symbol `name`.
  Expected<void*> symbol(const std::string& name) const;

  // The symbol as a function pointer of type F (e.g. void(const double*, double*)).
  template <class F>
  Expected<F*> function(const std::string& name) const {
    Expected<void*> address = symbol(name);
    if (!address) return address.diagnostics();
    // POSIX guarantees that dlsym's object pointers convert to function pointers.
    return reinterpret_cast<F*>(*address);
  }

  const std::filesystem::path& path() const { return path_; }

 private:
  SharedLibrary(void* handle, std::filesystem::path path)
      : handle_(handle), path_(std::move(path)) {}
  void close();

  void* handle_ = nullptr;
  std::filesystem::path path_;
};

}  // namespace talon::codegen
