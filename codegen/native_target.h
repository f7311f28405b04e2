// LLVM's native target (the host's code generator and assembly printer), registered once per
// process before any code is generated for the host: by the IR JIT (llvm_jit.h), the
// in-process C compiler (clang_compiler.h) and the object linker (object_code.h).
#pragma once

namespace talon::codegen {

// Registers the native target on the first call; false when LLVM has none for this host.
bool initialize_native_target();

}  // namespace talon::codegen
