#include "codegen/c_compiler.h"

#include <dlfcn.h>

#include <fstream>

#include "codegen/subprocess.h"
#include "codegen/temp_dir.h"

namespace talon::codegen {
namespace {

Diagnostics error_at(const std::filesystem::path& path, std::string element, std::string message) {
  Diagnostics diagnostics;
  diagnostics.error({path.string(), 0}, std::move(element), std::move(message));
  return diagnostics;
}

bool write_text(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  return static_cast<bool>(out);
}

std::vector<std::string> compiler_command(const CCompilerOptions& options,
                                          const std::filesystem::path& source,
                                          const std::filesystem::path& library) {
  std::vector<std::string> argv = {options.compiler};
  argv.insert(argv.end(), options.flags.begin(), options.flags.end());
  argv.insert(argv.end(), {"-o", library.string(), source.string()});
  argv.insert(argv.end(), options.libraries.begin(), options.libraries.end());
  return argv;
}

}  // namespace

Expected<std::filesystem::path> build_shared_library(std::string_view source,
                                                     const std::filesystem::path& scratch,
                                                     const std::filesystem::path& destination,
                                                     const CCompilerOptions& options) {
  const std::filesystem::path source_file = scratch / "source.c";
  const std::filesystem::path library_file = scratch / "library.so";
  if (!write_text(source_file, source)) {
    return error_at(source_file, "", "cannot write the generated C source");
  }
  const std::vector<std::string> argv = compiler_command(options, source_file, library_file);
  Expected<ProcessResult> run = run_process(argv, scratch / "compiler.log");
  if (!run) return run.diagnostics();
  if (run->exit_code != 0) {
    return error_at(destination, options.compiler,
                    "the C compiler failed (exit status " + std::to_string(run->exit_code) +
                        ") running `" + command_line(argv) + "`:\n" + run->output);
  }
  return library_file;
}

Expected<std::filesystem::path> compile_shared_library(std::string_view source,
                                                       const std::filesystem::path& output,
                                                       const CCompilerOptions& options) {
  const std::filesystem::path directory =
      output.has_parent_path() ? output.parent_path() : std::filesystem::path(".");
  Expected<TemporaryDirectory> scratch = TemporaryDirectory::create(directory);
  if (!scratch) return scratch.diagnostics();
  Expected<std::filesystem::path> built =
      build_shared_library(source, scratch->path(), output, options);
  if (!built) return built.diagnostics();
  std::error_code error;
  std::filesystem::rename(*built, output, error);
  if (error) return error_at(output, "", "cannot move the library into place: " + error.message());
  return output;
}

Expected<SharedLibrary> SharedLibrary::open(const std::filesystem::path& path) {
  // RTLD_NOW: unresolved symbols fail here, with a message, not at the first call.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    return error_at(path, "dlopen", reason != nullptr ? reason : "unknown error");
  }
  return SharedLibrary(handle, path);
}

SharedLibrary::SharedLibrary(SharedLibrary&& other) noexcept
    : handle_(other.handle_), path_(std::move(other.path_)) {
  other.handle_ = nullptr;
}

SharedLibrary& SharedLibrary::operator=(SharedLibrary&& other) noexcept {
  if (this != &other) {
    close();
    handle_ = other.handle_;
    path_ = std::move(other.path_);
    other.handle_ = nullptr;
  }
  return *this;
}

SharedLibrary::~SharedLibrary() {
  close();
}

void SharedLibrary::close() {
  if (handle_ != nullptr) dlclose(handle_);
  handle_ = nullptr;
}

Expected<void*> SharedLibrary::symbol(const std::string& name) const {
  dlerror();  // clear a stale error so the one read below is this call's
  void* address = dlsym(handle_, name.c_str());
  const char* reason = dlerror();
  if (reason != nullptr || address == nullptr) {
    return error_at(
        path_, "dlsym",
        "no symbol '" + name + "'" + (reason != nullptr ? std::string(": ") + reason : ""));
  }
  return address;
}

}  // namespace talon::codegen
