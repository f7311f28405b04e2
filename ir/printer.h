// Readable dumps of IR functions, for `talon ir --dump` and for debugging passes.
#pragma once

#include <string>

#include "ir/function.h"
#include "ir/passes/schedule.h"

namespace talon::ir {

// The scheduled function, one SSA line per instruction:
//   function f(x, y) -> 2 outputs
//     t0 = input 0 x
//     t1 = const 2
//     t2 = mul t0 t1
//     out0 = t2
std::string dump(const Function& f);

// The same for a bare schedule (variables are named v<id>).
std::string dump(const Schedule& s);

// One expression as nested text, e.g. "add(x, mul(y, 2))"; shared subexpressions are
// repeated, so use it for small expressions (tests, messages). Iterative.
std::string to_string(Expr e);

}  // namespace talon::ir
