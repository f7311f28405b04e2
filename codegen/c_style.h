// The C-style renderer shared by the C99 and CUDA backends (tinygrad's CStyleLanguage, which
// its CUDARenderer only re-qualifies; Halide's CodeGen_C): IR Functions -> straight-line SSA
// text. A dialect changes only qualifiers, the restrict spelling and the prelude, so both
// backends print every op from the one op table (ir::c_expression / ir::c_literal).
//
// Each Function `name` becomes
//   QUALIFIERS void PREFIXname(const T* RESTRICT in, T* RESTRICT out[, T* RESTRICT work])
// where in[] holds the Function's inputs in order and out[] its outputs in order. Every
// output is stored right after the instruction that computes it. in, out and work must not
// overlap (restrict).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "ir/function.h"
#include "ir/ops.h"
#include "ir/passes/schedule.h"

namespace talon::codegen {

// Where a rendered function keeps its intermediate values.
enum class CStorage : uint8_t {
  // One `const T tN = ...;` per instruction, one line per ir::Instr (CasADi's SX codegen
  // style). The C compiler allocates registers and stack; the default.
  Locals,
  // Intermediates live in a caller-provided `work` array (no malloc, no large stack frame:
  // for very large functions, embedded targets and GPU threads with a small stack). Slots
  // are reused once their last reader has run (linear-scan on the straight-line schedule),
  // so work_size is the schedule's peak number of live values, not its length. Constants and
  // input loads are printed inline and take no work slot. (We reuse slots rather than spill
  // every k-th one: reuse bounds the array by liveness, and a partial spill would still leave
  // the compiler the full local count.) As all state is in memory, long bodies are split into
  // helper functions (see CStyleOptions::statements_per_chunk).
  WorkArray,
};

struct CStyleOptions {
  ir::CPrecision precision = ir::CPrecision::Double;
  std::string prefix;  // prepended to every Function name to form its symbol
  CStorage storage = CStorage::Locals;
  // WorkArray only: a body of more statements is split into helpers SYMBOL_part0,
  // SYMBOL_part1... of at most this many statements, called in order; 0 never splits. C
  // compilers take superlinear time in a function's size: GCC -O2 spent 13 s of CPU on one
  // 20 000-statement function and 7 s on the same as twenty 1 000-statement helpers (250 and
  // 4 000 per helper: 7.7 s and 9.4 s).
  int statements_per_chunk = 1000;
};

// What differs between C-style languages.
struct CStyleDialect {
  std::string_view function_qualifiers;  // e.g. "static inline ", "__device__ __forceinline__ "
  std::string_view helper_qualifiers;    // of the chunk helpers: internal, never inlined
  std::string_view restrict_keyword;     // "restrict" (C99) or "__restrict__" (CUDA, C++)
  std::string_view prelude;              // includes and macros after the banner
};

struct RenderedFunction {
  std::string symbol;  // prefix + name
  int num_inputs = 0;
  int num_outputs = 0;
  int work_size = 0;  // elements of work[] the caller provides (WorkArray storage), else 0
  // Its text in RenderedSource::code, [code_begin, code_end), helpers included.
  std::size_t code_begin = 0;
  std::size_t code_end = 0;
};

struct RenderedSource {
  std::string code;
  std::vector<RenderedFunction> functions;  // in the order the Functions were given
  std::vector<std::string> symbols;         // every function the code defines, helpers too
};

// Schedules and renders `functions`. Fails (with one diagnostic per bad name) when a symbol
// is not a usable C identifier or repeats; see codegen/symbols.h.
Expected<RenderedSource> render_c_style(std::span<const ir::Function> functions,
                                        const CStyleOptions& options, const CStyleDialect& dialect);

// "double" or "float".
const char* c_type_name(ir::CPrecision precision);

// "const double* restrict in, double* restrict out" (+ ", double* restrict work" when the
// storage is WorkArray); an empty restrict keyword leaves it out (prototypes for C++).
std::string c_parameter_list(const CStyleOptions& options, std::string_view restrict_keyword);

// The out[] positions each slot of `s` is stored to, ascending (a slot may be several).
std::vector<std::vector<int>> outputs_by_slot(const ir::Schedule& s);

// Runs of this many consecutive out[] positions or more that take one value are stored by a
// loop (C) or a memset or loop (LLVM IR, codegen/llvm_module.cpp): a program whose contact
// pairs are per-type templates holds zeros in its own kernels where the pairs' rows are
// (ir/lower/pair_templates.h), 12 000 of them in the linearisation of eight boxes on a floor
// and 60 000 in 22 humanoids', which would otherwise be as many lines of C, or one basic
// block of as many stores on which LLVM's DAG combiner took minutes.
inline constexpr int kStoreLoopRun = 4;

// Calls store(begin, count) for each run of consecutive positions in `outputs` (ascending).
template <class Store>
void for_each_output_run(const std::vector<int>& outputs, Store store) {
  for (std::size_t first = 0; first < outputs.size();) {
    std::size_t last = first + 1;
    while (last < outputs.size() && outputs[last] == outputs[last - 1] + 1) ++last;
    store(outputs[first], static_cast<int>(last - first));
    first = last;
  }
}

}  // namespace talon::codegen
