#include "runtime/content_hash.h"

#include "runtime/sha256.h"

namespace talon::runtime {

std::string content_hash(std::string_view text) {
  return content_hash({text});
}

std::string content_hash(std::initializer_list<std::string_view> pieces) {
  Sha256 hash;
  for (const std::string_view piece : pieces) hash.update(piece);
  return hash.hex_digest().substr(0, 32);
}

}  // namespace talon::runtime
