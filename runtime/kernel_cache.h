// The on-disk kernel cache: compiled model units keyed by a content hash (SHA-256) of (the
// unit's C text — which holds the model's IR as rendered kernels and every solver option —
// and the C compiler's identity and flags). By default a unit is built in process
// (codegen/unit_compiler.h: its kernels from the IR, the rest by clang's frontend) in
// parallel, to an archive of its object files, talon-KEY.a, that ORC links into the process
// (codegen/object_code.h): no C compiler on PATH is needed. With UnitCompiler::System the
// system C compiler builds a shared library, talon-KEY.so, that is dlopen'ed. An entry is
// built in a temporary directory next to its final name and renamed into place after its
// checksum file (runtime/verified_entry.h),
// so concurrent processes see either no file or a complete one (Warp's kernel cache does the
// same). A library is loaded only once its length and SHA-256 match its checksum file; a
// damaged entry (truncated, overwritten, without checksum) is rebuilt, with a note, instead
// of crashing the process inside dlopen.
//
// Location: $TALON_CACHE_DIR, else $XDG_CACHE_HOME/talon, else $HOME/.cache/talon, else
// <temp>/talon-cache. Size: after each new entry the least recently used ones go until the
// cache is within its cap (runtime/kernel_cache_entries.h; $TALON_CACHE_MAX_MB, 1 GiB).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "codegen/c_compiler.h"
#include "codegen/clang_compiler.h"
#include "codegen/temp_dir.h"
#include "codegen/unit_compiler.h"
#include "common/expected.h"
#include "runtime/loaded_unit.h"

namespace talon::runtime {

// -O1 rather than the compiler driver's -O2: model units are long straight-line functions,
// which GCC compiles about 3x faster at -O1 (40 s instead of 120 s for the three-wheeler)
// for a small difference in speed.
codegen::CCompilerOptions default_unit_compiler();

// Who compiles a unit: clang inside this process (an object file, linked by ORC), or the
// system C compiler (a shared library, dlopen'ed).
enum class UnitCompiler { InProcess, System };

struct KernelCacheOptions {
  bool enabled = true;                      // false: build privately, outside the cache
  std::filesystem::path directory;          // empty: default_cache_directory()
  std::optional<std::uintmax_t> max_bytes;  // empty: cache_size_limit()
  UnitCompiler unit_compiler = UnitCompiler::InProcess;
  codegen::InProcessCompilerOptions in_process;                  // UnitCompiler::InProcess
  codegen::CCompilerOptions compiler = default_unit_compiler();  // UnitCompiler::System
  // In process: threads that build a unit's kernels from the IR (0: one per hardware thread,
  // at most codegen::kMaxBuildJobs). Not part of the key: the unit is the same code however
  // its kernels are grouped into objects.
  int build_jobs = 0;
};

std::filesystem::path default_cache_directory();

// The first line of `COMPILER --version` and the flags: part of every cache key, so a new
// compiler or new flags never reuse an old library.
std::string compiler_identity(const codegen::CCompilerOptions& compiler);

struct CompiledLibrary {
  LoadedUnit library;
  std::filesystem::path path;  // the cache entry (empty for an object built privately)
  bool from_cache = false;     // true: no compilation happened
  double build_seconds = 0;    // time spent compiling (0 on a hit)
  // Holds the library file while it is open when the cache is disabled (dlopen shares one
  // handle per path name, so a path must not be reused while the library is loaded).
  std::optional<codegen::TemporaryDirectory> private_directory;
  std::string key;  // the cache key (cache_key); empty when the cache is disabled
};

// The content hash a unit's library is cached under: its source and the identity of the
// compiler `options` choose; with `kernels` (built from the IR, in process), also their
// structural fingerprint (ir/fingerprint.h) and the identity of what builds them
// (codegen/ir_object.h). Their C is never rendered for the key.
std::string cache_key(std::string_view source, const KernelCacheOptions& options = {},
                      const codegen::UnitKernels& kernels = {});

// The library of `source`: from the cache when present and verified, else compiled (and
// cached; replacing a damaged entry, with a note). `kernels` (the unit's, with
// ModelUnitOptions::kernels_from_ir: the source only declares them) are built from the IR,
// in process only; the system compiler builds a whole text.
Expected<CompiledLibrary> load_or_compile(std::string_view source,
                                          const KernelCacheOptions& options = {},
                                          const codegen::UnitKernels& kernels = {});

}  // namespace talon::runtime
