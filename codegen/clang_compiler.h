// The in-process C compiler: C text (codegen/c_renderer.h, codegen/model_unit.h) -> clang's
// frontend and LLVM's code generator, inside this process -> a relocatable object file in
// memory, which codegen/object_code.h links into the process. The runtime compiles model
// units this way, so it needs no C compiler on PATH; the system C compiler stays for
// `talon compile`'s shipped library (codegen/c_compiler.h).
//
// clang's frontend itself is a module, libtalon_clang.so, opened on the first compilation
// (codegen/clang_module.h); errors (a C error, no native target, no module) are diagnostics
// carrying clang's own messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace talon::codegen {

struct InProcessCompilerOptions {
  // -O1 as the system compiler's unit build (runtime/kernel_cache.h: model units are long
  // straight-line functions); -march=native: the code runs in this process, so it may use
  // this CPU's vector units (the humanoid's Newton update: 22 % faster, bench/RESULTS.md);
  // -ffp-contract=off: no a*b+c -> FMA contraction, so results stay comparable bit for bit
  // with the interpreter (and the same on every CPU).
  std::vector<std::string> flags = {"-O1", "-march=native", "-std=c99", "-ffp-contract=off"};
};

// The host CPU's name and its enabled features, sorted: what -march=native generates code
// for (e.g. "znver2 +adx +aes +avx +avx2 ...").
std::string host_cpu_description();

// The compiler's identity for cache keys: clang's version, the target, the host CPU and its
// features (-march=native generates code for them: an entry made on one machine must not be
// loaded on another that shares the cache directory), and the flags.
std::string in_process_compiler_identity(const InProcessCompilerOptions& options = {});

// Compiles `source` (named `name` in diagnostics) to the bytes of an ELF object file for the
// host CPU, position independent.
Expected<std::string> compile_c_object(std::string_view source, const std::string& name,
                                       const InProcessCompilerOptions& options = {});

}  // namespace talon::codegen
