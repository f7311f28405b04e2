// Checks on the symbol names the backends emit (C, CUDA and LLVM share one rule set).
//
// A symbol is the renderer's prefix followed by an ir::Function's name. Both can come from
// user input (a model's name, a `--prefix` option), so a bad name is a diagnostic, not an
// assert: the generated code must never fail to compile, or silently call the wrong
// function, because of a name.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "common/diagnostics.h"

namespace talon::codegen {

// A plain C identifier: [A-Za-z_][A-Za-z0-9_]*.
bool is_c_identifier(std::string_view name);

// Appends an error for every symbol that is not a C identifier, is a C99 / CUDA keyword,
// is reserved to the implementation (leading "__" or "_" + capital, C99 §7.1.3), shadows a
// libm function the generated code calls (a JIT module defining `sin` would capture every
// call to sin), or repeats an earlier symbol. Returns true when all are usable.
bool check_symbols(std::span<const std::string> symbols, Diagnostics& diagnostics);

}  // namespace talon::codegen
