// The C99 renderer: IR Functions -> a freestanding C99 translation unit (only <math.h>),
// compiled by the system compiler (codegen/c_compiler.h) or shipped to embedded targets.
//
// The text compiles cleanly with `-std=c99 -pedantic -Wall -Wextra -Werror`. Each Function
// `name` becomes (T = double or float)
//   static inline void PREFIXname(const T* restrict in, T* restrict out)
// (without `static inline` when exported), see codegen/c_style.h for the body and the
// optional work array.
#pragma once

#include <span>

#include "codegen/c_style.h"

namespace talon::codegen {

struct CRenderOptions : CStyleOptions {
  // false: `static inline` functions, for #including into the caller's translation unit.
  // true: external linkage, the API of a shared library (see render_c_header).
  bool exported = false;
};

Expected<RenderedSource> render_c(std::span<const ir::Function> functions,
                                  const CRenderOptions& options = {});

// A header for exported rendered code: a prototype per function (without restrict, which
// does not change the function type, so the header also serves C++ through extern "C"), and
// SYMBOL_NUM_INPUTS / SYMBOL_NUM_OUTPUTS / SYMBOL_WORK_SIZE macros.
std::string render_c_header(const RenderedSource& source, const CStyleOptions& options);

}  // namespace talon::codegen
