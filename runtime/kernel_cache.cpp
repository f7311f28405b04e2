#include "runtime/kernel_cache.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "codegen/ir_object.h"
#include "codegen/model_unit.h"
#include "codegen/object_code.h"
#include "codegen/subprocess.h"
#include "common/read_file.h"
#include "ir/fingerprint.h"
#include "runtime/content_hash.h"
#include "runtime/kernel_cache_entries.h"
#include "runtime/verified_entry.h"

namespace talon::runtime {
namespace {

// How often, and how far apart, a process re-reads an entry it has just published when it
// does not match: another process may be between its two renames of the same entry.
constexpr int kVerifyAttempts = 5;
constexpr auto kVerifyPause = std::chrono::milliseconds(20);

std::filesystem::path environment_path(const char* variable) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? std::filesystem::path(value)
                                            : std::filesystem::path();
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

std::string query_compiler_version(const std::string& compiler) {
  Expected<codegen::TemporaryDirectory> scratch =
      codegen::TemporaryDirectory::create(std::filesystem::temp_directory_path(), "talon-cc-");
  if (!scratch) return "unknown";
  const std::string argv[] = {compiler, "--version"};
  Expected<codegen::ProcessResult> run =
      codegen::run_process(argv, scratch->path() / "version.txt");
  if (!run || run->exit_code != 0) return "unknown";
  return first_line(run->output);
}

Diagnostics cache_error(const std::filesystem::path& path, const std::string& message) {
  Diagnostics d;
  d.error({path.string(), 0}, "", message);
  return d;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool in_process(const KernelCacheOptions& options) {
  return options.unit_compiler == UnitCompiler::InProcess;
}

// talon-KEY.a (an archive of the unit's objects) or talon-KEY.so (a shared library).
std::string entry_name(const std::string& key, const KernelCacheOptions& options) {
  return "talon-" + key + (in_process(options) ? ".a" : ".so");
}

// `source` compiled in process, its kernels from the IR when given (codegen/unit_compiler.h),
// the objects in one archive.
Expected<std::string> compile_in_process(std::string_view source,
                                         const codegen::UnitKernels& kernels,
                                         const std::string& name,
                                         const KernelCacheOptions& options) {
  const int jobs = options.build_jobs > 0 ? options.build_jobs
                                          : static_cast<int>(std::thread::hardware_concurrency());
  Expected<std::vector<std::string>> objects =
      codegen::compile_unit_objects(source, kernels, name, jobs, options.in_process);
  if (!objects) return objects.diagnostics();
  return codegen::archive_objects(*objects, name);
}

// Links `object` (named `name` in diagnostics) into the process.
Expected<LoadedUnit> link_object(std::string_view object, const std::string& name) {
  Expected<codegen::ObjectCode> code = codegen::ObjectCode::load(object, name);
  if (!code) return code.diagnostics();
  return LoadedUnit(std::move(*code));
}

Expected<LoadedUnit> open_shared_library(const std::filesystem::path& path) {
  Expected<codegen::SharedLibrary> library = codegen::SharedLibrary::open(path);
  if (!library) return library.diagnostics();
  return LoadedUnit(std::move(*library));
}

// The entry at `path`, loaded once it matches its checksum; otherwise `damage` says why and
// the result is an error that names it. In process the bytes verified are the bytes linked.
Expected<LoadedUnit> open_entry(const std::filesystem::path& path,
                                const KernelCacheOptions& options,
                                std::optional<std::string>& damage) {
  if (in_process(options)) {
    VerifiedBytes entry = read_verified_entry(path);
    damage = std::move(entry.damage);
    if (damage) return cache_error(path, "the cached unit was not loaded: " + *damage);
    return link_object(entry.bytes, path.string());
  }
  damage = entry_damage(path);
  if (damage) return cache_error(path, "the cached library was not loaded: " + *damage);
  return open_shared_library(path);
}

// Builds `source` into the directory `scratch` (for the entry `destination`, named in
// errors) and returns the built file.
Expected<std::filesystem::path> build_unit_file(std::string_view source,
                                                const codegen::UnitKernels& kernels,
                                                const std::filesystem::path& scratch,
                                                const std::filesystem::path& destination,
                                                const KernelCacheOptions& options) {
  if (!in_process(options))
    return codegen::build_shared_library(source, scratch, destination, options.compiler);
  Expected<std::string> object = compile_in_process(source, kernels, destination.string(), options);
  if (!object) return object.diagnostics();
  const std::filesystem::path built = scratch / "unit.a";
  std::ofstream file(built, std::ios::binary);
  file.write(object->data(), static_cast<std::streamsize>(object->size()));
  file.close();
  if (!file) return cache_error(built, "cannot write the compiled unit");
  return built;
}

// A unit built outside the cache: an object linked from memory, or a library in a private
// temporary directory.
Expected<CompiledLibrary> compile_privately(std::string_view source,
                                            const codegen::UnitKernels& kernels,
                                            const KernelCacheOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (in_process(options)) {
    Expected<std::string> object = compile_in_process(source, kernels, "model unit", options);
    if (!object) return object.diagnostics();
    Expected<LoadedUnit> code = link_object(*object, "model unit");
    if (!code) return code.diagnostics();
    return CompiledLibrary{std::move(*code), {}, false, seconds_since(start), {}, {}};
  }
  Expected<codegen::TemporaryDirectory> directory =
      codegen::TemporaryDirectory::create(std::filesystem::temp_directory_path(), "talon-unit-");
  if (!directory) return directory.diagnostics();
  const std::filesystem::path path = directory->path() / "unit.so";
  Expected<std::filesystem::path> built =
      codegen::compile_shared_library(source, path, options.compiler);
  if (!built) return built.diagnostics();
  Expected<LoadedUnit> library = open_shared_library(path);
  if (!library) return library.diagnostics();
  CompiledLibrary out{std::move(*library), path, false, seconds_since(start), {}, {}};
  out.private_directory = std::move(*directory);
  return out;
}

// open_entry, allowing another process that is publishing the same entry to finish its two
// renames: `damage` stays set only when the entry never matched its checksum.
Expected<LoadedUnit> open_entry_soon(const std::filesystem::path& path,
                                     const KernelCacheOptions& options,
                                     std::optional<std::string>& damage) {
  Expected<LoadedUnit> opened = open_entry(path, options, damage);
  for (int attempt = 1; damage && attempt < kVerifyAttempts; ++attempt) {
    std::this_thread::sleep_for(kVerifyPause);
    opened = open_entry(path, options, damage);
  }
  return opened;
}

// Brings the cache back under its cap after `built` joined it. A malformed
// TALON_CACHE_MAX_MB is a note, and the default cap applies.
Diagnostics enforce_size_cap(const KernelCacheOptions& options,
                             const std::filesystem::path& directory,
                             const std::filesystem::path& built) {
  Diagnostics notes;
  std::uintmax_t max_bytes = kDefaultCacheMaxMegabytes << 20;
  if (options.max_bytes) {
    max_bytes = *options.max_bytes;
  } else if (Expected<std::uintmax_t> limit = cache_size_limit(); limit) {
    max_bytes = *limit;
  } else {
    for (const Diagnostic& d : limit.diagnostics().items())
      notes.note({}, "",
                 d.message + "; the kernel cache keeps its default cap of " +
                     std::to_string(kDefaultCacheMaxMegabytes) + " MiB");
  }
  evict_least_recently_used(directory, max_bytes, built);
  return notes;
}

// Compiles `source` into the cache as the entry `key` (replacing a damaged one) and opens
// it; the entry is verified after publishing, like any other.
Expected<CompiledLibrary> build_entry(std::string_view source, const codegen::UnitKernels& kernels,
                                      const KernelCacheOptions& options,
                                      const std::filesystem::path& directory,
                                      const std::string& key, Diagnostics notes) {
  const std::filesystem::path path = directory / entry_name(key, options);
  const auto start = std::chrono::steady_clock::now();
  Expected<codegen::TemporaryDirectory> scratch = codegen::TemporaryDirectory::create(directory);
  if (!scratch) return scratch.diagnostics();
  Expected<std::filesystem::path> built =
      build_unit_file(source, kernels, scratch->path(), path, options);
  if (!built) return built.diagnostics();
  if (Diagnostics published = publish_entry(*built, path); published.has_errors()) return published;
  std::optional<std::string> damage;
  Expected<LoadedUnit> library = open_entry_soon(path, options, damage);
  if (damage) {
    // Another process published a different build of the same source between our two
    // renames (a C compiler whose output is not reproducible), or something damages files
    // in the cache: this run does without it. The next run rebuilds the entry.
    notes.note({path.string(), 0}, "",
               "the cache entry keeps changing under this process; it uses a private build");
    Expected<CompiledLibrary> own = compile_privately(source, kernels, options);
    if (!own) return own.diagnostics();
    return Expected<CompiledLibrary>(std::move(*own), notes);
  }
  if (!library) return library.diagnostics();
  notes.append(enforce_size_cap(options, directory, path));
  return Expected<CompiledLibrary>(
      CompiledLibrary{std::move(*library), path, false, seconds_since(start), {}, key}, notes);
}

}  // namespace

codegen::CCompilerOptions default_unit_compiler() {
  codegen::CCompilerOptions options;
  for (std::string& flag : options.flags)
    if (flag == "-O2") flag = "-O1";
  return options;
}

std::filesystem::path default_cache_directory() {
  if (auto dir = environment_path("TALON_CACHE_DIR"); !dir.empty()) return dir;
  if (auto dir = environment_path("XDG_CACHE_HOME"); !dir.empty()) return dir / "talon";
  if (auto dir = environment_path("HOME"); !dir.empty()) return dir / ".cache" / "talon";
  return std::filesystem::temp_directory_path() / "talon-cache";
}

std::string compiler_identity(const codegen::CCompilerOptions& compiler) {
  static std::mutex mutex;
  static std::map<std::string, std::string> versions;  // one `--version` run per compiler
  std::string version;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = versions.find(compiler.compiler);
    if (it == versions.end())
      it = versions.emplace(compiler.compiler, query_compiler_version(compiler.compiler)).first;
    version = it->second;
  }
  std::string identity = compiler.compiler + " (" + version + ")";
  for (const std::string& flag : compiler.flags) identity += " " + flag;
  for (const std::string& library : compiler.libraries) identity += " " + library;
  return identity;
}

std::string cache_key(std::string_view source, const KernelCacheOptions& options,
                      const codegen::UnitKernels& kernels) {
  std::string compiler = in_process(options)
                             ? codegen::in_process_compiler_identity(options.in_process)
                             : compiler_identity(options.compiler);
  if (kernels.functions.empty()) return content_hash({source, "\n/* built by ", compiler, " */\n"});
  compiler += ", kernels " + kernels.prefix + "* by " + codegen::ir_object_identity();
  const std::string fingerprint = ir::structural_fingerprint(kernels.functions);
  return content_hash({source, "\n/* built by ", compiler, " */\n", fingerprint});
}

Expected<CompiledLibrary> load_or_compile(std::string_view source,
                                          const KernelCacheOptions& options,
                                          const codegen::UnitKernels& kernels) {
  if (!kernels.functions.empty() && !in_process(options))
    return cache_error({}, "kernels built from the IR need the in-process unit compiler");
  if (!options.enabled) return compile_privately(source, kernels, options);
  const std::filesystem::path directory =
      options.directory.empty() ? default_cache_directory() : options.directory;
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error)
    return cache_error(directory, "cannot create the kernel cache directory: " + error.message());
  const std::string key = cache_key(source, options, kernels);
  const std::filesystem::path path = directory / entry_name(key, options);
  Diagnostics notes;
  std::optional<std::string> damage;
  Expected<LoadedUnit> cached = open_entry(path, options, damage);
  if (!damage) {
    if (cached) {
      mark_used(path);
      return CompiledLibrary{std::move(*cached), path, true, 0, {}, key};
    }
    // A library that matches its checksum but does not load is built privately, and the
    // entry left for the user to inspect. One that another process evicted in between is
    // built again below.
    if (std::filesystem::exists(path)) return compile_privately(source, kernels, options);
  } else if (std::filesystem::exists(path)) {
    notes.note({path.string(), 0}, "",
               "the cached library was damaged (" + *damage + "); it has been rebuilt");
  }
  return build_entry(source, kernels, options, directory, key, std::move(notes));
}

}  // namespace talon::runtime
