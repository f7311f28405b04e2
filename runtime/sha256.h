// SHA-256 (FIPS 180-4; the compression function in runtime/sha256_blocks.h), written out
// here so the kernel cache needs no crypto library: the cache key of a model unit and the
// checksum that a cached library is verified against before it is loaded.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace talon::runtime {

// Incremental: update() with the message in pieces of any size, then hex_digest() once.
class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  // The 64 lowercase hexadecimal digits of the digest; the object is spent afterwards.
  std::string hex_digest();

 private:
  std::array<uint32_t, 8> state_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;  // bytes waiting in buffer_
  uint64_t length_ = 0;       // message length in bytes
};

// The digest of `bytes` in one call.
std::string sha256_hex(std::string_view bytes);

}  // namespace talon::runtime
