// The boundary between the in-process C compiler (clang_compiler.h) and clang's frontend,
// which lives in a module of its own, libtalon_clang.so (clang_frontend.cpp), opened on the
// first compilation. libclang-cpp is large: loaded at every process start it cost each
// `talon` run (a cache hit, `--help`) about 6 ms of dynamic linking that only a cold build
// uses (bench/RESULTS.md, twenty-eighth section).
//
// Both sides are built by the same compiler from the same tree, so C++ types may cross.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace talon::codegen {

// Compiles `source` with clang's frontend run as `clang -c -x c -fPIC FLAGS`, named `name` in
// clang's messages, into the bytes of an ELF object (`object`). False with clang's messages
// (or what failed) in `message`. LLVM's native target must be initialised.
using ClangCompileEntry = bool (*)(std::string_view source, const std::string& name,
                                   std::span<const std::string> flags, std::string& object,
                                   std::string& message);

// The module's exported entry point, of type ClangCompileEntry.
inline constexpr const char* kClangCompileSymbol = "talon_clang_compile_c_object";

}  // namespace talon::codegen
