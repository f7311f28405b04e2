// A model unit in parts (ModelUnitOptions::parts): its kernels grouped by size into parts
// that the runtime compiles in parallel, one translation unit each, from the same text.
//
//   #define TALON_UNIT_PARTS N
//   #if TALON_UNIT_PART_IS(k) && !defined(TALON_KERNELS_FROM_IR)
//                                  the kernels of part k, with external linkage
//   ...                            (rendered as for a shared library's API)
//   #else
//   void talon_kernel_X(const double* restrict in, double* restrict out);   their prototypes
//   #endif
//   #if TALON_UNIT_PART_IS(0)      everything else: tables, loops, the API
//
// With -DTALON_KERNELS_FROM_IR every kernel is a prototype (the runtime builds them from the
// IR: codegen/unit_compiler.h). Compiled with -DTALON_UNIT_PART=k a text is part k; without
// it, every part at once (one
// translation unit, as a C compiler given NAME.c sees it). The kernels are most of a unit's
// code (85 % of the humanoid's 3.8 MB of C) and the compiler's time is spent per function,
// so N parts compile in about 1/N of the time on N cores. The results do not depend on N: a
// kernel is the same code in any part, and a call is not a reordering of floating-point
// operations.
#include <algorithm>
#include <charconv>
#include <numeric>

#include "codegen/c_renderer.h"
#include "codegen/model_unit.h"
#include "codegen/model_unit_parts.h"

namespace talon::codegen {
namespace {

constexpr std::string_view kPartsMacro = "#define TALON_UNIT_PARTS ";

// Which part each of `sizes` goes to, the largest first onto the lightest part (longest
// processing time first); part 0 starts with `part0_size`, the rest of the unit.
std::vector<int> assign_parts(const std::vector<std::size_t>& sizes, int parts,
                              std::size_t part0_size) {
  std::vector<std::size_t> load(parts, 0);
  load[0] = part0_size;
  std::vector<int> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return sizes[a] > sizes[b]; });
  std::vector<int> part(sizes.size(), 0);
  for (int f : order) {
    part[f] = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    load[part[f]] += sizes[f];
  }
  return part;
}

}  // namespace

namespace unit {

Expected<std::string> kernels_in_parts(std::span<const ir::Function> functions,
                                       const CRenderOptions& options, int parts,
                                       std::size_t rest_size) {
  CRenderOptions exported = options;
  exported.exported = true;  // called from part 0's loops
  // Rendered together (one schedule's marks for all; ir/passes/schedule.h); the banner and
  // prelude (<math.h>, which the solver's loops use too) once, in every part.
  Expected<RenderedSource> rendered = render_c(functions, exported);
  if (!rendered) return rendered.diagnostics();
  const std::string_view all = rendered->code;
  const std::string_view prelude =
      all.substr(0, functions.empty() ? all.size() : rendered->functions.front().code_begin);
  std::vector<std::string_view> code;
  std::vector<std::size_t> sizes;
  std::vector<std::string> prototypes;
  for (const RenderedFunction& f : rendered->functions) {
    code.push_back(all.substr(f.code_begin, f.code_end - f.code_begin));
    sizes.push_back(code.back().size());
    prototypes.push_back("void " + f.symbol + "(" + c_parameter_list(exported, "restrict") +
                         ");\n");
  }
  const std::vector<int> part = assign_parts(sizes, parts, rest_size);
  std::string out = std::string(kPartsMacro) + std::to_string(parts) +
                    "\n#ifdef TALON_UNIT_PART\n"
                    "#define TALON_UNIT_PART_IS(k) (TALON_UNIT_PART == (k))\n"
                    "#else\n"
                    "#define TALON_UNIT_PART_IS(k) 1\n"
                    "#endif\n" +
                    std::string(prelude);
  // Written into one buffer of the final size: the humanoid's kernels are megabytes, and
  // every intermediate copy costs its pages' first touch (bench/RESULTS.md, a cache hit).
  std::size_t size = out.size() + 64 * static_cast<std::size_t>(parts);
  for (std::size_t f = 0; f < code.size(); ++f) size += sizes[f] + prototypes[f].size();
  out.reserve(size);
  for (int k = 0; k < parts; ++k) {
    out.append("#if TALON_UNIT_PART_IS(")
        .append(std::to_string(k))
        .append(") && !defined(")
        .append(kKernelsFromIrMacro)
        .append(")\n");
    for (std::size_t f = 0; f < code.size(); ++f)
      if (part[f] == k) out.append(code[f]);
    out += "#else\n";
    for (std::size_t f = 0; f < code.size(); ++f)
      if (part[f] == k) out += prototypes[f];
    out += "#endif\n";
  }
  return out;
}

void append_part0_only(std::string& out, std::string_view text) {
  out.append("#if TALON_UNIT_PART_IS(0)\n").append(text).append("#endif\n");
}

}  // namespace unit

int model_unit_parts(std::string_view source) {
  const std::size_t at = source.find(kPartsMacro);
  if (at == std::string_view::npos) return 1;
  int parts = 1;
  std::from_chars(source.data() + at + kPartsMacro.size(), source.data() + source.size(), parts);
  return std::clamp(parts, 1, kMaxUnitParts);
}

}  // namespace talon::codegen
