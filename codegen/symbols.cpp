#include "codegen/symbols.h"

#include <algorithm>
#include <array>
#include <set>

#include "ir/ops.h"

namespace talon::codegen {
namespace {

// C99 keywords (§6.4.1), the C++/CUDA words that would break the CUDA translation unit, and
// the names the rendered functions and CUDA kernels use inside their bodies.
constexpr std::array kReservedWords = {
    "auto",     "break",      "case",      "char",     "const",    "continue", "default",
    "do",       "double",     "else",      "enum",     "extern",   "float",    "for",
    "goto",     "if",         "inline",    "int",      "long",     "register", "restrict",
    "return",   "short",      "signed",    "sizeof",   "static",   "struct",   "switch",
    "typedef",  "union",      "unsigned",  "void",     "volatile", "while",    "_Bool",
    "_Complex", "_Imaginary", "bool",      "class",    "delete",   "new",      "operator",
    "private",  "protected",  "public",    "template", "this",     "throw",    "try",
    "catch",    "namespace",  "using",     "virtual",  "true",     "false",    "nullptr",
    "in",       "out",        "work",      "count",    "world",    "INFINITY", "main",
    "blockIdx", "blockDim",   "threadIdx", "gridDim",
};

bool is_reserved_word(std::string_view name) {
  return std::find(kReservedWords.begin(), kReservedWords.end(), name) != kReservedWords.end();
}

// The libm names any emitter may call, in both precisions, taken from the op table so that a
// new op cannot be forgotten here.
bool is_libm_name(std::string_view name) {
  for (int i = 0; i < ir::kNumOps; ++i) {
    const ir::OpInfo& info = ir::op_info(static_cast<ir::Op>(i));
    if (info.c_form != ir::CForm::Call) continue;
    std::string_view base = info.c_name;
    if (name == base) return true;
    if (name.size() == base.size() + 1 && name.substr(0, base.size()) == base && name.back() == 'f')
      return true;
  }
  return false;
}

bool is_implementation_reserved(std::string_view name) {
  return name.size() >= 2 && name[0] == '_' &&
         (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'));
}

std::string element_for(const std::string& symbol) {
  return "symbol '" + symbol + "'";
}

}  // namespace

bool is_c_identifier(std::string_view name) {
  if (name.empty()) return false;
  auto is_alpha = [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
  };
  auto is_digit = [](char ch) { return ch >= '0' && ch <= '9'; };
  if (!is_alpha(name.front())) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char ch) { return is_alpha(ch) || is_digit(ch); });
}

bool check_symbols(std::span<const std::string> symbols, Diagnostics& diagnostics) {
  const std::size_t errors_before = diagnostics.error_count();
  std::set<std::string_view> seen;
  for (const std::string& symbol : symbols) {
    const std::string element = element_for(symbol);
    if (!is_c_identifier(symbol)) {
      diagnostics.error({}, element,
                        "not a C identifier (letters, digits and '_', not starting with a digit)");
    } else if (is_reserved_word(symbol)) {
      diagnostics.error({}, element, "is a reserved word of the generated C/CUDA code");
    } else if (is_implementation_reserved(symbol)) {
      diagnostics.error({}, element,
                        "names starting with '__' or '_' and a capital are reserved (C99 7.1.3)");
    } else if (is_libm_name(symbol)) {
      diagnostics.error({}, element, "would shadow the libm function the generated code calls");
    } else if (!seen.insert(symbol).second) {
      diagnostics.error({}, element, "defined twice: function names must be unique");
    }
  }
  return diagnostics.error_count() == errors_before;
}

}  // namespace talon::codegen
