#include "runtime/content_hash.h"

#include <cstdint>
#include <cstdio>

namespace talon::runtime {
namespace {

// FNV-1a (Fowler–Noll–Vo), 64-bit prime; the second pass starts from another basis and
// also mixes in the length, so the two halves are independent enough for a cache key.
uint64_t fnv1a(std::string_view text, uint64_t basis) {
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  uint64_t hash = basis;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= kPrime;
  }
  return hash;
}

}  // namespace

std::string content_hash(std::string_view text) {
  const uint64_t a = fnv1a(text, 0xcbf29ce484222325ULL);
  const uint64_t b = fnv1a(text, 0x84222325cbf29ce4ULL ^ text.size());
  char digits[33];
  std::snprintf(digits, sizeof digits, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return digits;
}

}  // namespace talon::runtime
