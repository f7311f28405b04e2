#include "runtime/content_hash.h"

#include "runtime/sha256.h"

namespace talon::runtime {

std::string content_hash(std::string_view text) {
  return sha256_hex(text).substr(0, 32);
}

}  // namespace talon::runtime
